"""`zoosim tune --games N --trials N` (issue #44, item 5): quick looks without editing the file,
like `run --games`; the overrides are part of the tune (its hash, its folder, its resume command)."""

import json

from click.testing import CliRunner

from simulator.cli import main
from simulator.tune.command import default_out, load_checked, resume_tune_command

from test_tune_search import trials, tune_file


def test_games_and_trials_override_the_file_and_change_the_tune_hash(tmp_path):
    path = tune_file(tmp_path, sampler="random", single_changes=False)
    plain, _, _ = load_checked(path)
    quick, _, _ = load_checked(path, games=60, trials=3)
    assert quick.tune.budget.trials == 3
    # start 120 -> 60: racing's top 480 and the confirmation's 600 games scale by the same half
    assert (quick.tune.budget.games.start, quick.tune.budget.games.max, quick.tune.confirm.games) == (60, 240, 300)
    assert default_out(tmp_path, quick) != default_out(tmp_path, plain)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(path), "--games", "60", "--trials", "3", "--out", str(out),
                                       "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert len(trials(out)) == 3
    recorded = json.loads((out / "tune.json").read_text())["experiment"]["tune"]
    assert recorded["budget"]["games"] == {"start": 60, "max": 240}


def test_a_bad_override_is_one_line_and_the_resume_command_keeps_the_overrides(tmp_path):
    path = tune_file(tmp_path)
    result = CliRunner().invoke(main, ["tune", str(path), "--trials", "0", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "--trials" in result.output
    assert not (tmp_path / "out").exists()
    assert resume_tune_command(path, tmp_path / "out", 60, 3) == (
        f"zoosim tune {path} --games 60 --trials 3 --out {tmp_path / 'out'} --resume")
