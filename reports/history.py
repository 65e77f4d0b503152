"""History (``reports history``): each metric over commits, as asv draws it, and the commits where a
step change happened.

Vocabulary, beyond the package's:

- **commit**: the runs of one git sha and one configuration, merged as its rounds (a *point* of the
  series of that configuration; ``History.commit_count`` counts shas, not points); commits are
  ordered by the earliest recorded start of their runs (``started`` in the manifest, else the run's
  name). A run without a git sha is a commit of its own, named by the run. Runs of a dirty tree
  (``git_dirty`` in the manifest) are a commit apart from the clean runs of their sha, labelled
  ``SHA+dirty``: their code is not the commit's.
- **series**: one metric (phase, size, case set) of one configuration over the commits that have it.
- **step**: a commit whose samples, with up to ``WINDOW`` commits after it, differ from up to
  ``WINDOW`` commits before it by the rule of ``reports.verdict.judge``: the block-bootstrap interval
  (commits and rounds, then chunks, then cases resampled) wholly past the threshold, and the ratio
  past the spread between commits of one side, so a commit moved by load alone is no step. Of
  neighbouring splits that pass, the one with the largest change is named.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reports import ReportError, stats
from reports.load import ROUND, Run, differences, load_run
from reports.settings import CONFIDENCE, MIN_SAMPLES, SEED, THRESHOLD
from reports.summary import phases
from reports.verdict import IMPROVEMENT, REGRESSION, Metric, group_blocks, judge

Samples = tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]  # (values, rounds, chunks)
ConfigKey = tuple[tuple[str, Any], ...]
WINDOW = 3          # commits on each side of a split
RESAMPLES = 1000    # bootstrap resamples per split (a history judges many splits)


@dataclass
class Commit:
    """The runs of one git sha and configuration, merged as rounds."""

    sha: str       # the git sha, or the run's name when it has none
    started: str   # the earliest recorded start of its runs ('' when none is recorded)
    run: Run       # of its rounds
    configuration: dict[str, Any]
    dirty: bool = False  # run from a tree with changes to tracked files
    tag: str = ""        # its configuration, when the history has several

    @property
    def label(self) -> str:
        return self._short(10)

    @property
    def short(self) -> str:
        """The label for a narrow column."""
        return self._short(7)

    def _short(self, width: int) -> str:
        name = self.sha[:width] if self.run.manifest.get("git_sha") else self.sha
        return name + ("+dirty" if self.dirty else "")


@dataclass
class Step:
    """A step change of a series at one of its points: the ratio (after / before) and its verdict."""

    at: int          # index into the series' points: the first commit after the change
    commit: Commit   # that commit
    ratio: stats.Ratio
    verdict: str     # 'regression' (slower) or 'improvement' (faster)


@dataclass
class Series:
    """One metric of one configuration over the commits that have it."""

    phase: str
    size: Any
    case_set: str
    tag: str                                            # the configuration, when the history has several
    commits: list[Commit] = field(default_factory=list)         # Commit per point
    samples: list[Samples] = field(default_factory=list, repr=False)  # (values, rounds, chunks) per point
    steps: list[Step] = field(default_factory=list)

    @property
    def name(self) -> str:
        size = "-" if self.size is None else f"{self.size}x{self.size}"
        return f"{self.phase}[{size},{self.case_set}]" + (f" {self.tag}" if self.tag else "")

    @property
    def medians(self) -> list[float]:
        return [float(np.median(values)) if values.size else float("nan") for values, _, _ in self.samples]

    def quartiles(self) -> list[tuple[float, ...]]:
        """(p25, p75) per point."""
        return [tuple(np.percentile(values, [25, 75])) if values.size else (float("nan"),) * 2
                for values, _, _ in self.samples]


@dataclass
class History:
    commits: list[Commit]   # every Commit (a sha in one configuration), oldest first
    series: list[Series]
    threshold: float
    notes: list[str] = field(default_factory=list)

    @property
    def commit_count(self) -> int:
        """Distinct commits (a sha, clean or dirty), whatever the configurations run on each."""
        return len({(c.sha, c.dirty) for c in self.commits})

    @property
    def configuration_count(self) -> int:
        return len({_key(c.configuration) for c in self.commits})


def run_units(path: str | PathLike[str]) -> list[tuple[Path, str | None]]:
    """The runs under ``path`` as (run directory, its run set's name or None): itself
    when it holds a manifest; else each member that is a run, and each run of a member that is a run
    set (the rounds of one commit, named by the set). Each run is read on its own, so a run set that
    mixes configurations gives one series per configuration instead of an error."""
    path = Path(path)
    if not path.is_dir():
        raise ReportError(f"{path}: no such run directory")
    if (path / "manifest.json").exists():
        return [(path, None)]
    units: list[tuple[Path, str | None]] = []
    for member in sorted(p for p in path.iterdir() if p.is_dir()):
        if (member / "manifest.json").exists():
            units.append((member, None))
        else:
            units.extend((run, member.name) for run in sorted(member.iterdir())
                         if run.is_dir() and (run / "manifest.json").exists())
    if not units:
        raise ReportError(f"{path}: no manifest.json: not a run directory (nor a directory of runs)")
    return units


def _key(configuration: dict[str, Any]) -> ConfigKey:
    return tuple(sorted(configuration.items()))


def merge_rounds(runs: Sequence[Run], label: str) -> Run:
    """One Run of several runs of one commit: their rounds renumbered one after another."""
    if len(runs) == 1:
        return runs[0]
    frames: list[pd.DataFrame] = []
    offset = 0
    for run in runs:
        frame = run.records.copy()
        frame[ROUND] = frame[ROUND] + offset
        offset += run.rounds
        frames.append(frame)
    first = runs[0]
    return type(first)(path=first.path.parent / label, manifests=[m for r in runs for m in r.manifests],
                       records=pd.concat(frames, ignore_index=True), corpus=[],
                       notes=[note for run in runs for note in run.notes])


def load_history(paths: Iterable[str | PathLike[str]]) -> list[Commit]:
    """The commits of the runs under ``paths``, oldest first (runs of one sha and configuration merged)."""
    groups: dict[tuple[str, bool, ConfigKey], list[Run]] = {}
    for path in paths:
        for unit, name in run_units(path):
            run = load_run(unit)
            sha = run.manifest.get("git_sha") or name or run.name  # no sha: a commit per run set or run
            dirty = run.manifest.get("git_dirty") is True
            groups.setdefault((sha, dirty, _key(run.configuration)), []).append(run)  # type: ignore[arg-type]  # one configuration: not merged unlike
    commits: list[Commit] = []
    for (sha, dirty, _), members in groups.items():
        started = min(str(m.get("started") or "") for r in members for m in r.manifests)
        commits.append(Commit(sha=sha, started=started, run=merge_rounds(members, sha[:10] + ("+dirty" if dirty
                                                                                              else "")),
                              configuration=members[0].configuration, dirty=dirty))  # type: ignore[arg-type]
    commits.sort(key=lambda c: (c.started, c.sha, c.dirty))
    return commits


def configuration_tags(commits: Iterable[Commit]) -> dict[ConfigKey, str]:
    """A short tag per configuration (the fields in which the history's configurations differ)."""
    configurations = {_key(c.configuration): c.configuration for c in commits}
    if len(configurations) < 2:
        return {key: "" for key in configurations}
    first = next(iter(configurations.values()))
    names = sorted({name for config in configurations.values() for name in config
                    if differences({name: first.get(name)}, {name: config.get(name)})})
    return {key: "{" + ", ".join(f"{name} {config.get(name) or 'unset'}" for name in names) + "}"
            for key, config in configurations.items()}


def collect_series(commits: Sequence[Commit]) -> list[Series]:
    """Every series of the history: a point per commit that has samples of the metric."""
    tags = configuration_tags(commits)
    found: dict[tuple[ConfigKey, str, Any, str], Series] = {}
    for commit in commits:
        records = commit.run.records
        for phase in phases(records):
            for (size, case_set), blocks in group_blocks(records, phase).items():
                key = (_key(commit.configuration), phase, size, case_set)
                series = found.setdefault(key, Series(phase, size, case_set, tags[_key(commit.configuration)]))
                series.commits.append(commit)
                series.samples.append(blocks)
    order = {id(c): i for i, c in enumerate(commits)}
    return sorted(found.values(), key=lambda s: (s.tag, s.phase, s.size is None, s.size or 0, str(s.case_set),
                                                 order[id(s.commits[0])]))


def _side(samples: Sequence[Samples]) -> Samples:
    """The samples of several points as one side: (values, rounds, chunks), each (point, round) a round."""
    values = np.concatenate([v for v, _, _ in samples])
    rounds = np.concatenate([index * 100_000 + r for index, (_, r, _) in enumerate(samples)])
    chunks = np.concatenate([c for _, _, c in samples])
    return values, rounds, chunks


def find_steps(series: Series, *, threshold: float, seed: int, min_samples: int = MIN_SAMPLES,
               resamples: int = RESAMPLES, confidence: float = CONFIDENCE) -> list[Step]:
    """The steps of a series: splits whose after/before verdict is a change, the largest of neighbours."""
    passed: list[Step] = []
    for at in range(1, len(series.samples)):
        before, after = _side(series.samples[max(0, at - WINDOW):at]), _side(series.samples[at:at + WINDOW])
        metric = Metric(series.phase, series.size, series.case_set, before[0], after[0],
                        base_blocks=before[1:], head_blocks=after[1:])
        judge(metric, threshold=threshold, min_samples=min_samples, resamples=resamples, confidence=confidence,
              rng=stats.metric_rng(seed, f"{series.name}@{series.commits[at].sha}"))
        if metric.verdict in (REGRESSION, IMPROVEMENT):
            passed.append(Step(at, series.commits[at], metric.ratio, metric.verdict))  # type: ignore[arg-type]  # judged: has a ratio
    steps: list[Step] = []
    for step in passed:  # neighbouring splits of one direction see one step: keep the largest change
        last = steps[-1] if steps else None
        if last and step.at - last.at < WINDOW and step.verdict == last.verdict:
            if abs(np.log(step.ratio.point)) > abs(np.log(last.ratio.point)):
                steps[-1] = step
        else:
            steps.append(step)
    return steps


def history_of(commits: list[Commit], *, threshold: float = THRESHOLD, seed: int = SEED) -> History:
    """The History of ``commits`` (oldest first): every series with its steps."""
    series = collect_series(commits)
    for s in series:
        s.steps = find_steps(s, threshold=threshold, seed=seed)
    tags = configuration_tags(commits)
    for commit in commits:
        commit.tag = tags[_key(commit.configuration)]
    notes = [note for commit in commits for note in commit.run.notes]
    found = History(commits=commits, series=series, threshold=threshold, notes=notes)
    if found.commit_count < 2:
        notes.append("one commit only: a history needs two or more to show a change")
    return found
