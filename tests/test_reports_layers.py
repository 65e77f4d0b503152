"""``reports`` reads the run directory's contract and nothing else of the runner (house point 1): every
import in the package, at the top of a module or inside a function, read from the source with ``ast``.
Only ``jobs.schema`` (the records), ``jobs.manifest`` (what a manifest holds) and ``jobs.lock`` (whether
a run is going on) of ``jobs``, nothing of ``fuzz`` (a run's files are read as untrusted through
``sudoku.files``, below them all)."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALLOWED_FROM_RUNNER = {"jobs.schema", "jobs.manifest", "jobs.lock"}


def imported_modules(source):
    """Every module ``source`` imports, wherever the import stands: 'a.b' for ``import a.b`` and for
    ``from a.b import c``; 'a.c' for ``from a import c`` when ``a`` is a bare package name (c is then
    likely a module of it)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if "." in node.module:
                found.add(node.module)
            else:
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def runner_imports(source):
    """The modules of ``jobs`` and ``fuzz`` that ``source`` imports, less the one reports may read."""
    return {m for m in imported_modules(source) if m.split(".")[0] in ("jobs", "fuzz")} - ALLOWED_FROM_RUNNER


def test_the_import_reader_sees_imports_anywhere_and_every_spelling():
    source = ("from jobs.schema import SCHEMA\n"
              "def f():\n    from jobs.display import show\n"
              "class C:\n    def g(self):\n        import fuzz.cli\n"
              "from jobs import store\n")
    assert runner_imports(source) == {"jobs.display", "fuzz.cli", "jobs.store"}
    assert runner_imports("from jobs.schema import SCHEMA, TIME_COLUMNS\nimport jobs.schema\nfrom jobs import schema\n"
                          "import json\nfrom sudoku.display import visible\n") == set()


def test_reports_imports_nothing_of_the_runner_but_the_schema():
    offenders = {}
    for path in sorted((REPO / "reports").rglob("*.py")):
        found = runner_imports(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(REPO))] = sorted(found)
    assert offenders == {}, f"reports reads only jobs.schema, jobs.manifest and jobs.lock of the runner: {offenders}"
