"""Interrupts: SIGINT, SIGTERM and SIGHUP as one thing to every command (DESIGN.md, CLI conventions).

Ctrl-C sends SIGINT; ``timeout``, ``docker stop``, systemd and CI cancellation send SIGTERM; a closed
terminal sends SIGHUP. All three mean "stop, keep what is finished". Python turns only SIGINT into an
exception: the other two end the process at once, with no cleanup, so a run stays ``running`` in its
manifest and a forked solver is left behind. ``Interrupts`` turns all three into ``Interrupted``, a
KeyboardInterrupt (so every ``except KeyboardInterrupt`` already in place handles it) that carries the
signal's number, hence the exit code 128+n (``exit_code``).

For command entry points and the runner only: a signal handler belongs to the whole process, so the
library proper never installs one. What the library does use is the other half of "no process outlives
its command": ``die_with``, for a forked child that must not outlive its parent even when the parent is
killed by SIGKILL, which no handler sees.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager

TYPE_CHECKING = False  # typing costs ~2 ms at start-up, and the CLI imports this module on every call
if TYPE_CHECKING:
    from collections.abc import Iterator

# SIGHUP does not exist on Windows.
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """The command was asked to stop by signal ``signum`` (SIGINT, SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(error: BaseException | None = None, *, signum: int | None = None) -> int:
    """128+n for the signal that stopped the command (``error``'s, else ``signum``); 130 (SIGINT)
    for a plain KeyboardInterrupt, which is what Python raises for Ctrl-C without our handler."""
    if signum is None:
        signum = getattr(error, "signum", signal.SIGINT)
    return 128 + int(signum)


class Interrupts:
    """A handler for SIGNALS, installed while in its ``with`` block (main thread only), that raises
    Interrupted, except inside ``deferred()``.

    There it only notes the signal, raised once the block is done: raised inside a writer's cleanup
    (``__del__``), a KeyboardInterrupt is ignored by Python, and a run would go on as if never
    interrupted. ``signum`` is the first signal received; blocks may nest, and an inner one passes
    what it received on to the outer one as it ends, so an entry point knows which signal stopped a
    command even when the runner's own handler caught it.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self.last: int | None = None  # the latest signal, and how many came (``held``)
        self.received = 0
        self.deferring = False
        self.previous: dict[int, object] = {}

    def __call__(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum
        self.last, self.received = signum, self.received + 1
        if not self.deferring:
            raise Interrupted(signum)

    def __enter__(self) -> Interrupts:
        try:
            self.previous = {signum: signal.signal(signum, self) for signum in SIGNALS}
        except ValueError:  # not the main thread (a run started from a thread): signals stay as they are
            self.previous = {}
        _children_default()
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self.previous.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]  # what signal.signal returned
            if isinstance(previous, Interrupts) and previous.signum is None:
                previous.signum = self.signum
        self.previous = {}

    @contextmanager
    def deferred(self, *, then_raise: bool = True) -> Iterator[None]:
        """Signals received in this block are noted, and raised as it ends (unless not ``then_raise``)."""
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.signum is not None and then_raise:
            raise Interrupted(self.signum)


@contextmanager
def held() -> Iterator[None]:
    """A stop signal that comes in this block is noted by the installed ``Interrupts`` and raised as
    the block ends (elsewhere, a worker whose default action ends it, nothing changes). For calls that
    run Python code inside a C callback that drops exceptions: numba compiles through llvmlite's
    object-cache callback (ctypes), where the KeyboardInterrupt our handler raised was printed and
    lost, and a fuzz run stopped while triage compiled a kernel went on to the end (1 time in 5, a QA
    try). Blocking the signal (``pthread_sigmask``) is not enough: any other thread (logging, a
    progress bar) takes it, and Python runs the handler on the main thread all the same."""
    handler = signal.getsignal(signal.SIGINT)
    if not isinstance(handler, Interrupts) or handler.deferring:
        yield
        return
    before = handler.received
    handler.deferring = True
    try:
        yield
    finally:
        handler.deferring = False
    if handler.received != before and handler.last is not None:
        raise Interrupted(handler.last)


def default_in_child() -> None:
    """In a forked child: SIGNALS back to their default action (end the process), where the parent
    had a Python handler. A child busy in C code (a SAT solver holding the GIL) would never run a
    Python handler, so only the default action stops it; a signal the parent ignores stays ignored."""
    for signum in SIGNALS:
        if callable(signal.getsignal(signum)):
            signal.signal(signum, signal.SIG_DFL)


_AT_FORK: list[bool] = []  # whether ``_children_default`` has registered its hook in this process


def _children_default() -> None:
    """Have every child this process forks (``os.fork``: multiprocessing, a Dask LocalCluster's worker
    processes) start with ``default_in_child``: a Dask worker forked while the handler was installed
    raised Interrupted in its event loop on a signal to the group, and printed its traceback."""
    if not _AT_FORK and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=default_in_child)
        _AT_FORK.append(True)


def die_with(parent: int) -> None:
    """Make this process (a child forked by ``parent``) die when ``parent`` does: PR_SET_PDEATHSIG
    with SIGKILL on Linux, else a watchdog thread that polls the parent's id.

    Without it, the children of a parent killed by SIGKILL live on: pool workers (~160 MB each), or a
    solve child at full CPU holding the caller's stdout. The parent may have died between the fork and
    the prctl, so the parent's id is checked after it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # 1 = PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError):
        import threading

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)
