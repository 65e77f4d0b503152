"""Memory bugs that do not crash: a C target reading past an array on an out-of-range value rejects
the input rightly when built plainly, and is found (``no_crash:asan heap-buffer-overflow``, shrunk and
saved like any bug) only when built with the sanitizers; the report reader on its own."""

import json
import shutil
import subprocess

import pytest

from fake_targets import fuzz, seed_where
from fuzz.sanitize import FLAGS, report_in

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
