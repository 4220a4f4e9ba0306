"""New York Zoo's `expert` (issue #39): its evaluation (features.py, "The expert's evaluation":
board shapes and enclosure states), its weights reaching the kernels by key (learned.KeyedWeights),
checked-mode invariants (N-11 T18) and its training (training.py, "The expert's training"). Its
parameters' one-line refusals and its determinism for any --jobs and backend are in
test_learned_policies.py, beside learned's."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.errors import ZoosimError
from simulator.games.learned import load_weights, registered
from simulator.games.nyz import GAME, step_api, training
from simulator.games.nyz.features import (
    F_EMPTY, FIRST_ENCLOSURE_STATE, FIRST_SHAPE, N_EXPERT_FEATURES, RING, SHAPE_CLASS,
    all_seat_features,
)
from simulator.games.nyz.specs import (
    EXPERT_FEATURE_NAMES, EXPERT_WEIGHTS, S_ROLLOUT_DEPTH_3P, S_WEIGHTS, SET_NAMES, SHAPE_CLASSES,
)
from simulator.games.nyz.state import D_DEST, SC_DECISION
from nyz_helpers import play, seating

EXPERT_SMALL = {"iterations": 2, "width": 2}


def pattern(*open_neighbours):
    """The neighbour pattern with these ring places (features.RING) open."""
    return sum(1 << RING.index(offset) for offset in open_neighbours)


def test_the_shape_classes_are_the_51_orbits_under_rotation_and_reflection():
    assert SHAPE_CLASS.max() + 1 == SHAPE_CLASSES == 51
    left, up, right, down = (0, -1), (-1, 0), (0, 1), (1, 0)
    # a corridor end opening left, up, right or down is one class; a corridor is another
    assert len({SHAPE_CLASS[pattern(side)] for side in (left, up, right, down)}) == 1
    assert SHAPE_CLASS[pattern(left, right)] == SHAPE_CLASS[pattern(up, down)]
    assert SHAPE_CLASS[pattern(left, right)] != SHAPE_CLASS[pattern(left)]
    # a corner open to the upper left mirrors one open to the upper right; a hole, open floor
    assert SHAPE_CLASS[pattern(left, up, (-1, -1))] == SHAPE_CLASS[pattern(right, up, (-1, 1))]
    assert len({SHAPE_CLASS[0], SHAPE_CLASS[255], SHAPE_CLASS[pattern(left)]}) == 3


@pytest.mark.parametrize("players", [1, 2, 4])
def test_expert_features_extend_the_learned_ones_and_count_every_empty_square_once(players):
    """The first 14 are features.seat_features'; the shape counts add up to the empty squares;
    unfilled enclosures are counted once each by (capacity, animals)."""
    params = GAME.params_model(players=players)
    position = step_api.new_game(params, seating(*[("greedy_duel", {})] * players), seed=3, stop_at_forced=False)
    for _ in range(60):  # some turns in: tiles and animals on the boards
        if step_api.is_over(position):
            break
        step_api.apply(position, step_api.legal_moves(position)[0])
    expert = all_seat_features(position.state, position.tables, N_EXPERT_FEATURES)
    learned = all_seat_features(position.state, position.tables)
    assert expert.shape == (players, N_EXPERT_FEATURES) == (players, len(EXPERT_FEATURE_NAMES))
    assert np.array_equal(expert[:, :learned.shape[1]], learned)
    shapes = expert[:, FIRST_SHAPE:FIRST_ENCLOSURE_STATE].sum(axis=1)
    assert np.array_equal(shapes, expert[:, F_EMPTY])
    state = position.state
    from simulator.games.nyz.state import E_CAPACITY, E_COUNT, P_ENCLOSURES
    for seat in range(players):
        unfilled = sum(state.enc[seat, e, E_COUNT] < state.enc[seat, e, E_CAPACITY]
                       for e in range(state.seat[seat, P_ENCLOSURES]))
        assert expert[seat, FIRST_ENCLOSURE_STATE:].sum() == unfilled


def reference_shape_counts(state, tables, seat):
    """The shape counts of the seat's board, square by square in Python (features.RING)."""
    width, height = int(tables.width[seat]), int(tables.height[seat])
    covered = int(state.grid[seat, 0]) | int(state.grid[seat, 1]) << 64

    def empty(row, column):
        return 0 <= row < height and 0 <= column < width and not covered >> (row * width + column) & 1

    counts = np.zeros(SHAPE_CLASSES)
    for row in range(height):
        for column in range(width):
            if empty(row, column):
                pattern = sum(empty(row + dr, column + dc) << k for k, (dr, dc) in enumerate(RING))
                counts[SHAPE_CLASS[pattern]] += 1
    return counts


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_the_shape_counts_are_the_neighbour_patterns_of_every_empty_square(players):
    """The kernel's bitboard count of each empty square's neighbour class agrees with a square by
    square count over a whole game, on every board size."""
    params = GAME.params_model(players=players)
    position = step_api.new_game(params, seating(*[("greedy_duel", {})] * players), seed=11, stop_at_forced=False)
    compared = 0
    while not step_api.is_over(position):
        if position.state.sc[SC_DECISION] == D_DEST:  # once a turn: the boards as they fill up
            kernel = all_seat_features(position.state, position.tables, N_EXPERT_FEATURES)
            for seat in range(players):
                assert np.array_equal(kernel[seat, FIRST_SHAPE:FIRST_ENCLOSURE_STATE],
                                      reference_shape_counts(position.state, position.tables, seat))
                compared += 1
        step_api.apply(position, step_api.legal_moves(position)[0])
    assert compared > 20 * players


def test_the_row_holds_the_weights_files_key_and_the_vector_is_registered():
    row = GAME.policies["expert"].pack({})
    vector = registered(row[S_WEIGHTS])
    shipped = load_weights(EXPERT_WEIGHTS.default_file, "nyz", EXPERT_FEATURE_NAMES, SET_NAMES)
    assert np.array_equal(vector, shipped.vector()) and len(vector) == 2 * (N_EXPERT_FEATURES + 1)
    assert not row[S_WEIGHTS + 1:].any()
    with pytest.raises(ZoosimError) as error:
        registered(row[S_WEIGHTS] + 1.0)
    assert "weights" in str(error.value) and "\n" not in str(error.value)


def test_expert_with_width_one_plays_its_heuristics_games():
    params = GAME.params_model(players=2)
    seeds, rotations = range(6), np.arange(6) % 2
    expert = play(params, seating(("expert", {"width": 1}), ("greedy", {})), seeds, rotations)
    heuristic = play(params, seating(("greedy_duel", {}), ("greedy", {})), seeds, rotations)
    assert np.array_equal(expert["score"], heuristic["score"])
    assert np.array_equal(expert["turns"], heuristic["turns"])


def test_expert_plays_other_games_than_strong_and_its_evaluation_decides():
    """The same search as strong: what differs is the evaluation and the decisions searched."""
    params = GAME.params_model(players=2)
    seeds = range(6)
    expert = play(params, seating(("expert", EXPERT_SMALL), ("greedy_duel", {})), seeds)
    strong = play(params, seating(("strong", {**EXPERT_SMALL, "searched": "every"}), ("greedy_duel", {})), seeds)
    assert not np.array_equal(expert["score"], strong["score"])


def test_rollout_depth_3p_sets_the_line_length_at_3_to_5_players_and_rollout_depth_at_2():
    """strong_move extends a line by rollout_depth turns at 2 players, rollout_depth_3p at 3-5."""
    seeds = range(6)
    for players in (3, 5):
        params = GAME.params_model(players=players)
        rotations = np.arange(6) % players

        def games(knobs):
            seats = seating(("expert", {**EXPERT_SMALL, **knobs}), *[("greedy_duel", {})] * (players - 1))
            return play(params, seats, seeds, rotations)["score"]

        two = games({"rollout_depth": 1, "rollout_depth_3p": 2})
        assert np.array_equal(two, games({"rollout_depth": 3, "rollout_depth_3p": 2}))
        assert not np.array_equal(two, games({"rollout_depth": 1, "rollout_depth_3p": 1}))
    params = GAME.params_model(players=2)
    seats = [seating(("expert", {**EXPERT_SMALL, **knobs}), ("greedy_duel", {}))
             for knobs in ({"rollout_depth_3p": 1}, {"rollout_depth_3p": 3}, {"rollout_depth": 2})]
    assert np.array_equal(play(params, seats[0], seeds)["score"], play(params, seats[1], seeds)["score"])
    assert not np.array_equal(play(params, seats[0], seeds)["score"], play(params, seats[2], seeds)["score"])


def test_the_expert_looks_two_turns_further_per_extension_at_3_to_5_players_and_strong_one():
    """The defaults measured best (docs/benchmarks.md, "New York Zoo `expert`"): at 2 players one
    turn for both (two cost the expert a third of its speed there)."""
    expert, strong = GAME.policies["expert"], GAME.policies["strong"]
    assert expert.params["rollout_depth_3p"] == 2.0 and expert.pack({})[S_ROLLOUT_DEPTH_3P] == 2.0
    assert expert.params["rollout_depth"] == strong.params["rollout_depth"] == strong.params["rollout_depth_3p"] == 1.0


@pytest.mark.parametrize("players, knobs", [(1, {}), (2, {"short_game_2p": True}),
                                            (3, {"ai_sees_full_stacks": False}),
                                            (5, {"animal_supply": "physical"})])
def test_no_invariant_is_broken_in_checked_mode(players, knobs):
    """N-11 T18 after every move, at 1-5 players, with some rule variants."""
    rules = GAME.params_model(players=players, **knobs)
    seats = seating(("expert", EXPERT_SMALL), *[("greedy", {})] * (players - 1))
    columns = play(rules, seats, range(3), np.arange(3) % players, check=True)
    assert columns["check_violations"].sum() == 0


def test_the_expert_declares_no_climb():
    """A ladder cannot climb it by doubling its budget: 16 iterations lost to 4 (docs/benchmarks.md)."""
    expert, strong = GAME.policies["expert"], GAME.policies["strong"]
    assert expert.climb is None and strong.climb.step(strong, {})[0] == {"iterations": 32.0}


def test_rules_lists_the_expert_with_its_parameters():
    result = CliRunner().invoke(main, ["rules", "nyz"])
    assert result.exit_code == 0
    assert "expert: " in result.output and "searched = every" in result.output


def test_the_shipped_expert_weights_card_says_how_they_were_made():
    card = load_weights(EXPERT_WEIGHTS.default_file, "nyz", EXPERT_FEATURE_NAMES, SET_NAMES).card
    assert card["command"].startswith("zoosim train nyz ")
    for words in ("--play expert", "--gate-policy expert", "--start zero", "--seed 1"):
        assert words in card["command"]
    assert card["seed"] is not None and card["training_games"] > 0
    assert set(card["training"]["players"]) == {"1", "2", "3", "4", "5"}


def test_training_records_expert_rows_when_the_seats_play_expert_and_does_not_tune_them():
    params = GAME.params_model(players=2)
    seats = seating(*[("expert", EXPERT_SMALL)] * 2)
    data = training.record(params, seats, [5], [0])
    rows, targets = data["multi"]
    assert rows.shape[1] == N_EXPERT_FEATURES and len(rows) == len(targets) > 0
    assert np.allclose(rows.reshape(2, -1, N_EXPERT_FEATURES).sum(axis=0), 0.0)  # each seat minus the other
    weights = np.arange(2 * N_EXPERT_FEATURES, dtype=float).reshape(2, -1)
    tuned, record = training.tune(weights, np.zeros(2), {}, seed=1)
    assert np.array_equal(tuned, weights) and set(record) == set(SET_NAMES)


@pytest.mark.parametrize("given", ["0=1", "2=0", "two=0.5", "3"])
def test_train_refuses_impossible_player_shares_in_one_line(given, tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["train", "nyz", "--players", given, "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--players" in lines[0] and given in lines[0], result.output
