"""The edge stays at the edge: no module of the library (``python -m sudoku`` aside) imports ``sudoku.cli``, and no module of
``jobs``, ``fuzz`` or ``reports`` but a command module imports any ``*.cli`` (read from the source,
every import statement, including those inside functions); and no two modules of a package import each
other, however far round (``import_graph``, ``circles``)."""

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


# --- no circles inside a package ----------------------------------------------------------------------

PACKAGES = ("sudoku", "jobs", "fuzz", "reports")


def module_of(path, root=REPO):
    """``sudoku.cli.command`` of ``sudoku/cli/command.py``; a package is its ``__init__``."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root=REPO, packages=PACKAGES):
    """{module: the modules of its own package it imports}, over ``packages`` under ``root``.

    Every import statement counts, at module level and inside functions (and under TYPE_CHECKING),
    as ``imported`` reads them: a circle is usually hidden by moving one of its imports into a
    function (``sudoku.grid`` did so for ``sudoku.formats.symbol``), so counting module-level imports
    alone would miss exactly the circles that were worked around; the two modules stay tied either way.
    ``from a import b`` is an edge to ``a.b`` when that is a module, else to ``a``; a package's own
    ``__init__`` running first when a submodule is imported is Python's, not an edge."""
    modules = {module_of(path, root): path for package in packages for path in sorted((root / package).rglob("*.py"))}
    graph = {}
    for name, path in modules.items():
        named = imported(path)
        graph[name] = {other for other in named if other in modules and other != name
                       and other.split(".")[0] == name.split(".")[0]
                       and not any(sub.startswith(other + ".") and sub in modules for sub in named)}
    return graph


def circles(graph):
    """The strongly connected groups of two or more modules of ``graph`` (Tarjan's algorithm, without
    recursion), each as a frozenset."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(frozenset(group))
    return found


def test_no_new_circle_of_imports_inside_a_package():
    """Two modules that import each other are one module in two files: the name both need belongs in a
    third, lower one (``sudoku.digits`` under ``sudoku.grid`` and ``sudoku.formats``; ``fuzz.outcome`` under
    ``fuzz.engine`` and ``fuzz.summary``)."""
    assert [sorted(group) for group in circles(import_graph())] == []


def test_the_circle_check_sees_an_import_inside_a_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import f\n")
    (package / "a.py").write_text("from pkg.b import g\ndef f():\n    return g()\n")
    (package / "b.py").write_text("def g():\n    from pkg import a  # hidden in a function: still a circle\n")
    (package / "c.py").write_text("import pkg.a\nfrom pkg import b\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a", "pkg.b"}}
    assert circles(graph) == [frozenset({"pkg.a", "pkg.b"})]
    (package / "b.py").write_text("def g():\n    return 1\n")
    assert circles(import_graph(tmp_path, ("pkg",))) == []
