"""Plots as inline SVG strings, drawn with no plotting library: distributions, ratio intervals, trends.

- ``distributions``: one horizontal box per sample set (box p25..p75, median bar, whiskers p5..p95)
  over a strip of the samples, on a log time axis; given which samples failed, the points are
  coloured passed or failed, with a legend.
- ``intervals``: one row per metric: the ratio of medians with its confidence interval, over the
  band its verdict was judged by (the whole interval past it is a verdict: x1.5 either way with one
  run on a side, 1 +- threshold with rounds), coloured by verdict, on a log axis; each point labelled
  with its ratio where the line at 1 does not cross the label, and the axis ticks thinned
  (``thin_labels``) so that no two labels touch.
- ``trend``: one metric over commits (``reports history``): medians joined by a line, p25..p75 bars,
  a labelled dashed line at each step change; the trends of one history share one factor from bottom
  to top, written under each axis, so +21 % never looks like +91 %.
"""

import math
from collections.abc import Iterable, Sequence
from html import escape as _escape
from typing import Any

import numpy as np
import numpy.typing as npt

from sudoku.display import visible
from reports.text import fmt_time


def escape(text: object) -> str:
    """Text fit for SVG: markup escaped, and no control byte of a target's (NUL is a parse error)."""
    return _escape(visible(text))

COLOURS = {"baseline": "#6c8ebf", "current": "#d79b00", "regression": "#c0392b", "improvement": "#27ae60",
           "unchanged": "#555555", "not comparable": "#aaaaaa", "passed": "#3b7dd8", "failed": "#d62728",
           "box": "#777777"}
PALETTE = ["#6c8ebf", "#d79b00", "#82b366", "#9673a6", "#b85450", "#23445d", "#d6b656", "#666666"]
STRIP_POINTS = 300
FONT = 'font-family="sans-serif" font-size="11"'


Box = tuple[float, float, float, float]


def _svg(width: float, height: float, body: Iterable[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img"><title>{escape(title)}</title>{"".join(body)}</svg>')


def _strip(samples: npt.NDArray[Any], limit: int = STRIP_POINTS) -> npt.NDArray[np.intp]:
    """Indexes of at most ``limit`` samples, evenly spread over the sorted samples (deterministic)."""
    order = np.argsort(samples, kind="stable")
    if order.size <= limit:
        return order
    picked: npt.NDArray[np.intp] = order[np.linspace(0, order.size - 1, limit).astype(int)]
    return picked


def _legend(x: float, y: float, failed: Sequence[Any]) -> list[str]:
    """'o passed (n)  o failed (n)' from ``x`` at baseline ``y``: what the points' colours mean."""
    body, total = [], np.concatenate(failed) if failed else np.empty(0, bool)
    for name, count in (("passed", int((~total).sum())), ("failed", int(total.sum()))):
        text = f"{name} ({count})"
        body.append(f'<circle cx="{x + 4:.1f}" cy="{y - 4}" r="4" fill="{COLOURS[name]}"/>'
                    f'<text x="{x + 12:.1f}" y="{y}" {FONT}>{text}</text>')
        x += 24 + text_width(text)
    return body


def _label_room(labels: Iterable[str], minimum: int) -> int:
    """Pixels left of the plot for its longest label (about 6.5 px a character at FONT's size)."""
    return max(minimum, int(6.5 * max((len(label) for label in labels), default=0)) + 16)


def distributions(title: str, groups: Iterable[tuple[str, Any, str | None]], *, width: int = 640,
                  failed: Sequence[Any] | None = None) -> str:
    """Box-and-strip plot of ``groups``: a list of (label, samples, colour or None). With ``failed`` (one
    boolean array per group: that sample's case failed) the points say pass or fail, in the colours of
    a legend, over grey boxes: so a colour always means something."""
    groups = [(label, np.asarray(samples, dtype=float), colour) for label, samples, colour in groups]
    if failed is not None:
        failed = [np.asarray(mask, dtype=bool) for mask in failed]
        groups = [(label, samples, COLOURS["box"]) for label, samples, _ in groups]
    positive = np.concatenate([s[s > 0] for _, s, _ in groups] or [np.empty(0)])
    left, right, row, top = _label_room([f"{label} (n={s.size})" for label, s, _ in groups], 150), 20, 34, 22
    width = max(width, left + 490)
    height = top + row * max(1, len(groups)) + 30
    body = [f'<text x="{left}" y="14" {FONT} font-weight="bold">{escape(title)}</text>']
    if failed is not None:
        body += _legend(max(left + text_width(title) + 20, width - right - 190), 14, failed)
    if positive.size == 0:
        body.append(f'<text x="{left}" y="{top + 20}" {FONT}>no positive samples</text>')
        return _svg(width, height, body, title)
    lo, hi = math.floor(math.log10(positive.min())), math.ceil(math.log10(positive.max()))
    hi = max(hi, lo + 1)
    span = width - left - right

    def x(value: float) -> float:
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
        for k, at in enumerate(_strip(samples)):
            jitter = ((k * 7919) % 13 - 6) * 0.9
            bad = failed is not None and failed[index][at]
            dot = COLOURS["failed" if bad else "passed"] if failed is not None else colour
            body.append(f'<circle cx="{x(samples[at]):.1f}" cy="{mid + jitter:.1f}" r="{1.8 if bad else 1.3}" '
                        f'fill="{dot}" fill-opacity="{0.7 if failed is not None else 0.35}"/>')
        p5, p25, p50, p75, p95 = np.percentile(samples, [5, 25, 50, 75, 95])
        body.append(f'<line x1="{x(p5):.1f}" y1="{mid:.1f}" x2="{x(p95):.1f}" y2="{mid:.1f}" stroke="{colour}"/>')
        body.append(f'<rect x="{x(p25):.1f}" y="{mid - 8:.1f}" width="{max(x(p75) - x(p25), 1):.1f}" height="16" '
                    f'fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>')
        body.append(f'<line x1="{x(p50):.1f}" y1="{mid - 10:.1f}" x2="{x(p50):.1f}" y2="{mid + 10:.1f}" '
                    f'stroke="{colour}" stroke-width="2.5"><title>median {fmt_time(p50)}</title></line>')
    return _svg(width, height, body, title)


def text_width(text: str) -> float:
    """The width in pixels of ``text`` at FONT's size, a little generous (6.5 px a character)."""
    return 6.5 * len(text)


def _overlaps(box: Box, kept: Iterable[Box], gap: float = 4) -> bool:
    x0, y0, x1, y1 = box
    return any(x0 < k1 + gap and k0 < x1 + gap and y0 < l1 and l0 < y1 for k0, l0, k1, l1 in kept)


def thin_labels(candidates: Iterable[tuple[float, str]], *, low: float, high: float) -> list[tuple[float, str]]:
    """The labels that fit: ``candidates`` are (x, text) in order of priority, centred at x on one line;
    a label is kept when it lies within low..high and clear of every label kept before it."""
    kept: list[tuple[float, str]] = []
    boxes: list[Box] = []
    for x, text in candidates:
        half = text_width(text) / 2
        box = (x - half, 0, x + half, 1)
        if x - half < low or x + half > high or _overlaps(box, boxes):
            continue
        kept.append((x, text))
        boxes.append(box)
    return kept


def ratio_ticks(lo: float, hi: float, edges: Iterable[float]) -> list[float]:
    """Candidate ticks of a ratio axis from ``lo`` to ``hi``, by priority: 1, the bands' ``edges``, then
    1, 2, 5 times each power of ten (the caller thins them to those that fit)."""
    nice = sorted({m * 10.0 ** d for d in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                   for m in (1, 2, 5)}, key=lambda t: abs(math.log(t)))
    ticks = [1.0, *edges] + [t for t in nice if t not in (1.0,)]
    return [t for t in ticks if lo <= t <= hi]


def _tick_text(value: float) -> str:
    return f"{value:.3g}"


def place_label(text: str, *, low: float, high: float, point: float, mid: float, left: float, right: float,
                avoid: Iterable[float]) -> tuple[float, float, str]:
    """Where a point's label goes: (x, y, anchor), the first of right of its interval, left of it, just
    above the point, or above it beside a line to avoid, that lies within ``left``..``right`` and clear
    of every x in ``avoid`` (the line at 1); if none is clear, the first that fits."""
    width = text_width(text)
    spots = [(high + 8, mid + 4, "start", high + 8, high + 8 + width),
             (low - 8, mid + 4, "end", low - 8 - width, low - 8),
             (point + 6, mid - 3, "start", point + 6, point + 6 + width),
             (point - 6, mid - 3, "end", point - 6 - width, point - 6)]
    for line in avoid:
        spots += [(line + 5, mid - 3, "start", line + 5, line + 5 + width),
                  (line - 5, mid - 3, "end", line - 5 - width, line - 5)]
    fits = [spot for spot in spots if spot[3] >= left and spot[4] <= right]
    clear = [spot for spot in fits if not any(spot[3] - 2 <= x <= spot[4] + 2 for x in avoid)]
    x, y, anchor, _, _ = (clear or fits or spots[2:])[0]
    return x, y, anchor


def intervals(title: str, rows: Sequence[tuple[str, Any, Any, Any, str, tuple[float, float] | None]], *,
              caption: str = "", width: float = 640) -> str:
    """Ratio-interval plot on a log axis: ``rows`` of (label, point, low, high, verdict, band); point
    None = not comparable; ``band`` (floor, ceiling) is the rule the metric was judged by, drawn grey
    behind its row (None: not judged), and ``caption`` says so under the title. Every point is labelled with its ratio ('1.05', '329x', '1/12x')
    beside its interval, clear of the line at 1; axis ticks are thinned so no two labels touch."""
    from reports.wording import ratio_label

    finite = [v for _, p, lo, hi, _, _ in rows if p is not None for v in (p, lo, hi) if math.isfinite(v) and v > 0]
    edges = sorted({edge for *_, band in rows if band for edge in band})
    lo = max(min([0.8, *edges, *finite]) / 1.1, 1e-6)
    hi = max([1.25, *edges, *finite]) * 1.1
    log_lo, log_hi = math.log(lo), math.log(hi)
    left, right, row, top = _label_room([label for label, *_ in rows], 230), 20, 22, 22 + (14 if caption else 0)
    width = max(width, left + 410, left + text_width(title), left + text_width(caption))
    height = top + row * max(1, len(rows)) + 30
    span = width - left - right

    def x(value: float) -> float:
        value = min(max(value, lo), hi)
        return left + (math.log(value) - log_lo) / (log_hi - log_lo) * span

    axis_y = top + row * len(rows) + 4
    body = [f'<text x="{left}" y="14" {FONT} font-weight="bold">{escape(title)}</text>']
    if caption:
        body.append(f'<text x="{left}" y="29" {FONT}>{escape(caption)}</text>')
    for index, (label, *_, band) in enumerate(rows):  # each row over the band of its own rule
        if band:
            floor, ceiling = band
            body.append(f'<rect class="band" x="{x(floor):.1f}" y="{top + row * index}" '
                        f'width="{x(ceiling) - x(floor):.1f}" height="{row}" fill="#ebebeb">'
                        f'<title>{escape(label)}: no verdict unless the whole interval lies past '
                        f'{_tick_text(floor)} .. {_tick_text(ceiling)}</title></rect>')
    ticks = thin_labels([(x(t), _tick_text(t)) for t in ratio_ticks(lo, hi, edges)], low=left - 20, high=width)
    for px, text in sorted(ticks):
        one = text == "1"
        body.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{axis_y}" stroke="'
                    f'{"#333" if one else "#ccc"}" stroke-dasharray="{"" if one else "3,3"}"/>')
        body.append(f'<text x="{px:.1f}" y="{axis_y + 14}" {FONT} text-anchor="middle">{text}</text>')
    body.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#333"/>')
    for index, (label, point, low, high, verdict, _) in enumerate(rows):
        mid = top + row * index + row / 2
        colour = COLOURS.get(verdict, "#555")
        body.append(f'<text x="{left - 6}" y="{mid + 4:.1f}" {FONT} text-anchor="end">{escape(label)}</text>')
        if point is None:
            at = x(1) + 6 if x(1) - left < 100 else left + 4  # clear of the line at 1
            body.append(f'<text x="{at:.1f}" y="{mid + 4:.1f}" {FONT} fill="{colour}">not comparable</text>')
            continue
        body.append(f'<line x1="{x(low):.1f}" y1="{mid:.1f}" x2="{x(high):.1f}" y2="{mid:.1f}" stroke="{colour}" '
                    f'stroke-width="3"/>')
        body.append(f'<circle cx="{x(point):.1f}" cy="{mid:.1f}" r="4" fill="{colour}"><title>{escape(label)}: '
                    f'{point:.3f} [{low:.3f}, {high:.3f}] {escape(verdict)}</title></circle>')
        text = ratio_label(point)
        tx, ty, anchor = place_label(text, low=x(low), high=x(high), point=x(point), mid=mid, left=left,
                                     right=width, avoid=[x(1)])
        body.append(f'<text x="{tx:.1f}" y="{ty:.1f}" {FONT} fill="{colour}" text-anchor="{anchor}">{text}</text>')
    return _svg(width, height, body, title)


def _time_ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 times each power of ten from ``lo`` to ``hi`` seconds."""
    return [m * 10.0 ** d for d in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in (1, 2, 5) if lo <= m * 10.0 ** d <= hi]


TREND_MARGIN = 1.15  # room above and below a trend's values, as a factor


def trend(title: str, labels: Sequence[str], medians: Sequence[float], quartiles: Sequence[Sequence[float]], *,
          steps: Iterable[tuple[int, str]] = (), factor: float | None = None, width: float = 520) -> str:
    """A metric over commits: the median per commit joined by a line, its p25..p75 as a bar, on a log
    time axis; ``steps`` (index, text) draw a dashed line before that commit, labelled. Commit labels
    and time ticks are thinned so none touch; the first and last commit and every step keep theirs.
    ``factor`` fixes the axis's range (top over bottom) around the values, so that plots drawn with one
    factor show one change as one height; the range is written under the axis either way."""
    left, right, top, plot_h, inset = 70, 30, 34, 120, 12
    height = top + plot_h + 40
    values = [v for pair in quartiles for v in pair if math.isfinite(v) and v > 0] + \
             [v for v in medians if math.isfinite(v) and v > 0]
    body = [f'<text x="{left}" y="14" {FONT} font-weight="bold">{escape(title)}</text>']
    if not values:
        body.append(f'<text x="{left}" y="{top + 20}" {FONT}>no positive samples</text>')
        return _svg(width, height, body, title)
    lo, hi = min(values) / TREND_MARGIN, max(values) * TREND_MARGIN
    wanted = max(factor or 2, hi / lo)  # the shared factor; alone, a flat series still gets a factor of two
    if hi / lo < wanted:
        centre = math.sqrt(lo * hi)
        lo, hi = centre / math.sqrt(wanted), centre * math.sqrt(wanted)
    span = width - left - right - 2 * inset
    count = len(medians)

    def x(index: float) -> float:
        return left + inset + (span / 2 if count == 1 else index / (count - 1) * span)

    def y(value: float) -> float:
        return top + plot_h - (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo)) * plot_h

    bottom = top + plot_h
    body.append(f'<line x1="{left}" y1="{bottom}" x2="{width - right}" y2="{bottom}" stroke="#333"/>')
    body.append(f'<text class="scale" x="{width - right}" y="{bottom + 32}" {FONT} fill="#555" text-anchor="end">'
                f'y axis: x{hi / lo:.3g} bottom to top</text>')
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>')
    ticks = _time_ticks(lo, hi)
    if len(ticks) < 2:  # a narrow range: label its ends too
        ticks = sorted({*ticks, float(f"{lo * 1.02:.2g}"), float(f"{hi / 1.02:.2g}")})
    last_y = None
    for tick in sorted(ticks, key=lambda t: -t):  # y ticks at least 14 px apart
        py = y(tick)
        if not lo <= tick <= hi or last_y is not None and py - last_y < 14:
            continue
        last_y = py
        body.append(f'<line x1="{left}" y1="{py:.1f}" x2="{width - right}" y2="{py:.1f}" stroke="#eee"/>')
        body.append(f'<text x="{left - 6}" y="{py + 4:.1f}" {FONT} text-anchor="end">{fmt_time(tick)}</text>')
    step_at = [index for index, _ in steps]
    order = [0, count - 1, *step_at, *range(count)]
    shown = thin_labels([(x(i), labels[i]) for i in dict.fromkeys(order)], low=0, high=width)
    for px, text in shown:
        body.append(f'<text x="{px:.1f}" y="{bottom + 16}" {FONT} text-anchor="middle">{escape(text)}</text>')
    boxes: list[Box] = []
    for index, text in steps:
        px = (x(index - 1) + x(index)) / 2
        body.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{bottom}" stroke="#c0392b" '
                    'stroke-dasharray="4,3"/>')
        start = min(max(px + 3, 0), width - text_width(text))  # right of the line, within the plot
        line = 0
        while _overlaps((start, 26 - 12 * line, start + text_width(text), 27 - 12 * line + 11), boxes) and line < 2:
            line += 1
        boxes.append((start, 26 - 12 * line, start + text_width(text), 27 - 12 * line + 11))
        body.append(f'<text x="{start:.1f}" y="{30 - 12 * line}" {FONT} fill="#c0392b">{escape(text)}</text>')
    points = [(x(i), y(v)) for i, v in enumerate(medians) if math.isfinite(v) and v > 0]
    for i, (q25, q75) in enumerate(quartiles):
        if math.isfinite(q25) and q25 > 0:
            body.append(f'<line x1="{x(i):.1f}" y1="{y(q25):.1f}" x2="{x(i):.1f}" y2="{y(q75):.1f}" '
                        f'stroke="{COLOURS["current"]}" stroke-width="5" stroke-opacity="0.35"/>')
    if len(points) > 1:
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{COLOURS["baseline"]}" stroke-width="1.5"/>')
    for i, v in enumerate(medians):
        if math.isfinite(v) and v > 0:
            body.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{COLOURS["baseline"]}">'
                        f'<title>{escape(labels[i])}: median {fmt_time(v)}</title></circle>')
    return _svg(width, height, body, title)
