"""The ``reports`` command: ``show`` one run, ``compare`` a current run with a baseline, ``history`` over
commits, ``feedback`` per target of a fuzz run (``reports.feedback``).

Exit codes (``EXIT_CODES``, from the table every tool shares, ``sudoku.cli.scaffold``): 0 no regression
(show: no failed case), 1 regression (show: a failed case), 2 bad usage or an unreadable run, 5
(compare) not comparable: the runs' configurations differ, so no timing was compared (a failed case
still gives 1); errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sudoku.files import NotWritable

from reports import ReportError, WriteFailed, settings
from sudoku.cli.scaffold import (FAILED, INTERRUPTED, IO_ERROR, NOT_COMPARABLE, OK, USAGE, Parser, add_color_option,
                                  add_version_option, exit_codes, group_options, main as run_as_command,
                                  say, use_colour)

if TYPE_CHECKING:
    from collections.abc import Callable

    from reports.load import Run

    from sudoku.display import Table

REGRESSION = FAILED
EXIT_CODES = exit_codes({
    OK: "no regression (show: no failed case)",
    FAILED: "a regression: a failed case in the current run, or (compare) a metric whose whole confidence "
            "interval lies above 1 + threshold, unless the A/A check of the current run's rounds marks the "
            "timing verdicts unreliable",
    USAGE: "an unreadable run, or a run not complete (interrupted, stopped or still running) and no failed "
           "case: the report is written, but covers only the cases that ran",
    IO_ERROR: "--md, --html or $GITHUB_STEP_SUMMARY cannot be written",
    NOT_COMPARABLE: "(compare) the runs' configurations differ (engines, size, difficulty, data set, schema "
                    "version, mode, target), so no timing was compared, and no case failed (--fail-on none: 0)",
    INTERRUPTED: None,
})
SHOW_EXAMPLES = """examples:
  reports show runs/today                          a short summary of a batch or a fuzz run
  reports show runs/fuzz-1 --html report.html      the same, whole, with plots and each bug's input
  reports show runs/today --md - > summary.md      the whole Markdown on stdout

"""
COMPARE_EXAMPLES = """examples:
  reports compare runs/base runs/head              exit 1 on a regression, 5 when not comparable
  reports compare runs/base runs/head --fail-on correctness --junit junit.xml --md summary.md
  reports compare rounds/base rounds/head          directories of rounds, each side read as one run

"""
EXAMPLES = """examples:
  reports show runs/today                          one run: counts, failures, timings
  reports compare runs/base runs/head              a change against its baseline, in CI
  reports history runs/*                           each metric over commits, where it stepped
  reports feedback runs/class --out feedback       a class's fuzz run: a page and a grade per student

"""
EPILOG = EXIT_CODES + """
A RUN is a run directory (manifest.json, parts/*.parquet) or a directory of run directories (rounds of one
configuration; --merge-unlike merges any), read as one run; rounds and chunks are resampled as blocks, and
one run per side needs a change of 1.5x either way.
stdout: a short summary (aligned tables; boxed on a terminal); --md - puts the whole Markdown there instead,
--json a versioned JSON object (docs/json.md). The Markdown is appended to $GITHUB_STEP_SUMMARY when that is set."""


HISTORY_EPILOG = """examples:
  reports history runs/*                           every run here, one series per configuration
  reports history runs/* --md history.md --html history.html

Each metric's median per commit, oldest first (runs ordered by their recorded start time; the
runs of one commit merged as its rounds), one series per configuration. A step change is named where the
commits after a point differ from those before by the rule of `compare` (the whole interval past the
threshold, and past the spread between commits).

""" + exit_codes({OK: "the history was written", USAGE: "an unreadable run",
                  IO_ERROR: "--md, --html or $GITHUB_STEP_SUMMARY cannot be written", INTERRUPTED: None})


class UsageError(Exception):
    pass


def fraction(text: str) -> float:
    """A threshold as '10%' or '0.1'."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a fraction or percentage: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1 (or 0% and 100%): {text!r}")
    return value


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def parser() -> Parser:
    top = Parser(prog="reports", description="Summaries and regression verdicts of record runs (Parquet), and "
                                             "feedback and grades for a class's fuzz run.",
                 epilog=EXAMPLES + EPILOG)
    add_version_option(top, "reports")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    show = commands.add_parser("show", help="summary of one run: counts, failures, timing percentiles, slowest cases",
                               description="Summarise one run (a batch or a fuzz run): counts, failures and "
                                           "distinct bugs, timing percentiles, the slowest cases; as text, "
                                           "Markdown, HTML or JSON.",
                               epilog=SHOW_EXAMPLES + EPILOG)
    show.add_argument("run", metavar="RUN", help="run directory")
    compare = commands.add_parser("compare", help="verdict per metric of a current run against a baseline",
                                  description="Compare a current run with a baseline, metric by metric: a "
                                              "regression only when the whole confidence interval of the ratio "
                                              "of medians lies past the threshold; any failed case is one.",
                                  epilog=COMPARE_EXAMPLES + EPILOG)
    compare.add_argument("base", metavar="BASE", help="baseline run directory")
    compare.add_argument("head", metavar="HEAD", help="current run directory")
    compare.add_argument("--threshold", type=fraction, default=settings.THRESHOLD,
                         help="relative change that counts, e.g. 10%% or 0.1 (default 10%%)")
    compare.add_argument("--min-samples", type=positive, default=settings.MIN_SAMPLES,
                         help="fewer samples on a side make a metric 'not comparable' (default %(default)s)")
    compare.add_argument("--resamples", type=positive, default=settings.RESAMPLES,
                         help="bootstrap resamples (default %(default)s)")
    compare.add_argument("--confidence", type=fraction, default=settings.CONFIDENCE,
                         help="confidence of the interval (default 0.95)")
    compare.add_argument("--seed", type=int, default=settings.SEED, help="bootstrap seed (default %(default)s)")
    compare.add_argument("--fail-on", choices=("any", "correctness", "none"), default="any",
                         help="what makes exit 1: any regression (default), only failed cases, or nothing")
    compare.add_argument("--junit", metavar="FILE", help="write JUnit XML: one test case per metric")
    history = commands.add_parser("history", help="each metric over commits, naming the commit of a step change",
                                  description="Follow each metric over the commits of many runs (runs of one "
                                              "commit are rounds; a dirty tree is kept apart) and name the "
                                              "commit where it stepped.",
                                  epilog=HISTORY_EPILOG)
    history.add_argument("runs", metavar="RUN", nargs="+",
                         help="run directories, or directories of them; runs of one commit are merged as rounds")
    history.add_argument("--threshold", type=fraction, default=settings.THRESHOLD,
                         help="relative change that counts as a step, e.g. 10%% or 0.1 (default 10%%)")
    history.add_argument("--seed", type=int, default=settings.SEED, help="bootstrap seed (default %(default)s)")
    add_feedback_parser(commands)
    for sub in (show, compare):
        sub.add_argument("--merge-unlike", action="store_true",
                         help="merge a directory of runs even when their configurations differ (their timings "
                              "then compare with nothing)")
    for sub in (show, compare, history):
        sub.add_argument("--json", action="store_true", help="stdout: one JSON object (schema reports.%s, version 2)"
                         % sub.prog.split()[-1])
        sub.add_argument("--md", metavar="FILE", help="write the whole Markdown report here ('-': to stdout)")
        sub.add_argument("--html", metavar="FILE", help="write a self-contained HTML report with plots")
        sub.add_argument("-q", "--quiet", action="store_true", help="nothing on stdout")
        add_color_option(sub)
    group_options(compare, {
        "the verdict": ("--threshold", "--min-samples", "--resamples", "--confidence", "--seed", "--fail-on",
                        "--merge-unlike"),
        "output": ("--json", "--md", "--html", "--junit", "-q", "--color")})
    return top


FEEDBACK_EPILOG = """examples:
  fuzz run -n 300 --targets class.txt --out runs/class       first: the class's run (one program a line)
  reports feedback runs/class --out feedback                 a folder per student: page, results.json, junit.xml
  reports feedback runs/class --rules our-course.toml        scored by the course's own rule

A program that cannot start (no grid from a known-good solve nor from a create: a syntax error, a usage
line on every call) scores 0, its page showing what it printed; a refusal earns points only from a
program that solved something.

""" + exit_codes({OK: "the folders were written (whatever the submissions' bugs)",
                               USAGE: "an unreadable run or grading rule",
                               IO_ERROR: "an --out that cannot be written",
                               INTERRUPTED: None})


def add_feedback_parser(commands: argparse._SubParsersAction[Parser]) -> Parser:
    feedback = commands.add_parser("feedback", help="per target of a fuzz run: a feedback page, results.json and "
                                                    "JUnit XML",
                                   description="For each target of a fuzz run (a class's submissions), a folder "
                                               "of its own: feedback.md and feedback.html (its bugs, each with "
                                               "its minimal input, what was expected, what it printed and the "
                                               "line that replays it; its format slips apart; nothing about the "
                                               "other targets), bugs/N/ (the reproducers), results.json "
                                               "(Gradescope) and junit.xml, scored by a grading rule; and "
                                               "index.md naming whose folder is which.",
                                   epilog=FEEDBACK_EPILOG)
    feedback.add_argument("run", metavar="RUN", help="a fuzz run directory")
    feedback.add_argument("--out", metavar="DIR", help="where the folders go (default RUN/feedback)")
    feedback.add_argument("--rules", metavar="FILE", help="the grading rule, TOML (default: the one shipped, "
                                                          "reports/data/grading.toml)")
    feedback.add_argument("-q", "--quiet", action="store_true", help="nothing on stdout")
    return feedback


def run_feedback(args: argparse.Namespace) -> int:
    from reports.feedback import write_feedback
    from reports.grades import read_leaderboard, read_rules
    from reports.load import load_run
    from sudoku.display import counted, visible

    rules = read_rules(args.rules)  # a bad rule is told before a long run is read
    leaderboard = read_leaderboard(args.rules)
    run = load_run(args.run)
    out = Path(args.out) if args.out else run.path / "feedback"
    made = write_feedback(run, out, rules=rules, leaderboard=leaderboard)
    if not args.quiet:
        for one, got, most in made:
            print(f"{visible(str(out / one.folder), newlines=False)}: {counted(len(one.real_bugs), 'bug')}, {got:g} of {most:g} "
                  f"points ({visible(one.target, newlines=False)})")
    return OK


def write(path: str | os.PathLike[str], text: str) -> None:
    """A report file written whole or not at all, never through a link (``sudoku.files.write_file``)."""
    from sudoku.files import write_file

    path = Path(path)
    try:
        write_file(path, text)
    except OSError as error:
        raise WriteFailed(f"cannot write {path}: {error.strerror or error}") from None


def publish(args: argparse.Namespace, markdown: str, html_of: Callable[[], str],
            blocks_of: Callable[[], list[str | Table]], json_of: Callable[[], str]) -> None:
    """stdout: the short summary (``reports.render.terminal``, ``reports.render.history``), or the
    Markdown with --md -, or JSON with --json; Markdown to --md FILE and $GITHUB_STEP_SUMMARY; HTML to
    --html (each rendered only when asked)."""
    from sudoku.display import show

    if args.md and args.md != "-":  # the files first: the short summary names them
        write(args.md, markdown)
    if args.html:
        write(args.html, html_of())
    if not args.quiet:
        if getattr(args, "json", False):
            sys.stdout.write(json_of())
        elif args.md == "-":
            sys.stdout.write(markdown)
        else:
            show(blocks_of())
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from sudoku.files import NotWritable, open_append

        try:  # never through a link, never blocked by a FIFO (``sudoku.files.open_append``)
            with open_append(summary) as out:
                out.write(markdown + "\n")
        except NotWritable as error:
            raise WriteFailed(f"cannot append the step summary to {error}") from None
        except OSError as error:
            raise WriteFailed(f"cannot append the step summary to {summary}: {error.strerror or error}") from None


def run_show(args: argparse.Namespace) -> int:
    from reports.load import load_run
    from reports.render.html import summary_html
    from reports.render.json import summary_json
    from reports.render.md import summary_md
    from reports.summary import summarize
    from reports.render.terminal import summary_blocks

    summary = summarize(load_run(args.run, merge_unlike=args.merge_unlike))
    publish(args, summary_md(summary), lambda: summary_html(summary), lambda: summary_blocks(summary, args),
            lambda: summary_json(summary))
    if summary.failed:
        return REGRESSION
    return not_complete(summary.run) or OK


def not_complete(*runs: Run) -> int | None:
    """USAGE, with a line on stderr, when a run read is not complete and nothing failed: a CI gate must
    not pass on the cases that ran of a run cut short (its report is written all the same)."""
    cut = list(dict.fromkeys(one for run in runs for one in run.unfinished))
    if not cut:
        return None
    say("reports", f"not complete: {'; '.join(cut)}; the report covers only the cases that ran and passes "
                   "nothing (exit 2): finish the run, then report again")
    return USAGE


def run_compare(args: argparse.Namespace) -> int:
    from reports import verdict
    from reports.load import load_run
    from reports.render.html import comparison_html
    from reports.render.json import comparison_json
    from reports.render.junit import comparison_junit
    from reports.render.md import comparison_md
    from reports.render.terminal import comparison_blocks

    base = load_run(args.base, merge_unlike=args.merge_unlike)
    head = load_run(args.head, merge_unlike=args.merge_unlike)
    comparison = verdict.compare(base, head, threshold=args.threshold, min_samples=args.min_samples, seed=args.seed,
                                 resamples=args.resamples, confidence=args.confidence)
    if args.junit:
        write(args.junit, comparison_junit(comparison))
    publish(args, comparison_md(comparison), lambda: comparison_html(comparison),
            lambda: comparison_blocks(comparison, args), lambda: comparison_json(comparison))
    failing = {"any": comparison.regression, "correctness": comparison.correctness_regression, "none": False}
    if failing[args.fail_on]:
        return REGRESSION
    if args.fail_on == "none":
        return OK
    return not_complete(base, head) or (NOT_COMPARABLE if not comparison.comparable else OK)


def run_history(args: argparse.Namespace) -> int:
    from reports.history import history_of, load_history
    from reports.render.history import history_blocks, history_html, history_md
    from reports.render.json import history_json

    found = history_of(load_history(args.runs), threshold=args.threshold, seed=args.seed)
    publish(args, history_md(found), lambda: history_html(found), lambda: history_blocks(found, args),
            lambda: history_json(found))
    return OK


def run(argv: list[str] | None = None) -> int:
    """The command without process-wide set-up: parse ``argv``, act, return the exit code; every expected
    error is one line on stderr, and an unexpected one too (named, so it can be reported), never a
    traceback."""
    args = parser().parse_args(argv)
    use_colour(args)
    try:
        if getattr(args, "json", False) and args.md == "-":
            raise UsageError("--json and --md - both want stdout: write the Markdown to a file")
        return {"show": run_show, "compare": run_compare, "history": run_history,
                "feedback": run_feedback}[args.command](args)
    except UsageError as error:
        say("reports", f"{error} (see reports --help)")
        return USAGE
    except WriteFailed as error:
        say("reports", error)
        return IO_ERROR
    except NotWritable as error:  # a link or a folder where a report goes
        say("reports", error)
        return USAGE
    except ReportError as error:
        say("reports", error)
        return USAGE


def main(argv: list[str] | None = None) -> int:
    """The console entry point: ``run`` as the process's command (``sudoku.cli.scaffold.main``): SIGTERM
    and SIGHUP end a report as Ctrl-C does (exit 128+n), a reader that went away quietly (141)."""
    return run_as_command(lambda: run(argv), "reports")
