"""A run's configuration as a typed value: one frozen dataclass per kind of run.

A run is fully described by its configuration. It is built and checked once at the edge (a tool's
options, or a manifest read back for ``--resume``: ``from_manifest``), read by attribute everywhere
after, and written into the manifest with its kind and ``config_version`` (``to_manifest``). A
misspelt field is then an error mypy finds, not a silent ``None`` from a dict; a field added is one
line here and its default, which is also what a manifest written before it reads as.

``RunConfig`` holds what the runner needs of any run; ``BatchConfig`` is ``sudoku-jobs run``'s and
``fuzz.config.FuzzConfig`` is ``fuzz run``'s (each room owns its kind; the runner knows the class only
through ``jobs.task.Task.config``). Every field says what it must be (``described``): a manifest that
breaks it is refused naming the field, "config.n must be an integer of at least 1, not 0".
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from sudoku.grid import MADE_SIDES

CONFIG_VERSION = 1  # of the fields below; a manifest without one was written before it (version 1)

Check = Callable[[Any], bool]
C = TypeVar("C", bound="RunConfig")


class BadConfig(ValueError):
    """A configuration that breaks its schema; the message names the field ("config.n ...")."""


def is_int(low: int | None = None) -> Check:
    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and (low is None or value >= low)
    return check


def optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def one_of(*choices: Any) -> Check:
    return lambda value: value in choices


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def described(what: str, check: Check, **options: Any) -> Any:
    """A field that must be ``what`` (said when a manifest breaks ``check``); ``options`` are
    ``dataclasses.field``'s (a ``default``: the value of a manifest written before the field)."""
    return dataclasses.field(metadata={"what": what, "check": check}, **options)


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """What the runner needs of any run. ``chunk_size`` is None only while a fuzz run is prepared
    (its pre-flight sizes the chunks); a run directory is never made without it."""

    kind: ClassVar[str] = ""
    run_id: str = described("a string", is_str)
    n: int = described("an integer of at least 1", is_int(1))
    seed: int = described("an integer", is_int())
    workers: int = described("an integer of at least 1", is_int(1))
    chunk_size: int | None = described("an integer of at least 1", is_int(1))
    backend: str = described("'local' or 'dask'", one_of("local", "dask"))
    scheduler: str | None = described("an address or null", optional(is_str))
    out: str = described("a path", is_str)

    @property
    def chunk(self) -> int:
        """The cases per chunk of a prepared run."""
        if self.chunk_size is None:
            raise ValueError("the run's chunks are not sized yet")
        return self.chunk_size

    def pins(self) -> dict[str, Any]:
        """What the run's plan pins beside its chunks (``jobs.manifest.plan``): a resume that would
        use other engines, another target or another input file is refused."""
        return {"engine": None, "check_engine": None, "target": None, "input_sha256": None}

    def to_manifest(self) -> dict[str, Any]:
        """The JSON object kept as the manifest's ``config``."""
        fields = {one.name: _jsonable(getattr(self, one.name)) for one in dataclasses.fields(self)}
        return {"kind": self.kind, "config_version": CONFIG_VERSION, **fields}

    @classmethod
    def from_manifest(cls: type[C], data: Mapping[str, Any]) -> C:
        """The configuration a manifest's ``config`` holds, each field checked (BadConfig naming the
        first that is wrong or missing). Names it does not know are left: a manifest may carry a field
        of a newer minor change, or of a kind's own that this class does not read (``RunConfig`` reads
        the runner's alone)."""
        version = data.get("config_version", 1)
        if not is_int(1)(version) or version > CONFIG_VERSION:
            raise BadConfig(f"config.config_version {json.dumps(version)} is not one this version reads "
                            f"(1 to {CONFIG_VERSION})")
        values: dict[str, Any] = {}
        hints = typing.get_type_hints(cls)
        for one in dataclasses.fields(cls):
            if one.name not in data:
                if one.default is dataclasses.MISSING and one.default_factory is dataclasses.MISSING:
                    raise BadConfig(f"config.{one.name} is missing")
                continue
            value = data[one.name]
            check = one.metadata.get("check")
            if check is not None and not check(value):
                raise BadConfig(f"config.{one.name} must be {one.metadata['what']}, not {json.dumps(value)}")
            values[one.name] = _typed(value, hints[one.name])
        return cls(**cls.upgraded(values))

    @classmethod
    def upgraded(cls, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` of a manifest written by an older version, brought to today's fields (a kind
        with such changes overrides it)."""
        return values


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(one) for one in value]
    if isinstance(value, dict):
        return {key: _jsonable(one) for key, one in value.items()}
    return value


def _typed(value: Any, hint: Any) -> Any:
    """``value`` read from JSON as the field's type: a list as a tuple where the field is one (JSON
    has no tuples), all else as it is."""
    return tuple(value) if isinstance(value, list) and _is_tuple(hint) else value


def _is_tuple(hint: Any) -> bool:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_is_tuple(arg) for arg in typing.get_args(hint))
    return typing.get_origin(hint) is tuple or hint is tuple


@dataclass(frozen=True, kw_only=True)
class BatchConfig(RunConfig):
    """``sudoku-jobs run``: ``n`` puzzles of ``size`` made by ``engine`` and checked by ``check_engine``,
    or one case per line of ``input`` (a file, pinned by ``input_sha256``)."""

    kind: ClassVar[str] = "batch"
    box: int = described("2, 3, 4 or 5", one_of(2, 3, 4, 5))
    size: int = described("4, 9, 16 or 25", one_of(*MADE_SIDES))
    input: str | None = described("a path or null", optional(is_str))
    engine: str = described("an engine name", is_str)
    check_engine: str = described("an engine name", is_str)
    blanks: int | None = described("a count or null", optional(is_int(0)))
    difficulty: str | None = described("a difficulty or null", optional(is_str))
    # absent in runs made before them
    input_sha256: str | None = described("a hex digest or null", optional(is_str), default=None)
    grade: bool = described("true or false", is_bool, default=False)
    canonical: bool = described("true or false", is_bool, default=False)
    engines_by_size: bool = described("true or false", is_bool, default=False)

    def pins(self) -> dict[str, Any]:
        return {**super().pins(), "engine": self.engine, "check_engine": self.check_engine,
                "input_sha256": self.input_sha256}
