"""Our 9x9 batch engines (``nb``, ``band``) side by side with tdoku, in one process, alternating rounds.

    PYTHONPATH=. python bench/bench_tdoku.py [--tdoku-src DIR_OR_GITDIR] [--sets a,b:2] [--limit N]
                                             [--rounds R] [--quick] [--generate N]

tdoku (github.com/t-dillon/tdoku, BSD-2-Clause, the fastest known 9x9 solver) is built from its own
source at a pinned commit, never copied into this repository: ``--tdoku-src`` (or ``TDOKU_SRC``) names a
source tree or a git directory (bare or not) holding that commit; without either the script tries
``git clone`` of the public repository. Everything it makes goes to a cache folder,
``$XDG_CACHE_HOME/sudoku-toolkit/tdoku-<commit>`` (default ``~/.cache/...``): the extracted sources,
tdoku's solver library (its two files behind ``TdokuSolverDpllTriadSimd``, as tdoku's CMake target
``tdoku_shared`` builds them, here with ``-O3 -march=native``) and a small batch loop of ours
(``DRIVER`` below) that calls tdoku's C API once per puzzle, so one ctypes call times a whole batch.
Without a C/C++ compiler or the source the script prints what is missing and exits 0.

Per set, each round times one call per engine over the same puzzles, in the order tdoku, nb, band;
the figures are per-round ratios "speed vs tdoku" = tdoku's time / ours (above 1: ours is faster),
min / median / max over rounds, on the process's CPU time (what a shared machine leaves comparable;
wall-clock medians are printed beside). Sets solved (limit 1) or counted to 2 as in issue 28.
Every answer is checked outside the timed region: counts equal across the three engines, solutions
valid and keeping the givens, and equal wherever the puzzle has one solution.

``--generate N`` also times minimal unique puzzles, N per call: tdoku's library as its ``generate``
tool uses it from an empty pattern (``TdokuConstrain`` adds random clues until the solution is
unique, ``TdokuMinimize`` tries every clue for removal; ``sk_tdoku_generate`` in ``DRIVER``) against
``nb.generate_batch(minimal=True)``, CPU time per puzzle, alternating rounds; every puzzle is checked
unique, the first 50 of each side minimal. ``--sets ""`` times generation alone.
"""

import argparse
import contextlib
import ctypes
import gzip
import hashlib
import io
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

PINNED = "af426180dc53aef89b82868e7b3fdfcf42165654"
URL = "https://github.com/t-dillon/tdoku"
# the files of tdoku's solver library (CMakeLists.txt: tdoku_object), and what the build reads beside them
LIB_SOURCES = ("src/solver_dpll_triad_simd.cc", "src/util.cc")
TAKE = ("src", "include", "LICENSE", "CMakeLists.txt")
FLAGS = ("-O3", "-march=native")
# set -> limit (1: solve, 2: count to 2), as in issue 28's table
SETS = {"hardest1106": 1, "top1465": 1, "kaggle": 1, "serg_benchmark": 2, "17clue": 2}
STRIDE = 82  # 81 characters and a NUL: tdoku looks at the 82nd byte to tell a pencilmark puzzle apart

# Ours: one call runs a whole batch through tdoku's public C API (declared in tdoku's include/tdoku.h).
DRIVER = r"""
#include <stdint.h>
#include <tdoku.h>

/* k puzzles, row i at puzzles + i * stride: 81 characters ('1'-'9', '.') and a NUL.
 * Writes each count (up to limit) and guess count; with limit 1 also the solution (81 characters). */
int64_t sk_tdoku_batch(const char *puzzles, int64_t k, int64_t stride, int64_t limit,
                       char *solutions, int64_t *counts, int64_t *guesses) {
    int64_t found = 0;
    for (int64_t i = 0; i < k; i++) {
        size_t g = 0;
        size_t n = TdokuSolverDpllTriadSimd(puzzles + i * stride, (size_t)limit, 0, solutions + i * 81, &g);
        counts[i] = (int64_t)n;
        guesses[i] = (int64_t)g;
        found += (int64_t)n;
    }
    return found;
}

/* k minimal unique puzzles into out (row i at out + i * 81), made as tdoku's generate tool makes
 * them from an empty pattern: random clues added until the solution is unique (TdokuConstrain),
 * then every clue tried for removal in random order (TdokuMinimize). Returns the puzzles made. */
int64_t sk_tdoku_generate(int64_t k, char *out) {
    char puzzle[82];
    int64_t made = 0;
    for (int64_t i = 0; i < k; i++) {
        for (int j = 0; j < 81; j++) puzzle[j] = '.';
        puzzle[81] = 0;
        if (!TdokuConstrain(false, puzzle)) continue;
        TdokuMinimize(false, false, puzzle);
        for (int j = 0; j < 81; j++) out[made * 81 + j] = puzzle[j];
        made++;
    }
    return made;
}
"""


class Skip(Exception):
    """Something the bench needs is missing: say what, exit 0."""


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sudoku-toolkit"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def compilers():
    """(cc, c++) from CC/CXX or the usual names; Skip if either is missing."""
    found = []
    for var, names in (("CC", ("cc", "gcc", "clang")), ("CXX", ("c++", "g++", "clang++"))):
        want = os.environ.get(var)
        path = shutil.which(want) if want else next((shutil.which(n) for n in names if shutil.which(n)), None)
        if not path:
            what = "C" if var == "CC" else "C++"
            raise Skip(f"no {what} compiler ({var}={want!r} is not found)" if want
                       else f"no {what} compiler on PATH (tried {', '.join(names)}; set {var})")
        found.append(path)
    return tuple(found)


def is_tree(path):
    return all((path / name).is_file() for name in LIB_SOURCES)


def git_dir_of(path):
    """``path`` as a git directory (bare, or a work tree's ``.git``), or None."""
    for candidate in (path, path / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def extract(git_dir, commit, dest):
    """tdoku's files of ``commit`` (only TAKE: its data.zip is large or absent) into ``dest``."""
    out = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, *TAKE],
                         capture_output=True)
    if out.returncode:
        raise Skip(f"git archive {commit[:12]} in {git_dir} failed: {out.stderr.decode().strip()}")
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(tmp, filter="data")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def resolve_source(given):
    """(source tree, commit) of tdoku: the given tree or git dir, else the cache, else a clone."""
    if given:
        path = Path(given).expanduser().resolve()
        if not path.exists():
            raise Skip(f"tdoku source {path} does not exist")
        if is_tree(path):
            head = run(["git", "-C", str(path), "rev-parse", "HEAD"]) if shutil.which("git") else None
            if head and head.returncode == 0 and head.stdout.strip():
                return path, head.stdout.strip()
            digest = hashlib.sha256(b"".join((path / f).read_bytes() for f in LIB_SOURCES)).hexdigest()
            return path, f"local-{digest[:12]}"
        git_dir = git_dir_of(path)
        if git_dir is None:
            raise Skip(f"{path} is neither a tdoku source tree (no {LIB_SOURCES[0]}) nor a git directory")
        if not shutil.which("git"):
            raise Skip(f"{path} is a git directory, but git is not on PATH")
        commit = PINNED
        if run(["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{PINNED}^{{commit}}"]).returncode:
            commit = run(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"]).stdout.strip()
            print(f"# note: {git_dir} lacks the pinned commit {PINNED[:12]}; using its HEAD {commit[:12]}")
        src = cache_root() / f"tdoku-{commit}" / "src"
        if not is_tree(src):
            src.parent.mkdir(parents=True, exist_ok=True)
            extract(git_dir, commit, src)
        return src, commit
    src = cache_root() / f"tdoku-{PINNED}" / "src"
    if is_tree(src):
        return src, PINNED
    if not shutil.which("git"):
        raise Skip("no tdoku source: pass --tdoku-src DIR (or set TDOKU_SRC); git is not on PATH to clone it")
    clone = src.parent / "clone"
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(clone, ignore_errors=True)
    print(f"# cloning {URL} into {clone} (pinned {PINNED[:12]}) ...", flush=True)
    try:
        got = run(["git", "clone", "--quiet", "--bare", "--filter=blob:none", URL, str(clone)], timeout=300,
                  env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except subprocess.TimeoutExpired:
        got = None
    if got is None or got.returncode:
        shutil.rmtree(clone, ignore_errors=True)
        with contextlib.suppress(OSError):
            src.parent.rmdir()  # only if empty: leave nothing behind for a failed clone
        why = "timed out after 300 s" if got is None else (got.stderr.strip().splitlines() or ["failed"])[-1]
        raise Skip(f"no tdoku source: git clone {URL} failed ({why}); "
                   "pass --tdoku-src DIR_OR_GITDIR (or set TDOKU_SRC)")
    try:
        extract(clone, PINNED, src)
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    return src, PINNED


def first_line(cmd):
    out = run(cmd)
    return (out.stdout or out.stderr).strip().splitlines()[0] if out.returncode == 0 else "?"


def build(src, commit, cc, cxx):
    """Build tdoku's library and our loop into the cache (once per sources, flags, compilers, CPU)."""
    versions = f"{first_line([cc, '--version'])}; {first_line([cxx, '--version'])}"
    key = hashlib.sha256("\0".join([str(src), DRIVER, *FLAGS, cc, cxx, versions, cpu_flags()]).encode()
                         + b"".join((src / f).read_bytes() for f in LIB_SOURCES)).hexdigest()[:12]
    out = cache_root() / f"tdoku-{commit}" / f"build-{key}"
    if (out / "sk_tdoku_batch.so").is_file():
        return out / "sk_tdoku_batch.so", versions
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "sk_tdoku_batch.c").write_text(DRIVER)
    steps = [
        [cxx, "-std=c++14", *FLAGS, "-fno-exceptions", "-fno-rtti", "-fPIC", "-shared",
         *(str(src / f) for f in LIB_SOURCES), "-o", str(tmp / "libtdoku.so")],
        [cc, "-std=c99", *FLAGS, "-fPIC", "-shared", f"-I{src / 'include'}", str(tmp / "sk_tdoku_batch.c"),
         "-o", str(tmp / "sk_tdoku_batch.so"), f"-L{tmp}", "-ltdoku", "-Wl,-rpath,$ORIGIN"],
    ]
    log = []
    for cmd in steps:
        done = run(cmd)
        log.append(f"$ {' '.join(cmd)}\n{done.stdout}{done.stderr}")
        if done.returncode:
            (tmp / "build.log").write_text("\n".join(log))
            raise SystemExit(f"building tdoku failed (log: {tmp / 'build.log'}):\n" + "\n".join(log)[-2000:])
    (tmp / "build.log").write_text("\n".join(log))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out / "sk_tdoku_batch.so", versions


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def vector_width(cc):
    """The widest vector ISA of the CPU (its flags) and what ``-march=native`` turns on in ``cc``."""
    flags = set(cpu_flags().split())
    interesting = ["avx512f", "avx512vl", "avx512bw", "avx512_bitalg", "avx512_vpopcntdq", "avx2"]
    has = [f for f in interesting if f in flags]
    width = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE only" if flags else "unknown"
    macros = run([cc, "-march=native", "-dM", "-E", "-x", "c", "-"], input="")
    on = sorted({w.strip("_") for line in macros.stdout.splitlines() for w in line.split()[1:2]
                 if w in ("__AVX2__", "__AVX512F__", "__AVX512VL__", "__AVX512BW__", "__AVX512BITALG__",
                          "__AVX512VPOPCNTDQ__")})
    return f"{width} (cpu flags: {' '.join(has) or 'none'}; -march=native enables: {' '.join(on) or 'none'})"


def load_set(data, name, limit):
    path = data / f"{name}.txt.gz"
    if not path.exists():
        return None
    lines = []
    with gzip.open(path, "rt") as handle:
        for line in handle:
            if line.strip():
                lines.append(line.strip())
                if limit and len(lines) >= limit:
                    break
    return lines


def parse_sets(text):
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, _, limit = item.partition(":")
        out[name] = int(limit) if limit else SETS.get(name, 1)
        if out[name] not in (1, 2):
            raise SystemExit(f"--sets {item}: the limit is 1 (solve) or 2 (count to 2)")
    return out


class Tdoku:
    def __init__(self, path):
        import numpy as np

        self.np = np
        self.lib = ctypes.CDLL(str(path))
        fn = self.lib.sk_tdoku_batch
        fn.restype = ctypes.c_int64
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.fn = fn
        gen = self.lib.sk_tdoku_generate
        gen.restype = ctypes.c_int64
        gen.argtypes = [ctypes.c_int64, ctypes.c_void_p]
        self.gen = gen

    def generate(self, k):
        """uint8[made, 81] minimal unique puzzles from tdoku's library (digits, 0 = blank)."""
        np = self.np
        out = np.zeros((k, 81), np.uint8)
        made = self.gen(k, out.ctypes.data)
        return np.where(out[:made] == ord("."), 0, out[:made] - ord("0")).astype(np.uint8)

    def prepare(self, puzzles):
        """uint8[k, 82] of tdoku's input (digits, '.', a NUL) from our uint8[k, 81] puzzles."""
        np = self.np
        rows = np.zeros((puzzles.shape[0], STRIDE), np.uint8)
        rows[:, :81] = np.where(puzzles == 0, ord("."), puzzles + ord("0"))
        return rows

    def solve(self, rows, limit):
        np = self.np
        k = rows.shape[0]
        solutions = np.zeros((k, 81), np.uint8)
        counts = np.zeros(k, np.int64)
        guesses = np.zeros(k, np.int64)
        self.fn(rows.ctypes.data, k, STRIDE, limit, solutions.ctypes.data, counts.ctypes.data, guesses.ctypes.data)
        return counts, solutions, guesses


def check(name, limit, puzzles, answers, unique):
    """Counts equal across engines; with limit 1, solutions valid, keeping the givens, and equal where unique."""
    import numpy as np

    from bench.common import valid_solutions

    counts = {engine: np.asarray(a[0], np.int64) for engine, a in answers.items()}
    base = counts["tdoku"]
    for engine, c in counts.items():
        if not np.array_equal(c, base):
            i = int(np.flatnonzero(c != base)[0])
            raise SystemExit(f"{name} #{i}: {engine} counts {c[i]}, tdoku {base[i]}")
    if limit == 1:
        solved = base == 1
        for engine, a in answers.items():
            ok = valid_solutions(puzzles[solved], a[1][solved])
            if not ok.all():
                raise SystemExit(f"{name}: {engine} gave {int((~ok).sum())} invalid solutions")
        for engine, a in answers.items():
            same = (a[1][unique] == answers["tdoku"][1][unique]).all(axis=1)
            if not same.all():
                raise SystemExit(f"{name}: {engine} and tdoku differ on {int((~same).sum())} unique puzzles")


def bench_set(name, limit, lines, rounds, tdoku, seed=None):
    import numpy as np

    from bench.bench_nb_vs_base import relabel  # there, as its workers run on trees without bench/common's newer helpers
    from sudoku.engines import band, nb

    puzzles = relabel(nb.from_lines(lines), seed)
    rows = tdoku.prepare(puzzles)
    engines = {
        "tdoku": lambda: tdoku.solve(rows, limit),
        "nb": lambda: nb.solve_batch(puzzles, limit=limit),
        "band": lambda: band.solve_batch(puzzles, limit=limit),
    }
    for run_it in engines.values():  # warm: page in, fill caches (kernels were compiled before)
        run_it()
    cpu = {e: [] for e in engines}
    wall = {e: [] for e in engines}
    answers = {}
    for _ in range(rounds):
        for engine, run_it in engines.items():
            w0, c0 = time.perf_counter(), time.process_time()
            got = run_it()
            c1, w1 = time.process_time(), time.perf_counter()
            cpu[engine].append(c1 - c0)
            wall[engine].append(w1 - w0)
            if engine not in answers:
                answers[engine] = got
            elif not np.array_equal(got[0], answers[engine][0]):
                raise SystemExit(f"{name}: {engine} counted differently between rounds")
    counts, solutions, guesses = answers["tdoku"]
    answers["tdoku"] = (counts, (solutions - ord("0")).astype(np.uint8) if limit == 1 else solutions, guesses)
    unique = nb.solve_batch(puzzles, limit=2)[0] == 1 if limit == 1 else None
    check(name, limit, puzzles, answers, unique)
    k = len(lines)
    row = {"set": name, "limit": limit, "puzzles": k}
    for engine in engines:
        row[f"{engine}_us"] = statistics.median(cpu[engine]) / k * 1e6
        row[f"{engine}_wall_us"] = statistics.median(wall[engine]) / k * 1e6
    for engine in ("nb", "band"):
        ratios = sorted(t / o for t, o in zip(cpu["tdoku"], cpu[engine]) if o > 0)
        row[engine] = (ratios[0], statistics.median(ratios), ratios[-1])
        row[f"{engine}_wall"] = statistics.median(wall["tdoku"]) / statistics.median(wall[engine])
    return row


def bench_generate(k, rounds, tdoku):
    """tdoku's library against ``nb.generate_batch(minimal=True)``, ``k`` minimal puzzles per call,
    alternating rounds; every puzzle checked unique, and the first 50 of each side minimal."""
    import numpy as np

    from sudoku.engines import nb

    seeds = [0]

    def ours():
        seeds[0] += k
        return nb.generate_batch(nb.seeds_from(seeds[0], k), minimal=True)

    engines = {"tdoku": lambda: tdoku.generate(k), "nb": ours}
    for run_it in engines.values():
        run_it()
    cpu = {e: [] for e in engines}
    made = {e: [] for e in engines}
    for _ in range(rounds):
        for engine, run_it in engines.items():
            c0 = time.process_time()
            got = run_it()
            cpu[engine].append((time.process_time() - c0) / max(len(got), 1))
            made[engine].append(got)
    for engine, batches in made.items():
        puzzles = np.concatenate(batches)
        if len(puzzles) < k * rounds * 0.9:
            raise SystemExit(f"generation: {engine} made {len(puzzles)} of {k * rounds} puzzles")
        if not (nb.solve_batch(puzzles, limit=2)[0] == 1).all():
            raise SystemExit(f"generation: {engine} made a puzzle without a unique solution")
        for puzzle in puzzles[:50]:
            trials = np.repeat(puzzle[None], 81, axis=0)
            clues = np.flatnonzero(puzzle)
            trials[clues, clues] = 0
            if (nb.solve_batch(trials[clues], limit=2)[0] == 1).any():
                raise SystemExit(f"generation: {engine} made a puzzle that is not minimal")
    ratios = sorted(t / o for t, o in zip(cpu["tdoku"], cpu["nb"]))
    clues = {e: float(np.mean([(np.concatenate(b) != 0).sum(axis=1).mean()])) for e, b in made.items()}
    return {"k": k, "tdoku_us": statistics.median(cpu["tdoku"]) * 1e6, "nb_us": statistics.median(cpu["nb"]) * 1e6,
            "nb": (ratios[0], statistics.median(ratios), ratios[-1]), "clues": clues}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tdoku-src", default=os.environ.get("TDOKU_SRC"),
                        help="tdoku source tree or git directory (default: $TDOKU_SRC, else the cache, else git clone)")
    parser.add_argument("--sets", default=",".join(SETS),
                        help="comma-separated sets, each NAME or NAME:LIMIT (1 solve, 2 count to 2); "
                             f"default {','.join(f'{k}:{v}' for k, v in SETS.items())}")
    parser.add_argument("--limit", type=int, default=None, help="first N puzzles of each set (default: all)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per set (default 5, --quick 3)")
    parser.add_argument("--quick", action="store_true", help="--limit 500 --rounds 3 unless given")
    parser.add_argument("--data", type=Path, default=None, help="folder of the *.txt.gz sets (default: SUDOKU_DATA "
                        "or ../shared/data)")
    parser.add_argument("--relabel", type=int, metavar="SEED",
                        help="rename each puzzle's digits by a permutation drawn from SEED: a set's own labels can favour "
                             "one engine's order of trying digits")
    parser.add_argument("--generate", type=int, default=0, metavar="N",
                        help="also time minimal unique puzzles, N per call: tdoku's library (TdokuConstrain from "
                             "an empty grid, then TdokuMinimize) against nb.generate_batch(minimal=True)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 5)
    limit = args.limit or (500 if args.quick else None)
    sets = parse_sets(args.sets)
    load_start = os.getloadavg()
    try:
        cc, cxx = compilers()
        src, commit = resolve_source(args.tdoku_src)
    except Skip as why:
        print(f"bench_tdoku: skipped: {why}")
        return 0
    library, versions = build(src, commit, cc, cxx)

    import numba
    import numpy as np

    from bench.common import DATA
    from sudoku.engines import band, nb

    data = args.data or DATA
    tdoku = Tdoku(library)
    nb.warm()
    band.warm()
    print(f"# cpu: {cpu_model()}, {os.cpu_count()} cores; vector width: {vector_width(cc)}")
    print(f"# compilers: {versions}; flags {' '.join(FLAGS)}; tdoku {commit} ({src})")
    print(f"# python {platform.python_version()}, numba {numba.__version__}, numpy {np.__version__}; "
          f"rounds {rounds}, order tdoku, nb, band; limit {limit or 'all'}; "
          f"load average at start {load_start[0]:.1f} {load_start[1]:.1f} {load_start[2]:.1f}")
    print(f"# command: {' '.join(['bench/bench_tdoku.py', *(argv if argv is not None else sys.argv[1:])])}")
    rows = []
    for name, set_limit in sets.items():
        lines = load_set(data, name, limit)
        if lines is None:
            print(f"# skipped {name}: not in {data}")
            continue
        rows.append(bench_set(name, set_limit, lines, rounds, tdoku, args.relabel))
        print(f"# {name}: done, load {os.getloadavg()[0]:.1f}", flush=True)
    print()
    print("speed vs tdoku = tdoku's CPU time / ours, per round: min / median / max (above 1: ours is faster); "
          "us = median CPU microseconds per puzzle; wall = ratio of wall-clock medians")
    print()
    print("| set (task) | puzzles | tdoku us | nb us | band us | nb speed vs tdoku | band speed vs tdoku "
          "| nb wall | band wall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        task = "solve" if r["limit"] == 1 else "count to 2"
        print(f"| {r['set']} ({task}) | {r['puzzles']:,} | {r['tdoku_us']:.1f} | {r['nb_us']:.1f} | {r['band_us']:.1f} "
              f"| {' / '.join(f'{x:.2f}' for x in r['nb'])} | {' / '.join(f'{x:.2f}' for x in r['band'])} "
              f"| {r['nb_wall']:.2f} | {r['band_wall']:.2f} |")
    if args.generate:
        g = bench_generate(args.generate, rounds, tdoku)
        print()
        print("| minimal unique puzzles | per call | tdoku us | nb us | nb speed vs tdoku | clues tdoku / nb |")
        print("|---|---:|---:|---:|---:|---:|")
        print(f"| generation | {g['k']:,} | {g['tdoku_us']:.1f} | {g['nb_us']:.1f} "
              f"| {' / '.join(f'{x:.2f}' for x in g['nb'])} | {g['clues']['tdoku']:.1f} / {g['clues']['nb']:.1f} |")
    end = os.getloadavg()
    print(f"\n# load average at end {end[0]:.1f} {end[1]:.1f} {end[2]:.1f}; every answer checked "
          "(counts equal, solutions valid, keeping the givens, equal where unique)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
