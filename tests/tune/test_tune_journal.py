"""The tune's optimiser journal survives what a crash or a user leaves (issue #22, findings 1 and
5), on the `coin` test game: a cut last line is dropped with one warning and the resume gives
the uninterrupted tune's trials; every other damage (a line in the middle that is no record,
binary content, a folder or an unreadable file in its place) is one line naming the journal,
the line and what to do, exit status 2, and nothing in the tune folder is written."""

import errno
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.errors import Terminated
from simulator.tune import journal as journal_module
from simulator.tune.journal import JOURNAL, check_journal

from test_tune_search import tune, tune_file

SMALL = {"budget": {"trials": 4, "batch": 2, "games": {"start": 60, "max": 120}}, "confirm": {"games": 200, "margin_points": 5}}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished small tune: (its file, its folder)."""
    folder = tmp_path_factory.mktemp("journal")
    path = tune_file(folder, **SMALL)
    tune(path, folder / "whole")
    return path, folder / "whole"


def copy_of(finished, tmp_path) -> Path:
    out = tmp_path / "tune"
    shutil.copytree(finished[1], out)
    return out


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def resume(path, out):
    return CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--resume", "--jobs", "1", "--quiet"])


def trials(out) -> pd.DataFrame:
    return pd.read_csv(out / "trials.csv")


def test_a_cut_last_line_is_dropped_with_one_warning_and_the_resume_gives_the_same_trials(finished, tmp_path):
    """Finding 1: the resume appended its records to the partial line, played, then died with a
    JSONDecodeError, and so did every later resume."""
    out = copy_of(finished, tmp_path)
    journal = out / JOURNAL
    data = journal.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    journal.write_bytes(data[: last_start + (len(data) - last_start) // 2])  # half of the last record
    result = resume(finished[0], out)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and str(journal) in warnings[0] and "incomplete record" in warnings[0]
    assert "Traceback" not in result.output
    pd.testing.assert_frame_equal(trials(out), trials(finished[1]))
    again = resume(finished[0], out)  # the repaired journal reads whole ever after
    assert again.exit_code == 0 and "warning" not in again.stderr, again.output


def test_a_whole_last_record_without_its_line_break_is_kept(finished, tmp_path):
    out = copy_of(finished, tmp_path)
    journal = out / JOURNAL
    journal.write_bytes(journal.read_bytes().rstrip(b"\n"))
    result = resume(finished[0], out)
    assert result.exit_code == 0 and "warning" not in result.stderr, result.output
    assert journal.read_bytes().endswith(b"}\n")
    pd.testing.assert_frame_equal(trials(out), trials(finished[1]))


def _insert_line(line: bytes):
    def damage(journal: Path) -> None:
        lines = journal.read_bytes().split(b"\n")
        journal.write_bytes(b"\n".join(lines[:2] + [line] + lines[2:]))
    return damage


def _folder(journal: Path) -> None:
    journal.unlink()
    journal.mkdir()
    (journal / "something").write_text("x")


DAMAGE = {
    "garbage line": (_insert_line(b"this is not a record"), ["line 3", "not JSON", "head -n 2"]),
    "binary line": (_insert_line(b"\x00\xff\xfe\x81binary"), ["line 3", "binary", "head -n 2"]),
    "JSON that is no record": (_insert_line(b"[1, 2, 3]"), ["line 3", "not an optimiser record"]),
    "garbage first line": (lambda journal: journal.write_bytes(b"garbage\n" + journal.read_bytes()), ["line 1", "--force"]),
    "folder in its place": (_folder, ["is a folder", "move it away"]),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_journal_is_one_line_naming_it_and_nothing_is_written(finished, tmp_path, kind):
    damage, expected = DAMAGE[kind]
    out = copy_of(finished, tmp_path)
    damage(out / JOURNAL)
    before = snapshot(out)
    result = resume(finished[0], out)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"zoosim: error: {out / JOURNAL}: "), result.stderr
    for word in expected:
        assert word in lines[0], lines[0]
    assert snapshot(out) == before


def test_the_suggested_cut_keeps_the_trials_before_a_damaged_line(finished, tmp_path):
    """What the message says to do works: cut at the damaged line and resume."""
    out = copy_of(finished, tmp_path)
    _insert_line(b"garbage")(out / JOURNAL)
    message = resume(finished[0], out).stderr
    command = message[message.index("(head -n") + 1: message.index(") and resume")]
    assert os.system(command) == 0
    result = resume(finished[0], out)
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(trials(out), trials(finished[1]))


def test_an_unreadable_journal_is_one_line(finished, tmp_path, monkeypatch):
    out = copy_of(finished, tmp_path)
    journal = out / JOURNAL
    real_read = Path.read_bytes

    def refuse(self):
        if self == journal:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    result = resume(finished[0], out)
    assert result.exit_code == 2
    assert result.stderr == f"zoosim: error: {journal}: the optimiser's journal cannot be read (Permission denied)\n"


def test_an_empty_journal_starts_the_search_over_on_the_kept_runs(finished, tmp_path):
    out = copy_of(finished, tmp_path)
    (out / JOURNAL).write_bytes(b"")
    assert check_journal(out / JOURNAL) == journal_module.JournalCheck(0, 0)
    result = resume(finished[0], out)
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(trials(out), trials(finished[1]))


def test_a_sigterm_while_the_journal_is_written_ends_as_terminated(finished, tmp_path, monkeypatch):
    """Finding 5: optuna's own journal lock, a symlink renamed and removed around every write,
    removed it a second time when a SIGTERM arrived right after the removal, so the tune ended
    with 'No such file or directory while writing the tune' (status 2) instead of 143. The
    signal is made to arrive there deterministically; the journal now takes no lock of its own
    (the tune folder's lock already excludes other writers), so no write can be hit that way,
    and a termination while a record is written still ends as a termination."""
    path = tune_file(tmp_path, **SMALL)
    out = tmp_path / "terminated"
    real_unlink, real_fsync = os.unlink, os.fsync
    calls = []

    def unlink_then_signal(target, *args, **kwargs):
        real_unlink(target, *args, **kwargs)
        if str(target).endswith(".rename"):  # optuna's lock release, right after its own unlink
            raise Terminated()

    def fsync_then_signal(descriptor):
        real_fsync(descriptor)
        calls.append(descriptor)
        if len(calls) == 5:  # in the middle of the tune, inside the journal's append
            raise Terminated()

    monkeypatch.setattr(os, "unlink", unlink_then_signal)
    monkeypatch.setattr(os, "fsync", fsync_then_signal)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    assert result.exit_code == 143, result.output
    assert "terminated" in result.stderr and "No such file" not in result.stderr
    assert not list(out.glob(f"{JOURNAL}.lock*"))
    monkeypatch.setattr(os, "unlink", real_unlink)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert resume(path, out).exit_code == 0
    pd.testing.assert_frame_equal(trials(out), trials(finished[1]))


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _binary(path: Path) -> None:
    path.write_bytes(b"\x00\xff\xfe\x81" * 64)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


TUNE_FILES = ["tune.json", "trials.csv", "experiment.yaml", "best.yaml", "trials/batch-00000/manifest.json",
              "trials/batch-00002/logs/cell=0000/_chunk-000000.json"]
FILE_DAMAGE = {"cut": _cut, "binary": _binary, "empty": _empty, "folder": _folder}


@pytest.mark.slow  # 24 resumes of a tune
@pytest.mark.parametrize("kind", FILE_DAMAGE)
@pytest.mark.parametrize("name", TUNE_FILES)
def test_a_resume_of_a_damaged_tune_folder_is_whole_or_one_line_naming_the_file(finished, tmp_path, name, kind):
    """The same rule for every other file of a tune folder: the resume gives the undamaged
    tune's trials, or one line naming the damaged file (exit status 2), never a traceback."""
    out = copy_of(finished, tmp_path)
    FILE_DAMAGE[kind](out / name)
    result = resume(finished[0], out)
    assert "Traceback" not in result.output + result.stderr
    if result.exit_code == 0:
        pd.testing.assert_frame_equal(trials(out), trials(finished[1]))
        return
    assert result.exit_code == 2, result.output + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("zoosim: error: ")]
    assert len(errors) == 1 and (str(out / name) in errors[0] or str(out / Path(name).parent) in errors[0]), result.stderr

