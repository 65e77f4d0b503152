"""The summary of one run (``reports show``): counts, failures, timing percentiles, slowest cases."""

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from sudoku.display import counted
from jobs.schema import TIME_COLUMNS
from reports.bugs import Bug, bug_of, by_status
from reports.load import Run, configuration
from reports.stats import percentiles
from reports.text import fmt_size

SLOWEST = 10
MIN_TIMED = 20  # cases a set needs before its timing percentiles and plot row are shown


@dataclass
class Failure:
    """A case whose outcome is 'failed', with what is needed to reproduce it."""

    case: int
    case_set: str
    size: Any
    reason: str
    oracles: list[str]
    target: Any
    exit_code: Any
    puzzle: Any
    input_text: Any
    corpus: str | None = None     # the reproducer file or the corpus directory, when the run has one
    status: str = "failed"    # in a comparison: 'new failure' or 'still failing'

    @property
    def reproducer(self) -> str:
        """The puzzle (line format) or, for fuzz cases, the exact input text as a JSON string."""
        if _present(self.input_text):
            return json.dumps(self.input_text)
        puzzle: str = self.puzzle if _present(self.puzzle) else ""
        return puzzle


@dataclass
class Timing:
    """Percentiles of one phase over the rows of one size and case set."""

    phase: str
    size: Any
    case_set: str
    samples: npt.NDArray[Any] = field(repr=False)
    failed: npt.NDArray[Any] | None = field(default=None, repr=False)  # per sample: its case failed (plots colour by it)

    @property
    def n(self) -> int:
        return int(self.samples.size)

    @property
    def quantiles(self) -> list[float]:
        return percentiles(self.samples)

    @property
    def maximum(self) -> float:
        return float(self.samples.max()) if self.n else float("nan")


@dataclass
class Summary:
    run: Run
    counts: dict[str, int]
    failures: list[Failure]
    by_oracle: list[tuple[str, int]]
    by_case_set: list[tuple[str, int, int, int]]
    format_slips: list[tuple[str, int]]
    timings: list[Timing]
    slowest: list[dict[str, Any]]
    bugs: list[Bug] = field(default_factory=list)  # fuzz: distinct bugs, one reproducer each
    notes: list[tuple[str, int]] = field(default_factory=list)  # fuzz: notes on cases, never failures

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def status(self) -> str:
        """The run's verdict in a few words, for every rendering's headline: a run cut short says so,
        since its 'no failed case' covers only what ran."""
        found = counted(self.failed, "failed case") if self.failed else "no failed case"
        if self.run.complete:
            return found
        if all(how.endswith("(finished early as asked)") for how in self.run.unfinished):
            return f"{found} (finished early as asked: --max-failures)"  # no 'so far': it goes no further
        return f"{found} so far (not complete)"

    @property
    def target(self) -> tuple[str, Any] | None:
        """A fuzz run's one target, as the command it runs, and the run's seed, which every rendering
        names first as fuzz run's own summary does; None for a batch run, and for a class's run (its
        targets have a table of their own)."""
        config = self.run.manifest.get("config")
        config = config if isinstance(config, dict) else {}
        several = config.get("targets")
        if isinstance(several, list) and len(several) > 1:
            return None
        target = configuration(self.run.manifest)["target"]
        return None if target is None else (target, config.get("seed"))


def _present(value: Any) -> bool:
    return value is not None and value is not pd.NA and not (isinstance(value, float) and np.isnan(value))


def _value(value: Any) -> Any:
    if not _present(value):
        return None
    return value.item() if isinstance(value, np.generic) else value


def timed_rows(records: pd.DataFrame) -> pd.DataFrame:
    """Rows whose timings mean something: every outcome but 'rejected'."""
    return records[records["outcome"].astype("object") != "rejected"]


def phases(records: pd.DataFrame) -> list[str]:
    """Time columns that hold at least one value, in schema order."""
    return [c for c in TIME_COLUMNS if c in records and records[c].notna().any()]


def timing_set(records: pd.DataFrame) -> Any:
    """The set a row's timings are grouped by: its case set, followed by its level (``sudoku grade``)
    when the run graded it (``sudoku-jobs run --grade``), so one can see which levels cost what."""
    sets = records["case_set"].astype("object")
    if "level" not in records:
        return sets
    level = records["level"].astype("object")
    graded = level.notna()
    return sets.where(~graded, sets + " · " + level.where(graded, ""))


def group_samples(records: pd.DataFrame, phase: str) -> dict[tuple[Any, str], tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    """(size, timing set) -> (the non-null samples of ``phase``, whether each one's case failed),
    sorted by size then set."""
    rows = timed_rows(records)
    rows = rows[rows[phase].notna()].assign(case_set=timing_set)
    groups: dict[tuple[Any, str], tuple[npt.NDArray[Any], npt.NDArray[Any]]] = {}
    for (size, case_set), group in rows.groupby(["size", "case_set"], sort=True, dropna=False):
        failed = (group["outcome"].astype("object") == "failed").to_numpy(dtype=bool)
        groups[(_value(size), case_set)] = group[phase].to_numpy(dtype=float), failed
    return groups


def timings(records: pd.DataFrame) -> list[Timing]:
    return [Timing(phase, size, case_set, samples, failed)
            for phase in phases(records)
            for (size, case_set), (samples, failed) in group_samples(records, phase).items()]


def enough_cases(timings: Iterable[Timing], least: int = MIN_TIMED) -> tuple[list[Timing], list[str]]:
    """(timings of sets with at least ``least`` cases, the sets left out as 'name (n)'): a p99 of a
    handful of cases is one case, and a plot row of three points says nothing."""
    kept = [t for t in timings if t.n >= least]
    left = {f"{fmt_size(t.size)} {t.case_set} ({t.n})": None for t in timings if t.n < least}
    return kept, list(left)


def left_out_text(left: Sequence[str], least: int = MIN_TIMED) -> str:
    """One line on the sets ``enough_cases`` left out, and why."""
    named = ", ".join(left) if len(left) <= 6 else ", ".join(left[:6]) + f" and {len(left) - 6} more"
    return (f"Left out: {counted(len(left), 'set')} with fewer than {least} cases each ({named}): the percentiles of so "
            "few cases are their slowest one or two.")


def corpus_index(corpus_dirs: Iterable[Path]) -> dict[int | str, str]:
    """signature (or, for older runs, case index) -> reproducer folder, from the ``case.json`` of each
    corpus entry (the fuzz layout: ``corpus/<target>/<oracle>/<bug>/{input.txt,case.json}``). A corpus is
    untrusted: no link is followed (``rglob`` enters none below the corpus), nor a FIFO opened."""
    from sudoku.files import read_small
    from reports.bugs import MAX_READ

    index: dict[int | str, str] = {}
    for directory in corpus_dirs:
        for meta_path in sorted(directory.rglob("case.json")):
            try:
                meta = json.loads(read_small(meta_path, MAX_READ))
            except ValueError:  # NotReadable (a link, a FIFO, a folder, too big) or not JSON
                continue
            if not isinstance(meta, dict):
                continue
            for key in (meta.get("signature"), meta.get("case")):
                if isinstance(key, (int, str)):
                    index.setdefault(key, str(meta_path.parent))
    return index


def corpus_path(corpus_dirs: Sequence[Path], index: dict[int | str, str], case: int, signature: Any) -> str | None:
    """The reproducer folder of the case's bug (its signature), else of the case, else the corpus."""
    for key in (signature, case):
        if key in index:
            return index[key]
    return str(corpus_dirs[0]) if corpus_dirs else None


def bugs(run: Run) -> list[Bug]:
    """The distinct bugs a fuzz run saved (each with cases, signature, detail, input, replay line)."""
    return [bug_of(bug) for manifest in run.manifests for bug in (manifest.get("fuzz") or {}).get("groups", [])]


def failures(run: Run) -> list[Failure]:
    """The failed cases, but those of a fuzz run's slow answers and unconfirmed failures (``not_bugs``)."""
    rows = run.records[run.records["outcome"].astype("object") == "failed"]
    index = corpus_index(run.corpus) if len(rows) else {}
    apart = not_bugs(run) if len(rows) else set()
    found: list[Failure] = []
    for row in rows.sort_values("case").to_dict("records"):
        if apart and _value(row.get("signature")) in apart:
            continue
        oracles = [o.strip() for o in row["oracles_failed"].split(",") if o.strip()] \
            if _present(row["oracles_failed"]) else []
        found.append(Failure(
            case=int(row["case"]), case_set=row["case_set"], size=_value(row["size"]),
            reason=_value(row["reason"]) or "", target=_value(row["target"]), exit_code=_value(row["exit_code"]),
            oracles=oracles, puzzle=_value(row["puzzle"]), input_text=_value(row["input_text"]),
            corpus=corpus_path(run.corpus, index, int(row["case"]), _value(row.get("signature")))))
    return found


def not_bugs(run: Run) -> set[str]:
    """The signatures a fuzz run saved only as slow answers or unconfirmed failures: their cases are
    no failure of the run (``fuzz run`` exits 0 for them unless asked), so no regression either."""
    found = by_status(bugs(run))
    real = {str(one) for bug in found["bug"] for one in [bug.get("signature"), *(bug.get("also") or [])]}
    return {str(bug.get("signature")) for status in ("slow", "unconfirmed") for bug in found[status]} - real


def _split_counts(series: Any) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    for text in series.dropna():
        counts.update(part.strip() for part in str(text).split(",") if part.strip())
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def by_case_set(records: pd.DataFrame) -> list[tuple[str, int, int, int]]:
    """(case set, cases, failed, rejected) per case set."""
    out: list[tuple[str, int, int, int]] = []
    outcome = records["outcome"].astype("object")
    for case_set, group in records.groupby("case_set", sort=True):
        o = outcome[group.index]
        out.append((case_set, len(group), int((o == "failed").sum()), int((o == "rejected").sum())))
    return out


def slowest(records: pd.DataFrame, limit: int = SLOWEST) -> list[dict[str, Any]]:
    """The ``limit`` cases with the largest total time over all phases."""
    columns = phases(records)
    if not columns or records.empty:
        return []
    total = records[columns].sum(axis=1, skipna=True, min_count=1)
    top = total.dropna().sort_values(ascending=False, kind="stable").head(limit)
    out: list[dict[str, Any]] = []
    for index, value in top.items():
        row = records.loc[index]
        out.append({"case": int(row["case"]), "case_set": row["case_set"], "size": _value(row["size"]),
                     "total_s": float(value), "outcome": row["outcome"],
                     "phases": {c: float(row[c]) for c in columns if _present(row[c])},
                     "reproducer": json.dumps(row["input_text"]) if _present(row["input_text"])
                     else (_value(row["puzzle"]) or "")})
    return out


def summarize(run: Run) -> Summary:
    records = run.records
    counts = records["outcome"].astype("object").fillna("-").value_counts().to_dict()
    found = failures(run)
    failed_rows = records[records["outcome"].astype("object") == "failed"]
    return Summary(run=run, counts={k: int(v) for k, v in sorted(counts.items())}, failures=found,
                   by_oracle=_split_counts(failed_rows["oracles_failed"]), by_case_set=by_case_set(records),
                   format_slips=_split_counts(records["format_slips"]), timings=timings(records),
                   slowest=slowest(records), bugs=bugs(run),
                   notes=_split_counts(records["notes"]) if "notes" in records else [])
