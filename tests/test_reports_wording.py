"""Big changes read well: factors instead of huge percentages, readings that say what is true of an
unchanged metric, and a ratio plot whose every point is labelled and whose labels never touch."""

import math
import re

from hypothesis import given, settings, strategies as st

from reports import verdict
from reports.render import svg
from reports.load import load_run
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


def overlapping(boxes):
    return [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]


def test_the_ratio_plot_labels_every_point_and_keeps_0_9_1_and_1_1_apart():
    rows = [("a", 0.9, 0.88, 0.92, "unchanged"), ("b", 1.0, 0.98, 1.02, "unchanged"),
            ("c", 1.1, 1.08, 1.12, "unchanged"), ("d", 329.0, 300.0, 350.0, "regression"),
            ("e", 1 / 12, 0.07, 0.1, "improvement")]
    plot = svg.intervals("ratio", rows, threshold=0.1, width=760)
    texts = [t for *_, t in text_boxes(plot)]
    assert {"0.9", "1", "1.1", "329x", "1/12x"} <= set(texts)  # every point's ratio, beside its interval
    assert "1" in texts and "100" in texts  # the axis keeps 1 and reaches the big ratio
    assert overlapping(text_boxes(plot)) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=-6, max_value=6), st.floats(min_value=0, max_value=8)),
                min_size=1, max_size=8),
       st.sampled_from([0.05, 0.1, 0.25]))
def test_no_two_labels_of_a_ratio_plot_touch_whatever_the_ratios(logs, threshold):
    rows = [(f"m{i}[9x9,create]", math.exp(v), math.exp(v - w / 2), math.exp(v + w / 2), "unchanged")
            for i, (v, w) in enumerate(logs)]
    plot = svg.intervals("ratio", rows, threshold=threshold, width=760)
    assert overlapping(text_boxes(plot)) == []
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
