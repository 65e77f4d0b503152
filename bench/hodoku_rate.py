"""Rate puzzles with hodoku-py and append them to the calibration cache, one line at a time.

    PYTHONPATH=. python bench/bench_grade.py --write-missing /tmp/missing.txt   # the draw's unrated puzzles
    pypy3 bench/hodoku_rate.py /tmp/missing.txt [bench/hodoku_scores.tsv]

Needs only hodoku-py (no numpy, nor this package), so it runs under PyPy, where hodoku-py rates the
hard puzzles 1.5-2x faster than under CPython with the same scores (checked on three puzzles:
18156, 32604, 6130 both ways). hodoku-py asks for Python 3.11 but runs on Debian's PyPy 7.3.11
(Python 3.9): ``pypy3 -m venv V && V/bin/pip install --ignore-requires-python hodoku-py``. Puzzles
already in the output are skipped, so an interrupted run resumes; the seconds column is this
interpreter's.
"""

import os
import sys
import time

from hodoku import Solver


def main(source, out):
    done = set()
    if os.path.exists(out):
        with open(out) as cache:
            done = {line.split("\t")[0] for line in cache if line.strip()}
    solver = Solver()
    with open(source) as puzzles, open(out, "a") as cache:
        if not done:
            cache.write("puzzle\tscore\tlevel\tseconds\n")
        for line in puzzles.read().split():
            if line in done:
                continue
            start = time.perf_counter()
            rating = solver.rate(line)
            took = time.perf_counter() - start
            cache.write(f"{line}\t{rating.score}\t{rating.level.name.lower()}\t{took:.2f}\n")
            cache.flush()
            done.add(line)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__),
                                                                             "hodoku_scores.tsv"))
