"""A first compile says how far it is: ``sudoku.engines.compiling`` counts our kernels as numba
finishes each (its ``numba:compile`` event), and estimates the rest from the CPU they took."""

from types import SimpleNamespace

from sudoku import engines
from sudoku.engines.compiling import Progress, kernels_of, watching


def _compiled(module):
    """What numba tells its listeners when it has compiled a function of ``module``."""
    from numba.core import event

    def function():
        pass

    function.__module__ = module
    data = {"dispatcher": SimpleNamespace(py_func=function)}
    event.start_event("numba:compile", data=data)
    event.end_event("numba:compile", data=data)


def test_each_of_our_kernels_compiled_is_told_with_the_time_left():
    told = []
    with watching(4, told.append):
        _compiled("sudoku.engines._nb_kernels")
        _compiled("numba.cpython.unicode")  # numba's own helper, compiled on the way: not ours, not counted
        _compiled("sudoku.engines._nb_kernels")
    _compiled("sudoku.engines._nb_kernels")  # after the block: nobody listens
    assert [(p.done, p.total) for p in told] == [(1, 4), (2, 4)]
    assert all(p.cpu_s >= 0 and p.left_s >= 0 for p in told)
    # the time left is the CPU each kernel took so far, for the kernels left, at the share of the CPU had
    assert told[1].left_s >= told[1].cpu_s / 2 * 2 * 0.999


def test_more_kernels_than_counted_grow_the_total():
    told = []
    with watching(1, told.append):
        _compiled("sudoku.engines._big_kernels")
        _compiled("sudoku.engines._big_kernels")
    assert [(p.done, p.total, p.left_s) for p in told][-1][:2] == (2, 2) and told[-1].left_s == 0


def test_the_kernels_of_the_compiled_engines_are_counted():
    counted = {name: kernels_of([engines.load(name)]) for name in ("nb", "band", "big")}
    assert all(count >= 5 for count in counted.values()), counted
    assert kernels_of([engines.load("nb"), engines.load("band")]) == counted["nb"] + counted["band"]
    assert kernels_of([engines.load("py")]) == 0


def test_progress_is_said_as_roughly_as_it_is_known():
    assert Progress(12, 68, 41.2, 45).words() == "12 of 68 kernels compiled, 41 s of CPU so far; about 45 s left"
    assert Progress(12, 68, 41.2, 200).words().endswith("about 3 min left")
    # the counted kernels done, another compiled for a second signature may follow: no "0 s left", then more
    assert Progress(23, 23, 80.4, 0).words() == "23 kernels compiled, 80 s of CPU so far; finishing"


def test_a_warm_cache_tells_nothing():
    engines.warm("nb")  # compiled or loaded now, once per process
    told = []
    engines.warm("nb", tell=told.append)
    assert told == []


def test_progress_is_passed_on_now_and_then_and_once_when_the_counted_kernels_are_done(monkeypatch):
    from sudoku.engines import compiling

    clock = [100.0]
    monkeypatch.setattr(compiling.time, "monotonic", lambda: clock[0])
    said = []
    tell = compiling.now_and_then(said.append, 10)
    for done, at in ((1, 101), (2, 112), (3, 113), (38, 114), (39, 115), (40, 116), (41, 130)):
        clock[0] = at
        tell(Progress(done, max(38, done), 1.0, 0))
    assert [p.done for p in said] == [2, 38, 41]  # 10 s apart, the 38th, then 10 s on: not 39 and 40

