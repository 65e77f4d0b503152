"""Reference-counting call sites in an engine's compiled kernels: per function of the optimised LLVM
IR of its hot kernels, the calls to ``NRT_incref`` and ``NRT_decref``, and the blocks that hold them
(an entry or exit block costs once per call; one inside the loop, once per node).

numba counts references on arrays at every call that takes one or a view of one (issue 28: half of a
``big`` node, 8-14 % of an ``nb`` one); the kernels pass raw pointers instead, and
``tests/test_kernel_refcounts.py`` runs this with ``--json`` so that none creeps back. numba does
not show the code of cached functions, so this compiles afresh in a temporary cache.

    PYTHONPATH=. python bench/nrt_sites.py [--engine big|nb|band] [--json]
"""

import argparse
import collections
import json
import os
import re
import sys
import tempfile

# engine -> (kernel module, the kernels whose libraries are read: each holds the functions it calls)
ENGINES = {
    "big": ("_big_kernels", ("run", "settle")),
    "nb": ("_nb_kernels", ("_search", "_settle")),
    "band": ("_band_kernels", ("_search", "_settle")),
}


def short(name, module):
    """A kernel's name from its mangled one (others kept, cut)."""
    found = re.search(rf"_ZN\w*?{module}\d+(\w+?)B\d", name)
    return found.group(1) if found else name[:40]


def sites(ir, module):
    """{function: Counter of NRT calls} and {function: [(block, increfs, decrefs)]} for the functions of
    ``module`` in ``ir`` (numba's Python wrappers left out)."""
    counts, blocks = {}, {}
    for match in re.finditer(r'^define [^@]*@"?([^"(]+)"?\(.*?^}', ir, re.S | re.M):
        name, body = match.group(1), match.group(0)
        if module not in name or "cpython" in name or "cfunc" in name:
            continue
        counts[short(name, module)] = collections.Counter(re.findall(r"call [^@]*@(NRT_\w+)", body))
        blocks[short(name, module)] = [(block.split(":")[0], block.count("@NRT_incref"), block.count("@NRT_decref"))
                                       for block in re.split(r"\n(?=[\w.]+:)", body) if "@NRT_" in block]
    return counts, blocks


PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def compile_engine(engine):
    """Run ``engine`` once, so that its kernels are compiled in this process."""
    import sudoku
    from sudoku.engines import band, big, nb

    if engine == "big":
        big.solve(sudoku.create(4, seed=1), limit=2)
    else:
        (nb if engine == "nb" else band).solve_batch(nb.from_lines([PUZZLE]), limit=2)


def table(engine):
    """[(kernel, function, Counter, blocks)] for ``engine``'s hot kernels, compiled afresh."""
    import importlib

    module_name, kernels = ENGINES[engine]
    compile_engine(engine)
    module = importlib.import_module(f"sudoku.engines.{module_name}")
    rows = []
    for kernel in kernels:
        for overload in getattr(module, kernel).overloads.values():
            counts, blocks = sites(overload.library.get_llvm_str(), module_name)
            rows += [(kernel, name, counter, blocks[name]) for name, counter in counts.items()]
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), default="big")
    parser.add_argument("--json", action="store_true", help="one JSON object: {kernel: {function: {call: count}}}")
    args = parser.parse_args(argv)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="nrt-sites-")  # before numba is imported
    rows = table(args.engine)
    if args.json:
        found = collections.defaultdict(dict)
        for kernel, name, counter, _ in rows:
            found[kernel][name] = dict(counter)
        print(json.dumps(found))
        return
    print(f"Command: `PYTHONPATH=. python bench/nrt_sites.py {' '.join(sys.argv[1:])}`\n")
    print("| kernel | function | NRT calls | blocks with increfs/decrefs |")
    print("|---|---|---|---|")
    for kernel, name, counter, blocks in rows:
        where = ", ".join(f"{b} {i}/{d}" for b, i, d in blocks) or "-"
        print(f"| {kernel} | {name} | {dict(counter) or 0} | {where} |")


if __name__ == "__main__":
    main()
