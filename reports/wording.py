"""Words for changes and verdicts that say what is true, shared by the Markdown and HTML renderings.

- ``change_text``: a ratio of medians as a change people read at a glance: '+23.0 %' for small ones,
  '329x slower' or '12x faster' once a side is twice the other.
- ``verdict_text``: a metric's verdict, or for an unchanged one its reading ('faster, but not surely
  by 10 %'), with the note that qualifies it.
- ``rule_text`` and ``band_text``: the rule a metric was judged by, as applied ('above 1.5 or below
  0.667: one run on a side'), for the JUnit text and the caption of the plot's band; never the
  nominal threshold alone, which a single run does not use.
"""

import math
from collections.abc import Iterable

from reports.verdict import UNCHANGED, Metric

FACTOR_FROM = 2.0  # from twice (or half) the baseline on, a change reads as a factor


def change_text(ratio: float | None) -> str:
    """A ratio current/baseline: 1.23 -> '+23.0 %', 329.3 -> '329x slower', 0.083 -> '12x faster'."""
    if ratio is None or math.isnan(ratio):
        return "-"
    if math.isinf(ratio):
        return "slower (the baseline took no time)"
    if ratio == 0:
        return "faster (takes no time)"
    if ratio >= FACTOR_FROM:
        return f"{ratio:.3g}x slower"
    if ratio <= 1 / FACTOR_FROM:
        return f"{1 / ratio:.3g}x faster"
    return f"{(ratio - 1) * 100:+.1f} %"


def ratio_label(ratio: float | None) -> str:
    """A short label for a ratio on a plot: '0.9', '1.05', '329x', '1/12x'."""
    if ratio is None or not math.isfinite(ratio) or ratio <= 0:
        return "-"
    if ratio >= 10:
        return f"{ratio:.0f}x"
    if ratio >= FACTOR_FROM:
        return f"{ratio:.2g}x"
    if ratio <= 1 / 10:
        return f"1/{1 / ratio:.0f}x"
    if ratio <= 1 / FACTOR_FROM:
        return f"1/{1 / ratio:.2g}x"
    return f"{ratio:.3g}"


def verdict_text(metric: Metric) -> tuple[str, str]:
    """(headline, note) of a metric: its verdict, or the reading of an unchanged one, and the note."""
    if metric.verdict == UNCHANGED and metric.reading:
        return metric.reading, metric.note
    return metric.verdict, metric.note



def band_words(floor: float, ceiling: float, single: bool) -> str:
    """A band as people read it: 'x1.5 either way (one run on a side)' or '1 -10 % .. +10 %'."""
    if single:
        return f"x{ceiling:g} either way, {floor:.3g} .. {ceiling:.3g} (one run on a side)"
    return f"{floor:.3g} .. {ceiling:.3g} ({(floor - 1) * 100:+.3g} % .. {(ceiling - 1) * 100:+.3g} %)"


def rule_text(metric: Metric) -> str:
    """The rule ``metric`` was judged by, as applied: where its whole interval had to lie for a verdict,
    and the spread between rounds when that guard was wider; '' when it was not judged."""
    if metric.band is None:
        return ""
    floor, ceiling = metric.band
    text = (f"regression when the whole interval lies above {ceiling:.3g}, improvement below {floor:.3g}"
            + (" (one run on a side: a factor either way)" if metric.single else ""))
    if metric.spread > 1:
        text += f", and the ratio past the spread between rounds of one side (x{metric.spread:.2f})"
    return text


def band_text(metrics: Iterable[Metric]) -> str:
    """The caption of a plot's grey band over ``metrics``: the band of each judged metric, said once
    when they share it."""
    bands = dict.fromkeys((m.band, m.single) for m in metrics if m.band is not None)
    return "; ".join(band_words(*band, single) for band, single in bands)
