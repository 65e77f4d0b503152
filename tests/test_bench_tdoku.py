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


def test_relabel_renames_each_puzzles_digits_and_keeps_its_blanks():
    """``--relabel SEED`` (both nb benches): each puzzle's digits renamed by a permutation of its own,
    blanks kept, the same seed giving the same sets on both sides of a comparison."""
    import numpy as np

    from bench.bench_nb_vs_base import relabel

    puzzles = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] * 8 + [0], [9, 0, 8, 0, 7, 0, 6, 0, 5, 0] * 8 + [1]], np.uint8)
    assert relabel(puzzles, None) is puzzles
    renamed = relabel(puzzles, 3)
    assert (renamed == relabel(puzzles, 3)).all() and not (renamed == puzzles).all()
    assert ((renamed == 0) == (puzzles == 0)).all()
    for before, after in zip(puzzles, renamed):
        pairs = {(int(a), int(b)) for a, b in zip(before, after) if a}
        assert len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})  # a bijection
        assert {b for _, b in pairs} <= set(range(1, 10))
