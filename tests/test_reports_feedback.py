"""``reports feedback``: a class's fuzz run gives each target a folder of its own (a page in Markdown
and HTML, its reproducers, results.json and JUnit XML) that says nothing of the other targets; the
grading rule is read as untrusted input."""

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fake_targets import fuzz, seed_where, spec
from test_reports_helpers import run_reports

from reports import ReportError
from reports.bugs import Bug
from reports.grades import RESULTS_SCHEMA, read_rules, score

MISSING = f"{sys.executable} -S /nonexistent/student5/sudoku.py"
CLASS = ("changes_given", "errors_on_stdout", "chatty", "correct")


@pytest.fixture(scope="module")
def class_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    listed = root / "class.txt"
    listed.write_text("".join(f"{spec(name)}\n" for name in CLASS) + MISSING + "\n")
    seed = seed_where(16, lambda cases: {"malformed_letter", "unique_easy"} <= {case.family for case in cases})
    done = fuzz("run", "-n", 16, "--no-shrink", "--seed", seed, "--workers", 2, "--timeout", 10, "--out", root / "run",
                "--corpus", root / "corpus", "--targets", listed, "--no-progress", cwd=root, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    out = run_reports("feedback", str(root / "run"), "--out", str(root / "feedback"))
    assert out.returncode == 0, out.stderr
    return root, out


def folders(root):
    return {path.name: path for path in (root / "feedback").iterdir() if path.is_dir()}


def test_five_targets_give_five_folders_each_with_a_page_and_grades(class_run):
    root, out = class_run
    found = folders(root)
    assert len(found) == 5 and len(out.stdout.splitlines()) == 5
    for folder in found.values():
        assert {p.name for p in folder.iterdir()} >= {"feedback.md", "feedback.html", "results.json", "junit.xml"}
    index = (root / "feedback" / "index.md").read_text()
    assert all(spec(name) in index for name in CLASS) and "student5-sudoku.py" in index


def test_a_page_shows_its_own_bug_and_the_replay_line_works_from_its_folder(class_run):
    root, _ = class_run
    folder = folders(root)["fake_targets-changes_given.py"]
    page = (folder / "feedback.md").read_text()
    assert "keeps_givens:changed" in page and "expected: exit 0 and the unique solution" in page
    assert "actual: exit 0" in page and "input (row" in page
    assert "| test | score | of | lost to |" in page and " | bug 1 |" in page  # what cost the grade its points
    replay = next(line for line in page.splitlines() if line.startswith("replay: "))
    assert "fuzz replay bugs/1 --target" in replay
    assert (folder / "bugs" / "1" / "case.json").exists() and (folder / "bugs" / "1" / "input.txt").exists()
    argv = replay.strip("replay: `").split()[1:]
    done = fuzz(*[word.strip("'") for word in argv[:3]], spec("changes_given"), "--timeout", "10", cwd=folder)
    assert done.returncode == 1 and "FAILS the same way" in done.stderr
    html = (folder / "feedback.html").read_text()
    assert 'class="bug"' in html and "bugs/1" in html


def test_no_page_says_anything_of_another_target(class_run):
    root, _ = class_run
    names = {**{name: spec(name) for name in CLASS}, "student5": MISSING}
    for folder in folders(root).values():
        mine = [name for name in names if name.replace("student5", "student5-sudoku") in folder.name]
        assert len(mine) == 1
        text = "".join(path.read_text(errors="replace") for path in folder.rglob("*") if path.is_file())
        for other, command in names.items():
            if other != mine[0]:
                assert command not in text and f"{other}.py" not in text and "/" + other not in text
        assert "## Targets" not in text and "differ" not in text.lower()


def test_slips_stand_apart_from_bugs_and_cost_what_the_rule_says(class_run):
    root, _ = class_run
    folder = folders(root)["fake_targets-chatty.py"]
    page = (folder / "feedback.md").read_text()
    assert "No bug found" in page and "## Format slips (not bugs)" in page and "| separators |" in page
    results = json.loads((folder / "results.json").read_text())
    format_line = next(test for test in results["tests"] if test["name"] == "Output in the exact contract text")
    assert format_line["status"] == "failed" and format_line["score"] == 3  # 5 points, 1 per kind: 2 kinds
    assert results["score"] == 98


def test_a_target_that_cannot_start_scores_nothing_and_says_why(class_run):
    root, _ = class_run
    folder = folders(root)["student5-sudoku.py"]
    results = json.loads((folder / "results.json").read_text())
    assert results["score"] == 0 and all(test["status"] == "failed" for test in results["tests"])
    assert "did not start" in (folder / "feedback.md").read_text()


def validate(value, schema, where="results"):
    """A small validator of the JSON Schema keywords the documented schema uses (type, required,
    properties, additionalProperties, items, minimum, enum); the first mismatch as a string."""
    kinds = {"object": dict, "array": list, "string": str, "number": (int, float)}
    if not isinstance(value, kinds[schema["type"]]) or isinstance(value, bool):
        return f"{where}: not {schema['type']}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: {value!r} not one of {schema['enum']}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where}: below {schema['minimum']}"
    if schema["type"] == "object":
        missing = set(schema.get("required", ())) - set(value)
        extra = set(value) - set(schema.get("properties", {}))
        if missing or (extra and schema.get("additionalProperties") is False):
            return f"{where}: missing {sorted(missing)}, extra {sorted(extra)}"
        for key, inner in schema.get("properties", {}).items():
            if key in value and (problem := validate(value[key], inner, f"{where}.{key}")):
                return problem
    if schema["type"] == "array":
        for number, item in enumerate(value):
            if problem := validate(item, schema["items"], f"{where}[{number}]"):
                return problem
    return None


def test_every_results_file_passes_the_documented_schema_and_junit_parses(class_run):
    root, _ = class_run
    schema = json.loads(RESULTS_SCHEMA.read_text())
    assert validate({"score": 1, "output": "", "tests": [{"name": "x"}]}, schema)  # the validator can fail
    assert validate({"score": -1, "output": "", "tests": []}, schema)
    for folder in folders(root).values():
        results = json.loads((folder / "results.json").read_text())
        assert validate(results, schema) is None, folder.name
        assert results["score"] == sum(test["score"] for test in results["tests"])
        suite = ET.parse(folder / "junit.xml").getroot().find("testsuite")
        failed = [test["name"] for test in results["tests"] if test["status"] == "failed"]
        assert [case.get("name") for case in suite if case.find("failure") is not None] == failed


# --- the rule -------------------------------------------------------------------------------------

def bug(signature, *, flaky=False):
    return Bug(record={"signature": signature, "detail": "d", "flaky": flaky})


def test_a_bug_counts_against_the_first_line_naming_its_own_oracle_only(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[test]]\nname = "asan"\noracles = ["no_crash:asan"]\npoints = 10\n'
                     '[[test]]\nname = "crash"\noracles = ["no_crash"]\npoints = 10\nper_bug = 4\n'
                     '[[test]]\nname = "grid"\noracles = ["valid_grid"]\npoints = 10\n'
                     '[[test]]\nname = "rest"\noracles = ["*"]\npoints = 3\nflaky = false\n')
    bugs = [bug("no_crash:asan heap-buffer-overflow on malformed (signal)"), bug("no_crash:signal 11 on malformed"),
            bug("no_crash:signal 6 on malformed"), bug("rejects_malformed:accepted+valid_grid:out_of_range on x"),
            bug("answers:none on solvable", flaky=True)]
    got = {s.line.name: (s.score, [n for _, n in s.counted]) for s in score(read_rules(rules), bugs, {})}
    assert got == {"asan": (0, [1]), "crash": (2, [2, 3]), "grid": (10, []), "rest": (0, [4])}


@pytest.mark.parametrize("text, message", [
    ("nonsense = [", "not TOML"),
    ('[[test]]\nname = "x"\npoints = -1\noracles = ["a"]\n', "test 1: points must be 0 or more"),
    ('[[test]]\nname = "x"\npoints = "ten"\noracles = ["a"]\n', "test 1: points must be a number"),
    ('[[test]]\nname = "x"\npoints = 1\noracles = ["a"]\nweight = 2\n', "test 1: unknown key 'weight'"),
    ('[[test]]\nname = "x"\npoints = 1\n', "test 1: give either oracles"),
    ('title = "x"\n', "a list of [[test]] tables"),
])
def test_a_bad_rule_is_one_line_naming_the_file_and_the_test(tmp_path, text, message):
    rules = tmp_path / "rules.toml"
    rules.write_text(text)
    with pytest.raises(ReportError, match=message.replace("[", r"\[")):
        read_rules(rules)
    done = run_reports("feedback", str(tmp_path), "--rules", str(rules))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(rules) in done.stderr and message.split(":")[-1].strip() in done.stderr


def test_the_shipped_rule_reads_and_a_missing_run_is_one_line(tmp_path):
    assert sum(line.points for line in read_rules()) == 100
    done = run_reports("feedback", str(tmp_path / "nothing"))
    assert done.returncode == 2 and "no such run directory" in done.stderr


def test_an_out_that_cannot_be_written_is_one_line_and_exit_3(class_run, tmp_path):
    """An --out the user named under a file: the system's error, exit 3, as documented (a path of the
    wrong kind inside a run is exit 2: sudoku.files.make_folders)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = run_reports("feedback", str(class_run[0] / "run"), "--out", str(blocker / "feedback"))
    assert done.returncode == 3 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"reports: cannot write {blocker / 'feedback'}")


# --- the gate: a program that never answers is graded 0, whatever it refuses -------------------------

FIVE = ("correct", "changes_given", "rejects_with_exit_0", "syntax_error", "usage_only")


@pytest.fixture(scope="module")
def five_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("five")
    listed = root / "class.txt"
    listed.write_text("# a class of five\n" + "".join(f"{spec(name)}\n" for name in FIVE))
    seed = seed_where(16, lambda cases: {"malformed_letter", "unique_easy"} <= {case.family for case in cases})
    done = fuzz("run", "-n", 16, "--no-shrink", "--seed", seed, "--workers", 2, "--timeout", 10, "--out", root / "run",
                "--corpus", root / "corpus", "--targets", listed, "--no-progress", cwd=root, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    out = run_reports("feedback", str(root / "run"), "--out", str(root / "feedback"))
    assert out.returncode == 0, out.stderr
    return root, done


def test_a_syntax_error_and_a_usage_stub_cannot_start_score_0_and_the_correct_one_scores_highest(five_run):
    root, _ = five_run
    scores = {name: json.loads((root / "feedback" / f"fake_targets-{name}.py" / "results.json").read_text())["score"]
              for name in FIVE}
    assert scores["syntax_error"] == scores["usage_only"] == 0
    assert scores["correct"] == 100 and all(scores[name] < 100 for name in FIVE[1:]), scores
    rows = {row["target"]: row for row in json.loads((root / "run" / "manifest.json").read_text())["fuzz"]["targets"]}
    assert [rows[spec(name)]["status"] for name in FIVE] == ["ok", "failed", "failed", "cannot start", "cannot start"]


@pytest.mark.parametrize("name, said", [("syntax_error", "SyntaxError: '(' was never closed"),
                                        ("usage_only", "Usage: ./sudoku create|solve")])
def test_a_page_of_a_program_that_cannot_start_says_why_with_its_own_output_as_output(five_run, name, said):
    root, _ = five_run
    folder = root / "feedback" / f"fake_targets-{name}.py"
    page = (folder / "feedback.md").read_text()
    assert "Your program did not start" in page and "no 9x9 grid on stdout from a known-good solve" in page
    assert said in page and "asked to create a puzzle: exit" in page
    assert "marked" not in page and "^" not in page.replace("    ^\n", "")  # its output is shown, nothing in it marked
    if name == "syntax_error":  # its own "line 3" is inside the stderr block, never a place in an input
        block = page.split("stderr:", 1)[1]
        assert 'syntax_error.py", line 3' in block.split("```")[1]
    html = (folder / "feedback.html").read_text()
    assert "<mark" not in html and said.replace("'", "&#x27;") in html
    results = json.loads((folder / "results.json").read_text())
    assert all(test["score"] == 0 and said in test["output"] for test in results["tests"])


def test_the_class_ends_with_a_line_per_target_in_80_columns(five_run):
    _, done = five_run
    lines = done.stdout.splitlines()
    start = lines.index("per target (a column per oracle: summary.md, or --md):")
    mine = lines[start + 1:]
    assert len(mine) == len(FIVE) and all(len(line) <= 80 for line in lines[start:]), mine
    assert [line.split()[0] for line in mine] == [f"fake_targets-{name}.py" for name in FIVE]
    assert mine[0].split()[1:] == ["ok", "no", "bug", "found"] and "1 bug: keeps_givens" in mine[1]
    assert "cannot start: SyntaxError: '(' was" in mine[3] and "cannot start: Usage: ./sudoku" in mine[4]
    assert "keeps_givens |" not in done.stdout  # no matrix


def test_a_refusal_pays_only_a_program_that_solves_something():
    rules = read_rules()
    refusing = next(line for line in rules if line.refusals)
    assert [line.name for line in rules if line.refusals] == [refusing.name]
    scored = {s.line.name: s for s in score(rules, [], {}, solved=False)}
    assert scored[refusing.name].score == 0 and not scored[refusing.name].passed
    assert "none of your program's answers to a puzzle with a solution was right" in scored[refusing.name].why
    assert all(s.score == s.line.points for name, s in scored.items() if name != refusing.name)
    assert sum(s.score for s in score(rules, [], {})) == 100


def test_the_whole_matrix_is_in_the_markdown_and_the_html_on_request(five_run):
    root, _ = five_run
    summary = (root / "run" / "summary.md").read_text()
    assert "| target | status | cases | failed |" in summary and "keeps_givens" in summary.split("## Targets")[1]
    done = run_reports("show", str(root / "run"), "--html", str(root / "report.html"), "-q")
    assert done.returncode == 1, done.stderr
    html = (root / "report.html").read_text().split("<h2>Targets</h2>", 1)[1].split("</table>", 1)[0]
    assert "<th>keeps_givens</th>" in html and "<th>rejects_malformed</th>" in html
    assert html.count("cannot start: ") == 2 and html.count("<tr>") == 1 + len(FIVE)


def test_a_page_says_the_contracts_own_spelling_fails_apart_from_the_bugs(tmp_path):
    """A class run in the course's dialect (`create hard`): a program whose plain `create` prints its
    usage is told so on its own page, with the help, as the run said it; one that understands the
    contract's spelling is told nothing of it."""
    listed = tmp_path / "class.txt"
    listed.write_text(f"{spec('needs_difficulty')}\n{spec('correct')}\n")
    done = fuzz("run", "-n", 6, "--seed", 1, "--workers", 1, "--create-args", "create hard", "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--targets", listed, "--no-progress", cwd=tmp_path, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: a bug of its dialect, if the cases meet one
    out = run_reports("feedback", str(tmp_path / "run"), "--out", str(tmp_path / "feedback"))
    assert out.returncode == 0, out.stderr
    broken = tmp_path / "feedback" / "fake_targets-needs_difficulty.py"
    page, html = (broken / "feedback.md").read_text(), (broken / "feedback.html").read_text()
    assert "## The contract's own spelling" in page and "(not counted as a bug here)" in page
    assert "'create' exits 4 with no grid on stdout" in page and "Usage: ./sudoku create difficulty" in page
    assert "Look at: the contract asks \\`create\\` and \\`solve\\` with no other argument" in page  # escaped: from the manifest
    assert "<h2>The contract's own spelling</h2>" in html and "Usage: ./sudoku create difficulty" in html
    assert "Look at: the contract asks `create` and `solve`" in html
    assert page.index("## Bugs") < page.index("## The contract's own spelling") < page.index("## Grade")
    correct = (tmp_path / "feedback" / "fake_targets-correct.py" / "feedback.md").read_text()
    assert "contract's own spelling" not in correct


def test_a_line_that_lost_points_says_to_what_on_the_page():
    """A new user's page showed 'Rejects ...: 0 of 20' with no bug of that kind listed: the reason (it
    solved nothing) was only in results.json. The grade table now says what cost each line."""
    from reports.grades import lost_to

    rules = read_rules()
    refusing = next(line for line in rules if line.refusals)
    scored = {s.line.name: s for s in score(rules, [], {}, solved=False)}
    assert lost_to(scored[refusing.name]).startswith("none of your program's answers")
    assert all(lost_to(s) == "" for name, s in scored.items() if name != refusing.name)
    bug = Bug({"signature": "keeps_givens:changed on solvable (exit 0)", "title": "changed a given"})
    slip = next(line for line in rules if line.slips)
    lost = {s.line.name: lost_to(s) for s in score(rules, [bug], {"no_header": 5})}
    assert "bug 1" in lost.values() and lost[slip.name] == "no_header: 5 cases"
    assert all(lost_to(s) == "" for s in score(rules, [], {}, started=False))
