"""Every example in README.md and docs/*.md runs, and prints what the page shows.

A page's examples are fenced blocks:

- ```` ```console ````: lines `$ command` (a line ending in `\\` goes on with the next), each followed by
  the output it prints (stdout and stderr together, as on a terminal). A line `...` in the output
  stands for any number of lines, and `...` inside a line for any text. A command must exit 0, so an
  example that shows a failure ends its command with `; echo $?`.
- ```` ```pycon ````: `>>>` lines with their output, checked by doctest (with `...` elisions).
- ```` ```python ````: run as a script; it must not raise.

An HTML comment on the line before a block marks it: `<!-- slow -->` (run only under `-m slow`) and
`<!-- varies -->` (random or timed output: only the exit codes are checked). Blocks of any other
language (`sh`, `text`) are not run: they show a syntax or a screen, not a session.

The blocks of one page run in order in one temporary directory (a page is one session), with the
venv's scripts first on PATH, this checkout first on PYTHONPATH, and a copy of the fake programs of
`tests/fake_targets/` both there and at `tests/fake_targets/` (the fuzz examples drive them). The quick test of a page skips its slow blocks (so
no quick block may need a slow block's files); the slow test runs every block.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FAKES = ROOT / "tests" / "fake_targets"
MARK = re.compile(r"^<!--\s*([a-z ]+?)\s*-->$")
RUN = {"console", "pycon", "python"}


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marks: set[str] = field(default_factory=set)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page that are run, with the marks on the line before each."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^(\s*)```(\w*)", lines[i])
        if not fence:
            i += 1
            continue
        indent, lang = len(fence.group(1)), fence.group(2)
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][indent:])
            i += 1
        i += 1
        if lang not in RUN:
            continue
        marks: set[str] = set()
        before = start - 1
        while before >= 0 and MARK.match(lines[before].strip()):
            marks.update(MARK.match(lines[before].strip()).group(1).split())
            before -= 1
        found.append(Block(page, start + 1, lang, "\n".join(body) + "\n", marks))
    return found


def commands(text: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, expected output lines) pairs."""
    session: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            raise AssertionError(f"output before any command: {line!r}")
        command = line[2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip().removeprefix("> ")
        output = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        session.append((command, output))
    return session


def matches(expected: list[str], actual: str) -> bool:
    """Whether ``actual`` is the expected output: `...` lines and `...` in a line are elisions."""
    parts = []
    for line in expected:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    text = "".join(line.rstrip() + "\n" for line in actual.rstrip("\n").splitlines()) if actual.strip() else ""
    return re.fullmatch("".join(parts), text, ) is not None


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def run_console(block: Block, cwd: Path, env: dict[str, str]) -> None:
    slow = "slow" in block.marks
    for command, expected in commands(block.text):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace", timeout=1800 if slow else 120,
        )  # fmt: skip
        shown = f"{block.where}: $ {command}\n--- printed (exit {done.returncode}):\n{done.stdout}"
        assert done.returncode == 0, shown
        if "varies" not in block.marks:
            assert matches(expected, done.stdout), shown + "--- the page shows:\n" + "\n".join(expected)


def run_python(block: Block, cwd: Path, env: dict[str, str]) -> None:
    code = (
        "import doctest, sys\n"
        "text = sys.stdin.read()\n"
        "test = doctest.DocTestParser().get_doctest(text, {}, 'example', None, 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures else 0)\n"
        if block.lang == "pycon"
        else "import sys\nexec(compile(sys.stdin.read(), 'example', 'exec'), {'__name__': '__main__'})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=block.text, cwd=cwd, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"{block.where}:\n{done.stdout}"


def run_page(page: Path, tmp_path: Path, *, slow: bool) -> int:
    work = tmp_path / "session"
    work.mkdir()
    for fake in FAKES.glob("*.py"):
        shutil.copy(fake, work / fake.name)
    shutil.copytree(FAKES, work / "tests" / "fake_targets")
    env = environment()
    ran = 0
    for block in blocks(page):
        if "slow" in block.marks and not slow:
            continue
        (run_console if block.lang == "console" else run_python)(block, work, env)
        ran += 1
    return ran


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_examples_print_what_the_page_shows(page, tmp_path):
    run_page(page, tmp_path, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_example_including_the_slow_ones(page, tmp_path):
    run_page(page, tmp_path, slow=True)


# --- the checker itself ---------------------------------------------------------------------------


def test_elisions_match_lines_and_text_within_a_line():
    assert matches(["a", "...", "d"], "a\nb\nc\nd\n")
    assert matches(["a", "...", "b"], "a\nb\n")
    assert matches(["took ...s"], "took 3.2s\n")
    assert not matches(["a", "d"], "a\nb\nd\n")
    assert not matches(["took ...s"], "took 3.2s\nmore\n")
    assert matches([], "")


def test_a_console_block_splits_into_commands_with_continuations():
    text = "$ echo a \\\n    b\na b\n$ true\n"
    assert commands(text) == [("echo a  b", ["a b"]), ("true", [])]


def test_marks_and_languages_are_read(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- slow -->\n```console\n$ true\n```\n\n```sh\nnot run\n```\n\n```pycon\n>>> 1\n1\n```\n")
    found = blocks(page)
    assert [(b.lang, b.marks, b.line) for b in found] == [("console", {"slow"}, 2), ("pycon", set(), 10)]


def test_print_grid_prints_the_grid_and_repr_stays_short():
    from sudoku.formats import render
    from sudoku.grid import Grid

    grid = Grid(2, (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1))
    assert str(grid) == "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1"
    assert str(grid) + "\n" == render(grid, "grid")
    assert repr(grid) == "Grid(box=2, clues=16)"
    big = Grid.empty(4).with_cell(0, 16)
    assert str(big).splitlines()[0].startswith("16 0 ") and len(str(big).splitlines()) == 16
