"""The run folder (rundir.py): verified chunks, the lock, --force, manifests, disk errors, and a
report of an interrupted run. Each test reproduces a finding of issue #11 first."""

import errno
import json
import os
import re
import shutil

import pytest
from click.testing import CliRunner

from simulator import rundir
from simulator.analysis.tables import analyze_run
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.rundir import LOCK, MANIFEST, chunk_path, read_manifest, sidecar_path
from simulator.runner import run_plan
from tests_support import lock_held_elsewhere, log_digests

DOCUMENT = {
    "name": "folder",
    "seed": 5,
    "games": 800,
    "chunk_games": 200,
    "studies": [
        {"name": "plain", "game": "coin", "rules": {"players": 2, "first_seat_bonus": 0.2}},
        {"name": "pool", "game": "coin", "rules": {"players": 2}, "pool": ["fair", "lucky"]},
    ],
}


def make_plan(**overrides):
    return build_plan(parse_experiment({**DOCUMENT, **overrides}))


def run(out, **options):
    return run_plan(make_plan(), out, "name: folder\n", progress=False, jobs=1, **options)


@pytest.fixture
def full_run(tmp_path):
    out = tmp_path / "full"
    run(out)
    return out


def seats_table(out):
    return analyze_run(out, read_manifest(out)).seats


# ---- finding 1: a report of an interrupted run ----

def test_a_report_of_a_run_whose_tournament_cell_has_no_finished_chunk_says_how_to_resume(full_run):
    shutil.rmtree(full_run / "logs" / "cell=0001")  # as after Ctrl-C before the pool's first chunk
    path, analysis = build_report(full_run)
    assert list(analysis.cells["cell"]) == [0] and len(analysis.ratings) == 0
    text = path.read_text()
    assert "No finished games yet" in text and f"--out {full_run} --resume" in text


@pytest.mark.parametrize("document, words", [
    ({"games": 1, "rotate_seats": False, "studies": [{"game": "coin", "rules": {"players": 2}}]}, "1 played, 1 with a winner"),
    ({"games": 40, "studies": [{"game": "nyz", "rules": {"players": 2, "max_turns_per_player": 1}}]}, "40 played, 0 with a winner"),
])
def test_a_cell_with_too_few_games_or_no_winner_gets_a_report_that_says_so(tmp_path, document, words):
    """One game has no spread and games that all stopped without a winner have no win rates:
    the report said neither, it crashed (a mean interval of 1 value, a win rate of 0 games)."""
    out = tmp_path / "few"
    run_plan(build_plan(parse_experiment(document)), out, "", progress=False, jobs=1)
    result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert f"Too few games to analyse: {words}" in (out / "report.html").read_text()


def test_the_cli_reports_an_interrupted_run_without_a_traceback(full_run):
    for chunk in range(4):
        chunk_path(full_run, 1, chunk).unlink()
    result = CliRunner().invoke(main, ["report", str(full_run)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


# ---- finding 2: chunk files trusted because they exist ----

def damage(out, kind):
    """Damage chunk 1 of cell 0 as a user, a full disk or a copy might; return its path."""
    target = chunk_path(out, 0, 1)
    if kind == "truncated":
        target.write_bytes(target.read_bytes()[:300])
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "corrupted":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    elif kind == "duplicated":  # a valid chunk copied over another one
        shutil.copy(chunk_path(out, 0, 2), target)
    elif kind == "swapped":  # chunk and sidecar copied together under another name
        shutil.copy(chunk_path(out, 0, 2), target)
        shutil.copy(sidecar_path(chunk_path(out, 0, 2)), sidecar_path(target))
    elif kind == "other cell":
        shutil.copy(chunk_path(out, 1, 1), target)
        shutil.copy(sidecar_path(chunk_path(out, 1, 1)), sidecar_path(target))
    elif kind == "no sidecar":
        sidecar_path(target).unlink()
    elif kind == "bad sidecar":
        sidecar_path(target).write_text("{not json")
    elif kind == "edited summary":
        sidecar = json.loads(sidecar_path(target).read_text())
        sidecar["summary"]["games"] += 1
        sidecar_path(target).write_text(json.dumps(sidecar))
    elif kind == "summary without keys":
        sidecar = json.loads(sidecar_path(target).read_text())
        sidecar["summary"] = {"games": 200}
        sidecar_path(target).write_text(json.dumps(sidecar))
    return target


KINDS = ["truncated", "empty", "corrupted", "duplicated", "swapped", "other cell", "no sidecar", "bad sidecar",
         "edited summary", "summary without keys"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_chunk_is_set_aside_and_replayed_on_resume(tmp_path, full_run, kind, capsys):
    out = tmp_path / "damaged"
    shutil.copytree(full_run, out)
    target = damage(out, kind)
    summary = run(out, resume=True)
    assert summary.games_played == 200  # that chunk, and only it, played again
    assert log_digests(out) == log_digests(full_run)
    assert seats_table(out).equals(seats_table(full_run))
    warning = capsys.readouterr().err
    assert f"zoosim: warning: {target}:" in warning and "played again" in warning
    assert len(warning.strip().splitlines()) == 1
    assert list((out / "rejected" / "cell=0000").glob("chunk-000001.*.parquet"))


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("no sidecar", "corrupted")])
def test_a_report_leaves_a_bad_chunk_out_with_one_warning(tmp_path, full_run, kind, capsys):
    out = tmp_path / "damaged"
    shutil.copytree(full_run, out)
    target = damage(out, kind)
    result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 0 and "Traceback" not in result.output
    analysis = analyze_run(out, read_manifest(out))
    assert analysis.cells.set_index("cell").loc[0, "games"] == 600  # the bad chunk's games are missing
    assert f"{target}:" in capsys.readouterr().err
    assert target.exists()  # a report never moves files: a run may be writing


def test_a_log_changed_at_the_same_size_is_left_out_only_where_the_logs_are_read(tmp_path, full_run, capsys):
    """Issue 11 (speed): a report from the summaries counts its games from them, checking each
    log's size, not its sha256, and reads no log (the turn-order facts included, issue #25), so
    it says nothing; where logs are read (`--from-logs`; a resume sets it aside: test above)
    they are hashed and a changed one is left out with one warning."""
    out = tmp_path / "damaged"
    shutil.copytree(full_run, out)
    target = damage(out, "corrupted")
    assert analyze_run(out, read_manifest(out)).cells.set_index("cell").loc[0, "games"] == 800
    assert capsys.readouterr().err == ""
    assert analyze_run(out, read_manifest(out), from_logs=True).cells.set_index("cell").loc[0, "games"] == 600
    warning = capsys.readouterr().err
    assert f"{target}: changed since it was written" in warning and len(warning.strip().splitlines()) == 1


def test_a_parquet_file_without_sidecar_is_unfinished_and_silently_left_out_of_a_report(tmp_path, full_run, capsys):
    out = tmp_path / "in-flight"
    shutil.copytree(full_run, out)
    damage(out, "no sidecar")
    assert analyze_run(out, read_manifest(out)).cells.set_index("cell").loc[0, "games"] == 600
    assert capsys.readouterr().err == ""


# ---- finding 4: no lock on a run folder ----

def test_a_second_run_of_a_folder_in_use_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "busy"
    run(out)
    before = log_digests(out)
    with lock_held_elsewhere(out) as holder:
        with pytest.raises(ZoosimError, match=rf"is in use by another zoosim run \(pid {holder} on .*, started .*\)"):
            run(out, resume=True)
        with pytest.raises(ZoosimError, match="in use"):
            run(out, force=True)
    assert log_digests(out) == before
    assert run(out, resume=True).games_played == 0  # released when its holder died


# ---- finding 6: --force deletes only zoosim's own files ----

def test_force_refuses_a_folder_that_is_not_a_zoosim_run(tmp_path):
    folder = tmp_path / "mine"
    (folder / "logs").mkdir(parents=True)
    (folder / "logs" / "diary.txt").write_text("mine")
    (folder / "report.html").write_text("my report")
    with pytest.raises(ZoosimError, match="holds no zoosim run"):
        run(folder, force=True)
    assert (folder / "report.html").read_text() == "my report" and (folder / "logs" / "diary.txt").exists()
    assert not (folder / LOCK).exists()


def test_force_replaces_a_run_but_keeps_files_a_user_added(tmp_path, full_run):
    (full_run / "notes.txt").write_text("keep me")
    (full_run / "logs" / "cell=0000" / "mine.csv").write_text("keep me too")
    (full_run / "rejected" / "cell=0000").mkdir(parents=True)
    (full_run / "rejected" / "cell=0000" / "chunk-000001.0.parquet").write_bytes(b"old")
    run_plan(make_plan(seed=6), full_run, "", progress=False, jobs=1, force=True)
    assert (full_run / "notes.txt").exists() and (full_run / "logs" / "cell=0000" / "mine.csv").exists()
    assert not (full_run / "rejected").exists()
    assert read_manifest(full_run)["run_hash"] == make_plan(seed=6).run_hash
    assert analyze_run(full_run, read_manifest(full_run)).cells["games"].tolist() == [800, 800]


def test_an_empty_folder_is_used_and_force_replaces_a_run_with_a_broken_manifest(tmp_path, full_run):
    (tmp_path / "empty").mkdir()
    assert run(tmp_path / "empty").games_played == 1600
    (full_run / MANIFEST).write_text("{")
    assert run(full_run, force=True).games_played == 1600


# ---- finding 8 (run folder part): a manifest that lacks keys ----

@pytest.mark.parametrize("edit", [
    lambda m: m.pop("cells"),
    lambda m: m["cells"][1].pop("chunk_deals"),
    lambda m: m.update(cells="none"),
])
def test_a_manifest_lacking_keys_is_one_line_naming_the_file(full_run, edit):
    manifest = json.loads((full_run / MANIFEST).read_text())
    edit(manifest)
    (full_run / MANIFEST).write_text(json.dumps(manifest))
    for command in (["report", str(full_run)], ["compare", str(full_run), str(full_run)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2 and "Traceback" not in result.output
        line = result.stderr.strip()
        assert "\n" not in line and str(full_run / MANIFEST) in line and "damaged manifest" in line
    with pytest.raises(ZoosimError, match="damaged manifest"):
        run(full_run, resume=True)


@pytest.mark.parametrize("edit", [
    lambda m: m.update(experiment=None),
    lambda m: m.update(experiment=7),
    lambda m: m["experiment"].update(games="many"),
    lambda m: m["cells"][0].update(chunk_deals="x"),
    lambda m: m["cells"][0].update(players="2"),
    lambda m: m["cells"][0].update(seats=[]),
    lambda m: m["cells"][0].update(seats="fair"),
    lambda m: m["cells"][0].update(end_reasons=None),
    lambda m: m["cells"][0].update(seat_measures=["score"]),
    lambda m: m["cells"][0].update(sweep_values=[]),
    lambda m: m["cells"][1].update(index=0),  # two cells reading one logs folder
])
def test_a_manifest_with_wrong_types_or_inconsistent_cells_is_one_line_naming_the_file(full_run, edit):
    manifest = json.loads((full_run / MANIFEST).read_text())
    edit(manifest)
    (full_run / MANIFEST).write_text(json.dumps(manifest))
    for command in (["report", str(full_run)], ["compare", str(full_run), str(full_run)]):
        result = CliRunner().invoke(main, command)
        line = result.stderr.strip()
        assert result.exit_code == 2 and "\n" not in line and line.startswith(f"zoosim: error: {full_run / MANIFEST}: ")
    with pytest.raises(ZoosimError, match="manifest"):
        run(full_run, resume=True)


def test_a_manifest_nested_too_deeply_for_json_is_one_line(full_run):
    (full_run / MANIFEST).write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(main, ["report", str(full_run)])
    assert result.exit_code == 2 and result.stderr.startswith(f"zoosim: error: {full_run / MANIFEST}: unreadable manifest")


@pytest.mark.parametrize("run_info", ["[]", '{"sessions": [{"seconds": "x"}]}', '{"sessions": [{}]}', "[" * 100_000])
def test_a_damaged_run_record_or_experiment_copy_still_gives_a_report(full_run, run_info):
    """run.json and experiment.yaml are informative: a damaged one never stops a report."""
    (full_run / "run.json").write_text(run_info)
    (full_run / "experiment.yaml").write_bytes(b"\xff\xfe name: x")
    result = CliRunner().invoke(main, ["report", str(full_run)])
    assert result.exit_code == 0, result.output
    assert run(full_run, resume=True).games_played == 0
    assert len(rundir.read_run_info(full_run)["sessions"]) == 1  # the damaged record starts anew


def test_an_output_folder_that_is_a_symlink_loop_is_one_line(tmp_path, write_experiment):
    path = write_experiment("games: 40\nchunk_games: 20\nstudies: [{game: coin, rules: {players: 2}}]\n")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(loop), "--quiet"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"zoosim: error: {loop}")


def test_a_symlink_loop_beside_a_run_folder_does_not_stop_its_report(tmp_path, full_run):
    loop = full_run.parent / "loop"
    loop.symlink_to(loop)
    result = CliRunner().invoke(main, ["report", str(full_run)])
    assert result.exit_code == 0, result.output


# ---- finding 5: a full disk, and permission errors ----

def test_a_full_disk_ends_in_one_line_keeps_finished_chunks_and_leaves_no_temporaries(tmp_path, full_run, monkeypatch):
    out = tmp_path / "full-disk"
    real_write = rundir.write_bytes_atomic
    writes = []

    def write_until_full(path, data):
        writes.append(path)
        if len(writes) > 8:  # the manifest, the experiment copy, then three chunks with sidecars
            temporary = path.with_name(f".{path.name}.1.tmp")
            temporary.write_bytes(data[:10])  # what a real full disk leaves half-written
            temporary.unlink()
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(rundir, "write_bytes_atomic", write_until_full)
    with pytest.raises(ZoosimError) as caught:
        run(out)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{out}: No space left on device")
    assert f"zoosim run EXPERIMENT.yaml --out {out} --resume" in message
    assert caught.value.__context__ is None or not isinstance(caught.value.__context__, ZoosimError)
    assert not [p for p in out.rglob("*") if p.name.endswith((".tmp", ".progress"))]
    assert len(list(out.glob("logs/*/_chunk-*.json"))) == 3
    assert not [p for p in out.glob("logs/*/chunk-*.parquet") if not sidecar_path(p).exists()]
    monkeypatch.setattr(rundir, "write_bytes_atomic", real_write)
    run(out, resume=True)
    assert log_digests(out) == log_digests(full_run)


def test_the_cli_prints_one_line_on_a_full_disk(tmp_path, write_experiment, monkeypatch):
    path = write_experiment("seed: 1\ngames: 400\nchunk_games: 100\nstudies: [{game: coin, rules: {players: 2}}]\n")

    def no_space(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rundir, "write_bytes_atomic", no_space)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'out'}: No space left on device" in result.stderr and "--resume" in result.stderr


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS, errno.EDQUOT])
def test_permission_and_quota_errors_end_in_one_line(tmp_path, monkeypatch, code):
    def refuse(path, data):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(rundir, "write_bytes_atomic", refuse)
    with pytest.raises(ZoosimError) as caught:
        run(tmp_path / "out")
    assert str(caught.value).startswith(f"{tmp_path / 'out'}: {os.strerror(code)} while writing the run")


def test_a_chunk_of_another_experiment_with_its_sidecar_is_never_used(tmp_path, full_run, capsys):
    other = tmp_path / "other"
    run_plan(make_plan(seed=99), other, "", progress=False, jobs=1)
    for name in ("chunk-000001.parquet", "_chunk-000001.json"):
        shutil.copy(other / "logs" / "cell=0000" / name, full_run / "logs" / "cell=0000" / name)
    assert analyze_run(full_run, read_manifest(full_run)).cells.set_index("cell").loc[0, "games"] == 600
    assert "its sidecar describes another chunk" in capsys.readouterr().err
    assert run(full_run, resume=True).games_played == 200


def test_resuming_a_finished_run_verifies_every_chunk_the_workers_wrote_and_plays_nothing(full_run):
    """A worker records the digest of the deal seeds it played; a resume generates them again
    from the cell's seed entropy and finds every chunk as written (none set aside)."""
    summary = run(full_run, resume=True)
    assert summary.games_played == 0 and summary.chunks_skipped == len(list(full_run.glob("logs/*/_chunk-*.json")))
    assert not (full_run / "rejected").exists()


# ---- issue #21 finding 7: a run folder that standard tools read ----

def pd_read(out):
    import pandas as pd

    return pd.read_parquet(out / "logs")


def test_pandas_reads_the_logs_folder_as_a_dataset_partitioned_by_cell(full_run):
    import pandas as pd

    games = pd.read_parquet(full_run / "logs")  # pyarrow dataset discovery: sidecars are skipped
    manifest = read_manifest(full_run)
    assert len(games) == sum(cell.games for cell in manifest["cells"])
    assert sorted(games["cell"].astype(int).unique()) == [cell.index for cell in manifest["cells"]]
    assert {"score_0", "score_1", "turns"} <= set(games.columns)


def test_every_file_zoosim_keeps_beside_the_logs_is_hidden_from_dataset_discovery(full_run, monkeypatch):
    """Sidecars, progress notes and the temporaries of a write in progress (a run still playing)
    do not stop a dataset reader."""
    chunk = chunk_path(full_run, 0, 3)
    rundir.progress_path(chunk).write_text("150")
    real_replace, read = os.replace, []

    def read_while_half_written(source, target):  # the temporary exists, the chunk not yet
        read.append(len(pd_read(full_run)))
        real_replace(source, target)

    chunk.unlink()
    monkeypatch.setattr(os, "replace", read_while_half_written)
    rundir.write_bytes_atomic(chunk, b"half a chunk")
    assert read == [1600 - 200]
    for path in (sidecar_path(chunk), rundir.progress_path(chunk)):
        assert path.parent == chunk.parent and path.name[0] in "_."


def test_a_run_folder_of_the_layout_before_hidden_sidecars_is_refused_in_one_line(tmp_path, full_run):
    for sidecar in full_run.glob("logs/*/_chunk-*.json"):  # as an earlier zoosim named them
        sidecar.rename(sidecar.with_name(sidecar.name[1:]))
    with pytest.raises(ZoosimError, match="earlier zoosim.*pass --force to start over"):
        run(full_run, resume=True)
    with pytest.raises(ZoosimError, match="earlier zoosim.*run the experiment again"):
        build_report(full_run)
    result = CliRunner().invoke(main, ["report", str(full_run)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert re.search(r"sidecars named like chunk-(\d{6}).json, now _chunk-\1.json", result.output)
    run(full_run, force=True)  # --force replaces it: the old sidecars go with the old chunks
    assert not list(full_run.glob("logs/*/chunk-*.json")) and len(pd_read(full_run)) == 1600


def test_chunks_of_a_larger_round_of_the_same_cell_are_kept_when_a_smaller_round_is_replayed(tmp_path):
    """Issue #45: `zoosim tune --resume` after Ctrl-C in racing's second round replayed the first
    round's smaller plan into the trial folder, which set the second round's valid chunks aside
    in rejected/ as "not a chunk of this cell" and played them again."""
    out = tmp_path / "run"
    run(out)
    manifest = read_manifest(out)
    cell = manifest["cells"][0]
    assert cell.chunks == 4
    digests = log_digests(out)
    smaller = cell.model_copy(update={"games": cell.games // 2, "deals": cell.deals // 2, "chunks": 2})
    kept = rundir.verified_chunks(out, smaller, set_aside=True)
    assert sorted(kept) == [0, 1]
    assert not (out / rundir.REJECTED_DIR).exists()
    assert log_digests(out) == digests  # chunks 2 and 3 are where they were, for the larger round
    assert sorted(rundir.verified_chunks(out, cell, set_aside=True)) == [0, 1, 2, 3]
