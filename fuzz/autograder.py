"""A Gradescope autograder in one command: ``fuzz autograder --out autograder.zip [run options]``
writes the zip (``make``), and the zip's ``run_autograder`` grades each submission with it (``grade``,
started as ``python -m fuzz.autograder``).

The zip, in Gradescope's autograder format (gradescope-autograders.readthedocs.io, "Autograder
Specifications"): at its root

- ``setup.sh`` (``data/setup.sh``): run once, as root, on Gradescope's Ubuntu image; installs a
  Python 3.11+, make and gcc when missing, and the toolkit from the wheel beside it into a venv;
- ``run_autograder`` (``data/run_autograder.sh``): run per submission; starts ``grade`` in that venv;
- the toolkit's wheel (``pip wheel --no-deps`` of this checkout), ``constraints.txt`` (the versions
  CI tests, when the checkout has them), the grading rule (``grading.toml``) and ``autograder.json``
  (``CONFIG``: the submission's program and the ``fuzz run`` options given).

Grading one submission, in the folder Gradescope gives it (``/autograder/submission``): a C
submission (a Makefile, or ``*.c`` files) is built in place first, plainly (``make -B``, or ``cc
*.c``, or the ``--build`` command); then ``fuzz run`` (its own process, as a user runs it) tests it
with the stored options (``--sanitize``: the run fuzzes a sanitized build of it, ``fuzz.build``);
then ``reports.feedback`` scores it by the rule and writes its page, and its ``results.json`` (the
page in its output, a leaderboard when the rule asks) becomes ``/autograder/results/results.json``.
A submission that does not build or cannot start scores 0 by the same rule, with the reason (and the
build's last lines). ``AUTOGRADER_ROOT`` moves ``/autograder``, so the zip can be tried anywhere.

This is the one module of ``fuzz`` that reads ``reports``: the bundle runs both tools, it grades with
``reports``' grader (there is one), and it reads the rule as ``reports`` will, when the zip is made.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz.engine import Usage

DATA = Path(__file__).resolve().parent / "data"
CHECKOUT = Path(__file__).resolve().parents[1]  # a source checkout: the wheel is built from it
CONFIG = "autograder.json"
RULE = "grading.toml"
CONSTRAINTS = "constraints.txt"
CONFIG_VERSION = 1
DEFAULT_ROOT = "/autograder"  # Gradescope's; AUTOGRADER_ROOT overrides it
DEFAULT_PROGRAM = "./sudoku"
# The `fuzz run` options a zip stores, in this order (the rest are the autograder's own).
RUN_OPTIONS = ("n", "seed", "timeout", "max_output", "create_args", "solve_args", "check_args", "verdict_words",
               "verdict_exit", "format", "strict", "mode", "size", "sanitize", "leaks", "no_shrink")
MAX_CONFIG = 1 << 16  # bytes of autograder.json: a few hundred is usual
BUILD_LINES = 40  # the build output a student sees when the build fails


class NotGraded(Exception):
    """The grader itself failed (not the submission): no results.json, so Gradescope shows the error
    to the staff instead of a grade."""


@dataclass(frozen=True)
class Bundle:
    """What a zip grades with: the submission's program (a command run in its folder), the ``fuzz
    run`` options given (``RUN_OPTIONS`` -> value), and how a C submission is built."""

    target: str
    options: dict[str, Any]
    build: str | None = None

    def run_argv(self) -> list[str]:
        """The ``fuzz run`` arguments for the options (``--build`` only with ``--sanitize``: without, the
        run fuzzes the plain build ``build`` made)."""
        argv: list[str] = []
        for name in RUN_OPTIONS:
            value = self.options.get(name)
            flag = "-n" if name == "n" else "--" + name.replace("_", "-")
            if value is not None and value is not False:
                argv += [flag] if value is True else [flag, ",".join(map(str, value)) if isinstance(value, list)
                                                      else str(value)]
        return argv + (["--build", self.build] if self.build is not None and self.options.get("sanitize") else [])


# --- making the zip ------------------------------------------------------------------------------

def make(out: Path, bundle: Bundle, *, rules: str | None) -> list[str]:
    """Write the zip to ``out`` (through a temporary beside it); the names it holds. A bad option or
    rule, or a toolkit that is not a source checkout, is a Usage error; a zip that cannot be written a
    ``jobs.store.WriteError``."""
    from sudoku.files import replacing
    from jobs.store import WriteError

    _check(bundle)
    rule = _checked_rule(rules)
    if not out.parent.is_dir():  # told before the wheel is built
        raise WriteError(f"cannot write {out}: no folder {out.parent}")
    try:  # the zip opened first (never through a link, nor over a folder or a FIFO: sudoku.files, exit 2), so a
        # refusal comes before the wheel is built
        with replacing(out) as raw, tempfile.TemporaryDirectory(prefix="fuzz-autograder-") as work:
            wheel = _wheel(Path(work))
            files: list[tuple[str, bytes, int]] = [
                ("setup.sh", (DATA / "setup.sh").read_bytes(), 0o755),
                ("run_autograder", (DATA / "run_autograder.sh").read_bytes(), 0o755),
                (wheel.name, wheel.read_bytes(), 0o644),
                (RULE, rule, 0o644),
                (CONFIG, (json.dumps({"version": CONFIG_VERSION, "target": bundle.target, "build": bundle.build,
                                      "options": bundle.options}, indent=2) + "\n").encode(), 0o644)]
            if (CHECKOUT / ".ci" / CONSTRAINTS).is_file():
                files.append((CONSTRAINTS, (CHECKOUT / ".ci" / CONSTRAINTS).read_bytes(), 0o644))
            with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name, data, mode in files:
                    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                    info.external_attr = (0o100000 | mode) << 16  # a regular file, and its mode
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, data)
    except OSError as error:
        raise WriteError(f"cannot write {out}: {error.strerror or error}") from None
    return [name for name, _, _ in files]


def _check(bundle: Bundle) -> None:
    """Refuse what would fail on every submission: a target that is not the submission's program, a
    count below 1, a sanitized build of something that is not a C program in a folder."""
    from fuzz.commands import BadCommand, split

    try:
        argv = split(bundle.target, "--target")
        for name in ("create_args", "solve_args", "check_args"):
            split(str(bundle.options.get(name, "")), "--" + name.replace("_", "-"))
    except BadCommand as error:
        raise Usage(str(error)) from None
    if not argv or bundle.target in ("engine", "cli") or bundle.target.startswith("engine:"):
        raise Usage(f"--target {bundle.target!r}: the autograder tests the submission: give its program as run "
                    f"from its folder ({DEFAULT_PROGRAM}, 'python3 sudoku.py')")
    if int(bundle.options.get("n", 1)) < 1:
        raise Usage("-n must be at least 1")
    if bundle.options.get("leaks") and not bundle.options.get("sanitize"):
        raise Usage("--leaks reports what a sanitized build leaks: give --sanitize with it")
    if bundle.options.get("sanitize") and os.sep not in argv[0]:
        raise Usage(f"--sanitize builds a C program from the submission's folder: give --target as "
                    f"{DEFAULT_PROGRAM}, not {bundle.target!r}")


def _checked_rule(rules: str | None) -> bytes:
    """The grading rule's text, read as ``reports feedback`` will read it (a bad one is a Usage error
    now, not a zero for every student)."""
    from reports import ReportError
    from reports.grades import DEFAULT_RULES, read_leaderboard, read_rules

    try:
        read_rules(rules)
        read_leaderboard(rules)
    except ReportError as error:
        raise Usage(str(error)) from None
    return Path(rules or DEFAULT_RULES).read_bytes()


def _wheel(work: Path) -> Path:
    """The toolkit's wheel, built (``pip wheel --no-deps``) from a copy of the checkout's packages in
    ``work``: the build leaves nothing in the checkout."""
    project = CHECKOUT / "pyproject.toml"
    if not project.is_file():
        raise Usage(f"the autograder installs the toolkit from a wheel built from its source checkout, and "
                    f"{CHECKOUT} is not one (no pyproject.toml): run fuzz autograder from a clone")
    found = tomllib.loads(project.read_text(encoding="utf-8"))
    include = found.get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {}).get("include", [])
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (CHECKOUT / name).is_file():
            shutil.copyfile(CHECKOUT / name, source / name)
    for folder in sorted(CHECKOUT.iterdir()):
        if (folder / "__init__.py").is_file() and any(fnmatch.fnmatch(folder.name, pattern) for pattern in include):
            shutil.copytree(folder, source / folder.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    local = ["--no-build-isolation"] if _can_build_here() else []  # else pip fetches setuptools to build
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
               "--wheel-dir", str(work / "dist"), *local, str(source)]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wheels = sorted((work / "dist").glob("*.whl")) if done.returncode == 0 else []
    if not wheels:
        last = (done.stderr.strip().splitlines() or ["no wheel made"])[-1]
        raise Usage(f"cannot build the toolkit's wheel ({shlex.join(command[:4])}, exit {done.returncode}): {last}")
    return wheels[0]


def _can_build_here() -> bool:
    """Whether this Python builds wheels itself: setuptools, with its own bdist_wheel (70.1+) or wheel's."""
    import importlib.util

    try:
        return importlib.util.find_spec("setuptools") is not None and (
            importlib.util.find_spec("wheel") is not None
            or importlib.util.find_spec("setuptools.command.bdist_wheel") is not None)
    except ImportError:
        return False


# --- grading one submission ----------------------------------------------------------------------

@dataclass(frozen=True)
class Paths:
    """Gradescope's folders, under ``root`` (``/autograder``, or ``AUTOGRADER_ROOT``)."""

    root: Path

    @property
    def source(self) -> Path:
        return self.root / "source"

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def results(self) -> Path:
        return self.root / "results" / "results.json"


def read_bundle(path: Path) -> Bundle:
    """The zip's ``autograder.json`` (written by ``make``); NotGraded when it is not one."""
    from sudoku.files import NotReadable, read_small

    try:
        data = json.loads(read_small(path, MAX_CONFIG).decode("utf-8"))
    except (NotReadable, UnicodeDecodeError, ValueError) as error:
        raise NotGraded(f"{path}: not the autograder's configuration ({error})") from None
    if not isinstance(data, dict) or data.get("version") != CONFIG_VERSION or not isinstance(data.get("target"), str) \
            or not isinstance(data.get("options"), dict) or not isinstance(data.get("build"), (str, type(None))):
        raise NotGraded(f"{path}: not version {CONFIG_VERSION} of the autograder's configuration")
    return Bundle(target=data["target"], options=data["options"], build=data["build"])


def grade(paths: Paths) -> float:
    """Grade the submission in ``paths.submission`` and write ``paths.results``; its score. What the
    tools print goes to stdout (Gradescope keeps it for the staff); NotGraded when the grader failed."""
    bundle = read_bundle(paths.source / CONFIG)
    rules = paths.source / RULE
    paths.results.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-autograder-") as folder:
        work = Path(folder)
        problem = build(paths.submission, bundle)
        if problem is None:
            problem = _fuzz(paths.submission, bundle, work)
        if problem is not None:
            text = _not_started(bundle, rules, *problem)
        else:
            text = _feedback(work, rules)
    paths.results.write_text(text, encoding="utf-8")
    score: float = json.loads(text)["score"]
    return score


def build(submission: Path, bundle: Bundle) -> tuple[str, str] | None:
    """Build a C submission in place, plainly (what the contract tests, and what must compile): the
    ``--build`` command (``sh -c``, with CC, CFLAGS and LDFLAGS set), else ``make -B`` with a Makefile,
    else ``CC -O2 -o PROGRAM *.c -lm`` with C files. None when built (or nothing to build), else
    (why, the build's last lines)."""
    from fuzz.build import MAKEFILES, BuildError, compiler

    program = shlex.split(bundle.target)[0]
    sources = sorted(path.name for path in submission.glob("*.c"))
    if bundle.build is None and not any((submission / name).is_file() for name in MAKEFILES) and not sources:
        return None  # not C: nothing to build
    try:
        cc = compiler()
    except BuildError as error:
        raise NotGraded(str(error)) from None  # the image's fault, not the student's
    env = dict(os.environ, CC=cc, CFLAGS="-O2", LDFLAGS="")
    if bundle.build is not None:
        argv, how = ["sh", "-c", bundle.build], "the build command"
    elif any((submission / name).is_file() for name in MAKEFILES):
        argv, how = ["make", "-B"], "make -B"
    else:
        argv = [cc, "-O2", "-o", Path(program).name, *sources, "-lm"]
        how = shlex.join(argv)
    print(f"autograder: building: {shlex.join(argv)}", flush=True)
    try:
        done = subprocess.run(argv, cwd=submission, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=300, start_new_session=True)
    except subprocess.TimeoutExpired:
        return f"the build ({how}) took over 300 s", ""
    except OSError as error:
        raise NotGraded(f"cannot run {argv[0]}: {error.strerror or error}") from None
    output = done.stdout.decode("utf-8", "replace")
    sys.stdout.write(output)
    tail = "\n".join(output.splitlines()[-BUILD_LINES:])
    if done.returncode:
        return f"the build failed ({how}, exit {done.returncode})", tail
    if os.sep in program and not os.access(submission / program, os.X_OK):
        return f"the build ({how}) made no program {program}", tail
    return None


def _fuzz(submission: Path, bundle: Bundle, work: Path) -> tuple[str, str] | None:
    """``fuzz run`` against the submission, in its folder; None when it ran, else (why it could not
    start, the sanitized build's log when that was why)."""
    # -P: the submission's folder is the working one, and its sudoku.py must not stand in for our package
    argv = [sys.executable, "-P", "-m", "fuzz", "run", "--target", bundle.target, *bundle.run_argv(), "--out",
            str(work / "run"), "--corpus", str(work / "corpus"), "--no-progress"]
    print(f"autograder: {shlex.join(argv[2:])}", flush=True)
    done = subprocess.run(argv, cwd=submission, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    sys.stdout.write(done.stdout + done.stderr)
    if _status(work / "run" / "manifest.json") == "complete":  # whatever it found (exit 0 or 1)
        return None
    said = (done.stderr.strip().splitlines() or [""])[-1]
    if " cannot start: " in said:  # the lone target refused by the pre-flight: no run was made
        logs = sorted((work / "run" / "build").glob("*/build.log"))
        return said.split(" cannot start: ", 1)[1], logs[0].read_text(errors="replace") if logs else ""
    raise NotGraded(f"fuzz run exited {done.returncode}: {said}")


def _status(manifest: Path) -> str | None:
    """The run's status in its manifest ('complete', 'interrupted', ...), None without one."""
    try:
        status = json.loads(manifest.read_text(encoding="utf-8")).get("status")
    except (OSError, ValueError, AttributeError):
        return None
    return status if isinstance(status, str) else None


def _feedback(work: Path, rules: Path) -> str:
    """The run's results.json, as ``reports feedback`` writes it (the grade, the page, the leaderboard),
    with the sanitized build's folder (a temporary copy of the submission's) named as ``.``."""
    from reports import ReportError
    from reports.feedback import write_feedback
    from reports.grades import read_leaderboard, read_rules
    from reports.load import load_run

    try:
        made = write_feedback(load_run(work / "run"), work / "feedback", rules=read_rules(rules),
                              leaderboard=read_leaderboard(rules))
    except ReportError as error:
        raise NotGraded(str(error)) from None
    text = (work / "feedback" / made[0][0].folder / "results.json").read_text(encoding="utf-8")
    for built in (work / "run" / "build").glob("*/"):  # a sanitized build's copy is the student's folder to them
        text = text.replace(str(built), ".")
    return text


def _not_started(bundle: Bundle, rules: Path, why: str, log: str) -> str:
    """results.json of a submission that did not build or start: 0 on every line of the rule, the
    reason, and the build's last lines, on the page ``reports feedback`` writes for one."""
    import pandas as pd

    from reports.feedback import Submission, page_md
    from reports.grades import read_rules, results_json, score
    from reports.load import Run

    one = Submission(target=bundle.target, folder="submission", status="cannot start", why=why)
    scored = score(read_rules(rules), [], {}, started=False)
    seed = bundle.options.get("seed")
    run = Run(path=Path("autograder"), manifests=[{"config": {"seed": "not drawn" if seed is None else seed}}],
              records=pd.DataFrame())
    page = page_md(one, scored, run)
    if log.strip():  # after the reason, before the grade
        before, grade, after = page.partition("## Grade\n")
        page = (before + "## The build's last lines\n\n```text\n" + log.replace("```", "'''").rstrip() + "\n```\n\n"
                + grade + after)
    return results_json(scored, started=False, why=why, summary=page, markdown=True)


def main() -> int:
    """``run_autograder``'s entry: grade the submission under ``AUTOGRADER_ROOT`` (default
    ``/autograder``); 0 when results.json was written, 1 (one line on stderr) when the grader failed."""
    paths = Paths(Path(os.environ.get("AUTOGRADER_ROOT") or DEFAULT_ROOT))
    try:
        got = grade(paths)
    except NotGraded as error:
        print(f"autograder: not graded: {error}", file=sys.stderr)
        return 1
    print(f"autograder: {paths.results}: score {got:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
