"""Markdown and HTML renderings of a history (``reports history``): a table with one line per metric
over commits, the step changes named by commit, and in the HTML a small trend plot per metric."""

from html import escape

from reports.render import svg
from reports.render.html import _page, table
from reports.text import cell, fmt_time
from reports.verdict import REGRESSION
from reports.wording import change_text

COLUMNS = 12  # the newest commits shown as columns of the Markdown table


def step_text(step):
    """'ab12cd34ef: 2.01x slower' for a step at that commit."""
    return f"{step.commit.label}: {change_text(step.ratio.point)}"


def steps_text(series):
    return "; ".join(step_text(s) for s in series.steps) or "none"


def commits_lines(history):
    return [f"{number}. `{cell(c.label)}` {cell(c.started[:19].replace('T', ' ')) or 'no start time'} "
            f"({c.run.rounds} round(s), {len(c.run.records)} cases)" for number, c in enumerate(history.commits, 1)]


def history_md(history):
    h = history
    regressions = sum(step.verdict == REGRESSION for s in h.series for step in s.steps)
    changed = sum(bool(s.steps) for s in h.series)
    lines = [f"## History: {len(h.commits)} commit(s), {len(h.series)} metric(s), "
             f"{changed} with a step change ({regressions} slower)", "",
             f"- step: the commits after a point against those before (up to 3 a side), the block-bootstrap "
             f"interval wholly past {h.threshold * 100:g} % and the ratio past the spread between commits"]
    lines += [f"- note: {cell(note)}" for note in h.notes]
    lines += ["", "### Commits (oldest first)", ""] + commits_lines(h)
    shown = h.commits[-COLUMNS:]
    if len(h.commits) > COLUMNS:
        lines += ["", f"The table shows the newest {COLUMNS} commits; the step column covers all of them."]
    lines += ["", "### Median per commit", "",
              "| metric | " + " | ".join(f"`{cell(c.short)}`" for c in shown) + " | step change |",
              "|---|" + "---:|" * len(shown) + "---|"]
    for s in h.series:
        medians = dict(zip((id(c) for c in s.commits), s.medians))
        cells = [fmt_time(medians[id(c)]) if id(c) in medians else "" for c in shown]
        lines.append(f"| `{cell(s.name)}` | " + " | ".join(cells) + f" | {cell(steps_text(s))} |")
    return "\n".join(lines) + "\n"


def history_html(history):
    h = history
    title = f"History: {len(h.commits)} commit(s), {len(h.series)} metric(s)"
    body = [f"<h1>{escape(title)}</h1>",
            f"<p>A step is named where the commits after a point differ from those before (up to 3 a side): "
            f"the block-bootstrap interval wholly past {h.threshold * 100:g} % and the ratio past the spread between "
            "commits. Each trend plot shows the median per commit (dots joined by a line), its p25..p75 (bars) "
            "on a log time axis, and a red dashed line before each commit where a step change happened.</p>"]
    body += [f'<p class="warning">{escape(note)}</p>' for note in h.notes]
    body += ["<h2>Commits (oldest first)</h2>",
             table(["#", "commit", "started", "rounds", "cases"],
                   [[n, c.label, c.started[:19].replace("T", " "), c.run.rounds, len(c.run.records)]
                    for n, c in enumerate(h.commits, 1)], numeric=(0, 3, 4))]
    body += ["<h2>Metrics</h2>",
             table(["metric", "first median", "last median", "step change"],
                   [[s.name, fmt_time(s.medians[0]), fmt_time(s.medians[-1]), steps_text(s)] for s in h.series],
                   numeric=(1, 2))]
    body.append("<h2>Trends</h2><div class=\"plots\">")
    for s in h.series:
        labels = [c.label[:7] for c in s.commits]
        steps = [(step.at, step_text(step).replace(step.commit.label, step.commit.label[:7])) for step in s.steps]
        body.append(svg.trend(s.name, labels, s.medians, s.quartiles(), steps=steps))
    body.append("</div>")
    return _page(title, body)
