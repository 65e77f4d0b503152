"""SIGINT, SIGTERM and SIGHUP are one thing to every tool, and no process outlives its command.

In-process first (``sudoku.interrupts``, the runner through ``jobs.cli.main``, the store), then a few
real subprocesses: ``sudoku solve --timeout`` and its forked child, ``sudoku-jobs run`` and ``fuzz run``
stopped by SIGTERM or SIGHUP, then resumed.
"""

import errno
import json
import os
from dataclasses import replace
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _jobs_support import ENV, REPO, manifest, part_names, records, start_jobs, wait_for_parts
from fake_targets import spec

import jobs.store
import jobs.tasks
from jobs.cli import main as jobs_main
from sudoku.budget import _child_deadline
from sudoku.interrupts import Interrupted, Interrupts, exit_code

STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
BIG = REPO / "tests" / "data" / "phase_transition_49x49.txt"  # no solver finishes it within a minute


# --- the mechanism -----------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", STOPS)
def test_each_stop_signal_is_an_interrupt_carrying_its_number(signum):
    before = signal.getsignal(signum)  # SIG_IGN for SIGINT when pytest was started in the background
    with pytest.raises(Interrupted) as caught, Interrupts():
        os.kill(os.getpid(), signum)
        time.sleep(5)
    assert isinstance(caught.value, KeyboardInterrupt)
    assert caught.value.signum == signum
    assert exit_code(caught.value) == 128 + signum
    assert signal.getsignal(signum) == before  # restored


def test_a_plain_keyboard_interrupt_is_130_and_handlers_are_restored():
    before = {signum: signal.getsignal(signum) for signum in STOPS}
    with Interrupts():
        pass
    assert {signum: signal.getsignal(signum) for signum in STOPS} == before
    assert exit_code(KeyboardInterrupt()) == 130
    assert exit_code(signum=signal.SIGTERM) == 143


def test_a_signal_while_deferred_is_raised_once_the_block_ends():
    interrupts = Interrupts()
    steps = []
    with pytest.raises(Interrupted) as caught, interrupts:
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("write finished")
        steps.append("never")
    assert steps == ["write finished"] and caught.value.signum == signal.SIGTERM


def test_an_inner_handler_tells_the_outer_one_which_signal_it_caught():
    outer, inner = Interrupts(), Interrupts()
    with outer:
        with inner, inner.deferred(then_raise=False):
            os.kill(os.getpid(), signal.SIGHUP)
        assert signal.getsignal(signal.SIGHUP) is outer
    assert inner.signum == outer.signum == signal.SIGHUP


def test_a_bounded_child_ends_itself_after_its_parent_should_have():
    assert _child_deadline(0.5) == 1.5 and _child_deadline(60) == 66


# --- a forked solve child ------------------------------------------------------------------------------


def _stat(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _alive(pid):
    """A process that exists and is not a zombie (an orphan's zombie waits for init to reap it)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def _children(pid):
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _wait_for_child(proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if children := _children(proc.pid):
            return children
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError(f"no child of {proc.pid} after {timeout}s")


def _gone(pids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_the_solve_child_of_timeout_dies_with_its_parent(signum):
    with open(BIG, "rb") as puzzle:
        proc = subprocess.Popen([sys.executable, "-m", "sudoku", "solve", "--timeout", "60"], stdin=puzzle,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=REPO,
                                start_new_session=True)
    try:
        children = _wait_for_child(proc)
        os.kill(proc.pid, signum)  # the parent alone, as `kill PID` or `docker stop` does
        started = time.monotonic()
        out, err = proc.communicate(timeout=10)
        assert time.monotonic() - started < 5
        assert proc.returncode == (-signal.SIGKILL if signum == signal.SIGKILL else 128 + signum), err
        assert out == b"" and b"Traceback" not in err
        assert _gone(children), [(pid, _stat(pid)) for pid in children]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


_STOPPED_PARENT = """
import sys, time
from sudoku.budget import Budget, within
within(Budget(seconds=0.5), lambda budget: time.sleep(60))
"""


def test_a_bounded_child_whose_parent_is_stopped_ends_at_its_own_deadline():
    proc = subprocess.Popen([sys.executable, "-c", _STOPPED_PARENT], env=ENV, cwd=REPO, start_new_session=True)
    try:
        children = _wait_for_child(proc)
        os.kill(proc.pid, signal.SIGSTOP)  # the parent can no longer kill it at 0.5 s
        assert _gone(children, timeout=_child_deadline(0.5) + 5)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# --- the runner, in-process ------------------------------------------------------------------------------

SMALL = ["-n", 60, "--size", 4, "--seed", 5, "--chunk-size", 10, "--workers", 1, "--engine", "py",
         "--check-engine", "dlx", "--no-progress"]


def _jobs(*args):
    """``sudoku-jobs ARGS`` in this process; the run's lock, held for a process's life, is let go after."""
    try:
        return jobs_main([str(arg) for arg in args])
    finally:
        for fd in os.listdir("/proc/self/fd"):
            try:
                if os.readlink(f"/proc/self/fd/{fd}").endswith("/.lock"):
                    os.close(int(fd))
            except OSError:
                pass


def _signal_at_chunk(monkeypatch, signum, chunk=2):
    """Make the task send ``signum`` to this process as it starts chunk ``chunk`` (workers 1: in-process)."""
    real = jobs.tasks.run_chunk

    def run_chunk(spec):
        if spec["chunk"] == chunk:
            os.kill(os.getpid(), signum)
        return real(spec)

    monkeypatch.setattr(jobs.tasks, "BATCH", replace(jobs.tasks.BATCH, run=run_chunk))


@pytest.mark.parametrize("signum", STOPS)
def test_a_stopped_run_keeps_its_parts_says_interrupted_and_resumes(tmp_path, monkeypatch, capsys, signum):
    out = tmp_path / "run"
    _signal_at_chunk(monkeypatch, signum)
    assert _jobs("run", *SMALL, "--out", out) == 128 + signum
    err = capsys.readouterr().err
    assert f"resume with: sudoku-jobs run --resume {out}" in err.splitlines()
    m = manifest(out)
    assert m["status"] == "interrupted" and m["chunks_done"] == 2
    assert m["reason"] == f"interrupted by {signal.Signals(signum).name}"
    assert m["totals"] == {"cases": 20, "ok": 20, "failed": 0, "rejected": 0}
    assert len(records(out)) == 20
    monkeypatch.undo()
    assert _jobs("run", "--resume", out) == 0
    assert manifest(out)["status"] == "complete" and manifest(out)["totals"]["cases"] == 60


def test_a_signal_while_the_run_is_prepared_leaves_it_interrupted_not_running(tmp_path, monkeypatch):
    import jobs.runner

    def provenance():
        os.kill(os.getpid(), signal.SIGTERM)
        return {"git_sha": None, "git_dirty": None}

    monkeypatch.setattr(jobs.runner, "provenance", provenance)
    assert _jobs("run", *SMALL, "--out", tmp_path / "run") == 143
    m = manifest(tmp_path / "run")
    assert m["status"] == "interrupted" and m["totals"]["cases"] == 0 and part_names(tmp_path / "run") == []


def test_a_signal_while_a_part_is_written_waits_for_the_part(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real = jobs.store.RunDir.write_part

    def write_part(self, chunk, records):
        if chunk == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(self, chunk, records)

    monkeypatch.setattr(jobs.store.RunDir, "write_part", write_part)
    assert _jobs("run", *SMALL, "--out", out) == 143
    assert part_names(out) == ["chunk-000000.parquet", "chunk-000001.parquet"]
    assert manifest(out)["status"] == "interrupted" and manifest(out)["totals"]["cases"] == 20


def test_a_disk_full_at_records_csv_marks_the_run_failed_with_its_reason(tmp_path, monkeypatch, capsys):
    """The disk is so full that neither the CSV nor a temporary manifest fits: the manifest is written
    in place, in the blocks it already has."""
    out = tmp_path / "run"
    full = []

    def write_csv(self, records_table=None):
        full.append(True)
        raise jobs.store.WriteError(f"cannot write {self.csv_path}: {os.strerror(errno.ENOSPC)}")

    real_write_text = Path.write_text

    def write_text(self, *args, **kwargs):
        if full and self.name == ".manifest.json.tmp":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(jobs.store.RunDir, "write_csv", write_csv)
    monkeypatch.setattr(Path, "write_text", write_text)
    assert _jobs("run", *SMALL, "--out", out) == 3
    assert "No space left on device" in capsys.readouterr().err
    m = manifest(out)
    assert m["status"] == "failed" and "records.csv: No space left on device" in m["reason"]
    assert m["totals"]["cases"] == 60


def test_show_of_a_run_not_complete_counts_its_saved_parts(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    _signal_at_chunk(monkeypatch, signal.SIGTERM, chunk=3)
    assert _jobs("run", *SMALL, "--out", out) == 143
    m = manifest(out)
    m.update(status="running", totals=None)  # as a run killed by SIGKILL leaves it
    (out / "manifest.json").write_text(json.dumps(m))
    capsys.readouterr()
    assert _jobs("show", out) == 0
    assert "stopped, 30 cases saved (ok 30, failed 0" in capsys.readouterr().out  # no process holds it
    assert _jobs("show", out, "--json") == 0
    assert json.loads(capsys.readouterr().out)["totals"]["cases"] == 30


# --- real processes: sudoku-jobs run and fuzz run ---------------------------------------------------------


def _group_alive(pgid):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(entry.name)) and int(stat[2]) == pgid and stat[0] not in "ZX":
            found.append(int(entry.name))
    return found


def _assert_group_gone(pgid, timeout=10):
    deadline = time.monotonic() + timeout
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group_alive(pgid) == []


@pytest.mark.parametrize("signum, whom", [
    (signal.SIGTERM, "parent"),
    pytest.param(signal.SIGTERM, "group", marks=pytest.mark.slow),
    pytest.param(signal.SIGHUP, "group", marks=pytest.mark.slow),
])
def test_sudoku_jobs_run_stopped_by_a_signal_then_resumed(tmp_path, signum, whom):
    out = tmp_path / "run"
    proc = start_jobs("run", "-n", 300, "--size", 9, "--seed", 7, "--workers", 2, "--chunk-size", 10,
                      "--engine", "py", "--check-engine", "dlx", "--no-progress", "--out", out)
    wait_for_parts(out, proc)
    (os.kill if whom == "parent" else os.killpg)(proc.pid, signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr and stdout == ""
    assert f"resume with: sudoku-jobs run --resume {out}" in stderr.splitlines()
    _assert_group_gone(proc.pid)
    m = manifest(out)
    assert m["status"] == "interrupted"
    assert m["totals"]["cases"] == len(records(out)) == 10 * len(part_names(out)) > 0
    done = subprocess.run([sys.executable, "-m", "jobs", "run", "--resume", str(out), "--no-progress"], env=ENV,
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert manifest(out)["status"] == "complete" and manifest(out)["totals"]["cases"] == 300


def _marked(mark):
    """The processes whose environment holds ``mark`` (bytes)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("backend", ["local", "dask"])
def test_a_fuzz_run_stopped_mid_case_leaves_no_target_running_and_no_case_folder(tmp_path, backend):
    """The runner stops its workers at once, in the middle of a case (a local pool's with SIGTERM; a
    Dask worker runs on until its nanny kills it), and each target runs in a session of its own: the
    targets still running are killed, and each case's folder, in the command's own folder of case
    folders, goes with it."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    command = [sys.executable, "-m", "fuzz", "run", "-n", 200, "--seed", 3, "--workers", 2, "--no-progress",
               "--timeout", 100, "--backend", backend, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
               "--target", spec("slow_correct")]
    proc = subprocess.Popen([str(part) for part in command], env={**ENV, "TMPDIR": str(temp), "FAKE_SLOW_S": "10"},
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    mark = f"FUZZ_CASE_FOLDERS={temp}".encode()
    seen: set[int] = set()
    while True:  # both workers in a slow case: the same two targets marked half a second apart
        now = set(_marked(mark))
        if len(now) >= 2 and len(now & seen) >= 2 and len(list(temp.glob("fuzz-cases-*/fuzz-case-*"))) >= 2:
            break
        seen = now
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            for pid in _marked(mark):
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the run never had two slow cases at once: {proc.communicate(timeout=60)}")
        time.sleep(0.5)
    os.kill(proc.pid, signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    _assert_group_gone(proc.pid)
    assert _marked(mark) == []
    assert list(temp.iterdir()) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_what_a_fuzz_run_killed_outright_left_running_is_ended_by_the_next_fuzz_command(tmp_path):
    """SIGKILL reaches no handler: the workers die with the command, but targets (each in a session of
    its own) run on, a hung one for ever, and the case folders stay. The next fuzz command, even one
    that runs no program, ends them and removes the folder (its name holds the dead command's pid)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**ENV, "TMPDIR": str(temp), "FAKE_SLOW_S": "120"}
    command = [sys.executable, "-m", "fuzz", "run", "-n", 200, "--seed", 3, "--workers", 2, "--no-progress",
               "--timeout", 300, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target",
               spec("slow_correct")]
    proc = subprocess.Popen([str(part) for part in command], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    mark = f"FUZZ_CASE_FOLDERS={temp}".encode()
    try:
        deadline = time.monotonic() + 300
        seen: set[int] = set()
        while True:  # a slow case under way: a target marked in two looks a second apart (a quick one takes 0.1 s)
            now = set(_marked(mark))
            if now & seen:
                break
            seen = now
            assert proc.poll() is None and time.monotonic() < deadline, "the run never had a slow case"
            time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers; not the targets' sessions
        proc.communicate(timeout=60)
        _assert_group_gone(proc.pid)
        left = _marked(mark)
        assert left and [folder.name for folder in temp.iterdir()] != []  # what the kill leaves
        done = subprocess.run([sys.executable, "-m", "fuzz", "run", "-n", "2", "--workers", "1", "--no-progress",
                               "--target", "engine", "--out", str(tmp_path / "next"), "--corpus",
                               str(tmp_path / "corpus")], env=env, cwd=tmp_path, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert _gone(left, timeout=10) and _marked(mark) == []
        assert list(temp.iterdir()) == []  # and a run of our engine made no case folder of its own
    finally:
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # ~90 s each on a busy 2-core machine, most of it the resume
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_fuzz_run_stopped_by_a_signal_then_resumed(tmp_path, signum):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "fuzz", "run", "-n", 400, "--seed", 3, "--workers", 2, "--chunk-size", 10,
               "--timeout", 10, "--no-progress", "--out", out, "--corpus", tmp_path / "corpus",
               "--target", spec("correct")]
    proc = subprocess.Popen([str(part) for part in command], env=ENV, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_parts(out, proc)
    os.killpg(proc.pid, signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    assert f"resume with: fuzz run --resume {out}" in stderr.splitlines()
    _assert_group_gone(proc.pid)
    m = manifest(out)
    assert m["status"] == "interrupted" and m["totals"]["cases"] == len(records(out)) > 0
    done = subprocess.run([sys.executable, "-m", "fuzz", "run", "--resume", str(out), "--no-progress"], env=ENV,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert manifest(out)["status"] == "complete" and manifest(out)["totals"]["cases"] == 400


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_while_fuzz_replays_its_corpus_leaves_the_run_interrupted(tmp_path, monkeypatch, capsys, signum):
    """Between the run directory's making and the runner's own loop (the corpus replay), a stop
    signal still marks the run interrupted, with totals, and prints the resume line."""
    from fuzz import cli as fuzz_cli
    from fuzz import engine

    def stopped(*args, **kwargs):
        raise Interrupted(signum)

    monkeypatch.setattr(engine, "replay_own", stopped)
    out = tmp_path / "run"
    code = fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--out", str(out), "--corpus",
                          str(tmp_path / "corpus"), "--workers", "1", "--no-progress"])
    assert code == 128 + signum
    saved = json.loads((out / "manifest.json").read_text())
    assert saved["status"] == "interrupted" and saved["totals"]["cases"] == 0
    assert saved["reason"] == f"interrupted by {signal.Signals(signum).name}"
    assert f"resume with: fuzz run --resume {out}" in capsys.readouterr().err


def test_a_stop_while_pyarrow_first_loads_pandas_is_not_lost(tmp_path, monkeypatch, capsys):
    """A QA try: 1 fuzz run in 16 stopped in its first second went on to the end, exit 0. pyarrow
    imports pandas inside a Cython function that prints and drops an exception, so an interrupt that
    came during that import was lost; the import is now ours, in the interrupted-safe part of the run."""
    code = ("import builtins\nreal = builtins.__import__\n"
            "def stopped(name, *args, **kwargs):\n"
            "    if name == 'pandas':\n        raise KeyboardInterrupt\n    return real(name, *args, **kwargs)\n"
            "builtins.__import__ = stopped\n"
            "from fuzz.engine import _arrow_from_python\n"
            "try:\n    _arrow_from_python()\nexcept KeyboardInterrupt:\n    print('stopped')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=ENV, timeout=60)
    assert done.stdout == "stopped\n", done.stderr  # in a fresh process: pandas not yet imported
    # and a stop there leaves the run interrupted, with its resume line
    from fuzz import cli as fuzz_cli
    from fuzz import engine

    def interrupted():
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(engine, "_arrow_from_python", interrupted)
    out = tmp_path / "run"
    assert fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--out", str(out), "--corpus",
                          str(tmp_path / "corpus"), "--workers", "1", "--no-progress"]) == 143
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert f"resume with: fuzz run --resume {out}" in capsys.readouterr().err


def test_a_stop_before_a_fuzz_run_begins_says_so(tmp_path, monkeypatch, capsys):
    """A QA try: stopped during its pre-flight, fuzz run exited 143 without a word."""
    from fuzz import cli as fuzz_cli
    from fuzz import engine

    def interrupted(*args, **kwargs):
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(engine, "prepare", interrupted)
    out = tmp_path / "run"
    assert fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--out", str(out), "--corpus",
                          str(tmp_path / "corpus"), "--workers", "1", "--no-progress"]) == 130
    assert capsys.readouterr().err == "fuzz: interrupted during the pre-flight, before the run began: nothing saved\n"
    assert not out.exists()


def test_every_fuzz_command_that_runs_programs_ends_what_a_killed_one_left(tmp_path, monkeypatch):
    """The docs promise any fuzz command sweeps what a fuzz command killed outright left (its case
    folder, its targets); a QA try found only `fuzz run` did, not replay or probe."""
    from fuzz import cli as fuzz_cli
    from fuzz import targets

    swept = []
    monkeypatch.setattr(targets, "_sweep", lambda home: swept.append(home))
    (tmp_path / "empty").mkdir()
    assert fuzz_cli.main(["replay", str(tmp_path / "empty"), "--target", "engine"]) == 2  # nothing to replay
    assert fuzz_cli.main(["probe", "--target", f"{sys.executable} -S /nonexistent/sudoku.py"]) == 2
    assert len(swept) == 2


def test_a_child_forked_under_the_handler_starts_with_the_default_action():
    """A QA try: Dask's worker processes, forked while the runner's handler was installed, raised
    Interrupted in their event loops on a SIGTERM to the group and printed a traceback each."""
    with Interrupts():
        pid = os.fork()
        if pid == 0:
            os._exit(0 if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_stop_while_a_compiled_engine_runs_a_callback_is_held_not_lost(monkeypatch):
    """R13: numba compiles through a ctypes callback that drops exceptions; a SIGINT whose handler ran
    there was lost. ``engines.solve`` has a stop signal in a numba engine's call noted and raised as the
    call returns."""
    import ctypes
    import os
    import signal

    from sudoku import engines, parse
    from sudoku.interrupts import Interrupted, Interrupts

    module = engines.load("band")
    real = module.solve
    def signalled():  # a SIGINT comes while Python code runs inside a C callback, as numba's compile does
        os.kill(os.getpid(), signal.SIGINT)

    callback = ctypes.CFUNCTYPE(None)(signalled)

    def compiling(puzzle, **options):
        callback()  # where the handler would run, and its KeyboardInterrupt be printed and dropped
        return real(puzzle, **options)

    monkeypatch.setattr(module, "solve", compiling)
    puzzle = next(parse(["53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"]))
    with pytest.raises(Interrupted), Interrupts():
        engines.solve(puzzle, engine="band")



def test_an_interrupted_replay_says_how_far_it_went(tmp_path, monkeypatch, capsys):
    """R20: a SIGINT to `fuzz replay` of a corpus ended it with 130 and not a word of what was replayed."""
    from fuzz import engine

    entries = [(tmp_path / f"e{n}", {"command": "solve", "family": "replay", "side": 9, "target_key": "t"},
                b"0 0\n") for n in range(3)]

    def stopped_on_the_second(found, *args, **kwargs):
        for number, _ in enumerate(found):
            if number == 1:
                raise KeyboardInterrupt

    monkeypatch.setattr(engine, "loaded", lambda found: entries)
    monkeypatch.setattr(engine, "replay_entries", stopped_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        engine.replay(tmp_path, {"spec": "engine:py"})
    assert "fuzz: replay interrupted: 1 of 3 reproducers replayed" in capsys.readouterr().err
