"""docs/json.md is the one table of every tool's JSON objects: each row's version is the version the
tool prints, so the table cannot go stale without a test failing."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "json.md"


def documented():
    rows = re.findall(r"^\| `([\w.-]+)` \| (\d+) \|", DOC.read_text(), re.M)
    return {schema: int(version) for schema, version in rows}


def printed():
    from fuzz.summary import JSON_VERSION as FUZZ
    from jobs.summary import JSON_VERSION as JOBS
    from reports.render.json import VERSION as REPORTS
    from sudoku.cli.command import JSON_VERSION as SUDOKU

    return {"sudoku.grid": 1, "sudoku.solve": SUDOKU, "sudoku.check": SUDOKU, "sudoku.grade": SUDOKU,
            "sudoku.hint": SUDOKU, "sudoku-jobs.show": JOBS, "fuzz.run": FUZZ, "fuzz.replay": FUZZ,
            "fuzz.probe": FUZZ, "reports.show": REPORTS, "reports.compare": REPORTS, "reports.history": REPORTS}


def test_the_table_names_every_object_at_the_version_printed():
    assert documented() == printed()


@pytest.mark.parametrize("argv, schema", [(["create", "--size", "4", "--seed", "1", "--json"], "sudoku.grid"),
                                          (["check", "--json"], "sudoku.check")])
def test_sudoku_prints_the_schema_the_table_names(argv, schema):
    import json

    from helpers import run_cli

    grid = '{"rows":[[0,2,0,1],[1,4,0,0],[0,1,0,3],[2,0,1,0]]}\n'
    done = run_cli(*argv, input=grid)
    record = json.loads(done.stdout.splitlines()[0])
    assert (record["schema"], record["version"]) == (schema, documented()[schema])
