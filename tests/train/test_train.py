"""`zoosim train` (issue #23 item 1): a tiny Katz training writes loadable weights, the same
files for --jobs 1 and 2 and after a resume, a report; bad options are one line, exit 2, and
nothing written. Katz, because its recording and players are numba kernels (cheap games)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.games.katz.specs import FEATURE_NAMES, SET_NAMES
from simulator.games.learned import load_weights
from simulator.train import loop

TINY = ["--games", "12", "--gate-games", "8", "--strength-games", "4", "--seed", "5"]


def train(out, *extra, rounds=1):
    result = CliRunner().invoke(main, ["train", "katz", "--out", str(out), "--rounds", str(rounds), "-q", *TINY, *extra])
    return result


def round_files(out):
    """Each round's arrays and card (without the command line, which names the folder)."""
    files = {}
    for path in sorted(out.glob("round-*.npz")) + [out / "best.npz"]:
        card = json.loads(path.with_suffix(".json").read_text())
        card.pop("command")
        files[path.name] = (path.read_bytes(), card)
    return files


def test_training_writes_weights_learned_loads_and_a_report(tmp_path):
    result = train(tmp_path / "t", "--jobs", "1")
    assert result.exit_code == 0, result.output
    out = tmp_path / "t"
    for number in (0, 1):
        weights = load_weights(loop.round_path(out, number), "katz", FEATURE_NAMES, SET_NAMES)
        assert weights.card["round"] == number and weights.card["rules_hash"]
    first = json.loads((out / "round-01.json").read_text())
    assert first["gate"]["deals"] == 8 and 0 <= first["gate"]["low"] <= first["gate"]["share"] <= first["gate"]["high"] <= 1
    assert set(first["strength"]) == {"shipped", "heuristic"}
    assert first["training_games"] == sum(first["training"]["players"].values()) == 11  # 12 x the shares, rounded
    assert first["training_positions"] > 0
    zero = load_weights(out / "round-00.npz", "katz", FEATURE_NAMES, SET_NAMES)
    assert not np.any(zero.weights)  # --start zero: from scratch
    kept = 1 if first["kept"] else 0
    assert (out / "best.npz").read_bytes() == loop.round_path(out, kept).read_bytes()
    page = (out / "report.html").read_text()
    assert "Strength per round" in page and "<svg" in page and "zoosim train katz" in page
    # a study seats the trained player (issue #23 item 2)
    experiment = tmp_path / "seat.yaml"
    experiment.write_text("games: 4\nstudies: [{game: katz, rules: {players: 2}, seats: "
                          f"[{{policy: learned, params: {{weights: {out / 'best.npz'}}}}}, greedy]}}]\n")
    played = CliRunner().invoke(main, ["run", str(experiment), "--out", str(tmp_path / "run"), "-q", "--no-report"])
    assert played.exit_code == 0, played.output


def test_same_seed_same_files_for_any_jobs(tmp_path):
    assert train(tmp_path / "one", "--jobs", "1").exit_code == 0
    assert train(tmp_path / "two", "--jobs", "2").exit_code == 0
    assert round_files(tmp_path / "one") == round_files(tmp_path / "two")


def test_resume_after_an_interruption_gives_the_files_of_an_uninterrupted_training(tmp_path, monkeypatch):
    assert train(tmp_path / "whole", "--jobs", "1", rounds=2).exit_code == 0
    stopped = tmp_path / "stopped"
    assert train(stopped, "--jobs", "1", rounds=1).exit_code == 0  # stopped after round 1 ...
    real_gate = loop.play_gate

    def interrupted(*args, **kwargs):  # ... and Ctrl-C in round 2's gate, after its data and fit
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "play_gate", interrupted)
    result = train(stopped, "--jobs", "1", "--resume", rounds=2)
    assert result.exit_code == 130 and "--resume" in result.output
    assert not (stopped / "round-02.json").exists()
    monkeypatch.setattr(loop, "play_gate", real_gate)
    assert train(stopped, "--jobs", "1", "--resume", rounds=2).exit_code == 0
    assert round_files(stopped) == round_files(tmp_path / "whole")


@pytest.mark.parametrize("arguments, words", [
    (["--set", "hand_sise=6"], ["--set", "hand_sise"]),
    (["--rules", "{tmp}/list.yaml"], ["list.yaml", "mapping"]),
    (["--start", "{tmp}/missing.npz"], ["missing.npz"]),
    (["--play", "learnt"], ["--play", "unknown policy 'learnt'"]),
    (["--play", "strong", "--play-param", "iterationz=3"], ["--play-param", "unknown parameter 'iterationz'"]),
    (["--play", "strong", "--play-param", "iterations=-1"], ["--play-param", "iterations"]),
    (["--play-param", "iterations"], ["--play-param takes key=value"]),
    (["--gate-policy", "greedy"], ["--gate-policy", "no learned weights"]),
    (["--explore", "nan"], ["--explore"]),
    (["--games", "0"], ["--games"]),
    (["--resume"], ["--resume", "no training"]),
    (["--backend", "dask"], ["needs --scheduler"]),
    (["--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler is only used with --backend dask"]),
])
def test_bad_options_are_one_line_exit_2_and_write_nothing(tmp_path, arguments, words):
    (tmp_path / "list.yaml").write_text("- hand_size: 6\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["train", "katz", "--out", str(out), *[a.replace("{tmp}", str(tmp_path)) for a in arguments]])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert all(word in line for word in words), line
    assert not out.exists()


def test_search_games_give_the_move_set_its_priors_from_the_visit_counts(tmp_path):
    """Expert iteration proper (issue #23 item 1): with a tree search recording (--play strong,
    deeper with --play-param), the round's move set takes its move priors from the searches'
    visit counts (katz/training.py's fit), and the card says what recorded them."""
    out = tmp_path / "expert"
    result = train(out, "--jobs", "1", "--play", "strong", "--play-param", "iterations=16")
    assert result.exit_code == 0, result.output
    card = json.loads((out / "round-01.json").read_text())
    assert card["training"]["play"] == "strong" and card["training"]["play_params"] == {"iterations": 16}
    priors = card["fit"]["move"]["move_priors"]
    assert priors["train_decisions"] > 100 and 0 < priors["holdout_top_move_agreement"] <= 1
    page = (out / "report.html").read_text()
    assert "move priors from the searches' visit counts" in page and "iterations" in page
    assert train(tmp_path / "plain", "--jobs", "1").exit_code == 0  # the default: greedy_tuned records
    plain = json.loads((tmp_path / "plain" / "round-01.json").read_text())
    assert "move_priors" not in plain["fit"]["move"] and plain["training"]["play_params"] == {}


def test_an_unknown_game_and_another_trainings_folder_are_refused(tmp_path):
    result = CliRunner().invoke(main, ["train", "coin", "--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "no training code" in result.output
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    result = CliRunner().invoke(main, ["train", "katz", "--out", str(tmp_path / "busy")])
    assert result.exit_code == 2 and "not empty" in result.output


@pytest.mark.slow
def test_nyz_trains_under_a_variant_and_its_card_names_the_rules(tmp_path, monkeypatch):
    """New York Zoo records through the step API with `learned` itself (solo and multi sets) and
    tunes the fit for play (a tiny tuning budget here), for `strong` unless told otherwise."""
    from simulator.games.nyz import training as nyz_training
    from simulator.games.nyz.specs import FEATURE_NAMES as NYZ_FEATURES, SET_NAMES as NYZ_SETS

    monkeypatch.setattr(nyz_training, "TUNE_TRIALS", 2)
    monkeypatch.setattr(nyz_training, "TUNE_DEALS", 4)
    out = tmp_path / "nyz"
    result = CliRunner().invoke(main, ["train", "nyz", "--out", str(out), "--rounds", "1", "--games", "4",
                                       "--gate-games", "2", "--strength-games", "0", "--set", "animal_supply=physical",
                                       "-q", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    card = load_weights(out / "round-01.npz", "nyz", NYZ_FEATURES, NYZ_SETS).card
    assert card["rules_set"] == {"animal_supply": "physical"} and card["rules"]["animal_supply"] == "physical"
    assert all(card["fit"][name]["train_rows"] > 0 for name in NYZ_SETS)  # solo and 2-3 player games recorded
    assert {name: card["tuning"][name]["trials"] for name in NYZ_SETS} == {name: 2 for name in NYZ_SETS}
    # nyz trains for `strong` by default: its gate and its tuning for play are strong's games
    assert card["gate"]["opponent"].startswith("strong") and card["tuning"]["multi"]["objective"].endswith("strong playing")


def test_the_gate_keeps_on_the_share_or_on_the_lower_bound():
    gate = {"share": 0.55, "low": 0.48, "high": 0.62}
    assert loop._kept(gate, "share") and not loop._kept(gate, "lower")
    assert not loop._kept({"share": 0.5, "low": 0.45, "high": 0.55}, "share")  # a tie is not a gain


def test_a_full_disk_names_the_folder_and_the_command_that_resumes(tmp_path, monkeypatch):
    """"zoosim: error: No space left on device" named neither (run's and tune's lines do)."""
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(loop, "_write_round", full)
    out = tmp_path / "t"
    result = train(out, "--jobs", "1", rounds=0)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"zoosim: error: {out}: No space left on device while writing the training"), line
    assert line.endswith(f"--out {out} --resume") and "zoosim train katz" in line, line


def test_a_resume_restores_a_deleted_best_weights_file(tmp_path):
    out = tmp_path / "t"
    assert train(out, "--jobs", "1", rounds=0).exit_code == 0
    (out / "best.npz").unlink()
    (out / "best.json").unlink()
    assert train(out, "--jobs", "1", "--resume", rounds=0).exit_code == 0
    assert (out / "best.npz").read_bytes() == (out / "round-00.npz").read_bytes()
    assert (out / "best.json").read_bytes() == (out / "round-00.json").read_bytes()


def test_progress_to_a_stderr_that_is_not_a_terminal_is_a_line_per_round(tmp_path):
    """`zoosim train ... 2> file` wrote tqdm's carriage-return frames into the file."""
    result = CliRunner().invoke(main, ["train", "katz", "--out", str(tmp_path / "t"), "--rounds", "1", "--jobs", "1", *TINY])
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr, repr(result.stderr)
    rounds = [line for line in result.stderr.splitlines() if line.startswith("train katz: round ")]
    assert rounds[:2] == ["train katz: round 0: start", "train katz: round 1: recording 12 games"], rounds
    assert len(rounds) == 3 and re.fullmatch(r"train katz: round 1: \d+\.\d% vs best, (kept|dropped)", rounds[2]), rounds


def test_playing_other_weights_than_the_trained_ones_is_refused_before_anything_is_written(tmp_path):
    """A learned `--play` records its games with the weights being trained, which are the gate
    policy's: `--play expert --gate-policy strong` (the expert's evaluation has other features)
    failed after round 0 was written. Now one line names both and what goes with the gate policy."""
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["train", "nyz", "--out", str(out), "--play", "expert",
                                       "--gate-policy", "strong"])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert all(word in line for word in ["--play", "'expert'", "'strong'", "allowed", "greedy_duel"]), line
    assert "expert," not in line.split("allowed")[1], line
    assert not out.exists()
