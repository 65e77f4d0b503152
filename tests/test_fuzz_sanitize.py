"""Memory bugs that do not crash: a C target reading past an array on an out-of-range value rejects
the input rightly when built plainly, and is found (``no_crash:asan heap-buffer-overflow``, shrunk and
saved like any bug) only when built with the sanitizers; the report reader on its own. ``fuzz run
--sanitize`` builds a target's folder itself (tests/fake_targets/c_overread, a student-like program
with a Makefile that prints garbage for a 10), in the run's build folder, or says in one line why
it cannot (no compiler, no Makefile, a failed build, a Makefile that ignores CC)."""

import hashlib
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from fake_targets import HERE, fuzz, seed_where
from fuzz.sanitize import FLAGS, report_in

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                               reason="no gcc or make: the C targets cannot be built")

C_SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int g[81];
static int ok_at(int i, int v) {
    int r = i / 9, c = i % 9, br = r / 3 * 3, bc = c / 3 * 3;
    for (int k = 0; k < 9; k++) {
        if (g[r * 9 + k] == v || g[k * 9 + c] == v) return 0;
        if (g[(br + k / 3) * 9 + bc + k % 3] == v) return 0;
    }
    return 1;
}
static int solve(void) {
    int best = -1, bestn = 10;
    for (int i = 0; i < 81; i++) if (!g[i]) {
        int n = 0;
        for (int v = 1; v <= 9; v++) n += ok_at(i, v);
        if (n < bestn) { bestn = n; best = i; }
    }
    if (best < 0) return 1;
    for (int v = 1; v <= 9; v++) if (ok_at(best, v)) { g[best] = v; if (solve()) return 1; }
    g[best] = 0;
    return 0;
}
static void print(void) { for (int i = 0; i < 81; i++) printf("%d%c", g[i], i % 9 == 8 ? '\n' : ' '); }
int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "create") && strcmp(argv[1], "solve"))) {
        fprintf(stderr, "usage: sudoku create|solve\n"); return 2;
    }
    if (!strcmp(argv[1], "create")) {  /* a fixed puzzle: create_random fails, a bug of its own */
        const char *p = "530070000600195000098000060800060003400803001700020006060000280000419005000080079";
        for (int i = 0; i < 81; i++) g[i] = p[i] - '0';
        print();
        return 0;
    }
    char *allowed = malloc(10);  /* allowed[v]: may a cell hold v? slot 10 (any v > 9) was meant to be 0 */
    memset(allowed, 1, 10);
    for (int i = 0; i < 81; i++) {
        int v;
        if (scanf("%d", &v) != 1) { fprintf(stderr, "cannot read cell %d\n", i + 1); return 2; }
        int slot = v > 9 ? 10 : v;  /* one past the table: reads what the heap holds there (0, mostly) */
        if (v < 0 || !allowed[slot]) { fprintf(stderr, "bad value %d\n", v); return 2; }
        g[i] = v;
    }
    for (int i = 0; i < 81; i++) if (g[i]) {
        int v = g[i]; g[i] = 0;
        if (!ok_at(i, v)) { fprintf(stderr, "clash\n"); return 1; }
        g[i] = v;
    }
    if (!solve()) { fprintf(stderr, "No solution\n"); return 1; }
    print();
    return 0;
}
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the C target cannot be built")
    root = tmp_path_factory.mktemp("c")
    (root / "sudoku.c").write_text(C_SOURCE)
    subprocess.run(["gcc", "-O1", "-o", root / "plain", root / "sudoku.c"], check=True)
    made = subprocess.run(["gcc", *FLAGS.split(), "-o", root / "sanitized", root / "sudoku.c"], capture_output=True)
    if made.returncode:
        pytest.skip(f"gcc cannot build with the sanitizers here: {made.stderr[-200:]}")
    return root


def run_of(root, program):
    seed = seed_where(20, lambda cases: any(case.family == "malformed_out_of_range" for case in cases))
    out = root / f"run-{program}"
    done = fuzz("run", "-n", 20, "--seed", seed, "--workers", 1, "--timeout", 5, "--out", out,
                "--corpus", root / f"corpus-{program}", "--target", str(root / program), "--no-progress",
                cwd=root, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return json.loads((out / "manifest.json").read_text())["fuzz"]["groups"]


def test_an_out_of_bounds_read_is_found_only_in_the_sanitized_build(builds):
    plain = run_of(builds, "plain")
    assert not [g for g in plain if g["signature"].startswith("no_crash")]
    sanitized = run_of(builds, "sanitized")
    found = [g for g in sanitized if g["signature"].startswith("no_crash:asan heap-buffer-overflow")]
    assert len(found) == 1, [g["signature"] for g in sanitized]
    bug = found[0]
    assert bug["detail"].startswith("no_crash: SUMMARY: AddressSanitizer: heap-buffer-overflow") and "sudoku.c:" in bug["detail"]
    assert bug["confirmed"] == 3 and "malformed_out_of_range" in bug["families"]
    assert len(bug["text"]) < 170 and any(int(word) > 9 for word in bug["text"].split())  # shrunk, the value kept


def test_a_sanitizer_report_is_read_from_stderr():
    asan = (b"bad value 10\n==6486==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60200000001a at pc 0x5\n"
            b"READ of size 1 at 0x60200000001a thread T0\n    #0 0x557e in main /x/sudoku.c:44\n\n"
            b"SUMMARY: AddressSanitizer: heap-buffer-overflow /x/sudoku.c:44 in main\nShadow bytes\n==6486==ABORTING\n")
    assert report_in(asan) == ("asan heap-buffer-overflow",
                               "SUMMARY: AddressSanitizer: heap-buffer-overflow /x/sudoku.c:44 in main")
    ubsan = b"s.c:12:9: runtime error: index 10 out of bounds for type 'int [9]'\n"
    other = b"s.c:12:9: runtime error: index 12 out of bounds for type 'int [9]'\n"
    assert report_in(ubsan).kind == report_in(other).kind == "ubsan index N out of bounds for type 'int [N]'"
    assert "index 10" in report_in(ubsan).detail
    msan = b"==7==WARNING: MemorySanitizer: use-of-uninitialized-value\n    #0 in main\n"
    assert report_in(msan) == ("msan use-of-uninitialized-value", "WARNING: MemorySanitizer: use-of-uninitialized-value")
    assert report_in(b"ERROR: bad input on line 3\nruntime: 4 ms\n") is None


# --- fuzz run --sanitize: fuzz builds the target itself ------------------------------------------

def student_folder(root, name="alice", *, build=True):
    """A copy of the C fake (tests/fake_targets/c_overread) as a student's folder, built plainly."""
    folder = root / name
    shutil.copytree(HERE / "c_overread", folder)
    if build:
        subprocess.run(["make", "-s"], cwd=folder, check=True, capture_output=True)
    return folder


def sanitizers_work(root):
    probe = root / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    return subprocess.run(["gcc", *FLAGS.split(), "-o", root / "probe", probe], capture_output=True).returncode == 0


def with_a_ten(cases):
    return any(case.family == "malformed_out_of_range" and re.search(rb"(?<![0-9-])10(?![0-9])", case.text)
               for case in cases)


@needs_gcc
def test_the_sanitized_build_finds_what_the_plain_build_prints_as_garbage(tmp_path):
    if not sanitizers_work(tmp_path):
        pytest.skip("gcc cannot link the sanitizers here")
    alice = student_folder(tmp_path)
    bob = student_folder(tmp_path, "bob", build=False)
    (bob / "board.c").write_text("this is not C\n")  # a class holds one that does not build
    own = hashlib.sha256((alice / "sudoku").read_bytes()).hexdigest()
    n = 30
    seed = seed_where(n, with_a_ten)
    common = ("-n", n, "--seed", seed, "--workers", 1, "--timeout", 5, "--no-progress")

    plain = fuzz("run", *common, "--out", "plain", "--corpus", "corpus", "--target", "./alice/sudoku",
                 cwd=tmp_path, timeout=300)
    assert plain.returncode in (0, 1), plain.stderr[-2000:]
    groups = json.loads((tmp_path / "plain" / "manifest.json").read_text())["fuzz"]["groups"]
    assert not [g for g in groups if g["signature"].startswith("no_crash")], [g["signature"] for g in groups]
    assert any("malformed_out_of_range" in g["families"] for g in groups)  # the garbage, seen as a wrong answer
    assert any(g["signature"].startswith("create_random:variant") for g in groups)  # its create shuffles one puzzle

    (tmp_path / "class.txt").write_text("./alice/sudoku\n./bob/sudoku\n")
    done = fuzz("run", *common, "--out", "asan", "--corpus", "corpus", "--targets", "class.txt", "--sanitize",
                cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    run = tmp_path / "asan"
    manifest = json.loads((run / "manifest.json").read_text())
    built = run / "build" / "1-alice" / "sudoku"
    assert manifest["config"]["targets"][0]["spec"] == str(built.resolve()) and built.is_file()
    assert hashlib.sha256((alice / "sudoku").read_bytes()).hexdigest() == own  # the student's binary untouched
    why = manifest["config"]["cannot_start"]["./bob/sudoku"]
    log = run / "build" / "2-bob" / "build.log"
    assert why == f"the sanitized build failed (make, exit 2); its last lines are in {log.resolve()}"
    assert "this is not C" in log.read_text() or "error" in log.read_text()

    found = [g for g in manifest["fuzz"]["groups"] if g["signature"].startswith("no_crash:asan global-buffer-overflow")]
    assert len(found) == 1, [g["signature"] for g in manifest["fuzz"]["groups"]]
    bug = found[0]
    assert bug["detail"].startswith("no_crash: SUMMARY: AddressSanitizer: global-buffer-overflow") and "board.c:" in bug["detail"]
    assert f" {(run / 'build' / '1-alice' / 'board.c').resolve()}:" in bug["detail"]  # where the copy is, not was
    assert bug["confirmed"] == 3 and "malformed_out_of_range" in bug["families"]
    assert len(bug["text"]) < 170 and any(word == "10" for word in bug["text"].split())  # shrunk, the 10 kept
    replay = shlex.split(bug["replay"])
    assert replay[:2] == ["fuzz", "replay"]
    again = fuzz(*replay[1:], cwd=tmp_path, timeout=120)
    assert again.returncode == 1 and "FAILS the same way: no_crash:asan global-buffer-overflow" in again.stderr


@needs_gcc
@pytest.mark.parametrize("change, message", [
    (lambda folder: (folder / "Makefile").unlink(), r"no Makefile in \S+/alice: give the build command with --build 'CMD'$"),
    (lambda folder: (folder / "Makefile").write_text("sudoku: main.c board.c\n\tgcc -O2 -o sudoku main.c board.c\n"),
     r"sudoku was built without the sanitizers \(its Makefile calls the compiler by name, not as \$\(CC\): "
     r"give --build 'CMD'\)$"),
    (lambda folder: (folder / "main.c").write_text("int main(void) { return oops; }\n"),
     r"the sanitized build failed \(make, exit 2\); its last lines are in (\S+/runs/x/build/1-alice/build\.log)$"),
])
def test_a_target_that_cannot_be_built_is_one_line(tmp_path, change, message):
    folder = student_folder(tmp_path, build=False)
    change(folder)
    done = fuzz("run", "-n", 5, "--out", "runs/x", "--target", "./alice/sudoku", "--sanitize", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("fuzz: target ./alice/sudoku cannot start: ")
    found = re.search(message, line)
    assert found, line
    if found.groups():  # the build's output is kept where the message says
        assert "oops" in Path(found.group(1)).read_text()
    assert not (folder / "sudoku").exists() and not (folder / "main.o").exists()  # nothing built in place


@needs_gcc
def test_a_build_command_replaces_make(tmp_path):
    folder = student_folder(tmp_path, build=False)
    (folder / "Makefile").unlink()
    done = fuzz("run", "-n", 4, "--seed", 1, "--workers", 1, "--no-progress", "--out", "run", "--target", "./alice/sudoku",
                "--sanitize", "--build", "$CC $CFLAGS -o sudoku main.c board.c $LDFLAGS", cwd=tmp_path, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert (tmp_path / "run" / "build" / "1-alice" / "sudoku").is_file()


def test_no_compiler_and_misused_options_are_one_line(tmp_path):
    student_folder(tmp_path, build=False)
    (tmp_path / "bin").mkdir()
    from fuzz.cli import main
    from helpers import call_main

    done = call_main(main, ["run", "-n", 5, "--target", "./alice/sudoku", "--sanitize"], cwd=tmp_path,
                     env={"PATH": str(tmp_path / "bin"), "CC": None})
    assert done.returncode == 2
    assert done.stderr.strip() == ("fuzz: target ./alice/sudoku cannot start: no C compiler on PATH (gcc, clang, cc; "
                                   "or set CC): --sanitize builds C targets")
    done = fuzz("run", "-n", 5, "--target", "./alice/sudoku", "--build", "make", cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, "fuzz: --build is the sanitized build's command: give "
                                                         "--sanitize with it")
    done = fuzz("run", "-n", 5, "--target", "engine", "--sanitize", cwd=tmp_path)
    assert done.returncode == 2 and "--sanitize builds a C program from its folder; target 'engine'" in done.stderr


def test_a_daemon_a_makefile_starts_in_a_session_of_its_own_ends_with_the_build(tmp_path):
    """R22: a Makefile's `setsid sh -c '... sleep 300' &` left the process group the build's end kills:
    it is found by the build's mark and ended, whatever session it made."""
    import os
    import time

    from fuzz.build import BuildError, build

    folder = tmp_path / "ctgt"
    folder.mkdir()
    (folder / "main.c").write_text("int main(void) { return 1; }\n")
    (folder / "Makefile").write_text(
        "sudoku: main.c\n"
        "\tsetsid sh -c 'echo $$$$ > pid; exec sleep 300' </dev/null >/dev/null 2>&1 &\n"
        "\t$(CC) $(CFLAGS) -o sudoku main.c $(LDFLAGS)\n")
    try:
        build(folder / "sudoku", tmp_path / "into")
    except BuildError:
        pass  # no compiler, or one without the sanitizers: the daemon started all the same
    deadline = time.monotonic() + 5
    while not (tmp_path / "into" / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = int((tmp_path / "into" / "pid").read_text())
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z":
                break  # ended, not yet reaped by its parent (init)
        except OSError:
            break
        time.sleep(0.05)
    alive = Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    if alive:
        os.kill(pid, 9)
    assert not alive
