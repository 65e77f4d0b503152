"""Big changes read well: factors instead of huge percentages, readings that say what is true of an
unchanged metric, and a ratio plot whose every point is labelled, whose labels never touch nor sit on
the line at 1, and whose grey band is the rule each metric was judged by (as the JUnit text says)."""

import math
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from reports import verdict
from reports.render import svg
from reports.load import load_run
from reports.render.html import comparison_html
from reports.render.junit import comparison_junit
from reports.render.md import comparison_md
from reports.stats import Ratio
from reports.wording import change_text, ratio_label
from test_reports_helpers import loaded_rounds, write_rounds


def test_big_changes_read_as_factors_and_small_ones_as_percentages():
    assert change_text(1 + 328.321) == "329x slower"  # was '+32832.1 %'
    assert change_text(1 / 12) == "12x faster"
    assert change_text(2.5) == "2.5x slower" and change_text(0.4) == "2.5x faster"
    assert change_text(1.23) == "+23.0 %" and change_text(0.88) == "-12.0 %"
    assert change_text(float("nan")) == "-" and change_text(float("inf")).startswith("slower")
    assert [ratio_label(r) for r in (329.3, 2.5, 1.05, 0.9, 0.4, 1 / 12)] == ["329x", "2.5x", "1.05", "0.9", "1/2.5x",
                                                                           "1/12x"]


def reading(point, low, high, *, single=False, threshold=0.1):
    limit = 0.5 if single else threshold
    return verdict.reading(Ratio(point, low, high), threshold=threshold, limit=limit,
                           floor=1 / (1 + limit) if single else 1 - threshold, single=single)


def test_an_unchanged_metric_reads_what_is_true_of_its_interval():
    assert reading(0.89, 0.82, 0.96) == "faster, but not surely by 10 %"
    assert reading(1.12, 1.04, 1.18) == "slower, but not surely by 10 %"
    assert reading(1.3, 1.2, 1.45, single=True) == "slower, but not surely by a factor of 1.5"
    assert reading(0.93, 0.866, 1.004) == "~ no clear change (-13.4 % .. +0.4 %)"
    assert reading(1.01, 0.95, 1.05) == ""  # within the threshold: plainly unchanged


def test_the_markdown_says_329x_slower_and_faster_but_not_surely(tmp_path):
    base = load_run(write_rounds(tmp_path / "base", loaded_rounds((1, 1, 1, 1), noise_seed=1)))
    head = load_run(write_rounds(tmp_path / "head", loaded_rounds(
        (1, 1, 1, 1), noise_seed=2, scale={"create_s": 329.0, "solve_s": 0.89})))
    md = comparison_md(verdict.compare(base, head))
    rows = {line.split("|")[1].strip(" `"): line for line in md.splitlines() if line.startswith("| `")}
    assert "x slower |" in rows["create_s[9x9,create]"] and " %" not in rows["create_s[9x9,create]"].split("|")[4]
    assert re.search(r"\| 3\d\dx slower \|", rows["create_s[9x9,create]"])
    solve = rows["solve_s[9x9,create]"]
    assert solve.endswith("| faster, but not surely by 10 % |") and "unchanged" not in solve


TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)"([^>]*)>([^<]*)</text>')


def text_boxes(svg_text):
    """(x0, y0, x1, y1, text) of every label, by the width svg.text_width gives (generous)."""
    boxes = []
    for x, y, attributes, text in TEXT.findall(svg_text):
        anchor = re.search(r'text-anchor="(\w+)"', attributes)
        anchor = anchor.group(1) if anchor else "start"
        x, y, width = float(x), float(y), svg.text_width(text)
        x0 = {"middle": x - width / 2, "end": x - width}.get(anchor, x)
        boxes.append((x0, y - 11, x0 + width, y, text))
    return boxes


def crossing_one(plot):
    """The labels that the vertical line at 1 runs through."""
    one = re.search(r'<line x1="([-\d.]+)" y1="([-\d.]+)" x2="\1" y2="([-\d.]+)" stroke="#333"', plot)
    x, top, bottom = map(float, one.groups())
    return [text for x0, y0, x1, y1, text in text_boxes(plot) if x0 <= x <= x1 and y0 < bottom and y1 > top]


def overlapping(boxes):
    return [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]


def test_the_ratio_plot_labels_every_point_and_keeps_0_9_1_and_1_1_apart():
    band = (0.9, 1.1)
    rows = [("a", 0.9, 0.88, 0.92, "unchanged", band), ("b", 1.0, 0.98, 1.02, "unchanged", band),
            ("c", 1.1, 1.08, 1.12, "unchanged", band), ("d", 329.0, 300.0, 350.0, "regression", band),
            ("e", 1 / 12, 0.07, 0.1, "improvement", band)]
    plot = svg.intervals("ratio", rows, width=760)
    texts = [t for *_, t in text_boxes(plot)]
    assert {"0.9", "1", "1.1", "329x", "1/12x"} <= set(texts)  # every point's ratio, beside its interval
    assert "1" in texts and "100" in texts  # the axis keeps 1 and reaches the big ratio
    assert overlapping(text_boxes(plot)) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=-6, max_value=6), st.floats(min_value=0, max_value=8)),
                min_size=1, max_size=8),
       st.sampled_from([0.05, 0.1, 0.25]))
def test_no_two_labels_of_a_ratio_plot_touch_whatever_the_ratios(logs, threshold):
    rows = [(f"m{i}[9x9,create]", math.exp(v), math.exp(v - w / 2), math.exp(v + w / 2), "unchanged",
             (1 - threshold, 1 + threshold)) for i, (v, w) in enumerate(logs)]
    plot = svg.intervals("ratio", rows, width=760)
    assert overlapping(text_boxes(plot)) == []
    assert crossing_one(plot) == []
    texts = [t for *_, t in text_boxes(plot)]
    assert all(ratio_label(point) in texts for _, point, *_ in rows)
    assert "1" in texts


def test_a_trend_plot_keeps_the_first_last_and_step_commits_labelled_without_overlaps():
    labels = [f"{i:07x}" for i in range(40)]
    medians = [1e-3 * (1 if i < 25 else 2) for i in range(40)]
    plot = svg.trend("solve_s", labels, medians, [(m * 0.9, m * 1.1) for m in medians],
                     steps=[(25, "0000019: 2x slower")])
    texts = [t for *_, t in text_boxes(plot)]
    assert {"0000000", "0000027", "0000019", "0000019: 2x slower"} <= set(texts)
    assert overlapping(text_boxes(plot)) == []
    assert plot.count("<circle") == 40 and "<polyline" in plot


def test_a_label_beside_the_line_at_1_moves_clear_of_it():
    rows = [("unique_s[9x9,create]", 0.93, 0.9, 0.97, "unchanged", (0.9, 1.1)),  # right of it: on the line
            ("solve_s[9x9,create]", 1.03, 0.931, 1.129, "unchanged", (0.9, 1.1))]
    plot = svg.intervals("ratio", rows, width=760)
    assert {"0.93", "1.03"} <= {t for *_, t in text_boxes(plot)}
    assert crossing_one(plot) == []


BAND = re.compile(r'<rect class="band" x="([-\d.]+)" y="[-\d.]+" width="([-\d.]+)"')


@pytest.mark.parametrize("rounds, band, words", [
    (1, (1 / 1.5, 1.5), "above 1.5, improvement below 0.667 (one run on a side"),
    (4, (0.9, 1.1), "above 1.1, improvement below 0.9")])
def test_the_plotted_band_and_the_junit_text_are_the_rule_applied(tmp_path, rounds, band, words):
    base = load_run(write_rounds(tmp_path / "base", loaded_rounds((1,) * rounds, noise_seed=1)))
    head = load_run(write_rounds(tmp_path / "head", loaded_rounds((1,) * rounds, noise_seed=2, scale={"solve_s": 1.3})))
    c = verdict.compare(base, head)
    assert [m.band for m in c.metrics] == [pytest.approx(band)] * len(c.metrics)
    html = comparison_html(c)
    plot = html[html.index("<svg", html.index("ratio of medians")):]
    plot = plot[:plot.index("</svg>")]
    ticks = {text: float(x) for x, _, attributes, text in TEXT.findall(plot) if "middle" in attributes}
    drawn = BAND.findall(plot)
    assert len(drawn) == len(c.metrics)
    for x, width in drawn:  # the band runs from the floor's tick to the ceiling's
        assert float(x) == pytest.approx(ticks[f"{band[0]:.3g}"], abs=0.2)
        assert float(x) + float(width) == pytest.approx(ticks[f"{band[1]:.3g}"], abs=0.2)
    assert ("x1.5 either way" in plot) == (rounds == 1)
    cases = [case for case in ET.fromstring(comparison_junit(c)).iter("testcase") if case.get("name") != "correctness"]
    assert len(cases) == len(c.metrics)
    for case in cases:  # every timing case, failed or not, says the rule it was judged by
        assert words in "".join(case.itertext()) + "".join(e.get("message", "") for e in case), case.get("name")
