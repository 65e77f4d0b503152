"""Budgets: how much work a solve or a create may do before it gives up.

Some puzzles take a search far longer than anyone will wait (a half-blank 36x36 grid sits at the
phase transition of quasigroup completion, where even SAT solvers take minutes), so every call that
searches can be bounded. A ``Budget`` caps propagation nodes, wall seconds, or both; engines charge
it as they go and it raises ``BudgetExceeded``, an error of ours, once either cap is passed. One
budget may be shared by several calls: ``sudoku create -n 5 --timeout 10`` gives the whole command
ten seconds, not each puzzle.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # typing costs ~2 ms at start-up, and the CLI imports this module on every call
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")


class BudgetExceeded(RuntimeError):
    """A search passed its node or time budget before it had an answer.

    ``nodes`` is the work done under the budget so far, ``seconds`` the wall time since it was made;
    the message names the limit reached (the CLI prints it and exits 124, as ``timeout`` does).
    """

    def __init__(self, message: str, *, nodes: int, seconds: float) -> None:
        super().__init__(message)
        self.nodes = nodes
        self.seconds = seconds


class Budget:
    """At most ``nodes`` search nodes and/or ``seconds`` of wall time from now (None: no cap).

    Engines call ``charge(n)`` after n nodes of work; it raises BudgetExceeded past either cap. The
    clock is read at each charge, so an engine charges every node or every few, never less often
    than it can afford to overrun.
    """

    __slots__ = ("nodes", "seconds", "spent", "start", "deadline")

    nodes: int | None
    seconds: float | None
    spent: int
    start: float
    deadline: float | None

    def __init__(self, *, nodes: int | None = None, seconds: float | None = None) -> None:
        if nodes is not None and nodes < 1:
            raise ValueError(f"a node budget must be at least 1, not {nodes}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a time budget must be more than 0 seconds, not {seconds}")
        self.nodes = nodes
        self.seconds = seconds
        self.spent = 0
        self.start = time.monotonic()
        self.deadline = None if seconds is None else self.start + seconds

    def charge(self, nodes: int = 1) -> None:
        """Count ``nodes`` more nodes of work; BudgetExceeded once a cap is passed."""
        self.spent += nodes
        if self.nodes is not None and self.spent > self.nodes:
            raise BudgetExceeded(
                f"node budget of {self.nodes} reached", nodes=self.spent, seconds=self.elapsed()
            )
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self.out_of_time()

    def out_of_time(self) -> BudgetExceeded:
        """The error for this budget's deadline passed (``charge`` raises it; so does ``within``)."""
        return BudgetExceeded(f"time limit of {self.seconds:g} s reached", nodes=self.spent, seconds=self.elapsed())

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None without a time cap); may be negative."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __repr__(self) -> str:
        return f"Budget(nodes={self.nodes}, seconds={self.seconds}, spent={self.spent})"


def within(budget: Budget | None, work: Callable[[Budget | None], T]) -> T:
    """``work(b)`` bounded by ``budget``, for work that charges a budget between its steps but
    cannot be stopped during one (a SAT solver in python-sat holds the GIL and ignores signals).

    With no deadline (or no ``os.fork``) it runs here, ``b`` being ``budget`` itself. With one, it
    runs in a forked child (``in_child``) that is killed at the deadline, whereupon the budget's
    BudgetExceeded; ``b`` is then a budget of the nodes ``budget`` has left, and what the child
    spent is charged to ``budget`` when it answers (so a node cap holds either way)."""
    seconds = None if budget is None else budget.remaining()
    if budget is None or seconds is None or not hasattr(os, "fork"):
        return work(budget)
    left = None if budget.nodes is None else max(1, budget.nodes - budget.spent)

    def bounded() -> tuple[T | None, int, str]:
        inner = Budget(nodes=left)
        try:
            return work(inner), inner.spent, ""
        except BudgetExceeded as error:
            return None, error.nodes, str(error)

    done = in_child(bounded, max(seconds, 0.0))
    if done is None:
        raise budget.out_of_time()
    result, spent, over = done
    budget.charge(spent)  # past the node cap when the child's budget, the nodes left, ran out
    if over:
        raise BudgetExceeded(over, nodes=budget.spent, seconds=budget.elapsed())
    return result  # type: ignore[return-value]  # None only with ``over`` set


def in_child(work: Callable[[], T], seconds: float) -> T | None:
    """``work()`` run in a forked child, its result pickled back; None if it has not answered within
    ``seconds`` (the child is then killed). For work that cannot be interrupted (a SAT solver in
    python-sat holds the GIL and ignores signals): a process is the one thing that can be stopped
    at a deadline. Needs ``os.fork`` (callers without it run the work unbounded).

    The child never outlives its parent, nor the deadline by more than a margin (``_bind_child``):
    the parent's ``finally`` kills it only if the parent lives to run it."""
    import pickle
    import select
    import signal

    from sudoku.interrupts import SIGNALS

    read, write = os.pipe()
    parent = os.getpid()
    # A stop signal handled in an at-fork hook would be lost (Python prints it and goes on solving):
    # blocked across the fork, it is acted on just after, where the ``finally`` below kills the child.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave at once (no atexit, no flushing the parent's buffers)
        status = 1
        try:
            os.close(read)
            _bind_child(parent, seconds)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            with os.fdopen(write, "wb") as out:
                out.write(pickle.dumps(work()))
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    end = time.monotonic() + seconds
    ended = 0  # the child's wait status
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        with os.fdopen(read, "rb") as answer:
            while not select.select([answer], [], [], max(end - time.monotonic(), 0.0))[0]:
                if time.monotonic() >= end:  # select may wake a little early: wait the deadline out
                    return None
            data = answer.read()
    finally:
        done, ended = os.waitpid(pid, os.WNOHANG)
        if not done:
            os.kill(pid, signal.SIGKILL)
            ended = os.waitpid(pid, 0)[1]
    if not data:
        # A parent stopped (Ctrl-Z) past the deadline finds its child ended by its own alarm
        # (``_bind_child``): the time limit was reached, not a bug.
        if time.monotonic() >= end or (os.WIFSIGNALED(ended) and os.WTERMSIG(ended) == signal.SIGALRM):
            return None
        raise RuntimeError("the bounded child ended without an answer")
    result: T = pickle.loads(data)
    return result


def _child_deadline(seconds: float) -> float:
    """When a bounded child ends itself: after its parent should have killed it (at ``seconds``),
    with a margin for a busy machine, so it only acts when the parent cannot (stopped, or slow)."""
    return seconds + max(1.0, 0.1 * seconds)


def _bind_child(parent: int, seconds: float) -> None:
    """Tie a child forked by ``in_child`` to its parent and deadline, before it starts work.

    It dies with ``parent`` (even one killed by SIGKILL), at ``_child_deadline`` by SIGALRM (whose
    default action ends a process even while C code holds the GIL; a stopped parent cannot delay it),
    and at once on SIGINT, SIGTERM or SIGHUP (the parent's Python handlers would wait for the GIL).
    Its stdout and stderr go to /dev/null: it answers through its pipe, and a caller's
    ``communicate()`` must not wait for a child that still holds them."""
    import signal

    from sudoku.interrupts import default_in_child, die_with

    die_with(parent)
    default_in_child()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, _child_deadline(seconds))
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)
