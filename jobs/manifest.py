"""The manifest's schema and the run's plan: what ``manifest.json`` must hold, checked before any resume.

A manifest is trusted only after ``validate``: a hand-edited or foreign one (another kind of run, a
missing field, a wrong type) is refused with what is wrong, never met later as a KeyError. Its
``config.kind`` says which tool made it: ``batch`` (``sudoku-jobs``; a manifest without a kind is an
old batch run) or ``fuzz``.

The **plan** pins what a run will have done when complete: the cases and chunks, chunk size, seed,
engines or target, the input file's digest, the record schema's and the package's versions, and a
digest of every chunk spec. A resume re-plans from the config and refuses any difference (naming it),
so it can only finish the same run.
"""

import hashlib
import json
import os
from typing import Any, overload

from jobs import __version__
from jobs.config import BadConfig, BatchConfig, C, RunConfig
from jobs.schema import HISTORY, SCHEMA_VERSION

KINDS = {"batch": "sudoku-jobs run --resume", "fuzz": "fuzz run --resume"}
# finished_early: stopped as asked once enough cases failed (``fuzz run --max-failures``); never resumed
STATUSES = ("running", "complete", "interrupted", "failed", "finished_early")


MAX_BYTES = 64 << 20  # a manifest holds a digest per chunk: about 70 bytes each, a few MB at most


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON object of the manifest at ``path``, read as untrusted (a link, a FIFO, a huge or
    deeply nested file refused: ``sudoku.files``, ``sudoku.untrusted``): a ValueError saying why."""
    from sudoku.untrusted import loads

    from sudoku.files import read_small

    manifest = loads(read_small(path, MAX_BYTES), max_depth=64)
    if not isinstance(manifest, dict):
        raise ValueError("not a manifest (a JSON object is expected)")
    return manifest


class BadManifest(ValueError):
    """A manifest that does not match its schema; the message says which field and why."""


class OtherKind(ValueError):
    """A manifest of another kind of run (``found``) than the one asked for."""

    def __init__(self, found: str, wanted: str) -> None:
        super().__init__(f"a {found} run, not a {wanted} run")
        self.found = found


def kind_of(config: dict[str, Any]) -> str:
    kind: str = config.get("kind", "batch")
    return kind


def _check_schema_version(version: object) -> None:
    """Refuse a manifest of a record schema this version does not read (a newer one, or none): its
    records would be read, and a resume would add to them, by rules they were not written to."""
    if type(version) is not int or version not in HISTORY:
        raise BadManifest(f"schema_version {json.dumps(version)} is not one this version reads "
                          f"({min(HISTORY)} to {max(HISTORY)})")


@overload
def validate(manifest: object, *, kind: str | None = None, config: type[C]) -> C: ...
@overload
def validate(manifest: object, *, kind: str | None = None, config: None = None) -> RunConfig: ...
def validate(manifest: object, *, kind: str | None = None, config: type[RunConfig] | None = None) -> RunConfig:
    """The run's configuration (``jobs.config``) once ``manifest`` is checked: BadManifest (or OtherKind
    when ``kind`` is given and the run is another kind) unless it holds a config of a known kind with
    every field of the right type. ``config`` is the kind's class (``jobs.task.Task.config``); without
    it a batch run is read whole and another kind's runner fields alone."""
    if not isinstance(manifest, dict):
        raise BadManifest("not a JSON object")
    _check_schema_version(manifest.get("schema_version"))
    found_config = manifest.get("config")
    if not isinstance(found_config, dict):
        raise BadManifest("no config object: not a run manifest")
    found = kind_of(found_config)
    if found not in KINDS:
        raise BadManifest(f"config.kind is {found!r}, not a kind of run this tool knows ({', '.join(KINDS)})")
    if kind is not None and found != kind:
        raise OtherKind(found, kind)
    reader = config or (BatchConfig if found == "batch" else RunConfig)
    try:
        typed = reader.from_manifest(found_config)
    except BadConfig as error:
        raise BadManifest(str(error)) from None
    check_status(manifest)
    if "plan" in manifest and not isinstance(manifest["plan"], dict):
        raise BadManifest("plan must be an object")
    return typed


def check_status(manifest: dict[str, Any]) -> None:
    """BadManifest unless the manifest's status, when it has one, is one of STATUSES (for ``validate``,
    and for ``reports``, which reads manifests of every version without validating them)."""
    if "status" in manifest and manifest["status"] not in STATUSES:
        raise BadManifest(f"status must be one of {', '.join(STATUSES)}, not {json.dumps(manifest['status'])}")


def resume_command(manifest: dict[str, Any], path: object) -> str | None:
    """The command that finishes the run at ``path``, by its manifest's kind (None for a kind unknown,
    and for a run that finished early as asked: it is not resumed)."""
    if manifest.get("status") == "finished_early":
        return None
    config = manifest.get("config")
    tool = KINDS.get(kind_of(config if isinstance(config, dict) else {}))
    return f"{tool} {path}" if tool else None


def run_wall_s(manifest: dict[str, Any]) -> float:
    """The whole run's wall time, the one meaning of ``wall_s`` in every tool's output: the runner's
    cases (the manifest's own ``wall_s``) and the phases its task adds around them (``phases_s``: a
    fuzz run's pre-flight, replay, shrinking and confirming). A value of the wrong type counts 0."""
    def seconds(value: object) -> float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0

    phases = manifest.get("phases_s")
    return seconds(manifest.get("wall_s")) + sum(map(seconds, phases.values() if isinstance(phases, dict) else ()))


def digest(data: object) -> str:
    """The sha256 of JSON-able ``data`` (canonical form: sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def plan(config: RunConfig, specs: list[dict[str, Any]]) -> dict[str, Any]:
    """The plan of a run: what its config and chunk specs say it will hold when complete."""
    return {
        "cases": sum(spec["count"] for spec in specs), "chunks": len(specs), "chunk_size": config.chunk,
        "seed": config.seed, **config.pins(),
        "schema_version": SCHEMA_VERSION, "version": __version__, "specs_sha256": digest(specs),
    }


def plan_differences(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What differs between the plan a run recorded and the one its config makes now, for people."""
    differences = [f"{key} (the run's plan: {json.dumps(recorded.get(key))}, now: {json.dumps(current.get(key))})"
                   for key in sorted(set(recorded) | set(current))
                   if key != "specs_sha256" and recorded.get(key) != current.get(key)]
    if not differences and recorded.get("specs_sha256") != current.get("specs_sha256"):
        differences.append("the chunk specs (their digest differs)")
    return differences


def missing_or_extra(cases: list[int], specs: list[dict[str, Any]]) -> str | None:
    """Why ``cases`` (the case column of every saved row) is not exactly the planned cases once each;
    None when it is."""
    wanted = sorted(spec["start"] + i for spec in specs for i in range(spec["count"]))
    have = sorted(cases)
    if have == wanted:
        return None
    wanted_set, have_set = set(wanted), set(have)
    missing = sorted(wanted_set - have_set)
    extra = sorted(have_set - wanted_set)
    duplicated = len(have) - len(have_set)
    problems: list[str] = []
    if missing:
        problems.append(f"{len(missing)} planned cases missing (first {missing[0]})")
    if duplicated:
        problems.append(f"{duplicated} cases saved twice")
    if extra:
        problems.append(f"{len(extra)} cases not in the plan (first {extra[0]})")
    return f"{len(have)} rows for {len(wanted)} planned cases: " + ", ".join(problems)
