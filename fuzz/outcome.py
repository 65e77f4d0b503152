"""What a fuzz run came to (``Outcome``) and the saved reproducers that still fail (``Still``): made by
``fuzz.engine``, rendered by ``fuzz.summary``, which therefore need not import each other."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fuzz.config import FuzzConfig

Still = namedtuple("Still", "folder signature saved_as slow", defaults=(None,))
Still.__doc__ = """A saved reproducer that fails in a replay: its folder, its ``signature`` now, and the one it
was saved with (``saved_as``; None when case.json has none): a bug back, or failing another way; or,
with ``slow`` (how long it took given more CPU), a hang computing that answers given more time: slow,
not a failure (``real_failures``)."""


def real_failures(still: Sequence[Still]) -> list[Still]:
    """The reproducers of ``still`` that fail (not those only slow)."""
    return [one for one in still if one.slow is None]


class Outcome(namedtuple("Outcome", "manifest records saved replayed still run_dir run_corpus phases skipped",
                         defaults=(None, None, 0, (), None, None, None, 0))):
    """What a run came to: its manifest and records, the bugs saved (``triage.Saved``), the saved
    reproducers replayed and those that still fail, where it is, each phase's seconds, and how many
    corpus entries it could not replay (``skipped``, each named on stderr as it went)."""

    __slots__ = ()

    @property
    def config(self) -> FuzzConfig:
        """The run's configuration, as its manifest keeps it."""
        from fuzz.config import FuzzConfig  # dataclasses and typing: not for --help

        return FuzzConfig.from_manifest(self.manifest["config"])
