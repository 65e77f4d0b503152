"""Formatting helpers shared by the renderings: times, ratios, percentages; escaping of untrusted text
comes from ``sudoku.display`` (one escaping module for every renderer)."""

import math

from sudoku.display import md_code, md_text


def fmt_time(seconds):
    """A time with a unit people read at a glance: '850 ns', '4.2 us', '12.3 ms', '1.50 s'."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    if math.isinf(seconds):
        return "inf"
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(seconds) >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    return f"{seconds} s"


def fmt_ratio(value):
    if value is None or math.isnan(value):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.3f}"


def fmt_change(value):
    """A ratio as a signed percentage change: 1.23 -> '+23.0 %'."""
    if value is None or math.isnan(value):
        return "-"
    return "+inf %" if math.isinf(value) else f"{(value - 1) * 100:+.1f} %"


def fmt_size(size):
    return "-" if size is None else f"{size}x{size}"


cell = md_text  # text in a Markdown table cell: HTML, pipes and line breaks escaped, optionally shortened
code = md_code  # inline code in a Markdown table cell
