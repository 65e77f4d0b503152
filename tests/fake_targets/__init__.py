"""Fake `sudoku` programs for the fuzz tests, and how the tests start them and ``fuzz``.

Each script here is a program to the contract (``_contract.main``) with exactly one piece swapped
for a buggy one (its docstring names the bug and the oracle that should catch it). The ``CLEAN``
ones have no bug but are as messy as real programs are (``../shared/CONTRACT.md``): chatty or boxed
output, a strict reader, randomly slow answers, a daemon left behind on every call. They run as ``python -S SCRIPT``: ``-S`` skips ``site``,
which costs several times a whole fake call on our machines, and the fakes need only the repo.
``c_overread/`` is a C program the way students write them (a Makefile, two files, errors on stdout,
a ``create`` that shuffles one puzzle) that reads past a table on a ``10``: the tests that need it
copy and build it (``test_fuzz_sanitize``). ``c_sibling/`` is a team's layout: ``sudoku/Makefile``
builds from ``../common`` (board I/O) and ``../solve`` (a right solver and generator) through
``VPATH`` and ``-I``; planted: ``givens_ok`` in ``sudoku/main.c`` indexes ``found[v]`` before the
values' range is checked (a -1, a 10 and a 123456789 reach one line: an underflow, an overflow and
a SEGV under ASan), and ``read_board`` leaks its line buffer on every rejected input (``--leaks``).
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PLANTED = ("changes_given", "invalid_on_multiple", "non_unique_create", "few_blanks", "same_puzzle",
           "hangs_near_empty", "errors_on_stdout", "crash_no_final_newline", "keeps_out_of_range",
           "sometimes_non_unique", "sometimes_few_blanks", "random_hang", "wrong_unique", "shuffled_create",
           "full_taken_as_solved", "saves_board")
# Two bugs in two places, each its own group and reproducer (test_fuzz_triage).
TWO_BUGS = ("lenient_echo",)
CLEAN = ("correct", "chatty", "boxed", "strict_whitespace", "slow_correct", "setsid_daemon", "reversed_digits")
# For --reference: a program to another contract (a full grid refused), and a right solver that
# crashes or prints a broken grid on a third of its calls.
REFERENCES = ("rejects_full", "flaky_reference")
# Two bugs, one behind the other: a reader that needs a space after every number, and behind it a
# full grid refused (test_fuzz_spaced).
BEHIND_READER = ("needs_space_after",)
FAKES = PLANTED + CLEAN + REFERENCES + BEHIND_READER + TWO_BUGS


def argv(name):
    """The argv that starts fake ``name`` (without create/solve)."""
    return [sys.executable, "-S", str(HERE / f"{name}.py")]


def spec(name):
    """The ``--target`` spelling of fake ``name``."""
    return shlex.join(argv(name))


def fuzz_config(**fields):
    """A fuzz run's configuration (``fuzz.config.FuzzConfig``) for tests that call the engine's parts
    directly: one worker, our own py engine as the target, unless ``fields`` say otherwise."""
    from fuzz.config import FuzzConfig

    base = {"run_id": "t", "n": 10, "seed": 1, "workers": 1, "chunk_size": 10, "backend": "local",
            "scheduler": None, "out": "run", "target": {"spec": "engine:py"}, "strict": False,
            "check_engine": "band", "corpus": "corpus"}
    return FuzzConfig(**{**base, **fields})


def fuzz(*args, cwd, timeout=180, env=None):
    """``fuzz ARGS`` in this process (``fuzz.cli.main``, through ``helpers.call_main``) in ``cwd``, with
    ``env`` set for the call; the CompletedProcess, stdout and stderr as text. The targets it drives
    are real programs still."""
    from fuzz.cli import main
    from helpers import call_main

    return call_main(main, args, cwd=cwd, timeout=timeout, env=env)


def fuzz_process(*args, cwd, timeout=180):
    """Run ``python -m fuzz ARGS`` as a real subprocess in ``cwd``; the CompletedProcess, stdout and
    stderr as text."""
    paths = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    return subprocess.run([sys.executable, "-m", "fuzz", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


def seed_where(n, wanted, *, seeds=range(1, 200), families=None):
    """The first run seed whose first ``n`` cases satisfy ``wanted(cases)`` (a list of fuzz Cases),
    in a run of only ``families`` when given (``fuzz run --family``).

    Runs pick families at random; a test that needs a family in its run says so here instead of
    hard-coding a seed that only works with today's weights.
    """
    from fuzz.cases import make_case

    for seed in seeds:
        if wanted([make_case(seed, index, n=n, only=families) for index in range(n)]):
            return seed
    raise AssertionError(f"no seed in {seeds} gives {n} cases as wanted")


def start_hogs(per_core):
    """``per_core`` CPU hogs per core, each a busy loop in a session of its own (so no group kill of a
    case reaches them, and the scheduler shares the CPU between their sessions and a target's):
    a machine fully loaded, for tests and benchmarks that must hold under load."""
    return [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"], start_new_session=True)
            for _ in range(per_core * (os.cpu_count() or 1))]


def stop_hogs(hogs):
    """Kill the hogs by their pids and reap them."""
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()
