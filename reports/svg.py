"""Plots as inline SVG strings, drawn with no plotting library: distributions and ratio intervals.

- ``distributions``: one horizontal box per sample set (box p25..p75, median bar, whiskers p5..p95)
  over a strip of the samples, on a log time axis.
- ``intervals``: one row per metric: the ratio of medians with its confidence interval, over a band
  of 1 +- threshold, coloured by verdict.
"""

import math
from html import escape

import numpy as np

from reports.text import fmt_time

COLOURS = {"baseline": "#6c8ebf", "current": "#d79b00", "regression": "#c0392b", "improvement": "#27ae60",
           "unchanged": "#555555", "not comparable": "#aaaaaa"}
PALETTE = ["#6c8ebf", "#d79b00", "#82b366", "#9673a6", "#b85450", "#23445d", "#d6b656", "#666666"]
STRIP_POINTS = 300
FONT = 'font-family="sans-serif" font-size="11"'


def _svg(width, height, body, title):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img"><title>{escape(title)}</title>{"".join(body)}</svg>')


def _strip(samples, limit=STRIP_POINTS):
    """At most ``limit`` samples, evenly spread over the sorted samples (deterministic)."""
    ordered = np.sort(samples)
    if ordered.size <= limit:
        return ordered
    return ordered[np.linspace(0, ordered.size - 1, limit).astype(int)]


def _label_room(labels, minimum):
    """Pixels left of the plot for its longest label (about 6.5 px a character at FONT's size)."""
    return max(minimum, int(6.5 * max((len(label) for label in labels), default=0)) + 16)


def distributions(title, groups, *, width=640):
    """Box-and-strip plot of ``groups``: a list of (label, samples, colour or None)."""
    groups = [(label, np.asarray(samples, dtype=float), colour) for label, samples, colour in groups]
    positive = np.concatenate([s[s > 0] for _, s, _ in groups] or [np.empty(0)])
    left, right, row, top = _label_room([f"{label} (n={s.size})" for label, s, _ in groups], 150), 20, 34, 22
    width = max(width, left + 490)
    height = top + row * max(1, len(groups)) + 30
    body = [f'<text x="{left}" y="14" {FONT} font-weight="bold">{escape(title)}</text>']
    if positive.size == 0:
        body.append(f'<text x="{left}" y="{top + 20}" {FONT}>no positive samples</text>')
        return _svg(width, height, body, title)
    lo, hi = math.floor(math.log10(positive.min())), math.ceil(math.log10(positive.max()))
    hi = max(hi, lo + 1)
    span = width - left - right

    def x(value):
        value = max(value, 10.0 ** lo)
        return left + (math.log10(value) - lo) / (hi - lo) * span

    axis_y = top + row * len(groups) + 4
    for decade in range(lo, hi + 1):
        px = x(10.0 ** decade)
        body.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{axis_y}" stroke="#e5e5e5"/>')
        body.append(f'<text x="{px:.1f}" y="{axis_y + 14}" {FONT} text-anchor="middle">{fmt_time(10.0 ** decade)}</text>')
    body.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#333"/>')
    for index, (label, samples, colour) in enumerate(groups):
        colour = colour or PALETTE[index % len(PALETTE)]
        mid = top + row * index + row / 2
        body.append(f'<text x="{left - 6}" y="{mid + 4:.1f}" {FONT} text-anchor="end">{escape(label)} '
                    f'(n={samples.size})</text>')
        if samples.size == 0:
            continue
        for k, value in enumerate(_strip(samples)):
            jitter = ((k * 7919) % 13 - 6) * 0.9
            body.append(f'<circle cx="{x(value):.1f}" cy="{mid + jitter:.1f}" r="1.3" fill="{colour}" '
                        'fill-opacity="0.35"/>')
        p5, p25, p50, p75, p95 = np.percentile(samples, [5, 25, 50, 75, 95])
        body.append(f'<line x1="{x(p5):.1f}" y1="{mid:.1f}" x2="{x(p95):.1f}" y2="{mid:.1f}" stroke="{colour}"/>')
        body.append(f'<rect x="{x(p25):.1f}" y="{mid - 8:.1f}" width="{max(x(p75) - x(p25), 1):.1f}" height="16" '
                    f'fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>')
        body.append(f'<line x1="{x(p50):.1f}" y1="{mid - 10:.1f}" x2="{x(p50):.1f}" y2="{mid + 10:.1f}" '
                    f'stroke="{colour}" stroke-width="2.5"><title>median {fmt_time(p50)}</title></line>')
    return _svg(width, height, body, title)


def intervals(title, rows, *, threshold, width=640):
    """Ratio-interval plot: ``rows`` of (label, point, low, high, verdict); point None = not comparable."""
    finite = [v for _, p, lo, hi, _ in rows if p is not None for v in (p, lo, hi) if math.isfinite(v) and v > 0]
    lo = min([1 - 2 * threshold, *finite]) * 0.95
    hi = max([1 + 2 * threshold, *finite]) * 1.05
    lo, hi = math.log(max(lo, 1e-3)), math.log(hi)
    left, right, row, top = _label_room([label for label, *_ in rows], 230), 20, 22, 22
    width = max(width, left + 410)
    height = top + row * max(1, len(rows)) + 30
    span = width - left - right

    def x(value):
        value = min(max(value, math.exp(lo)), math.exp(hi))
        return left + (math.log(value) - lo) / (hi - lo) * span

    axis_y = top + row * len(rows) + 4
    body = [f'<text x="{left}" y="14" {FONT} font-weight="bold">{escape(title)}</text>',
            f'<rect x="{x(1 - threshold):.1f}" y="{top}" width="{x(1 + threshold) - x(1 - threshold):.1f}" '
            f'height="{axis_y - top}" fill="#f2f2f2"/>']
    ticks = sorted({1 - threshold, 1.0, 1 + threshold, *[t for t in (0.25, 0.5, 2, 4, 8) if lo < math.log(t) < hi]})
    for tick in ticks:
        px = x(tick)
        body.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{axis_y}" stroke="'
                    f'{"#333" if tick == 1 else "#ccc"}" stroke-dasharray="{"" if tick == 1 else "3,3"}"/>')
        body.append(f'<text x="{px:.1f}" y="{axis_y + 14}" {FONT} text-anchor="middle">{tick:g}</text>')
    body.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#333"/>')
    for index, (label, point, low, high, verdict) in enumerate(rows):
        mid = top + row * index + row / 2
        colour = COLOURS.get(verdict, "#555")
        body.append(f'<text x="{left - 6}" y="{mid + 4:.1f}" {FONT} text-anchor="end">{escape(label)}</text>')
        if point is None:
            body.append(f'<text x="{left + 4}" y="{mid + 4:.1f}" {FONT} fill="{colour}">not comparable</text>')
            continue
        body.append(f'<line x1="{x(low):.1f}" y1="{mid:.1f}" x2="{x(high):.1f}" y2="{mid:.1f}" stroke="{colour}" '
                    f'stroke-width="3"/>')
        body.append(f'<circle cx="{x(point):.1f}" cy="{mid:.1f}" r="4" fill="{colour}"><title>{escape(label)}: '
                    f'{point:.3f} [{low:.3f}, {high:.3f}] {escape(verdict)}</title></circle>')
    return _svg(width, height, body, title)
