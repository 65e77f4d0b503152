"""How far a first compile of the engines' kernels is, and how long the rest will take.

The first run after an install compiles each compiled engine's kernels into numba's on-disk cache:
about a minute of CPU each for ``nb`` and ``big`` on a quiet core, and seven minutes of wall time were
seen at load 18, where later runs load them in a fraction of a second. A fixed "a minute or two"
told a user nothing true there. ``watching`` counts our kernels as numba finishes compiling each
(its ``numba:compile`` event; numba's own helpers compiled on the way are not counted) and tells a
``Progress`` after each: kernels done of the total, the CPU seconds so far, and the seconds left,
estimated from the CPU time each kernel took so far and the share of the CPU this process gets (a
loaded machine gives it less: the wall estimate grows with it). A kernel loaded from the cache is
no compile, so a warm cache tells nothing and costs nothing.

Library code: it only calls ``tell``; the commands say it (``./dev``, ``jobs.runner``).
"""

from __future__ import annotations

import time
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

class Progress(namedtuple("Progress", "done total cpu_s left_s")):
    """Kernels compiled (``done``) of ``total``, the CPU seconds they took (``cpu_s``), and the wall
    seconds the rest should take at the CPU share this process has had (``left_s``)."""

    __slots__ = ()

    def words(self) -> str:
        """'12 of 68 kernels compiled, 41 s of CPU so far; about 3 min left': the estimate said as
        roughly as it is known."""
        if self.done >= self.total:  # those counted are done; one compiled again for another signature may follow
            return f"{self.done} kernels compiled, {self.cpu_s:.0f} s of CPU so far; finishing"
        left = f"{self.left_s:.0f} s" if self.left_s < 90 else f"{self.left_s / 60:.0f} min"
        return f"{self.done} of {self.total} kernels compiled, {self.cpu_s:.0f} s of CPU so far; about {left} left"

OURS = "sudoku.engines."  # the package whose numba functions are counted


def now_and_then(tell: Callable[[Progress], None], seconds: float) -> Callable[[Progress], None]:
    """``tell`` for ``watching`` that passes on a Progress at most every ``seconds``, and once when the
    kernels counted are all compiled (not again for each kernel compiled for another signature after
    them: those came a line each, eight in four seconds)."""
    said = [time.monotonic(), False]  # when last said; whether "all counted" was

    def told(progress: Progress) -> None:
        finished = progress.done >= progress.total
        if time.monotonic() - said[0] >= seconds or finished and not said[1]:
            said[0], said[1] = time.monotonic(), said[1] or finished
            tell(progress)

    return told


def kernels_of(engines: Iterable[ModuleType]) -> int:
    """How many numba functions the kernel modules of ``engines`` (engine modules, loaded) define
    that are compiled on their own on a cold cache: not those inlined into their callers
    (``inline="always"``, numba compiles no dispatcher of theirs)."""
    from numba.core.registry import CPUDispatcher

    modules = {id(value): value for engine in engines for value in vars(engine).values()
               if isinstance(value, ModuleType) and value.__name__.startswith(OURS)}
    return sum(1 for module in modules.values() for value in vars(module).values()
               if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
               and value.targetoptions.get("inline") != "always")


@contextmanager
def watching(total: int, tell: Callable[[Progress], None]) -> Iterator[None]:
    """Within the block, ``tell`` a Progress after each of our kernels numba compiles (``total``
    expected; more may come, a kernel compiled for a second signature, and the total grows then)."""
    from numba.core import event

    started_cpu, started_wall = time.process_time(), time.monotonic()
    done = 0

    class Counter(event.Listener):
        def on_start(self, happened: Any) -> None:
            pass

        def on_end(self, happened: Any) -> None:
            nonlocal done
            data = happened.data if isinstance(happened.data, dict) else {}
            function = getattr(data.get("dispatcher"), "py_func", None)
            if not getattr(function, "__module__", "").startswith(OURS):
                return
            done += 1
            cpu, wall = time.process_time() - started_cpu, time.monotonic() - started_wall
            whole = max(total, done)
            share = min(1.0, cpu / wall) if wall > 0 and cpu > 0 else 1.0
            tell(Progress(done, whole, cpu, cpu / done * (whole - done) / share))

    counter = Counter()
    event.register("numba:compile", counter)  # type: ignore[no-untyped-call]  # numba has no type information
    try:
        yield
    finally:
        event.unregister("numba:compile", counter)  # type: ignore[no-untyped-call]
