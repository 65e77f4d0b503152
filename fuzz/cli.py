"""The ``fuzz`` command: run cases against a target, shrink and save failures, replay a corpus.

Exit codes: 0 no failure; 1 failures found (or a replayed reproducer still fails); 2 bad usage;
130 interrupted (finished chunks are kept: resume with --resume DIR).
"""

import argparse
import os
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
EXIT_CODES = """exit codes:
  0    no failure
  1    failures found (reproducers saved to the corpus)
  2    bad usage
  130  interrupted; finished chunks are kept (resume with --resume DIR)"""
DEFAULT_CORPUS = ".fuzz-corpus"


class Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(USAGE)


def _target_options(parser):
    parser.add_argument("--target", default="engine",
                        help="engine (our engines in-process; engine:NAME for one), cli (our `sudoku` command), "
                             "or a command such as ./sudoku or 'python3 their.py' (default engine)")
    parser.add_argument("--create-args", default="create", help="arguments that ask for a puzzle (default 'create')")
    parser.add_argument("--solve-args", default="solve", help="arguments that ask for a solution (default 'solve')")
    parser.add_argument("--format", choices=("grid", "header"), default="grid",
                        help="the target's text: grid (9 lines) or header (a first line '3', then 9 lines)")
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="generate cases, judge the target, shrink and save failures",
                         epilog="example:\n  fuzz run -n 500 --target ./their/sudoku\n\n" + EXIT_CODES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("-n", type=int, default=1000, help="cases to run (default 1000)")
    _target_options(run)
    run.add_argument("--seed", type=int, help="run seed (default: a fresh one, recorded)")
    run.add_argument("--out", help="run directory (default runs/fuzz-YYYYmmdd-HHMMSS)")
    run.add_argument("--resume", metavar="DIR", help="finish an interrupted run (options come from its manifest)")
    run.add_argument("--force", action="store_true", help="replace an existing run directory")
    run.add_argument("--corpus", default=DEFAULT_CORPUS,
                     help=f"reproducers replayed first and added to (default {DEFAULT_CORPUS})")
    run.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: one per core)")
    run.add_argument("--chunk-size", type=int, default=100, help="cases per chunk (default 100)")
    run.add_argument("--backend", default="local", help="local (default) or dask")
    run.add_argument("--scheduler", help="Dask scheduler address (default: a local cluster)")
    run.add_argument("--no-shrink", action="store_true", help="save failures as found, unshrunk")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("-v", "--verbose", action="store_true", help="log lines on stderr too")
    replay = sub.add_parser("replay", help="re-run saved reproducers against a target",
                            epilog="example:\n  fuzz replay runs/fuzz-1/corpus --target ./their/sudoku\n\n" + EXIT_CODES,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("corpus", help="a corpus directory")
    _target_options(replay)
    return parser


def _target_spec(args):
    return {"spec": args.target, "create_args": args.create_args, "solve_args": args.solve_args,
            "header": args.format == "header", "timeout": args.timeout, "max_output": args.max_output}


def _replay(corpus, target, *, strict, into=None, quiet=False):
    """Run every reproducer of ``corpus``; returns [(folder, failed oracles)] of those still failing."""
    from fuzz import corpus as store
    from fuzz.cases import from_text
    from fuzz.tasks import run_case

    still = []
    entries = store.load(corpus) if Path(corpus).exists() else []
    for folder, meta, data in entries:
        case = from_text(meta.get("family", "replay"), meta.get("command", "solve"), data)
        verdict, result = run_case(case, target, strict=strict)
        if verdict.failed:
            still.append((folder, sorted(verdict.failed)))
            if into is not None:
                oracle = meta["oracle"] if meta.get("oracle") in verdict.failed else next(iter(verdict.failed))
                store.save(into, case, oracle, verdict.failed[oracle], target, result)
        if not quiet:
            state = "FAILS " + ",".join(sorted(verdict.failed)) if verdict.failed else "passes"
            print(f"{folder}: {state}", file=sys.stderr)
    return entries, still


def replay(args):
    if not Path(args.corpus).is_dir():
        raise Usage(f"corpus {args.corpus} is not a directory")
    target = _make_target(_target_spec(args))
    entries, still = _replay(args.corpus, target, strict=args.strict)
    print(f"replayed {len(entries)} reproducers against {target.name}: {len(still)} still fail", file=sys.stderr)
    return FAILED if still else OK


def _make_target(spec):
    """The target a spec (``_target_spec``) names; a bad one is a usage error."""
    from fuzz.targets import TargetError, make_target

    try:
        return make_target(**spec)
    except TargetError as error:
        raise Usage(str(error)) from None


def run(args):
    from fuzz import tasks
    from jobs import runner
    from jobs.cli import changed_options
    from sudoku import new_seed


    if args.resume and (given := changed_options(_parser(), args)):
        raise Usage(f"--resume takes the run's options from its manifest; leave out {', '.join(given)}")
    config = None
    if not args.resume:
        if args.n < 1 or args.workers < 1 or args.chunk_size < 1:
            raise Usage("-n, --workers and --chunk-size must be at least 1")
        if args.backend not in ("local", "dask"):
            raise Usage(f"unknown backend {args.backend!r}; known: local, dask")
        if args.backend == "dask" and args.scheduler:
            from jobs.backends import check_scheduler

            check_scheduler(args.scheduler)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        out = args.out or f"runs/fuzz-{stamp}"
        config = {"kind": "fuzz", "run_id": Path(out).name, "n": args.n, "seed": new_seed() if args.seed is None
                  else args.seed, "target": _target_spec(args), "strict": args.strict, "check_engine": "py",
                  "workers": args.workers, "chunk_size": args.chunk_size, "backend": args.backend,
                  "scheduler": args.scheduler, "corpus": str(Path(args.corpus).resolve()), "out": out}
        _make_target(config["target"])  # a bad target is refused before the run directory is made
    run_dir, config = runner.open_run(resume=args.resume, config=config, force=args.force)
    target = _make_target(config["target"])
    runner.setup_log(run_dir, verbose=args.verbose)
    run_corpus = run_dir.path / "corpus"

    entries, still = _replay(config["corpus"], target, strict=config["strict"], into=run_corpus, quiet=True)
    specs = [{"run_id": config["run_id"], "chunk": chunk, "start": start, "count": min(config["chunk_size"],
              config["n"] - start), "seed": config["seed"], "target": config["target"], "strict": config["strict"],
              "check_engine": config["check_engine"]}
             for chunk, start in enumerate(range(0, config["n"], config["chunk_size"]))]
    manifest = runner.run_with_progress(run_dir, config, tasks.run_chunk, specs, resume=bool(args.resume),
                                        show_progress=not args.no_progress)
    records = run_dir.read_table()
    saved = []
    if manifest["status"] == "complete":
        saved = _save_failures(records, config, target, run_corpus, shrink_them=not args.no_shrink)
    summary = _summary(manifest, records, entries, still, saved, run_dir, run_corpus)
    (run_dir.path / "summary.md").write_text(summary + "\n")
    _print(summary)
    if manifest["status"] == "interrupted":
        print(f"resume with: fuzz run --resume {run_dir.path}", file=sys.stderr)
        return INTERRUPTED
    return FAILED if (manifest["totals"]["failed"] or still) else OK


def _save_failures(records, config, target, run_corpus, *, shrink_them):
    """Shrink the first failing case of each oracle and save it to the run's and the shared corpus."""
    import pyarrow.compute as pc

    from fuzz import corpus as store
    from fuzz import tasks
    from fuzz.cases import make_case
    from fuzz.shrink import shrink

    failed = records.filter(pc.equal(records.column("outcome"), "failed"))
    first = {}
    for row in failed.select(["case", "oracles_failed"]).to_pylist():
        for oracle in row["oracles_failed"].split(","):
            first.setdefault(oracle, row["case"])
    saved = []
    for oracle, index in sorted(first.items()):
        case = make_case(config["seed"], index, header=target.header)

        def fails(candidate):
            return set(tasks.run_case(candidate, target, strict=config["strict"])[0].failed)

        small = shrink(case, oracle, fails, header=target.header) if shrink_them else case
        verdict, result = tasks.run_case(small, target, strict=config["strict"])
        if oracle not in verdict.failed:  # flaky target: keep the original case
            small = case
            verdict, result = tasks.run_case(small, target, strict=config["strict"])
        detail = verdict.failed.get(oracle, "failed when found; passes now (flaky target)")
        folder = store.save(run_corpus, small, oracle, detail, target, result, seed=config["seed"], index=index)
        store.save(config["corpus"], small, oracle, detail, target, result, seed=config["seed"], index=index)
        saved.append((oracle, index, folder, detail))
    return saved


def _summary(manifest, records, entries, still, saved, run_dir, run_corpus):
    rows = records.select(["family", "outcome", "oracles_failed", "format_slips", "target_s", "case"]).to_pylist()
    config = manifest["config"]
    totals = manifest["totals"]
    out = [f"# fuzz run {manifest['run_id']}: {manifest['status']}",
           "",
           f"target `{config['target']['spec']}`, seed {config['seed']}, {totals['cases']} cases, "
           f"{totals['failed']} failed, {manifest['wall_s']:.1f}s wall on {config['workers']} workers",
           f"replayed {len(entries)} saved reproducers: {len(still)} still fail", "",
           "| family | cases | failed |", "|---|---:|---:|"]
    cases, fails = Counter(r["family"] for r in rows), Counter(r["family"] for r in rows if r["outcome"] == "failed")
    out += [f"| {family} | {count} | {fails[family]} |" for family, count in sorted(cases.items())]
    oracles = Counter(o for r in rows if r["oracles_failed"] for o in r["oracles_failed"].split(","))
    out += ["", "| oracle | failures |", "|---|---:|"]
    out += [f"| {oracle} | {count} |" for oracle, count in oracles.most_common()] or ["| (none) | 0 |"]
    slips = Counter(s for r in rows if r["format_slips"] for s in r["format_slips"].split(","))
    if slips:
        out += ["", "format slips (failures only with --strict): "
                + ", ".join(f"{slip} {count}" for slip, count in slips.most_common())]
    slowest = sorted((r for r in rows if r["target_s"] is not None), key=lambda r: -r["target_s"])[:5]
    out += ["", "slowest cases: " + ", ".join(f"#{r['case']} {r['family']} {r['target_s'] * 1000:.1f} ms"
                                             for r in slowest)]
    if saved:
        out += ["", "reproducers (shrunk, one per oracle):"]
        out += [f"- {oracle}: case {index}: {detail} -> {folder}" for oracle, index, folder, detail in saved]
    out += ["", f"records: {run_dir.path}/parts, {run_dir.csv_path}",
            f"summary: {run_dir.path}/summary.md (the full report: reports show {run_dir.path})",
            f"corpus: {run_corpus}" + ("" if run_corpus.exists() else " (empty: nothing failed)")]
    return "\n".join(out)


def _print(text):
    """Print to stdout; a reader that went away (``fuzz run ... | head``) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")


def main(argv=None):
    from jobs.backends import BackendError
    from jobs.store import RunDirError

    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print("fuzz: a command is needed: run or replay (see fuzz --help)", file=sys.stderr)
        return USAGE
    try:
        return {"run": run, "replay": replay}[args.command](args)
    except (Usage, RunDirError, BackendError) as error:
        print(f"fuzz: {error}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        return INTERRUPTED
