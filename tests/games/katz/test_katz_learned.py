"""Katz learned players (features.py, search.py's `learned` and `strong`, issue #19 items 2-3):
the features of a scripted position, the weights reaching the kernels, the policies' strength
ordering, checked-mode invariants (T17), identical games for any jobs and backend, the shipped
weights' card, training reproducible from a seed, and the refusal of impossible parameters.
The no-peeking test of both policies is test_katz_params_policies_render.test_policies_never_peek."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from katz_helpers import card, make_params, scripted, seeds
from test_katz_search import assert_identical_for_jobs, win_share
from simulator.errors import ZoosimError
from simulator.games.katz import GAME, play
from simulator.games.katz import features as F
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz import training
from simulator.games.katz.specs import (
    FEATURE_NAMES, L_WEIGHTS, SET_NAMES, S_WEIGHTS, WEIGHTS_FILE,
)
from simulator.games.learned import fit_visit_logits, load_weights, save_weights
from tests_support import SEARCH_PARAMETER_REFUSALS, refused_run

SMALL = {"iterations": 6}

# Every row shows a cat, so cats fit no face-down cell; giraffes fit everywhere but row 0.
STUCK_CATS_GRID = """
r0: Gi6 Ca5 ##  ##  ##  ##  ##
r1: ##  ##  Ca6 ##  ##  ##  ##
r2: ##  ##  ##  Ca7 ##  ##  ##
"""


def position_row(state, seat=0):
    row = np.zeros(F.FEATURES)
    hand = state.hands[seat]
    hand_len = state.seats[seat, S.SEAT_HAND_LEN]
    stats = np.zeros((state.rules[S.P_KINDS], R.STAT_FIELDS), dtype=np.int64)
    R.fill_kind_stats(state.rules, state.cards, hand, hand_len, stats)
    F.fill_position(state.rules, state.cards, state.scalars, state.cells, state.lines, hand,
                    hand_len, state.seats, seat, stats, row)
    return dict(zip(FEATURE_NAMES, row.tolist()))


def test_the_feature_constants_follow_the_names_the_weights_file_carries():
    constants = {name: getattr(F, "F_" + name.upper()) for name in FEATURE_NAMES}
    assert list(constants.values()) == list(range(F.FEATURES)) == list(range(len(FEATURE_NAMES)))
    assert F.FIRST_MOVE_FEATURE == FEATURE_NAMES.index("move_worth")
    assert [F.SET_POSITION, F.SET_MOVE] == [SET_NAMES.index("position"), SET_NAMES.index("move")]


def test_position_features_of_a_scripted_hand():
    """Hand Gi5 Gi2 Ca3 Ca1 Mo4 Li7 (K-4.2: 5 - 2 - 3 - 1 + 4 + 7 = 10): the cats cost 4 and fit
    no face-down cell (stuck), the second giraffe costs 2 and fits some cell (dumpable)."""
    state = scripted(STUCK_CATS_GRID, "Gi5 Gi2 Ca3 Ca1 Mo4 Li7", other_hands=["Pd1 Pd2", "", "", ""])
    row = position_row(state)
    face_down = 21 - 4
    assert row["hand_score"] == 10 and row["hand_cards"] == 6
    assert row["cats"] == 2 and row["cat_points"] == 4 and row["duplicate_points"] == 2
    assert row["stuck"] == 4 and row["dumpable"] == 2
    assert row["own_draws_left"] == pytest.approx(face_down / 5)
    assert row["dumpable_by_turns"] == pytest.approx(2 * 3.4 / 4.4)
    assert row["opponent_hand"] == pytest.approx(2 / 4)
    assert row["skip_pending"] == 0 and row["replace_gain"] == 0
    assert all(row[name] == 0 for name in FEATURE_NAMES[F.FIRST_MOVE_FEATURE:])


def test_move_features_of_a_placement_that_earns_an_extra_turn():
    """Placing Li7 (K-3.5.1: a 7 earns an extra turn) from the hand of the scripted position."""
    state = scripted(STUCK_CATS_GRID, "Gi5 Gi2 Ca3 Ca1 Mo4 Li7")
    row = np.zeros(F.FEATURES)
    move = R.encode_move(S.MOVE_PLACE, 4, card(state, "Li7"))
    F.fill_move(state.rules, state.cards, state.scalars, state.lines, move, -7.0, row)
    named = dict(zip(FEATURE_NAMES, row.tolist()))
    assert named["move_worth"] == -7 and named["extra_turn"] == 1 and named["placed_value"] == 7
    assert named["skip"] == 0 and named["placed_penalty"] == 0 and named["draw"] == 0


def test_the_evaluation_reads_each_set_from_its_slots():
    weights = np.zeros(3 + 2 * (F.FEATURES + 1))
    row = np.arange(F.FEATURES, dtype=np.float64)
    weights[3] = 1.5  # position intercept
    weights[3 + 1 + F.F_HAND_SCORE] = 2.0
    weights[3 + F.FEATURES + 1] = -1.0  # move intercept
    weights[3 + F.FEATURES + 2 + F.F_MOVE_WORTH] = 0.5
    assert F.evaluate(weights, 3, F.SET_POSITION, row) == 1.5 + 2.0 * F.F_HAND_SCORE
    assert F.evaluate(weights, 3, F.SET_MOVE, row) == -1.0 + 0.5 * F.F_MOVE_WORTH


def test_the_policies_rows_carry_the_shipped_weights():
    shipped = load_weights(WEIGHTS_FILE, "katz", FEATURE_NAMES, SET_NAMES)
    width = len(SET_NAMES) * (len(FEATURE_NAMES) + 1)
    seating = GAME.seat_policies([("learned", {"temperature": 0.5}), ("strong", {})])
    learned_row, strong_row = seating.policy_params
    assert learned_row[0] == 0.5
    assert np.array_equal(learned_row[L_WEIGHTS:L_WEIGHTS + width], shipped.vector())
    assert np.array_equal(strong_row[S_WEIGHTS:S_WEIGHTS + width], shipped.vector())


def test_the_shipped_card_says_how_the_weights_were_made():
    card_data = json.loads(WEIGHTS_FILE.with_suffix(".json").read_text())
    assert card_data["game"] == "katz" and card_data["features"] == list(FEATURE_NAMES)
    assert card_data["command"].startswith("python benchmarks/train_eval.py katz")
    assert card_data["training_games"] > 0 and card_data["fit"]["move"]["holdout_r2"] > 0.1


def test_recording_is_deterministic_and_its_chunks_join_into_the_whole():
    """training.record over a split of the seeds, joined in order, is the record of all of
    them (what makes benchmarks/train_eval.py katz's file the same for any --jobs)."""
    params = make_params(players=3)
    seating = GAME.seat_policies([("greedy_tuned", {})] * 3)
    game_seeds, rotations = seeds(6, 41), np.arange(6) % 3
    whole = training.record(params, seating, game_seeds, rotations, explore=0.2)
    first = training.record(params, seating, game_seeds[:2], rotations[:2], explore=0.2)
    rest = training.record(params, seating, game_seeds[2:], rotations[2:], explore=0.2)
    assert list(whole) == [*SET_NAMES, training.VISITS]
    for name in whole:
        for array, head, tail in zip(whole[name], first[name], rest[name]):
            assert np.array_equal(array, np.concatenate([head, tail]))
    assert len(whole[training.VISITS][0]) == 0  # a heuristic's games: no search, no visits
    positions, targets, deciders = whole["position"]
    moves, same_targets, same_deciders = whole["move"]
    assert positions.shape == moves.shape and positions.shape[1] == F.FEATURES
    assert np.array_equal(targets, same_targets) and len(targets) > 6 * 10
    assert np.array_equal(deciders, same_deciders) and set(deciders.tolist()) == {0, 1, 2}
    assert np.all(positions[:, F.FIRST_MOVE_FEATURE:] == 0)
    assert np.array_equal(positions[:, :F.FIRST_MOVE_FEATURE], moves[:, :F.FIRST_MOVE_FEATURE])
    assert np.any(moves[:, F.F_DRAW] == 1) and np.any(moves[:, F.F_MOVE_WORTH] != 0)


@pytest.mark.parametrize("policy", [("greedy_tuned", {}), ("strong", SMALL)])
def test_recorded_games_without_exploration_are_play_batchs_games(policy):
    """With explore 0 every recorded game is the game play_batch plays for its seed, search
    players included: each row's target is its seat's final score there."""
    params = make_params(players=2)
    seating = GAME.seat_policies([policy, ("greedy", {})])
    game_seeds, rotations = seeds(3, 77), np.arange(3) % 2
    scores = play.play_batch(params, seating, game_seeds, rotations)["score"]
    for game_index in range(3):
        data = training.record(params, seating, game_seeds[game_index:game_index + 1],
                               rotations[game_index:game_index + 1])
        rows, targets, deciders = data["move"]
        assert len(rows) >= 10 and set(deciders.tolist()) == {0, 1}
        assert np.array_equal(targets, scores[game_index, deciders].astype(float))


def test_strongs_games_are_recorded_deterministically():
    """Expert iteration records `strong`'s games (search with its own stream per decision):
    the same seeds give the same data, and each seat's rows of a game share its final score."""
    params = make_params(players=3)
    seating = GAME.seat_policies([("strong", SMALL), ("learned", {}), ("greedy_tuned", {})])
    game_seeds, rotations = seeds(2, 5), np.arange(2) % 3
    once = training.record(params, seating, game_seeds, rotations, explore=0.1)
    again = training.record(params, seating, game_seeds, rotations, explore=0.1)
    for name in SET_NAMES:
        for first, second in zip(once[name], again[name]):
            assert np.array_equal(first, second)
    single = training.record(params, seating, game_seeds[:1], rotations[:1], explore=0.1)
    rows, targets, deciders = single["move"]
    assert set(deciders.tolist()) == {0, 1, 2}
    for seat in range(3):
        assert len(set(targets[deciders == seat].tolist())) == 1


def test_search_decisions_record_the_roots_visit_shares():
    """Expert iteration's move priors (issue #23): every decision a tree search made among two
    or more moves adds one visit row per legal move (the decision's position with that move)
    and the move's share of the root's visits; the move the search played is a most visited one.
    Random exploring decisions and the heuristic's decisions add none."""
    params = make_params(players=2)
    seating = GAME.seat_policies([("strong", {"iterations": 24}), ("greedy_tuned", {})])
    data = training.record(params, seating, seeds(2, 61), np.arange(2) % 2, explore=0.1)
    rows, shares, starts = data[training.VISITS]
    decisions = np.cumsum(starts) - 1
    assert starts[0] and decisions[-1] + 1 >= 20
    played = {tuple(row) for row in data["move"][0]}
    for decision in range(decisions[-1] + 1):
        mine = decisions == decision
        assert mine.sum() >= 2 and np.isclose(shares[mine].sum(), 1.0) and np.all(shares[mine] >= 0)
        position = rows[mine][:, :F.FIRST_MOVE_FEATURE]
        assert np.all(position == position[0])  # one position, its moves
        most = rows[mine][shares[mine] == shares[mine].max()]
        assert any(tuple(row) in played for row in most)
    greedy_only = training.record(params, GAME.seat_policies([("greedy_tuned", {})] * 2), seeds(2, 61),
                                  np.arange(2) % 2)
    assert len(greedy_only[training.VISITS][0]) == 0


def test_visit_logits_recover_the_softmax_that_made_the_shares():
    """learned.fit_visit_logits: shares made by a softmax of known move values over `scale` give
    those values back, and the values rank each decision's most visited move first."""
    rng = np.random.default_rng(3)
    truth, scale = np.array([2.0, -1.0, 0.5]), 4.0
    rows, shares, starts = [], [], []
    for _ in range(300):
        moves = rng.normal(size=(int(rng.integers(2, 7)), 3))
        logits = moves @ truth / scale
        rows.append(moves)
        shares.append(np.exp(logits) / np.exp(logits).sum())
        starts.append(np.arange(len(moves)) == 0)
    fit = fit_visit_logits(np.concatenate(rows), np.concatenate(shares), np.concatenate(starts), scale,
                           alpha=1e-6, seed=1)
    assert np.allclose(fit.coefficients, truth, atol=0.01) and fit.intercept == 0.0
    assert fit.quality["holdout_top_move_agreement"] == 1.0 and fit.quality["holdout_decisions"] == 60
    json.dumps(fit.quality)


def test_the_move_sets_priors_come_from_the_visits_and_its_level_from_the_outcomes():
    """training.fit with visit rows: the move set's move weights are the visit fit's, its
    intercept and position weights the ridge fit of the final score the move part leaves; the
    position set is fitted on the outcomes as without visits."""
    rng = np.random.default_rng(4)
    first = F.FIRST_MOVE_FEATURE
    level, priors = np.linspace(-1, 1, first), np.linspace(0.5, -0.5, F.FEATURES - first)
    rows = rng.normal(size=(2000, F.FEATURES))
    targets = rows[:, :first] @ level + rows[:, first:] @ priors + 2.0
    visit_rows = rng.normal(size=(1200, F.FEATURES))
    starts = np.arange(1200) % 4 == 0
    logits = (visit_rows[:, first:] @ priors / training.TRAINING_PRIOR_SCALE).reshape(-1, 4)
    shares = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).reshape(-1)
    data = {"position": (rows, targets), "move": (rows, targets), training.VISITS: (visit_rows, shares, starts)}
    weights, intercepts, fits = training.fit(data, seed=2)
    assert np.allclose(weights[1, first:], priors, atol=0.05)
    assert np.allclose(weights[1, :first], level, atol=0.05) and abs(intercepts[1] - 2.0) < 0.05
    assert fits["move"]["move_priors"]["holdout_top_move_agreement"] > 0.9
    without = training.fit({name: data[name] for name in SET_NAMES}, seed=2)
    assert np.array_equal(weights[0], without[0][0]) and "move_priors" not in without[2]["move"]


def test_fit_recovers_a_linear_target_per_set():
    rng = np.random.default_rng(5)
    rows = rng.normal(size=(400, F.FEATURES))
    truth = np.arange(F.FEATURES) / 10.0
    data = {"position": (rows, rows @ truth + 3.0), "move": (rows, rows @ -truth - 1.0)}
    weights, intercepts, fits = training.fit(data, seed=2)
    assert weights.shape == (len(SET_NAMES), F.FEATURES) and intercepts.shape == (len(SET_NAMES),)
    assert np.allclose(weights[0], truth, atol=0.02) and np.allclose(weights[1], -truth, atol=0.02)
    assert np.allclose(intercepts, [3.0, -1.0], atol=0.02)
    assert set(fits) == set(SET_NAMES) and fits["move"]["holdout_r2"] > 0.99
    json.dumps(fits)  # the card's fit entry


def test_learned_beats_random_and_a_cold_apprentice_beats_a_hot_one():
    assert win_share(["learned", "random"], 40) > 0.8
    cold_hot = play.play_batch(make_params(players=2), GAME.seat_policies(
        [("learned", {}), ("learned", {"temperature": 20.0})]), np.repeat(seeds(150, 9000), 2),
        np.tile(np.arange(2), 150).astype(np.int8))
    seat = np.tile(np.arange(2), 150)
    wins = cold_hot["win"][np.arange(300), seat] / cold_hot["win"].sum(axis=1)
    assert wins.mean() > 0.6


def test_strong_beats_greedy_with_its_shipped_budget():
    """(Against its own apprentice `strong` is level: 48.7% at 12 iterations, 50.0% at 24 over
    1,000 deals, docs/benchmarks.md; against the heuristics it gains.)"""
    assert win_share(["strong", "greedy"], 100) > 0.55


@pytest.mark.parametrize("policy, policy_params", [("learned", {}), ("learned", {"temperature": 2.0}),
                                                   ("strong", SMALL)])
def test_learned_policies_break_no_invariant_in_checked_mode(policy, policy_params):
    """T17 at 2-5 players, with the blocked-cell exception and several rounds in some games
    (modest counts here; the 20,000 games of the issue are run by hand, see the report)."""
    games = 0
    count = 40 if policy == "strong" else 150
    for players, knobs in ((2, {}), (3, {"rounds": 2}), (4, {"blocked_cell_rule": "either"}),
                           (5, {"keepers": None})):
        params = make_params(players=players, **knobs)
        seating = GAME.seat_policies([(policy, policy_params), ("greedy", {})]
                                     + [("random", {})] * (players - 2))
        columns = play.play_batch(params, seating, seeds(count, 300), np.arange(count) % players,
                                  check=True)
        assert columns["check_violations"].sum() == 0
        games += count
    assert games == 4 * count


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_learned_games_are_identical_for_any_number_of_jobs_and_backend(backend, tmp_path):
    seats = [{"policy": "strong", "params": SMALL}, {"policy": "learned", "params": {"temperature": 1.0}},
             "learned"]
    assert_identical_for_jobs(seats, backend, tmp_path)


@pytest.mark.parametrize("policy, params, words", [
    ("learned", {"temperature": -1}, ["temperature", "from 0 to 1,000,000"]),
    ("learned", {"temperature": math.nan}, ["temperature", "finite"]),
    ("learned", {"weights": "missing.npz"}, ["weights", "missing.npz"]),
    ("learned", {"weights": 3}, ["weights", "'default' or the path"]),
    ("strong", {"weights": "missing.txt"}, ["weights", "NAME.npz"]),
    ("strong", {"prior_weight": -1}, ["prior_weight", "from 0 to 1,000,000"]),
] + [("strong", params, words) for params, words in SEARCH_PARAMETER_REFUSALS])
def test_impossible_learned_parameters_are_refused(policy, params, words):
    with pytest.raises(ZoosimError) as error:
        GAME.seat_policies([(policy, params), ("greedy", {})])
    for word in words:
        assert word in str(error.value)


def test_weights_of_another_game_are_refused(tmp_path):
    path = tmp_path / "other.npz"
    shipped = load_weights(WEIGHTS_FILE, "katz", FEATURE_NAMES, SET_NAMES)
    save_weights(path, shipped.weights, shipped.intercept, {**shipped.card, "game": "nyz"})
    with pytest.raises(ZoosimError, match="weights of game 'nyz'"):
        GAME.seat_policies([("learned", {"weights": str(path)}), ("greedy", {})])


def test_the_cli_refuses_a_bad_weights_file_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, lines = refused_run(tmp_path, "games: 10\nstudies: [{game: katz, rules: {players: 2}, seats: "
                                        "[{policy: strong, params: {weights: nothing.npz}}, greedy]}]\n")
    assert len(lines) == 1 and "weights" in lines[0] and str(path) in lines[0], lines
