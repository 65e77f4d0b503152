"""Probing a program's dialect: which arguments and text format make it work, before a run.

Programs written to the classic contract differ in small ways (``create`` or ``create easy`` or
``create easy 9``; a grid, or a grid after its box size). ``probe`` tries each spelling once with a
known-good case and keeps those the program answers rightly, so a user learns the options for
``fuzz run`` instead of reading a run full of failures caused by one wrong argument.
"""

from collections import namedtuple

from fuzz.cases import from_text, known_good
from fuzz.oracles import judge_create, judge_solve

CREATE_ARGS = ("create", "create easy", "create 9", "create easy 9")
FORMATS = ("grid", "header")

Finding = namedtuple("Finding", "create_args format tried")
Finding.__doc__ = """What a probe found: the first create arguments that gave a right puzzle (None if
none), the first input format whose puzzle was solved rightly (None if none), and every
(what, outcome) tried."""


def probe(make, *, side=9):
    """Try each input format, then each create spelling, on targets made by ``make(create_args, header)``.

    A format is right when the known-good puzzle is solved rightly; of two right ones, the one whose
    answer has fewer format slips wins (a program that prints the box size first speaks ``header``).
    """
    tried, formats = [], []
    for fmt in FORMATS:
        header = fmt == "header"
        text = known_good(header=header, side=side)
        verdict = judge_solve(from_text("probe", "solve", text, side=side), make("create", header).solve(text),
                              side=side, header=header)
        wrong = _wrong(verdict)
        tried.append((f"--format {fmt}", wrong or "solved rightly" + (f" (slips: {', '.join(verdict.slips)})"
                                                                      if verdict.slips else "")))
        if not wrong:
            formats.append((len(verdict.slips), fmt))
    format_found = min(formats)[1] if formats else None
    create_found = None
    for args in CREATE_ARGS:
        target = make(args, format_found == "header")
        verdict = judge_create([target.create(side=side) for _ in range(2)], side=side, header=target.header)
        wrong = _wrong(verdict)
        tried.append((f"--create-args '{args}'", wrong or "a right puzzle"))
        if not wrong and create_found is None:
            create_found = args
    return Finding(create_found, format_found, tried)


def _wrong(verdict):
    return ", ".join(f"{name}: {failure.detail}" for name, failure in verdict.failed.items())


def options(finding):
    """The ``fuzz run`` options a finding comes to (empty when the defaults work)."""
    words = []
    if finding.create_args not in (None, "create"):
        words.append(f"--create-args '{finding.create_args}'")
    if finding.format == "header":
        words.append("--format header")
    return " ".join(words)
