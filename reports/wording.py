"""Words for changes and verdicts that say what is true, shared by the Markdown and HTML renderings.

- ``change_text``: a ratio of medians as a change people read at a glance: '+23.0 %' for small ones,
  '329x slower' or '12x faster' once a side is twice the other.
- ``verdict_text``: a metric's verdict, or for an unchanged one its reading ('faster, but not surely
  by 10 %'), with the note that qualifies it.
"""

import math

from reports.verdict import UNCHANGED

FACTOR_FROM = 2.0  # from twice (or half) the baseline on, a change reads as a factor


def change_text(ratio):
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


def ratio_label(ratio):
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


def verdict_text(metric):
    """(headline, note) of a metric: its verdict, or the reading of an unchanged one, and the note."""
    if metric.verdict == UNCHANGED and metric.reading:
        return metric.reading, metric.note
    return metric.verdict, metric.note

