"""Every file a tool reads is untrusted (DESIGN.md, issue 31): corpus entries, play saves, command
strings and targets files, manifests. Each hostile input here must end in one line on stderr naming
it, the documented exit code, no traceback and nothing left running. The CLIs are called in-process
through their ``main``/``run``; the only programs started are our own in-process engine or none."""

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fake_targets import fuzz_config
from fuzz import cli as fuzz_cli
from fuzz import engine as fuzz_engine
from fuzz import corpus
from fuzz.commands import BadCommand, split
from fuzz.targets import _children, make_target
from sudoku import cli as sudoku_cli
from sudoku.untrusted import BadJSON, loads

HOSTILE = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
KEY = corpus.target_key(make_target("engine:py"))
GOOD = {"command": "solve", "side": 4, "family": "empty", "signature": "s", "target_key": KEY}
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                max_size=3), max_leaves=8)
NAMES = st.text(st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)), min_size=1,
                max_size=12).filter(lambda name: not name.startswith(".") and name not in (".", ".."))


def lines_of(err):
    """stderr's lines, after checking that nothing in it is a traceback or a raw control byte."""
    assert "Traceback" not in err
    assert not any(ch in err for ch in "\x1b\x07\x00")
    return [line for line in err.splitlines() if line]


def entry(root, name, meta, data=b""):
    folder = root / KEY / "no_crash" / name
    folder.mkdir(parents=True)
    (folder / "case.json").write_bytes(meta if isinstance(meta, bytes) else json.dumps(meta).encode())
    (folder / "input.txt").write_bytes(data)
    return folder


# --- corpus entries ----------------------------------------------------------------------------

@HOSTILE
@given(field=st.sampled_from(["command", "side", "family", "signature", "target_key"]), value=JSON)
def test_a_corpus_entry_of_any_shape_loads_or_is_skipped_with_why(tmp_path_factory, field, value):
    root = tmp_path_factory.mktemp("corpus")
    folder = entry(root, "one", {**GOOD, field: value})
    found = corpus.load(root)
    assert len(found.entries) + len(found.skipped) == 1
    if found.skipped:
        assert found.skipped[0][0] == folder and "\n" not in found.skipped[0][1]
    else:
        meta = found.entries[0][1]
        assert meta["command"] in corpus.COMMANDS and meta["side"] in corpus.SIDES


@pytest.mark.parametrize("case_json", [
    b"[" * 100_000, b'{"command": "solve", "side": Infinity}', b"\xff\xfe", b"{" * 20 + b"}" * 20,
    json.dumps({**GOOD, "pad": "x" * (corpus.MAX_FILE + 1)}).encode(), b'"just a string"',
])
def test_damaged_case_json_is_skipped(tmp_path, case_json):
    entry(tmp_path, "bad", case_json)
    found = corpus.load(tmp_path)
    assert found.entries == [] and len(found.skipped) == 1


def test_links_and_fifos_in_a_corpus_are_not_followed(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("a file the user can read\n")
    linked = entry(tmp_path / "c", "linked_input", GOOD)
    (linked / "input.txt").unlink()
    (linked / "input.txt").symlink_to(secret)
    meta_linked = entry(tmp_path / "c", "linked_meta", GOOD)
    (meta_linked / "case.json").unlink()
    (meta_linked / "case.json").symlink_to(secret)
    fifo = entry(tmp_path / "c", "fifo_input", GOOD)
    (fifo / "input.txt").unlink()
    os.mkfifo(fifo / "input.txt")
    elsewhere = entry(tmp_path / "other", "real", GOOD)
    (tmp_path / "c" / KEY / "no_crash" / "via_link").symlink_to(elsewhere)
    folder_meta = entry(tmp_path / "c", "folder_meta", GOOD)  # skipped without a word, in a QA try
    (folder_meta / "case.json").unlink()
    (folder_meta / "case.json").mkdir()
    found = corpus.load(tmp_path / "c")
    assert found.entries == []
    why = {folder.name: reason for folder, reason in found.skipped}
    assert set(why) == {"linked_input", "linked_meta", "fifo_input", "via_link", "folder_meta"}
    assert why["folder_meta"] == "case.json: a folder, not a regular file"
    assert "symbolic link" in why["linked_input"] and "symbolic link" in why["via_link"]
    assert "regular file" in why["fifo_input"]


def test_a_file_where_a_reproducer_s_folder_goes_is_named_not_passed_over(tmp_path):
    """A file at a reproducer's folder (or a sample's, ``also-...``) made a run replay one fewer without
    a word (the hostile campaign's find); other files in a corpus (a README) are no reproducer's."""
    entry(tmp_path / "c", "0123456789ab", GOOD)
    (tmp_path / "c" / KEY / "no_crash" / "ba9876543210").write_text("not a folder")
    (tmp_path / "c" / KEY / "no_crash" / "0123456789ab" / "also-malformed_letter").write_text("not a folder")
    (tmp_path / "c" / "README").write_text("our corpus")
    found = corpus.load(tmp_path / "c")
    assert len(found.entries) == 1
    assert {(folder.name, why) for folder, why in found.skipped} == {
        ("ba9876543210", "a file where a reproducer's folder goes"),
        ("also-malformed_letter", "a file where a reproducer's folder goes")}


def test_replay_skips_bad_entries_one_escaped_line_each_and_goes_on(tmp_path, capsys):
    for number, (name, meta) in enumerate([("side \x1b[31mabc", {**GOOD, "side": "abc"}),
                                           ("minus\x07", {**GOOD, "side": -9}),
                                           ("family", {**GOOD, "family": 123}),
                                           ("deep", b"[" * 100_000)]):
        entry(tmp_path, name, meta)
    entry(tmp_path, "good", GOOD, b"0 0 0 0\n" * 4)
    before = set(_children())
    code = fuzz_cli.main(["replay", str(tmp_path), "--target", "engine:py"])
    lines = lines_of(capsys.readouterr().err)
    assert code == 0
    skipped = [line for line in lines if line.startswith("fuzz: skipped ")]
    assert len(skipped) == 4 and any("side \\x1b[31mabc" in line for line in skipped)
    assert lines[-1].startswith("replayed 1 reproducer against")
    assert set(_children()) == before


def test_a_run_replays_its_own_corpus_past_a_bad_entry(tmp_path, capsys):
    entry(tmp_path, "deep", b"[" * 100_000)
    entry(tmp_path, "good", GOOD, b"0 0 0 0\n" * 4)
    config = fuzz_config(corpus=str(tmp_path))
    replayed, skipped, still = fuzz_engine.replay_own(config, {"spec": "engine:py"}, make_target("engine:py"),
                                                      tmp_path / "run-corpus")
    assert (replayed, skipped, still) == (1, 1, [])
    assert len([line for line in lines_of(capsys.readouterr().err) if "skipped" in line]) == 1


def test_a_run_counts_the_corpus_entries_it_skipped(tmp_path, capsys):
    """A QA note (issue 44): a run skipped an unreadable entry with a line on stderr while its summary
    said "replayed 4 saved reproducers", as if that were all of them. The count is in every output."""
    entry(tmp_path / "corpus", "deep", b"[" * 100_000)
    entry(tmp_path / "corpus", "good", GOOD, b"0 0 0 0\n" * 4)
    code = fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--out", str(tmp_path / "run"), "--corpus",
                          str(tmp_path / "corpus"), "--workers", "1", "--no-progress", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert (report["replayed"], report["replay_skipped"]) == (1, 1)
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "replayed 1 saved reproducer: 0 still fail; 1 corpus entry skipped, unreadable" in summary, summary
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["replay_skipped"] == 1
    assert len([line for line in lines_of(err) if "skipped" in line]) == 1


# --- command strings and targets files ---------------------------------------------------------

@HOSTILE
@given(text=st.text(alphabet=st.sampled_from("ab '\"\\\0\x1b "), max_size=20))
def test_split_gives_an_argv_or_our_error_naming_where(text):
    try:
        argv = split(text, "--target")
    except BadCommand as error:
        assert str(error).startswith("--target: ") and "\n" not in str(error) and "\x1b" not in str(error)
    else:
        assert all(isinstance(word, str) and "\0" not in word for word in argv)


@pytest.mark.parametrize("argv, where", [
    (["run", "--target", 'python3 "x.py'], "--target: unbalanced quote"),
    (["run", "--create-args", "create 'easy"], "--create-args: unbalanced quote"),
    (["run", "--solve-args", "solve \\"], "--solve-args: "),
    (["run", "--check-args", "check\0"], "--check-args: a NUL byte"),
    (["run", "--reference", "'ref"], "--reference: unbalanced quote"),
    (["probe", "--target", "their'prog"], "--target: unbalanced quote"),
    (["replay", ".", "--target", "a\"b"], "--target: unbalanced quote"),
])
def test_a_bad_command_string_is_one_line_naming_its_option(tmp_path, capsys, argv, where):
    code = fuzz_cli.main(argv + (["--out", str(tmp_path / "run")] if argv[0] == "run" else []))
    lines = lines_of(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1 and where in lines[0], lines
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("content, message", [
    (b"engine\n# a comment\n'python3 x.py\n", "targets.txt line 3: unbalanced quote"),
    (b"engine\nfoo\0bar\n", "targets.txt line 2: a NUL byte"),
    (b"\xff\xfe engine\n", "cannot read --targets"),
    (b"".join(b"p%d\n" % i for i in range(1001)), "1001 targets, more than 1000"),
    (b"x\n" * (fuzz_cli.MAX_TARGETS_BYTES // 2 + 1), "larger than"),
    (b"./missing.py\nno-such-program-here\n", "cannot start"),
])
def test_a_bad_targets_file_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, content, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "targets.txt").write_bytes(content)
    code = fuzz_cli.main(["run", "-n", "3", "--targets", "targets.txt", "--out", "run"])
    lines = lines_of(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1 and message in lines[0], lines
    assert not (tmp_path / "run").exists()


def test_a_targets_line_that_cannot_start_is_a_row_and_the_others_go_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "targets.txt").write_text("engine:py\n./missing.py\nno-such-program-here\n")
    args = fuzz_cli._parser().parse_args(["run", "--targets", "targets.txt"])
    specs = fuzz_cli._target_specs(args)
    found = fuzz_engine.cannot_start(specs, 9)
    assert set(found) == {"./missing.py", "no-such-program-here"}
    assert "does not exist" in found["./missing.py"] and "not on PATH" in found["no-such-program-here"]


@pytest.mark.parametrize("reference, said", [("false", "rejects it (exit 1)"), ("true", "exit 0, no grid")])
def test_a_reference_that_fails_the_known_good_puzzle_is_refused(tmp_path, capsys, reference, said):
    code = fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--reference", reference,
                          "--out", str(tmp_path / "run"), "--timeout", "5"])
    lines = lines_of(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1, lines
    assert "does not answer the known-good 9x9 puzzle rightly" in lines[0] and said in lines[0]
    assert not (tmp_path / "run").exists()


def test_a_manifest_of_an_unknown_schema_version_is_not_resumed(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "manifest.json").write_text(json.dumps({"schema_version": 99, "config": {"kind": "fuzz"}}))
    code = fuzz_cli.main(["run", "--resume", str(tmp_path / "run")])
    lines = lines_of(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1 and "schema_version 99 is not one this version reads" in lines[0]


# --- play saves --------------------------------------------------------------------------------

def a_save():
    from sudoku.formats import parse_line
    from sudoku.play_state import Game

    return Game.of(parse_line("1..4..2..1..3..2")).to_dict()


BAD_VALUES = st.one_of(st.just(float("inf")), st.just(float("nan")), st.just(-1), st.just(True), st.text(max_size=3),
                       st.just([[0, [0, 0], [1, 0]]] * 100_001), st.just(10 ** 30), JSON)


@HOSTILE
@given(field=st.sampled_from(["version", "box", "puzzle", "entries", "marks", "done", "undone", "cursor",
                              "elapsed_s"]), value=BAD_VALUES)
def test_a_bad_save_is_one_line_and_exit_2(tmp_path_factory, capsys, field, value):
    pytest.importorskip("textual")
    save = tmp_path_factory.mktemp("save") / "play.json"
    data = {**a_save(), field: value}
    save.write_text(json.dumps(data))  # Infinity and NaN as JSON writes them
    code = sudoku_cli.run(["play", "--resume", "--save", str(save)])
    lines = lines_of(capsys.readouterr().err)
    if code != 2:  # a value that happens to be valid there: a good save, refused only for want of a terminal
        assert "needs a terminal" in lines[0]
    assert len(lines) == 1 and len(lines[0]) < 400


@pytest.mark.parametrize("make", ["deep", "zero", "fifo", "link", "huge"])
def test_hostile_save_files_are_refused_in_one_line(tmp_path, capsys, make):
    pytest.importorskip("textual")
    save = tmp_path / "play.json"
    if make == "deep":
        save.write_text("[" * 100_000)
    elif make == "zero":
        save = "/dev/zero"
    elif make == "fifo":
        os.mkfifo(save)
    elif make == "link":
        (tmp_path / "real.json").write_text(json.dumps(a_save()))
        save.symlink_to(tmp_path / "real.json")
    else:
        save.write_text(json.dumps({**a_save(), "pad": "x" * sudoku_cli.SAVE_BYTES}))
    code = sudoku_cli.run(["play", "--resume", "--save", str(save)])
    lines = lines_of(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1 and "not a saved game" in lines[0], lines


@HOSTILE
@given(depth=st.integers(1, 200_000))
def test_loads_never_recurses_past_its_cap(depth):
    text = "[" * depth + "]" * depth
    if depth <= 32:
        assert loads(text) is not None
    else:
        with pytest.raises(BadJSON, match="deep"):
            loads(text)


# --- provenance --------------------------------------------------------------------------------

def test_git_dirty_tells_a_clean_tree_from_an_edited_one(tmp_path):
    from sudoku.version import git_dirty

    repo = tmp_path / "repo"
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "f").write_text("1\n")
    subprocess.run(["git", "-C", str(repo), "add", "f"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "one"], check=True, env=env)
    assert git_dirty(repo) is False
    (repo / "new").write_text("untracked files do not count\n")
    assert git_dirty(repo) is False
    (repo / "f").write_text("2\n")
    assert git_dirty(repo) is True
    assert git_dirty(tmp_path / "nowhere") is None


def test_history_keeps_runs_of_a_dirty_tree_apart(tmp_path):
    from reports.history import load_history
    from test_reports_helpers import records, write_run
    from test_reports_unlike import BATCH

    for name, dirty, day in (("clean", False, 10), ("dirty", True, 11)):
        write_run(tmp_path / name, records(30), manifest_extra={"git_sha": "ab" * 20, "git_dirty": dirty,
                                                                "started": f"2026-11-{day}T10:00:00",
                                                                "config": dict(BATCH)})
    commits = load_history([tmp_path])
    assert [c.label for c in commits] == ["abababab" + "ab", "abababab" + "ab+dirty"]
