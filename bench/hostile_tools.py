"""One tool call of the hostile campaign (``hostile_campaign.py``), and what it left behind.

A call runs in a session of its own with a mark in its environment (``MARK``), so every process it
started is found afterwards, daemons that made a session of their own too. It is judged by what it did,
never by the wall clock: a call whose processes used no CPU for ``idle`` seconds is blocked (a FIFO
opened for reading, a lock never freed), one past ``cpu`` seconds of CPU runs away; either is ended
and is a failure of the tool. What every try asks of a call (``faults``): it ended by itself, with no
traceback, no "Exception ignored", no internal error, and no process of it still alive.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
ENV.pop("SUDOKU_TRACEBACK", None)
MARK = "HOSTILE_CAMPAIGN_CALL"
TOOLS = {"sudoku": "sudoku", "sudoku-jobs": "jobs", "fuzz": "fuzz", "reports": "reports"}
FAKE = REPO / "tests" / "fake_targets"
_numbers = itertools.count(1)


def target(name: str) -> str:
    """The ``--target`` of a fake program (``tests/fake_targets/NAME.py``)."""
    return f"python3 {FAKE / name}.py"


# --- /proc ---------------------------------------------------------------------------------------------

def stat(pid: int) -> tuple[str, int, int, int, float] | None:
    """(state, ppid, pgid, session, CPU seconds with reaped children) of a process, None once gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return fields[0], int(fields[1]), int(fields[2]), int(fields[3]), sum(map(int, fields[11:15])) / ticks


def pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def session(sid: int) -> list[int]:
    """Live processes of session ``sid``."""
    return [pid for pid in pids() if (one := stat(pid)) and one[3] == sid and one[0] not in "ZX"]


def marked(mark: str) -> list[int]:
    """Live processes whose environment holds ``MARK=mark``, whatever session they made."""
    found, needle = [], f"{MARK}={mark}".encode()
    for pid in pids():
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if needle not in environ.read().split(b"\0"):
                    continue
        except OSError:
            continue
        if (one := stat(pid)) and one[0] not in "ZX":
            found.append(pid)
    return found


def cpu_of(sid: int) -> float:
    """CPU seconds used so far by the live processes of a session (with the children they reaped)."""
    return sum(one[4] for pid in session(sid) if (one := stat(pid)))


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- a call ----------------------------------------------------------------------------------------------

@dataclass
class Ran:
    """What a call did: its exit (None when the campaign had to end it), its output, and its faults."""

    argv: list[str]
    code: int | None
    stdout: str
    stderr: str
    cpu: float
    stuck: str | None = None  # why the campaign ended it
    left: list[str] = field(default_factory=list)  # processes alive after it ended (then killed)

    def faults(self) -> list[str]:
        """What no call may do, whatever it was given."""
        found = []
        if self.stuck:
            found.append(self.stuck)
        if self.left:
            found.append(f"processes left: {'; '.join(self.left)}")
        if self.code is not None and self.code < 0:
            found.append(f"killed by {signal.Signals(-self.code).name}")
        for words in ("Traceback", "Exception ignored", "internal error"):
            if words in self.stderr:
                found.append(f"{words!r} on stderr: {self.last(words)}")
        if self.code == 70 and "internal error" not in self.stderr:
            found.append("exit 70")
        return found

    def last(self, words: str = "") -> str:
        """The last stderr line (holding ``words``, if any does), cut to 200 characters."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        holding = [line for line in lines if words and words in line]
        line = (holding or lines or [""])[-1].strip()
        return line if len(line) <= 200 else line[:197] + "..."


class Call:
    """A tool started in a session of its own, marked, with stdout and stderr to files."""

    def __init__(self, tool: str, args: list[object], *, cwd: Path, scratch: Path, env: dict[str, str] | None = None,
                 stdout: object = None, preexec=None) -> None:
        number = next(_numbers)
        self.mark = f"{os.getpid()}-{number}"
        self.argv = [sys.executable, "-m", TOOLS[tool], *map(str, args)]
        self.err_path = scratch / f"call-{number}.err"
        self.out_path = scratch / f"call-{number}.out"
        scratch.mkdir(parents=True, exist_ok=True)
        err = open(self.err_path, "wb")
        out = open(self.out_path, "wb") if stdout is None else stdout
        self.proc = subprocess.Popen(self.argv, cwd=cwd, env={**ENV, **(env or {}), MARK: self.mark},
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                                     preexec_fn=preexec)
        err.close()
        if stdout is None:
            out.close()
        self.started = time.monotonic()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def finish(self, *, idle: float = 20.0, cpu: float = 300.0) -> Ran:
        """Wait for the call to end by itself; end it (a fault) once blocked ``idle`` s or past ``cpu`` s."""
        stuck, used, still_since = None, 0.0, time.monotonic()
        while self.proc.poll() is None:
            time.sleep(0.05)
            now = cpu_of(self.pid)
            if now > used + 0.02:
                used, still_since = now, time.monotonic()
            elif time.monotonic() - still_since > idle:
                stuck = f"blocked: no CPU used for {idle:.0f} s (ended by the campaign)"
            if now > cpu:
                stuck = f"ran away: past {cpu:.0f} s of CPU (ended by the campaign)"
            if stuck:
                self.kill()
                self.proc.wait()
                break
        left = self._left()
        return Ran(self.argv, None if stuck else self.proc.returncode,
                   self.out_path.read_text(errors="replace") if self.out_path.exists() else "", self.stderr(),
                   used, stuck, left)

    def kill(self) -> None:
        for pid in set(session(self.pid)) | set(marked(self.mark)):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def _left(self) -> list[str]:
        """Processes of the call still alive 5 s after it ended (its session or its mark), then killed."""
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            alive = set(session(self.pid)) | set(marked(self.mark))
            if not alive:
                return []
            time.sleep(0.05)
        described = [f"{pid} {cmdline(pid)[:80]}" for pid in sorted(alive)]
        self.kill()
        return described


def run(tool: str, args: list[object], *, cwd: Path, scratch: Path, idle: float = 20.0, **options) -> Ran:
    """Start a call and wait for it (``Call.finish``)."""
    return Call(tool, args, cwd=cwd, scratch=scratch, **options).finish(idle=idle)


@dataclass
class Try:
    """One line of a campaign: what was tried, what came of it, and what did not hold (empty: held)."""

    part: str
    what: str
    outcome: str
    problems: list[str]

    def line(self) -> str:
        mark = "held" if not self.problems else "FAIL"
        said = f"{mark:4s} {self.part}: {self.what} -> {self.outcome}"
        return said + "".join(f"\n       ! {problem}" for problem in self.problems)
