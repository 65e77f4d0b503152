"""bench/bench_tdoku.py without tdoku: what is missing is named, the exit status is 0, and nothing is
built, cloned or written outside the cache folder it was given (the bench itself runs in bench/)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bench(tmp_path, *args, **env):
    environ = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache"), **env}
    environ.pop("TDOKU_SRC", None)
    return subprocess.run([sys.executable, str(REPO / "bench" / "bench_tdoku.py"), *args], cwd=tmp_path,
                          env=environ, capture_output=True, text=True, timeout=60)


def test_a_missing_source_is_named_and_skipped(tmp_path):
    done = bench(tmp_path, "--tdoku-src", str(tmp_path / "nowhere"))
    assert done.returncode == 0, done.stderr
    assert "bench_tdoku: skipped: tdoku source" in done.stdout and "does not exist" in done.stdout
    assert not (tmp_path / "cache").exists()


def test_a_folder_that_is_not_tdoku_is_named_and_skipped(tmp_path):
    (tmp_path / "other").mkdir()
    done = bench(tmp_path, "--tdoku-src", str(tmp_path / "other"))
    assert done.returncode == 0, done.stderr
    assert "neither a tdoku source tree" in done.stdout


def test_no_compiler_is_named_and_skipped(tmp_path):
    done = bench(tmp_path, "--tdoku-src", str(tmp_path / "nowhere"), CC=str(tmp_path / "no-cc"))
    assert done.returncode == 0, done.stderr
    assert "bench_tdoku: skipped: no C compiler" in done.stdout
    assert not (tmp_path / "cache").exists()
