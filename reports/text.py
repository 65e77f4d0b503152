"""Formatting helpers shared by the renderings: times, ratios, percentages, cell escaping."""

import math


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


def cell(text, limit=None):
    """Text safe in a Markdown table cell: no pipes or newlines, optionally shortened."""
    text = "" if text is None else str(text)
    text = text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")
    if limit and len(text) > limit:
        text = text[: limit - 3] + "..."
    return text
