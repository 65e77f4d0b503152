"""One bug on the terminal, as the run's short summary shows it: what failed, the minimal input exactly
as the program got it, and the line that replays it.

A person fixing a bug wants the failing input in front of them, not a path to a file that holds it
(Hypothesis prints its "Falsifying example", cargo-fuzz its "Reproduce with"). So the block is:

- a title line: number, target (when the run had several), the bug in words (``fuzz.wording``), cases,
  detail, confirmation; under it why (when known), what to look at, and the signature as the bug's id;
- "seen on: ..." the case families the bug showed on, when the run recorded them;
- the input, indented: whole when it is a grid or a few short lines, with ``\\r``, tabs and control
  bytes shown as escapes, the failing cell marked by a ``^`` line under it; a longer input as its start
  and its length (``sudoku.display.excerpt``);
- "replay: fuzz replay ...", whole, to copy.

Lines of text only (``sudoku.display.show`` prints them to a terminal or a pipe); no file is read.
"""

from pathlib import Path
from typing import Any

from sudoku.display import caret_lines, counted, excerpt, mark_in, marked

from fuzz.wording import words_of

INDENT = "     "


def state_of(one: Any) -> str:
    """How the bug's replays went: a flaky one says so first, since its input may not fail for you; a
    slow answer or an unconfirmed failure says it is not a bug."""
    status = getattr(one, "status", "bug")
    if status == "slow":
        return "slow, not a bug: it answered given more CPU"
    if status == "unconfirmed":
        return "unconfirmed: failed once, in none of 3 replays"
    if one.flaky:
        state = f"FLAKY: failed the same way in {one.confirmed} of 3 replays"
    else:
        state = "confirmed in 3 of 3 replays"
    if one.intermittent:
        state += f"; in the run: intermittent ({one.intermittent})"
    return state


def title_line(one: Any, number: int, *, several: bool, width: int = 160) -> str:
    """The bug in one line; a long detail is cut, since the input below says the rest."""
    who = f"{one.target}: " if several else ""
    cases = counted(one.cases, "case")
    detail = one.detail if len(one.detail) <= width else one.detail[: width - 3] + "..."
    return f"{number:>3}. {who}{words_of(one).title}: {cases}; {detail} ({state_of(one)})"


def words_lines(one: Any) -> list[str]:
    """Under the title: why (when known), what to look at, and the bug's id (its signature, and the
    other signatures it was met as)."""
    said = words_of(one)
    also = getattr(one, "also", None) or []
    return ([f"{INDENT}why: {said.cause}"] if said.cause else []) + [
        f"{INDENT}look at: {said.help}",
        f"{INDENT}id: {one.signature}" + (f" (also met as: {'; '.join(also)})" if also else "")]


def input_lines(one: Any) -> list[str]:
    """The reproducer's input, indented under a caption, with the failing place marked; nothing for an
    input-less case (a create)."""
    text = one.text or b""
    if not text:
        return []
    # a bug that knows its place has it in ``mark`` (None: no place in the input is known; the detail
    # may quote the program's own "line 3"); the detail is read only for what has no such field
    mark = one.mark if hasattr(one, "mark") else mark_in(one.detail)
    shown = excerpt(text, mark, side=getattr(one, "side", None))
    caption = f"{INDENT}input ({len(text)} bytes" + (f", {shown.where} marked" if shown.where else "") + "):"
    lines = caret_lines(shown)
    if shown.rest.startswith("..."):  # cut: say where the whole input is
        lines[-1] += f", whole in {one.folder}/input.txt"
    return [caption] + [f"{INDENT}  {line}" for line in lines]


def bug_lines(one: Any, number: int, *, several: bool = False) -> list[str]:
    """The whole block of one bug (``one``: a ``triage.Saved``, or anything with its fields; ``families``,
    ``mark`` and ``side`` are used when present)."""
    bad = not one.flaky and getattr(one, "status", "bug") == "bug"
    lines = [marked(title_line(one, number, several=several), "bad" if bad else "warn"), *words_lines(one)]
    families = getattr(one, "families", None) or []
    if families:
        lines.append(f"{INDENT}seen on: {', '.join(families)}")
    samples = getattr(one, "samples", None) or []
    if samples:  # each its own slip of the reader: the replay of the folder checks every one
        kinds = ", ".join(Path(str(sample)).name.removeprefix("also-") for sample in samples)
        lines.append(f"{INDENT}other kinds of text it takes alike, saved beside the reproducer (replayed with it): "
                     f"{kinds}")
    return lines + input_lines(one) + [f"{INDENT}replay: {one.replay}"]
