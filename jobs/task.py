"""What the runner knows of a task, and nothing more: the task is a function from a chunk spec to
records, named by its kind, with its configuration's class and the names of what it writes in a run
directory. The runner and the store ask a ``Task`` instead of spelling another package's config
keys or file layout (a lower room that spells a higher room's names drifts from it silently)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic

from jobs.config import C, RunConfig


@dataclass(frozen=True)
class Task(Generic[C]):
    """A kind of run. ``run(spec) -> records`` runs one chunk (a module-level function, so it can be
    sent to worker processes); ``plan(config, ...) -> specs`` makes the chunk specs (each with
    ``chunk``, ``start`` and ``count``); ``config`` is the class of its configuration (``jobs.config``),
    which reads and checks a manifest's back; ``files`` and ``dirs`` are regular
    expressions of the paths, relative to the run directory, that a run of this task writes beside
    the runner's own (parts, CSV, manifest, log): the only other names ``--force`` may delete.
    ``engines(spec) -> names`` are the engines a chunk's worker uses (``sudoku.engines.warm``): each
    worker warms them before its first chunk, in parallel with the others, where the parent once did
    it before forking them, on every run's critical path (issue 28). On a cold numba cache each worker
    compiles them (minutes of CPU apiece, at the same wall time); the cache is warm after that."""

    kind: str
    run: Callable[..., Any]
    plan: Callable[..., list[dict[str, Any]]]
    config: type[C] = RunConfig  # type: ignore[assignment]  # a task of no kind of its own reads the runner's fields
    files: str = r"(?!)"
    dirs: str = r"(?!)"
    engines: Callable[[dict[str, Any]], list[str]] | None = None
