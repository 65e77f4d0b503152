"""The HTML reports in a real browser: headless Chromium (Debian's package `chromium`) renders
`reports show`, `compare` and `history`, takes a screenshot of each, and a small script measures the
laid-out text of every plot: the test fails when a plot is missing or empty, when two labels of one
plot overlap, or when a label spills out of its plot. Slow; skipped when Chromium is absent.

The script is added to a copy of each report (the reports themselves carry no script); its findings
come back through ``--dump-dom``. Screenshots are left in pytest's temporary directory (the path is
printed) for a person to look at."""

import json
import re
import shutil
import subprocess

import pytest

from test_reports_helpers import loaded_rounds, records, run_reports, write_rounds, write_run
from test_reports_history import write_history

pytestmark = pytest.mark.slow

CHROMIUM = next((path for name in ("chromium", "chromium-browser", "google-chrome")
                 if (path := shutil.which(name))), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--window-size=1100,1400", "--virtual-time-budget=3000"]

MEASURE = """<script>
window.addEventListener("load", () => {
  const found = {plots: [], overlaps: [], spills: []};
  document.querySelectorAll("svg").forEach((svg, index) => {
    const box = svg.getBoundingClientRect();
    const title = (svg.querySelector("title") || {}).textContent || "plot " + index;
    found.plots.push({title, width: box.width, height: box.height, marks: svg.querySelectorAll(
      "circle, rect, line, polyline").length});
    const texts = [...svg.querySelectorAll("text")].map(t => [t.textContent, t.getBoundingClientRect()]);
    texts.forEach(([text, r]) => {
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        found.spills.push(title + ": " + text);
    });
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const [a, p] = texts[i], [b, q] = texts[j];
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 2) found.overlaps.push(title + ": '" + a + "' and '" + b + "'");
      }
  });
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


def chromium(*args, timeout=120):
    return subprocess.run([CHROMIUM, *FLAGS, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def measure(html_path, tmp_path):
    """What the script found in the laid-out page, and a screenshot of it (its path)."""
    probe = html_path.with_name(html_path.stem + "-probe.html")
    probe.write_text(html_path.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = chromium(f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom.stdout, re.S)
    assert found, f"the page did not report its layout: {dom.stderr[-500:]}"
    shot = html_path.with_suffix(".png")
    chromium(f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", html_path.as_uri())
    assert shot.exists() and shot.stat().st_size > 1000, "no screenshot"
    print(f"screenshot: {shot}")
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("no Chromium (install Debian's package: apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("browser")
    base = write_rounds(tmp / "base", loaded_rounds((1, 1, 1, 1), noise_seed=1))
    head = write_rounds(tmp / "head", loaded_rounds((1, 1, 1, 1), noise_seed=2, scale={
        "create_s": 329.0, "unique_s": 0.9, "blanks_s": 1.1, "solve_s": 1 / 12}))
    out = {}
    assert run_reports("compare", base, head, "--html", tmp / "compare.html", "-q").returncode == 1
    near = write_rounds(tmp / "near", loaded_rounds((1, 1, 1, 1), noise_seed=3, scale={
        "create_s": 0.9, "unique_s": 1.0, "blanks_s": 1.1, "solve_s": 0.95}))
    assert run_reports("compare", base, near, "--html", tmp / "compare-near.html", "-q").returncode == 0
    assert run_reports("show", write_run(tmp / "one", records(300, failed=(3, 7))), "--html", tmp / "show.html",
                       "-q").returncode == 1
    write_history(tmp / "history", [1.0, 1.02, 0.98, 1.0, 2.5, 2.4, 2.6, 2.5, 2.5, 2.45, 2.55, 2.5])
    assert run_reports("history", tmp / "history", "--html", tmp / "history.html", "-q").returncode == 0
    unlike = write_rounds(tmp / "unlike", loaded_rounds((1, 1), noise_seed=4), version=1)
    assert run_reports("compare", unlike, head, "--html", tmp / "compare-unlike.html", "-q").returncode == 5
    for name in ("compare", "compare-near", "compare-unlike", "show", "history"):
        out[name] = measure(tmp / f"{name}.html", tmp)
    return out


def test_the_probe_finds_overlapping_labels_and_an_empty_plot(tmp_path):
    if CHROMIUM is None:
        pytest.skip("no Chromium (install Debian's package: apt-get install -y chromium)")
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><svg xmlns="http://www.w3.org/2000/svg" width="300" height="60">'
                    '<title>bad</title><text x="10" y="20">0.9</text><text x="16" y="22">1.1</text>'
                    '<text x="280" y="40">spills out</text><line x1="0" y1="0" x2="9" y2="9" stroke="#000"/></svg>'
                    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><title>empty</title></svg>'
                    "</body></html>")
    found = measure(page, tmp_path)
    assert found["overlaps"] == ["bad: '0.9' and '1.1'"] and found["spills"] == ["bad: spills out"]
    assert [plot["marks"] for plot in found["plots"]] == [1, 0]


@pytest.mark.parametrize("name, plots", [("compare", 5), ("compare-near", 5), ("compare-unlike", 4), ("show", 4),
                                         ("history", 4)])
def test_every_plot_is_drawn_and_no_two_labels_overlap(reports, name, plots):
    found = reports[name]
    assert len(found["plots"]) >= plots
    for plot in found["plots"]:
        assert plot["width"] > 100 and plot["height"] > 40 and plot["marks"] >= 3, plot
    assert found["overlaps"] == []
    assert found["spills"] == []
