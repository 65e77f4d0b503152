"""Every link between the pages (README.md and docs/) resolves, anchors included, and the site builds
as CI builds it (``mkdocs build --strict``), so ``./dev test`` fails where CI would, before CI does.

Anchors are made by the function the site's table of contents uses (Python-Markdown's ``toc`` slugify,
with its ``_1``, ``_2`` suffixes for repeated headings), not by a copy of it: a heading whose anchor
changes with a new release of the docs toolchain (pinned in ``.ci/constraints.txt``) fails here first.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")

if os.environ.get("CI") == "true":  # ./dev installs the docs toolchain: in CI its absence is a failure
    import markdown.extensions.toc as toc
else:
    toc = pytest.importorskip("markdown.extensions.toc", reason="the docs toolchain: pip install -e '.[docs]'")


def prose_lines(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, numbered from 1 (a link in a code block is text)."""
    kept, fenced = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append((number, line))
    return kept


def heading_text(raw: str) -> str:
    """A heading as its anchor is made from it: the rendered text, without code marks, links or tags."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("`", "").replace("*", "")


def anchors(page: Path) -> set[str]:
    """The ids the site gives the page's headings, repeated ones numbered as the toc extension numbers them."""
    found: set[str] = set()
    for _, line in prose_lines(page):
        heading = HEADING.match(line)
        if heading:
            slug = toc.slugify(heading_text(heading.group(2)), "-")
            found.add(toc.unique(slug, found))
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """The page's links to other pages or places (not to web addresses), with their lines."""
    found = []
    for number, line in prose_lines(page):
        line = re.sub(r"`[^`]*`", lambda m: "x" * len(m.group(0)) if "](" in m.group(0) else m.group(0), line)
        for match in LINK.finditer(line):
            target = match.group(1).strip("<>")
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                found.append((number, target))
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each link of the page whose file or anchor is missing, as 'page:line: target: why' (paths from root)."""
    broken = []
    for number, target in links(page):
        path, _, anchor = target.partition("#")
        where = f"{page.relative_to(root)}:{number}: {target}"
        linked = (page.parent / unquote(path)).resolve() if path else page
        if not linked.exists():
            broken.append(f"{where}: no file {linked.relative_to(root) if linked.is_relative_to(root) else linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{where}: {linked.name} has no heading with that anchor")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_checker_finds_a_wrong_anchor_and_a_missing_page(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# Canonical forms (bench/bench_canonical.py), 2026-11-26\n\n## Twice\n\n## Twice\n", encoding="utf-8"
    )
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#canonical-forms-benchbench_canonicalpy-2026-11-26) [ok2](a.md#twice_1)\n"
        "[wrong](a.md#canonical-forms-benchcanonicalpy-2026-11-26)\n"
        "```\n[in code](gone.md)\n```\n"
        "[gone](gone.md) [web](https://example.org/x.md#y) `[code](nowhere.md)`\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "b.md:2: a.md#canonical-forms-benchcanonicalpy-2026-11-26: a.md has no heading with that anchor",
        "b.md:6: gone.md: no file gone.md",
    ]


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    """As .ci/run builds it. Not --quiet: mkdocs 1.6 counts for --strict only the warnings it logs."""
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    warnings = [line for line in built.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert built.returncode == 0 and not warnings, "\n".join(warnings) or built.stderr[-2000:]
