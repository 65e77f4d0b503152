"""Targets: one adapter contract for every program under test.

``create()`` and ``solve(text)`` return a Result. External commands run as an argv list (never a
shell) in their own process group and a fresh temporary directory, with stdin closed after the
input, a time limit (below), and a cap on the output kept; on a hang or a flood the whole group is
killed.

Nothing a case starts outlives it: while a case runs, the process that runs it is a *child
subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so a descendant that left the process group,
even in a session of its own (``setsid``, a daemon), is re-parented to it when its parent exits;
after the case every such stray is killed and reaped, and the flag is cleared (orphans of anything
else this process started are not its to reap).

A hang is judged by what the program did, never by how busy the machine was. While a call runs,
its *tree* (the processes in its session or process group) is followed through /proc: their CPU
time (with what they reaped of their children) and whether any thread is runnable. A tree that is
computing (some thread runnable, which includes waiting for a CPU on a loaded machine) hangs when
it has used the limit in CPU time without answering: on a busy machine a correct program takes
longer by the clock but no more CPU, so the clock would call it hung where the CPU does not. A
tree that is blocked (nothing runnable and no CPU used: reading input that never comes, sleeping,
waiting on a lock) hangs when it has sat blocked for the limit in wall time in total: load does
not stretch a sleep, and a blocked program uses no CPU to count. ``BACKSTOP_FACTOR`` times the
limit in wall time bounds every call, whatever its state (a tree that flips between the two, or a
machine so loaded that nothing moves). The Result says which rule stopped a call (``hang``),
beside its wall seconds, CPU seconds and blocked seconds. Without /proc (not Linux) a tree shows
neither CPU nor a runnable thread, so it counts as blocked: the limit is then plain wall time.

A fuzz command killed outright (SIGKILL, which no handler sees) cannot end what its cases run:
its next command sweeps them (``case_folders``). Until then a target that computes for ever is held
by its own CPU limit (``RLIMIT_CPU``, set from outside as it starts: ``CPU_CAP`` times the call's
limit, plus ``CPU_CAP_S``), far past where a live watcher ends it, so it never decides a verdict.

Most calls end in milliseconds, so a call first only waits on its exit (a pidfd); /proc is read
only after ``FIRST_WAIT_S``, then at intervals growing from ``POLL_S[0]`` to ``POLL_S[1]``, and
an exit is seen at once whatever the interval.
"""

import ctypes
import errno
import io
import os
import re
import secrets
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from math import isqrt
from pathlib import Path
from typing import IO, Any

from jobs.processes import processes, stat_of

Result = namedtuple("Result", "exit_code stdout stderr seconds timed_out flooded cpu_seconds limit hang "
                    "blocked_seconds left", defaults=(0.0, None, None, 0.0, 0))
Result.__doc__ = """What a target did: exit code (negative: killed by that signal), stdout and stderr as bytes
(cut at the output cap), wall seconds, whether it timed out (hung) or flooded its output, the CPU
seconds of its process tree, the call's time limit in seconds (None when it had none), which rule
stopped a hung call (``hang``: "cpu", "blocked" or "wall"; None when it answered), the seconds
it sat blocked, and how many processes it ``left`` running when it answered (daemons, background
children: killed with the case, and noted)."""

DEFAULT_TIMEOUT_S = 5.0
DEFAULT_MAX_OUTPUT = 1 << 20
BACKSTOP_FACTOR = 20  # wall-clock bound of any call, in limits
FIRST_WAIT_S = 0.2  # wait on the exit alone this long before reading /proc (most calls end sooner)
POLL_S = (0.01, 0.1)  # the first and the longest interval between readings of /proc
CPU_CAP, CPU_CAP_S = 2, 10  # a target's own CPU limit (seconds): CPU_CAP x the call's limit + CPU_CAP_S
_PR_SET_CHILD_SUBREAPER = 36
_ONE_CASE_AT_A_TIME = threading.Lock()  # strays are told apart by who started them: one case at once
CASES_ENV = "FUZZ_CASE_FOLDERS"  # the folder of a command's case folders, and the mark on what its cases start


class TargetError(Exception):
    """A target that cannot be used at all (a missing executable, an unknown engine)."""


class CannotStart(TargetError):
    """A command target whose program is missing, not executable or not on PATH: of several targets,
    one that cannot start is marked so and the others go on."""


class EngineTarget:
    """Our own engines in-process: the ``sudoku`` command's code, called without a subprocess.

    With no engine named it stands for all of them: ``pick(index, side)`` gives case ``index`` the
    engine ``index`` selects in turn among those that handle its size, so every engine meets every
    family and a case always meets the same one.
    """

    def __init__(self, engine: str | None = None, *, side: int = 9) -> None:
        from sudoku import engines

        if engine is not None and engine not in engines.names():
            raise TargetError(f"unknown engine {engine!r}; known: {', '.join(engines.names())}")
        self.engine = engine
        self.name = f"engine:{engine}" if engine else "engine"
        self.header = False
        box = isqrt(side)
        self.engines = [engine] if engine else [n for n in engines.names() if engines.supports(n, box)]
        self.makers = [n for n in self.engines
                       if "fill" in engines.info(n).capabilities and engines.supports(n, box)] or ["py"]

    def pick(self, index: int, side: int = 9) -> "EngineTarget":
        if self.engine is not None:
            return self
        sized = EngineTarget(side=side)
        one = EngineTarget(sized.engines[index % len(sized.engines)], side=side)
        # the maker turns over once per round of engines, so the cases that meet one engine still
        # meet every maker
        one.makers = [sized.makers[(index // len(sized.engines)) % len(sized.makers)]]
        return one

    def _call(self, argv: list[str], data: bytes) -> Result:
        from sudoku import cli

        cpu = time.process_time()
        stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        stdout, stderr = io.StringIO(), io.StringIO()
        saved = sys.stdin, sys.stdout, sys.stderr
        start = time.perf_counter()
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            code = cli.run(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
        seconds = time.perf_counter() - start
        return Result(code, stdout.getvalue().encode(), stderr.getvalue().encode(), seconds, False, False,
                      time.process_time() - cpu)

    def create(self, side: int = 9) -> Result:
        return self._call(["create", "--size", str(side), "--engine", self.makers[0]], b"")

    def solve(self, text: bytes, *, unwritable: bool = False) -> Result:
        """``unwritable``: our own engine, in-process, writes no file: the same call."""
        return self._call(["solve", "--engine", self.engines[0]], text)

    def check(self, text: bytes) -> Result:
        return self._call(["check"], text)


class CommandTarget:
    """Any program with the contract, run as ``argv + create_args`` / ``argv + solve_args``."""

    def __init__(self, argv: Sequence[str], *, name: str | None = None, env: Mapping[str, str] | None = None,
                 create_args: Sequence[str] = ("create",), solve_args: Sequence[str] = ("solve",), header: bool = False,
                 timeout: float = DEFAULT_TIMEOUT_S, max_output: int = DEFAULT_MAX_OUTPUT,
                 check_args: Sequence[str] = ("check",)) -> None:
        self.argv = list(argv)
        self.check_args = list(check_args)
        self.name = name or shlex.join(self.argv)
        self.create_args = list(create_args)
        self.solve_args = list(solve_args)
        self.header = header
        self.timeout = timeout
        self.max_output = max_output
        self.env = env

    def create(self, side: int = 9) -> Result:
        """Ask for a puzzle; ``{size}`` and ``{box}`` in the create arguments are the side asked for."""
        args = [arg.replace("{size}", str(side)).replace("{box}", str(isqrt(side))) for arg in self.create_args]
        return self._call(args, b"")

    def solve(self, text: bytes, *, unwritable: bool = False) -> Result:
        """``unwritable``: run in a working folder where no file can be made (``run_contained``)."""
        return self._call(self.solve_args, text, unwritable=unwritable)

    def check(self, text: bytes) -> Result:
        return self._call(self.check_args, text)

    def _call(self, args: list[str], data: bytes, *, unwritable: bool = False) -> Result:
        return run_contained(self.argv + args, data, timeout=self.timeout, max_output=self.max_output, env=self.env,
                             unwritable=unwritable)


Target = EngineTarget | CommandTarget  # what make_target gives


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(stream: IO[bytes], sink: bytearray, cap: int, on_flood: Callable[[], None]) -> None:
    """Read a pipe to its end, keeping at most ``cap`` bytes; past the cap, call ``on_flood`` once."""
    flooded = False
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        room = cap - len(sink)
        if room > 0:
            sink.extend(chunk[:room])
        if len(chunk) > room and not flooded:
            flooded = True
            on_flood()
    stream.close()


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        if data:
            stream.write(data)
    except (BrokenPipeError, OSError):
        pass  # the target need not read its input
    finally:
        try:
            stream.close()
        except OSError:
            pass


@contextmanager
def case_folders() -> Iterator[str]:
    """One folder for the case folders of every case run inside, removed on leaving however the command
    ends, and what those cases started killed. The runner stops a worker mid-case with SIGTERM, at once:
    the case's folder stayed in the system's temporary folder, and its target (in a session of its own)
    ran on, a hung one for ever. The folder is named in the environment (``CASES_ENV``), so workers,
    forked or spawned on this machine (a local Dask cluster), put their cases there, and every target
    carries the name in its environment: a case folder left on leaving means a case was cut short, and
    each process marked with this folder is then killed, daemons that left the target's group too.

    The folder is made by the first case that needs it (a run of our own engine makes none), and its
    name holds this command's pid and pid namespace: a command killed by SIGKILL, which no handler
    sees, leaves its folder and what its targets were running, and the next command's ``_sweep``
    ends both."""
    home = tempfile.gettempdir()
    _sweep(home)
    folder = os.path.join(home, f"fuzz-cases-{_pid_space()}-{os.getpid()}-{secrets.token_hex(8)}")
    previous = os.environ.get(CASES_ENV)
    os.environ[CASES_ENV] = folder
    try:
        yield folder
    finally:
        if previous is None:
            os.environ.pop(CASES_ENV, None)
        else:
            os.environ[CASES_ENV] = previous
        try:
            cut_short = any(os.scandir(folder))
        except OSError:  # never made: no case ran
            cut_short = False
        if cut_short:
            kill_marked(f"{CASES_ENV}={folder}".encode())
        shutil.rmtree(folder, ignore_errors=True)


# case_folders' name: the pid namespace and pid of its command, then a random part
_HOME_NAME = re.compile(r"fuzz-cases-(\d+)-(\d+)-[0-9a-f]{16}")


def _pid_space() -> int:
    """This process's pid namespace (its inode), 0 where there is none to read: a pid means something
    only in its own namespace (a container sharing /tmp with its host counts pids apart)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _ended(match: re.Match[str]) -> bool:
    """Whether the command a case home's name gives is known to have ended: its pid, in our pid
    namespace, is no process (in another namespace nothing is known, so nothing is done)."""
    return int(match.group(1)) == _pid_space() and not _alive(int(match.group(2)))


def _case_home() -> str | None:
    """The folder for this call's case folder: its command's (``CASES_ENV``), made on the first case
    (private to us); None when there is none, when the name is not one ``case_folders`` gives or its
    command has ended (a name inherited by a Dask worker another command started), or when the
    name is taken by anything but a folder of ours."""
    folder = os.environ.get(CASES_ENV)
    match = _HOME_NAME.fullmatch(os.path.basename(folder or ""))
    if not folder or not match or _ended(match):
        return None
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    found = os.lstat(folder)
    return folder if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        pass
    return True


def _sweep(home: str) -> None:
    """End what fuzz commands killed outright left in ``home``: each case home of ours whose command is
    gone, with every process still marked with it (a hung target runs on after its worker dies)."""
    try:
        entries = list(os.scandir(home))
    except OSError:
        return
    for entry in entries:
        match = _HOME_NAME.fullmatch(entry.name)
        if not match or not _ended(match):
            continue
        try:
            found = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid():
            kill_marked(f"{CASES_ENV}={entry.path}".encode())
            shutil.rmtree(entry.path, ignore_errors=True)


def kill_marked(mark: bytes) -> None:
    """SIGKILL every process of ours (but this one) whose environment holds ``mark`` (``NAME=value``),
    read from /proc (nothing to do without it); then reap any of them that is our child."""
    for _ in range(3):  # a marked process may fork while we look: look again until none is left
        found = []
        for pid, _fields in processes():
            if pid == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    if mark in environ.read().split(b"\0"):
                        found.append(pid)
            except OSError:
                continue  # gone, or not ours to read
        if not found:
            return
        _kill_and_reap(found, os.WNOHANG)  # not all are our children: reaped where they are


def run_contained(argv: list[str], data: bytes, *, timeout: float = DEFAULT_TIMEOUT_S,
                  max_output: int = DEFAULT_MAX_OUTPUT, env: Mapping[str, str] | None = None,
                  unwritable: bool = False) -> Result:
    """Run ``argv`` with ``data`` on stdin, contained (see the module docstring); a sanitized build
    reports to stderr and exits (``fuzz.sanitize.environment``). ``unwritable``: the program runs
    in a working folder where no file can be made, by root either (``unwritable_folder``)."""
    from fuzz.sanitize import environment

    env = environment(env)
    folders = _case_home()
    if folders:
        env[CASES_ENV] = folders  # the mark ``case_folders`` kills by, on a target given its own env too
    with _ONE_CASE_AT_A_TIME, tempfile.TemporaryDirectory(prefix="fuzz-case-", dir=folders) as workdir:
        reaping = _subreaper(True)
        try:
            before = set(_children()) if reaping else set()
            if unwritable:
                workdir = unwritable_folder(workdir)
            return _run(argv, data, timeout, max_output, env, workdir, before if reaping else None)
        finally:
            if reaping:
                _subreaper(False)  # only while a case runs: orphans of anything else are not ours to reap


def unwritable_folder(workdir: str) -> str:
    """A working folder where no file can be made, by root either: ``/proc`` (a new name there is
    refused to everyone); without it, a read-only folder in ``workdir`` (which stops all but root).
    It is a folder that exists: a folder removed under the program (as this was first made) also
    stopped launchers that look up their working folder before the program starts (a pyenv
    ``python3`` shim: "cannot change working directory"), a false bug on every such case."""
    if os.path.isdir("/proc/self"):
        return "/proc"
    folder = os.path.join(workdir, "read-only")
    os.mkdir(folder, 0o555)
    return folder


def _run(argv: list[str], data: bytes, timeout: float, max_output: int, env: Mapping[str, str], workdir: str,
         before: set[int] | None) -> Result:
    """One contained call; ``before`` is the set of our children before it (None: strays not sought)."""
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=workdir, start_new_session=True, env=env)
    except OSError as error:
        hint = (f" (a script needs a first line such as '#!/usr/bin/env python3', or give its interpreter: "
                f"'python3 {argv[0]}')" if error.errno == errno.ENOEXEC else "")
        return Result(127, b"", f"cannot run {argv[0]}: {error.strerror}{hint}".encode(), 0.0, False, False)
    _cap_cpu(proc.pid, timeout)
    out, err = bytearray(), bytearray()
    flood = threading.Event()

    def on_flood() -> None:
        flood.set()
        _kill_group(proc.pid)

    threads = [
        threading.Thread(target=_feed, args=(proc.stdin, data), daemon=True),
        threading.Thread(target=_drain, args=(proc.stdout, out, max_output, on_flood), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, err, max_output, on_flood), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        hang, tree_cpu, blocked = _watch(proc.pid, timeout)
    except BaseException:  # a stop signal mid-case: the target must not outlive the command
        _kill_group(proc.pid)
        os.waitpid(proc.pid, 0)
        if before is not None:
            _kill_strays(before)
        raise
    seconds = time.perf_counter() - start
    left = _left_behind(proc.pid, before) if hang is None else 0  # it answered; these still run
    _kill_group(proc.pid)  # on a hang, and whatever the target forked and left behind
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if before is not None:  # before joining: a daemon holding our pipes would keep them open
        strays = _kill_strays(before)  # a daemon whose parent was dying at the first look is seen here
        left = max(left, strays) if hang is None else 0
    for thread in threads:
        thread.join(timeout=2)
    cpu = max(usage.ru_utime + usage.ru_stime, tree_cpu)  # the tree: children it did not wait for too
    return Result(proc.returncode, bytes(out), bytes(err), seconds, hang is not None, flood.is_set(), cpu,
                  timeout, hang, blocked, left)


def _cap_cpu(pid: int, timeout: float) -> None:
    """Give a target its own CPU limit (see the module docstring): SIGXCPU at the cap, SIGKILL a
    second later; what it forks from now on inherits it. Where it cannot be set, nothing is lost but
    the backstop."""
    try:
        import resource

        cap = int(timeout * CPU_CAP + CPU_CAP_S)
        resource.prlimit(pid, resource.RLIMIT_CPU, (cap, cap + 1))
    except (ImportError, AttributeError, OSError, ValueError, OverflowError):  # not Linux, or it has ended
        pass


def _watch(pid: int, timeout: float) -> tuple[str | None, float, float]:
    """Wait until ``pid`` (our child, the leader of its tree) exits or hangs, by the rule of the
    module docstring: (which rule it hung by or None, its tree's CPU seconds, seconds blocked)."""
    start = time.monotonic()
    if _wait_exit(pid, min(FIRST_WAIT_S, timeout)):
        return None, 0.0, 0.0
    cpu, blocked, last, interval = 0.0, 0.0, start, POLL_S[0]
    while True:
        now_cpu, runnable = _tree(pid)
        now = time.monotonic()
        if not runnable and now_cpu <= cpu:
            blocked += now - last  # nothing ran since the last look
        cpu, last = max(cpu, now_cpu), now
        hang = _hang_rule(cpu, blocked, now - start, timeout)
        if hang is not None:
            return hang, cpu, blocked
        backstop = start + timeout * BACKSTOP_FACTOR - now
        if _wait_exit(pid, min(interval, backstop)):
            return None, cpu, blocked
        interval = min(interval * 1.5, POLL_S[1])


def _hang_rule(cpu: float, blocked: float, wall: float, timeout: float) -> str | None:
    """Which rule a call that has not answered breaks ("cpu", "blocked", "wall"), or None."""
    if cpu >= timeout:
        return "cpu"
    if blocked >= timeout:
        return "blocked"
    if wall >= timeout * BACKSTOP_FACTOR:
        return "wall"
    return None


def _wait_exit(pid: int, timeout: float) -> bool:
    """Wait until ``pid`` (our child) has exited, without reaping it; False on a timeout."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            return bool(select.select([fd], [], [], max(timeout, 0))[0])
        finally:
            os.close(fd)
    deadline = time.monotonic() + timeout
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree(leader: int) -> tuple[float, bool]:
    """(CPU seconds, whether any thread runs or waits for a CPU) of the processes in ``leader``'s
    session or process group. A process's CPU counts the children it reaped (cutime, cstime), so
    the tree's total holds what its dead members used; a state is read per thread only in a
    process with several, where the main thread may wait while another computes."""
    ticks, runnable = 0, False
    for pid, fields in processes():
        if leader not in (int(fields[2]), int(fields[3])):  # process group, session
            continue
        ticks += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
        runnable = runnable or fields[0] == b"R" or (int(fields[17]) > 1 and _a_thread_runs(pid))
    return ticks / _TICKS, runnable


def _a_thread_runs(pid: int) -> bool:
    """Whether some thread of ``pid`` is runnable (state R)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    return any((fields := stat_of(f"/proc/{pid}/task/{tid}/stat")) and fields[0] == b"R" for tid in threads)


def _subreaper(on: bool) -> bool:
    """Make this process the reaper of its orphaned descendants (``on``), or stop being it; False
    where Linux says no (another system: strays then go to init, and only the group kill holds)."""
    try:
        return bool(ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    """The pids whose parent is this process (from /proc)."""
    return [pid for pid, _ in _child_stats()]


def _child_stats() -> list[tuple[int, list[bytes]]]:
    """(pid, stat fields) of each process whose parent is this process."""
    me = os.getpid()
    return [(pid, fields) for pid, fields in processes() if int(fields[1]) == me]


def _kill_and_reap(pids: list[int], flags: int) -> None:
    """SIGKILL each of ``pids``, then reap it (``os.waitpid`` with ``flags``) where it is our child."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, flags)
        except ChildProcessError:
            pass


def _kill_strays(before: set[int]) -> int:
    """Kill and reap every child of ours that was not there before the case: the case's descendants
    that outlived their parent. Each one's own children then come to us, so repeat until none. How
    many of the first found were not dead already."""
    running = 0
    for number in range(100):
        strays = [(pid, fields) for pid, fields in _child_stats() if pid not in before]
        if not strays:
            break
        if number == 0:
            running = sum(fields[0] not in (b"Z", b"X") for _, fields in strays)
        _kill_and_reap([pid for pid, _ in strays], 0)
    return running


def _left_behind(leader: int, before: set[int] | None) -> int:
    """How many processes a target whose leader has exited left running: in its process group or
    session, or (a daemon that left both) come to us, the subreaper, as orphans (not in ``before``).
    One walk of /proc; the dead waiting to be reaped are not counted."""
    me = os.getpid()
    return sum(1 for pid, fields in processes() if pid != leader and fields[0] not in (b"Z", b"X") and (
        leader in (int(fields[2]), int(fields[3])) or (before is not None and int(fields[1]) == me
                                                        and pid not in before)))


_CANNOT_START = re.compile(r"no such file|can't open file|cannot open|not found|permission denied|"
                           r"cannot execute|exec format error|bad interpreter|"
                           r"cannot find module|could not find or load main class|unable to access jarfile|"
                           r"no module named",
                           re.IGNORECASE)  # the shell's, Python's (a script or a module it needs), Node's, Java's


def startup_failure(result: Result) -> str | None:
    """What stopped a target from starting at all (a missing program, interpreter or script), from a
    call's Result; None when it started."""
    message = result.stderr.decode("utf-8", "replace").strip().splitlines()
    first = message[0][:200] if message else ""
    if result.exit_code in (126, 127):
        return first or f"exit {result.exit_code}"
    if result.exit_code > 0 and not result.stdout.strip():
        # the line that says so: Node's comes after the place in its loader ('node:internal/...')
        for line in message[:20]:
            if _CANNOT_START.search(line):  # a relative name was looked up in the case's folder: not the user's
                return _CASE_FOLDER.sub("", line.strip())[:200]
    return None


_CASE_FOLDER = re.compile(r"/\S*?fuzz-case-[^/\s'\"]+/")


def _env_finding_our_sudoku() -> dict[str, str]:
    """The environment with the folder of the ``sudoku`` package this harness runs on first in
    PYTHONPATH, so ``cli`` tests this very code from the case's temporary directory (a relative
    PYTHONPATH such as ``.`` would point into that directory instead)."""
    import sudoku

    home = str(Path(sudoku.__file__).resolve().parents[1])
    paths = [home] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


def make_target(spec: str, *, create_args: str = "create", solve_args: str = "solve", header: bool = False,
                timeout: float = DEFAULT_TIMEOUT_S, max_output: int = DEFAULT_MAX_OUTPUT, check_args: str = "check",
                where: str = "--target", base: str | None = None, leaks: bool = False) -> Target:
    """A target from its command-line spelling: ``engine`` (or ``engine:NAME``), ``cli``, or a command.

    ``where`` names where ``spec`` came from ("--target", "--reference", "targets.txt line 3"), for
    the messages: a spec that cannot be split is a TargetError, one whose program is missing,
    not executable or not on PATH a CannotStart (a run marks that target and goes on with others).
    Relative paths in the command are taken from ``base``, the folder the run was started in
    (recorded with the run, so a resume from elsewhere runs the same program), or the current one.
    ``leaks``: a command's calls report leaks if it is built with AddressSanitizer (``--leaks``).
    """
    from fuzz.commands import BadCommand, split

    if spec == "engine" or spec.startswith("engine:"):
        return EngineTarget(spec.partition(":")[2] or None)
    try:
        options: dict[str, Any]
        options = dict(create_args=split(create_args, "--create-args"), solve_args=split(solve_args, "--solve-args"),
                       header=header, timeout=timeout, max_output=max_output,
                       check_args=split(check_args, "--check-args"))
        argv = split(spec, where)
    except BadCommand as error:
        raise TargetError(str(error)) from None
    if spec == "cli":
        if options["create_args"] == ["create"]:
            options["create_args"] = ["create", "--size", "{size}"]
        return CommandTarget([sys.executable, "-m", "sudoku"], name="cli", env=_env_finding_our_sudoku(), **options)
    if not argv:
        raise TargetError(f"{where} is empty")
    here = Path(base) if base else Path.cwd()
    argv[0] = _program(argv[0], here)
    # Each call runs in a fresh temporary directory: a script named relative to where fuzz was
    # started ('python3 their.py') is given by its full path, or the interpreter would not find it.
    argv[1:] = [str((here / arg).resolve()) if not arg.startswith("-") and (here / arg).is_file() else arg
                for arg in argv[1:]]
    if leaks:
        from fuzz.sanitize import environment

        options["env"] = environment(leaks=True)
    return CommandTarget(argv, name=spec, **options)


def _program(program: str, here: Path) -> str:
    """The program of a command, by its full path when given as a path; CannotStart when it is
    missing, not executable or not on PATH (names shown escaped: a targets file is untrusted). The
    message names the program only: the caller says whose it is ("target X cannot start: ...")."""
    from sudoku.display import visible

    shown = visible(program, newlines=False)
    if os.sep in program:
        path = here / program  # an absolute program stays itself
        if not path.exists():
            raise CannotStart(f"{shown} does not exist")
        if not os.access(path, os.X_OK) or path.is_dir():
            raise CannotStart(f"{shown} is not executable (chmod +x, or give 'python3 {shown}')")
        return str(path.resolve())
    if shutil.which(program) is None:
        raise CannotStart(f"command '{shown}' is not on PATH")
    return program
