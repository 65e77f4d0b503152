"""A run's configuration is a typed value (``jobs.config``, ``fuzz.config``): built once, read by
attribute, written to the manifest and read back the same, every field checked by name."""

import dataclasses
import json

import pytest
from hypothesis import given, strategies as st

from fuzz.config import FuzzConfig
from jobs.config import CONFIG_VERSION, BadConfig, BatchConfig, RunConfig
from jobs.manifest import BadManifest, validate
from jobs.schema import SCHEMA_VERSION

RUNNER = {"run_id": "t", "n": 30, "seed": 3, "workers": 1, "chunk_size": 10, "backend": "local", "scheduler": None,
          "out": "runs/t"}
BATCH = {**RUNNER, "box": 2, "size": 4, "input": None, "engine": "py", "check_engine": "dlx", "blanks": None,
         "difficulty": None}
FUZZ = {**RUNNER, "target": {"spec": "./sudoku", "timeout": 5.0}, "strict": False, "check_engine": "band",
        "corpus": "/tmp/corpus"}


def _through_json(config):
    """``config`` as the manifest keeps it and reads it back."""
    return type(config).from_manifest(json.loads(json.dumps(config.to_manifest())))


@given(n=st.integers(1, 10**6), seed=st.integers(0, 2**63), workers=st.integers(1, 64), chunk=st.integers(1, 5000),
       backend=st.sampled_from(["local", "dask"]), blanks=st.none() | st.integers(0, 81),
       grade=st.booleans(), canonical=st.booleans(), digest=st.none() | st.text("0123456789abcdef", min_size=64,
                                                                                 max_size=64))
def test_a_batch_config_reads_back_from_its_manifest_as_it_was(n, seed, workers, chunk, backend, blanks, grade,
                                                               canonical, digest):
    config = BatchConfig(**{**BATCH, "n": n, "seed": seed, "workers": workers, "chunk_size": chunk,
                            "backend": backend, "blanks": blanks, "grade": grade, "canonical": canonical,
                            "input_sha256": digest})
    assert _through_json(config) == config


@given(words=st.none() | st.just(("done", "partial", "bad")), codes=st.none() | st.just((0, 1, 2)),
       families=st.none() | st.lists(st.sampled_from(["unique_easy", "malformed_letters", "create"]), min_size=1,
                                     unique=True).map(tuple),
       readers=st.lists(st.sampled_from(["./a", "./b"]), unique=True).map(tuple), most=st.none() | st.integers(1, 9))
def test_a_fuzz_config_with_its_prepare_phase_reads_back_as_it_was(words, codes, families, readers, most):
    config = FuzzConfig(**{**FUZZ, "targets": (FUZZ["target"], {"spec": "./b"}), "verdict_words": words,
                           "verdict_exit": codes, "families": families, "spaced_readers": readers,
                           "max_failures": most, "cannot_start": {"./c": "no such file"},
                           "contract_breaks": {"./b": [{"call": "create", "line": "exits 4"}]}, "preflight_s": 0.25})
    again = _through_json(config)
    assert again == config and isinstance(again.targets, tuple)


def test_the_manifest_says_the_kind_and_the_version_of_its_config():
    kept = BatchConfig(**BATCH).to_manifest()
    assert kept["kind"] == "batch" and kept["config_version"] == CONFIG_VERSION
    assert FuzzConfig(**FUZZ).to_manifest()["kind"] == "fuzz"


def test_a_config_cannot_be_changed_after_it_is_built():
    config = BatchConfig(**BATCH)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.n = 5  # type: ignore[misc]
    assert dataclasses.replace(config, n=5).n == 5 and config.n == 30


@pytest.mark.parametrize("field, value, said", [
    ("n", 0, "config.n must be an integer of at least 1, not 0"),
    ("seed", "3", 'config.seed must be an integer, not "3"'),
    ("backend", "ssh", "config.backend must be 'local' or 'dask', not \"ssh\""),
    ("grade", "yes", 'config.grade must be true or false, not "yes"'),
    ("size", 7, "config.size must be 4, 9, 16 or 25, not 7"),
    ("chunk_size", None, "config.chunk_size must be an integer of at least 1, not null"),
])
def test_a_field_of_the_wrong_type_is_refused_by_its_name(field, value, said):
    with pytest.raises(BadConfig) as caught:
        BatchConfig.from_manifest({**BATCH, field: value})
    assert str(caught.value) == said


def test_a_missing_field_is_named_and_one_added_later_reads_as_its_default():
    with pytest.raises(BadConfig, match="^config.engine is missing$"):
        BatchConfig.from_manifest({key: value for key, value in BATCH.items() if key != "engine"})
    old = BatchConfig.from_manifest(BATCH)  # written before --grade, --canonical and the input digest
    assert (old.grade, old.canonical, old.input_sha256, old.engines_by_size) == (False, False, None, False)
    with pytest.raises(BadConfig, match="^config.target is missing$"):
        FuzzConfig.from_manifest(RUNNER)


def test_a_fuzz_run_from_before_several_targets_reads_its_one_target_as_the_list():
    old = FuzzConfig.from_manifest({**FUZZ, "targets": None, "size": 9})
    assert old.targets == (FUZZ["target"],) and old.size == "9" and old.stride == 1 and old.mode == "solve"


def test_a_config_of_a_newer_version_is_refused_not_misread():
    with pytest.raises(BadConfig, match="config_version 2 is not one this version reads"):
        BatchConfig.from_manifest({**BATCH, "config_version": CONFIG_VERSION + 1})


def test_the_manifest_check_gives_the_kinds_typed_config():
    manifest = {"schema_version": SCHEMA_VERSION, "config": {**FUZZ, "kind": "fuzz"}, "status": "running"}
    assert isinstance(validate(manifest, kind="fuzz", config=FuzzConfig), FuzzConfig)
    assert type(validate(manifest)) is RunConfig  # a tool that knows only the runner reads its fields alone
    batch = {**manifest, "config": {**BATCH, "kind": "batch"}}
    assert validate(batch) == BatchConfig(**BATCH)
    with pytest.raises(BadManifest, match="config.workers must be an integer of at least 1, not 0"):
        validate({**manifest, "config": {**FUZZ, "kind": "fuzz", "workers": 0}}, config=FuzzConfig)


def test_the_prepare_phase_fields_say_which_targets_run():
    config = FuzzConfig(**{**FUZZ, "targets": (FUZZ["target"], {"spec": "./b"}, {"spec": "./c"}),
                           "cannot_start": {"./b": "exits 127"}})
    assert [spec["spec"] for spec in config.running] == ["./sudoku", "./c"] and config.stride == 2
    assert config.cases() == {"seed": 3, "n": 30, "size": "9", "mode": "solve"}
    assert FuzzConfig(**{**FUZZ, "families": ("create",)}).cases()["families"] == ["create"]
