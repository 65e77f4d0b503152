"""The comparison of a current run with a baseline (``reports compare``): verdicts per metric,
correctness failures, changed counters and warnings.

A metric's verdict comes from the ratio of medians, current over baseline, and its seeded bootstrap
interval: 'regression' when the whole interval lies above 1 + threshold, 'improvement' when it lies
below 1 - threshold, else 'unchanged' (marked '~' when the ratio alone is past the threshold: a
change that is not significant, as asv shows it); 'not comparable' with too few samples on a side.
Any failed case in the current run is a regression, whatever the timings say.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from jobs.schema import COUNTER_COLUMNS
from reports import stats
from reports.summary import failures, group_samples, phases

from reports.settings import CONFIDENCE, MIN_SAMPLES, RESAMPLES, SEED, THRESHOLD

REGRESSION, IMPROVEMENT, UNCHANGED, NOT_COMPARABLE = "regression", "improvement", "unchanged", "not comparable"


@dataclass
class Metric:
    """One timed phase for one size and case set, in both runs, with its verdict."""

    phase: str
    size: object
    case_set: str
    base: np.ndarray = field(repr=False)
    head: np.ndarray = field(repr=False)
    verdict: str = NOT_COMPARABLE
    ratio: object = None  # stats.Ratio, when comparable
    note: str = ""

    @property
    def name(self):
        size = "-" if self.size is None else f"{self.size}x{self.size}"
        return f"{self.phase}[{size},{self.case_set}]"

    @property
    def base_median(self):
        return float(np.median(self.base)) if self.base.size else float("nan")

    @property
    def head_median(self):
        return float(np.median(self.head)) if self.head.size else float("nan")


@dataclass
class CounterChange:
    counter: str
    case: int
    case_set: str
    size: object
    base: object
    head: object


@dataclass
class Comparison:
    base: object
    head: object
    threshold: float
    confidence: float
    resamples: int
    seed: int
    min_samples: int
    metrics: list
    failures: list
    fixed: int
    counters_matched: int
    counter_changes: list
    warnings: list

    @property
    def timing_regressions(self):
        return [m for m in self.metrics if m.verdict == REGRESSION]

    @property
    def improvements(self):
        return [m for m in self.metrics if m.verdict == IMPROVEMENT]

    @property
    def correctness_regression(self):
        return bool(self.failures)

    @property
    def regression(self):
        return self.correctness_regression or bool(self.timing_regressions)

    def changed_counters(self):
        """counter -> number of matched cases where it changed."""
        out = {}
        for change in self.counter_changes:
            out[change.counter] = out.get(change.counter, 0) + 1
        return out


def judge(base, head, *, threshold, min_samples, rng, resamples, confidence):
    """The verdict, ratio and note of one metric from its two samples."""
    if base.size == 0 or head.size == 0:
        return NOT_COMPARABLE, None, "only in the current run" if base.size == 0 else "only in the baseline"
    if base.size < min_samples or head.size < min_samples:
        return NOT_COMPARABLE, None, f"too few samples (need {min_samples} per side)"
    r = stats.ratio_of_medians(base, head, rng=rng, resamples=resamples, confidence=confidence)
    if r.low > 1 + threshold:
        return REGRESSION, r, ""
    if r.high < 1 - threshold:
        return IMPROVEMENT, r, ""
    if r.point > 1 + threshold or r.point < 1 - threshold:
        return UNCHANGED, r, "~ past the threshold but not significant"
    return UNCHANGED, r, ""


def compare_timings(base_records, head_records, *, threshold, min_samples, seed, resamples, confidence):
    metrics = []
    for phase in sorted(set(phases(base_records)) | set(phases(head_records)),
                        key=lambda c: (list(base_records.columns).index(c), c)):
        base_groups = group_samples(base_records, phase) if phase in base_records else {}
        head_groups = group_samples(head_records, phase) if phase in head_records else {}
        for key in sorted(set(base_groups) | set(head_groups), key=lambda k: (k[0] is None, k[0] or 0, str(k[1]))):
            metric = Metric(phase, key[0], key[1], base_groups.get(key, np.empty(0)), head_groups.get(key, np.empty(0)))
            metric.verdict, metric.ratio, metric.note = judge(
                metric.base, metric.head, threshold=threshold, min_samples=min_samples,
                rng=stats.metric_rng(seed, metric.name), resamples=resamples, confidence=confidence)
            metrics.append(metric)
    return metrics


def case_keys(records):
    """The key that matches a case across runs: case set, size, case index and the puzzle or input."""
    text = records["puzzle"].astype("object").where(records["puzzle"].notna(), records["input_text"].astype("object"))
    return pd.DataFrame({"case_set": records["case_set"].astype("object"),
                         "size": records["size"].astype("object"),
                         "case": records["case"].astype("object"),
                         "text": text.fillna("")})


def _keyed(records, columns):
    keyed = pd.concat([case_keys(records), records[columns].astype("object")], axis=1)
    return keyed.drop_duplicates(subset=["case_set", "size", "case", "text"], keep="first")


def compare_counters(base_records, head_records):
    """(matched cases, changes) of the counters over the cases found in both runs."""
    columns = list(COUNTER_COLUMNS) + ["outcome"]
    merged = _keyed(base_records, columns).merge(_keyed(head_records, columns), on=["case_set", "size", "case", "text"],
                                                 suffixes=("_base", "_head"))
    changes = []
    for counter in COUNTER_COLUMNS:
        b, h = merged[f"{counter}_base"], merged[f"{counter}_head"]
        differs = ~((b.isna() & h.isna()) | (b.notna() & h.notna() & (b == h).fillna(False).astype(bool)))
        for row in merged[differs].itertuples(index=False):
            changes.append(CounterChange(counter, int(row.case), row.case_set, row.size,
                                         _plain(getattr(row, f"{counter}_base")), _plain(getattr(row, f"{counter}_head"))))
    changes.sort(key=lambda c: (c.counter, c.case_set, c.case))
    return merged, changes


def _plain(value):
    return None if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)) else int(value)


def host_warnings(base, head):
    def describe(hosts):
        return "; ".join(f"{cpu} ({cores} cores)" for cpu, cores in hosts)

    warnings = []
    if set(base.hosts) != set(head.hosts):
        warnings.append(f"different hosts: baseline ran on {describe(base.hosts)}, current on {describe(head.hosts)}; "
                        "timings are compared anyway, read them with care")
    for run, label in ((base, "baseline"), (head, "current")):
        if len(run.hosts) > 1:
            warnings.append(f"the {label} run set spans several hosts: {describe(run.hosts)}")
    return warnings


def compare(base, head, *, threshold=THRESHOLD, min_samples=MIN_SAMPLES, seed=SEED, resamples=RESAMPLES,
            confidence=CONFIDENCE):
    """The comparison of run ``head`` (current) with run ``base`` (baseline)."""
    metrics = compare_timings(base.records, head.records, threshold=threshold, min_samples=min_samples, seed=seed,
                              resamples=resamples, confidence=confidence)
    merged, changes = compare_counters(base.records, head.records)
    found = failures(head)
    was_failed = merged["outcome_base"] == "failed"
    still = set(zip(merged.loc[was_failed & (merged["outcome_head"] == "failed"), "case_set"],
                    merged.loc[was_failed & (merged["outcome_head"] == "failed"), "case"]))
    for failure in found:
        failure.status = "still failing" if (failure.case_set, failure.case) in still else "new failure"
    fixed = int((was_failed & (merged["outcome_head"] == "ok")).sum())
    warnings = host_warnings(base, head) + base.notes + head.notes
    return Comparison(base=base, head=head, threshold=threshold, confidence=confidence, resamples=resamples, seed=seed,
                      min_samples=min_samples, metrics=metrics, failures=found, fixed=fixed,
                      counters_matched=len(merged), counter_changes=changes, warnings=warnings)
