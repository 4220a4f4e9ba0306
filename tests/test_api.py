"""The Python API (simulator/api.py): open_run and run_experiment on small runs of the `coin`
test game (tests/conftest.py), checked against the report's own tables and the command line."""

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import simulator
from simulator.cli import main
from simulator.errors import ZoosimError
from tests_support import log_digests

DOCUMENT = {
    "name": "api",
    "seed": 3,
    "games": 600,
    "chunk_games": 200,
    "studies": [
        {"name": "bonus", "game": "coin", "rules": {"players": 2},
         "sweep": {"first_seat_bonus": [0.0, 0.5]}},
        {"name": "three", "game": "coin", "rules": {"players": 3}},
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulator.run_experiment(DOCUMENT, out=tmp_path_factory.mktemp("api") / "run", jobs=1)


def test_importing_simulator_loads_no_pandas_pyarrow_or_numba():
    script = ("import sys, simulator; simulator.open_run; simulator.run_experiment\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'numba', 'scipy'}))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_games_has_one_row_per_game_and_seat_with_the_cells_knobs(run):
    games = run.games()
    cells = run.manifest["cells"]
    assert len(games) == sum(cell.games * cell.players for cell in cells) == 2 * 600 * 2 + 600 * 3
    assert {"seat", "policy", "score", "rank", "win", "win_share", "turns", "first_seat_bonus", "study", "label"} <= set(games.columns)
    assert not [column for column in games.columns if re.fullmatch(r"(score|win|rank|slot)_\d+", column)]
    per_game = games.groupby(["cell", "game_index"])
    assert (per_game.size() == games.groupby(["cell", "game_index"])["players"].first()).all()
    assert np.allclose(per_game["win_share"].sum(), 1.0)  # every coin game has a winner
    bonus = games[games["study"] == "bonus"].groupby("cell")["first_seat_bonus"].unique()
    assert sorted(value for values in bonus for value in values) == [0.0, 0.5]
    assert games.loc[games["study"] == "three", "first_seat_bonus"].isna().all()  # not a knob of that study


def test_win_shares_from_the_games_are_the_seat_table_of_the_report(run):
    from_games = run.games().groupby(["cell", "seat"])["win_share"].mean()
    seats = run.seats.set_index(["cell", "seat"])["win_rate"]
    assert np.allclose(from_games.loc[seats.index].to_numpy(), seats.to_numpy())
    bonus = run.seats[run.seats["cell"] == 1].set_index("seat")["deviation_points"]
    assert bonus[0] > 5  # seat 0's bonus in half the games shows up in the table the API returns


def test_verdicts_and_cells_are_the_reports(run):
    assert list(run.verdicts["cell"]) == [0, 1, 2]
    assert set(run.verdicts["verdict"]) <= {"balanced", "unbalanced", "inconclusive"}
    assert run.verdicts.loc[1, "verdict"] == "unbalanced"
    assert all(sentence for sentence in run.verdicts["sentence"])
    assert "sweep:first_seat_bonus" in run.cells.columns
    assert (run.path / "report.html").exists()


def test_games_of_chosen_cells_and_open_run_read_the_same_folder(run):
    again = simulator.open_run(run.path)
    chosen = again.games(cells=[2])
    assert set(chosen["cell"]) == {2} and len(chosen) == 600 * 3
    pd.testing.assert_frame_equal(chosen.reset_index(drop=True),
                                  run.games()[lambda g: g["cell"] == 2].reset_index(drop=True))


def test_run_experiment_of_a_file_with_overrides_plays_what_zoosim_run_plays(tmp_path):
    experiment = tmp_path / "api.yaml"
    experiment.write_text(yaml.safe_dump(DOCUMENT))
    through_api = simulator.run_experiment(experiment, games=200, seed=11, out=tmp_path / "api", jobs=2, report=False)
    result = CliRunner().invoke(main, ["run", str(experiment), "--games", "200", "--seed", "11",
                                       "--out", str(tmp_path / "cli"), "--jobs", "1", "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    assert log_digests(tmp_path / "api") == log_digests(tmp_path / "cli")
    assert through_api.manifest["experiment"]["games"] == 200 and through_api.manifest["experiment"]["seed"] == 11
    assert not (tmp_path / "api" / "report.html").exists()


def test_bad_input_and_a_folder_without_a_run_raise_the_command_lines_one_line_errors(tmp_path):
    with pytest.raises(ZoosimError, match="no manifest.json"):
        simulator.open_run(tmp_path)
    with pytest.raises(ZoosimError, match="studies"):
        simulator.run_experiment({**DOCUMENT, "studies": "none"}, out=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_without_out_the_run_goes_where_zoosim_run_puts_it_and_is_resumed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    small = {**DOCUMENT, "games": 200}
    first = simulator.run_experiment(small, jobs=1, report=False)
    assert first.path.resolve() == tmp_path / "reports" / f"api-{first.manifest['run_hash'][:8]}"
    digests = log_digests(first.path)
    again = simulator.run_experiment(small, jobs=1, report=False)
    assert again.path == first.path and log_digests(again.path) == digests
    sessions = json.loads((first.path / "run.json").read_text())["sessions"]
    assert len(sessions) == 2 and sessions[0]["games_played"] >= 3 * 200
    assert sessions[1]["games_played"] == 0  # resumed: nothing played again


@pytest.mark.parametrize("jobs", [0, 1025, True, 2.5])
def test_run_experiment_refuses_the_jobs_the_command_line_refuses_with_its_message(tmp_path, jobs):
    """jobs=1025 raised AttributeError ('DummyProcess' ... 'terminate') and jobs=0 was accepted."""
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(DOCUMENT, out=tmp_path / "run", jobs=jobs)
    assert not (tmp_path / "run").exists()
    if type(jobs) is int:
        experiment = tmp_path / "api.yaml"
        experiment.write_text(yaml.safe_dump(DOCUMENT))
        cli = CliRunner().invoke(main, ["run", str(experiment), "--jobs", str(jobs), "--out", str(tmp_path / "cli")])
        assert cli.exit_code == 2 and caught.value.detail in cli.stderr, (cli.stderr, caught.value.detail)


@pytest.mark.parametrize("options, words", [
    ({"out": ""}, ["out", "current folder"]),
    ({"backend": "spark"}, ["unknown backend", "threading"]),
    ({"scheduler": "tcp://127.0.0.1:8786"}, ["only used with --backend dask"]),
    ({"backend": "dask"}, ["needs --scheduler"]),
])
def test_run_experiment_refuses_bad_options_before_anything_is_written(tmp_path, monkeypatch, options, words):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(DOCUMENT, **{"out": tmp_path / "run", **options})
    assert all(word in str(caught.value) for word in words), str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_run_whose_logs_are_missing_raises_one_line_naming_the_logs_and_the_resume(tmp_path):
    """open_run(...).verdicts of a run without logs raised a bare KeyError."""
    run = simulator.run_experiment({**DOCUMENT, "games": 200}, out=tmp_path / "run", jobs=1, report=False)
    import shutil

    shutil.rmtree(run.path / "logs")
    opened = simulator.open_run(run.path)
    for table in ("verdicts", "cells", "seats"):
        with pytest.raises(ZoosimError, match="no finished game in .*logs.*--resume"):
            getattr(opened, table)


def test_a_manifest_without_cells_is_named_as_damaged(tmp_path):
    """A manifest with `"cells": []` beside verified logs: "no finished game" was not the answer."""
    run = simulator.run_experiment({**DOCUMENT, "games": 200}, out=tmp_path / "run", jobs=1, report=False)
    manifest = json.loads((run.path / "manifest.json").read_text())
    (run.path / "manifest.json").write_text(json.dumps({**manifest, "cells": []}))
    result = CliRunner().invoke(main, ["report", str(run.path)])
    assert result.exit_code == 2 and "damaged manifest" in result.stderr and "cells" in result.stderr, result.stderr
    with pytest.raises(ZoosimError, match="damaged manifest"):
        simulator.open_run(run.path)


def test_games_reads_only_the_columns_and_rows_asked_for(run):
    every = run.games()
    narrow = run.games(columns=["cell", "seat", "win_share", "first_seat_bonus"],
                       where={"seat": 0, "first_seat_bonus": 0.5})
    assert list(narrow.columns) == ["cell", "seat", "win_share", "first_seat_bonus"]
    expected = every[(every["seat"] == 0) & (every["first_seat_bonus"] == 0.5)]
    assert np.array_equal(narrow["win_share"].to_numpy(), expected["win_share"].to_numpy())
    short = run.games(columns=["turns", "score"], where={"turns": [5, 6], "players": 3})
    assert len(short) == len(every[every["turns"].isin([5, 6]) & (every["players"] == 3)]) > 0
    for bad, words in (({"where": {"score": 3}}, "cannot select rows by 'score'"), ({"columns": ["nope"]}, "nope"),
                       ({"where": 3}, "must map column names")):
        with pytest.raises(ZoosimError, match=words):
            run.games(**bad)


def test_a_bare_games_of_a_large_run_warns_once_with_its_size(run, monkeypatch):
    import warnings

    from simulator import api

    monkeypatch.setattr(api, "LARGE_RUN_ROWS", 1000)
    with pytest.warns(api.LargeRunWarning, match=r"4,200 rows.*columns=") as caught:
        run.games()
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run.games(columns=["seat", "win_share"])  # narrowed: no warning
        run.games(cells=[0])


def _coin_with_draws():
    """`coin` where every game whose deal seed is even has no winner (a draw nobody wins)."""
    import dataclasses

    from simulator.games import get_game

    coin = get_game("coin")

    def play_batch(params, seat_policies, seeds, rotations, check=False):
        columns = coin.play_batch(params, seat_policies, seeds, rotations, check)
        columns["win"][np.asarray(seeds) % 2 == 0] = False
        return columns

    return dataclasses.replace(coin, name="coin_draws", title="coin with draws", play_batch=play_batch)


def test_win_share_over_the_games_with_a_winner_is_the_reports_win_rate_when_some_games_have_none(tmp_path):
    """docs/api.md: the mean of win_share per cell and seat over the games with a winner
    (`has_winner`) is the report's seat win rate, also for a game where some games have none."""
    from conftest import register_test_game

    from simulator.games import GAME_MODULES

    register_test_game(_coin_with_draws())
    try:  # registered for this test only: the registry's other tests list the games they expect
        drawn = simulator.run_experiment({"name": "draws", "seed": 1, "games": 600, "chunk_games": 200, "studies": [
            {"game": "coin_draws", "rules": {"players": 3, "first_seat_bonus": 0.5}}]}, out=tmp_path / "run", jobs=1,
            report=False)
        games = drawn.games()
        assert 0.3 < 1 - games["has_winner"].mean() < 0.7
        rates = games[games["has_winner"]].groupby(["cell", "seat"])["win_share"].mean()
        seats = drawn.seats.set_index(["cell", "seat"])["win_rate"]
        assert np.allclose(rates.loc[seats.index].to_numpy(), seats.to_numpy())
        assert not np.allclose(games.groupby(["cell", "seat"])["win_share"].mean().loc[seats.index].to_numpy(),
                               seats.to_numpy())  # over every game it is not: the draws count as losses
    finally:
        GAME_MODULES.pop("coin_draws", None)


def test_a_cells_rows_from_the_index_are_the_rows_of_a_mask(run):
    """Analysis.of_cell, which the report and compare use instead of a mask per cell."""
    tables = [table for table in ("cells", "seats", "lengths", "measures", "policies")
              if len(getattr(run.analysis, table))]  # coin has no seat measures nor mixed seatings
    assert {"cells", "seats", "lengths"} <= set(tables)
    for table in tables:
        frame = getattr(run.analysis, table)
        for cell in (0, 1, 2, 99):
            pd.testing.assert_frame_equal(run.analysis.of_cell(table, cell), frame[frame["cell"] == cell])


# Issue #45's "What must exist": every entry point refuses with ZoosimError exactly what the
# command line refuses, in one line, writing nothing. An adversarial pass of the Python API found
# these classes (each raised a TypeError, IsADirectoryError or ValueError traceback, or accepted
# the value silently).


@pytest.mark.parametrize("experiment, words", [
    (123, "experiment: must be an experiment file's path or a document (a dict)"),
    (None, "experiment: must be an experiment file's path or a document (a dict)"),
    ([], "experiment: must be an experiment file's path or a document (a dict)"),
    ("", "experiment: must name an experiment file"),
])
def test_run_experiment_refuses_what_is_neither_a_path_nor_a_document(tmp_path, monkeypatch, experiment, words):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(experiment, out=tmp_path / "run")
    assert str(caught.value).startswith(words), str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_given_as_the_experiment_file_is_one_line_naming_it(tmp_path):
    """read_text_file opened the folder before checking it: IsADirectoryError."""
    (tmp_path / "folder").mkdir()
    with pytest.raises(ZoosimError, match="folder.*: is a folder, not an experiment file"):
        simulator.run_experiment(tmp_path / "folder", out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("option", ["resume", "force", "check", "report", "progress"])
def test_run_experiment_takes_its_flags_as_true_or_false_only(tmp_path, option):
    """resume="no" is truthy: it resumed. The command line's flags are true or false."""
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(DOCUMENT, out=tmp_path / "run", jobs=1, **{option: "no"})
    assert str(caught.value) == f"{option}: must be True or False (got 'no')"
    assert not (tmp_path / "run").exists()


def test_run_experiments_option_errors_name_the_keyword_not_the_command_lines_option(tmp_path):
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(DOCUMENT, out=tmp_path / "run", backend="spark")
    assert str(caught.value).startswith("backend: unknown backend 'spark'")
    with pytest.raises(ZoosimError) as caught:
        simulator.run_experiment(DOCUMENT, out=tmp_path / "run", scheduler=5)
    assert str(caught.value).startswith("scheduler: must be a scheduler address")


@pytest.mark.parametrize("path, words", [
    (None, "path: must be a run folder's path (got None)"),
    (5, "path: must be a run folder's path (got 5)"),
    ("", "path: must name a run folder's path; an empty one would mean the current folder"),
])
def test_open_run_refuses_what_is_not_a_path(path, words):
    with pytest.raises(ZoosimError) as caught:
        simulator.open_run(path)
    assert str(caught.value) == words


@pytest.mark.parametrize("arguments, words", [
    ({"cells": "x"}, "cells: must be a list of cell indices (got 'x')"),
    ({"cells": [0, 99]}, "cells: no cell 99 in this run (cells 0 to 2)"),
    ({"cells": [True]}, "cells: must be a list of cell indices (got [True])"),
    ({"columns": "turns"}, "columns: must be a list of column names (got 'turns')"),
])
def test_games_refuses_cells_and_columns_that_are_not_lists_of_what_the_run_has(run, arguments, words):
    with pytest.raises(ZoosimError) as caught:
        run.games(**arguments)
    assert str(caught.value) == words


@pytest.mark.parametrize("arguments, words", [
    ({"confidence": 2}, "confidence: must be a number between 0 and 1, exclusive (got 2)"),
    ({"confidence": "x"}, "confidence: must be a number between 0 and 1, exclusive (got 'x')"),
    ({"confidence": True}, "confidence: must be a number between 0 and 1, exclusive (got True)"),
    ({"component_margin_points": -1}, "component_margin_points: must be a number of points above 0 (got -1)"),
    ({"component_margin_points": float("nan")}, "component_margin_points: must be a number of points above 0 (got nan)"),
])
def test_gameplay_refuses_a_confidence_or_margin_it_cannot_use(run, arguments, words):
    with pytest.raises(ZoosimError) as caught:
        run.gameplay(**arguments)
    assert str(caught.value) == words


def test_the_games_of_a_run_whose_logs_are_missing_are_refused_like_its_tables(tmp_path):
    """games() returned an empty table where cells, seats and verdicts name the missing logs."""
    run = simulator.run_experiment({**DOCUMENT, "games": 200}, out=tmp_path / "run", jobs=1, report=False)
    import shutil

    shutil.rmtree(run.path / "logs")
    with pytest.raises(ZoosimError, match="no finished game in .*logs.*--resume"):
        simulator.open_run(run.path).games()
