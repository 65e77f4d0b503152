"""``fuzz autograder``: the zip Gradescope takes (setup.sh and run_autograder at its root, the toolkit as a
wheel), unpacked under a temporary AUTOGRADER_ROOT with a submission beside it as Gradescope lays them out,
grades the submission into a results.json that the documented schema accepts: a Python fake, a C program
built plainly and fuzzed sanitized, one that does not build and one that cannot start (both 0, with why).

The quick tests skip setup.sh: run_autograder honours AUTOGRADER_PYTHON, a Python that has the toolkit
already (this one, the checkout on PYTHONPATH). The slow one runs setup.sh (a venv, pip installs)."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest

from fake_targets import HERE, REPO, fuzz, seed_where
from test_fuzz_sanitize import sanitizers_work, with_a_ten
from test_reports_feedback import validate

from reports import ReportError
from reports.grades import DEFAULT_RULES, RESULTS_SCHEMA, read_leaderboard

PYTHON_TARGET = shlex.join([sys.executable, "-S", "correct.py"])
RULE = 'leaderboard = ["score", "bugs"]\n' + DEFAULT_RULES.read_text()  # TOML: top-level keys before tables
HAS_CC = any(shutil.which(name) for name in ("gcc", "clang", "cc")) and shutil.which("make")


def make_zip(folder, *options):
    """The zip, made with the shipped rule plus a leaderboard, and the command's outcome."""
    (folder / "rule.toml").write_text(RULE)
    done = fuzz("autograder", "--out", folder / "autograder.zip", "--rules", folder / "rule.toml", *options,
                cwd=folder, timeout=300)
    assert done.returncode == 0, done.stderr
    return folder / "autograder.zip", done


@pytest.fixture(scope="module")
def python_zip(tmp_path_factory):
    return make_zip(tmp_path_factory.mktemp("python"), "-n", 12, "--seed", 5, "--timeout", 10, "--no-shrink",
                    "--target", PYTHON_TARGET)


@pytest.fixture(scope="module")
def c_zip(tmp_path_factory):
    folder = tmp_path_factory.mktemp("c")
    if not HAS_CC or not sanitizers_work(folder):
        pytest.skip("no C compiler, make or sanitizers")
    seed = seed_where(20, with_a_ten)  # a 10 in the input: the read past c_overread's table
    return make_zip(folder, "-n", 20, "--seed", seed, "--timeout", 10, "--sanitize")


def unpack(archive, root, submission=()):
    """Lay the zip out as Gradescope does: its files in ROOT/source (modes kept), run_autograder copied
    to ROOT, the submission's files in ROOT/submission."""
    source = root / "source"
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            path = source / info.filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(opened.read(info))
            path.chmod((info.external_attr >> 16) & 0o777)
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    for path in submission:
        if path.is_dir():
            shutil.copytree(path, root / "submission", dirs_exist_ok=True)
        else:
            shutil.copy2(path, root / "submission" / path.name)
    return root


def run_autograder(root, *, installed=False):
    """ROOT/run_autograder as Gradescope starts it (from ROOT); with this Python and checkout unless
    ``installed`` (then the venv setup.sh made, and nothing of the checkout)."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "AUTOGRADER_PYTHON")}
    env["AUTOGRADER_ROOT"] = str(root)
    if not installed:
        env.update(AUTOGRADER_PYTHON=sys.executable, PYTHONPATH=str(REPO))
    return subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True,
                          timeout=900)


def results_of(root):
    results = json.loads((root / "results" / "results.json").read_text())
    assert validate(results, json.loads(RESULTS_SCHEMA.read_text())) is None
    assert results["score"] == sum(test["score"] for test in results["tests"])
    return results


def test_the_zip_has_both_scripts_at_its_root_the_wheel_and_the_options(python_zip):
    archive, done = python_zip
    with zipfile.ZipFile(archive) as opened:
        names = {info.filename: info for info in opened.infolist()}
        config = json.loads(opened.read("autograder.json"))
        wheel = next(name for name in names if name.endswith(".whl"))
        assert "leaderboard" in opened.read("grading.toml").decode()
    assert {"setup.sh", "run_autograder", "autograder.json", "grading.toml"} <= set(names)
    assert all(names[name].external_attr >> 16 & 0o111 for name in ("setup.sh", "run_autograder"))
    assert config["target"] == PYTHON_TARGET and config["options"]["n"] == 12 and config["options"]["seed"] == 5
    assert wheel.startswith("sudoku_toolkit-") and "upload" in done.stdout


def test_a_python_submission_is_fuzzed_and_graded_with_its_page_and_leaderboard(python_zip, tmp_path):
    root = unpack(python_zip[0], tmp_path, [HERE / "correct.py", HERE / "_contract.py"])
    done = run_autograder(root)
    assert done.returncode == 0, done.stderr + done.stdout[-3000:]
    results = results_of(root)
    assert results["score"] == 100 and results["output_format"] == "md"
    assert results["output"].startswith("# Feedback on your `sudoku`") and "No bug found" in results["output"]
    assert [entry["name"] for entry in results["leaderboard"]] == ["Score", "Distinct bugs"]
    assert results["leaderboard"][0]["value"] == 100 and results["leaderboard"][1] == {
        "name": "Distinct bugs", "value": 0, "order": "asc"}
    assert "fuzz run --target" in done.stdout  # what ran, for the staff (Gradescope keeps stdout)


def test_a_submission_that_cannot_start_scores_0_with_why(python_zip, tmp_path):
    root = unpack(python_zip[0], tmp_path, [HERE / "_contract.py"])  # no correct.py: nothing to start
    done = run_autograder(root)
    assert done.returncode == 0, done.stderr
    results = results_of(root)
    assert results["score"] == 0 and all(test["status"] == "failed" for test in results["tests"])
    assert "did not start" in results["output"] and "correct.py" in results["output"]
    assert "leaderboard" not in results


def test_a_c_submission_is_built_then_fuzzed_sanitized(c_zip, tmp_path):
    root = unpack(c_zip[0], tmp_path, [HERE / "c_overread"])
    done = run_autograder(root)
    assert done.returncode == 0, done.stderr + done.stdout[-3000:]
    assert "building: make -B" in done.stdout and "--sanitize" in done.stdout
    assert os.access(root / "submission" / "sudoku", os.X_OK)  # the plain build, in place
    results = results_of(root)
    assert 0 < results["score"] < 100 and "no_crash:asan" in results["output"]
    assert "- program: `./sudoku`" in results["output"] and "fuzz-autograder-" not in results["output"]


def test_a_c_submission_that_does_not_build_scores_0_with_the_compiler_output(c_zip, tmp_path):
    root = unpack(c_zip[0], tmp_path, [HERE / "c_overread"])
    with open(root / "submission" / "main.c", "a") as source:
        source.write("\nint broken(void) { return }\n")
    done = run_autograder(root)
    assert done.returncode == 0, done.stderr
    results = results_of(root)
    assert results["score"] == 0 and "the build failed (make -B, exit 2)" in results["output"]
    assert "main.c" in results["output"] and "## The build's last lines" in results["output"]
    assert "the build failed" in results["tests"][0]["output"]


@pytest.mark.slow
def test_setup_sh_installs_the_toolkit_and_the_installed_grader_grades(c_zip, tmp_path):
    root = unpack(c_zip[0], tmp_path, [HERE / "c_overread"])
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    setup = subprocess.run(["bash", "setup.sh"], cwd=root / "source", env=dict(env, AUTOGRADER_ROOT=str(root)),
                           capture_output=True, text=True, timeout=1800)
    assert setup.returncode == 0, setup.stderr[-3000:]
    assert (root / "fuzz-venv" / "bin" / "python").exists() and "fuzz 0.1" in setup.stdout
    done = run_autograder(root, installed=True)
    assert done.returncode == 0, done.stderr + done.stdout[-3000:]
    assert 0 < results_of(root)["score"] < 100


@pytest.mark.parametrize("options, message", [
    (["--target", "engine"], "the autograder tests the submission"),
    (["--sanitize", "--target", "python3 sudoku.py"], "--sanitize builds a C program"),
    (["--target", "./sudoku 'x"], "--target: unbalanced quote"),
    (["-n", "0"], "-n must be at least 1"),
    (["--leaks"], "--leaks reports what a sanitized build leaks: give --sanitize with it"),
])
def test_an_option_that_would_fail_every_submission_is_one_line_and_exit_2(tmp_path, options, message):
    done = fuzz("autograder", "--out", tmp_path / "a.zip", *options, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "a.zip").exists()


def test_a_bad_rule_is_told_when_the_zip_is_made(tmp_path):
    (tmp_path / "rule.toml").write_text('leaderboard = ["speed"]\n[[test]]\nname = "x"\npoints = 1\noracles = ["*"]\n')
    done = fuzz("autograder", "--out", tmp_path / "a.zip", "--rules", tmp_path / "rule.toml", cwd=tmp_path)
    assert done.returncode == 2 and "leaderboard must be a list of different columns" in done.stderr
    with pytest.raises(ReportError, match="leaderboard"):
        read_leaderboard(tmp_path / "rule.toml")
    assert read_leaderboard(None) == []


def test_a_zip_that_cannot_be_written_is_one_line_and_exit_3(tmp_path):
    done = fuzz("autograder", "--out", tmp_path / "missing" / "a.zip", "--target", "./sudoku", cwd=tmp_path,
                timeout=300)
    assert done.returncode == 3 and "cannot write" in done.stderr and len(done.stderr.splitlines()) == 1


def test_leaks_goes_to_the_run_with_the_sanitized_build():
    from fuzz.autograder import Bundle

    argv = Bundle("./sudoku", {"n": 5, "sanitize": True, "leaks": True}).run_argv()
    assert "--sanitize" in argv and "--leaks" in argv
    assert "--leaks" not in Bundle("./sudoku", {"n": 5, "sanitize": True}).run_argv()


@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_a_zip_goes_only_where_a_file_of_its_own_can(tmp_path, kind):
    """A folder where the zip goes was exit 3 (an I/O error), a link or a FIFO there replaced silently;
    now each is refused before the wheel is built, exit 2 (the hostile campaign's find)."""
    (tmp_path / "victim.zip").write_text("mine")
    {"link": lambda p: p.symlink_to(tmp_path / "victim.zip"), "folder": os.mkdir, "fifo": os.mkfifo}[kind](
        tmp_path / "a.zip")
    done = fuzz("autograder", "--out", tmp_path / "a.zip", "--target", "./sudoku", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "a.zip: a " in done.stderr and len(done.stderr.splitlines()) == 1
    assert (tmp_path / "victim.zip").read_text() == "mine" and sorted(os.listdir(tmp_path)) == ["a.zip", "victim.zip"]
