"""One guarded way to read and to write a run's files (``sudoku.files``), and the hostile-files findings
of the third attack (issue 46) that it closes: a folder where a file is read (R14), links planted in a
run or its feedback folder (R15, R16, R23), a deep or blocking grading rule (R21), a disk that fills
while a reproducer is saved (R24), a raw control byte from a manifest (R25), a full stdout (R17), and
``--force`` over a run's own sample folders."""

import errno
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from fake_targets import fuzz, spec
from helpers import call_main
from test_reports_helpers import REPO, run_reports

from sudoku import files
from sudoku.files import NotReadable, NotWritable, check_inside, make_folders, read_small, real_folder, write_file


# --- the reader and the writer ----------------------------------------------------------------------------------

def test_a_folder_where_a_file_is_read_is_one_reason_not_an_internal_error(tmp_path):
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(NotReadable, match="^a folder, not a regular file$"):
        read_small(tmp_path / "manifest.json", 100)


def test_a_link_is_followed_only_when_asked_and_a_fifo_never(tmp_path):
    (tmp_path / "rules.toml").write_text("x = 1\n")
    (tmp_path / "link.toml").symlink_to(tmp_path / "rules.toml")
    os.mkfifo(tmp_path / "fifo.toml")
    with pytest.raises(NotReadable, match="symbolic link"):
        read_small(tmp_path / "link.toml", 100)
    assert read_small(tmp_path / "link.toml", 100, follow=True) == b"x = 1\n"
    with pytest.raises(NotReadable, match="a FIFO"):
        read_small(tmp_path / "fifo.toml", 100, follow=True)


def test_a_write_never_goes_through_a_link_nor_over_a_folder(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.md").symlink_to(victim)
    with pytest.raises(NotWritable, match="summary.md: a symbolic link .* not written through"):
        write_file(run / "summary.md", "report", within=run)
    (run / "junit.xml").mkdir()
    with pytest.raises(NotWritable, match="junit.xml: a folder"):
        write_file(run / "junit.xml", "x", within=run)
    (run / "feedback").symlink_to(tmp_path)
    with pytest.raises(NotWritable, match="feedback: a symbolic link"):
        write_file(run / "feedback" / "a" / "page.md", "x", within=run)
    with pytest.raises(NotWritable, match="outside"):
        make_folders(tmp_path / "elsewhere", within=run)
    assert victim.read_text() == "mine" and not (tmp_path / "a").exists()
    write_file(run / "ok.md", "fine", within=run)
    assert (run / "ok.md").read_text() == "fine" and sorted(p.name for p in run.iterdir() if p.name.startswith("."))\
        == []


def test_a_failed_write_leaves_no_temporary_and_names_the_file(tmp_path, monkeypatch):
    real = os.fdopen

    class Full:
        def __init__(self, fd):
            self.file = real(fd, "wb")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    (tmp_path / "summary.md").write_text("the old one")
    monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: Full(fd))
    with pytest.raises(OSError) as raised:
        write_file(tmp_path / "summary.md", "new")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path / "summary.md")
    assert os.listdir(tmp_path) == ["summary.md"] and (tmp_path / "summary.md").read_text() == "the old one"


def test_check_inside_and_real_folder(tmp_path):
    (tmp_path / "parts").symlink_to(tmp_path)
    assert "symbolic link" in real_folder(tmp_path / "parts")
    assert real_folder(tmp_path) is None and real_folder(tmp_path / "absent") is None
    with pytest.raises(NotWritable):
        check_inside(tmp_path / ".." / "x", tmp_path)


# --- the tools, on a run that was tampered with -------------------------------------------------------------------

@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory):
    """A fuzz run of a program with one bug (an out-of-range number kept), its reproducers saved."""
    root = tmp_path_factory.mktemp("hostile")
    done = fuzz("run", "-n", 40, "--seed", 2, "--workers", 1, "--target", spec("keeps_out_of_range"),
                "--out", root / "B", "--corpus", root / "shared", "--no-progress", cwd=root, timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    return root / "B"


def copy_of(run, tmp_path, name="run"):
    shutil.copytree(run, tmp_path / name, symlinks=True)
    return tmp_path / name


def one_line(done):
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_feedback_writes_nothing_through_a_link_planted_in_the_run(fuzz_run, tmp_path):
    run = copy_of(fuzz_run, tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    assert run_reports("feedback", str(run), "-q").returncode == 0
    student = next(p.name for p in (run / "feedback").iterdir() if p.is_dir())
    shutil.rmtree(run / "feedback" / student)
    (run / "feedback" / student).symlink_to(victim)
    done = run_reports("feedback", str(run), "-q")
    assert done.returncode == 2 and "a symbolic link" in one_line(done) and list(victim.iterdir()) == []
    os.unlink(run / "feedback" / student)
    shutil.rmtree(run / "feedback")
    (run / "feedback").symlink_to(victim)
    done = run_reports("feedback", str(run), "-q")
    assert done.returncode == 2 and "feedback: a symbolic link" in one_line(done) and list(victim.iterdir()) == []


def test_feedback_copies_no_folder_the_manifest_names_outside_the_run(fuzz_run, tmp_path):
    run = copy_of(fuzz_run, tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "input.txt").write_text("SECRET INPUT")
    (secret / "case.json").write_text('{"secret": true}')
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["fuzz"]["groups"][0]["folder"] = str(secret)
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert run_reports("feedback", str(run), "-q").returncode == 0
    copied = [p for p in (run / "feedback").rglob("*") if p.is_file()]
    assert copied and not any("SECRET" in p.read_text(errors="replace") or '"secret"' in p.read_text(errors="replace")
                              for p in copied)


@pytest.mark.parametrize("tool", ["reports", "sudoku-jobs"])
def test_a_parts_folder_linked_to_another_run_is_refused(fuzz_run, tmp_path, tool):
    run = copy_of(fuzz_run, tmp_path)
    shutil.rmtree(run / "parts")
    (run / "parts").symlink_to(fuzz_run / "parts")
    if tool == "reports":
        done = run_reports("show", str(run), "-q")
    else:
        from jobs.cli import main
        done = call_main(main, ["show", str(run)])
    assert done.returncode == 2 and "parts: a symbolic link" in one_line(done)


@pytest.mark.parametrize("tool", ["reports", "sudoku-jobs"])
def test_a_manifest_that_is_a_folder_is_one_line_exit_2(tmp_path, tool):
    (tmp_path / "run" / "manifest.json").mkdir(parents=True)
    if tool == "reports":
        done = run_reports("show", str(tmp_path / "run"))
    else:
        from jobs.cli import main
        done = call_main(main, ["show", str(tmp_path / "run")])
    assert done.returncode == 2 and one_line(done).endswith("manifest.json: a folder, not a regular file")


def test_a_deep_or_blocking_grading_rule_is_one_line(fuzz_run, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 30000 + "]" * 30000 + "\n")
    done = run_reports("feedback", str(fuzz_run), "--out", str(tmp_path / "f"), "--rules", str(deep))
    assert done.returncode == 2 and "nested too deep" in one_line(done)
    os.mkfifo(tmp_path / "fifo.toml")
    done = run_reports("feedback", str(fuzz_run), "--out", str(tmp_path / "f"), "--rules", str(tmp_path / "fifo.toml"),
                       timeout=30)
    assert done.returncode == 2 and "a FIFO" in one_line(done)


def test_no_control_byte_of_a_manifest_reaches_the_markdown(fuzz_run, tmp_path):
    run = copy_of(fuzz_run, tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["git_sha"] = "\x1b[31mabc<b>bold</b>"
    manifest["host"]["cores"] = "\x1b[2J"
    (run / "manifest.json").write_text(json.dumps(manifest))
    run_reports("show", str(run), "-q", "--md", str(tmp_path / "out.md"))
    text = (tmp_path / "out.md").read_text()
    assert "\x1b" not in text and "<b>" not in text


def test_a_resume_writes_nothing_through_a_link_to_its_summary_or_corpus(fuzz_run, tmp_path):
    run = copy_of(fuzz_run, tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (run / "manifest.json").write_text(json.dumps(manifest))
    victim = tmp_path / "victim.md"
    victim.write_text("mine")
    os.unlink(run / "summary.md")
    (run / "summary.md").symlink_to(victim)
    done = fuzz("run", "--resume", run, "--no-progress", cwd=tmp_path)
    assert done.returncode == 2 and "summary.md is a symbolic link" in done.stderr and victim.read_text() == "mine"


def test_force_replaces_a_run_that_saved_samples_beside_its_reproducers(fuzz_run, tmp_path):
    """The also-<family> folders triage saves are a run's own files: --force may clear them."""
    from fuzz.tasks import FUZZ

    owned = re.compile(rf"^(?:{FUZZ.files})$", re.X)
    for name in ("corpus/python3-abc/rejects_malformed/0123456789ab/also-malformed_negative/input.txt",
                 "corpus/python3-abc/rejects_malformed/0123456789ab/also-malformed_letter/case.json",
                 "corpus/python3-abc/rejects_malformed/0123456789ab/.case.json.77.tmp"):
        assert owned.match(name), name
    assert not owned.match("corpus/python3-abc/rejects_malformed/0123456789ab/also-x/notes.txt")
    run = copy_of(fuzz_run, tmp_path)
    sample = next(run.glob("corpus/*/*/*"))
    (sample / "also-malformed_negative").mkdir()
    (sample / "also-malformed_negative" / "input.txt").write_text("-1\n")
    done = fuzz("run", "-n", 4, "--seed", 2, "--workers", 1, "--target", spec("correct"), "--out", run, "--force",
                "--corpus", tmp_path / "shared", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_full_disk_while_saving_a_reproducer_fails_the_run_and_leaves_no_temporary(tmp_path, monkeypatch):
    from fuzz import corpus

    def full(path, data, *, within=None):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(corpus, "write_file", full)
    done = fuzz("run", "-n", 40, "--seed", 2, "--workers", 1, "--target", spec("keeps_out_of_range"),
                "--out", tmp_path / "run", "--corpus", tmp_path / "shared", "--no-progress", cwd=tmp_path)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "No space left on device" in done.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "cannot save a reproducer" in manifest["reason"]
    assert not [p for p in (tmp_path / "run" / "corpus").rglob(".*tmp")]


@pytest.mark.parametrize("argv", [["sudoku", "create", "-n", "200", "--seed", "1"]])
def test_a_full_stdout_is_an_io_error_exit_3(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", argv[0], *argv[1:]], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=REPO, timeout=60)
    assert done.returncode == 3 and done.stderr.strip() == "sudoku: cannot write to stdout: No space left on device"


def test_a_run_killed_while_shrinking_reads_as_not_complete(tmp_path, monkeypatch):
    """Until triage ends the manifest says running (what a SIGKILL there leaves: 'stopped', with its resume
    line), then complete."""
    from fuzz import engine

    seen = []

    def killed_here(records, config, target, run_corpus, **options):
        seen.append(json.loads((run_corpus.parent / "manifest.json").read_text())["status"])
        return []

    monkeypatch.setattr(engine, "triage_phase", killed_here)
    done = fuzz("run", "-n", 40, "--seed", 2, "--workers", 1, "--target", spec("keeps_out_of_range"),
                "--out", tmp_path / "run", "--corpus", tmp_path / "shared", "--no-progress", cwd=tmp_path)
    assert seen == ["running"], done.stderr[-2000:]
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "complete"


# --- what the campaign found (bench/hostile_campaign.py: a link, a folder, a FIFO at every path a tool touched) ---

def test_reports_index_no_reproducer_through_a_link_nor_from_a_fifo(tmp_path):
    """`reports show` of a fuzz run read each reproducer's case.json with read_text: a FIFO there blocked
    it for ever, a link was followed."""
    from reports.summary import corpus_index

    corpus = tmp_path / "corpus"
    for name, kind in (("aaaaaaaaaaaa", "own"), ("bbbbbbbbbbbb", "link"), ("cccccccccccc", "fifo")):
        (corpus / "t" / "o" / name).mkdir(parents=True)
    (corpus / "t" / "o" / "aaaaaaaaaaaa" / "case.json").write_text('{"signature": "own"}')
    (tmp_path / "outside.json").write_text('{"signature": "theirs"}')
    (corpus / "t" / "o" / "bbbbbbbbbbbb" / "case.json").symlink_to(tmp_path / "outside.json")
    os.mkfifo(corpus / "t" / "o" / "cccccccccccc" / "case.json")
    (tmp_path / "far" / "dddddddddddd").mkdir(parents=True)
    (tmp_path / "far" / "dddddddddddd" / "case.json").write_text('{"signature": "far"}')
    (corpus / "u").symlink_to(tmp_path / "far")
    assert set(corpus_index([corpus])) == {"own"}


def test_a_run_whose_corpus_is_a_link_has_its_reproducers_unread(fuzz_run, tmp_path):
    from reports.load import load_run

    run = copy_of(fuzz_run, tmp_path)
    shutil.move(run / "corpus", tmp_path / "elsewhere")
    (run / "corpus").symlink_to(tmp_path / "elsewhere")
    loaded = load_run(run)
    assert loaded.corpus == [] and any("corpus: a symbolic link" in note for note in loaded.notes)


def test_a_file_where_a_folder_goes_is_one_line_not_an_internal_error(tmp_path):
    """A file at a resumed run's corpus/<target> stopped it with an internal error (NotADirectoryError)."""
    (tmp_path / "corpus").write_text("not a folder")
    with pytest.raises(NotWritable, match="corpus: not a folder"):
        make_folders(tmp_path / "corpus" / "t" / "o", within=tmp_path / "corpus")
    with pytest.raises(NotADirectoryError):  # a folder the user named under a file: an I/O error, exit 3
        make_folders(tmp_path / "corpus" / "t")
    (tmp_path / "run" / "corpus").mkdir(parents=True)
    (tmp_path / "run" / "corpus" / "t").write_text("not a folder")
    with pytest.raises(NotWritable, match="corpus/t: not a folder"):
        write_file(tmp_path / "run" / "corpus" / "t" / "o" / "case.json", "{}", within=tmp_path / "run" / "corpus")


def test_a_log_is_appended_only_to_a_file_of_its_own(tmp_path):
    """A FIFO at a run's run.log blocked a resume for ever (opened to write, it waits for a reader)."""
    from sudoku.files import open_append

    os.mkfifo(tmp_path / "fifo.log")
    (tmp_path / "folder.log").mkdir()
    (tmp_path / "victim.log").write_text("mine\n")
    (tmp_path / "link.log").symlink_to(tmp_path / "victim.log")
    for name, says in (("fifo.log", "a FIFO"), ("folder.log", "a folder"), ("link.log", "a symbolic link")):
        with pytest.raises(NotWritable, match=f"{name}: {says}"):
            open_append(tmp_path / name)
    with open_append(tmp_path / "run.log") as log:
        log.write("one line\n")
    assert (tmp_path / "run.log").read_text() == "one line\n" and (tmp_path / "victim.log").read_text() == "mine\n"


def test_a_stale_temporary_planted_as_a_link_is_replaced_not_followed(tmp_path):
    """records.csv and the manifest are written through temporaries of fixed names (a resume clears
    what a killed run left); one planted as a link is removed, never written through."""
    from sudoku.files import replacing

    (tmp_path / "victim").write_text("mine")
    (tmp_path / ".records.csv.tmp").symlink_to(tmp_path / "victim")
    with replacing(tmp_path / "records.csv", temporary=tmp_path / ".records.csv.tmp") as out:
        out.write(b"case\n")
    assert (tmp_path / "records.csv").read_text() == "case\n" and (tmp_path / "victim").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["records.csv", "victim"]


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory):
    """A small batch run, marked interrupted, so a resume reads and writes all its files."""
    from jobs.cli import main

    root = tmp_path_factory.mktemp("batch")
    done = call_main(main, ["run", "-n", 40, "--size", 4, "--seed", 1, "--workers", 1, "--chunk-size", 10,
                            "--out", str(root / "run"), "--no-progress"])
    assert done.returncode == 0, done.stderr
    manifest = json.loads((root / "run" / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (root / "run" / "manifest.json").write_text(json.dumps(manifest))
    return root / "run"


@pytest.mark.parametrize("name, kind, says", [
    ("run.log", "fifo", "run.log: a FIFO"), ("run.log", "folder", "run.log: a folder"),
    ("records.csv", "folder", "records.csv: a folder"), ("parts", "file", "parts: not a folder")])
def test_a_resume_refuses_its_own_names_of_the_wrong_kind(batch_run, tmp_path, name, kind, says):
    """A folder at a resumed run's run.log or records.csv, or a file at its parts, was an I/O error
    (exit 3) after the cases ran; a FIFO at run.log blocked it for ever. Now refused first, exit 2."""
    from jobs.cli import main

    run = copy_of(batch_run, tmp_path)
    path = run / name
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    {"fifo": os.mkfifo, "folder": os.mkdir, "file": lambda p: open(p, "w").close()}[kind](path)
    done = call_main(main, ["run", "--resume", str(run), "--no-progress"], timeout=60)
    assert done.returncode == 2 and says in one_line(done)


@pytest.mark.parametrize("kind", ["link", "fifo", "folder"])
def test_jobs_show_writes_its_markdown_only_to_a_file_of_its_own(batch_run, tmp_path, kind):
    """`sudoku-jobs show --md` wrote through a link, blocked on a FIFO, and was exit 3 on a folder."""
    from jobs.cli import main

    (tmp_path / "victim.md").write_text("mine")
    target = tmp_path / "show.md"
    {"link": lambda p: p.symlink_to(tmp_path / "victim.md"), "fifo": os.mkfifo, "folder": os.mkdir}[kind](target)
    done = call_main(main, ["show", str(batch_run), "--md", str(target)], timeout=60)
    assert done.returncode == 2 and "show.md: a " in one_line(done) and (tmp_path / "victim.md").read_text() == "mine"


def test_a_resume_follows_no_link_in_its_corpus(fuzz_run, tmp_path):
    """A link at a run's corpus/<target> was followed: its reproducers read and replayed as the run's."""
    run = copy_of(fuzz_run, tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    manifest.pop("fuzz")
    (run / "manifest.json").write_text(json.dumps(manifest))
    (key,) = [p.name for p in (run / "corpus").iterdir()]
    shutil.move(run / "corpus" / key, tmp_path / key)
    (run / "corpus" / key).symlink_to(tmp_path / key)
    before = {p: p.read_bytes() for p in (tmp_path / key).rglob("*") if p.is_file()}
    done = fuzz("run", "--resume", run, "--no-progress", cwd=tmp_path)
    assert done.returncode == 2 and f"{run / 'corpus' / key} is a symbolic link" in one_line(done)
    assert {p: p.read_bytes() for p in (tmp_path / key).rglob("*") if p.is_file()} == before


def test_a_run_saves_no_reproducer_through_a_link_in_the_shared_corpus(tmp_path):
    """A link planted in the shared corpus (the folder of a target's reproducers) is not looked into
    (not read as the run's, not written through): the run names it and fails, exit 2."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "elsewhere").mkdir()
    first = fuzz("run", "-n", 8, "--seed", 2, "--workers", 1, "--target", spec("keeps_out_of_range"),
                 "--out", tmp_path / "one", "--corpus", tmp_path / "probe", "--no-progress", cwd=tmp_path)
    (key,) = [p.name for p in (tmp_path / "probe").iterdir()]
    (tmp_path / "shared" / key).symlink_to(tmp_path / "elsewhere")
    done = fuzz("run", "-n", 8, "--seed", 2, "--workers", 1, "--target", spec("keeps_out_of_range"),
                "--out", tmp_path / "two", "--corpus", tmp_path / "shared", "--no-progress", cwd=tmp_path)
    assert first.returncode == 1 and f"skipped {tmp_path / 'shared' / key}: a symbolic link" in done.stderr
    assert done.returncode == 2 and "not written through" in done.stderr.strip().splitlines()[-1]
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the campaign reads /proc")
def test_the_hostile_campaign_holds():
    """bench/hostile_campaign.py --quick (docs/hostile.md, the campaign): every try held."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / "hostile_campaign.py"), "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0 and "PASS:" in done.stdout, done.stdout[-5000:] + done.stderr[-2000:]
