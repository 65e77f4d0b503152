"""Memory bugs that do not crash: a target built with AddressSanitizer and UndefinedBehaviorSanitizer
reports them on stderr, and ``no_crash`` turns the report into a finding.

A C program that reads past an array on a ``10`` often prints garbage, or even rejects the input
rightly, without crashing; built with ``-fsanitize=address,undefined`` the same read stops it with a
report (``==PID==ERROR: AddressSanitizer: heap-buffer-overflow ...``, the stack, a ``SUMMARY:``
line), or UBSan prints ``FILE:LINE:COL: runtime error: ...`` and goes on. ``report_in`` reads either.

One memory error is one bug whatever value reached it and however the call ended: a ``found[v]``
reached by ``-1`` is a stack-buffer-underflow, by ``10`` an overflow, by ``123456789`` a SEGV, and by
``30`` only UBSan's "index out of bounds" (the read lands in another variable), yet one fix mends all
four. So the finding's **kind** is the tool and the **place**: the first frame of the error's stack
that is the program's own code (not the sanitizer's interceptor, not libc), as the source file's name
and line, ``asan at main.c:12`` (UBSan: the place its runtime error names, ``ubsan at main.c:12``).
The file's name alone: UBSan names a file as the compiler was given it (``../common/board.c``),
ASan by its full path, which moves with every build. ``bug_of`` gives what two findings must share
to be one bug (the place, whichever tool saw it). A report whose stack has no place of the program's
(a build without ``-g``) falls back to the error's type (``asan heap-buffer-overflow``, UBSan's
message with its numbers made ``N``). The **detail** is the report's SUMMARY line (for people), with
the program's own frame added when the SUMMARY names another (an interceptor such as ``strcpy``).

A leak (LeakSanitizer, ``--leaks``) is a finding grouped by its allocation site: the program's own
frame of the first leak's allocation stack, ``lsan at board.c:40``.

``environment`` sets the options every target call gets, unless the user set them: ASan exits with
``EXIT_CODE`` (not SIGABRT, so its report is read) and reports no leaks at exit unless asked
(``leaks``: a program that does not free is not wrong by the contract, and a leak report ends the
call before its buffered output is written); UBSan keeps going (recovering), so a read it flags still
reaches ASan, whose report is the more precise. The build is ``fuzz run --sanitize``'s
(``fuzz.build``, with ``FLAGS``) or the course's own (docs/fuzz.md).
"""

import os
import re
from collections import namedtuple
from collections.abc import Mapping

EXIT_CODE = 86
ASAN_OPTIONS = f"halt_on_error=1:abort_on_error=0:exitcode={EXIT_CODE}:detect_leaks=0"
LEAKS = "detect_leaks=1"  # added last to ASAN_OPTIONS by ``--leaks`` (a later option wins)
UBSAN_OPTIONS = "print_stacktrace=0:print_summary=1"
FLAGS = "-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined"  # what the build adds

Report = namedtuple("Report", "kind detail")
Report.__doc__ = """A sanitizer's report: ``kind`` groups like reports ('asan at main.c:12', or
'asan heap-buffer-overflow' when no place is known), ``detail`` is its SUMMARY line (for people)."""

_ERROR = re.compile(rb"==\d+==(?:ERROR|WARNING): (\w+)Sanitizer: ([\w-]+)")
_SUMMARY = re.compile(rb"^SUMMARY: (\w+)Sanitizer: (.*)$", re.M)
_RUNTIME = re.compile(rb"^(?:(?P<path>\S+?):(?P<line>\d+):\d+: )?runtime error: (?P<message>.*)$", re.M)
_FRAME = re.compile(rb"^[ \t]*#\d+ 0x[0-9a-fA-F]+(?: in (?P<func>.*?))?(?: (?P<path>[^\s()]+?):(?P<line>\d+)(?::\d+)?"
                    rb"| \(.*\))?[ \t]*$")
_LEAK = re.compile(rb"^(?:Direct|Indirect) leak of .* allocated from:$", re.M)
# where a frame is not the program's own: the sanitizer's runtime (gcc's libsanitizer, clang's
# compiler-rt), the C library (glibc's sources are named ../sysdeps/..., ../csu/...), system headers
_FOREIGN_PATH = re.compile(r"^/usr/|(?:^|/)(?:libsanitizer|compiler-rt|sanitizer_common|sysdeps|csu)/")
_FOREIGN_FUNC = re.compile(r"^(?:__interceptor_|__asan|__ubsan|__lsan|__sanitizer|__libc_|_start$)")
SHORT = {b"Address": "asan", b"Leak": "lsan", b"Memory": "msan", b"Thread": "tsan", b"UndefinedBehavior": "ubsan"}

Frame = namedtuple("Frame", "func path line")


def report_in(stderr: bytes) -> Report | None:
    """The sanitizer report on ``stderr`` (a Report), or None. An ASan-family error comes first; else
    the first UBSan runtime error."""
    error = _ERROR.search(stderr)
    if error:
        return _error_report(stderr, error)
    runtime = _RUNTIME.search(stderr)
    if runtime:
        message = _text(runtime.group("message"))
        summary = next((m.group(0) for m in _SUMMARY.finditer(stderr) if m.group(1) == b"UndefinedBehavior"), None)
        shown = (_text(summary) + ": " if summary else "") + "runtime error: " + message
        if runtime.group("path"):
            return Report(f"ubsan at {place(_text(runtime.group('path')), int(runtime.group('line')))}", shown)
        kind = re.sub(r"0x[0-9a-f]+", "ADDR", message)
        kind = re.sub(r"-?\d+", "N", kind)[:80]
        return Report(f"ubsan {kind}", shown)
    return None


def _error_report(stderr: bytes, error: re.Match[bytes]) -> Report:
    """The Report of an ASan-family ``error`` (its ``==PID==ERROR: ...`` line) on ``stderr``."""
    tool = SHORT.get(error.group(1), error.group(1).decode("ascii", "replace").lower())
    leak = tool == "lsan"
    summaries = [m for m in _SUMMARY.finditer(stderr, error.start()) if leak or m.group(1) == error.group(1)]
    detail = _text(summaries[0].group(0) if summaries else error.group(0).split(b"==", 2)[2])
    start = error.end()
    if leak:  # the first leak's allocation stack
        first = _LEAK.search(stderr, start)
        start = first.end() if first else len(stderr)
    own = _own(_frames(stderr, start))
    if own is None:
        return Report(f"{tool} {error.group(2).decode('ascii', 'replace')}", detail)
    at = f"{own.path}:{own.line}"
    if leak:
        detail = f"{detail.removesuffix('.')}; the first allocated at {at} in {own.func}"
    elif f" {at} " not in f" {detail} ":
        detail = f"{detail} (in the program: {at} in {own.func})"
    return Report(f"{tool} at {place(own.path, own.line)}", detail)


def _frames(stderr: bytes, start: int) -> list[Frame]:
    """The first stack on ``stderr`` after ``start``: its frames (``#0 0x... in FUNC FILE:LINE``), in
    order, up to the first line that is not one; a frame with no source place has path None."""
    frames: list[Frame] = []
    for line in stderr[start:].splitlines():
        match = _FRAME.match(line)
        if match:
            path = _text(match.group("path")) if match.group("path") else None
            frames.append(Frame(_text(match.group("func") or b""), path, int(match.group("line") or 0)))
        elif frames:
            break
    return frames


def _own(frames: list[Frame]) -> Frame | None:
    """The first of ``frames`` in the program's own code: with a source place, neither the
    sanitizer's runtime nor the C library's."""
    return next((frame for frame in frames if frame.path and not _FOREIGN_PATH.search(frame.path)
                 and not _FOREIGN_FUNC.match(frame.func)), None)


def place(path: str, line: int) -> str:
    """A place in the program as a finding's kind names it: the file's name and the line
    ('main.c:12'), the same from every build and from ASan and UBSan alike."""
    return f"{path.replace(os.sep, '/').rsplit('/', 1)[-1]}:{line}"


def bug_of(kind: str) -> str | None:
    """What makes sanitizer findings one bug: their place ('memory error at main.c:12', whichever
    tool saw it and whatever error it called it; 'leak at board.c:40' for a leak, by its allocation
    site); None for a kind with no place (another crash, or a report without one)."""
    tool, _, rest = kind.partition(" ")
    if tool not in SHORT.values() or not rest.startswith("at "):
        return None
    return ("leak " if tool == "lsan" else "memory error ") + rest


def _text(data: bytes, width: int = 200) -> str:
    text = data.decode("utf-8", "backslashreplace").strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def environment(env: Mapping[str, str] | None = None, *, leaks: bool = False) -> dict[str, str]:
    """``env`` (the process's when None) with the sanitizers' options added where not already set;
    with ``leaks``, LeakSanitizer turned on whatever ASAN_OPTIONS said."""
    env = dict(os.environ if env is None else env)
    env.setdefault("ASAN_OPTIONS", ASAN_OPTIONS)
    env.setdefault("UBSAN_OPTIONS", UBSAN_OPTIONS)
    if leaks and not env["ASAN_OPTIONS"].endswith(LEAKS):
        env["ASAN_OPTIONS"] = f"{env['ASAN_OPTIONS']}:{LEAKS}".lstrip(":")
    return env
