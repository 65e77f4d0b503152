"""The ``sudoku-jobs`` command: run a batch (create or --input), resume it, show it.

Exit codes: ``EXIT_CODES``, from the table every tool shares (``sudoku.cli.scaffold``). After 3, 4
and an interrupt, finished chunks are kept: resume with --resume DIR.
"""

import argparse
import os
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from sudoku import DIFFICULTIES, engines, new_seed
from sudoku.cli.scaffold import (FAILED, INTERRUPTED, IO_ERROR, LOST, OK, USAGE, Parser, add_color_option,
                                  add_version_option,
                                  exit_codes, group_options)
from sudoku.generate import GenerationFailed, refuse_impossible
from sudoku.grid import MADE_SIDES, box_of_side

from jobs import BATCH_CHUNK_SIZE, CASE_CHUNK_SIZE, backends
from jobs.entry import dispatch

if TYPE_CHECKING:
    from jobs.config import BatchConfig
from jobs.inputs import InputError, read_input

KEPT = "finished chunks are kept (resume with --resume DIR)"
EXIT_CODES = exit_codes({
    OK: "every case ok",
    FAILED: "some case failed a check (see `sudoku-jobs show DIR`)",
    USAGE: "a run directory that cannot be used as asked (exists, in use, not made by this tool, or "
           "--resume of a run whose plan or input file changed); or --input lines rejected (the run completes)",
    IO_ERROR: f"disk full, file size limit, read-only, a path that cannot be written; {KEPT} once it can be "
              "written",
    LOST: KEPT,
    INTERRUPTED: KEPT,
})


class Usage(Exception):
    pass


def _parser() -> Parser:
    parser = Parser(prog="sudoku-jobs", description="Create, check and solve puzzles in parallel; "
                     "record per-puzzle timings to Parquet and CSV.",
                     epilog="examples:\n  sudoku-jobs run -n 10000 --out runs/today\n"
                            "  sudoku-jobs run --input ../shared/data/top1465.txt.gz --out runs/top\n"
                            "  sudoku-jobs run --resume runs/today\n  sudoku-jobs show runs/today\n\n" + EXIT_CODES)
    add_version_option(parser, "sudoku-jobs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run a batch", description="Run a batch: create (or read) puzzles, "
                         "check uniqueness and blanks, solve them back, record everything.",
                         epilog="example:\n  sudoku-jobs run -n 2000 --size 16 --seed 42 --workers 2 --out runs/s16\n\n"
                         + EXIT_CODES)
    run.add_argument("-n", type=int, default=1000, help="puzzles to create (default 1000)")
    run.add_argument("--size", type=int, choices=MADE_SIDES, default=9, help="grid side (default 9)")
    run.add_argument("--seed", type=int, help="run seed (default: a fresh one, recorded in the manifest)")
    run.add_argument("--input", help="solve and check the puzzles of this file (line format, .gz ok) instead")
    run.add_argument("--out", help="run directory (default runs/run-YYYYmmdd-HHMMSS)")
    run.add_argument("--resume", metavar="DIR", help="finish an interrupted run; other options come from its manifest")
    run.add_argument("--force", action="store_true", help="replace an existing run directory")
    run.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: one per core)")
    run.add_argument("--chunk-size", type=int, help=f"cases per chunk (default {BATCH_CHUNK_SIZE} on the batch path: "
                     f"9x9 with nb and band; {CASE_CHUNK_SIZE} otherwise)")
    run.add_argument("--backend", default="local", help="local (default) or dask")
    run.add_argument("--scheduler", help="Dask scheduler address, tcp://HOST:PORT (default: a local cluster)")
    run.add_argument("--connect-timeout", type=float, default=backends.CONNECT_TIMEOUT_S, metavar="S",
                     help="seconds to wait for the Dask scheduler's handshake (default %(default)g)")
    run.add_argument("--engine", choices=engines.names(), help="engine that creates and solves (default nb at 9x9, big from 16x16, py at 4x4)")
    run.add_argument("--check-engine", choices=engines.names(), help="engine that counts solutions, another than --engine "
                     "(default band when --engine is nb, dlx when it is py, py otherwise)")
    run.add_argument("--blanks", type=int, help="created puzzles have at least this many blanks")
    run.add_argument("--difficulty", choices=DIFFICULTIES, help="level of created puzzles, as `sudoku grade` says")
    run.add_argument("--grade", action="store_true", help="grade every puzzle with one solution: level and score "
                     "columns (untimed; the run takes several times longer, see bench/README.md)")
    run.add_argument("--canonical", action="store_true", help="record each puzzle's canonical form (the least of "
                     "its variants under the grid's symmetries; 4x4 and 9x9): the summary counts the distinct "
                     "puzzles, and the canonical column finds the duplicates (about 2-5 ms of CPU a 9x9 puzzle, untimed)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    run.add_argument("-v", "--verbose", action="store_true", help="log lines on stderr too")
    show = sub.add_parser("show", help="totals, failures and timing percentiles of a run",
                          description="Show a run: its status, cases saved (a run not complete is counted from "
                                      "its saved parts), failures and timing percentiles per phase.",
                          epilog="example:\n  sudoku-jobs show runs/today\n\n" + EXIT_CODES)
    show.add_argument("dir", help="run directory")
    show.add_argument("--json", action="store_true", help="one JSON object (schema sudoku-jobs.show, version 2)")
    show.add_argument("--md", metavar="FILE", help="write the summary as Markdown here ('-': to stdout instead)")
    show.add_argument("--failures", type=int, default=10, metavar="N", help="cases not ok listed (default 10)")
    add_color_option(show)
    group_options(run, {
        "what to make": ("-n", "--size", "--seed", "--input", "--blanks", "--difficulty"),
        "engines and records": ("--engine", "--check-engine", "--grade", "--canonical"),
        "run directory and workers": ("--out", "--resume", "--force", "--workers", "--chunk-size", "--backend",
                                      "--scheduler", "--connect-timeout"),
        "output": ("--no-progress", "-v")})
    return parser


def _config(args: argparse.Namespace) -> "BatchConfig":
    from jobs.config import BatchConfig  # dataclasses and typing: for a run, not for --help
    from jobs.tasks import default_engines  # pyarrow: only for a run, never for --help

    box = box_of_side(args.size)
    # input lines of another size than --size are solved by that size's defaults, unless engines were named
    by_size = bool(args.input) and args.engine is None and args.check_engine is None
    if args.engine is None:
        args.engine = default_engines(box)[0]
    if args.check_engine is None:
        args.check_engine = default_engines(box, args.engine)[1]
    backends.check_new(args.backend, args.scheduler, timeout=args.connect_timeout)
    for option, name in (("--engine", args.engine), ("--check-engine", args.check_engine)):
        if name not in engines.names():
            raise Usage(f"unknown {option} {name!r}; known: {', '.join(engines.names())}")
    if args.engine == args.check_engine and not args.input:
        raise Usage("--check-engine must differ from --engine, so an engine cannot vouch for its own puzzles")
    if args.chunk_size is None:
        probe = {"mode": "input" if args.input else "create", "box": box, "engine": args.engine,
                 "check_engine": args.check_engine, "difficulty": args.difficulty, "blanks": args.blanks}
        from jobs import columnar  # numpy: only for a run, never for --help

        args.chunk_size = BATCH_CHUNK_SIZE if columnar.serves(probe) else CASE_CHUNK_SIZE
    for option, value in (("-n", args.n), ("--workers", args.workers), ("--chunk-size", args.chunk_size)):
        if value < 1:
            raise Usage(f"{option} must be at least 1, not {value}")
    if args.out == "":
        raise Usage("--out is empty: name the run directory (or leave --out out for runs/run-DATE-TIME)")
    if not args.input:
        for name in (args.engine, args.check_engine):
            if not engines.supports(name, box):
                raise Usage(f"engine {name!r} does not handle {args.size}x{args.size} grids")
        if "fill" not in engines.info(args.engine).capabilities:
            raise Usage(f"engine {args.engine!r} cannot create puzzles")
        try:  # as `sudoku create` refuses them: every case would otherwise be a failed create
            refuse_impossible(box, args.difficulty, args.blanks)
        except GenerationFailed as error:
            raise Usage(str(error)) from None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = args.out or f"runs/run-{stamp}"
    return BatchConfig(
        run_id=Path(out).name if args.out is None else f"{Path(out).name}-{stamp}", n=args.n, box=box,
        size=args.size, seed=new_seed() if args.seed is None else args.seed,
        input=str(Path(args.input).resolve()) if args.input else None, workers=args.workers,
        chunk_size=args.chunk_size, backend=args.backend, scheduler=args.scheduler, engine=args.engine,
        check_engine=args.check_engine, blanks=args.blanks, difficulty=args.difficulty, grade=args.grade,
        canonical=args.canonical, out=out, engines_by_size=by_size)


RUN_ONLY = ("command", "resume", "verbose", "no_progress", "connect_timeout", "md", "json", "color")


def changed_options(parser: argparse.ArgumentParser, args: argparse.Namespace,
                    command: str = "run") -> list[str]:
    """The options given with --resume besides those that only steer this invocation."""
    defaults = vars(parser.parse_args([command]))
    return [f"--{name.replace('_', '-')}" if len(name) > 1 else f"-{name}"
            for name, value in vars(args).items() if name not in RUN_ONLY and value != defaults.get(name)]


def run(args: argparse.Namespace) -> int:
    """``sudoku-jobs run``: the options made into a config, run by ``jobs.runner`` (pyarrow and numpy
    load here, not for ``--help``)."""
    from jobs import runner, tasks

    if args.resume and (given := changed_options(_parser(), args)):
        raise Usage(f"--resume takes the run's options from its manifest; leave out {', '.join(given)}")
    config = None if args.resume else _config(args)
    if config is not None:  # check the input before making the run directory
        lines = None
        if config.input:
            lines, digest = read_input(config.input)
            config = replace(config, input_sha256=digest)
    run_dir, config = runner.open_run(tasks.BATCH, resume=args.resume, config=config, force=args.force)
    with runner.stopping(run_dir, f"sudoku-jobs run --resume {run_dir.path}"):
        if args.resume:
            lines = _reread_input(config) if config.input else None
            backends.check(config.backend, config.scheduler, timeout=args.connect_timeout)
        specs = tasks.plan(config, lines)
        runner.setup_log(run_dir, verbose=args.verbose)
    total = sum(spec["count"] for spec in specs)
    manifest = runner.run_with_progress(run_dir, config, tasks.BATCH, specs, resume=bool(args.resume),
                                        show_progress=not args.no_progress, unit="puzzle",
                                        resume_with=f"sudoku-jobs run --resume {run_dir.path}")
    t = manifest["totals"]
    print(f"{run_dir.path}: {manifest['status']}: {t['cases']} of {total} cases saved; ok {t['ok']}, "
          f"failed {t['failed']}, rejected {t['rejected']}; {manifest['wall_s']:.1f}s", file=sys.stderr)
    if manifest["status"] == "interrupted":
        print(f"resume with: sudoku-jobs run --resume {run_dir.path}", file=sys.stderr)
        return INTERRUPTED
    if t["failed"]:
        return FAILED
    if t["rejected"]:  # malformed input: a CI job fed a bad file must not pass
        from sudoku.display import counted

        print(f"{counted(t['rejected'], 'input line')} rejected as not puzzles of the line format: "
              f"sudoku-jobs show {run_dir.path} lists them", file=sys.stderr)
        return USAGE
    return OK


def _reread_input(config: "BatchConfig") -> list[tuple[int, str, str | None]]:
    """The input's lines again, refused if the file is not the one the run began with."""
    assert config.input is not None, "a run of created puzzles has no input"
    lines, digest = read_input(config.input)
    recorded = config.input_sha256
    if recorded is not None and digest != recorded:
        raise Usage(f"--input {config.input} changed since the run began (sha256 {recorded[:12]}... then, "
                    f"{digest[:12]}... now); refusing to mix two files in one run: restore it, or start a new run")
    return lines


def show(args: argparse.Namespace) -> int:
    import json

    import pyarrow as pa

    from sudoku.display import markdown, show as show_blocks
    from jobs import manifest as manifests
    from sudoku.files import write_file
    from jobs.store import RunDir, RunDirError, WriteError
    from jobs.summary import summary_blocks, summary_data

    if args.failures < 0:
        raise Usage("--failures must be 0 or more")
    if args.json and args.md == "-":
        raise Usage("--json and --md - both want stdout: write the Markdown to a file")
    run_dir = RunDir(args.dir)
    run_dir.read_config()  # a manifest this tool wrote, of any kind
    manifest = run_dir.read_manifest()
    going = manifest.get("status") == "running" and run_dir.in_use()
    if manifest.get("status") == "running" and not going:  # killed (SIGKILL, power) mid-run
        manifest = {**manifest, "status": "stopped"}
    try:  # through a dataset: only the columns and rows it shows, part by part
        data = summary_data(manifest, run_dir.dataset(), failures_shown=args.failures)
    except (OSError, pa.ArrowException) as error:  # Arrow's message names the part
        raise RunDirError(f"{run_dir.path}: unreadable part ({error})") from None
    resume = None  # for people only: the JSON has the status and the directory is the caller's
    if data["status"] != "complete" and not going:
        resume = manifests.resume_command(manifest, run_dir.path)
    if args.md and args.md != "-":
        try:
            write_file(args.md, markdown(summary_blocks(data, resume=resume)))
        except OSError as error:
            raise WriteError(f"cannot write {args.md}: {error.strerror or error}") from None
    if args.json or args.md == "-":  # a reader that goes away (`show --json | head`): the scaffold's
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n" if args.json
                         else markdown(summary_blocks(data, resume=resume)))
        sys.stdout.flush()
    else:
        show_blocks(summary_blocks(data, resume=resume))
    return FAILED if data["totals"]["failed"] else OK


def main(argv: list[str] | None = None) -> int:
    return dispatch("sudoku-jobs", {"run": run, "show": show}, lambda: _parser().parse_args(argv), (Usage, InputError))
