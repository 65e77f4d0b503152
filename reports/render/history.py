"""The renderings of a history (``reports history``): a table with one line per metric over commits
and the step changes named by commit, as terminal blocks (the default stdout), Markdown (``--md``) and
HTML, where every metric also gets a small trend plot. The trends share one log scale (the same
factor from bottom to top), so equal heights are equal changes in every plot."""

from __future__ import annotations

import argparse
from html import escape
from typing import TYPE_CHECKING

from sudoku.display import Table, counted
from reports.render import svg
from reports.render.html import _page, table
from reports.render.terminal import files_line
from reports.text import cell, code, fmt_time
from reports.verdict import REGRESSION
from reports.wording import change_text

if TYPE_CHECKING:
    from reports.history import History, Series, Step

COLUMNS = 12  # the newest commits shown as columns of the Markdown table
TERMINAL_COLUMNS = 6  # and of the terminal's, which is narrower


def headline(history: History) -> str:
    """'6 commits, 4 metrics, 1 with a step change (1 slower)': commits are shas, whatever the
    configurations run on each (those are counted apart when there are several)."""
    h = history
    regressions = sum(step.verdict == REGRESSION for s in h.series for step in s.steps)
    changed = sum(bool(s.steps) for s in h.series)
    configurations = f" in {h.configuration_count} configurations" if h.configuration_count > 1 else ""
    return (f"{counted(h.commit_count, 'commit')}{configurations}, {counted(len(h.series), 'metric')}, {changed} with a step change "
            f"({regressions} slower)")


def rule_line(history: History) -> str:
    return (f"step: the commits after a point against those before (up to 3 a side), the block-bootstrap "
            f"interval wholly past {history.threshold * 100:g} % and the ratio past the spread between commits")


def columns(history: History) -> dict[tuple[str, bool], str]:
    """The history's commits as table columns, oldest first: (sha, dirty) -> the short label."""
    return {(c.sha, c.dirty): c.short for c in history.commits}


def median_cells(series: Series, shown: list[tuple[str, bool]]) -> list[str]:
    """The series' median at each commit in ``shown`` ((sha, dirty) keys), '' where it has none."""
    medians = {(c.sha, c.dirty): m for c, m in zip(series.commits, series.medians)}
    return [fmt_time(medians[key]) if key in medians else "" for key in shown]


def step_text(step: Step) -> str:
    """'ab12cd34ef: 2.01x slower' for a step at that commit."""
    return f"{step.commit.label}: {change_text(step.ratio.point)}"


def steps_text(series: Series) -> str:
    return "; ".join(step_text(s) for s in series.steps) or "none"


def commits_lines(history: History) -> list[str]:
    return [f"{number}. {code(c.label)}{' ' + cell(c.tag) if c.tag else ''} "
            f"{cell(c.started[:19].replace('T', ' ')) or 'no start time'} "
            f"({counted(c.run.rounds, 'round')}, {counted(len(c.run.records), 'case')})" for number, c in enumerate(history.commits, 1)]


def history_md(history: History) -> str:
    h = history
    lines = [f"## History: {headline(h)}", "", f"- {rule_line(h)}"]
    lines += [f"- note: {cell(note)}" for note in h.notes]
    lines += ["", "### Commits (oldest first)", ""] + commits_lines(h)
    every = columns(h)
    shown = list(every)[-COLUMNS:]
    if len(every) > COLUMNS:
        lines += ["", f"The table shows the newest {COLUMNS} commits; the step column covers all of them."]
    lines += ["", "### Median per commit", "",
              "| metric | " + " | ".join(code(every[key]) for key in shown) + " | step change |",
              "|---|" + "---:|" * len(shown) + "---|"]
    for s in h.series:
        lines.append(f"| {code(s.name)} | " + " | ".join(median_cells(s, shown)) + f" | {cell(steps_text(s))} |")
    return "\n".join(lines) + "\n"


def history_blocks(history: History, args: argparse.Namespace) -> list[str | Table]:
    """The history for a terminal or a pipe (``sudoku.display`` blocks): the headline, the commits, and
    the median per commit of each metric over the newest commits, with its step changes."""
    h = history
    blocks: list[str | Table] = [f"history: {headline(h)}", rule_line(h)]
    blocks += [f"note: {note}" for note in h.notes]
    several = h.configuration_count > 1
    commits = Table(["#:", "commit", *(["configuration"] if several else []), "started", "rounds:", "cases:"],
                    title="Commits (oldest first)")
    for number, c in enumerate(h.commits, 1):
        commits.add(number, c.label, *([c.tag] if several else []), c.started[:19].replace("T", " ") or "-",
                    c.run.rounds, len(c.run.records))
    every = columns(h)
    shown = list(every)[-TERMINAL_COLUMNS:]
    medians = Table(["metric", *(every[key] + ":" for key in shown), "step change"],
                    title="Median per commit" + (f" (the newest {len(shown)} of {len(every)} commits)"
                                                 if len(shown) < len(every) else ""))
    for s in h.series:
        medians.add(s.name, *median_cells(s, shown), steps_text(s))
    return blocks + [commits, medians, files_line(args)]


def trend_factor(history: History) -> float:
    """The one y-range factor of every trend: the widest series' (its p25..p75 and medians, with the
    margin ``svg.trend`` leaves), at least 2."""
    widest = 2.0
    for s in history.series:
        values = [v for pair in s.quartiles() for v in pair] + s.medians
        values = [v for v in values if v > 0 and v < float("inf")]
        if values:
            widest = max(widest, max(values) / min(values) * svg.TREND_MARGIN ** 2)
    return widest


def history_html(history: History) -> str:
    h = history
    title = f"History: {headline(h)}"
    factor, several = trend_factor(h), h.configuration_count > 1
    body = [f"<h1>{escape(title)}</h1>",
            f"<p>A step is named where the commits after a point differ from those before (up to 3 a side): "
            f"the block-bootstrap interval wholly past {h.threshold * 100:g} % and the ratio past the spread between "
            "commits. Each trend plot shows the median per commit (dots joined by a line), its p25..p75 (bars) "
            "on a log time axis, and a red dashed line before each commit where a step change happened. "
            f"Every trend spans the same factor from bottom to top (x{factor:.3g}), so a step of one height is "
            "one change in every plot.</p>"]
    body += [f'<p class="warning">{escape(note)}</p>' for note in h.notes]
    body += ["<h2>Commits (oldest first)</h2>",
             table(["#", "commit", *(["configuration"] if several else []), "started", "rounds", "cases"],
                   [[n, c.label, *([c.tag] if several else []), c.started[:19].replace("T", " "), c.run.rounds,
                     len(c.run.records)] for n, c in enumerate(h.commits, 1)],
                   numeric=(0, 3 + several, 4 + several))]
    body += ["<h2>Metrics</h2>",
             table(["metric", "first median", "last median", "step change"],
                   [[s.name, fmt_time(s.medians[0]), fmt_time(s.medians[-1]), steps_text(s)] for s in h.series],
                   numeric=(1, 2))]
    body.append("<h2>Trends</h2><div class=\"plots\">")
    for s in h.series:
        labels = [c.label[:7] for c in s.commits]
        steps = [(step.at, step_text(step).replace(step.commit.label, step.commit.label[:7])) for step in s.steps]
        body.append(svg.trend(s.name, labels, s.medians, s.quartiles(), steps=steps, factor=factor))
    body.append("</div>")
    return _page(title, body)
