"""Statistics on timing samples: percentiles and a seeded bootstrap of the ratio of medians."""

import zlib
from dataclasses import dataclass

import numpy as np

from reports.settings import CONFIDENCE, RESAMPLES

PERCENTILES = (50, 90, 99)
_BATCH_CELLS = 4_000_000  # resampled values held in memory at once


@dataclass(frozen=True)
class Ratio:
    """Ratio of medians, current over baseline, with its bootstrap confidence interval."""

    point: float
    low: float
    high: float


def percentiles(values, qs=PERCENTILES):
    """The ``qs`` percentiles (0..100) of ``values``; NaNs when there are none."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return [float("nan")] * len(qs)
    return [float(v) for v in np.percentile(values, qs)]


def metric_rng(seed, name):
    """A generator seeded from ``seed`` and a metric's name, so a verdict is the same whatever the order."""
    return np.random.default_rng([int(seed), zlib.crc32(name.encode("utf-8"))])


def ratio(top, bottom):
    """top / bottom elementwise, with 0/0 = 1 and x/0 = inf (times of exactly zero happen with coarse clocks)."""
    top, bottom = np.broadcast_arrays(np.atleast_1d(np.asarray(top, dtype=float)),
                                      np.atleast_1d(np.asarray(bottom, dtype=float)))
    out = np.where(top == 0, 1.0, np.inf)
    np.divide(top, bottom, out=out, where=bottom != 0)
    return out


def bootstrap_medians(values, resamples, rng):
    """Medians of ``resamples`` resamples (with replacement) of ``values``."""
    values = np.asarray(values, dtype=float)
    n = values.size
    batch = max(1, _BATCH_CELLS // n)
    medians = np.empty(resamples)
    for start in range(0, resamples, batch):
        stop = min(resamples, start + batch)
        picks = rng.integers(0, n, size=(stop - start, n))
        medians[start:stop] = np.median(values[picks], axis=1)
    return medians


def ratio_of_medians(base, head, *, rng, resamples=RESAMPLES, confidence=CONFIDENCE):
    """The ratio of medians head/base with a percentile-bootstrap interval at ``confidence``."""
    base = np.asarray(base, dtype=float)
    head = np.asarray(head, dtype=float)
    point = float(ratio(np.median(head), np.median(base))[0])
    ratios = ratio(bootstrap_medians(head, resamples, rng), bootstrap_medians(base, resamples, rng))
    tail = (1 - confidence) / 2 * 100
    low = np.percentile(ratios, tail, method="lower")  # 'lower'/'higher': no interpolation between infinities
    high = np.percentile(ratios, 100 - tail, method="higher")
    return Ratio(point, float(low), float(high))
