"""What every command line of the toolkit does the same way (``sudoku``, ``sudoku-jobs``, ``fuzz``,
``reports``): one exit-code table, one-line usage errors, ``--version``, ``--color`` (the decision is
``sudoku.colour.colour``), ``--print-completion`` (a bash, zsh or fish script made from the parser by shtab),
and the process-wide part of a command (stop signals, a reader that went away).

This module is the parser's half; the half that needs no parser (the codes, ``say``, ``use_colour``,
``main``) is ``sudoku.cli.process``, re-exported here, so that ``sudoku solve``'s fast path does without
argparse. Each code means one thing in every tool (DESIGN.md, CLI conventions); a tool documents the
codes it can return with ``exit_codes``, which writes the table's meaning first and the tool's own
detail after it, so the help cannot drift from the table (``tests/test_exit_codes.py`` reads every
help).

Nothing heavy is imported: ``--help`` and ``--version`` of every tool go through here before any
command runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from sudoku.cli.process import (EXIT_CODES as EXIT_CODES, FAILED as FAILED, INTERNAL as INTERNAL,
                                INTERRUPTED as INTERRUPTED, IO_ERROR as IO_ERROR, LOST as LOST,
                                NOT_COMPARABLE as NOT_COMPARABLE, OK as OK, TIME_LIMIT as TIME_LIMIT,
                                USAGE as USAGE, main as main, say as say, use_colour as use_colour)

TYPE_CHECKING = False  # typing costs ~2 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn


def exit_codes(details: Mapping[int, str | None], *, width: int = 100) -> str:
    """The ``exit codes:`` block of a help epilog: each code of ``details`` (in the table's order) with
    the table's meaning, then the tool's detail (None: the meaning alone), wrapped to ``width``. Every
    tool can meet a bug of its own (``main``): INTERNAL is in every block."""
    import textwrap

    details = {INTERNAL: None, **details}
    lines = ["exit codes:"]
    for code in sorted(details):
        detail = details[code]
        text = f"{EXIT_CODES[code]}: {detail}" if detail else EXIT_CODES[code]
        lines += textwrap.wrap(text, width, initial_indent=f"  {code:<4} ", subsequent_indent=" " * 7)
    return "\n".join(lines)


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help text as written, as wide as the terminal; asking ``os`` directly spares every command the
    import of ``shutil`` (and through it bz2 and lzma) that argparse makes for the width."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = int(os.environ.get("COLUMNS", "0") or 0) or 100
        super().__init__(prog, width=max(40, width) - 2)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """Each line as written, but a line of prose longer than the terminal (a description written as
        one line, from the left margin) wrapped between words, where the terminal would break it inside
        one. An indented line is left whole: an example (a command line that must stay one to be copied),
        an exit code and its text (already laid out in columns), a line with aligned columns."""
        import textwrap

        lines = []
        for line in text.splitlines():
            if len(indent) + len(line) > width and not line[:1].isspace() and "  " not in line:
                lines += textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent,
                                       break_long_words=False, break_on_hyphens=False)
            else:
                lines.append(indent + line)
        return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit 2, and whose help keeps the
    epilog's lines (subcommand parsers made by ``add_subparsers`` are Parsers too). A word that is
    not a command, a choice or an option gets the nearest one named, as git does (``did_you_mean``):
    ``sudoku crate`` says "did you mean 'create'?"."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value outside ``action.choices``: the error names it, the nearest choice and them all."""
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        hint = did_you_mean(str(value), names)
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(None, f"unknown command {value!r}{hint} (commands: {', '.join(names)})")
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} "
                                             f"(choose from {', '.join(map(repr, choices))})")

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        self._unknown = extras  # for ``error``: the nearest option to the first unknown one
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        unknown = next((word.split("=", 1)[0] for word in getattr(self, "_unknown", None) or ()
                        if word.startswith("--")), None)
        if unknown and message.startswith("unrecognized arguments"):
            message += did_you_mean(unknown, option_strings(self))
        say(self.prog, f"{message} (see {self.prog} --help)")
        sys.exit(USAGE)


def group_options(parser: argparse.ArgumentParser, groups: Mapping[str, Sequence[str]]) -> None:
    """Show ``parser``'s options under named headings in ``--help`` ({title: option strings}, in
    that order), as pytest, ripgrep and git group theirs: a long list read as one is not read. Only
    the help changes (parsing reads ``parser._actions``); an option a parser lacks is skipped, so one
    table serves commands that share option helpers, the first heading that names an option takes
    it, and an option no heading names stays under "options" (``tests/test_exit_codes.py`` finds it).
    Done after the options are added, so each ``add_argument`` stays where it was written."""
    actions = {option: action for action in parser._actions for option in action.option_strings}
    placed: set[int] = set()
    for title, options in groups.items():
        moved = [actions[option] for option in options if option in actions and id(actions[option]) not in placed]
        placed.update(map(id, moved))
        if not moved:
            continue
        group = parser.add_argument_group(title)
        for action in moved:
            for held in parser._action_groups:
                if action in held._group_actions and held is not group:
                    held._group_actions.remove(action)
            group._group_actions.append(action)


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """'; did you mean 'create'?' when one of ``choices`` is near ``word`` (difflib's ratio, case
    aside), else ''."""
    from difflib import get_close_matches

    lower = {choice.lower(): choice for choice in choices}
    found = get_close_matches(word.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[found[0]]!r}?" if found else ""


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every long option of ``parser`` and of its subcommands' parsers (what an unknown one is held
    against: the top parser names the unknown options of every level)."""
    found: list[str] = []
    for action in parser._actions:
        found += [option for option in action.option_strings if option.startswith("--")]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += option_strings(sub)
    return list(dict.fromkeys(found))


COLOR_HELP = ("colour verdicts and failures: auto (default: on a terminal, unless NO_COLOR is set), always or "
              "never")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` (a command that shows verdicts or failures) ``--color auto|always|never``."""
    parser.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS, help=COLOR_HELP)


class _VersionAction(argparse.Action):
    """``--version``: print ``sudoku.version.describe(name)`` on stdout and exit 0; the git sha is
    looked up only then."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, *, name: str,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the name, version and git sha, then exit", **kwargs)
        self.name = name

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from sudoku.version import describe

        print(describe(self.name))
        parser.exit(0)


def add_version_option(parser: argparse.ArgumentParser, name: str) -> None:
    """Give ``parser`` a ``--version`` that prints ``NAME VERSION (git SHA)``, and the tool a
    ``--print-completion`` (every tool's top parser gets its version here, so both go together)."""
    parser.add_argument("--version", action=_VersionAction, name=name)
    parser.add_argument("--print-completion", action=_CompletionAction, choices=SHELLS, metavar="SHELL",
                        help=f"print a shell completion script for {name} ({', '.join(SHELLS[:-1])} or {SHELLS[-1]}), "
                             "then exit (install lines: docs/completion.md)")


SHELLS = ("bash", "zsh", "fish")


class _CompletionAction(argparse.Action):
    """``--print-completion SHELL``: the completion script shtab makes of the whole parser (every
    subcommand, option and choice), on stdout; shtab is imported only then."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        import shtab

        print(shtab.complete(parser, shell=values))
        parser.exit(0)
