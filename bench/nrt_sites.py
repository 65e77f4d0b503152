"""Reference-counting call sites in the ``big`` engine's compiled kernels: per function of the
optimised LLVM IR of ``run`` and ``settle``, the calls to ``NRT_incref``, ``NRT_decref`` and the
allocator, and the blocks that hold them (an entry or exit block costs once per call; one inside
the loop, once per node).

numba does not show the code of cached functions, so this compiles afresh in a temporary cache.

    PYTHONPATH=. python bench/nrt_sites.py
"""

import collections
import os
import re
import sys
import tempfile

KERNELS = ("run", "settle")
DEMANGLED = re.compile(r"_ZN\w*?_big_kernels\d+(\w+?)B\d")


def short(name):
    """A kernel's name from its mangled one (others kept, cut)."""
    found = DEMANGLED.search(name)
    return found.group(1) if found else name[:40]


def sites(ir):
    """{function: Counter of NRT calls} and {function: [(block, increfs, decrefs)]} for the kernels'
    own functions in ``ir`` (numba's Python wrappers left out)."""
    counts, blocks = {}, {}
    for match in re.finditer(r'^define [^@]*@"?([^"(]+)"?\(.*?^}', ir, re.S | re.M):
        name, body = match.group(1), match.group(0)
        if "_big_kernels" not in name or "cpython" in name or "cfunc" in name:
            continue
        counts[short(name)] = collections.Counter(re.findall(r"call [^@]*@(NRT_\w+)", body))
        blocks[short(name)] = [(block.split(":")[0], block.count("@NRT_incref"), block.count("@NRT_decref"))
                               for block in re.split(r"\n(?=[\w.]+:)", body) if "@NRT_" in block]
    return counts, blocks


def main():
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="nrt-sites-")
    import sudoku
    from sudoku.engines import _big_kernels, big

    big.solve(sudoku.create(4, seed=1), limit=2)
    print(f"Command: `PYTHONPATH=. python bench/nrt_sites.py {' '.join(sys.argv[1:])}`\n")
    print("| kernel | function | NRT calls | blocks with increfs/decrefs |")
    print("|---|---|---|---|")
    for kernel in KERNELS:
        library = next(iter(getattr(_big_kernels, kernel).overloads.values())).library
        counts, blocks = sites(library.get_llvm_str())
        for name, counter in counts.items():
            where = ", ".join(f"{b} {i}/{d}" for b, i, d in blocks[name]) or "-"
            print(f"| {kernel} | {name} | {dict(counter) or 0} | {where} |")


if __name__ == "__main__":
    main()
