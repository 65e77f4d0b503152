"""JSON of a summary (``reports show --json``), a comparison (``reports compare --json``) and a history
(``reports history --json``): one object, ``{"schema": "reports.show" | "reports.compare" |
"reports.history", "version": 2, ...}``, with snake_case keys and
times in seconds (``_s``), as ``sudoku check --json`` writes. ``VERSION`` goes up on any change of
shape; the README lists the keys. Numbers that are not numbers (NaN, inf) are ``null``."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from jobs.manifest import run_wall_s

if TYPE_CHECKING:
    from reports.history import History
    from reports.load import Run
    from reports.stats import Ratio
    from reports.summary import Failure, Summary
    from reports.verdict import Comparison

VERSION = 2  # 2: a run's wall_s is the whole run's (fuzz phases too), its cases' alone cases_wall_s


def _plain(value: Any) -> Any:
    """A JSON-able value: numpy scalars as Python numbers, NaN and inf as None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def run_json(run: Run) -> dict[str, Any]:
    manifest = run.manifest
    host = manifest.get("host") or {}
    return {"name": run.name, "path": str(run.path), "runs": len(run.manifests), "git_sha": manifest.get("git_sha"),
            "status": manifest.get("status"), "complete": run.complete, "unfinished": list(run.unfinished),
            "cases": len(run.records), "wall_s": run_wall_s(manifest), "cases_wall_s": manifest.get("wall_s"),
            "host": {"cpu": host.get("cpu"), "cores": host.get("cores")}, "notes": list(run.notes)}


def failure_json(f: Failure) -> dict[str, Any]:
    return {"case": f.case, "case_set": f.case_set, "size": f.size, "reason": f.reason, "oracles": f.oracles,
            "target": f.target, "exit_code": f.exit_code, "reproducer": f.reproducer,
            "corpus": None if f.corpus is None else str(f.corpus), "status": f.status}


def summary_json(summary: Summary) -> str:
    return _dump({
        "schema": "reports.show", "version": VERSION, "run": run_json(summary.run), "failed": summary.failed,
        "counts": summary.counts, "failures": [failure_json(f) for f in summary.failures],
        "bugs": [{**{key: bug.get(key) for key in ("target", "signature", "cases", "detail", "flaky", "replay", "input")},
                  "status": bug.status} for bug in summary.bugs],
        "timings": [{"phase": t.phase, "size": t.size, "case_set": t.case_set, "n": t.n,
                     **dict(zip(("p50_s", "p90_s", "p99_s"), t.quantiles)), "max_s": t.maximum}
                    for t in summary.timings]})


def comparison_json(comparison: Comparison) -> str:
    from reports.render.md import headline

    c = comparison
    metrics: list[dict[str, Any]] = []
    for m in c.metrics:
        ratio = {"ratio": m.ratio.point, "low": m.ratio.low, "high": m.ratio.high} if m.ratio else \
            {"ratio": None, "low": None, "high": None}
        metrics.append({"name": m.name, "phase": m.phase, "size": m.size, "case_set": m.case_set,
                        "verdict": m.verdict, "reading": m.reading, "note": m.note, **ratio, "base_median_s": m.base_median,
                        "head_median_s": m.head_median, "base_n": int(m.base.size), "head_n": int(m.head.size)})
    return _dump({
        "schema": "reports.compare", "version": VERSION, "headline": headline(c), "comparable": c.comparable,
        "unlike": list(c.unlike), "regression": c.regression,
        "correctness_regression": c.correctness_regression,
        "timing_regressions": [m.name for m in c.timing_regressions], "timing_reliable": c.timing_reliable,
        "base": run_json(c.base), "head": run_json(c.head), "threshold": c.threshold, "confidence": c.confidence,
        "resamples": c.resamples, "seed": c.seed, "min_samples": c.min_samples, "metrics": metrics,
        "failures": [failure_json(f) for f in c.failures], "fixed": c.fixed, "counters_matched": c.counters_matched,
        "counter_changes": [{"counter": ch.counter, "case": ch.case, "case_set": ch.case_set, "size": ch.size,
                             "base": ch.base, "head": ch.head} for ch in c.counter_changes],
        "warnings": list(c.warnings)})


def _ratio(r: Ratio) -> dict[str, float]:
    return {"ratio": r.point, "low": r.low, "high": r.high}


def history_json(history: History) -> str:
    """The history: its commits (a sha in one configuration each, oldest first; ``commits`` counts
    shas), and each series with its median per commit and its step changes."""
    from reports.render.history import headline

    h = history
    return _dump({
        "schema": "reports.history", "version": VERSION, "headline": headline(h), "commits": h.commit_count,
        "configurations": h.configuration_count, "threshold": h.threshold, "notes": list(h.notes),
        "points": [{"git_sha": c.run.manifest.get("git_sha"), "label": c.label, "dirty": c.dirty,
                    "configuration": {k.replace(" ", "_"): v for k, v in c.configuration.items()}, "tag": c.tag, "started": c.started or None,
                    "rounds": c.run.rounds, "cases": len(c.run.records)} for c in h.commits],
        "series": [{"name": s.name, "phase": s.phase, "size": s.size, "case_set": s.case_set, "tag": s.tag,
                    "medians": [{"label": c.label, "median_s": m, "p25_s": q[0], "p75_s": q[1]}
                                for c, m, q in zip(s.commits, s.medians, s.quartiles())],
                    "steps": [{"label": step.commit.label, "verdict": step.verdict, **_ratio(step.ratio)}
                              for step in s.steps]} for s in h.series]})


def _dump(obj: Any) -> str:
    return json.dumps(_plain(obj), indent=2, default=str) + "\n"
