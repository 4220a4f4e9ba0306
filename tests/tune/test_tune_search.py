"""The tune loop on the `coin` test game (seat 0 gets +5 with probability `first_seat_bonus`, so the
fairest setting is known) and, once, on Katz: determinism, resume, racing, common random
numbers, the fewer-changes tie-break and the best-settings file."""

import contextlib
import json
import sys
import types

import optuna
import pandas as pd
import pydantic
import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import load_experiment
from simulator.games import GAME_MODULES, get_game
from simulator.tune import search
from simulator.tune.best import choose_best
from simulator.tune.command import run_tune
from simulator.tune.config import TuneExperiment

COIN_TUNE = {
    "seed": 5,
    "tune": {
        "game": "coin",
        "players": [2, 3],
        "search": {"first_seat_bonus": {"low": 0, "high": 1}},
        "budget": {"trials": 8, "batch": 4, "games": {"start": 120, "max": 480}},
        "confirm": {"games": 600, "margin_points": 5},
    },
}


def tune_file(tmp_path, name="coin.yaml", **changes):
    document = yaml.safe_load(yaml.safe_dump(COIN_TUNE))
    document["tune"].update(changes)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document))
    return path


def tune(path, out, jobs=1, backend="threading", **options):
    return run_tune(path, out, jobs=jobs, backend=backend, scheduler=None,
                    resume=options.get("resume", False), force=options.get("force", False), progress=False)


@contextlib.contextmanager
def interrupted_at_call(monkeypatch, owner, name: str, call: int):
    """Ctrl-C at the `call`-th call of owner.name (a method), expected inside the block; the
    method is whole again after it."""
    original = getattr(owner, name)
    calls = []

    def interrupted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, interrupted)
    with pytest.raises(KeyboardInterrupt):
        yield
    monkeypatch.setattr(owner, name, original)


def trials(out) -> pd.DataFrame:
    return pd.read_csv(out / "trials.csv")


def test_same_file_and_seed_give_the_same_trials_for_any_jobs(tmp_path):
    path = tune_file(tmp_path)
    tune(path, tmp_path / "one", jobs=1)
    tune(path, tmp_path / "two", jobs=2)
    first, second = trials(tmp_path / "one"), trials(tmp_path / "two")
    # trial 0 plays the printed rules, then the single changes (singles.py), then the budget's 7 more
    assert len(first) == 4 + 8
    assert list(first["settings"][:5]) == [f'{{"first_seat_bonus": {v}}}' for v in (0.0, 0.125, 0.25, 0.5, 1.0)]
    pd.testing.assert_frame_equal(first, second)
    assert (tmp_path / "one" / "best.yaml").read_text() == (tmp_path / "two" / "best.yaml").read_text()


def test_an_interrupted_tune_resumes_to_the_same_trials(tmp_path, monkeypatch):
    path = tune_file(tmp_path)
    tune(path, tmp_path / "whole")
    measure = search._measure
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:  # in the second batch, after its first rung was played
            raise KeyboardInterrupt
        return measure(*args, **kwargs)

    monkeypatch.setattr(search, "_measure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune(path, tmp_path / "cut")
    monkeypatch.setattr(search, "_measure", measure)
    states = [t.state for t in search.open_study(tmp_path / "cut", TuneExperiment.model_validate(COIN_TUNE)).trials]
    assert optuna.trial.TrialState.RUNNING in states  # the second batch was proposed but not told
    with pytest.raises(Exception, match="pass --resume"):
        tune(path, tmp_path / "cut")
    tune(path, tmp_path / "cut", resume=True)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "cut"))


def test_a_tune_interrupted_inside_a_proposal_resumes_to_the_same_trials(tmp_path, monkeypatch):
    """optuna writes a proposed trial first and its parameters after: Ctrl-C between the two left
    a trial without parameters, which the resumed tune played as the printed rules."""
    path = tune_file(tmp_path)
    tune(path, tmp_path / "whole")
    suggest = optuna.trial.Trial._suggest
    calls = []

    def interrupted(self, name, distribution):
        calls.append(name)
        if len(calls) == 6:  # the second batch's second proposal, before its parameter is written
            raise KeyboardInterrupt
        return suggest(self, name, distribution)

    monkeypatch.setattr(optuna.trial.Trial, "_suggest", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune(path, tmp_path / "cut")
    monkeypatch.setattr(optuna.trial.Trial, "_suggest", suggest)
    last = search.open_study(tmp_path / "cut", TuneExperiment.model_validate(COIN_TUNE)).trials[-1]
    assert last.state == optuna.trial.TrialState.RUNNING and last.params == {}
    tune(path, tmp_path / "cut", resume=True)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "cut"))


def test_a_tune_interrupted_while_telling_a_batch_resumes_to_the_same_trials(tmp_path, monkeypatch):
    """Ctrl-C between two trials' results left the batch's last trials running; the resumed tune
    filled their batch up with new proposals, made before the batch's results were told (TPE
    models the history after 8 trials, so a proposal made early differs)."""
    path = tune_file(tmp_path, sampler="tpe", budget={"trials": 12, "batch": 4, "games": {"start": 120, "max": 480}})
    tune(path, tmp_path / "whole")
    with interrupted_at_call(monkeypatch, optuna.Study, "tell", 6):  # the second batch's second result
        tune(path, tmp_path / "cut")
    tune(path, tmp_path / "cut", resume=True)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "cut"))


def test_racing_gives_bad_trials_fewer_games(tmp_path):
    path = tune_file(tmp_path, search={"first_seat_bonus": [0.0, 0.02, 0.8, 1.0]}, sampler="random",
                     budget={"trials": 12, "batch": 6, "games": {"start": 120, "max": 960}})
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    bonus = frame["settings"].map(lambda text: json.loads(text)["first_seat_bonus"])
    bad, good = frame[bonus >= 0.8], frame[bonus <= 0.02]
    assert len(bad) and len(good)
    assert bad["games"].max() < good["games"].max()
    assert (bad["rung"] < frame["rung"].max()).all()
    assert frame["games"].sum() < len(frame) * frame["games"].max()


def test_trials_play_the_same_deals_so_knobs_that_change_nothing_give_identical_results(tmp_path):
    # broken_rule only matters in checked mode: both settings play the same games if and only if
    # every trial gets the same deals (the runner alone would seed them by their knobs)
    path = tune_file(tmp_path, rules={"first_seat_bonus": 0.3}, search={"broken_rule": [False, True]},
                     sampler="random", single_changes=False, budget={"trials": 2, "batch": 2, "games": {"start": 120, "max": 120}})
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    assert sorted(frame["settings"]) == ['{"broken_rule": false}', '{"broken_rule": true}']
    assert frame["games_played"].tolist() == [240, 240]
    assert frame["seat_fairness"].nunique() == 1 and frame["seat_fairness"][0] > 0


def test_a_setting_proposed_again_reuses_its_result_without_playing(tmp_path):
    path = tune_file(tmp_path, search={"first_seat_bonus": [0.0, 0.6]}, sampler="random",
                     budget={"trials": 8, "batch": 4, "games": {"start": 120, "max": 120}})
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    for _, same in frame.groupby("settings"):
        assert same["seat_fairness"].nunique() == 1
        assert (same["games_played"] > 0).sum() == 1  # played once, reused after
    assert frame["seat_fairness"].nunique() == 2


def fake_trial(number, value, error, changes, rung=2):
    return optuna.trial.create_trial(
        params={"x": number}, distributions={"x": optuna.distributions.IntDistribution(0, 99)}, value=value,
        user_attrs={"rung": rung, "objectives": [value], "errors": [error], "changes": changes,
                    "feasible": True, "games": 1000},
    )


@pytest.mark.parametrize("prefer, chosen", [(None, 0), ("fewer_changes", 1)])
def test_fewer_changes_picks_the_smallest_change_within_noise_of_the_best(prefer, chosen):
    study = optuna.create_study()
    study.add_trials([
        fake_trial(0, 1.0, 0.3, changes=3),
        fake_trial(1, 1.5, 0.3, changes=1),  # 0.5 worse: within 2 x sqrt(0.3^2 + 0.3^2) = 0.85
        fake_trial(2, 2.5, 0.3, changes=0),  # 1.5 worse: outside the noise
        fake_trial(3, 0.2, 0.1, changes=0, rung=1),  # fewer games: does not compete
    ])
    experiment = TuneExperiment.model_validate({**COIN_TUNE, "tune": {**COIN_TUNE["tune"], "prefer": prefer}})
    choice = choose_best(study, experiment)
    assert choice.best.number == chosen
    assert [t.number for t in choice.leaders] == [0, 1, 2]


class SeatBonusCoin(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    preset: str = "standard"
    players: int = pydantic.Field(3, ge=2, le=5)
    first_seat_bonus: float = 0.5
    seat_points: list[int] = pydantic.Field([0, 0, 0, 0, 0], description="points added to each seat's score")


@pytest.fixture
def seat_list_game():
    """`coin` with a per-seat list knob `seat_points`, the way Katz's seat compensation is set."""
    coin = get_game("coin")

    def play(params, seat_policies, seeds, rotations, check=False):
        plain = coin.params_model(players=params.players, first_seat_bonus=params.first_seat_bonus)
        columns = coin.play_batch(plain, seat_policies, seeds, rotations, check)
        columns["score"] = columns["score"] + params.seat_points[: params.players]
        columns["win"] = columns["score"] == columns["score"].max(axis=1, keepdims=True)
        return columns

    module = types.ModuleType("zoosim_test_seatcoin")
    module.GAME = coin.__class__(**{**coin.__dict__, "name": "seatcoin", "params_model": SeatBonusCoin,
                                    "play_batch": play})
    sys.modules[module.__name__] = module
    GAME_MODULES["seatcoin"] = f"{module.__name__}:GAME"
    yield
    del GAME_MODULES["seatcoin"]


def test_a_per_seat_list_knob_is_searched_per_seat_and_written_per_player_count(tmp_path, seat_list_game):
    path = tune_file(tmp_path, game="seatcoin", search={"seat_points": {"choices": [0, 2], "per_seat": True}},
                     prefer="fewer_changes")
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    assert "seat_points[3p][2]" in frame["settings"][0]
    best = yaml.safe_load((tmp_path / "out" / "best.yaml").read_text())
    cases = best["studies"][0]["cases"]
    assert [case["players"] for case in cases] == [2, 3]
    assert [len(case.get("seat_points", [0] * case["players"])) for case in cases] == [2, 3]
    load_experiment(tmp_path / "out" / "best.yaml")


def test_katz_tune_writes_a_best_file_that_validate_and_run_accept(tmp_path):
    path = tmp_path / "katz.yaml"
    path.write_text(yaml.safe_dump({
        "seed": 2,
        "tune": {"game": "katz", "seats": ["greedy"], "players": [4],
                 "search": {"hand_size": [6, 7], "blocked_cell_rule": ["line_completion", "dead_cell"]},
                 "prefer": "fewer_changes", "constraints": {"turns": [10, 80]},
                 "budget": {"trials": 3, "batch": 3, "games": {"start": 200, "max": 400}},
                 "confirm": {"games": 400, "margin_points": 1.0}},
    }))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "2", "--backend", "threading", "-q"])
    assert result.exit_code == 0, result.output
    assert "tune report:" in result.output and "confirmation" in result.output
    validated = CliRunner().invoke(main, ["validate", str(out / "best.yaml")])
    assert validated.exit_code == 0, validated.output
    # the best setting, and the printed rules beside it unless the best setting is them
    cells = len(yaml.safe_load((out / "best.yaml").read_text())["studies"])
    assert f"{cells} cell(s), {400 * cells} games" in validated.output
    page = (out / "tune.html").read_text()
    for heading in ("Best settings", "Confirmation run", "Trials", "<svg"):
        assert heading in page
    assert (out / "confirm" / "report.html").exists()


@pytest.mark.parametrize("failing", ["chunk-", "tune.html"])
def test_a_full_disk_ends_a_tune_in_one_line_with_its_resume_command_and_resuming_finishes_it(tmp_path, monkeypatch, failing):
    """A full disk while a trial's run writes a chunk, or while the tune writes its report: one
    line naming the tune folder and `zoosim tune ... --resume` (a trial's run used to suggest
    resuming that run with `zoosim run`); resuming then gives the uninterrupted tune's trials."""
    import errno

    from simulator import rundir

    path = tune_file(tmp_path)
    tune(path, tmp_path / "whole")
    real_write = rundir.write_bytes_atomic

    def full_at(target, data):
        if target.name.startswith(failing):
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        real_write(target, data)

    out = tmp_path / "full"
    monkeypatch.setattr(rundir, "write_bytes_atomic", full_at)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"zoosim: error: {out}: No space left on device while writing the tune; every finished "
                             f"trial is kept. Resume with: zoosim tune {path} --out {out} --resume\n")
    monkeypatch.setattr(rundir, "write_bytes_atomic", real_write)
    tune(path, out, resume=True)
    pd.testing.assert_frame_equal(trials(out), trials(tmp_path / "whole"))


def test_the_confirmation_replays_the_printed_rules_beside_the_best_setting():
    from simulator.tune.best import best_document
    from simulator.tune.space import build_space

    experiment = TuneExperiment.model_validate({**COIN_TUNE, "name": "coin"})
    parameters = build_space(experiment.tune)

    def document_for(bonus):
        trial = optuna.trial.create_trial(
            params={"first_seat_bonus": bonus}, value=1.0,
            distributions={"first_seat_bonus": optuna.distributions.FloatDistribution(0, 1)})
        return best_document(experiment, parameters, trial)

    studies = document_for(0.5)["studies"]
    assert [study["rules"] for study in studies] == [{"first_seat_bonus": 0.5}, {}]
    assert studies[1]["cases"] == [{"players": 2}, {"players": 3}] and "printed rules" in studies[1]["name"]
