"""Every file a resume or a report reads, damaged every way a crash or a user damages it (issue
#22, findings 1 and 8), on the `coin` test game: cut short, a garbage line, binary content,
empty, a folder in its place, unreadable. Each gives either a whole result (the damaged file was
informative or is rebuilt: the logs equal the undamaged run's) or one line naming the file,
exit status 2; never a traceback, and a good report is never replaced by an empty one."""

import errno
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main
from tests_support import log_digests

EXPERIMENT = """name: damaged
seed: 5
games: 400
chunk_games: 100
studies:
  - {name: plain, game: coin, rules: {players: 2, first_seat_bonus: 0.2}}
"""
CHUNK = "logs/cell=0000/chunk-000001.parquet"
SIDECAR = "logs/cell=0000/_chunk-000001.json"
FILES = ["manifest.json", "run.json", "samples.json", "experiment.yaml", SIDECAR, CHUNK]


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage_line(path: Path) -> None:
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:1] + [b"this is not what was written"] + lines[1:]))


def _binary(path: Path) -> None:
    path.write_bytes(b"\x00\xff\xfe\x81" * 64)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")


DAMAGE = {"cut": _cut, "garbage line": _garbage_line, "binary": _binary, "empty": _empty, "folder": _folder}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    folder = tmp_path_factory.mktemp("damaged")
    experiment = folder / "damaged.yaml"
    experiment.write_text(EXPERIMENT)
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(folder / "whole"), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output + result.stderr
    return experiment, folder / "whole"


def copy_of(finished, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(finished[1], out)
    return out


def assert_whole_or_one_line(result, out: Path, named: Path, finished) -> None:
    text = result.output + result.stderr
    assert "Traceback" not in text, text
    if result.exit_code == 0:
        assert log_digests(out) == log_digests(finished[1]), "a resume gives the undamaged run's logs"
        return
    assert result.exit_code == 2, text
    errors = [line for line in result.stderr.splitlines() if line.startswith("zoosim: error: ")]
    assert len(errors) == 1 and str(named) in errors[0], result.stderr


@pytest.mark.parametrize("kind", DAMAGE)
@pytest.mark.parametrize("name", FILES)
def test_a_resume_of_a_damaged_run_folder_is_whole_or_one_line_naming_the_file(finished, tmp_path, name, kind):
    out = copy_of(finished, tmp_path)
    DAMAGE[kind](out / name)
    result = CliRunner().invoke(main, ["run", str(finished[0]), "--out", str(out), "--resume", "--jobs", "1", "-q"])
    assert_whole_or_one_line(result, out, out / name, finished)


@pytest.mark.slow  # 30 reports
@pytest.mark.parametrize("kind", DAMAGE)
@pytest.mark.parametrize("name", FILES)
def test_a_report_of_a_damaged_run_folder_is_one_line_or_a_report(finished, tmp_path, name, kind):
    out = copy_of(finished, tmp_path)
    DAMAGE[kind](out / name)
    result = CliRunner().invoke(main, ["report", str(out)])
    text = result.output + result.stderr
    assert "Traceback" not in text and result.exit_code in (0, 2), text
    if result.exit_code == 2:
        errors = [line for line in result.stderr.splitlines() if line.startswith("zoosim: error: ")]
        assert len(errors) == 1 and str(out / name) in errors[0], result.stderr


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_run_record_is_named_in_one_warning(finished, tmp_path, kind):
    """run.json is informative (when and where each session played): a damaged one starts
    anew, and says so."""
    out = copy_of(finished, tmp_path)
    DAMAGE[kind](out / "run.json")
    result = CliRunner().invoke(main, ["report", str(out)])
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and str(out / "run.json") in warnings[0] and "starts anew" in warnings[0], result.stderr


def _unreadable(monkeypatch, target: Path) -> None:
    """As `chmod 000` would make `target` for a user who is not root (the tests may run as root)."""
    real_open = Path.open

    def refuse(self, *args, **kwargs):
        if Path(self) == target:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)  # read_text and read_bytes open through it


@pytest.mark.parametrize("name", FILES)
def test_an_unreadable_file_of_a_run_folder_is_whole_or_one_line(finished, tmp_path, monkeypatch, name):
    out = copy_of(finished, tmp_path)
    _unreadable(monkeypatch, out / name)
    result = CliRunner().invoke(main, ["run", str(finished[0]), "--out", str(out), "--resume", "--jobs", "1", "-q"])
    monkeypatch.undo()  # the check below reads the logs
    assert_whole_or_one_line(result, out, out / name, finished)


# ---- finding 8: an unreadable logs/ folder is no run without games --------------------------

def _logs_loop(out: Path) -> None:
    shutil.rmtree(out / "logs")
    (out / "logs").symlink_to("logs")


def _logs_file(out: Path) -> None:
    shutil.rmtree(out / "logs")
    (out / "logs").write_text("not a folder")


def _cell_file(out: Path) -> None:
    shutil.rmtree(out / "logs" / "cell=0000")
    (out / "logs" / "cell=0000").write_text("not a folder")


LOGS_DAMAGE = {"symlink loop": (_logs_loop, "logs"), "logs a file": (_logs_file, "logs"),
               "cell folder a file": (_cell_file, "logs/cell=0000")}


@pytest.mark.parametrize("kind", LOGS_DAMAGE)
@pytest.mark.parametrize("command", ["report", "run"])
def test_unreadable_logs_are_one_line_exit_2_and_the_good_report_is_kept(finished, tmp_path, kind, command):
    damage, named = LOGS_DAMAGE[kind]
    out = copy_of(finished, tmp_path)
    report = (out / "report.html").read_bytes()
    damage(out)
    args = ["report", str(out)] if command == "report" else ["run", str(finished[0]), "--out", str(out), "--resume", "-q", "--jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.startswith(f"zoosim: error: {out / named}: cannot be read as the run's game logs")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert (out / "report.html").read_bytes() == report



@pytest.mark.parametrize("command", ["report", "run"])
def test_a_logs_folder_without_permission_is_one_line_and_the_report_is_kept(finished, tmp_path, monkeypatch, command):
    """As `chmod 000 logs` would be for a user who is not root (the tests may run as root)."""
    import os

    out = copy_of(finished, tmp_path)
    report = (out / "report.html").read_bytes()
    logs = out / "logs"
    real_iterdir, real_listdir = Path.iterdir, os.listdir

    def refused(path):
        return PermissionError(errno.EACCES, "Permission denied", str(path))

    def iterdir(self):
        if logs in (self, *self.parents):
            raise refused(self)
        return real_iterdir(self)

    def listdir(path="."):
        if Path(path) == logs:
            raise refused(path)
        return real_listdir(path)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    monkeypatch.setattr(os, "listdir", listdir)
    args = ["report", str(out)] if command == "report" else ["run", str(finished[0]), "--out", str(out), "--resume", "-q", "--jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.startswith(f"zoosim: error: {logs}: cannot be read as the run's game logs (Permission denied)")
    assert len(result.stderr.splitlines()) == 1
    monkeypatch.undo()
    assert (out / "report.html").read_bytes() == report

def test_a_report_of_a_run_whose_chunks_are_all_gone_keeps_the_good_report(finished, tmp_path):
    """A readable logs/ without a finished chunk (deleted by hand, or every chunk set aside) would
    have given a "No finished games yet" page over a report with games (issue #22, finding 8)."""
    out = copy_of(finished, tmp_path)
    report = (out / "report.html").read_bytes()
    for chunk in (out / "logs" / "cell=0000").iterdir():
        chunk.unlink()
    result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.startswith(f"zoosim: error: {out}: no finished game in {out / 'logs'}; report.html is kept")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert (out / "report.html").read_bytes() == report


# ---- finding 9: no library warning reaches the terminal --------------------------------------

def test_library_warnings_of_the_report_build_stay_off_the_terminal_and_zoosims_own_do_not(finished, tmp_path, monkeypatch):
    """matplotlib warned 'No artists with labels found to put in legend' with zoosim's source
    line; such warnings are dropped while a report is built, and zoosim's own warning (here, a
    damaged run record) still shows."""
    import warnings

    from simulator.report import build

    out = copy_of(finished, tmp_path)
    _cut(out / "run.json")
    real_render = build.render_html

    def render_warning_as_a_library_would(*args, **kwargs):
        warnings.warn("No artists with labels found to put in legend.", UserWarning, stacklevel=2)
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        return real_render(*args, **kwargs)

    monkeypatch.setattr(build, "render_html", render_warning_as_a_library_would)
    with warnings.catch_warnings(record=True) as shown:  # what would reach the terminal
        warnings.simplefilter("always")  # as a first warning of its kind would show
        result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 0, result.output + result.stderr
    assert [str(warning.message) for warning in shown] == []
    assert [line for line in result.stderr.splitlines() if line] == [
        line for line in result.stderr.splitlines() if line.startswith("zoosim: warning: ")] != []
