"""A run directory's lock: RUN/.lock, held (flock) by the process that runs it for its whole life.
Part of the run directory's contract with its readers, beside the record schema: a manifest that
says ``running`` is a run going on only while some process holds the lock (one killed by SIGKILL, or
whose machine went down, holds nothing). ``sudoku-jobs show`` and ``reports`` ask it here."""

from __future__ import annotations

import fcntl
import os
from os import PathLike

LOCK_NAME = ".lock"


def held(run_path: str | PathLike[str]) -> bool:
    """Whether a process holds the run's lock now; a test, not a hold: a shared lock taken and let go
    at once, so a runner that starts meanwhile waits a moment, as for a dying run."""
    try:
        # O_NONBLOCK: a FIFO planted as .lock would block a reading open until some writer came
        fd = os.open(os.path.join(run_path, LOCK_NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False  # no lock file (or not one we made): nobody can hold it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing lets go of a lock taken
    return False
