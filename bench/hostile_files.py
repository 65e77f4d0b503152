"""Links, folders and FIFOs in every file a tool reads or writes (issue 46, item 4).

What a tool reads and writes is found, not listed: each call is first made on a pristine copy of its
run, every access time set to 1970 beforehand, and the paths it read (their access time moved: a file
read, a folder listed) or wrote (new, or a new inode or modification time) are its paths. Numbered
siblings (parts, corpus entries, bug folders) count once. Each path is then replaced in turn, on a fresh
copy, by

- ``link``: a symbolic link to a copy of what was there, outside the run (the victim);
- ``folder``: a folder holding a file of its own (``keep``), where a file goes;
- ``fifo``: a FIFO where a file goes (a reader that opens it blocks for ever);
- ``file``: a regular file where a folder goes;

and the call is made again. It holds when the call ended by itself (``hostile_tools.Ran.faults``: no
block, no traceback, no internal error, no process left), the victim was neither written nor read
(its access times still say 1970; a file the user named, such as ``--rules``, may be followed), the
planted folder's own file is still there (or moved aside, as a resume moves a part that is not
whole), and the call either did as on the pristine copy (it had no need of the path) or named the path
(or its folder) in its message: a refusal (non-zero exit) or a line saying what it skipped. A wrong
type in a run is bad input, exit 2, never an I/O error (3) nor a bug (70).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hostile_tools import Try, run, target

OLD = 1  # an access time of 1970: any read moves it (relatime moves an access time older than a day)


@dataclass
class Tool:
    """A call made on a copy of a fixture: the paths it touches under ``areas`` are its tries."""

    name: str
    fixture: str  # a folder of the campaign's fixtures, copied whole as the try's root
    tool: str
    args: list[object]
    areas: tuple[str, ...] = ("run",)
    followed: tuple[str, ...] = ()  # paths the user named: following their link is allowed
    quick: bool = True  # also in --quick
    under: tuple[str, ...] = ()  # only paths under these are tried (the others are another tool's tries too)
    depth: int = 99  # only paths this many folders deep, or less, are tried


def tools(target_name: str) -> list[Tool]:
    """Every call whose files are tried. The fixtures (``make_fixtures``) are: ``fuzz`` (a complete fuzz
    run and its shared corpus), ``fuzz-shrinking`` (a run stopped before its reproducers were saved),
    ``fuzz-triage`` (a run stopped while shrinking, its first reproducers saved) and ``jobs``,
    ``jobs-stopped`` (a batch run, complete and stopped half-way)."""
    prog = target(target_name)
    return [
        Tool("reports show", "fuzz", "reports", ["show", "run", "-q", "--md", "out/r.md", "--html", "out/r.html"],
             areas=("run", "out")),
        Tool("reports feedback", "fuzz", "reports", ["feedback", "run", "-q"]),
        Tool("reports feedback --out --rules", "fuzz", "reports",
             ["feedback", "run", "-q", "--out", "out/fb", "--rules", "out/rules.toml"], areas=("out",),
             followed=("out/fb", "out/rules.toml"), quick=False, depth=2),
        Tool("reports show (batch)", "jobs", "reports", ["show", "run", "-q"], quick=False),
        Tool("sudoku-jobs show", "jobs", "sudoku-jobs", ["show", "run", "--md", "out/show.md"], areas=("run", "out")),
        Tool("sudoku-jobs run --resume", "jobs-stopped", "sudoku-jobs", ["run", "--resume", "run", "--no-progress"]),
        Tool("fuzz run --resume (saving)", "fuzz-shrinking", "fuzz", ["run", "--resume", "run", "--no-progress"]),
        Tool("fuzz run --resume (reading)", "fuzz-triage", "fuzz", ["run", "--resume", "run", "--no-progress"],
             quick=False, under=("run/corpus",)),
        Tool("fuzz replay", "fuzz", "fuzz", ["replay", "run/corpus", "--target", prog], followed=("run/corpus",)),
        Tool("fuzz run --corpus --md", "fuzz", "fuzz",
             ["run", "-n", 4, "--seed", 3, "--workers", 1, "--target", prog, "--out", "fresh", "--corpus", "shared",
              "--md", "out/s.md", "--no-progress"], areas=("shared", "out"), quick=False),
        Tool("fuzz run --force", "fuzz", "fuzz",
             ["run", "-n", 4, "--seed", 3, "--workers", 1, "--target", prog, "--out", "run", "--force", "--corpus",
              "shared", "--no-progress"], quick=False),
        Tool("fuzz autograder", "fuzz", "fuzz", ["autograder", "--out", "out/ag.zip", "-n", 10], areas=("out",),
             quick=False),
    ]


# --- what a call touched -----------------------------------------------------------------------------------

def _walk(root: Path, areas: tuple[str, ...]) -> dict[str, os.stat_result]:
    """lstat of every path under the areas, by path relative to ``root`` (the areas themselves left out)."""
    found = {}
    for area in areas:
        top = root / area
        if not top.is_dir():
            continue
        for folder, names, files in os.walk(top):
            for name in names + files:
                path = Path(folder) / name
                found[str(path.relative_to(root))] = os.lstat(path)
    return found


def age(root: Path, areas: tuple[str, ...]) -> None:
    """Set every access time under the areas to 1970, modification times kept."""
    for relative, before in _walk(root, areas).items():
        os.utime(root / relative, ns=(OLD * 10**9, before.st_mtime_ns), follow_symlinks=False)


def touched(root: Path, areas: tuple[str, ...], before: dict[str, os.stat_result]) -> dict[str, str]:
    """The paths read or written since ``before`` (taken after ``age``): path -> 'read', 'written'."""
    after = _walk(root, areas)
    found = {}
    for relative, now in after.items():
        was = before.get(relative)
        if was is None or (now.st_ino, now.st_mtime_ns) != (was.st_ino, was.st_mtime_ns):
            found[relative] = "written"
        elif now.st_atime_ns != was.st_atime_ns:
            found[relative] = "read"
    return found


def _pattern(relative: str) -> str:
    """The path with its numbers and hashes made one, and the folder above a hash (a corpus's oracle):
    a chunk, an entry, a bug folder stand for their kind."""
    parts = re.sub(r"\d+", "#", re.sub(r"[0-9a-f]{8,}", "<h>", relative)).split("/")
    return "/".join("*" if parts[i + 1:i + 2] == ["<h>"] else part for i, part in enumerate(parts))


def paths_to_try(found: dict[str, str], folders: set[str]) -> list[str]:
    """One path of each kind the call touched (temporaries left out); of the folders, those near the
    top of an area (``run/parts``, ``run/corpus``) and those holding files (a corpus entry, a sample
    folder, a bug's folder): a folder between them is walked the same way."""
    holding = {str(Path(relative).parent) for relative in found if relative not in folders}
    kinds: dict[str, str] = {}
    for relative in sorted(found):
        if Path(relative).name.endswith(".tmp"):
            continue
        if relative in folders and relative.count("/") > 1 and relative not in holding:
            continue
        kinds.setdefault(_pattern(relative), relative)
    return sorted(kinds.values())


# --- the victim: what a link points to, outside the run ----------------------------------------------------

def _digest(path: Path) -> tuple[str, str]:
    mode = os.lstat(path).st_mode
    if stat.S_ISREG(mode):
        return "file", hashlib.sha256(path.read_bytes()).hexdigest()
    return ("folder", "") if stat.S_ISDIR(mode) else ("other", "")


@dataclass
class Victim:
    """A copy of a file or folder outside the run, whose every byte and access time is checked after."""

    path: Path
    seen: dict[str, tuple[str, str, int]] = field(default_factory=dict)

    @classmethod
    def make(cls, source: Path | None, place: Path, folder: bool) -> "Victim":
        place.parent.mkdir(parents=True, exist_ok=True)
        if source is not None and os.path.lexists(source) and not source.is_symlink():
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, place)
        elif folder:
            place.mkdir()
            (place / "mine.txt").write_text("the victim's own file\n")
        else:
            place.write_text("the victim's own text\n")
        victim = cls(place)
        for path in [place, *(place.rglob("*") if place.is_dir() else [])]:
            kind, digest = _digest(path)
            victim.seen[str(path.relative_to(place.parent))] = (kind, digest, os.lstat(path).st_mtime_ns)
        for relative, (_, _, mtime) in victim.seen.items():
            os.utime(place.parent / relative, ns=(OLD * 10**9, mtime), follow_symlinks=False)
        return victim

    def harmed(self) -> list[str]:
        """How the victim was touched: read (its access time moved), written, or grown."""
        problems, root = [], self.path.parent
        present = {}
        for relative, (kind, _, _) in self.seen.items():  # access times first: looking below lists folders
            if not os.path.lexists(root / relative):
                problems.append(f"the victim's {relative} removed through the link")
                continue
            present[relative] = os.lstat(root / relative)
            if present[relative].st_atime_ns != OLD * 10**9:
                problems.append(f"read through the link: the victim's {relative} was "
                                + ("listed" if kind == "folder" else "read"))
        for relative, status in present.items():
            kind, digest, mtime = self.seen[relative]
            if status.st_mtime_ns != mtime or _digest(root / relative) != (kind, digest):
                problems.append(f"written through the link: the victim's {relative} changed")
        now = {str(p.relative_to(root)) for p in [self.path, *(self.path.rglob("*") if self.path.is_dir() else [])]
               if os.path.lexists(p)}
        problems += [f"written through the link: {relative} made in the victim" for relative in sorted(now - set(self.seen))]
        return problems


# --- planting ----------------------------------------------------------------------------------------------

KINDS_OF_FILE = ("link", "folder", "fifo")
KEEP = "not the tool's\n"
KINDS_OF_FOLDER = ("link", "file")


def plant(root: Path, relative: str, kind: str, original: Path | None, victims: Path) -> Victim | None:
    """Put ``kind`` at ``root/relative`` (its parents made as real folders); the link's victim."""
    path = root / relative
    folder = original is not None and original.is_dir() and not original.is_symlink()
    if os.path.lexists(path):
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        victim = Victim.make(original, victims / path.name, folder)
        path.symlink_to(victim.path)
        return victim
    if kind == "folder":
        path.mkdir()
        (path / "keep").write_text(KEEP)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "file":
        path.write_text("not a folder\n")
    return None


def _normal(text: str, root: Path) -> set[str]:
    """stderr lines with the try's own folder, times and numbers made alike, to compare with the pristine run's."""
    return {re.sub(r"\d+(\.\d+)?", "#", line.replace(str(root), "ROOT")).strip()
            for line in text.splitlines() if line.strip()}


def judge(ran, root: Path, relative: str, kind: str, victim: Victim | None, baseline, named: bool) -> Try:
    """The verdict of one planted call (see the module's docstring). ``named``: the user named the path
    (an --out under which nothing can be made is an I/O error, exit 3, as the tools document)."""
    problems = ran.faults()
    if victim is not None:
        problems += victim.harmed()
    if kind == "folder" and not any(p.read_text() == KEEP for p in root.rglob("keep") if p.is_file()):
        problems.append(f"the folder planted at {relative} lost its own file 'keep' (not even moved aside)")
    new = _normal(ran.stderr, root) - baseline.lines
    name = Path(relative).name
    naming = [line for line in ran.stderr.splitlines() if name in line or str(Path(relative).parent) in line]
    if ran.code == baseline.code and not new:
        outcome = f"no need of it: exit {ran.code}, as on the pristine copy"
    elif naming:
        said = naming[-1].strip()
        outcome = f"{'refused' if ran.code else 'went on'}, exit {ran.code}: {said[:160]}"
        if ran.code == 3 and not named:
            problems.append("a wrong type in the run is bad input (exit 2), not an I/O error (exit 3)")
    else:
        outcome = f"exit {ran.code} (pristine {baseline.code}): {ran.last()[:160]}"
        if not ran.faults():
            problems.append(f"the call did other than on the pristine copy without naming {name}")
    return Try("files", f"{kind} at {relative}", outcome, problems)


@dataclass
class Baseline:
    code: int | None
    lines: set[str]
    found: dict[str, str]  # path -> read or written
    folders: set[str]


def discover(tool: Tool, fixtures: Path, work: Path) -> tuple[Baseline, Path]:
    """The pristine call: its exit, its stderr lines and the paths it touched; the folder it ran in."""
    root = work / "pristine"
    shutil.copytree(fixtures / tool.fixture, root, symlinks=True)
    age(root, tool.areas)
    before = _walk(root, tool.areas)
    ran = run(tool.tool, tool.args, cwd=root, scratch=work / "calls")
    if ran.faults():
        raise SystemExit(f"{tool.name} fails on its pristine copy: {ran.faults()} ({ran.last()})")
    found = touched(root, tool.areas, before)
    folders = {relative for relative in found if (root / relative).is_dir() and not (root / relative).is_symlink()}
    return Baseline(ran.code, _normal(ran.stderr, root), found, folders), root


def one_try(tool: Tool, fixtures: Path, place: Path, number: int, relative: str, kind: str,
            pristine: Path, baseline: Baseline) -> Try:
    """Plant ``kind`` at ``relative`` on a fresh copy, make the call, judge it."""
    source = fixtures / tool.fixture / relative
    original = source if os.path.lexists(source) else pristine / relative
    root = place / f"try-{number}"
    shutil.copytree(fixtures / tool.fixture, root, symlinks=True)
    victim = plant(root, relative, kind, original if os.path.lexists(original) else None, place / f"victims-{number}")
    named = relative in tool.followed
    if named:
        victim = None  # the user named it: a link there is theirs to follow
    ran = run(tool.tool, tool.args, cwd=root, scratch=place / "calls", idle=IDLE)
    one = judge(ran, root, relative, kind, victim, baseline, named)
    one.what = f"{tool.name}: {one.what}"
    if not one.problems:
        shutil.rmtree(root, ignore_errors=True)
    return one


IDLE = 15.0  # seconds without CPU: blocked


def campaign(fixtures: Path, work: Path, *, quick: bool, target_name: str, jobs: int,
             report: Callable[[Try], None]) -> list[Try]:
    """Every tool, every kind of path it touched, every kind of thing planted there (a link alone with
    ``quick``), ``jobs`` tries at a time."""
    planned = []
    for number, tool in enumerate(t for t in tools(target_name) if t.quick or not quick):
        place = work / f"tool-{number}"
        baseline, pristine = discover(tool, fixtures, place)
        paths = [relative for relative in paths_to_try(baseline.found, baseline.folders)
                 if relative.count("/") <= tool.depth and (not tool.under or relative.startswith(tool.under))]
        print(f"  {tool.name}: exit {baseline.code} on its pristine copy; touched {len(baseline.found)} paths, "
              f"{len(paths)} kinds of them tried", flush=True)
        for relative in paths:
            kinds = KINDS_OF_FOLDER if relative in baseline.folders else KINDS_OF_FILE
            planned += [(tool, place, relative, kind, pristine, baseline) for kind in (kinds[:1] if quick else kinds)]
    tries = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running = [pool.submit(one_try, tool, fixtures, place, number, relative, kind, pristine, baseline)
                   for number, (tool, place, relative, kind, pristine, baseline) in enumerate(planned)]
        for done in as_completed(running):
            tries.append(done.result())
            report(tries[-1])
    return tries


def make_fixtures(fixtures: Path, scratch: Path, target_name: str) -> None:
    """The runs every try copies (see ``tools``), made once: a fuzz run of ``target_name`` (a fake
    program with bugs whose reproducers save samples beside them) and a batch run."""
    from hostile_tools import REPO

    fuzz = fixtures / "fuzz"
    fuzz.mkdir(parents=True)
    ran = run("fuzz", ["run", "-n", 20, "--seed", 3, "--workers", 1, "--target", target(target_name), "--out", "run",
                       "--corpus", "shared", "--no-progress"], cwd=fuzz, scratch=scratch, idle=120)
    if ran.code != 1 or ran.faults():
        raise SystemExit(f"the fixture's fuzz run failed: exit {ran.code}: {ran.stderr[-2000:]}")
    (fuzz / "out").mkdir()
    shutil.copy(REPO / "reports" / "data" / "grading.toml", fuzz / "out" / "rules.toml")
    for name, keep_corpus in (("fuzz-shrinking", False), ("fuzz-triage", True)):
        shutil.copytree(fuzz, fixtures / name, symlinks=True)
        manifest_path = fixtures / name / "run" / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest.update(status="interrupted", reason="interrupted while shrinking and confirming")
        manifest.pop("fuzz", None)
        manifest_path.write_text(json.dumps(manifest, indent=2))
        if not keep_corpus:
            shutil.rmtree(fixtures / name / "run" / "corpus")
        else:  # one group saved, the other still to shrink
            groups = sorted(p for p in (fixtures / name / "run" / "corpus").glob("*/*") if p.is_dir())
            shutil.rmtree(groups[0])
        (fixtures / name / "run" / "summary.md").unlink()
    jobs = fixtures / "jobs"
    jobs.mkdir()
    ran = run("sudoku-jobs", ["run", "-n", 200, "--seed", 1, "--workers", 1, "--chunk-size", 50, "--out", "run",
                              "--no-progress"], cwd=jobs, scratch=scratch)
    if ran.code != 0 or ran.faults():
        raise SystemExit(f"the fixture's batch run failed: exit {ran.code}: {ran.stderr[-2000:]}")
    (jobs / "out").mkdir()
    shutil.copytree(jobs, fixtures / "jobs-stopped", symlinks=True)
    stopped = fixtures / "jobs-stopped" / "run"
    for part in sorted((stopped / "parts").iterdir())[2:]:
        part.unlink()
    (stopped / "records.csv").unlink()
    manifest = json.loads((stopped / "manifest.json").read_text())
    manifest.update(status="interrupted", reason="interrupted by SIGTERM")
    (stopped / "manifest.json").write_text(json.dumps(manifest, indent=2))
