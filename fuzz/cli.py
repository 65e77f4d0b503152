"""The ``fuzz`` command: run cases against a target, shrink and save failures, replay a corpus.

Exit codes: ``EXIT_CODES`` (run), ``REPLAY_EXIT_CODES`` and ``PROBE_EXIT_CODES``, from the table every
tool shares (``sudoku.cli.scaffold``).
"""

import argparse
import os
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fuzz.engine import Usage
from fuzz.targets import Target, case_folders
from jobs.entry import dispatch
from sudoku.cli.scaffold import (FAILED, INTERRUPTED, IO_ERROR, LOST, OK, USAGE, Parser, add_color_option,
                                  add_version_option, exit_codes, group_options)
from sudoku.grid import MADE_SIDES

KEPT = "finished chunks are kept (resume with --resume DIR)"
EXIT_CODES = exit_codes({
    OK: "no failure",
    FAILED: "bugs found (reproducers saved to the corpus); slow answers, unconfirmed failures and the "
            "contract's own spelling failing beside a dialect only with --fail-slow, --fail-unconfirmed, "
            "--fail-contract",
    USAGE: "a target that cannot start",
    IO_ERROR: f"disk full, read-only, ...; {KEPT}",
    LOST: KEPT,
    INTERRUPTED: KEPT,
})
REPLAY_EXIT_CODES = exit_codes({
    OK: "every reproducer passes now",
    FAILED: "a reproducer still fails",
    USAGE: "no reproducer under PATH, or a target or reference that cannot start",
    INTERRUPTED: None,
})
PROBE_EXIT_CODES = exit_codes({
    OK: "the contract's own spelling (create, solve) works",
    FAILED: "the program breaks the contract: its own create or solve is not understood (the spelling that "
            "works, if any, is printed after it), or no way was found for one of them",
    USAGE: None,
    INTERRUPTED: None,
})
AUTOGRADER_EXIT_CODES = exit_codes({
    OK: "the zip was written",
    USAGE: "a bad option or grading rule, or a toolkit that is not a source checkout (the zip holds a wheel "
           "built from one)",
    IO_ERROR: "the zip cannot be written",
    INTERRUPTED: None,
})
DEFAULT_CORPUS = ".fuzz-corpus"
MAX_TARGETS = 1000  # each target costs a pre-flight (two calls) before the run starts
MAX_TARGETS_BYTES = 1 << 20  # a --targets file of a thousand long commands is well under this
# The options of run, replay and autograder in --help, under what each is for (sudoku.cli.scaffold.
# group_options: the first heading naming an option takes it). A new option gets its heading here.
OPTION_GROUPS = {
    "what to test": ("--target", "--targets", "--create-args", "--solve-args", "--check-args", "--format", "--mode",
                     "--verdict-words", "--verdict-exit", "--reference", "--sanitize", "--leaks", "--build"),
    "cases": ("-n", "--size", "--seed", "--family", "--list-families", "--max-failures"),
    "time limits": ("--timeout", "--max-output"),
    "triage": ("--no-shrink",),
    "grading (what fails the run)": ("--strict", "--fail-slow", "--fail-unconfirmed", "--fail-contract", "--rules"),
    "run directory and workers": ("--out", "--resume", "--force", "--corpus", "--workers", "--chunk-size",
                                  "--backend", "--scheduler", "--connect-timeout"),
    "output": ("--json", "--md", "--no-progress", "-v", "--color"),
}


def _three_words(text: str) -> tuple[str, ...]:
    words = tuple(word.strip() for word in text.split(","))
    if len(words) != 3 or not all(words) or len({word.lower() for word in words}) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: three different words, comma-separated")
    return words


def _three_codes(text: str) -> tuple[int, ...]:
    try:
        codes = tuple(int(code) for code in text.split(","))
    except ValueError:
        codes = ()
    if len(codes) != 3 or len(set(codes)) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: three different exit codes, comma-separated")
    return codes


def _target_options(parser: argparse.ArgumentParser, *, many: bool = False, replay: bool = False,
                    submission: str | None = None) -> None:
    what = ("engine (our engines in-process; engine:NAME for one), cli (our `sudoku` command), or a command such "
            "as ./sudoku or 'python3 their.py' (default engine)")
    if submission:
        parser.add_argument("--target", default=submission, help="the submission's program, as run in its folder "
                            f"(default {submission}; 'python3 sudoku.py' for a Python one)")
    elif many:
        parser.add_argument("--target", action="append", help=what + "; give it again for more targets: the same "
                            "cases go to every one")
        parser.add_argument("--targets", metavar="FILE", help="more targets, one command per line ('#' comments)")
    elif replay:
        parser.add_argument("--target", help=what.replace("(default engine)", "(default: the target the "
                            "reproducers were saved from, when it is ours: engine or cli; another program must "
                            "be named, as a corpus may come from anyone)"))
    else:
        parser.add_argument("--target", default="engine", help=what)
    parser.add_argument("--create-args", default="create", help="arguments that ask for a puzzle (default 'create')")
    parser.add_argument("--solve-args", default="solve", help="arguments that ask for a solution (default 'solve')")
    parser.add_argument("--check-args", default="check", help="arguments that ask a checker for its verdict "
                        "(--mode check; default 'check')")
    parser.add_argument("--verdict-words", type=_three_words, default=None, metavar="C,I,V",
                        help="a checker's own words for complete, incomplete and invalid (default "
                             "complete,incomplete,invalid; case-insensitive)")
    parser.add_argument("--verdict-exit", type=_three_codes, default=None, metavar="C,I,V",
                        help="a checker's exit codes for complete, incomplete and invalid, when they carry the "
                             "verdict too (e.g. 0,1,2)")
    parser.add_argument("--format", choices=("grid", "header"), default="grid",
                        help="the target's text: grid (side lines of side numbers) or header (a first line "
                             "with the box size, '3' for 9x9, then the rows)")
    parser.add_argument("--timeout", type=float, default=5.0, help="a call's limit (default 5): seconds of CPU while it computes, of wall time while it "
                        "sits blocked; a busy machine never makes a hang (20x the limit in wall time bounds both)")
    parser.add_argument("--max-output", type=int, default=1 << 20, help="bytes of output kept per call (default 1 MiB)")
    parser.add_argument("--strict", action="store_true", help="count output format slips as failures")


def _parser() -> Parser:
    parser = Parser(prog="fuzz", description="Fuzz a `sudoku` program (create/solve contract): find bugs, "
                     "shrink them to minimal reproducers.",
                     epilog="examples:\n  fuzz run -n 10000\n  fuzz run -n 500 --target cli\n"
                            "  fuzz run -n 500 --target ./their/sudoku\n"
                            "  fuzz run -n 300 --target ./their/sudoku --sanitize   # built with ASan+UBSan\n"
                            "  fuzz run -n 500 --target 'python3 their.py' --create-args 'create easy' --format header\n"
                            "  fuzz replay runs/fuzz-1/corpus --target ./their/sudoku\n\n" + EXIT_CODES)
    add_version_option(parser, "fuzz")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="generate cases, judge the target, shrink and save failures",
                         description="Replay the target's saved reproducers, then ask it N cases (each family of "
                                     "the contract), judge every answer, group the failures into bugs, shrink "
                                     "each to a minimal input and save it to the corpus.",
                         epilog="example:\n  fuzz run -n 500 --target ./their/sudoku\n\n" + EXIT_CODES)
    run.add_argument("-n", type=int, default=1000, help="cases to run (default 1000), against each target")
    _target_options(run, many=True)
    _case_options(run)
    run.add_argument("--family", action="append", metavar="NAME", help="ask only cases of this family (again for "
                     "more): a family, a group (malformed, whitespace, unique, check) or a pattern ('no_solution*'); "
                     "the same seed and families make the same cases")
    run.add_argument("--list-families", action="store_true", help="list the families of --mode, each with what it "
                     "asks, then exit")
    run.add_argument("--max-failures", type=int, metavar="N", help="stop the cases once N have failed (the chunks "
                     "running then are dropped; a few more may have failed in the chunks done), then shrink and save "
                     "those as ever; the run is finished_early, not resumed")
    run.add_argument("--out", help="run directory (default runs/fuzz-YYYYmmdd-HHMMSS)")
    run.add_argument("--resume", metavar="DIR", help="finish an interrupted run (options come from its manifest)")
    run.add_argument("--force", action="store_true", help="replace an existing run directory")
    run.add_argument("--corpus", default=DEFAULT_CORPUS,
                     help=f"reproducers replayed first and added to (default {DEFAULT_CORPUS})")
    run.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: one per core)")
    run.add_argument("--chunk-size", type=int, help="cases per chunk, each against every target (default: about "
                     "100 target calls a chunk, in a multiple of --workers chunks)")
    run.add_argument("--sanitize", action="store_true",
                     help="build each target (a C program: ./folder/program) with AddressSanitizer and "
                          "UndefinedBehaviorSanitizer first, from a copy of its folder in the run's build/ (with "
                          "the folders its Makefile's ../ paths reach; its Makefile, with make CC='gcc "
                          "-fsanitize=address,undefined ...'), and fuzz the build: memory errors that do not crash "
                          "become no_crash:asan findings, one bug per line of the program")
    run.add_argument("--build", metavar="CMD", help="with --sanitize: the build command instead of make, run by "
                     "sh in each copy with $CC, $CFLAGS and $LDFLAGS set (e.g. 'gcc $CFLAGS -o sudoku *.c "
                     "$LDFLAGS'); it must leave the program where the target names it")
    run.add_argument("--leaks", action="store_true", help="report memory never freed too (LeakSanitizer, in a "
                     "sanitized build: one bug per allocation site); off by default, as a program that does not free "
                     "breaks no contract and a leak report ends the call before its output is written")
    run.add_argument("--reference", metavar="CMD", help="a trusted program whose answers stand in for our engine's "
                     "as the expected ones (solve and check cases; run with the same options as the targets); a "
                     "case it fails on (crash, hang, broken answer) is not compared, and counted")
    run.add_argument("--backend", default="local", help="local (default) or dask")
    run.add_argument("--scheduler", help="Dask scheduler address (default: a local cluster)")
    run.add_argument("--connect-timeout", type=float, default=10.0, metavar="S",
                     help="seconds to wait for the Dask scheduler's answer (default 10)")
    run.add_argument("--no-shrink", action="store_true", help="save failures as found, unshrunk")
    run.add_argument("--fail-slow", action="store_true", help="exit 1 on a slow answer too (a call over the "
                     "limit that answers given 4x the CPU: reported apart from bugs, exit 0 by default)")
    run.add_argument("--fail-unconfirmed", action="store_true", help="exit 1 on an unconfirmed failure too (seen "
                     "once, never again in its 3 replays: reported apart from bugs, exit 0 by default)")
    run.add_argument("--fail-contract", action="store_true", help="exit 1 when the contract's own spelling fails "
                     "too: a run in a dialect (--create-args, --solve-args or --format other than 'create', "
                     "'solve', grid) asks each program the contract's create and solve once, and reports a "
                     "call it does not understand apart from the bugs, exit 0 by default")
    run.add_argument("--md", metavar="FILE", help="write the whole Markdown summary here too ('-': to stdout "
                     "instead of the short one); it is always in the run's summary.md")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("-v", "--verbose", action="store_true", help="log lines on stderr too")
    _json_option(run, "fuzz.run", "counts, bugs (signature, reproducer, replay line), saved reproducers that still "
                 "fail, where the records are; the short summary is not printed (progress stays on stderr)")
    add_color_option(run)
    _autograder_parser(sub)
    probe = sub.add_parser("probe", help="find the arguments and text format that make a program work",
                           description="Try the usual spellings of create and solve (and the input formats) "
                                       "on a program and print the `fuzz run` options that it understands.",
                           epilog="example:\n  fuzz probe --target ./their/sudoku\n\n" + PROBE_EXIT_CODES)
    probe.add_argument("--target", required=True, help="the program, e.g. ./sudoku or 'python3 their.py'")
    probe.add_argument("--timeout", type=float, default=5.0, help="a call's limit (default 5): seconds of CPU while it computes, of wall time while it "
                        "sits blocked; a busy machine never makes a hang (20x the limit in wall time bounds both)")
    _json_option(probe, "fuzz.probe", "the spellings found, the `fuzz run` line, every spelling tried (the tries "
                 "stay on stderr too)")
    replay = sub.add_parser("replay", help="re-run saved reproducers against a target",
                            description="Run saved reproducers (a corpus, a target's, oracle's or bug's folder, or "
                                        "a run directory) against a target, judged as the run judged them: after a "
                                        "fix, each should pass.",
                            epilog="example:\n  fuzz replay runs/fuzz-1/corpus --target ./their/sudoku\n\n"
                                   + REPLAY_EXIT_CODES)
    replay.add_argument("corpus", metavar="PATH", help="reproducers to replay: a corpus, a target's, oracle's or "
                        "bug's folder in it, or a run directory")
    _target_options(replay, replay=True)
    replay.add_argument("--reference", metavar="CMD", help="a trusted program whose answers are the expected ones, "
                        "as in `fuzz run --reference` (the replay line of a run with one names it)")
    replay.add_argument("--leaks", action="store_true", help="report leaks too, as `fuzz run --leaks` (the replay "
                        "line of such a run says it); off by default")
    _json_option(replay, "fuzz.replay", "reproducers replayed, each that still fails with its signature (the "
                 "line per reproducer stays on stderr)")
    add_color_option(replay)
    group_options(run, OPTION_GROUPS)
    group_options(replay, OPTION_GROUPS)
    group_options(sub.choices["autograder"], {"the zip": ("--out",), **OPTION_GROUPS})
    return parser


def _case_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("solve", "check"), default="solve",
                        help="solve: the create/solve contract (default); check: a checker that reads a grid and "
                             "says complete, incomplete or invalid")
    parser.add_argument("--size", choices=(*map(str, MADE_SIDES), "mixed"), default="9",
                        help="grid side of the cases (default 9); mixed draws one per case. A --create-args with "
                             "{size} or {box} in it is told the size ('create easy {size}')")
    parser.add_argument("--seed", type=int, help="run seed (default: a fresh one, recorded)")


def _autograder_parser(sub: "argparse._SubParsersAction[Parser]") -> None:
    from fuzz.autograder import DEFAULT_PROGRAM

    grader = sub.add_parser("autograder", help="write a Gradescope autograder zip that fuzzes each submission",
                            description="Write a zip in Gradescope's autograder format: setup.sh installs this "
                                        "toolkit (a wheel inside the zip) into a venv, run_autograder builds each "
                                        "submission (C: plainly, and with the sanitizers given --sanitize), fuzzes "
                                        "it with the options given here and writes results.json: the grade by the "
                                        "rule, the feedback page, a leaderboard when the rule asks. A submission "
                                        "that does not build or cannot start scores 0, with the reason.",
                            epilog="examples:\n  fuzz autograder --out autograder.zip -n 300 --seed 1\n"
                                   "  fuzz autograder --out autograder.zip --target 'python3 sudoku.py' "
                                   "--rules our-course.toml\n"
                                   "  fuzz autograder --out autograder.zip -n 300 --sanitize --timeout 10\n\n"
                                   + AUTOGRADER_EXIT_CODES)
    grader.add_argument("--out", required=True, metavar="ZIP", help="the zip to write (replaced if it exists)")
    grader.add_argument("-n", type=int, default=300, help="cases per submission (default 300)")
    _target_options(grader, submission=DEFAULT_PROGRAM)
    _case_options(grader)
    grader.add_argument("--rules", metavar="FILE", help="the grading rule, TOML, as for `reports feedback` (default: "
                        "the one shipped); read now, so a bad one is told before the upload")
    grader.add_argument("--sanitize", action="store_true", help="fuzz a build of each C submission with "
                        "AddressSanitizer and UndefinedBehaviorSanitizer (as `fuzz run --sanitize`), after the "
                        "plain build has compiled")
    grader.add_argument("--leaks", action="store_true", help="with --sanitize, report memory never freed too "
                        "(LeakSanitizer, as `fuzz run --leaks`; off by default)")
    grader.add_argument("--build", metavar="CMD", help="how a C submission is built, run by sh in its folder with "
                        "$CC, $CFLAGS and $LDFLAGS set (default: make -B with a Makefile, else $CC -O2 *.c)")
    grader.add_argument("--no-shrink", action="store_true", help="save failures as found, unshrunk")


def _json_option(parser: argparse.ArgumentParser, schema: str, what: str) -> None:
    parser.add_argument("--json", action="store_true",
                        help=f"stdout: one JSON object (schema {schema}, version 3): {what}")


def _target_spec(args: argparse.Namespace, spec: str | None = None, *, leaks: bool = False) -> dict[str, Any]:
    return {"spec": args.target if spec is None else spec, "create_args": args.create_args,
            "solve_args": args.solve_args, "header": args.format == "header", "timeout": args.timeout,
            "max_output": args.max_output, "check_args": args.check_args,
            "base": os.getcwd(),  # relative paths in the command are from here, on a resume from elsewhere too
            **({"leaks": True} if leaks else {})}  # a target's, never the reference's


def _target_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every target of a run: the --target options, then the lines of --targets FILE. Every command
    string is split here first, so a bad one is one line naming its option or its file and line
    before anything runs; more than MAX_TARGETS targets is refused (each costs a pre-flight)."""
    _check_command_options(args)
    names = list(args.target or [])
    if args.targets:
        names += _targets_file(args.targets)
    names = list(dict.fromkeys(names or ["engine"]))
    if len(names) > MAX_TARGETS:
        raise Usage(f"{len(names)} targets, more than {MAX_TARGETS} a run takes (split them into several runs)")
    return [_target_spec(args, name, leaks=args.leaks) for name in names]


def _check_command_options(args: argparse.Namespace) -> None:
    """Split each command-string option once, so a bad one is a usage error naming the option."""
    from fuzz.commands import BadCommand, split

    given = [("--target", spec) for spec in (args.target or [])] + [
        (option, getattr(args, name)) for option, name in (("--reference", "reference"), ("--create-args",
         "create_args"), ("--solve-args", "solve_args"), ("--check-args", "check_args"))]
    try:
        for option, text in given:
            if text is not None:
                split(text, option)
    except BadCommand as error:
        raise Usage(str(error)) from None


def _targets_file(path: str) -> list[str]:
    """The commands of a --targets file (one a line, '#' comments), each split to check it; a file
    larger than MAX_TARGETS_BYTES is refused unread, a line that cannot be split names its line."""
    from fuzz.commands import BadCommand, split
    from sudoku.display import visible

    shown = visible(path, newlines=False)
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_TARGETS_BYTES + 1)
        if len(data) > MAX_TARGETS_BYTES:
            raise Usage(f"--targets {shown}: larger than {MAX_TARGETS_BYTES} bytes, not a list of commands")
        lines = data.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise Usage(f"cannot read --targets {shown}: {getattr(error, 'strerror', None) or error}") from None
    names: list[str] = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if line and not line.startswith("#"):
            try:
                split(line, f"{shown} line {number}")
            except BadCommand as error:
                raise Usage(str(error)) from None
            names.append(line)
    return names




def run(args: argparse.Namespace) -> int:
    """``fuzz run``: the options made into a run's config; the run itself is ``fuzz.engine.run``."""
    from fuzz import engine, summary
    from fuzz.config import FuzzConfig
    from jobs.cli import changed_options
    from sudoku.display import show
    from sudoku import new_seed

    if args.list_families:
        _print(_families_text(args.mode))
        return OK
    if args.json and args.md == "-":
        raise Usage("--json and --md - both want stdout: write the Markdown to a file")
    if args.resume and (given := changed_options(_parser(), args)):
        raise Usage(f"--resume takes the run's options from its manifest; leave out {', '.join(given)}")
    config = None
    if not args.resume:
        if args.n < 1 or args.workers < 1 or (args.chunk_size is not None and args.chunk_size < 1) or (
                args.max_failures is not None and args.max_failures < 1):
            raise Usage("-n, --workers, --chunk-size and --max-failures must be at least 1")
        if args.build is not None and not args.sanitize:
            raise Usage("--build is the sanitized build's command: give --sanitize with it")
        from jobs import backends

        backends.check_new(args.backend, args.scheduler, timeout=args.connect_timeout)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        out = args.out or f"runs/fuzz-{stamp}"
        specs = _target_specs(args)
        config = FuzzConfig(
            run_id=Path(out).name, n=args.n, seed=new_seed() if args.seed is None else args.seed,
            target=specs[0], targets=tuple(specs), strict=args.strict,
            check_engine="band" if args.size == "9" else "py", workers=args.workers, chunk_size=None,
            reference=_target_spec(args, args.reference) if args.reference else None, backend=args.backend,
            scheduler=args.scheduler, corpus=str(Path(args.corpus).resolve()), out=out, size=args.size,
            mode=args.mode, verdict_words=args.verdict_words, verdict_exit=args.verdict_exit,
            sanitize=args.sanitize, build=args.build, fail_slow=args.fail_slow,
            fail_unconfirmed=args.fail_unconfirmed, fail_contract=args.fail_contract,
            families=_families(args.family, args.mode), max_failures=args.max_failures)
    # the case folders' home first: workers forked next inherit it, and it goes after they stop
    with case_folders(), engine.workers(config) as pool:  # they start while the targets are pre-flighted
        staging = None
        if config is not None:
            try:
                config, staging = engine.prepare(config, chunk_size=args.chunk_size)
            except KeyboardInterrupt:  # no run directory yet: nothing was saved, and there is nothing to resume
                print("fuzz: interrupted during the pre-flight, before the run began: nothing saved", file=sys.stderr)
                raise
        outcome = engine.run(config, resume=args.resume, force=args.force, verbose=args.verbose,
                             shrink=not args.no_shrink, show_progress=not args.no_progress, pool=pool,
                             staging=staging)
    whole, short = summary.render(outcome)
    if args.md and args.md != "-":
        summary.write(Path(args.md), whole + "\n")
    manifest = outcome.manifest
    if manifest["status"] == "interrupted":
        code = INTERRUPTED
    else:
        code = FAILED if engine.fails(outcome) else OK
    if args.json:
        _print(summary.run_json(outcome, code), end="")
    elif args.md == "-":
        _print(whole)
    else:
        show(short)
    if code == INTERRUPTED:
        print(f"resume with: fuzz run --resume {outcome.run_dir.path}", file=sys.stderr)
    return code


def _families(names: list[str] | None, mode: str) -> tuple[str, ...] | None:
    """The families ``--family`` chose (``fuzz.cases.select``), or None for all; a name that chooses
    none is a usage error naming the nearest family or group."""
    from fuzz.cases import UnknownFamily, families, groups, select
    from sudoku.cli.scaffold import did_you_mean
    from sudoku.display import visible

    if not names:
        return None
    try:
        return tuple(select(names, mode))
    except UnknownFamily as error:
        hint = did_you_mean(error.name, [*families(mode), *groups(mode)])
        raise Usage(f"--family {visible(error.name, newlines=False)!r}: no family of --mode {mode}{hint} (fuzz run "
                    f"--list-families{' --mode check' if mode == 'check' else ''} lists them)") from None


def _families_text(mode: str) -> str:
    """``--list-families``: each family of ``mode`` with what it asks, then the groups."""
    from fuzz.cases import families, groups

    found = families(mode)
    width = max(map(len, found))
    lines = [f"{name:<{width}}  {about}" for name, about in found.items()]
    lines.append("groups (--family GROUP takes them all): " + ", ".join(
        f"{group} ({len(names)})" for group, names in groups(mode).items()))
    return "\n".join(lines)


def replay(args: argparse.Namespace) -> int:
    """``fuzz replay``: saved reproducers against a target (``fuzz.engine.replay``)."""
    from fuzz import engine, summary
    from fuzz.outcome import real_failures
    from sudoku.colour import paint
    from sudoku.display import counted, visible

    _check_command_options(args)
    with case_folders():  # what a fuzz command killed outright left is ended first; ours are marked too
        spec = _target_spec(args, leaks=args.leaks) if args.target else None
        target, count, still = engine.replay(args.corpus, spec,
                                             strict=args.strict, words=args.verdict_words, exits=args.verdict_exit,
                                             reference=_target_spec(args, args.reference) if args.reference else None)
    code = FAILED if real_failures(still) else OK
    said = (f"replayed {counted(count, 'reproducer')} against {visible(target.name, newlines=False)}: "
            f"{summary.still_failing(len(still))}")
    print(paint(said, "bad" if still else "good", sys.stderr), file=sys.stderr)
    if args.json:
        _print(summary.replay_json(target.name, count, still, code), end="")
    return code


def autograder(args: argparse.Namespace) -> int:
    """``fuzz autograder``: the options made into a ``fuzz.autograder.Bundle``; the zip is ``make``'s."""
    from fuzz.autograder import RUN_OPTIONS, Bundle, make

    bundle = Bundle(target=args.target, options={name: getattr(args, name) for name in RUN_OPTIONS}, build=args.build)
    names = make(Path(args.out), bundle, rules=args.rules)
    _print(f"{args.out}: {', '.join(names)}; upload it as the assignment's autograder (Gradescope: Configure "
           "Autograder, Zip file upload)")
    return OK


def probe(args: argparse.Namespace) -> int:
    """``fuzz probe``: the spellings a program understands (``fuzz.probe``), as ``fuzz run`` options."""
    from fuzz.engine import preflight, target_of_spec
    from fuzz.probe import options, probe as find
    from fuzz.summary import probe_json
    from sudoku.display import visible

    def make(create_args: str, solve_args: str, header: bool) -> Target:
        return target_of_spec({"spec": args.target, "create_args": create_args, "solve_args": solve_args,
                               "header": header, "timeout": args.timeout, "max_output": 1 << 20})

    with case_folders():  # what a fuzz command killed outright left is ended first; ours are marked too
        if (problem := preflight(make("create", "solve", False), 9, answers=False)) is not None:
            raise Usage(f"target {visible(args.target, newlines=False)} cannot start: {problem}")
        finding = find(make)
    for what, outcome in finding.tried:
        print(f"  {what}: {outcome}", file=sys.stderr)
    found = options(finding)
    works = finding.create_args is not None and finding.solve_args is not None
    code = FAILED if finding.breaks or not works else OK
    if args.json:
        _print(probe_json(args.target, finding, found if works else None, code), end="")
        return code
    for one in finding.breaks:  # the contract first: the spelling that works is offered only after
        _print(f"breaks the contract: {one.line}")  # its words escaped in the line
    if not finding.breaks:
        _print("understands the contract's own spelling: 'create' and 'solve'")
    if not works:
        missing = " and ".join(name for name, value in (("create", finding.create_args),
                                                        ("solve", finding.solve_args)) if value is None)
        _print(f"no way found to {missing} with {args.target} (tried the spellings above)")
        return code
    if finding.breaks:
        _print(f"the spelling that works: {found}")
    _print(f"fuzz run --target {shlex.quote(args.target)}" + (f" {found}" if found else "")
           + ("" if found else "   # the defaults work"))
    return code


def _print(text: str, end: str = "\n") -> None:
    """Print to stdout, flushed (a reader that goes away, ``fuzz run ... | head``, is the scaffold's)."""
    print(text, end=end, flush=True)


def main(argv: list[str] | None = None) -> int:
    return dispatch("fuzz", {"run": run, "replay": replay, "probe": probe, "autograder": autograder}, lambda: _parser().parse_args(argv), (Usage,))
