"""Statistics on timing samples: percentiles, and a seeded block bootstrap of the ratio of medians.

Machine load shifts a whole run, not single cases: cases of one run are not independent. So the
bootstrap resamples the way the samples were made: **rounds** (the member runs of a run set, e.g.
CI's interleaved base/head rounds) with replacement, then the **chunks** of each picked round with
replacement, then the cases of each picked chunk (Poisson weights). With one round per side the
interval holds chunk-to-chunk and case-to-case noise only: it cannot separate load from code, which
is why the verdict asks more of a single run (see ``reports.verdict``).
"""

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from reports.settings import CONFIDENCE, RESAMPLES

PERCENTILES = (50, 90, 99)
_BATCH_CELLS = 4_000_000  # resampled weights held in memory at once


Array = npt.NDArray[Any]


def _poisson_table(size: int = 256) -> Array:
    """Poisson(1) counts for ``size`` equally likely bytes (a cheap draw of case weights, exact to 1/size)."""
    from math import exp, factorial

    cdf = np.cumsum([exp(-1) / factorial(k) for k in range(12)])
    return np.searchsorted(cdf, (np.arange(size) + 0.5) / size).astype(np.int32)


_POISSON = _poisson_table()


@dataclass(frozen=True)
class Ratio:
    """Ratio of medians, current over baseline, with its bootstrap confidence interval."""

    point: float
    low: float
    high: float


def percentiles(values: npt.ArrayLike, qs: tuple[float, ...] = PERCENTILES) -> list[float]:
    """The ``qs`` percentiles (0..100) of ``values``; NaNs when there are none."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return [float("nan")] * len(qs)
    return [float(v) for v in np.percentile(values, qs)]


def metric_rng(seed: int, name: str) -> np.random.Generator:
    """A generator seeded from ``seed`` and a metric's name, so a verdict is the same whatever the order."""
    return np.random.default_rng([int(seed), zlib.crc32(name.encode("utf-8"))])


def ratio(top: npt.ArrayLike, bottom: npt.ArrayLike) -> Array:
    """top / bottom elementwise, with 0/0 = 1 and x/0 = inf (times of exactly zero happen with coarse clocks)."""
    top, bottom = np.broadcast_arrays(np.atleast_1d(np.asarray(top, dtype=float)),
                                      np.atleast_1d(np.asarray(bottom, dtype=float)))
    out = np.where(top == 0, 1.0, np.inf)
    np.divide(top, bottom, out=out, where=bottom != 0)
    return out


def _codes(labels: npt.ArrayLike | None, n: int) -> Array:
    if labels is None:
        return np.zeros(n, dtype=np.int64)
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"{labels.shape[0] if labels.ndim else 0} labels for {n} values")
    return np.unique(labels.astype(str) if labels.dtype == object else labels, return_inverse=True)[1].ravel()


def rounds_of(rounds: npt.ArrayLike | None, n: int) -> int:
    """The number of distinct rounds among ``rounds`` (one when not given)."""
    return int(_codes(rounds, n).max()) + 1 if n else 0


def block_weights(rounds: Array, chunks: Array, resamples: int, rng: np.random.Generator) -> tuple[Array, Array]:
    """(resamples, blocks) counts: how often each (round, chunk) block is picked in each resample,
    and the block of each value. Rounds are picked with replacement, then chunks within each pick."""
    n = len(rounds)
    pair = rounds * (int(chunks.max()) + 1) + chunks
    blocks, block_of = np.unique(pair, return_inverse=True)
    block_round = blocks // (int(chunks.max()) + 1)
    per_round = np.bincount(block_round)                       # chunks in each round
    offsets = np.concatenate([[0], np.cumsum(per_round)[:-1]])  # first block of each round
    n_rounds = per_round.size
    picks = rng.integers(0, n_rounds, size=(resamples, n_rounds))
    size = per_round[picks]                                     # chunks to draw in each picked round
    widest = int(per_round.max())
    slot = np.arange(widest)
    chosen = offsets[picks][..., None] + np.floor(rng.random((resamples, n_rounds, widest)) * size[..., None]).astype(
        np.int64)
    valid = slot < size[..., None]
    flat = (np.arange(resamples)[:, None, None] * blocks.size + chosen)[valid]
    counts = np.bincount(flat, minlength=resamples * blocks.size).reshape(resamples, blocks.size).astype(np.int32)
    assert n == block_of.size
    return counts, block_of.ravel()


def bootstrap_medians(values: npt.ArrayLike, resamples: int, rng: np.random.Generator, *,
                      rounds: npt.ArrayLike | None = None, chunks: npt.ArrayLike | None = None) -> Array:
    """Medians of ``resamples`` block-bootstrap resamples of ``values`` (labelled by ``rounds`` and
    ``chunks``; without labels, a plain bootstrap of the cases)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    counts, block_of = block_weights(_codes(rounds, n), _codes(chunks, n), resamples, rng)
    order = np.argsort(values, kind="stable")
    ordered, ordered_block = values[order], block_of[order]
    medians = np.empty(resamples)
    batch = max(1, _BATCH_CELLS // max(n, 1))
    for start in range(0, resamples, batch):
        stop = min(resamples, start + batch)
        weights = counts[start:stop][:, ordered_block]
        weights *= _POISSON[rng.integers(0, _POISSON.size, size=(stop - start, n), dtype=np.uint8)]
        cumulative = np.cumsum(weights, axis=1, out=weights)
        total = cumulative[:, -1]
        rows = np.arange(stop - start)
        # The weighted median, the mean of the two middle values as np.median takes them: the first
        # value whose cumulative weight reaches half, and the next one when it reaches exactly half.
        low = np.argmax(cumulative * 2 >= total[:, None], axis=1)
        high = np.minimum(low + (cumulative[rows, low] * 2 == total), n - 1)
        medians[start:stop] = np.where(total > 0, (ordered[low] + ordered[high]) / 2, np.nan)
    return medians


def ratio_of_medians(base: npt.ArrayLike, head: npt.ArrayLike, *, rng: np.random.Generator, resamples: int = RESAMPLES,
                     confidence: float = CONFIDENCE, base_rounds: npt.ArrayLike | None = None,
                     base_chunks: npt.ArrayLike | None = None, head_rounds: npt.ArrayLike | None = None,
                     head_chunks: npt.ArrayLike | None = None) -> Ratio:
    """The ratio of medians head/base with a percentile interval at ``confidence`` from a block
    bootstrap of each side (rounds, then chunks, then cases)."""
    base = np.asarray(base, dtype=float)
    head = np.asarray(head, dtype=float)
    point = float(ratio(np.median(head), np.median(base))[0])
    ratios = ratio(bootstrap_medians(head, resamples, rng, rounds=head_rounds, chunks=head_chunks),
                   bootstrap_medians(base, resamples, rng, rounds=base_rounds, chunks=base_chunks))
    ratios = ratios[~np.isnan(ratios)]  # a resample that drew no case at all (tiny samples only)
    if ratios.size == 0:
        return Ratio(point, point, point)
    tail = (1 - confidence) / 2 * 100
    low = np.percentile(ratios, tail, method="lower")  # 'lower'/'higher': no interpolation between infinities
    high = np.percentile(ratios, 100 - tail, method="higher")
    return Ratio(point, float(low), float(high))


def round_spread(values: npt.ArrayLike, rounds: npt.ArrayLike | None) -> float:
    """The largest ratio between the medians of two rounds of one side (1.0 with fewer than two rounds):
    how far the same code moves between rounds on this machine."""
    values = np.asarray(values, dtype=float)
    codes = _codes(rounds, values.size)
    if values.size == 0 or codes.max() == 0:
        return 1.0
    medians = np.array([np.median(values[codes == r]) for r in range(int(codes.max()) + 1)])
    return float(ratio(medians.max(), medians.min())[0])
