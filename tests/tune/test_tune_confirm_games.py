"""`zoosim tune --confirm-games N` (issue #44, item 3's last part): an inconclusive confirmation
says how many games would decide it and the command that adds them; `--resume --confirm-games N`
grows the finished tune's confirmation to N games per player count, keeping every trial and
every whole chunk of confirmation games, and gives what a confirmation of N games from the start
gives."""

import re

import pandas as pd
import yaml
from click.testing import CliRunner

from simulator.analysis.tables import analyze_run
from simulator.cli import main
from simulator.config import Experiment
from simulator.rundir import read_manifest
from simulator.tune.command import resume_tune_command

from test_tune_search import trials, tune_file

# The fair coin (bonus 0 is the printed rule) without seat rotation, so seat rates carry noise:
# 1,000 games at a ±3-point margin come back inconclusive (seed 5: seat 0 at 52.2%).
SMALL = {"players": [2], "search": {"first_seat_bonus": [0.0, 0.1]}, "single_changes": False,
         "budget": {"trials": 2, "batch": 2, "games": {"start": 200, "max": 200}}}


def coin_tune(tmp_path, games, margin=3):
    path = tune_file(tmp_path, **SMALL, confirm={"games": games, "margin_points": margin})
    path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), "rotate_seats": False}))
    return path


def tune_cli(*arguments):
    return CliRunner().invoke(main, ["tune", *map(str, arguments), "--jobs", "1", "-q"])


def confirmation(out) -> pd.DataFrame:
    """Per confirmation cell and seat: games and wins, as the analysis reads them."""
    analysis = analyze_run(out / "confirm", read_manifest(out / "confirm", Experiment))
    seats = analysis.seats.merge(analysis.cells[["cell", "verdict"]], on="cell")
    return seats[["label", "seat", "games", "win_rate", "outright_wins", "shared_wins", "verdict"]].sort_values(
        ["label", "seat"]).reset_index(drop=True)


def test_an_inconclusive_confirmation_names_the_command_that_adds_the_games_it_needs(tmp_path):
    path, out = coin_tune(tmp_path, 1000), tmp_path / "out"
    result = tune_cli(path, "--out", out)
    assert result.exit_code == 0, result.output + result.stderr
    assert "at 2 players: inconclusive" in result.output
    assert result.output.count("would decide it") == 1  # the verdict's sentence says it, once
    needed = re.search(r"to play ([\d,]+) confirmation games per player count", result.output).group(1)
    command = resume_tune_command(path, out, confirm_games=int(needed.replace(",", "")))
    assert f"to play {needed} confirmation games per player count: {command}" in result.output
    before = trials(out)
    trial_files = {p: p.stat().st_mtime_ns for p in (out / "trials").rglob("*") if p.is_file()}

    grown = tune_cli(path, "--out", out, "--resume", "--confirm-games", needed.replace(",", ""))
    assert grown.exit_code == 0, grown.output + grown.stderr
    pd.testing.assert_frame_equal(trials(out), before)  # every trial kept, none played again
    assert {p: p.stat().st_mtime_ns for p in (out / "trials").rglob("*") if p.is_file()} == trial_files
    assert set(confirmation(out)["games"]) == {int(needed.replace(",", ""))}
    assert f"({int(needed.replace(',', '')):,} games per player count" in grown.output


def test_added_games_keep_every_whole_chunk_and_equal_a_confirmation_of_that_many_from_the_start(tmp_path):
    """25,000 games are a whole chunk of 20,000 and a short one of 5,000: growing to 45,000 keeps
    the whole chunk, plays the short one again whole (it is set aside, not deleted) and adds the
    rest; the confirmation is then the one a tune asking 45,000 games from the start plays."""
    path = coin_tune(tmp_path, 25_000)
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    assert tune_cli(path, "--out", grown).exit_code == 0
    whole = grown / "confirm" / "logs" / "cell=0000" / "chunk-000000.parquet"
    kept = whole.stat().st_mtime_ns
    result = tune_cli(path, "--out", grown, "--resume", "--confirm-games", 45_000)
    assert result.exit_code == 0, result.output + result.stderr
    assert whole.stat().st_mtime_ns == kept
    assert list((grown / "confirm" / "rejected").rglob("chunk-000001*.parquet"))  # the short chunk, kept aside
    assert "short last chunk" in result.stderr
    assert tune_cli(path, "--out", fresh, "--confirm-games", 45_000).exit_code == 0
    pd.testing.assert_frame_equal(confirmation(grown), confirmation(fresh))
    assert set(confirmation(grown)["games"]) == {45_000}
    assert (grown / "best.yaml").read_text() == (fresh / "best.yaml").read_text()
    # a plain resume keeps the grown confirmation (it never shrinks back to the file's games)
    again = tune_cli(path, "--out", grown, "--resume")
    assert again.exit_code == 0, again.output + again.stderr
    assert set(confirmation(grown)["games"]) == {45_000}


def test_an_interrupted_growth_keeps_its_games_and_a_plain_resume_finishes_it(tmp_path, monkeypatch):
    from simulator import runner

    path, out = coin_tune(tmp_path, 1000), tmp_path / "out"
    assert tune_cli(path, "--out", out).exit_code == 0
    play = runner.run_experiment

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_experiment", stopped)  # Ctrl-C as the grown confirmation starts
    result = tune_cli(path, "--out", out, "--resume", "--confirm-games", 3000)
    assert result.exit_code == 130
    assert resume_tune_command(path, out, confirm_games=3000) in result.stderr
    monkeypatch.setattr(runner, "run_experiment", play)
    result = tune_cli(path, "--out", out, "--resume")  # without the option: the confirmation it began
    assert result.exit_code == 0, result.output + result.stderr
    assert set(confirmation(out)["games"]) == {3000}


def test_bad_confirmation_games_are_one_line_and_write_nothing(tmp_path):
    path, out = coin_tune(tmp_path, 1000), tmp_path / "out"
    for value in ("0", "-5", "many", "1.5"):
        result = tune_cli(path, "--out", out, "--confirm-games", value)
        assert result.exit_code == 2 and "--confirm-games" in result.stderr, (value, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()
    result = tune_cli(path, "--out", out, "--confirm-games", 10**15)
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "--confirm-games" in result.stderr and "10000000000" in result.stderr and not out.exists()

    assert tune_cli(path, "--out", out).exit_code == 0
    files = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    result = tune_cli(path, "--out", out, "--resume", "--confirm-games", 500)
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "--confirm-games" in result.stderr and "1,000" in result.stderr and str(out) in result.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == files


def test_the_resume_command_repeats_the_confirmation_games():
    assert resume_tune_command("t.yaml", "out", confirm_games=9000) == (
        "zoosim tune t.yaml --confirm-games 9000 --out out --resume")


def test_a_tune_file_whose_confirmation_games_were_edited_is_told_about_confirm_games(tmp_path):
    path, out = coin_tune(tmp_path, 1000), tmp_path / "out"
    assert tune_cli(path, "--out", out).exit_code == 0
    edited = coin_tune(tmp_path, 5000)  # the same file, confirm.games raised by hand
    result = tune_cli(edited, "--out", out, "--resume")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "confirm.games 1,000" in result.stderr and "--confirm-games" in result.stderr
