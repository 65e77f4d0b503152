"""The comparison of a current run with a baseline (``reports compare``): verdicts per metric,
correctness failures, changed counters and warnings.

Only like is compared with like: when the two runs' configurations differ on what shapes timing
(``reports.load.configuration``: engines, size, difficulty, data set, schema version, mode, target),
every metric is 'not comparable', with the differences as its reason, and the comparison says so
at the top (``Comparison.unlike``); failed cases still count.

A metric's verdict comes from the ratio of medians, current over baseline, and its seeded block
bootstrap interval (rounds, chunks, cases: see ``reports.stats``): 'regression' when the whole
interval lies above 1 + threshold, 'improvement' when it lies below 1 - threshold, else 'unchanged';
'not comparable' with too few samples on a side. An unchanged metric also gets a **reading** that says
what is true of it: 'faster, but not surely by 10 %' when the whole interval lies below 1 (slower
likewise), '~ no clear change (-13.4 % .. +0.4 %)' when the interval spans 1 and reaches past the
threshold (a change that may be there but is not significant: asv's '~'). Two guards against machine
load, which shifts whole runs:

- **spread**: with two or more rounds on a side, a ratio no further from 1 than the largest ratio
  between two rounds of one side (the same code, moved by load alone) is never a verdict;
- **single run**: with one run on a side, load cannot be told from code, so a change must pass a
  factor of 1 + ``SINGLE_RUN_THRESHOLD`` (1.5) either way: above 1.5 or below 1/1.5.

The **A/A check**: when the current run has two or more rounds, its first half of rounds is
compared with its second half by the same rule; any verdict but 'unchanged' there marks every timing
verdict of the comparison unreliable (shown, never failing). Any failed case in the current run is a
regression, whatever the timings say.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from jobs.schema import COUNTER_COLUMNS
from reports import stats
from reports.load import ROUND, Run, differences
from reports.summary import Failure, failures, phases, timed_rows

from reports.settings import CONFIDENCE, MIN_SAMPLES, RESAMPLES, SEED, SINGLE_RUN_THRESHOLD, THRESHOLD

REGRESSION, IMPROVEMENT, UNCHANGED, NOT_COMPARABLE = "regression", "improvement", "unchanged", "not comparable"
Blocks = tuple[npt.NDArray[Any] | None, npt.NDArray[Any] | None]  # (rounds, chunks) of each sample
Groups = dict[tuple[Any, str], tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]]


@dataclass
class Metric:
    """One timed phase for one size and case set, in both runs, with its verdict."""

    phase: str
    size: Any
    case_set: str
    base: npt.NDArray[Any] = field(repr=False)
    head: npt.NDArray[Any] = field(repr=False)
    verdict: str = NOT_COMPARABLE
    ratio: stats.Ratio | None = None  # when comparable
    note: str = ""
    base_blocks: Blocks = field(default=(None, None), repr=False)  # (rounds, chunks) of each sample
    head_blocks: Blocks = field(default=(None, None), repr=False)
    spread: float = 1.0     # largest ratio between two rounds of one side
    limit: float | None = None     # the threshold applied (larger with a single run on a side)
    floor: float | None = None     # the ratio an improvement must lie below
    single: bool = False    # one run on a side: the larger factor applied
    reading: str = ""       # what is true of an unchanged metric, shown instead of 'unchanged' when set

    @property
    def name(self) -> str:
        size = "-" if self.size is None else f"{self.size}x{self.size}"
        return f"{self.phase}[{size},{self.case_set}]"

    @property
    def band(self) -> tuple[float, float] | None:
        """(floor, ceiling): the ratios the whole interval must lie below or above for a verdict, as
        judged; None when not judged. Plots draw it and texts state it, so both show the rule applied."""
        return None if self.limit is None or self.floor is None else (self.floor, 1 + self.limit)

    @property
    def base_median(self) -> float:
        return float(np.median(self.base)) if self.base.size else float("nan")

    @property
    def head_median(self) -> float:
        return float(np.median(self.head)) if self.head.size else float("nan")


@dataclass
class CounterChange:
    counter: str
    case: int
    case_set: str
    size: Any
    base: int | None
    head: int | None


@dataclass
class Comparison:
    base: Run
    head: Run
    threshold: float
    confidence: float
    resamples: int
    seed: int
    min_samples: int
    metrics: list[Metric]
    failures: list[Failure]
    fixed: int
    counters_matched: int
    counter_changes: list[CounterChange]
    warnings: list[str]
    aa: "AACheck | None" = None  # of the current run's rounds, when it has two or more
    unlike: list[str] = field(default_factory=list)  # how the runs' configurations differ: no timing compares

    @property
    def comparable(self) -> bool:
        """False when the runs' configurations differ: every timing is then 'not comparable'."""
        return not self.unlike

    @property
    def timing_reliable(self) -> bool:
        """False when the A/A check of the current run's rounds found a change: load, not code."""
        return self.aa is None or self.aa.reliable

    @property
    def rounds(self) -> tuple[int, int]:
        """(baseline rounds, current rounds)."""
        return self.base.rounds, self.head.rounds

    @property
    def timing_regressions(self) -> list[Metric]:
        """Timing regressions that count: none when the timing verdicts are unreliable."""
        return self.flagged_regressions if self.timing_reliable else []

    @property
    def flagged_regressions(self) -> list[Metric]:
        """Metrics whose verdict is 'regression', reliable or not."""
        return [m for m in self.metrics if m.verdict == REGRESSION]

    @property
    def improvements(self) -> list[Metric]:
        return [m for m in self.metrics if m.verdict == IMPROVEMENT]

    @property
    def correctness_regression(self) -> bool:
        return bool(self.failures)

    @property
    def regression(self) -> bool:
        return self.correctness_regression or bool(self.timing_regressions)

    def changed_counters(self) -> dict[str, int]:
        """counter -> number of matched cases where it changed."""
        out: dict[str, int] = {}
        for change in self.counter_changes:
            out[change.counter] = out.get(change.counter, 0) + 1
        return out


def judge(metric: Metric, *, threshold: float, min_samples: int, rng: np.random.Generator, resamples: int,
          confidence: float, single_run_threshold: float = SINGLE_RUN_THRESHOLD) -> Metric:
    """Set the verdict, ratio, spread, limit and note of one metric from its two samples and their blocks."""
    base, head = metric.base, metric.head
    if base.size == 0 or head.size == 0:
        metric.verdict, metric.note = NOT_COMPARABLE, "only in the current run" if base.size == 0 else "only in the baseline"
        return metric
    if base.size < min_samples or head.size < min_samples:
        metric.verdict, metric.note = NOT_COMPARABLE, f"too few samples (need {min_samples} per side)"
        return metric
    (base_rounds, base_chunks), (head_rounds, head_chunks) = metric.base_blocks, metric.head_blocks
    r = stats.ratio_of_medians(base, head, rng=rng, resamples=resamples, confidence=confidence,
                               base_rounds=base_rounds, base_chunks=base_chunks, head_rounds=head_rounds,
                               head_chunks=head_chunks)
    single = min(stats.rounds_of(base_rounds, base.size), stats.rounds_of(head_rounds, head.size)) < 2
    limit = max(threshold, single_run_threshold) if single else threshold
    floor = 1 / (1 + limit) if single else 1 - threshold  # a single run: the same factor either way
    spread = max(stats.round_spread(base, base_rounds), stats.round_spread(head, head_rounds))
    within = 1 / spread <= r.point <= spread
    metric.ratio, metric.spread, metric.limit, metric.floor, metric.single = r, spread, limit, floor, single
    metric.reading, metric.note = "", ""
    if r.low > 1 + limit and not within:
        metric.verdict = REGRESSION
    elif r.high < floor and not within:
        metric.verdict = IMPROVEMENT
    else:
        metric.verdict = UNCHANGED
        metric.reading = reading(r, threshold=threshold, limit=limit, floor=floor, single=single)
        past = r.point > 1 + threshold or r.point < 1 - threshold
        if past and within and spread > 1:
            metric.note = f"within the spread between rounds of one side (x{spread:.2f})"
        elif past and single and floor <= r.point <= 1 + limit:
            metric.note = f"one run on a side: load cannot be told from code within x{1 + limit:g}"
    return metric


def reading(r: stats.Ratio, *, threshold: float, limit: float, floor: float, single: bool) -> str:
    """What is true of an unchanged ratio ``r`` (a stats.Ratio): '' when its interval lies within the
    threshold, else which way it went and that it did not surely pass the line."""
    if 1 - threshold <= r.low and r.high <= 1 + threshold:
        return ""
    by = f"a factor of {1 + limit:g}" if single else f"{threshold * 100:g} %"  # single: 1 / floor == 1 + limit
    if r.high < 1:
        return f"faster, but not surely by {by}"
    if r.low > 1:
        return f"slower, but not surely by {by}"
    return f"~ no clear change ({(r.low - 1) * 100:+.1f} % .. {(r.high - 1) * 100:+.1f} %)"


def group_blocks(records: pd.DataFrame, phase: str) -> Groups:
    """(size, case_set) -> (samples, rounds, chunks) of ``phase``, sorted by size then case set."""
    rows = timed_rows(records)
    rows = rows[rows[phase].notna()]
    groups: Groups = {}
    for (size, case_set), group in rows.groupby(["size", "case_set"], sort=True, dropna=False):
        rounds = group[ROUND].to_numpy(dtype=np.int64) if ROUND in group else np.zeros(len(group), np.int64)
        chunks = group["chunk"].fillna(-1).to_numpy(dtype=np.int64)
        key = (None if size is None or size is pd.NA or (isinstance(size, float) and np.isnan(size))
               else (size.item() if isinstance(size, np.generic) else size), case_set)
        groups[key] = (group[phase].to_numpy(dtype=float), rounds, chunks)
    return groups


_EMPTY = (np.empty(0), np.empty(0, np.int64), np.empty(0, np.int64))


def compare_timings(base_records: pd.DataFrame, head_records: pd.DataFrame, *, threshold: float, min_samples: int,
                    seed: int, resamples: int, confidence: float, single_run_threshold: float = SINGLE_RUN_THRESHOLD,
                    unlike: Iterable[str] = ()) -> list[Metric]:
    """A judged Metric per phase, size and case set of either run; all 'not comparable' (with the
    differences as the note) when ``unlike`` lists how the runs' configurations differ."""
    metrics: list[Metric] = []
    for phase in sorted(set(phases(base_records)) | set(phases(head_records)),
                        key=lambda c: (list(base_records.columns).index(c), c)):
        base_groups = group_blocks(base_records, phase) if phase in base_records else {}
        head_groups = group_blocks(head_records, phase) if phase in head_records else {}
        for key in sorted(set(base_groups) | set(head_groups), key=lambda k: (k[0] is None, k[0] or 0, str(k[1]))):
            (b, b_rounds, b_chunks), (h, h_rounds, h_chunks) = base_groups.get(key, _EMPTY), head_groups.get(key, _EMPTY)
            metric = Metric(phase, key[0], key[1], b, h, base_blocks=(b_rounds, b_chunks),
                            head_blocks=(h_rounds, h_chunks))
            if unlike:
                metric.note = "configurations differ: " + "; ".join(unlike)
            else:
                judge(metric, threshold=threshold, min_samples=min_samples, rng=stats.metric_rng(seed, metric.name),
                      resamples=resamples, confidence=confidence, single_run_threshold=single_run_threshold)
            metrics.append(metric)
    return metrics


@dataclass
class AACheck:
    """The current run's first half of rounds against its second half: the same code, so any
    verdict but 'unchanged' is load (or a flaw of the benchmark), and the timing verdicts are unreliable."""

    first: list[int]    # round numbers (0-based) of each half
    second: list[int]
    metrics: list[Metric]

    @property
    def flagged(self) -> list[Metric]:
        return [m for m in self.metrics if m.verdict in (REGRESSION, IMPROVEMENT)]

    @property
    def reliable(self) -> bool:
        return not self.flagged


def aa_check(head: Run, **options: Any) -> AACheck | None:
    """The A/A check of a run of two or more rounds (None for a single run)."""
    if head.rounds < 2:
        return None
    half = head.rounds // 2
    first, second = list(range(half)), list(range(half, head.rounds))
    a, b = head.select_rounds(first, label="first-half"), head.select_rounds(second, label="second-half")
    return AACheck(first=first, second=second, metrics=compare_timings(a.records, b.records, **options))


def case_keys(records: pd.DataFrame) -> pd.DataFrame:
    """The key that matches a case across runs: case set, size, case index and the puzzle or input."""
    text = records["puzzle"].astype("object").where(records["puzzle"].notna(), records["input_text"].astype("object"))
    return pd.DataFrame({"case_set": records["case_set"].astype("object"),
                         "size": records["size"].astype("object"),
                         "case": records["case"].astype("object"),
                         "text": text.fillna("")})


def _keyed(records: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    keyed = pd.concat([case_keys(records), records[columns].astype("object")], axis=1)
    return keyed.drop_duplicates(subset=["case_set", "size", "case", "text"], keep="first")


def compare_counters(base_records: pd.DataFrame, head_records: pd.DataFrame) -> tuple[pd.DataFrame, list[CounterChange]]:
    """(matched cases, changes) of the counters over the cases found in both runs."""
    columns = list(COUNTER_COLUMNS) + ["outcome"]
    merged = _keyed(base_records, columns).merge(_keyed(head_records, columns), on=["case_set", "size", "case", "text"],
                                                 suffixes=("_base", "_head"))
    changes: list[CounterChange] = []
    for counter in COUNTER_COLUMNS:
        b, h = merged[f"{counter}_base"], merged[f"{counter}_head"]
        differs = ~((b.isna() & h.isna()) | (b.notna() & h.notna() & (b == h).fillna(False).astype(bool)))
        for row in merged[differs].itertuples(index=False):
            changes.append(CounterChange(counter, int(row.case), row.case_set, row.size,
                                         _plain(getattr(row, f"{counter}_base")), _plain(getattr(row, f"{counter}_head"))))
    changes.sort(key=lambda c: (c.counter, c.case_set, c.case))
    return merged, changes


def _plain(value: Any) -> int | None:
    return None if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)) else int(value)


def host_warnings(base: Run, head: Run) -> list[str]:
    def describe(hosts: list[tuple[Any, Any]]) -> str:
        return "; ".join(f"{cpu} ({cores} cores)" for cpu, cores in hosts)

    warnings: list[str] = []
    if set(base.hosts) != set(head.hosts):
        warnings.append(f"different hosts: baseline ran on {describe(base.hosts)}, current on {describe(head.hosts)}; "
                        "timings are compared anyway, read them with care")
    for run, label in ((base, "baseline"), (head, "current")):
        if len(run.hosts) > 1:
            warnings.append(f"the {label} run set spans several hosts: {describe(run.hosts)}")
    return warnings


def compare(base: Run, head: Run, *, threshold: float = THRESHOLD, min_samples: int = MIN_SAMPLES, seed: int = SEED,
            resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
            single_run_threshold: float = SINGLE_RUN_THRESHOLD, aa: bool = True) -> Comparison:
    """The comparison of run ``head`` (current) with run ``base`` (baseline); with ``aa``, also the A/A
    check of the current run's rounds."""
    options: dict[str, Any] = dict(threshold=threshold, min_samples=min_samples, seed=seed, resamples=resamples,
                   confidence=confidence, single_run_threshold=single_run_threshold)
    unlike = unlike_configurations(base, head)
    metrics = compare_timings(base.records, head.records, unlike=unlike, **options)
    check = aa_check(head, **options) if aa else None
    merged, changes = compare_counters(base.records, head.records)
    found = failures(head)
    was_failed = merged["outcome_base"] == "failed"
    still = set(zip(merged.loc[was_failed & (merged["outcome_head"] == "failed"), "case_set"],
                    merged.loc[was_failed & (merged["outcome_head"] == "failed"), "case"]))
    for failure in found:
        failure.status = "still failing" if (failure.case_set, failure.case) in still else "new failure"
    fixed = int((was_failed & (merged["outcome_head"] == "ok")).sum())
    warnings = host_warnings(base, head) + base.notes + head.notes
    if check is not None and not check.reliable:
        shown = ", ".join(f"{m.name} {m.ratio.point:.3f} ({m.verdict})" for m in check.flagged)  # type: ignore[union-attr]
        warnings.append(f"timing verdicts unreliable: the A/A check (the current run's rounds "
                        f"{_rounds_text(check.first)} against {_rounds_text(check.second)}, the same code) found {shown}; "
                        "the machine's load moved between rounds, so no timing verdict fails this comparison")
    if unlike:
        warnings.insert(0, f"not comparable: the runs' configurations differ ({'; '.join(unlike)}, baseline vs "
                           "current), so no timing is compared; compare runs made with the same options")
    if min(base.rounds, head.rounds) < 2 and any(m.ratio for m in metrics):
        warnings.append(f"one run on a side: a timing verdict cannot separate machine load from code, so a change must "
                        f"pass a factor of {1 + max(threshold, single_run_threshold):g} either way; interleaved rounds (a directory of runs per "
                        "side) give a sharper verdict")
    return Comparison(base=base, head=head, threshold=threshold, confidence=confidence, resamples=resamples, seed=seed,
                      min_samples=min_samples, metrics=metrics, failures=found, fixed=fixed,
                      counters_matched=len(merged), counter_changes=changes, warnings=warnings, aa=check,
                      unlike=unlike)


def unlike_configurations(base: Run, head: Run) -> list[str]:
    """How the two runs' configurations differ ('engine nb vs py', ...); [] when they match."""
    if base.configuration is None or head.configuration is None:
        which = " and ".join(label for run, label in ((base, "baseline"), (head, "current"))
                             if run.configuration is None)
        return [f"the {which} merges runs of unlike configurations"]
    return differences(base.configuration, head.configuration)


def _rounds_text(numbers: Iterable[int]) -> str:
    return "+".join(str(n + 1) for n in numbers)
