"""Markdown renderings of a summary and of a comparison, fit for a pull-request comment or CI step summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from jobs.manifest import run_wall_s
from sudoku.display import caret_lines, counted, excerpt, md_block
from reports.bugs import expected_parts
from reports.summary import enough_cases, left_out_text
from reports.text import cell, code, fmt_change, fmt_ratio, fmt_size, fmt_time
from reports.verdict import IMPROVEMENT, NOT_COMPARABLE, REGRESSION, UNCHANGED
from reports.wording import change_text, verdict_text

if TYPE_CHECKING:
    from reports.bugs import Bug
    from reports.load import Run
    from reports.summary import Failure, Summary, Timing
    from reports.verdict import Comparison, Metric

FAILURES_SHOWN = 30
VERDICT_MARK = {REGRESSION: "**regression**", IMPROVEMENT: "improvement", UNCHANGED: "unchanged",
                NOT_COMPARABLE: "not comparable"}


def describe_run(run: Run, *, code: Callable[[Any], str] = code, cell: Callable[[Any], str] = cell) -> str:
    """One line: name, git sha, cases, host (escaped for Markdown; ``str`` for both gives plain text)."""
    manifest = run.manifest
    sha = str(manifest.get("git_sha") or "")[:10] or "no git sha"  # untrusted, as every field of a manifest
    host = manifest.get("host")
    host = host if isinstance(host, dict) else {}
    runs = f"{len(run.manifests)} runs merged, " if len(run.manifests) > 1 else ""
    return (f"{code(run.name)} ({runs}{cell(sha)}, {len(run.records)} cases, "
            f"{cell(host.get('cpu', 'unknown host'))}, {cell(host.get('cores', '?'))} cores)")


def failures_table(failures: Sequence[Failure], *, with_status: bool = False) -> list[str]:
    lines = ["| case | set | size | reason | oracles | reproducer |" + (" status |" if with_status else ""),
             "|---:|---|---|---|---|---|" + ("---|" if with_status else "")]
    for failure in failures[:FAILURES_SHOWN]:
        reproducer = f"{code(failure.reproducer, 200)}" if failure.reproducer else ""
        if failure.corpus:
            reproducer += f"<br>corpus: {code(failure.corpus)}"
        lines.append(f"| {failure.case} | {cell(failure.case_set)} | {fmt_size(failure.size)} | "
                     f"{cell(failure.reason, 120)} | {cell(', '.join(failure.oracles))} | {reproducer} |"
                     + (f" {failure.status} |" if with_status else ""))
    if len(failures) > FAILURES_SHOWN:
        lines.append(f"\n... and {len(failures) - FAILURES_SHOWN} more failed cases.")
    return lines


def timings_table(timings: Sequence[Timing]) -> list[str]:
    lines = ["| phase | size | set | n | p50 | p90 | p99 | max |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for t in timings:
        p50, p90, p99 = t.quantiles
        lines.append(f"| {t.phase} | {fmt_size(t.size)} | {cell(t.case_set)} | {t.n} | {fmt_time(p50)} | "
                     f"{fmt_time(p90)} | {fmt_time(p99)} | {fmt_time(t.maximum)} |")
    return lines


ROWS, WIDTH = 40, 200  # an input or output longer than this is shown as its start and its length


def excerpt_md(text: str, mark: object = None, *, side: int | None = None) -> str:
    """A text as a fenced code block: whole when short, control bytes visible, a ``^`` line under the
    marked cell naming it (a code block has no colour)."""
    if not text:
        return md_block("(nothing)")
    return md_block("\n".join(caret_lines(excerpt(text, mark, side=side, rows=ROWS, width=WIDTH))))


def answer_md(bug: Bug) -> list[str]:
    """The expected and the actual answer as two consecutive code blocks, the failing cell marked in both."""
    cell_mark = bug.mark if bug.mark and "row" in bug.mark else None
    caption, block = expected_parts(bug.expected)
    out: list[str] = []
    if bug.expected:
        out += [f"expected: {cell(caption)}", ""] + ([excerpt_md(block, cell_mark, side=bug.side), ""] if block else [])
    actual = bug.actual
    if actual:
        took = "".join(f", {what} {fmt_time(actual[key])}" for what, key in (("wall", "wall_s"), ("cpu", "cpu_s"))
                       if key in actual)
        out += [f"actual: {cell(actual.get('ended', 'exit ?'))}{took}, stdout:", "",
                excerpt_md(actual.get("stdout") or "", cell_mark, side=bug.side), ""]
        if actual.get("stderr"):
            out += ["stderr:", "", excerpt_md(actual["stderr"]), ""]
    return out


def bug_md(number: int, bug: Bug, *, several: bool = False) -> list[str]:
    """One bug: title, why, what to look at, its id; cases, detail, families; the input with the failing
    cell marked; the expected and the actual answer; the replay line."""
    facts = bug.facts(cell, code, several=several)
    out = [f"#### {number}. {cell(bug.title)}{cell(bug.state)}", ""]
    out += [line for said in bug.said(cell, code) for line in (said, "")] + ["; ".join(facts), ""]
    if bug.text:
        shown = excerpt(bug.text, bug.mark, side=bug.side, rows=ROWS, width=WIDTH)
        out += ["input" + (f" ({shown.where} marked)" if shown.where else "") + ":", "",
                md_block("\n".join(caret_lines(shown))), ""]
    return out + answer_md(bug) + [f"replay: {code(bug.get('replay', ''))}", ""]


def bugs_md(bugs: Sequence[Bug]) -> list[str]:
    """The distinct bugs, then the slow answers and the unconfirmed failures apart, each numbered."""
    from reports.bugs import HEADINGS, MEANINGS, by_status

    several = len({str(bug.get("target")) for bug in bugs}) > 1
    out: list[str] = []
    for status, these in by_status(bugs).items():
        if these:
            out += ["", f"### {HEADINGS[status]} ({len(these)})", ""] + ([MEANINGS[status] + ".", ""] if status in
                                                                        MEANINGS else [])
            out += [line for n, bug in enumerate(these, 1) for line in bug_md(n, bug, several=several)]
    return out


def summary_md(summary: Summary) -> str:
    run = summary.run
    manifest = run.manifest
    counts = ", ".join(f"{k} {v}" for k, v in summary.counts.items()) or "no cases"
    lines = [f"## Run {cell(run.name)}: {summary.status}", "",
             f"- run: {describe_run(run)}, status {manifest.get('status', '?')}, "
             f"wall {run_wall_s(manifest):.1f} s",
             f"- cases: {len(run.records)} ({counts})"]
    if summary.target:
        lines.insert(3, f"- target: {code(summary.target[0])}, seed {cell(summary.target[1])}")
    lines += [f"- note: {cell(note)}" for note in run.notes]
    if summary.bugs:
        lines += bugs_md(summary.bugs)
    if summary.by_oracle:
        lines += ["", "### Failures per oracle", "", "| oracle | failed cases |", "|---|---:|"]
        lines += [f"| {cell(name)} | {n} |" for name, n in summary.by_oracle]
    lines += ["", "### Cases per set", "", "| set | cases | failed | rejected |", "|---|---:|---:|---:|"]
    lines += [f"| {cell(name)} | {n} | {failed} | {rejected} |" for name, n, failed, rejected in summary.by_case_set]
    if summary.format_slips:
        lines += ["", "### Format slips", "", "| slip | cases |", "|---|---:|"]
        lines += [f"| {cell(name)} | {n} |" for name, n in summary.format_slips]
    if summary.failures:
        lines += ["", f"### Failures ({summary.failed})", ""] + failures_table(summary.failures)
    if summary.timings:
        kept, left = enough_cases(summary.timings)
        lines += ["", "### Timing percentiles", ""] + ([cell(left_out_text(left)), ""] if left else []) \
            + (timings_table(kept) if kept else [])
    if summary.slowest:
        lines += ["", f"### Slowest cases ({len(summary.slowest)})", "",
                  "| case | set | size | outcome | total | slowest phase | reproducer |", "|---:|---|---|---|---:|---|---|"]
        for row in summary.slowest:
            phase, value = max(row["phases"].items(), key=lambda item: item[1])
            lines.append(f"| {row['case']} | {cell(row['case_set'])} | {fmt_size(row['size'])} | {row['outcome']} | "
                         f"{fmt_time(row['total_s'])} | {phase} {fmt_time(value)} | {code(row['reproducer'], 120)} |")
    return "\n".join(lines) + "\n"


def method_text(c: Comparison) -> str:
    """One sentence: how the timing verdicts were reached."""
    base_rounds, head_rounds = c.rounds
    limit = max((m.limit for m in c.metrics if m.limit), default=c.threshold)
    single = min(base_rounds, head_rounds) < 2
    rule = (f"regression when the whole interval lies above {1 + limit:g}, improvement when below {1 / (1 + limit):.3g} "
            "(one run on a side: load cannot be told from code, so only a large change counts)" if single else
            f"regression when the whole interval lies above {1 + c.threshold:g}, improvement when below "
            f"{1 - c.threshold:g}, and never within the spread between rounds of one side")
    return (f"ratio of medians (current / baseline) with a {c.confidence:.0%} block-bootstrap interval "
            f"(rounds, then chunks, then cases resampled; baseline {counted(base_rounds, 'round')}, current {head_rounds}; "
            f"{c.resamples} resamples, seed {c.seed}); {rule}; at least {c.min_samples} samples per side")


def aa_text(c: Comparison) -> str:
    """One sentence: the A/A check of the current run's rounds, or why there is none."""
    check = c.aa
    if check is None:
        return "A/A check: none (the current run has one round)"
    halves = f"current rounds {'+'.join(str(n + 1) for n in check.first)} against " \
             f"{'+'.join(str(n + 1) for n in check.second)}, the same code"
    shifts = [m.ratio.point for m in check.metrics if m.ratio]
    largest = max(shifts, key=lambda r: abs(r - 1), default=None)
    shown = f", largest shift {fmt_change(largest)}" if largest is not None else ""
    if check.reliable:
        return f"A/A check ({halves}): unchanged{shown}; timing verdicts reliable"
    return (f"A/A check ({halves}): **changed** ({', '.join(m.name for m in check.flagged)}{shown}); "
            "timing verdicts **unreliable**, none fails")


def metrics_table(metrics: Sequence[Metric], confidence: float, reliable: bool = True) -> list[str]:
    lines = [f"| metric | baseline median | current median | change | {confidence:.0%} interval | n base / current "
             "| verdict |", "|---|---:|---:|---:|---|---:|---|"]
    for m in metrics:
        if m.ratio is None:
            change, interval = "-", "-"
        else:
            change = change_text(m.ratio.point)
            interval = f"{fmt_ratio(m.ratio.low)} .. {fmt_ratio(m.ratio.high)}"
        words, note = verdict_text(m)
        verdict = VERDICT_MARK.get(words, cell(words)) + (f" ({cell(note)})" if note else "")
        if not reliable and m.verdict in (REGRESSION, IMPROVEMENT):
            verdict += " (unreliable: see the A/A check)"
        lines.append(f"| {code(m.name)} | {fmt_time(m.base_median)} | {fmt_time(m.head_median)} | {change} | "
                     f"{interval} | {m.base.size} / {m.head.size} | {verdict} |")
    return lines


def headline(comparison: Comparison) -> str:
    """The comparison's verdict in a few words; a run not complete is named, since what it did not run
    is compared with nothing."""
    cut = [side for side, run in (("baseline", comparison.base), ("current", comparison.head)) if not run.complete]
    return _verdict(comparison) + (f" ({' and '.join(cut)} run not complete)" if cut else "")


def _verdict(comparison: Comparison) -> str:
    if not comparison.comparable:
        unlike = "; ".join(comparison.unlike)
        if comparison.correctness_regression:
            return f"regression: {counted(len(comparison.failures), 'failed case')}; timings not comparable ({unlike})"
        return f"not comparable: the runs' configurations differ ({unlike})"
    if comparison.correctness_regression and comparison.timing_regressions:
        return "regression: failed cases and slower timings"
    if comparison.correctness_regression:
        return f"regression: {counted(len(comparison.failures), 'failed case')}"
    if comparison.timing_regressions:
        return f"regression: {counted(len(comparison.timing_regressions), 'slower metric')}"
    if comparison.flagged_regressions:
        return (f"no regression counted: {counted(len(comparison.flagged_regressions), 'slower metric')}, "
                "but the timing verdicts are unreliable")
    return "no regression" if comparison.timing_reliable else "no regression (timing verdicts unreliable)"


def comparison_md(comparison: Comparison) -> str:
    c = comparison
    order = {REGRESSION: 0, IMPROVEMENT: 1, NOT_COMPARABLE: 2, UNCHANGED: 3}
    tally = {v: sum(m.verdict == v for m in c.metrics) for v in order}
    lines = [f"## Benchmark comparison: {headline(c)}", "",
             f"- baseline: {describe_run(c.base)}", f"- current: {describe_run(c.head)}",
             f"- timing: {method_text(c)}",
             f"- {aa_text(c)}",
             "- metrics: " + ", ".join(f"{n} {v}" for v, n in tally.items() if n) if c.metrics else "- metrics: none"]
    lines += [f"\n> **Warning:** {cell(w)}" for w in c.warnings]
    lines += ["", f"### Correctness: {counted(len(c.failures), 'failed case')} in the current run"
              + (f"; {c.fixed} fixed since the baseline" if c.fixed else ""), ""]
    lines += failures_table(c.failures, with_status=True) if c.failures else ["No failed case."]
    lines += ["", "### Timing", ""]
    lines += metrics_table(sorted(c.metrics, key=lambda m: order[m.verdict]), c.confidence, c.timing_reliable) \
        if c.metrics \
        else ["No timed phase to compare."]
    changed = c.changed_counters()
    lines += ["", f"### Counters ({c.counters_matched} cases matched by case, set, size and puzzle)", ""]
    if changed:
        lines.append("counters changed (not a timing regression): "
                     + ", ".join(f"{code(name)} in {counted(n, 'case')}" for name, n in sorted(changed.items())))
        lines += ["", "| counter | case | set | size | baseline | current |", "|---|---:|---|---|---:|---:|"]
        for change in c.counter_changes[:20]:
            lines.append(f"| {change.counter} | {change.case} | {cell(change.case_set)} | {fmt_size(change.size)} | "
                         f"{change.base} | {change.head} |")
        if len(c.counter_changes) > 20:
            lines.append(f"\n... and {len(c.counter_changes) - 20} more changes.")
    elif c.counters_matched:
        lines.append("Counters unchanged.")
    else:
        lines.append("No case in common: counters not compared.")
    return "\n".join(lines) + "\n"
