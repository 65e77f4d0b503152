"""Formatting helpers shared by the renderings: times, ratios, percentages. Times are scaled by the
schema's ``fmt_time`` (the one unit scaling, which ``sudoku-jobs show`` uses too); escaping of untrusted
text comes from ``sudoku.display`` (one escaping module for every renderer)."""

import math

from jobs.schema import fmt_time
from sudoku.display import md_code, md_text

__all__ = ["fmt_time", "fmt_ratio", "fmt_change", "fmt_size", "cell", "code"]


def fmt_ratio(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.3f}"


def fmt_change(value: float | None) -> str:
    """A ratio as a signed percentage change: 1.23 -> '+23.0 %'."""
    if value is None or math.isnan(value):
        return "-"
    return "+inf %" if math.isinf(value) else f"{(value - 1) * 100:+.1f} %"


def fmt_size(size: object) -> str:
    return "-" if size is None else f"{size}x{size}"


cell = md_text  # text in a Markdown table cell: HTML, pipes and line breaks escaped, optionally shortened
code = md_code  # inline code in a Markdown table cell
