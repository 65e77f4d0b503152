"""The public API of ``sudoku`` is typed (PEP 561: ``sudoku/py.typed`` ships with it) and mypy agrees.

The modules checked and the settings are in pyproject.toml's ``[tool.mypy]``; mypy comes with the
``dev`` extra, so a venv made before it was added skips this test instead of failing.
"""

import subprocess
import sys
import textwrap

import pytest

from helpers import REPO

mypy = pytest.importorskip("mypy", reason="mypy is not installed: pip install -e '.[dev]' (it is in the dev extra)")


def _mypy(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_the_public_api_modules_pass_mypy_strict():
    done = _mypy()
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_user_of_the_api_gets_its_types(tmp_path):
    """A caller's mistakes are caught: the hints reach users through the package, not just its own code."""
    user = tmp_path / "user.py"
    user.write_text(textwrap.dedent("""
        import sudoku
        puzzle = sudoku.create(3, seed=7)
        answer = sudoku.solve(puzzle, limit=2)
        reveal_type(answer.count)
        reveal_type(answer.solution)
        reveal_type(sudoku.check(puzzle).status)
        sudoku.render(puzzle, 3)
    """))
    done = _mypy("--strict", "--config-file", str(REPO / "pyproject.toml"), str(user), cwd=REPO)
    out = done.stdout.replace("builtins.", "")  # older mypy versions name builtins in full
    assert 'Revealed type is "int"' in out, out
    assert 'Revealed type is "sudoku.grid.Grid | None"' in out or "Union[sudoku.grid.Grid, None]" in out, out
    assert 'Revealed type is "str"' in out, out
    assert 'Argument 2 to "render" has incompatible type "int"' in out, out


def test_py_typed_ships_with_the_package():
    import tomllib

    assert (REPO / "sudoku" / "py.typed").is_file()
    with open(REPO / "pyproject.toml", "rb") as file:
        assert "py.typed" in tomllib.load(file)["tool"]["setuptools"]["package-data"]["sudoku"]
