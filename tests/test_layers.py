"""The edge stays at the edge: no module of the library (``python -m sudoku`` aside) imports ``sudoku.cli``, and no module of
``jobs``, ``fuzz`` or ``reports`` but a command module imports any ``*.cli`` (read from the source,
every import statement, including those inside functions)."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
COMMAND_MODULES = {"cli.py", "entry.py", "__main__.py"}  # a tool's command line and what only it uses
# The one exception, and why: fuzz's `cli` target is our `sudoku` command under test, run in-process.
ALLOWED = {("fuzz/targets.py", "sudoku.cli")}


def imported(path):
    """Every module an import statement of ``path`` names (``from a import b`` gives ``a`` and ``a.b``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def edge_imports(path):
    """The ``*.cli`` modules (or their submodules) that ``path`` imports, bar ALLOWED ones."""
    relative = path.relative_to(REPO).as_posix()
    return sorted(name for name in imported(path)
                  if (name.endswith(".cli") or ".cli." in name) and (relative, name) not in ALLOWED)


def library_modules():
    return [p for p in sorted((REPO / "sudoku").rglob("*.py"))
            if "cli" not in p.relative_to(REPO / "sudoku").parts and p.name != "__main__.py"]


def conductor_modules():
    return [p for package in ("jobs", "fuzz", "reports") for p in sorted((REPO / package).rglob("*.py"))
            if p.name not in COMMAND_MODULES]


@pytest.mark.parametrize("path", library_modules(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_library_module_imports_the_edge(path):
    assert edge_imports(path) == []


@pytest.mark.parametrize("path", conductor_modules(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_module_of_jobs_fuzz_or_reports_but_a_command_imports_a_cli(path):
    assert edge_imports(path) == []


def test_the_reading_sees_every_spelling_of_an_import(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import sudoku.cli.scaffold\ndef f():\n    from sudoku import cli\n    from jobs.cli import run\n")
    assert {"sudoku.cli.scaffold", "sudoku.cli", "jobs.cli"} <= imported(source)
    source.write_text("from sudoku import engines\nimport jobs.display\n")
    assert not any(name.endswith(".cli") or ".cli." in name for name in imported(source))


def test_the_lists_are_not_empty():
    assert len(library_modules()) > 10 and len(conductor_modules()) > 20
    assert all(path.exists() for path in (REPO / name for name, _ in ALLOWED))


def below_reports():
    return [p for package in ("sudoku", "jobs", "fuzz") for p in sorted((REPO / package).rglob("*.py"))]


# The one module below ``reports`` that reads it, and why: the Gradescope bundle's entry point runs both tools
# in turn (fuzz a submission, then grade it with the one grader there is), as ./dev main does from the shell.
READS_REPORTS = {"fuzz/autograder.py"}


@pytest.mark.parametrize("path", below_reports(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_nothing_below_reports_imports_it(path):
    """Data flows sudoku -> jobs -> fuzz -> Parquet -> reports; nothing imports upward."""
    upward = sorted(name for name in imported(path) if name.split(".")[0] == "reports")
    assert upward == [] or path.relative_to(REPO).as_posix() in READS_REPORTS
