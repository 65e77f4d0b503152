"""The short terminal view of a summary (``reports show``) and a comparison (``reports compare``): what a
user acts on (counts, failures with the line that reproduces them, the verdict per metric, where the
full report is), as ``sudoku.display`` blocks: rich tables on a terminal, aligned plain text in a pipe.
The whole report is the Markdown (``--md FILE`` or ``--md -``) and the HTML (``--html FILE``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sudoku.display import Table, caret_lines, counted, excerpt, marked, visible
from reports.bugs import KINDS, MEANINGS, by_status
from reports.render.md import describe_run, headline
from reports.text import fmt_ratio, fmt_size, fmt_time
from reports.verdict import IMPROVEMENT, NOT_COMPARABLE, REGRESSION, UNCHANGED
from reports.wording import change_text, verdict_text

if TYPE_CHECKING:
    from reports.load import Run
    from reports.summary import Failure, Summary
    from reports.verdict import Comparison

SHOWN = 10  # failures and bugs listed; the rest are counted
VERDICT_STYLES = {REGRESSION: "bad", IMPROVEMENT: "good"}  # a compare row's colour on a terminal


def describe(run: Run) -> str:
    """One line about a run: name, git sha, cases, host."""
    return describe_run(run, code=str, cell=str)


def failures_table(failures: Sequence[Failure], *, with_status: bool = False) -> Table:
    table = Table(["case:", "set", "size", "reason", "reproducer"] + (["status"] if with_status else []),
                  title=f"Failed cases ({len(failures)}" + (f", first {SHOWN})" if len(failures) > SHOWN else ")"))
    for f in failures[:SHOWN]:
        reproducer = f.reproducer if len(f.reproducer) <= 60 else f.reproducer[:57] + "..."
        if f.corpus:
            reproducer = f"{reproducer} (corpus {f.corpus})"
        table.add(f.case, f.case_set, fmt_size(f.size), marked(f.reason or "failed", "bad"), reproducer,
                  *([f.status] if with_status else []))
    return table


def files_line(args: argparse.Namespace) -> str:
    """Where the whole report is, or how to get it."""
    written = [f"{what} {path}" for what, path in (("Markdown", args.md), ("HTML", args.html),
                                                     ("JUnit", getattr(args, "junit", None)))
               if path and path != "-"]
    if written:
        return "full report: " + ", ".join(written)
    return "full report: add --md FILE (or --md - for stdout) and --html FILE"


DETAIL_WIDTH = 200  # characters of a bug's detail on its title line; the Markdown and HTML have it whole


def _input_lines(bug: Any) -> list[str]:
    """A bug's minimal input as the program got it, the failing place marked, as ``fuzz run`` prints it
    (nothing for an input-less case, a create)."""
    text = getattr(bug, "text", "") or ""
    if not text:
        return []
    return caret_lines(excerpt(text, getattr(bug, "mark", None), side=getattr(bug, "side", None)))


def summary_blocks(summary: Summary, args: argparse.Namespace) -> list[str | Table]:
    run = summary.run
    counts = ", ".join(f"{k} {v}" for k, v in summary.counts.items()) or "no cases"
    style = "bad" if summary.failed else None if run.complete else "warn"
    blocks: list[str | Table] = [marked(f"run {describe(run)}: {summary.status}", style),
                                 f"cases: {len(run.records)} ({counts})"]
    if summary.target:
        blocks.insert(1, f"target {visible(summary.target[0], newlines=False)}, seed {summary.target[1]}")
    blocks += [f"note: {note}" for note in run.notes]
    for status, bugs in by_status(summary.bugs).items():  # lines, not a table: a replay line stays whole, to copy
        if not bugs:
            continue
        blocks.append(counted(len(bugs), KINDS[status]) + (f" ({MEANINGS[status]})" if status in MEANINGS else "")
                      + (f" (first {SHOWN})" if len(bugs) > SHOWN else "") + ":")
        for number, bug in enumerate(bugs[:SHOWN], 1):  # as fuzz run shows a bug (fuzz.show)
            cases, detail, *seen_on = bug.facts(lambda value: visible(str(value), newlines=False), str)
            detail = detail if len(detail) <= DETAIL_WIDTH else detail[: DETAIL_WIDTH - 3] + "..."
            blocks += [marked(f"{number:>3}. {visible(bug.title, newlines=False)}: {cases}"
                              + (f"; {detail}" if detail else "") + (" (flaky)" if bug.get("flaky") else ""), "bad" if status == "bug" else "warn")]
            blocks += [f"     {line}" for line in bug.said(lambda value: visible(str(value), newlines=False),
                                                           lambda value: visible(str(value), newlines=False))]
            blocks += [f"     {line}" for line in seen_on]
            blocks += [f"       {line}" for line in _input_lines(bug)]
            blocks.append(f"     replay: {bug.get('replay', '')}")
    if summary.failures and not summary.bugs:  # a fuzz run's bugs already name a reproducer each
        blocks.append(failures_table(summary.failures))
    if summary.format_slips:  # as fuzz run's own summary says them: apart from the bugs
        blocks.append("format slips (failures only with --strict): "
                      + ", ".join(f"{name} {count}" for name, count in summary.format_slips))
    if summary.notes:
        blocks.append("notes (not failures): " + ", ".join(f"{name} {count}" for name, count in summary.notes))
    if summary.timings:
        timings = Table(["phase", "size", "set", "n:", "p50:", "p90:", "p99:", "max:"], title="Timing percentiles"
                        + (f" (the {SHOWN} largest sets of {len(summary.timings)})" if len(summary.timings) > SHOWN
                           else ""))
        for t in sorted(summary.timings, key=lambda t: -t.n)[:SHOWN]:
            timings.add(t.phase, fmt_size(t.size), t.case_set, t.n, *map(fmt_time, t.quantiles), fmt_time(t.maximum))
        blocks.append(timings)
    return blocks + [files_line(args)]


def comparison_blocks(comparison: Comparison, args: argparse.Namespace) -> list[str | Table]:
    c = comparison
    order = {REGRESSION: 0, IMPROVEMENT: 1, NOT_COMPARABLE: 2, UNCHANGED: 3}
    tally = ", ".join(f"{n} {v}" for v, n in ((v, sum(m.verdict == v for m in c.metrics)) for v in order) if n)
    blocks: list[str | Table] = [marked(f"benchmark comparison: {headline(c)}", "bad" if c.regression else None), f"baseline: {describe(c.base)}", f"current:  {describe(c.head)}"]
    blocks += [f"warning: {w}" for w in c.warnings]
    if c.metrics:
        # every regression and improvement; unchanged and not comparable ones up to SHOWN rows in all
        ranked = sorted(c.metrics, key=lambda m: order[m.verdict])
        shown = [m for n, m in enumerate(ranked) if m.verdict in (REGRESSION, IMPROVEMENT) or n < SHOWN]
        metrics = Table(["metric", "baseline:", "current:", "change:", f"{c.confidence:.0%} interval", "verdict"],
                        title=f"Timing ({tally})" + (f", {len(shown)} of {len(ranked)} shown" if len(shown) < len(
                            ranked) else ""))
        for m in shown:
            words, note = verdict_text(m)
            verdict = words + (f" ({note})" if note else "")
            if not c.timing_reliable and m.verdict in (REGRESSION, IMPROVEMENT):
                verdict += " (unreliable: the A/A check moved)"
            interval = f"{fmt_ratio(m.ratio.low)} .. {fmt_ratio(m.ratio.high)}" if m.ratio else "-"
            style = VERDICT_STYLES.get(m.verdict) if c.timing_reliable else None
            metrics.add(marked(m.name, style), fmt_time(m.base_median), fmt_time(m.head_median),
                        marked(change_text(m.ratio.point), style) if m.ratio else "-", interval,
                        marked(verdict, style))
        blocks.append(metrics)
    else:
        blocks.append("timing: no timed phase to compare")
    if c.aa is not None:
        blocks.append("A/A check of the current rounds: " + ("unchanged, timing verdicts reliable" if c.aa.reliable
                      else "changed, timing verdicts unreliable (none fails)"))
    fixed = f"; {c.fixed} fixed since the baseline" if c.fixed else ""
    blocks.append(marked(f"correctness: {counted(len(c.failures), 'failed case')} in the current run{fixed}",
                         "bad" if c.failures else None))
    if c.failures:
        blocks.append(failures_table(c.failures, with_status=True))
    changed = c.changed_counters()
    if changed:
        blocks.append("counters changed (not a timing regression): "
                      + ", ".join(f"{name} in {counted(n, 'case')}" for name, n in sorted(changed.items())))
    return blocks + [files_line(args)]
