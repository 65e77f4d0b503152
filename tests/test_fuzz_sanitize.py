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
    found = [g for g in sanitized if g["signature"].startswith("no_crash:asan at sudoku.c:")]
    assert len(found) == 1, [g["signature"] for g in sanitized]
    bug = found[0]
    assert bug["detail"].startswith("no_crash: SUMMARY: AddressSanitizer: heap-buffer-overflow") and "sudoku.c:" in bug["detail"]
    assert bug["confirmed"] == 3 and "malformed_out_of_range" in bug["families"]
    assert len(bug["text"]) < 170 and any(int(word) > 9 for word in bug["text"].split())  # shrunk, the value kept


def test_a_sanitizer_report_is_read_from_stderr():
    asan = (b"bad value 10\n==6486==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60200000001a at pc 0x5\n"
            b"READ of size 1 at 0x60200000001a thread T0\n    #0 0x557e in main /x/sudoku.c:44\n\n"
            b"SUMMARY: AddressSanitizer: heap-buffer-overflow /x/sudoku.c:44 in main\nShadow bytes\n==6486==ABORTING\n")
    assert report_in(asan) == ("asan at sudoku.c:44",
                               "SUMMARY: AddressSanitizer: heap-buffer-overflow /x/sudoku.c:44 in main")
    ubsan = b"s.c:12:9: runtime error: index 10 out of bounds for type 'int [9]'\n"
    other = b"s.c:12:9: runtime error: index 12 out of bounds for type 'int [9]'\n"
    assert report_in(ubsan).kind == report_in(other).kind == "ubsan at s.c:12"
    assert "index 10" in report_in(ubsan).detail
    placeless = b"runtime error: index 12 out of bounds for type 'int [9]'\n"  # a report with no place: its error
    assert report_in(placeless).kind == "ubsan index N out of bounds for type 'int [N]'"
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


FAMILIES = ("malformed_out_of_range", "create")


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
    # only what this test reads: out-of-range numbers and creates (its solver computes for ever on some
    # puzzles with no solution; every such case cost a limit and more in triage: 141 s under load)
    n = 30
    seed = seed_where(n, with_a_ten, families=FAMILIES)
    common = ("-n", n, "--seed", seed, "--workers", 1, "--timeout", 5, "--no-progress",
              *(word for family in FAMILIES for word in ("--family", family)))

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

    found = [g for g in manifest["fuzz"]["groups"] if g["signature"].startswith("no_crash:asan at board.c:")]
    assert len(found) == 1, [g["signature"] for g in manifest["fuzz"]["groups"]]
    bug = found[0]
    assert bug["detail"].startswith("no_crash: SUMMARY: AddressSanitizer: global-buffer-overflow") and "board.c:" in bug["detail"]
    assert f" {(run / 'build' / '1-alice' / 'board.c').resolve()}:" in bug["detail"]  # where the copy is, not was
    assert bug["confirmed"] == 3 and "malformed_out_of_range" in bug["families"]
    assert len(bug["text"]) < 170 and any(word == "10" for word in bug["text"].split())  # shrunk, the 10 kept
    replay = shlex.split(bug["replay"])
    assert replay[:2] == ["fuzz", "replay"]
    again = fuzz(*replay[1:], cwd=tmp_path, timeout=120)
    assert again.returncode == 1 and "FAILS the same way: no_crash:asan at board.c:" in again.stderr


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
                "--family", "unique_easy", "--sanitize", "--build", "$CC $CFLAGS -o sudoku main.c board.c $LDFLAGS",
                cwd=tmp_path, timeout=300)  # unique_easy: no case that its solver computes on for ever
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


# --- issue 44: a real submission's layout, one memory error one bug, leaks -----------------------

def _asan(error, place, *, frames=None, more=b""):
    """ASan's report of ``error`` at ``place`` (a 'path:line'), as gcc's runtime writes it."""
    frames = frames or [b"givens_ok " + place, b"main /r/build/1-team/sudoku/main.c:49"]
    stack = b"".join(b"    #%d 0x55691cae9e47 in %s\n" % (n, frame) for n, frame in enumerate(frames))
    return (more + b"=================================================================\n"
            b"==16000==ERROR: AddressSanitizer: " + error + b" on address 0x7fff5c615a8c at pc 0x5 bp 0x7 sp 0x7\n"
            b"READ of size 4 at 0x7fff5c615a8c thread T0\n" + stack +
            b"    #4 0x7f10d2445249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n"
            b"    #5 0x55691caea120 in _start (/r/build/1-team/sudoku/sudoku+0x7120)\n\n"
            b"Address 0x7fff5c615a8c is located in stack of thread T0 at offset 28 in frame\n"
            b"    #0 0x55691cae947f in main /r/build/1-team/sudoku/main.c:30\n\n"
            b"SUMMARY: AddressSanitizer: " + error + b" " + (frames[0].split(b" ")[-1]) + b" in givens_ok\n"
            b"==16000==ABORTING\n")


UBSAN_FIRST = (b"main.c:15:32: runtime error: index {} out of bounds for type 'int [10]'\n"
               b"SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior main.c:15:32 in \n")
LEAK = (b"Invalid input\n\n=================================================================\n"
        b"==982==ERROR: LeakSanitizer: detected memory leaks\n\n"
        b"Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
        b"    #0 0x7f4539cb89cf in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n"
        b"    #1 0x55de9360827e in read_board ../common/board.c:10\n"
        b"    #2 0x55de9360760a in main /r/build/1-team/sudoku/main.c:45\n"
        b"    #3 0x7f4539245249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n\n"
        b"SUMMARY: AddressSanitizer: 64 byte(s) leaked in 1 allocation(s).\n")


def test_one_memory_error_is_one_bug_whatever_value_reached_it_and_however_it_ended():
    """Issue 44: one unchecked ``found[v]`` reached by -4, 10 and 456789 came out as three bugs (stack
    underflow, overflow, SEGV). The finding is the place in the program: one line, one group, whichever
    sanitizer saw it and whatever the call's end (UBSan alone lets the program go on to exit 0)."""
    from fuzz.oracles import Failure, Verdict
    from fuzz.triage import bug_key, groups
    from fuzz.wording import words
    from jobs.schema import table

    place = b"/r/build/1-team/sudoku/main.c:15"
    reports = {  # value -> (stderr, how the call ended)
        "-1": (_asan(b"stack-buffer-underflow", place, more=UBSAN_FIRST.replace(b"{}", b"-1")), "exit non-zero"),
        "10": (_asan(b"stack-buffer-overflow", place, more=UBSAN_FIRST.replace(b"{}", b"10")), "exit non-zero"),
        "456789": (_asan(b"SEGV", place).replace(b"READ of size 4 at 0x7fff5c615a8c thread T0",
                                                  b"==16000==The signal is caused by a READ memory access."),
                   "exit non-zero"),
        "-456789": (UBSAN_FIRST.replace(b"{}", b"-456789") + b"Invalid puzzle\n", "exit non-zero"),
        "30": (UBSAN_FIRST.replace(b"{}", b"30"), "exit 0"),
    }
    found = {value: report_in(stderr) for value, (stderr, _) in reports.items()}
    assert {report.kind for report in found.values()} == {"asan at main.c:15", "ubsan at main.c:15"}
    assert found["456789"].detail == "SUMMARY: AddressSanitizer: SEGV /r/build/1-team/sudoku/main.c:15 in givens_ok"
    assert "stack-buffer-underflow" in found["-1"].detail and "index 30 out of bounds" in found["30"].detail
    signatures = {value: f"no_crash:{found[value].kind} on malformed ({ended})" for value, (_, ended) in reports.items()}
    assert len({bug_key(one) for one in signatures.values()}) == 1

    rows = [{"case": n, "signature": signatures[value], "family": "malformed_out_of_range", "target_s": 0.01,
             "cpu_s": 0.01, "calls_failed": 1, "size": 9, "input_text": value, "outcome": "failed"}
            for n, value in enumerate(["30", "-1", "10", "456789", "-456789"])]
    elsewhere = report_in(_asan(b"heap-buffer-overflow", b"/r/build/1-team/solve/solver.c:40"))
    rows.append({**rows[0], "case": 9, "signature": f"no_crash:{elsewhere.kind} on solvable (exit non-zero)"})
    rows.append({**rows[0], "case": 10, "signature": f"no_crash:{report_in(LEAK).kind} on malformed (exit non-zero)"})
    bugs = groups(table(rows))
    assert sorted(group.cases for group in bugs) == [1, 1, 5]  # the line, another line, a leak
    one = next(group for group in bugs if group.cases == 5)
    assert one.signature == signatures["-1"] and one.representative == 1  # ASan's report stands for the line
    assert sorted(one.others) == sorted({signatures["30"], signatures["-456789"]})
    assert words(one.signature).title == "made a memory error at main.c:15 (found by AddressSanitizer) on malformed input"

    # the program's own frame, not the interceptor the SUMMARY names; a build without -g: the error's type
    strcpy = report_in(_asan(b"heap-buffer-overflow", b"../../../../src/libsanitizer/x.inc:827", frames=[
        b"__interceptor_strcpy ../../../../src/libsanitizer/x.inc:827", b"read_board ../common/board.c:12"]))
    assert strcpy.kind == "asan at board.c:12" and strcpy.detail.endswith("(in the program: ../common/board.c:12 in read_board)")
    bare = report_in(_asan(b"heap-buffer-overflow", b"(/r/sudoku+0x1d2)", frames=[b"main (/r/sudoku+0x1d2)"]))
    assert bare.kind == "asan heap-buffer-overflow"


def test_a_leak_is_a_finding_at_its_allocation_site():
    leak = report_in(LEAK)
    assert leak.kind == "lsan at board.c:10"
    assert leak.detail == ("SUMMARY: AddressSanitizer: 64 byte(s) leaked in 1 allocation(s); the first allocated at "
                           "../common/board.c:10 in read_board")
    from fuzz.wording import words

    assert words(f"no_crash:{leak.kind} on malformed (exit non-zero)").title.startswith(
        "never freed memory allocated at board.c:10 (found by LeakSanitizer)")


def test_leaks_are_off_unless_asked_and_the_help_says_so(tmp_path):
    import os

    from fuzz.sanitize import environment
    from fuzz.targets import make_target
    from fuzz.triage import replay_command

    assert "detect_leaks=0" in environment({})["ASAN_OPTIONS"]
    assert environment({})["ASAN_OPTIONS"].split(":")[-1] == "detect_leaks=0"
    assert environment({}, leaks=True)["ASAN_OPTIONS"].split(":")[-1] == "detect_leaks=1"  # the last one wins
    assert environment({"ASAN_OPTIONS": "exitcode=3"}, leaks=True)["ASAN_OPTIONS"] == "exitcode=3:detect_leaks=1"
    assert environment({"ASAN_OPTIONS": "exitcode=3"})["ASAN_OPTIONS"] == "exitcode=3"  # the user's own, kept
    target = make_target("/bin/true", leaks=True)
    assert target.env["ASAN_OPTIONS"].endswith(":detect_leaks=1") and make_target("/bin/true").env is None
    assert os.environ.get("ASAN_OPTIONS") is None or "detect_leaks=1" not in os.environ["ASAN_OPTIONS"]

    spec = {"spec": "/r/build/1-team/sudoku/sudoku", "leaks": True}
    assert replay_command("c/x", spec).endswith(" --leaks") and "--leaks" not in replay_command("c/x", {"spec": "x"})
    for command in ("run", "replay"):
        said = " ".join(fuzz(command, "--help", cwd=tmp_path).stdout.split())
        assert "--leaks" in said and "off by default" in said.split("--leaks", 2)[-1][:400], command


def team(root, name="team", *, build=False):
    """A copy of tests/fake_targets/c_sibling (a team's layout: sudoku/Makefile builds from ../common
    and ../solve) as a student's folder ``root/name``; built plainly in place with ``build``."""
    folder = root / name
    shutil.copytree(HERE / "c_sibling", folder)
    if build:
        subprocess.run(["make", "-s"], cwd=folder / "sudoku", check=True, capture_output=True)
    return folder


def test_the_build_root_is_the_folder_the_makefiles_paths_reach(tmp_path):
    from fuzz.build import BuildError, root_of

    folder = team(tmp_path)
    program = folder / "sudoku" / "sudoku"
    assert root_of(program, limit=tmp_path) == folder  # VPATH = ../common:../solve, -I../common
    alone = tmp_path / "alone"
    shutil.copytree(HERE / "c_overread", alone)
    assert root_of(alone / "sudoku", limit=tmp_path) == alone  # nothing above its own folder
    assert root_of(alone / "sudoku", command="$CC $CFLAGS -o sudoku *.c ../lib/x.c $LDFLAGS") == tmp_path
    (alone / "Makefile").write_text("# ../../ in a comment is no path\ninclude rules.mk\nsudoku: main.c\n")
    (alone / "rules.mk").write_text("CFLAGS += -I../shared/include\n")
    assert root_of(alone / "sudoku", limit=tmp_path) == tmp_path  # from an included file, as make reads it
    (alone / "rules.mk").write_text("CFLAGS += -I../../../../../../../../../../../../../../../../../x\n")
    with pytest.raises(BuildError, match=r"^\S+/alone/rules\.mk reaches \.\./\.\./.*/x, the top of the disk: "):
        root_of(alone / "sudoku")
    with pytest.raises(BuildError, match=r"reaches \.\./common, above \S+/team/sudoku, the folder the target is named "
                                         r"from: --sanitize copies the folder a build reaches \(run fuzz from a folder "
                                         r"that holds the whole submission\)$"):
        root_of(program, limit=folder / "sudoku")
    done = fuzz("run", "-n", 5, "--out", "x", "--target", "./sudoku", "--sanitize", cwd=folder / "sudoku")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "cannot start: " in done.stderr
    assert "reaches ../common, above " in done.stderr and "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def sanitized_team(tmp_path_factory):
    """The team's layout built with the sanitizers by ``fuzz.build`` (once for the module): (the
    student's folder, the copy it was built in, the built program)."""
    from fuzz.build import BuildError, build

    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.skip("no gcc or make: the C targets cannot be built")
    root = tmp_path_factory.mktemp("team")
    if not sanitizers_work(root):
        pytest.skip("gcc cannot link the sanitizers here")
    folder = team(root, build=True)
    try:
        built = build(folder / "sudoku" / "sudoku", root / "into")
    except BuildError as error:
        pytest.fail(str(error))
    return folder, root / "into", built


def out_of_range(value):
    rows = ["0 0 0 0 0 0 0 0 0"] * 9
    rows[4] = f"0 0 0 0 {value} 0 0 0 0"
    return ("\n".join(rows) + "\n").encode()


def test_a_submission_that_builds_from_sibling_folders_is_built_from_its_root(sanitized_team):
    """Issue 44: a Makefile that builds from ../common did not build (only the program's folder was
    copied). Its root is copied whole, with its layout, and make runs in the program's folder there;
    a -1, a 10 and a huge value through one unchecked ``found[v]`` are then one bug."""
    from fuzz.cases import from_text
    from fuzz.oracles import judge_solve
    from fuzz.tasks import signature_of
    from fuzz.targets import make_target
    from fuzz.triage import bug_key

    folder, into, built = sanitized_team
    assert built == into / "sudoku" / "sudoku" and (into / "common" / "board.c").is_file()
    assert (into / "sudoku" / "board.o").is_file() and not (folder / "common" / "board.o").exists()
    assert "../common/board.c" in (into / "build.log").read_text()
    target = make_target(str(built))
    keys, ends = set(), set()
    for value in ("-1", "10", "123456789"):
        case = from_text("malformed_out_of_range", "solve", out_of_range(value))
        result = target.solve(case.text)
        verdict = judge_solve(case, result)
        signature = signature_of(case, verdict, result)
        assert signature.startswith("no_crash:asan at main.c:15 on malformed"), (value, signature, result.stderr[-600:])
        keys.add(bug_key(signature))
        ends.add(verdict.failed["no_crash"].detail.split(" ")[2])
    assert len(keys) == 1 and ends == {"stack-buffer-underflow", "stack-buffer-overflow", "SEGV"}, ends


def test_leak_reports_come_with_leaks_only(sanitized_team):
    from fuzz.cases import from_text
    from fuzz.oracles import judge_solve
    from fuzz.targets import make_target

    _, _, built = sanitized_team
    letter = from_text("malformed_letter", "solve", out_of_range("x"))  # rejected rightly, its line buffer not freed
    plain, leaks = make_target(str(built)), make_target(str(built), leaks=True)
    assert judge_solve(letter, plain.solve(letter.text)).failed == {}
    found = judge_solve(letter, leaks.solve(letter.text)).failed
    assert list(found) == ["no_crash"] and found["no_crash"].kind == "lsan at board.c:10", found
    puzzle = from_text("empty", "solve", out_of_range("0"))
    assert "no_crash" not in judge_solve(puzzle, leaks.solve(puzzle.text)).failed  # no leak on the good path


def with_three_values(cases):
    texts = [case.text for case in cases if case.family in ("malformed_out_of_range", "malformed_negative")]
    return all(any(re.search(pattern, text) for text in texts)
               for pattern in (rb"(?<![0-9-])10(?![0-9])", rb"123456789", rb"(?<![0-9])-[1-8](?![0-9])"))


@pytest.mark.slow
@needs_gcc
def test_fuzz_run_sanitize_on_a_team_layout_finds_one_bug_with_a_reproducer_that_shows_it(tmp_path):
    if not sanitizers_work(tmp_path):
        pytest.skip("gcc cannot link the sanitizers here")
    folder = team(tmp_path, build=True)
    own = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    n = 60
    seed = seed_where(n, with_three_values)
    common = ("-n", n, "--seed", seed, "--workers", 1, "--timeout", 5, "--no-progress", "--target",
              "./team/sudoku/sudoku", "--sanitize")
    done = fuzz("run", *common, "--out", "run", "--corpus", "corpus", cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == own  # nothing built in place
    run = tmp_path / "run"
    built = run / "build" / "1-team" / "sudoku" / "sudoku"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["targets"][0]["spec"] == str(built.resolve())
    groups = manifest["fuzz"]["groups"]
    assert [g["signature"] for g in groups] == ["no_crash:asan at main.c:15 on malformed (exit non-zero)"], groups
    bug = groups[0]
    assert bug["detail"].startswith("no_crash: SUMMARY: AddressSanitizer: ") and "/1-team/sudoku/main.c:15 " in bug["detail"]
    assert bug["confirmed"] == 3 and {"malformed_out_of_range", "malformed_negative"} <= set(bug["families"])
    words = bug["text"].split()
    assert any(word not in "0123456789" or word == "10" for word in words) and len(bug["text"]) < 200  # shrunk, kept
    records = (run / "records.csv").read_text()
    assert records.count("no_crash:asan at main.c:15") >= 3  # -1, 10 and 123456789, one bug
    again = fuzz(*shlex.split(bug["replay"])[1:], cwd=tmp_path, timeout=120)
    assert again.returncode == 1 and "FAILS the same way: no_crash:asan at main.c:15" in again.stderr


@pytest.mark.slow
@needs_gcc
def test_fuzz_run_leaks_reports_a_leak_by_its_allocation_site_and_its_replay_line_says_leaks(tmp_path):
    if not sanitizers_work(tmp_path):
        pytest.skip("gcc cannot link the sanitizers here")
    team(tmp_path)
    n = 40
    seed = seed_where(n, lambda cases: any(case.family == "malformed_letter" for case in cases))
    done = fuzz("run", "-n", n, "--seed", seed, "--workers", 1, "--no-progress", "--target", "./team/sudoku/sudoku",
                "--sanitize", "--leaks", "--out", "run", "--corpus", "corpus", cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    groups = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["groups"]
    leak = [g for g in groups if g["signature"].startswith("no_crash:lsan at board.c:10 ")]
    assert len(leak) == 1, [g["signature"] for g in groups]
    assert "byte(s) leaked" in leak[0]["detail"] and leak[0]["replay"].endswith(" --leaks")
    again = fuzz(*shlex.split(leak[0]["replay"])[1:], cwd=tmp_path, timeout=120)
    assert again.returncode == 1 and "FAILS the same way: no_crash:lsan at board.c:10" in again.stderr
    without = fuzz(*shlex.split(leak[0]["replay"].removesuffix(" --leaks"))[1:], cwd=tmp_path, timeout=120)
    assert without.returncode == 0 and "passes" in without.stderr
