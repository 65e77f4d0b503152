"""HTML renderings: one self-contained file (inline CSS and SVG plots, no script, nothing fetched)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape as _escape
from typing import TYPE_CHECKING, Any

from sudoku.display import counted, excerpt, visible
from reports.render import svg
from reports.bugs import expected_parts
from reports.summary import enough_cases, left_out_text
from reports.render.md import aa_text, headline, method_text
from reports.text import fmt_ratio, fmt_size, fmt_time
from reports.verdict import IMPROVEMENT, NOT_COMPARABLE, REGRESSION, UNCHANGED
from reports.wording import band_text, change_text, verdict_text

if TYPE_CHECKING:
    from reports.bugs import Bug
    from reports.load import Run
    from reports.summary import Failure, Summary, Timing
    from reports.verdict import Comparison

FAILURES_SHOWN = 200
ROWS, WIDTH = 40, 200  # an input or output longer than this is shown as its start and its length
# A table wider than the screen scrolls sideways inside the page, and a plot (its viewBox set) shrinks to the
# screen: on a phone they ran off its right edge, the verdict column unseen.
CSS = """
body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 16px;display:block;overflow-x:auto;max-width:100%}
svg{max-width:100%;height:auto}th,td{border:1px solid #ddd;padding:3px 8px;font-size:13px}
th{background:#f5f5f5;text-align:left}td.num{text-align:right}pre{margin:0;font-size:11px;line-height:1.1;white-space:pre-wrap;word-break:break-all}code{font-size:12px;word-break:break-all}
.regression{color:#c0392b;font-weight:bold}.improvement{color:#27ae60}.warning{background:#fff4d6;padding:6px 10px}
.plots{display:flex;flex-wrap:wrap;gap:8px}h1{font-size:22px}h2{font-size:18px;margin-top:28px}
.bug{border-top:1px solid #ddd;margin-top:12px}.bug h3{font-size:15px;margin:10px 0 4px}.bug p{margin:4px 0}
.sides{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;margin:8px 0}
.sides figure{margin:0}.sides figcaption{font-size:12px;color:#555;margin-bottom:3px}
pre.io{font-size:14px;line-height:1.35;white-space:pre;word-break:normal;overflow-x:auto;max-width:1060px;
background:#f7f7f7;border:1px solid #ddd;padding:6px 8px}pre.io mark{background:#ffd54f;outline:2px solid #d62728}
h1 code,h2 code,h3 code{font-size:inherit}pre.io .rest{color:#888}.sides p.words{max-width:220px;font-size:13px;margin:0;padding:6px 8px;
border:1px dashed #ccc}
"""


def escape(text: object, quote: bool = True) -> str:
    """Text fit for HTML: markup escaped, and every control byte of a target's shown as its escape
    (``\\x1b``, ``\\x00``), as the other renderers do: NUL is a parse error, ESC noise."""
    return _escape(visible(text), quote=quote)


def _page(title: str, body: Sequence[str]) -> str:
    # The viewport line: without it a phone lays the page out 980 px wide and shrinks it to fit.
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, numeric: Sequence[int] = ()) -> str:
    """An HTML table; cells are escaped unless given as ``(html,)`` one-tuples."""
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        cells = []
        for index, value in enumerate(row):
            html = value[0] if isinstance(value, tuple) else escape("" if value is None else str(value))
            cls = ' class="num"' if index in numeric else ""
            cells.append(f"<td{cls}>{html}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table>"


def describe_run(run: Run) -> str:
    manifest = run.manifest
    host = manifest.get("host") or {}
    merged = f", {len(run.manifests)} runs merged" if len(run.manifests) > 1 else ""
    return (f"<code>{escape(run.name)}</code> ({escape((manifest.get('git_sha') or 'no git sha')[:10])}{merged}, "
            f"{len(run.records)} cases, {escape(str(host.get('cpu', 'unknown host')))}, "
            f"{escape(str(host.get('cores', '?')))} cores) at <code>{escape(str(run.path))}</code>")


def failures_html(failures: Sequence[Failure], *, with_status: bool = False) -> str:
    rows = []
    for f in failures[:FAILURES_SHOWN]:
        raw = f.input_text if f.input_text is not None else (f.puzzle or "")
        reproducer = f"<pre>{escape(raw)}</pre>" if "\n" in raw else f"<code>{escape(raw)}</code>"
        if f.corpus:
            reproducer += f"<br/>corpus: <code>{escape(f.corpus)}</code>"
        rows.append([f.case, f.case_set, fmt_size(f.size), f.reason, ", ".join(f.oracles), (reproducer,)]
                    + ([f.status] if with_status else []))
    html = table(["case", "set", "size", "reason", "oracles", "reproducer"] + (["status"] if with_status else []),
                 rows, numeric=(0,))
    if len(failures) > FAILURES_SHOWN:
        html += f"<p>... and {len(failures) - FAILURES_SHOWN} more failed cases.</p>"
    return html


def excerpt_html(text: str, mark: object = None, *, side: int | None = None) -> tuple[str, str]:
    """A text in a ``pre.io`` block, never wrapped: whole when short, else its start and its length;
    control bytes visible; the marked cell or line highlighted, so the eye finds it at once."""
    shown = excerpt(text, mark, side=side, rows=ROWS, width=WIDTH)
    lines = [escape(line) for line in shown.lines]
    if shown.marked:
        index, start, end = shown.marked
        line = shown.lines[index]
        lines[index] = (f"{escape(line[:start])}<mark title=\"{escape(shown.where)}\">{escape(line[start:end])}</mark>"
                        f"{escape(line[end:])}")
    rest = shown.rest or ("" if text else "(nothing)")  # an empty answer is shown as such, not as a blank box
    rest_lines = [f'<span class="rest">{escape(rest)}</span>'] if rest else []
    return '<pre class="io">' + "\n".join(lines + rest_lines) + "</pre>", shown.where


def _figure(caption: str, pre: str) -> str:
    return f"<figure><figcaption>{caption}</figcaption>{pre}</figure>"


def _cell_mark(mark: dict[str, int] | None) -> dict[str, int] | None:
    """A mark of a cell carries over to output grids; a line of the input does not."""
    return mark if mark and "row" in mark else None


def answer_figures(bug: Bug) -> list[str]:
    """What a right answer looks like and what came, side by side, the failing cell marked in both."""
    caption, block = expected_parts(bug.expected)
    out = []
    if bug.expected:
        if block:
            out.append(_figure(f"expected: {escape(caption)}", excerpt_html(block, _cell_mark(bug.mark),
                                                                             side=bug.side)[0]))
        else:  # words only: a narrow box, so the actual answer stays beside the input
            out.append(_figure("expected", f'<p class="words">{escape(caption)}</p>'))
    actual = bug.actual
    if actual:
        took = ", ".join(f"{what} {fmt_time(actual[key])}" for what, key in (("wall", "wall_s"), ("cpu", "cpu_s"))
                         if key in actual)
        caption = f"actual: {escape(actual.get('ended', 'exit ?'))}" + (f", {took}" if took else "")
        pre = excerpt_html(actual.get("stdout") or "", _cell_mark(bug.mark), side=bug.side)[0]
        if actual.get("stderr"):
            pre += "<figcaption>stderr</figcaption>" + excerpt_html(actual["stderr"])[0]
        out.append(_figure(caption + " (stdout)", pre))
    return out


def bug_html(number: int, bug: Bug, *, several: bool = False) -> str:
    """One bug: its title, why, what to look at and its id; cases, detail and families; the input with the
    failing cell highlighted, beside the expected and the actual answer; the replay line."""
    facts = bug.facts(escape, lambda command: f"<code>{escape(command)}</code>", several=several)
    figures = []
    if bug.text:
        pre, where = excerpt_html(bug.text, bug.mark, side=bug.side)
        figures.append(_figure("input" + (f" ({escape(where)} marked)" if where else ""), pre))
    figures += answer_figures(bug)
    said = "".join(f"<p>{line}</p>" for line in bug.said(escape, lambda command: f"<code>{escape(command)}</code>"))
    return (f'<section class="bug" id="bug-{number}"><h3>{number}. {escape(bug.title)}'
            f"{escape(bug.state)}</h3>{said}<p>{'; '.join(facts)}</p>"
            + (f'<div class="sides">{"".join(figures)}</div>' if figures else "")
            + f"<p>replay: <code>{escape(bug.get('replay', ''))}</code></p></section>")


def bugs_html(bugs: Sequence[Bug]) -> list[str]:
    """The distinct bugs, then the slow answers and the unconfirmed failures apart, each numbered."""
    from reports.bugs import HEADINGS, MEANINGS, by_status

    several = len({str(bug.get("target")) for bug in bugs}) > 1
    out: list[str] = []
    for status, these in by_status(bugs).items():
        if these:
            out += [f"<h2>{HEADINGS[status]} ({len(these)})</h2>"] + ([f"<p>{escape(MEANINGS[status])}.</p>"]
                                                                     if status in MEANINGS else [])
            out += [bug_html(n, bug, several=several) for n, bug in enumerate(these, 1)]
    return out


def timings_html(timings: Sequence[Timing]) -> list[str]:
    """Percentiles and plots of the sets with enough cases to mean something (one line names the rest);
    the plots' points are coloured passed or failed."""
    kept, left = enough_cases(timings)
    body = ["<h2>Timing percentiles</h2>"]
    if left:
        body.append(f"<p>{escape(left_out_text(left))}</p>")
    if not kept:
        return body
    rows = [[t.phase, fmt_size(t.size), t.case_set, t.n, *map(fmt_time, t.quantiles), fmt_time(t.maximum)]
            for t in kept]
    body += [table(["phase", "size", "set", "n", "p50", "p90", "p99", "max"], rows, numeric=(3, 4, 5, 6, 7)),
             '<div class="plots">']
    for phase in dict.fromkeys(t.phase for t in kept):
        these = [t for t in kept if t.phase == phase]
        groups = [(f"{fmt_size(t.size)} {t.case_set}", t.samples, None) for t in these]
        failed = [t.failed if t.failed is not None else [False] * t.n for t in these]
        body.append(svg.distributions(f"{phase} distribution", groups, failed=failed))
    return body + ["</div>"]


def targets_html(rows: object) -> list[str]:
    """A fuzz run's matrix of several targets (the manifest's ``fuzz.targets`` rows): a row per target
    with its status, cases, failing cases per oracle, differs, format slips and bugs, scrolling
    sideways on a narrow screen; a target that cannot start says why. Nothing for one target."""
    given = [row for row in rows if isinstance(row, dict) and isinstance(row.get("target"), str)] \
        if isinstance(rows, list) else []
    if len(given) < 2:
        return []
    oracles = sorted({str(o) for row in given if isinstance(row.get("oracles"), dict) for o in row["oracles"]})
    cells = []
    for row in given:
        name = (f"<code>{escape(row['target'])}</code>",)
        if row.get("status") == "cannot start":
            cells.append([name, f"cannot start: {row.get('detail', '')}"] + [""] * (len(oracles) + 5))
            continue
        found = row["oracles"] if isinstance(row.get("oracles"), dict) else {}
        cells.append([name, row.get("status", "?"), row.get("cases", ""), row.get("failed", ""),
                      *(found.get(o) or "" for o in oracles), row.get("differs") or "", row.get("slips", ""),
                      row.get("bugs", "")])
    headers = ["target", "status", "cases", "failed", *oracles, "differs", "format slips", "bugs"]
    return ["<h2>Targets</h2>", '<div style="overflow-x:auto">'
            + table(headers, cells, numeric=range(2, len(headers))) + "</div>"]


def summary_html(summary: Summary) -> str:
    run = summary.run
    title = f"Run {run.name}"
    body = [f"<h1>{escape(title)}: {escape(summary.status)}</h1>",
            f"<p>{describe_run(run)}; status {escape(str(run.manifest.get('status', '?')))}; cases: "
            + escape(", ".join(f"{k} {v}" for k, v in summary.counts.items()) or "none")
            + (f"<br/>target <code>{escape(summary.target[0])}</code>, seed {escape(str(summary.target[1]))}"
               if summary.target else "") + "</p>"]
    body += [f'<p class="warning">{escape(note)}</p>' for note in run.notes]
    body += targets_html((run.manifest.get("fuzz") or {}).get("targets"))
    if summary.bugs:
        body += bugs_html(summary.bugs)
    if summary.by_oracle:
        body += ["<h2>Failures per oracle</h2>", table(["oracle", "failed cases"], summary.by_oracle, numeric=(1,))]
    body += ["<h2>Cases per set</h2>", table(["set", "cases", "failed", "rejected"], summary.by_case_set,
                                              numeric=(1, 2, 3))]
    if summary.format_slips:
        body += ["<h2>Format slips</h2>", table(["slip", "cases"], summary.format_slips, numeric=(1,))]
    if summary.failures:
        body += [f"<h2>Failures ({summary.failed})</h2>", failures_html(summary.failures)]
    if summary.timings:
        body += timings_html(summary.timings)
    if summary.slowest:
        rows = [[r["case"], r["case_set"], fmt_size(r["size"]), r["outcome"], fmt_time(r["total_s"]),
                 ", ".join(f"{k} {fmt_time(v)}" for k, v in r["phases"].items()), (f"<code>{escape(r['reproducer'])}</code>",)]
                for r in summary.slowest]
        body += [f"<h2>Slowest cases ({len(summary.slowest)})</h2>",
                 table(["case", "set", "size", "outcome", "total", "phases", "reproducer"], rows, numeric=(0, 4))]
    return _page(title, body)


def correctness_html(c: Comparison) -> list[str]:
    return [f"<h2>Correctness: {counted(len(c.failures), 'failed case')} in the current run"
            + (f"; {c.fixed} fixed since the baseline" if c.fixed else "") + "</h2>",
            failures_html(c.failures, with_status=True) if c.failures else "<p>No failed case.</p>"]


def comparison_html(comparison: Comparison) -> str:
    c = comparison
    order = {REGRESSION: 0, IMPROVEMENT: 1, NOT_COMPARABLE: 2, UNCHANGED: 3}
    metrics = sorted(c.metrics, key=lambda m: order[m.verdict])
    title = f"Benchmark comparison: {headline(c)}"
    body = [f"<h1 class=\"{'regression' if c.regression else ''}\">{escape(title)}</h1>",
            f"<p>baseline: {describe_run(c.base)}<br/>current: {describe_run(c.head)}</p>",
            f"<p>Timing: {escape(method_text(c))}.<br/>{escape(aa_text(c).replace('**', ''))}.</p>"]
    body += [f'<p class="warning">Warning: {escape(w)}</p>' for w in c.warnings]
    body.append(f"<p><b>Correctness:</b> {counted(len(c.failures), 'failed case')} in the current run"
                + (f"; {c.fixed} fixed since the baseline" if c.fixed else "")
                + ("; listed below the timing." if c.failures else ".") + "</p>")
    body.append("<h2>Timing</h2>")
    if metrics:
        rows = []
        for m in metrics:
            change = change_text(m.ratio.point) if m.ratio else "-"
            interval = f"{fmt_ratio(m.ratio.low)} .. {fmt_ratio(m.ratio.high)}" if m.ratio else "-"
            words, note = verdict_text(m)
            verdict = (f'<span class="{m.verdict.replace(" ", "-")}">{escape(words)}</span>'
                       + (f" ({escape(note)})" if note else ""))
            rows.append([m.name, fmt_time(m.base_median), fmt_time(m.head_median), change, interval,
                         f"{m.base.size} / {m.head.size}", (verdict,)])
        body.append(table(["metric", "baseline median", "current median", "change", f"{c.confidence:.0%} interval",
                           "n base / current", "verdict"], rows, numeric=(1, 2, 3)))
        if any(m.ratio for m in metrics):  # not comparable everywhere: no ratio to draw
            plotted = [(m.name, m.ratio.point if m.ratio else None, m.ratio.low if m.ratio else None,
                     m.ratio.high if m.ratio else None, m.verdict, m.band) for m in metrics]
            body.append(svg.intervals("ratio of medians, current / baseline", plotted, width=760,
                                      caption=f"grey band, the rule applied (a verdict needs the whole interval "
                                              f"past it): {band_text(metrics)}"))
        body += correctness_html(c)
        body.append("<h2>Distributions</h2><div class=\"plots\">")
        for m in metrics:
            groups = [("baseline", m.base, svg.COLOURS["baseline"]), ("current", m.head, svg.COLOURS["current"])]
            body.append(svg.distributions(f"{m.name}: {verdict_text(m)[0]}", groups, width=540))
        body.append("</div>")
    else:
        body.append("<p>No timed phase to compare.</p>")
        body += correctness_html(c)
    changed = c.changed_counters()
    body.append(f"<h2>Counters ({c.counters_matched} cases matched)</h2>")
    if changed:
        body.append("<p>counters changed (not a timing regression): "
                    + escape(", ".join(f"{k} in {counted(n, 'case')}" for k, n in sorted(changed.items()))) + "</p>")
        body.append(table(["counter", "case", "set", "size", "baseline", "current"],
                          [[x.counter, x.case, x.case_set, fmt_size(x.size), x.base, x.head]
                           for x in c.counter_changes[:FAILURES_SHOWN]], numeric=(1, 4, 5)))
    else:
        body.append("<p>" + ("Counters unchanged." if c.counters_matched else "No case in common.") + "</p>")
    return _page(title, body)
