"""The ``fuzz`` command: run cases against a target, shrink and save failures, replay a corpus.

Exit codes: 0 no failure; 1 failures found (or a replayed reproducer still fails); 2 bad usage or a
target that cannot start; 3 an I/O error; 4 a worker or the backend failed mid-run; 130 interrupted
(finished chunks are kept: resume with --resume DIR).
"""

import argparse
import os
import shlex
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from jobs.entry import FAILED, INTERRUPTED, OK, USAGE, dispatch

EXIT_CODES = """exit codes:
  0    no failure
  1    failures found (reproducers saved to the corpus)
  2    bad usage, or a target that cannot start
  3    an I/O error (disk full, read-only, ...); finished chunks are kept (resume with --resume DIR)
  4    a worker or the backend failed mid-run; finished chunks are kept (resume with --resume DIR)
  130  interrupted; finished chunks are kept (resume with --resume DIR)"""
DEFAULT_CORPUS = ".fuzz-corpus"
MAX_TARGETS = 1000  # each target costs a pre-flight (two calls) before the run starts
MAX_TARGETS_BYTES = 1 << 20  # a --targets file of a thousand long commands is well under this
PROGRESS_S = 10.0  # seconds between the pre-flight's progress lines
REFERENCE_TRIES = 6  # a reference failing 1 call in 3 at random is refused once in 729 runs


class Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(USAGE)


def _three_words(text):
    words = [word.strip() for word in text.split(",")]
    if len(words) != 3 or not all(words) or len({word.lower() for word in words}) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: three different words, comma-separated")
    return words


def _three_codes(text):
    try:
        codes = [int(code) for code in text.split(",")]
    except ValueError:
        codes = []
    if len(codes) != 3 or len(set(codes)) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: three different exit codes, comma-separated")
    return codes


def _target_options(parser, *, many=False):
    what = ("engine (our engines in-process; engine:NAME for one), cli (our `sudoku` command), or a command such "
            "as ./sudoku or 'python3 their.py' (default engine)")
    if many:
        parser.add_argument("--target", action="append", help=what + "; give it again for more targets: the same "
                            "cases go to every one")
        parser.add_argument("--targets", metavar="FILE", help="more targets, one command per line ('#' comments)")
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
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per call (default 5)")
    parser.add_argument("--max-output", type=int, default=1 << 20, help="bytes of output kept per call (default 1 MiB)")
    parser.add_argument("--strict", action="store_true", help="count output format slips as failures")


def _parser():
    parser = _Parser(prog="fuzz", description="Fuzz a `sudoku` program (create/solve contract): find bugs, "
                     "shrink them to minimal reproducers.",
                     epilog="examples:\n  fuzz run -n 10000\n  fuzz run -n 500 --target cli\n"
                            "  fuzz run -n 500 --target ./their/sudoku\n"
                            "  fuzz run -n 500 --target 'python3 their.py' --create-args 'create easy' --format header\n"
                            "  fuzz replay runs/fuzz-1/corpus --target ./their/sudoku\n\n" + EXIT_CODES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    from sudoku.version import add_version_option

    add_version_option(parser, "fuzz")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="generate cases, judge the target, shrink and save failures",
                         epilog="example:\n  fuzz run -n 500 --target ./their/sudoku\n\n" + EXIT_CODES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("-n", type=int, default=1000, help="cases to run (default 1000), against each target")
    _target_options(run, many=True)
    run.add_argument("--mode", choices=("solve", "check"), default="solve",
                     help="solve: the create/solve contract (default); check: a checker that reads a grid and "
                          "says complete, incomplete or invalid")
    run.add_argument("--size", choices=("4", "9", "16", "25", "mixed"), default="9",
                     help="grid side of the cases (default 9); mixed draws one per case. A --create-args with "
                          "{size} or {box} in it is told the size ('create easy {size}')")
    run.add_argument("--seed", type=int, help="run seed (default: a fresh one, recorded)")
    run.add_argument("--out", help="run directory (default runs/fuzz-YYYYmmdd-HHMMSS)")
    run.add_argument("--resume", metavar="DIR", help="finish an interrupted run (options come from its manifest)")
    run.add_argument("--force", action="store_true", help="replace an existing run directory")
    run.add_argument("--corpus", default=DEFAULT_CORPUS,
                     help=f"reproducers replayed first and added to (default {DEFAULT_CORPUS})")
    run.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: one per core)")
    run.add_argument("--chunk-size", type=int, help="cases per chunk, each against every target (default: about "
                     "100 target calls a chunk, in a multiple of --workers chunks)")
    run.add_argument("--reference", metavar="CMD", help="a trusted program whose answers stand in for our engine's "
                     "as the expected ones (solve and check cases; run with the same options as the targets); a "
                     "case it fails on (crash, hang, broken answer) is not compared, and counted")
    run.add_argument("--backend", default="local", help="local (default) or dask")
    run.add_argument("--scheduler", help="Dask scheduler address (default: a local cluster)")
    run.add_argument("--connect-timeout", type=float, default=10.0, metavar="S",
                     help="seconds to wait for the Dask scheduler's answer (default 10)")
    run.add_argument("--no-shrink", action="store_true", help="save failures as found, unshrunk")
    run.add_argument("--md", metavar="FILE", help="write the whole Markdown summary here too ('-': to stdout "
                     "instead of the short one); it is always in the run's summary.md")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("-v", "--verbose", action="store_true", help="log lines on stderr too")
    probe = sub.add_parser("probe", help="find the arguments and text format that make a program work",
                           description="Try the usual spellings of create and solve (and the input formats) "
                                       "on a program and print the `fuzz run` options that it understands.",
                           epilog="example:\n  fuzz probe --target ./their/sudoku\n\nexit codes:\n  0    a way "
                                  "to create and to solve was found\n  1    none was found for one of them\n"
                                  "  2    bad usage", formatter_class=argparse.RawDescriptionHelpFormatter)
    probe.add_argument("--target", required=True, help="the program, e.g. ./sudoku or 'python3 their.py'")
    probe.add_argument("--timeout", type=float, default=5.0, help="seconds per call (default 5)")
    replay = sub.add_parser("replay", help="re-run saved reproducers against a target",
                            epilog="example:\n  fuzz replay runs/fuzz-1/corpus --target ./their/sudoku\n\n" + EXIT_CODES,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("corpus", metavar="PATH", help="reproducers to replay: a corpus, a target's, oracle's or "
                        "bug's folder in it, or a run directory")
    _target_options(replay)
    replay.add_argument("--reference", metavar="CMD", help="a trusted program whose answers are the expected ones, "
                        "as in `fuzz run --reference` (the replay line of a run with one names it)")
    return parser


def _target_spec(args, spec=None):
    return {"spec": args.target if spec is None else spec, "create_args": args.create_args,
            "solve_args": args.solve_args, "header": args.format == "header", "timeout": args.timeout,
            "max_output": args.max_output, "check_args": args.check_args}


def _target_specs(args):
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
    return [_target_spec(args, name) for name in names]


def _check_command_options(args):
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


def _targets_file(path):
    """The commands of a --targets file (one a line, '#' comments), each split to check it; a file
    larger than MAX_TARGETS_BYTES is refused unread, a line that cannot be split names its line."""
    from fuzz.commands import BadCommand, split
    from jobs.display import visible

    shown = visible(path, newlines=False)
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_TARGETS_BYTES + 1)
        if len(data) > MAX_TARGETS_BYTES:
            raise Usage(f"--targets {shown}: larger than {MAX_TARGETS_BYTES} bytes, not a list of commands")
        lines = data.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise Usage(f"cannot read --targets {shown}: {getattr(error, 'strerror', None) or error}") from None
    names = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if line and not line.startswith("#"):
            try:
                split(line, f"{shown} line {number}")
            except BadCommand as error:
                raise Usage(str(error)) from None
            names.append(line)
    return names


def targets_of(config):
    """A run's target specs (runs from before several targets had one)."""
    return config.get("targets") or [config["target"]]


def _replay_entries(entries, target, *, strict, into=None, quiet=False, words=None, exits=None, reference=None):
    """Run saved reproducers; [(folder, signature now)] of those that still fail. With a ``reference``
    target its answers are the expected ones, as in the run; a case it fails on is judged only for
    hangs, floods and crashes."""
    from fuzz import corpus as store
    from fuzz.cases import CountUnknown, from_text
    from jobs.display import visible
    from fuzz.oracles import judge_contained, oracles_of
    from fuzz.reference import answer, asks
    from fuzz.tasks import run_case, signature_of
    from jobs.display import visible

    still = []
    for folder, meta, data in entries:
        try:
            case = from_text(meta.get("family", "replay"), meta.get("command", "solve"), data, side=meta.get("side", 9))
        except CountUnknown as error:
            print(f"{visible(str(folder))}: skipped: {error}", file=sys.stderr)
            continue
        expected = case
        if reference is not None and asks(case):
            expected = answer(case, reference, header=target.header, words=words, exits=exits)
        if expected is None:  # the reference failed on it: nothing to compare with
            result = target.check(case.text) if case.command == "check" else target.solve(case.text)
            verdict = judge_contained(result)
        else:
            case = expected
            verdict, result = run_case(case, target, strict=strict, words=words, exits=exits)
        now = signature_of(case, verdict, result)
        if now:
            still.append((folder, now))
            if into is not None:
                oracle = oracles_of(now)[0]
                store.save(into, case, signature=now, oracle=oracle, detail=verdict.failed[oracle].detail,
                           target=target, result=result, extra={"replayed_from": str(folder)})
        if not quiet:
            if now is None:
                state = "passes" + (" (the reference failed on it: judged only for hangs, floods and crashes)"
                                    if expected is None else "")
            elif now == meta.get("signature"):
                state = f"FAILS the same way: {now}"
            else:
                state = f"FAILS: {now}"
            print(f"{visible(str(folder), newlines=False)}: {visible(state, newlines=False)}", file=sys.stderr)
    return still


def replay(args):
    from fuzz import corpus as store

    from jobs.display import visible

    _check_command_options(args)
    target = _make_target(_target_spec(args))
    path = Path(args.corpus)
    if not path.exists():
        raise Usage(f"{visible(str(path), newlines=False)} does not exist")
    entries = _loaded(store.load(path))
    if not entries:
        raise Usage(f"no reproducers under {visible(str(path), newlines=False)} (a reproducer is a folder with "
                    "case.json and input.txt)")
    keys = sorted({meta.get("target_key") for _, meta, _ in entries} - {None})
    if len(keys) > 1:
        mine = store.target_key(target)
        if mine not in keys:
            raise Usage(f"{path} holds reproducers of {len(keys)} targets ({', '.join(keys)}), none of them "
                        f"{target.name}; name the folder of the one to replay")
        entries = [entry for entry in entries if entry[1].get("target_key") in (mine, None)]
    reference = None
    if args.reference:
        first = entries[0][1]
        reference = _check_reference(_target_spec(args, args.reference), first.get("side", 9), mode="check"
                                     if first["command"] == "check" else "solve", words=args.verdict_words,
                                     exits=args.verdict_exit)
    still = _replay_entries(entries, target, strict=args.strict, words=args.verdict_words, exits=args.verdict_exit,
                            reference=reference)
    print(f"replayed {len(entries)} reproducers against {visible(target.name, newlines=False)}: {len(still)} still "
          "fail", file=sys.stderr)
    return FAILED if still else OK


def probe(args):
    from fuzz.probe import options, probe as find

    def make(create_args, solve_args, header):
        return _make_target({"spec": args.target, "create_args": create_args, "solve_args": solve_args,
                             "header": header, "timeout": args.timeout, "max_output": 1 << 20})

    from jobs.display import visible

    if (problem := _preflight(make("create", "solve", False), 9)) is not None:
        raise Usage(f"target {visible(args.target, newlines=False)} cannot start: {problem}")
    finding = find(make)
    for what, outcome in finding.tried:
        print(f"  {what}: {outcome}", file=sys.stderr)
    if finding.create_args is None or finding.solve_args is None:
        missing = " and ".join(name for name, value in (("create", finding.create_args),
                                                        ("solve", finding.solve_args)) if value is None)
        _print(f"no way found to {missing} with {args.target} (tried the spellings above)")
        return FAILED
    found = options(finding)
    _print(f"fuzz run --target {shlex.quote(args.target)}" + (f" {found}" if found else "")
           + ("" if found else "   # the defaults work"))
    return OK


def _make_target(spec, where="--target"):
    """The target a spec (``_target_spec``) names; a bad one is a usage error (``where`` names the
    option it came from)."""
    from fuzz.targets import TargetError, make_target

    try:
        return make_target(**spec, where=where)
    except TargetError as error:
        raise Usage(str(error)) from None


def _preflight(target, side, mode="solve", *, timing=None):
    """What stops ``target`` from starting at all (a missing program, interpreter or script), in its
    own words, from one known-good solve and one create; None when it starts. The wall seconds of
    each call are added to ``timing`` (a list) when one is given: they size the run's chunks."""
    from fuzz.cases import known_good
    from fuzz.targets import startup_failure

    if not hasattr(target, "argv"):
        return None
    text = known_good(header=target.header, side=side)
    calls = (lambda: target.check(text),) if mode == "check" else (lambda: target.solve(text),
                                                                   lambda: target.create(side=side))
    for call in calls:
        result = call()
        if timing is not None:
            timing.append(result.seconds)
        problem = startup_failure(result)
        if problem:
            return problem
    return None


def run(args):
    import pyarrow.compute as pc

    from fuzz import tasks
    from jobs import runner
    from jobs.cli import changed_options
    from sudoku import new_seed

    if args.resume and (given := changed_options(_parser(), args)):
        raise Usage(f"--resume takes the run's options from its manifest; leave out {', '.join(given)}")
    config = None
    if not args.resume:
        if args.n < 1 or args.workers < 1 or (args.chunk_size is not None and args.chunk_size < 1):
            raise Usage("-n, --workers and --chunk-size must be at least 1")
        if args.backend not in ("local", "dask"):
            raise Usage(f"unknown backend {args.backend!r}; known: local, dask")
        if args.backend == "dask" and args.scheduler:
            from jobs.backends import check_scheduler

            check_scheduler(args.scheduler, timeout=args.connect_timeout)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        out = args.out or f"runs/fuzz-{stamp}"
        specs = _target_specs(args)
        config = {"kind": "fuzz", "run_id": Path(out).name, "n": args.n, "seed": new_seed() if args.seed is None
                  else args.seed, "target": specs[0], "targets": specs, "strict": args.strict,
                  "check_engine": "band" if args.size == "9" else "py", "workers": args.workers,
                  "chunk_size": None,
                  "reference": _target_spec(args, args.reference) if args.reference else None,
                  "backend": args.backend, "scheduler": args.scheduler, "corpus": str(Path(args.corpus).resolve()),
                  "out": out, "size": args.size, "mode": args.mode, "verdict_words": args.verdict_words,
                  "verdict_exit": args.verdict_exit}
        # before the run directory is made: a lone target that cannot start ends the run now; of several,
        # it is marked so in the summary and the others go on
        timing = []
        config["cannot_start"] = _cannot_start(specs, 9 if args.size == "mixed" else int(args.size), args.mode,
                                               timing=timing)
        config["chunk_size"] = chunk_cases(args.n, len(specs), args.workers, args.chunk_size,
                                           seconds_per_case=sum(timing) / max(len(timing), 1) * len(specs)
                                           if timing else None)
        if len(config["cannot_start"]) == len(specs):
            raise Usage("; ".join(f"target {name} cannot start: {why}" for name, why in config["cannot_start"].items()))
        if config["reference"]:
            _check_reference(config["reference"], 9 if args.size == "mixed" else int(args.size), mode=args.mode,
                             words=args.verdict_words, exits=args.verdict_exit)
    run_dir, config = runner.open_run(tasks.FUZZ, resume=args.resume, config=config, force=args.force)
    runner.setup_log(run_dir, verbose=args.verbose)
    run_corpus = run_dir.path / "corpus"
    started = time.monotonic()
    running = [spec for spec in targets_of(config) if spec["spec"] not in config.get("cannot_start", {})]
    targets = [(number, spec, _make_target(spec)) for number, spec in enumerate(running)]
    replayed, still = 0, []
    for _, _, target in targets:
        entries, failing = _replay_own(config, target, run_corpus)
        replayed, still = replayed + entries, still + failing
    replay_s = time.monotonic() - started
    specs = tasks.plan(config, [(number, spec) for number, spec, _ in targets])
    manifest = runner.run_with_progress(run_dir, config, tasks.run_chunk, specs, resume=bool(args.resume),
                                        show_progress=not args.no_progress)
    records = run_dir.read_table()
    saved, triage_s = [], 0.0
    if manifest["status"] == "complete":
        start = time.monotonic()
        # shrinking and confirming get at most as long as the cases took, shared among the targets
        allowed = max(manifest["wall_s"], 10.0) / max(1, len(targets))
        try:
            for number, spec, target in targets:
                mine = records.filter(pc.equal(records.column("target"), target.name))
                saved += _triage(mine, {**config, "target": spec, "stride": len(targets)}, target, run_corpus,
                                 shrink_them=not args.no_shrink, show_progress=not args.no_progress,
                                 seconds=allowed)
        except KeyboardInterrupt:  # the groups finished are saved: a resume triages only the others
            manifest.update(status="interrupted", reason="interrupted while shrinking and confirming")
        triage_s = time.monotonic() - start
        manifest["fuzz"] = {"groups": [_group_record(one) for one in saved], "replayed": replayed,
                            "replayed_still_fail": len(still), "replay_s": replay_s, "triage_s": triage_s,
                            "targets": _target_rows(config, records, saved),
                            "differential": _differential(config, records)}
        run_dir.write_manifest(manifest)
    summary, short = _summary(manifest, records, replayed, still, saved, run_dir, run_corpus,
                              phases={"replaying saved reproducers": replay_s, "shrinking and confirming": triage_s})
    _write(run_dir.path / "summary.md", summary + "\n")
    if args.md and args.md != "-":
        _write(Path(args.md), summary + "\n")
    if args.md == "-":
        _print(summary)
    else:
        from jobs.display import show

        show(short)
    if manifest["status"] == "interrupted":
        print(f"resume with: fuzz run --resume {run_dir.path}", file=sys.stderr)
        return INTERRUPTED
    return FAILED if (manifest["totals"]["failed"] or still or config.get("cannot_start")) else OK


def _cannot_start(specs, side, mode="solve", *, timing=None):
    """{target: why} for the targets that cannot start at all: a program that is missing, not
    executable or not on PATH, or one that fails ``_preflight``. Of many targets, progress is shown
    every PROGRESS_S seconds, as the pre-flight of a long list takes minutes."""
    from fuzz.targets import CannotStart, TargetError, make_target

    found, shown = {}, time.monotonic()
    for number, spec in enumerate(specs, 1):
        try:
            problem = _preflight(make_target(**spec), side, mode, timing=timing)
        except CannotStart as error:
            problem = str(error)
        except TargetError as error:
            raise Usage(str(error)) from None
        if problem:
            found[spec["spec"]] = problem
        if time.monotonic() - shown >= PROGRESS_S and number < len(specs):
            shown = time.monotonic()
            print(f"fuzz: pre-flight: {number} of {len(specs)} targets tried, {len(found)} cannot start",
                  file=sys.stderr, flush=True)
    return found


def _check_reference(spec, side, *, mode, words, exits):
    """Refuse a --reference that cannot start, or that does not answer the pre-flight's known-good
    puzzle rightly: its answers would stand in for the expected ones and fail correct targets.

    A reference that crashes or prints a broken grid now and then is still of use (the cases it fails
    on are not compared), so it is asked up to REFERENCE_TRIES times and refused only when it never
    answers rightly, or at once when it hangs or gives a clean wrong answer."""
    from fuzz.cases import from_text, known_good
    from fuzz.oracles import VERDICTS
    from fuzz.reference import AGREES, OVERRULED, expect
    from jobs.display import visible

    reference = _make_target(spec, "--reference")
    shown = visible(spec["spec"], newlines=False)
    if (problem := _preflight(reference, side, mode)) is not None:
        raise Usage(f"reference {shown} cannot start: {visible(problem, newlines=False)}")
    text = known_good(header=reference.header, side=side)
    case = from_text("preflight", mode, text, side=side)
    for _ in range(REFERENCE_TRIES):
        found = expect(case, reference, words=words or VERDICTS, exits=exits)
        if found.note is AGREES:
            return reference
        if found.note == OVERRULED or found.detail.endswith("timeout"):
            break
    raise Usage(f"reference {shown} does not answer the known-good {side}x{side} puzzle rightly: "
                f"{visible(found.detail, newlines=False)}")


def _replay_own(config, target, run_corpus):
    """Replay the shared corpus's reproducers of ``target``: (how many, those still failing)."""
    from fuzz import corpus as store

    own = Path(config["corpus"]) / store.target_key(target)
    entries = _loaded(store.load(own))
    reference = _make_target(config["reference"], "--reference") if config.get("reference") else None
    return len(entries), _replay_entries(entries, target, strict=config["strict"], into=run_corpus, quiet=True,
                                         words=config.get("verdict_words"), exits=config.get("verdict_exit"),
                                         reference=reference)


def _loaded(found):
    """The entries of a corpus ``load``, after one line on stderr for each entry skipped (escaped:
    a folder's name is the corpus writer's)."""
    from jobs.display import visible

    for folder, why in found.skipped:
        print(f"fuzz: skipped {visible(str(folder), newlines=False)}: {visible(why, newlines=False)}",
              file=sys.stderr)
    return found.entries


CHUNK_SECONDS = 2.0  # work per chunk against programs: progress moves and an interrupt loses about this much


def chunk_cases(n, targets, workers, chunk_size=None, *, seconds_per_case=None):
    """Cases per chunk (each asked of every target). Asked for: ``chunk_size``. Else about 100 target
    calls a chunk, and against programs (``seconds_per_case``: the pre-flight's calls, every target
    together) no more than CHUNK_SECONDS of work, so the progress bar moves case by case and Ctrl-C
    keeps all but the last seconds of each worker (a slow program at 100 calls a chunk held the bar
    at 0/400 for 73 s, and an interrupt lost all of it); in a number of chunks that is a multiple of
    the workers, so no worker waits alone on the last one (3 targets x 300 cases on 2 workers: 10
    chunks of 30 cases, not 9 and a stray)."""
    if chunk_size:
        return chunk_size
    most = max(1, 100 // max(targets, 1))
    if seconds_per_case:
        most = max(1, min(most, int(CHUNK_SECONDS / seconds_per_case)))
    rounds = -(-n // (workers * most))
    return max(1, -(-n // (workers * rounds)))


def _target_rows(config, records, saved):
    """One row per target for the summary's matrix: cases, failing cases per oracle, slips, bugs."""
    import pyarrow.compute as pc

    rows = []
    for spec in targets_of(config):
        name = spec["spec"]
        why = config.get("cannot_start", {}).get(name)
        if why:
            rows.append({"target": name, "status": "cannot start", "detail": why})
            continue
        mine = records.filter(pc.equal(records.column("target"), _make_target(spec).name)).select(
            ["outcome", "oracles_failed", "format_slips", "notes"]).to_pylist()
        failing = Counter(o for r in mine if r["oracles_failed"] for o in r["oracles_failed"].split(","))
        rows.append({"target": name, "status": "failed" if failing else "ok", "cases": len(mine),
                     "failed": sum(r["outcome"] == "failed" for r in mine), "oracles": dict(failing),
                     "slips": sum(1 for r in mine if r["format_slips"]),
                     "differs": sum(1 for r in mine if "differs" in (r["notes"] or "").split(",")),
                     "bugs": sum(1 for one in saved if one.target == name)})
    return rows


def _differential(config, records):
    """What the differential check and the reference found, per case of the run (not per target row):
    puzzles with one solution compared across targets, the targets named as differing on each, the
    cases where all targets agreed against the expected answer, and the reference's failures and
    overrulings. None when the run had one target and no reference."""
    stride = len([spec for spec in targets_of(config) if spec["spec"] not in config.get("cannot_start", {})])
    if stride < 2 and not config.get("reference"):
        return None
    rows = records.select(["case", "family", "solutions", "target", "notes"]).to_pylist()
    notes = [(row, set((row["notes"] or "").split(","))) for row in rows]

    def cases_with(note):
        return len({row["case"] // stride for row, have in notes if note in have})

    found = {"targets": stride,
             "compared": len({row["case"] // stride for row in rows if row["solutions"] == 1
                              and row["family"] not in ("create", "roundtrip")}) if stride > 1 else 0,
             "differs": dict(Counter(row["target"] for row, have in notes if "differs" in have)),
             "differs_cases": cases_with("differs"), "oracle_doubted": cases_with("oracle_doubted")}
    if config.get("reference"):
        found["reference"] = {"spec": config["reference"]["spec"],
                              "asked": len({row["case"] // stride for row in rows
                                            if row["family"] not in ("create", "roundtrip")}),
                              "failed": cases_with("reference_failed"), "overruled": cases_with("reference_overruled")}
    return found


def _differential_lines(found, code=None):
    """The summary's lines for ``_differential``'s findings: Markdown, or with ``code`` (how to show a
    command, e.g. jobs.display.visible) the plain lines of the terminal summary."""
    if not found:
        return []
    from jobs.display import md_code

    plain = code is not None
    code = code or md_code
    expected = "the reference" if "reference" in found else "our engine"
    out = [] if plain else ["## Differential check", ""]
    if found["targets"] > 1:
        named = ", ".join(f"{code(target)} on {count}" for target, count in sorted(found["differs"].items()))
        named = named or "none"
        out.append(f"{found['compared']} puzzles with one solution, each asked of {found['targets']} targets: "
                   f"a target's grid differed from another's and from {expected}'s on {found['differs_cases']} "
                   f"(named: {named}); all targets agreed against {expected} on {found['oracle_doubted']}"
                   + (" (the expected answer may be wrong there)" if found["oracle_doubted"] else ""))
    if "reference" in found:
        ref = found["reference"]
        out.append(f"reference {code(ref['spec'])}: asked {ref['asked']} cases; it failed on {ref['failed']} (not "
                   f"compared: only hangs, floods and crashes judged there); it overruled our engine on "
                   f"{ref['overruled']}")
    return out if plain else out + [""]


def _triage(records, config, target, run_corpus, *, shrink_them, show_progress, seconds=None):
    """Group the run's failures into bugs, shrink and confirm one reproducer each (triage.triage, in
    about ``seconds``), with a progress bar on a terminal and log lines otherwise."""
    import logging

    from fuzz.triage import groups, triage

    total = len(groups(records))
    if not total:
        return []
    log = logging.getLogger("jobs.fuzz")
    log.warning("shrinking and confirming %d distinct failures", total)
    bar = None
    if show_progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, unit="bug", desc="shrinking", file=sys.stderr)

    started = time.monotonic()

    def progress(done, total):
        if bar:
            bar.update(1)
        else:
            each = (time.monotonic() - started) / max(done, 1)
            log.warning("shrunk and confirmed %d of %d distinct failures, %.1fs each, about %.0fs left", done, total,
                        each, each * (total - done))

    try:
        return triage(records, config, target, [run_corpus, config["corpus"]], shrink_them=shrink_them,
                      progress=progress, seconds=seconds)
    finally:
        if bar:
            bar.close()


def _group_record(one):
    """A Saved group as JSON for the manifest (where ``reports`` finds it)."""
    return {"target": one.target, "signature": one.signature, "cases": one.cases, "case": one.case,
            "folder": str(one.folder),
            "detail": one.detail, "confirmed": one.confirmed, "flaky": one.flaky, "intermittent": one.intermittent,
            "replay": one.replay, "input": shown_input(one.text), "text": one.text.decode("utf-8", "backslashreplace"),
            "families": one.families, "also": one.also, "side": one.side, "expected": one.expected,
            "actual": one.actual, "mark": one.mark, "shrink_note": one.note}


def _matrix(rows):
    """The targets-by-oracles table: failing cases per oracle, format slips, distinct bugs, status."""
    from jobs.display import md_code, md_text

    oracles = sorted({oracle for row in rows for oracle in row.get("oracles", {})})
    out = ["## Targets", "", "| target | status | cases | failed | " + "".join(f"{o} | " for o in oracles)
           + "differs | format slips | bugs |", "|---|---|---:|---:|" + "---:|" * len(oracles) + "---:|---:|---:|"]
    for row in rows:
        if row["status"] == "cannot start":
            out.append(f"| {md_code(row['target'])} | cannot start: {md_text(row['detail'])} |"
                       + " |" * (len(oracles) + 5))
            continue
        cells = "".join(f"{row['oracles'].get(o, 0) or ''} | " for o in oracles)
        out.append(f"| {md_code(row['target'])} | {row['status']} | {row['cases']} | {row['failed']} | {cells}"
                   f"{row.get('differs', 0) or ''} | {row['slips']} | {row['bugs']} |")
    return out + [""]


def _matrix_table(rows):
    """The targets-by-oracles table for the terminal (``_matrix`` is the Markdown one)."""
    from jobs.display import Table

    oracles = sorted({oracle for row in rows for oracle in row.get("oracles", {})})
    table = Table(["target", "status", "cases:", "failed:", *(f"{o}:" for o in oracles), "differs:", "slips:",
                   "bugs:"])
    for row in rows:
        if row["status"] == "cannot start":
            table.add(row["target"], f"cannot start: {row['detail']}", *[""] * (len(oracles) + 5))
        else:
            table.add(row["target"], row["status"], row["cases"], row["failed"],
                      *(row["oracles"].get(o, 0) or "" for o in oracles), row.get("differs", 0) or "", row["slips"],
                      row["bugs"])
    return table


def shown_input(text, *, width=400, rows=12):
    """A reproducer's input for people: whole when short (with \\r, \\t and control bytes visible),
    else its start and its length."""
    from jobs.display import visible

    shown = visible(text)
    if len(shown) <= width and shown.count("\n") <= rows:
        return shown
    return shown[:80] + f"... ({len(text)} bytes)"


def _summary(manifest, records, replayed, still, saved, run_dir, run_corpus, *, phases):
    """The run's summary twice: whole, as Markdown (summary.md, ``--md``), and short, as ``jobs.display``
    blocks for stdout: counts, each bug with its replay line, failures per oracle, where the rest is.
    A target's text (details, inputs, names) is escaped for each medium."""
    from fuzz.show import bug_lines
    from jobs.display import md_block, md_code, md_text, visible

    rows = records.select(["family", "outcome", "oracles_failed", "format_slips", "notes", "target_s", "case"]
                          ).to_pylist()
    config = manifest["config"]
    totals = manifest["totals"]
    wall = manifest["wall_s"] + sum(phases.values())
    spent = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in phases.items() if seconds >= 0.05)
    several = len(targets_of(config)) > 1
    head = f"fuzz run {manifest['run_id']}: {manifest['status']}"
    counts = (f"{totals['cases']} cases, {totals['failed']} failed, {len(saved)} distinct bugs; {wall:.1f}s wall on "
              f"{config['workers']} workers" + (f" (cases {manifest['wall_s']:.1f}s, {spent})" if spent else ""))
    replays = f"replayed {replayed} saved reproducers: {len(still)} still fail"
    out = [f"# {md_text(head)}", "",
           (f"{len(targets_of(config))} targets" if several else f"target {md_code(config['target']['spec'])}")
           + f", seed {config['seed']}, " + counts, replays, ""]
    short = [head, (f"{len(targets_of(config))} targets" if several else f"target {config['target']['spec']}")
             + f", seed {config['seed']}, " + counts, replays]
    if several:
        matrix = manifest.get("fuzz", {}).get("targets") or _target_rows(config, records, saved)
        out += _matrix(matrix)
        short.append(_matrix_table(matrix))
    found = manifest.get("fuzz", {}).get("differential") or _differential(config, records)
    out += _differential_lines(found)
    short += [f"differential check: {line}" for line in _differential_lines(found, code=visible)]
    if saved:
        out += [f"## {len(saved)} distinct bugs", ""]
        short.append(f"{len(saved)} distinct bugs:")
        for number, one in enumerate(saved, 1):
            state = (f"FLAKY: failed the same way in {one.confirmed} of 3 replays" if one.flaky
                     else "confirmed in 3 of 3 replays")
            if one.intermittent:
                state += f"; intermittent ({one.intermittent})"
            who = f"{one.target}: " if several else ""
            cases = f"{one.cases} case{'s' if one.cases != 1 else ''}"
            out.append(f"{number}. {md_code(who) if several else ''}**{md_text(one.signature)}**: {cases}; "
                       f"{md_text(one.detail)} ({state})")
            if one.text:
                out += ["", "   input:", ""] + [f"   {line}" for line in md_block(shown_input(one.text)).split("\n")] \
                    + [""]
            out += [f"   replay: {md_code(one.replay)}", ""]
            short += bug_lines(one, number, several=several)
    out += ["| family | cases | failed |", "|---|---:|---:|"]
    cases, fails = Counter(r["family"] for r in rows), Counter(r["family"] for r in rows if r["outcome"] == "failed")
    out += [f"| {md_text(family)} | {count} | {fails[family]} |" for family, count in sorted(cases.items())]
    oracles = Counter(o for r in rows if r["oracles_failed"] for o in r["oracles_failed"].split(","))
    out += ["", "| oracle | failures |", "|---|---:|"]
    out += [f"| {md_text(oracle)} | {count} |" for oracle, count in oracles.most_common()] or ["| (none) | 0 |"]
    short.append("failures per oracle: " + (", ".join(f"{oracle} {count}" for oracle, count in oracles.most_common())
                                            or "none"))
    slips = Counter(s for r in rows if r["format_slips"] for s in r["format_slips"].split(","))
    if slips:
        line = "format slips (failures only with --strict): " + ", ".join(
            f"{slip} {count}" for slip, count in slips.most_common())
        out += ["", md_text(line)]
        short.append(line)
    notes = Counter(n for r in rows if r["notes"] for n in r["notes"].split(","))
    if notes:
        line = "notes (not failures): " + ", ".join(f"{note} {count}" for note, count in notes.most_common())
        out += ["", md_text(line)]
        short.append(line)
    slowest = sorted((r for r in rows if r["target_s"] is not None), key=lambda r: -r["target_s"])[:5]
    out += ["", "slowest cases: " + ", ".join(f"#{r['case']} {md_text(r['family'])} {r['target_s'] * 1000:.1f} ms"
                                             for r in slowest)]
    where = [f"records: {run_dir.path}/parts, {run_dir.csv_path}",
             f"summary: {run_dir.path}/summary.md (with plots: reports show {run_dir.path} --html report.html)",
             f"corpus: {run_corpus}" + ("" if run_corpus.exists() else " (empty: nothing failed)")]
    return "\n".join(out + [""] + where), short + where


def _write(path, text):
    """Write a file of the run; the OS refusing is one line and exit 3, as for the runner's files."""
    from jobs.store import WriteError

    try:
        path.write_text(text)
    except OSError as error:
        raise WriteError(f"cannot write {path}: {error.strerror or error}") from None


def _print(text):
    """Print to stdout; a reader that went away (``fuzz run ... | head``) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")


def main(argv=None):
    return dispatch("fuzz", {"run": run, "replay": replay, "probe": probe}, _parser().parse_args(argv), (Usage,))
