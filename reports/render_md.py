"""Markdown renderings of a summary and of a comparison, fit for a pull-request comment or CI step summary."""

import json

from reports.text import cell, fmt_change, fmt_ratio, fmt_size, fmt_time
from reports.verdict import IMPROVEMENT, NOT_COMPARABLE, REGRESSION, UNCHANGED

FAILURES_SHOWN = 30
VERDICT_MARK = {REGRESSION: "**regression**", IMPROVEMENT: "improvement", UNCHANGED: "unchanged",
                NOT_COMPARABLE: "not comparable"}


def describe_run(run):
    """One line: name, git sha, cases, host."""
    manifest = run.manifest
    sha = (manifest.get("git_sha") or "")[:10] or "no git sha"
    host = manifest.get("host") or {}
    runs = f"{len(run.manifests)} runs merged, " if len(run.manifests) > 1 else ""
    return (f"`{cell(run.name)}` ({runs}{sha}, {len(run.records)} cases, "
            f"{cell(host.get('cpu', 'unknown host'))}, {host.get('cores', '?')} cores)")


def failures_table(failures, *, with_status=False):
    lines = ["| case | set | size | reason | oracles | reproducer |" + (" status |" if with_status else ""),
             "|---:|---|---|---|---|---|" + ("---|" if with_status else "")]
    for failure in failures[:FAILURES_SHOWN]:
        reproducer = f"`{cell(failure.reproducer, 200)}`" if failure.reproducer else ""
        if failure.corpus:
            reproducer += f"<br>corpus: `{cell(failure.corpus)}`"
        lines.append(f"| {failure.case} | {cell(failure.case_set)} | {fmt_size(failure.size)} | "
                     f"{cell(failure.reason, 120)} | {cell(', '.join(failure.oracles))} | {reproducer} |"
                     + (f" {failure.status} |" if with_status else ""))
    if len(failures) > FAILURES_SHOWN:
        lines.append(f"\n... and {len(failures) - FAILURES_SHOWN} more failed cases.")
    return lines


def timings_table(timings):
    lines = ["| phase | size | set | n | p50 | p90 | p99 | max |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for t in timings:
        p50, p90, p99 = t.quantiles
        lines.append(f"| {t.phase} | {fmt_size(t.size)} | {cell(t.case_set)} | {t.n} | {fmt_time(p50)} | "
                     f"{fmt_time(p90)} | {fmt_time(p99)} | {fmt_time(t.maximum)} |")
    return lines


def summary_md(summary):
    run = summary.run
    manifest = run.manifest
    status = "failed cases" if summary.failed else "no failed case"
    counts = ", ".join(f"{k} {v}" for k, v in summary.counts.items()) or "no cases"
    lines = [f"## Run {cell(run.name)}: {status}", "",
             f"- run: {describe_run(run)}, status {manifest.get('status', '?')}, "
             f"wall {manifest.get('wall_s', 0) or 0:.1f} s",
             f"- cases: {len(run.records)} ({counts})"]
    lines += [f"- note: {cell(note)}" for note in run.notes]
    if summary.bugs:
        lines += ["", f"### Distinct bugs ({len(summary.bugs)})", "",
                  "| cases | bug | detail | input | replay |", "|---:|---|---|---|---|"]
        for bug in summary.bugs:
            state = " (flaky)" if bug.get("flaky") else ""
            if bug.get("intermittent"):
                state += f" (intermittent: {bug['intermittent']})"
            lines.append(f"| {bug.get('cases', '?')} | {cell(bug.get('signature', ''))}{state} | "
                         f"{cell(bug.get('detail', ''), 160)} | `{cell(json.dumps(bug.get('input', '')), 120)}` | "
                         f"`{cell(bug.get('replay', ''))}` |")
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
        lines += ["", "### Timing percentiles", ""] + timings_table(summary.timings)
    if summary.slowest:
        lines += ["", f"### Slowest cases ({len(summary.slowest)})", "",
                  "| case | set | size | outcome | total | slowest phase | reproducer |", "|---:|---|---|---|---:|---|---|"]
        for row in summary.slowest:
            phase, value = max(row["phases"].items(), key=lambda item: item[1])
            lines.append(f"| {row['case']} | {cell(row['case_set'])} | {fmt_size(row['size'])} | {row['outcome']} | "
                         f"{fmt_time(row['total_s'])} | {phase} {fmt_time(value)} | `{cell(row['reproducer'], 120)}` |")
    return "\n".join(lines) + "\n"


def metrics_table(metrics, confidence):
    lines = [f"| metric | baseline median | current median | change | {confidence:.0%} interval | n base / current "
             "| verdict |", "|---|---:|---:|---:|---|---:|---|"]
    for m in metrics:
        if m.ratio is None:
            change, interval = "-", "-"
        else:
            change = fmt_change(m.ratio.point)
            interval = f"{fmt_ratio(m.ratio.low)} .. {fmt_ratio(m.ratio.high)}"
        verdict = VERDICT_MARK[m.verdict] + (f" ({cell(m.note)})" if m.note else "")
        lines.append(f"| `{cell(m.name)}` | {fmt_time(m.base_median)} | {fmt_time(m.head_median)} | {change} | "
                     f"{interval} | {m.base.size} / {m.head.size} | {verdict} |")
    return lines


def headline(comparison):
    if comparison.correctness_regression and comparison.timing_regressions:
        return "regression: failed cases and slower timings"
    if comparison.correctness_regression:
        return f"regression: {len(comparison.failures)} failed case(s)"
    if comparison.timing_regressions:
        return f"regression: {len(comparison.timing_regressions)} slower metric(s)"
    return "no regression"


def comparison_md(comparison):
    c = comparison
    order = {REGRESSION: 0, IMPROVEMENT: 1, NOT_COMPARABLE: 2, UNCHANGED: 3}
    tally = {v: sum(m.verdict == v for m in c.metrics) for v in order}
    lines = [f"## Benchmark comparison: {headline(c)}", "",
             f"- baseline: {describe_run(c.base)}", f"- current: {describe_run(c.head)}",
             f"- timing: ratio of medians (current / baseline) with a {c.confidence:.0%} bootstrap interval "
             f"({c.resamples} resamples, seed {c.seed}); regression when the whole interval lies above "
             f"{1 + c.threshold:g}, improvement when below {1 - c.threshold:g}; at least {c.min_samples} samples "
             "per side",
             "- metrics: " + ", ".join(f"{n} {v}" for v, n in tally.items() if n) if c.metrics else "- metrics: none"]
    lines += [f"\n> **Warning:** {cell(w)}" for w in c.warnings]
    lines += ["", f"### Correctness: {len(c.failures)} failed case(s) in the current run"
              + (f"; {c.fixed} fixed since the baseline" if c.fixed else ""), ""]
    lines += failures_table(c.failures, with_status=True) if c.failures else ["No failed case."]
    lines += ["", "### Timing", ""]
    lines += metrics_table(sorted(c.metrics, key=lambda m: order[m.verdict]), c.confidence) if c.metrics \
        else ["No timed phase to compare."]
    changed = c.changed_counters()
    lines += ["", f"### Counters ({c.counters_matched} cases matched by case, set, size and puzzle)", ""]
    if changed:
        lines.append("counters changed (not a timing regression): "
                     + ", ".join(f"`{name}` in {n} case(s)" for name, n in sorted(changed.items())))
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
