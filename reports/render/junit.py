"""JUnit XML of a comparison, for CI dashboards: one test case per timing metric (a failure when it
regressed and the A/A check holds, skipped when not comparable; its text states the rule applied, as
``reports.wording.rule_text`` words it) and one ``correctness`` test case (a failure per failed case
of the current run, listed in its message). Every text goes through ``xml_text``, so the XML parses
whatever a target printed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from sudoku.display import counted, xml_text
from reports.text import fmt_ratio
from reports.verdict import NOT_COMPARABLE, REGRESSION
from reports.wording import rule_text


if TYPE_CHECKING:
    from reports.verdict import Comparison


def comparison_junit(comparison: Comparison) -> str:
    c = comparison
    suite = ET.Element("testsuite", name="reports.compare")
    correctness = ET.SubElement(suite, "testcase", classname="reports.correctness", name="correctness")
    if c.failures:
        lines = [f"case {f.case} ({f.case_set}): {f.reason or 'failed'}; reproducer {f.reproducer}"
                 + (f"; corpus {f.corpus}" if f.corpus else "") for f in c.failures]
        failure = ET.SubElement(correctness, "failure", type="correctness",
                                message=f"{counted(len(c.failures), 'failed case')} in the current run")
        failure.text = "\n".join(lines)
    for m in c.metrics:
        case = ET.SubElement(suite, "testcase", classname="reports.timing", name=m.name)
        detail = (f"ratio of medians {fmt_ratio(m.ratio.point)}, {c.confidence:.0%} interval "
                  f"{fmt_ratio(m.ratio.low)} .. {fmt_ratio(m.ratio.high)}; rule applied: {rule_text(m)}"
                  if m.ratio else m.note)
        if m.verdict == REGRESSION and c.timing_reliable:
            ET.SubElement(case, "failure", type="timing", message=f"regression: {detail}").text = detail
        elif m.verdict == REGRESSION:  # the A/A check moved: shown, never a failure
            ET.SubElement(case, "system-out").text = f"regression, unreliable (the A/A check found a change): {detail}"
        elif m.verdict == NOT_COMPARABLE:
            ET.SubElement(case, "skipped", message=f"not comparable: {m.note}")
        else:
            ET.SubElement(case, "system-out").text = f"{m.verdict}: {detail}"
    if c.warnings:
        ET.SubElement(suite, "system-err").text = "\n".join(c.warnings)
    suite.set("tests", str(1 + len(c.metrics)))
    suite.set("failures", str(int(bool(c.failures)) + len(c.timing_regressions)))
    suite.set("errors", "0")
    suite.set("skipped", str(sum(m.verdict == NOT_COMPARABLE for m in c.metrics)))
    root = ET.Element("testsuites")
    root.append(suite)
    for element in root.iter():  # a target's output may hold NUL, ESC or undecodable bytes: XML 1.0 forbids them
        element.text = None if element.text is None else xml_text(element.text)
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
