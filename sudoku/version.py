"""What ``--version`` prints, for all four commands: ``NAME VERSION (git SHA)``.

The version is the package's (``sudoku.__version__``, the same as pyproject's); the git sha is the
checkout's HEAD when the code runs from a git checkout (or worktree), found by reading
``.git/HEAD`` and the ref it names (loose or packed), with ``git rev-parse`` (1 s timeout) only if
those files cannot be read. An installed copy with no checkout around it prints no sha. Nothing here
runs until ``--version`` is asked (the option itself is ``sudoku.cli.scaffold``'s).

This is the code base's one git reader: run manifests record ``git_sha`` and ``git_dirty`` from here
(``jobs.runner``), so a run of edited code is never filed under the clean commit it started from. That is why it sits
beside the library rather than in the edge (``sudoku.cli``): the runner is no command module, and no
module but a command's imports the edge. It only reads files, and only when asked.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    from pathlib import Path

import sudoku

_SHA_CHARS = frozenset("0123456789abcdef")


def describe(name: str) -> str:
    """``"NAME VERSION (git SHA)"``, or ``"NAME VERSION"`` when there is no git checkout."""
    sha = git_sha()
    return f"{name} {sudoku.__version__}" + (f" (git {sha[:12]})" if sha else "")


def git_sha(root: Path | None = None) -> str | None:
    """The full sha of HEAD of the checkout holding ``root`` (default: this package's), or None."""
    from pathlib import Path  # here, not at the top: only --version pays for it

    root = root if root is not None else Path(__file__).resolve().parent.parent
    dot_git = root / ".git"
    try:
        sha = _sha_from_files(dot_git)
    except (OSError, ValueError, UnicodeDecodeError):
        sha = None
    if sha is None and dot_git.exists():
        sha = _sha_from_git(root)
    return sha


def git_dirty(root: Path | None = None) -> bool | None:
    """Whether the checkout holding ``root`` (default: this package's) has changes to tracked files
    (staged or not; untracked files do not count, as for ``git describe --dirty``); None when
    there is no checkout or git cannot say. Unlike the sha this needs git itself: only it can
    compare the work tree with the index."""
    import subprocess
    from pathlib import Path

    root = root if root is not None else Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                              capture_output=True, text=True, timeout=5, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def _is_sha(text: str) -> bool:
    return len(text) == 40 and set(text) <= _SHA_CHARS


def _sha_from_files(dot_git: Path) -> str | None:
    if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
        text = dot_git.read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir:"):
            return None
        git_dir = (dot_git.parent / text[len("gitdir:"):].strip()).resolve()
    elif dot_git.is_dir():
        git_dir = dot_git
    else:
        return None
    common = git_dir
    if (git_dir / "commondir").is_file():
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    if _is_sha(head):  # a detached HEAD
        return head
    if not head.startswith("ref:"):
        return None
    ref = head[len("ref:"):].strip()
    for place in (git_dir, common):
        loose = place / ref
        if loose.is_file():
            sha = loose.read_text(encoding="utf-8").strip()
            return sha if _is_sha(sha) else None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _is_sha(parts[0]):
                return parts[0]
    return None


def _sha_from_git(root: Path) -> str | None:
    import subprocess

    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=1, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and _is_sha(sha) else None

