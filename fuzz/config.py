"""``fuzz run``'s configuration: the options as a typed value (``jobs.config``), and what the run's
prepare phase adds to them (``fuzz.engine.prepare``: who cannot start, who reads only spaced numbers,
whose contract's own spelling fails, the chunks' size, the pre-flight's time).

A target is kept as its spec (``fuzz.targets.make_target``'s keywords, a dict: it is what the worker
processes are sent and what ``fuzz replay`` lines spell), so a target's option added is not a change
here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from jobs.config import Check, RunConfig, described, is_bool, is_int, is_number, is_str, one_of, optional


def _is_target(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("spec"), str)


def _is_targets(value: Any) -> bool:
    return value is None or isinstance(value, list) and all(map(_is_target, value))


def _list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(map(check, value))


def _map_of(check: Check) -> Check:
    return lambda value: isinstance(value, dict) and all(map(check, value.values()))


@dataclass(frozen=True, kw_only=True)
class FuzzConfig(RunConfig):
    """A fuzz run: ``n`` cases asked of each of ``targets`` (``target`` is the first), judged strictly
    or not, by our ``check_engine`` or by a ``reference`` program; in a ``mode`` (solve, or check) and
    a ``size`` ("9", or "mixed"); ``families`` alone when chosen (``--family``).
    ``verdict_words``/``verdict_exit`` are a checker's own words and codes; ``sanitize`` builds the
    targets first (with ``build``); ``fail_*`` make more than bugs fail the run; ``max_failures``
    stops it early. The rest is the prepare phase's."""

    kind: ClassVar[str] = "fuzz"
    target: dict[str, Any] = described("a target object", _is_target)
    targets: tuple[dict[str, Any], ...] = described("a list of target objects", _is_targets, default=())
    strict: bool = described("true or false", is_bool)
    check_engine: str = described("an engine name", is_str)
    corpus: str = described("a path", is_str)
    reference: dict[str, Any] | None = described("a target object or null", optional(_is_target), default=None)
    size: str = described("a grid side or 'mixed'", lambda value: isinstance(value, (str, int)), default="9")
    mode: str = described("'solve' or 'check'", one_of("solve", "check"), default="solve")
    verdict_words: tuple[str, ...] | None = described("three words or null", optional(_list_of(is_str)),
                                                      default=None)
    verdict_exit: tuple[int, ...] | None = described("three exit codes or null", optional(_list_of(is_int())),
                                                     default=None)
    sanitize: bool = described("true or false", is_bool, default=False)
    build: str | None = described("a command or null", optional(is_str), default=None)
    fail_slow: bool = described("true or false", is_bool, default=False)
    fail_unconfirmed: bool = described("true or false", is_bool, default=False)
    fail_contract: bool = described("true or false", is_bool, default=False)
    families: tuple[str, ...] | None = described("a list of family names or null", optional(_list_of(is_str)),
                                                 default=None)
    max_failures: int | None = described("an integer of at least 1 or null", optional(is_int(1)), default=None)
    # the prepare phase's (``fuzz.engine.prepare``), by target spec
    cannot_start: dict[str, str] = described("an object of reasons", _map_of(is_str), default_factory=dict)
    cannot_start_said: dict[str, list[dict[str, Any]]] = described(
        "an object of calls", _map_of(_list_of(lambda one: isinstance(one, dict))), default_factory=dict)
    contract_breaks: dict[str, list[dict[str, Any]]] = described(
        "an object of calls", _map_of(_list_of(lambda one: isinstance(one, dict))), default_factory=dict)
    spaced_readers: tuple[str, ...] = described("a list of target specs", _list_of(is_str), default=())
    preflight_s: float = described("a number of seconds", is_number, default=0.0)

    @classmethod
    def upgraded(cls, values: dict[str, Any]) -> dict[str, Any]:
        """Runs made before several targets had only ``target``; before sizes, an int ``size``."""
        if not values.get("targets"):
            values["targets"] = (values["target"],)
        values["size"] = str(values.get("size", "9"))
        return values

    @property
    def side(self) -> int:
        """The side of the grids the pre-flight asks (9 for a run of mixed sizes)."""
        return 9 if self.size == "mixed" else int(self.size)

    @property
    def running(self) -> list[dict[str, Any]]:
        """The targets that could start (the run's cases are asked of these)."""
        return [spec for spec in self.targets if spec["spec"] not in self.cannot_start]

    @property
    def stride(self) -> int:
        """Records per case: one per target that could start (``fuzz.tasks.plan``)."""
        return max(1, len(self.running))

    def cases(self) -> dict[str, Any]:
        """What makes the run's case ``i`` (``fuzz.tasks.case_of``), as a chunk spec spells it."""
        return {"seed": self.seed, "n": self.n, "size": self.size, "mode": self.mode,
                **({"families": list(self.families)} if self.families else {})}

    def pins(self) -> dict[str, Any]:
        return {**super().pins(), "check_engine": self.check_engine, "target": self.target}
