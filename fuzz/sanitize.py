"""Memory bugs that do not crash: a target built with AddressSanitizer and UndefinedBehaviorSanitizer
reports them on stderr, and ``no_crash`` turns the report into a finding.

A C program that reads past an array on a ``10`` often prints garbage, or even rejects the input
rightly, without crashing; built with ``-fsanitize=address,undefined`` the same read stops it with a
report (``==PID==ERROR: AddressSanitizer: heap-buffer-overflow ...`` and a ``SUMMARY:`` line), or
UBSan prints ``FILE:LINE:COL: runtime error: ...`` and goes on. ``report_in`` reads either: the
finding's **kind** is ``asan heap-buffer-overflow`` (or ``ubsan`` and the error with its numbers
made ``N``), so one bug is one group whatever address or value showed it; its **detail** is the
report's SUMMARY line. The build is ``fuzz run --sanitize``'s (``fuzz.build``, with ``FLAGS``) or
the course's own (docs/fuzz.md); ``environment`` sets the options every target call gets, unless
the user set them: ASan exits with ``EXIT_CODE`` (not SIGABRT, so its report is read) and does not
report leaks at exit (a correct program that does not free is no memory error); UBSan keeps going
(recovering), so a read it flags still reaches ASan, whose report is the more precise.
"""

import os
import re
from collections import namedtuple
from collections.abc import Mapping

EXIT_CODE = 86
ASAN_OPTIONS = f"halt_on_error=1:abort_on_error=0:exitcode={EXIT_CODE}:detect_leaks=0"
UBSAN_OPTIONS = "print_stacktrace=0:print_summary=1"
FLAGS = "-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined"  # what the build adds

Report = namedtuple("Report", "kind detail")
Report.__doc__ = """A sanitizer's report: ``kind`` groups like reports ('asan heap-buffer-overflow'),
``detail`` is its SUMMARY line (for people)."""

_ERROR = re.compile(rb"==\d+==(?:ERROR|WARNING): (\w+)Sanitizer: ([\w-]+)")
_SUMMARY = re.compile(rb"^SUMMARY: (\w+)Sanitizer: (.*)$", re.M)
_RUNTIME = re.compile(rb"^(?:\S+?:\d+:\d+: )?runtime error: (.*)$", re.M)
SHORT = {b"Address": "asan", b"Leak": "lsan", b"Memory": "msan", b"Thread": "tsan", b"UndefinedBehavior": "ubsan"}


def report_in(stderr: bytes) -> Report | None:
    """The sanitizer report on ``stderr`` (a Report), or None. An ASan-family error comes first; else
    the first UBSan runtime error."""
    error = _ERROR.search(stderr)
    if error:
        tool = SHORT.get(error.group(1), error.group(1).decode("ascii", "replace").lower())
        summaries = [m for m in _SUMMARY.finditer(stderr, error.start()) if m.group(1) == error.group(1)]
        detail = summaries[0].group(0) if summaries else error.group(0).split(b"==", 2)[2]
        return Report(f"{tool} {error.group(2).decode('ascii', 'replace')}", _text(detail))
    runtime = _RUNTIME.search(stderr)
    if runtime:
        message = _text(runtime.group(1))
        kind = re.sub(r"0x[0-9a-f]+", "ADDR", message)
        kind = re.sub(r"-?\d+", "N", kind)[:80]
        summary = next((m.group(0) for m in _SUMMARY.finditer(stderr) if m.group(1) == b"UndefinedBehavior"), None)
        shown = (_text(summary) + ": " if summary else "") + "runtime error: " + message
        return Report(f"ubsan {kind}", shown)
    return None


def _text(data: bytes, width: int = 200) -> str:
    text = data.decode("utf-8", "backslashreplace").strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (the process's when None) with the sanitizers' options added where not already set."""
    env = dict(os.environ if env is None else env)
    env.setdefault("ASAN_OPTIONS", ASAN_OPTIONS)
    env.setdefault("UBSAN_OPTIONS", UBSAN_OPTIONS)
    return env
