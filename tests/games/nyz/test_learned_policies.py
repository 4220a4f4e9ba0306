"""New York Zoo's learned evaluation (features.py) and the policies `learned` and `strong`
(search.py): the features of a position, the shipped weights, the parameters (one-line refusals),
checked-mode invariants (N-11 T18), determinism for any --jobs and backend, and the run hash
following the weights' contents."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.games.learned import card_path, load_weights
from simulator.games.nyz import GAME, step_api, training
from simulator.games.nyz.features import (
    F_EMPTY, F_FREE_HOUSES, F_HOUSE_ANIMALS, N_FEATURES, all_seat_features, position_value,
)
from simulator.games.nyz.specs import FEATURE_NAMES, S_WEIGHTS, SET_NAMES, WEIGHTS
from simulator.games.nyz import search as NS
from simulator.games.nyz.state import D_DEST, D_PLACE, SC_TURNS, SPACE_ANIMALS, SPACE_BAY
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import log_digests, refused_run

STRONG_SMALL = {"iterations": 2, "width": 3}


def seating(*policies):
    return GAME.seat_policies([(name, params) for name, params in policies])


def play(params, seats, seeds, rotations=None, check=False):
    seeds = np.asarray(seeds, dtype=np.uint64)
    rotations = np.zeros(len(seeds), dtype=np.int64) if rotations is None else np.asarray(rotations)
    return GAME.play_batch(params, seats, seeds, rotations, check=check)


def test_features_of_the_first_position():
    """Nothing is covered but the barn, no enclosure yet, the houses as dealt (N-3)."""
    params = GAME.params_model(players=2)
    position = step_api.new_game(params, seed=4)
    features = all_seat_features(position.state, position.tables)
    assert features.shape == (2, N_FEATURES) == (2, len(FEATURE_NAMES))
    for seat in range(2):
        assert features[seat, F_EMPTY] == position.tables.to_fill[seat]
        assert features[seat, F_HOUSE_ANIMALS] + features[seat, F_FREE_HOUSES] == position.tables.houses[seat]
    assert np.all(np.isfinite(features))


def test_the_shipped_weights_load_and_their_card_says_how_they_were_made():
    weights = load_weights(WEIGHTS.default_file, "nyz", FEATURE_NAMES, SET_NAMES)
    card = weights.card
    assert card["command"].startswith("python benchmarks/train_eval.py nyz")
    assert card["training_games"] > 0 and card["training_positions"] > card["training_games"]
    assert set(card["fit"]) == set(SET_NAMES)
    assert card["rules"]["players"] == 2 and card["rules_hash"]


def test_learned_with_width_one_plays_its_heuristics_games():
    """One candidate leaves nothing to evaluate: the games of greedy_duel (2 players) and of
    greedy_tuned (solo, the solo heuristic)."""
    for players, heuristic in ((2, "greedy_duel"), (1, "greedy_tuned")):
        params = GAME.params_model(players=players)
        one = ("learned", {"width": 1, "solo_width": 1})
        learned = play(params, seating(*[one] * players), range(6))
        plain = play(params, seating(*[(heuristic, {})] * players), range(6))
        assert np.array_equal(learned["score"], plain["score"])
        assert np.array_equal(learned["turns"], plain["turns"])


def test_solo_games_take_their_width_from_solo_width_not_width():
    """The shipped solo weights were tuned at 4 moves per decision, and other widths lose most
    solo games (docs/benchmarks.md), so `width` is for 2-5 players and solo has `solo_width`."""
    params = GAME.params_model(players=1)
    shipped = play(params, seating(("learned", {})), range(6))
    narrow = play(params, seating(("learned", {"width": 1})), range(6))
    assert np.array_equal(shipped["score"], narrow["score"])
    assert np.array_equal(shipped["turns"], narrow["turns"])
    heuristic = play(params, seating(("greedy_tuned", {})), range(6))
    solo_one = play(params, seating(("learned", {"solo_width": 1})), range(6))
    assert np.array_equal(solo_one["score"], heuristic["score"])
    assert not np.array_equal(shipped["score"], heuristic["score"])


@pytest.mark.parametrize("valued, decisions", [
    ("destination", (D_DEST,)), ("destination_and_placement", (D_DEST, D_PLACE))])
def test_learned_values_only_the_decisions_it_is_set_to_in_two_player_games(valued, decisions):
    """Every other decision (the placement by default, populating, animals, houses, attractions,
    breeding) is the heuristic's move; a valued decision is not always (search.valued_decision).
    The step API allocates a workspace per decision, so no turn plan plays here."""
    params = GAME.params_model(players=2)
    chosen = ("learned", {"valued": valued})
    learned = step_api.new_game(params, seating(chosen, chosen), seed=3)
    heuristic = step_api.new_game(params, seating(("greedy_duel", {}), ("greedy_duel", {})), seed=3)
    other_decisions, valued_differ = 0, {decision: 0 for decision in decisions}
    while not step_api.is_over(learned):
        move = step_api.policy_move(learned)
        if learned.decision in decisions:
            valued_differ[learned.decision] += move != step_api.policy_move(heuristic)
        else:
            assert move == step_api.policy_move(heuristic)
            other_decisions += 1
        step_api.apply(learned, move)
        step_api.apply(heuristic, move)
    assert other_decisions > 10 and valued_differ[D_DEST] > 0


@pytest.mark.parametrize("players, rules, params", [
    (2, {}, {}),
    (3, {"ai_sees_full_stacks": False}, {"temperature": 1.0}),
    (4, {"animal_supply": "physical"}, {"destinations": "best", "width": 3}),
    (2, {}, {"valued": "destination_and_placement"}),
])
def test_learned_with_its_turn_plan_plays_the_games_of_the_step_api(players, rules, params):
    """play_batch's learned follows the chosen candidate's line for the rest of its turn (the
    turn plan, search.plan_move); policy_move allocates a workspace per decision, so there the
    heuristic decides every move again. The games are the same: the plan is the heuristic's
    line, followed only where the game is where the plan expects it. A seat of another policy
    (strong) decides between the learned seats' turns and in their breeding."""
    game_params = GAME.params_model(players=players, **rules)
    seats = seating(("learned", params), ("strong", STRONG_SMALL),
                    *[("learned", params)] * (players - 2))
    seeds = [5, 6, 7]
    columns = play(game_params, seats, seeds, np.arange(3) % players)
    for game, seed in enumerate(seeds):
        position = step_api.new_game(game_params, seats, seed=seed, rotation=game % players)
        while not step_api.is_over(position):
            step_api.apply(position, step_api.policy_move(position))
        assert np.array_equal(step_api.scores(position), columns["score"][game]), (game, seed)
        assert position.scalar(SC_TURNS) == columns["turns"][game]


def test_best_of_each_kind_keeps_the_best_destination_and_the_best_of_the_other_kind():
    """search.best_of_each_kind on ranked destinations (marker x 32 + space): a bay and an
    animal space when both are among them, else the two best."""
    tab = step_api.new_game(GAME.params_model(players=2)).tables
    bays = [space for space in range(1, 26) if tab.strip_kind[space] == SPACE_BAY]
    animals = [space for space in range(1, 26) if tab.strip_kind[space] == SPACE_ANIMALS]
    ranked = np.array([bays[0], bays[1], animals[0], animals[1]] + [0] * 4, dtype=np.int64)
    assert NS.best_of_each_kind(tab, ranked, 4) == 2 and list(ranked[:2]) == [bays[0], animals[0]]
    ranked = np.array([32 + animals[2], animals[1], bays[3], 0], dtype=np.int64)
    assert NS.best_of_each_kind(tab, ranked, 3) == 2 and list(ranked[:2]) == [32 + animals[2], bays[3]]
    ranked = np.array([bays[0], bays[1], bays[2], 0], dtype=np.int64)
    assert NS.best_of_each_kind(tab, ranked, 3) == 2 and list(ranked[:2]) == [bays[0], bays[1]]
    ranked = np.array([animals[0], bays[0], 0, 0], dtype=np.int64)
    assert NS.best_of_each_kind(tab, ranked, 2) == 2 and list(ranked[:2]) == [animals[0], bays[0]]


@pytest.mark.parametrize("players", [1, 2, 3])
def test_a_finished_game_is_valued_by_its_outcome_above_or_below_every_unfinished_position(players):
    """Issue #19, strong's budget scaling: a line (strong) or a candidate's turn (learned) that
    reaches the end of the game is valued by its outcome (N-7.1 a complete board ends the game,
    N-7.2 its owner wins; solo N-8.2 the board complete within the laps). The winner's finished
    game is worth more than any position of the game before it, every other seat's less. Before,
    a finished game was worth only its margin in squares (a few), while the evaluation valued
    the winner's unfinished lead at tens of squares: a line that ran on to a win lost to one cut
    off before the end, so the larger budgets, whose lines reach the end, chose worse."""
    params = GAME.params_model(players=players)
    weights = GAME.policies["strong"].pack({})[S_WEIGHTS:]
    buffer = np.zeros(N_FEATURES)
    finished = 0
    for seed in range(8):
        heuristic = "greedy_tuned" if players == 1 else "greedy_duel"
        position = step_api.new_game(params, seating(*[(heuristic, {})] * players), seed=seed)
        earlier = []
        while not step_api.is_over(position):
            earlier.append([position_value(position.state, position.tables, seat, weights, buffer)
                            for seat in range(players)])
            step_api.apply(position, step_api.policy_move(position))
        final = [position_value(position.state, position.tables, seat, weights, buffer)
                 for seat in range(players)]
        winners = step_api.winners(position)
        if players == 1 and not winners:  # a lost solo game: below every position before
            assert final[0] < min(values[0] for values in earlier)
        for seat in winners:
            assert final[seat] > max(values[seat] for values in earlier), (seed, seat)
        for seat in set(range(players)) - set(winners):
            assert final[seat] < min(values[seat] for values in earlier), (seed, seat)
        finished += 1
    assert finished == 8


def test_learned_plays_other_games_than_its_heuristic_and_beats_random():
    params = GAME.params_model(players=2)
    learned = play(params, seating(("learned", {}), ("greedy_duel", {})), range(20))
    plain = play(params, seating(("greedy_duel", {}), ("greedy_duel", {})), range(20))
    assert not np.array_equal(learned["score"], plain["score"])
    against_random = play(params, seating(("learned", {}), ("random", {})), range(20))
    assert against_random["win"][:, 0].mean() > 0.9


def test_temperature_draws_from_the_games_stream_reproducibly():
    params = GAME.params_model(players=2)
    seats = seating(("learned", {"temperature": 2.0}), ("greedy", {}))
    first = play(params, seats, range(8))
    assert all(np.array_equal(first[key], play(params, seats, range(8))[key]) for key in first)
    cold = play(params, seating(("learned", {}), ("greedy", {})), range(8))
    assert not np.array_equal(first["score"], cold["score"])


@pytest.mark.parametrize("policy, params", [("learned", {}), ("learned", {"temperature": 1.0}),
                                            ("strong", STRONG_SMALL)])
def test_no_invariant_is_broken_in_checked_mode(policy, params):
    """N-11 T18 after every move, at every player count, with some rule variants (the 20,000-game
    figure is a benchmark: docs/benchmarks.md)."""
    for players, knobs in ((1, {}), (2, {"short_game_2p": True}), (3, {"ai_sees_full_stacks": False}),
                           (4, {"animal_supply": "physical"})):
        rules = GAME.params_model(players=players, **knobs)
        seats = seating((policy, params), *[("greedy", {})] * (players - 1))
        games = 12 if policy == "learned" else 4
        columns = play(rules, seats, range(games), np.arange(games) % players, check=True)
        assert columns["check_violations"].sum() == 0


@pytest.mark.parametrize("backend", ["threading", "loky"])
@pytest.mark.parametrize("first", [{"policy": "learned", "params": {"temperature": 0.5}},
                                   # loky's workers pack their rows themselves: the expert's
                                   # weights are registered there (learned.KeyedWeights)
                                   {"policy": "expert", "params": {"iterations": 2, "width": 2}}])
def test_logs_are_identical_for_any_number_of_jobs_and_backend(backend, first, tmp_path):
    seats = [first, {"policy": "strong", "params": STRONG_SMALL}]
    plan = build_plan(parse_experiment({"name": "learned_jobs", "seed": 3, "games": 8, "chunk_games": 2,
                                        "studies": [{"game": "nyz", "rules": {"players": 2}, "seats": seats}]}))
    run_plan(plan, tmp_path / "one", "", jobs=1, progress=False)
    run_plan(plan, tmp_path / "two", "", jobs=2, backend=backend, progress=False)
    assert log_digests(tmp_path / "one") == log_digests(tmp_path / "two")
    assert len(log_digests(tmp_path / "one")) == 4


def experiment_with(weights):
    return parse_experiment({"name": "w", "seed": 1, "games": 4, "studies": [
        {"game": "nyz", "rules": {"players": 2},
         "seats": [{"policy": "learned", "params": {"weights": str(weights)}}, "greedy"]}]})


def test_the_run_hash_and_seeds_follow_the_weights_contents(tmp_path):
    copy = tmp_path / "copy.npz"
    shutil.copy(WEIGHTS.default_file, copy)
    shutil.copy(card_path(WEIGHTS.default_file), card_path(copy))
    shipped = build_plan(experiment_with("default"))
    same = build_plan(experiment_with(copy))
    assert same.cells[0].seed_entropy == shipped.cells[0].seed_entropy  # the same contents
    arrays = dict(np.load(copy))
    arrays["weights"] = arrays["weights"] * 2
    np.savez(copy, **arrays)
    changed = build_plan(experiment_with(copy))
    assert changed.cells[0].seed_entropy != same.cells[0].seed_entropy
    assert changed.run_hash != same.run_hash


LEARNED_REFUSALS = [
    ("learned", {"temperature": -1}, ["temperature", "from 0 to 1,000,000"]),
    ("learned", {"temperature": math.nan}, ["temperature", "finite"]),
    ("learned", {"width": 0}, ["width", "whole number from 1"]),
    ("learned", {"heuristic": "greedy"}, ["heuristic", "greedy_tuned, greedy_duel"]),
    ("learned", {"solo_heuristic": "random"}, ["solo_heuristic", "greedy_tuned, greedy_duel"]),
    ("learned", {"weights": 3}, ["weights", "path of a nyz weights file"]),
    ("learned", {"weights": "missing.npz"}, ["weights", "missing.npz", "cannot read"]),
    # the expert (issue #39): strong's parameters, its own weights file
    ("expert", {"iterations": 0}, ["iterations"]),
    ("expert", {"width": 0}, ["width", "whole number from 1"]),
    ("expert", {"searched": "placement"}, ["searched", "every, turn_start"]),
    ("expert", {"rollout_depth_3p": -1}, ["rollout_depth_3p"]),
    ("strong", {"rollout_depth_3p": 1.5}, ["rollout_depth_3p", "whole number"]),
    ("expert", {"heuristic": "greedy"}, ["heuristic", "greedy_tuned, greedy_duel"]),
    ("expert", {"weights": 3}, ["weights", "path of a nyz weights file"]),
    ("expert", {"weights": "missing.npz"}, ["weights", "missing.npz", "cannot read"]),
    ("expert", {"weights": WEIGHTS.default_file}, ["weights", "features", "retrain"]),  # learned's file
]


@pytest.mark.parametrize("policy, params, words", LEARNED_REFUSALS)
def test_impossible_learned_parameters_are_refused_in_one_line(policy, params, words):
    with pytest.raises(ZoosimError) as error:
        seating((policy, params), ("greedy", {}))
    assert "\n" not in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_a_weights_file_of_another_game_is_refused_in_one_line_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "katz.npz"
    shutil.copy(WEIGHTS.default_file, other)
    card = json.loads(card_path(WEIGHTS.default_file).read_text())
    card_path(other).write_text(json.dumps({**card, "game": "katz"}))
    folder = tmp_path / "run"
    folder.mkdir()
    path, lines = refused_run(folder, "games: 10\nstudies: [{game: nyz, rules: {players: 2}, seats: "
                                      f"[{{policy: learned, params: {{weights: {other}}}}}, greedy]}}]\n")
    assert len(lines) == 1 and "game" in lines[0] and "katz" in lines[0] and str(path) in lines[0], lines


def test_rules_lists_the_learned_policies_with_their_parameters():
    result = CliRunner().invoke(main, ["rules", "nyz"])
    assert result.exit_code == 0
    for words in ("learned: ", "strong: ", "temperature = 0", "weights = default (the shipped file)"):
        assert words in result.output


def test_training_records_every_seats_rows_reproducibly_into_its_own_set():
    """The training contract's record(): 2 players give multi rows only, per seat its features
    minus the other's, a target the margin; the same seeds give the same arrays."""
    params = GAME.params_model(players=2)
    seats = seating(("greedy_duel", {}), ("greedy", {}))
    data = training.record(params, seats, [5, 6], [0, 1])
    again = training.record(params, seats, [5, 6], [0, 1])
    rows, targets = data["multi"]
    assert rows.shape[1] == N_FEATURES and len(rows) == len(targets) > 0
    assert len(data["solo"][0]) == len(data["solo"][1]) == 0
    assert all(np.array_equal(a, b) for name in SET_NAMES for a, b in zip(data[name], again[name]))
    empty = play(params, seats, [5])["empty_squares"][0]  # rows: game 5's seat 0 first
    assert targets[0] == empty[1] - empty[0]
    with pytest.raises(ZoosimError, match="explore"):
        training.record(params, seats, [5], [0], explore=0.1)


def test_training_fit_recovers_known_weights_of_a_synthetic_set():
    """fit() on rows whose targets are an exact linear function: the weights come back (solo with
    its intercept; multi's intercept is 0 by construction, the margin cancels it)."""
    rng = np.random.default_rng(0)
    truth = rng.normal(size=(len(SET_NAMES), N_FEATURES))
    data = {}
    for index, name in enumerate(SET_NAMES):
        rows = rng.normal(size=(400, N_FEATURES))
        intercept = 3.0 if name == "solo" else 0.0
        data[name] = (rows, rows @ truth[index] + intercept)
    weights, intercepts, info = training.fit(data, seed=1, alpha=1e-9)
    assert np.allclose(weights, truth, atol=1e-6)
    assert np.allclose(intercepts, [3.0 if name == "solo" else 0.0 for name in SET_NAMES], atol=1e-6)
    assert set(info) == set(SET_NAMES) and info["multi"]["holdout_r2"] > 0.999
