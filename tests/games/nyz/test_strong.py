"""New York Zoo `strong` (simulator/games/nyz/search.py's strong_move: sequential halving at the
root over lines valued by the learned evaluation): its properties (width 1 plays the heuristic's
games; `searched: turn_start` leaves every decision but the destination to the heuristic; hidden
tiles are never read; a budget past `horizon_iterations` averages lines of the horizon's
length), strength against its heuristic (2 players and solo), checked-mode invariants (N-11
T18), identical logs for any --jobs, and one-line refusals of impossible parameters."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from nyz_helpers import play, seating
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.games.nyz import GAME, step_api
from simulator.games.nyz.state import D_DEST, SC_DECISION
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import log_digests, refused_run

SMALL = {"iterations": 4, "width": 3}


@pytest.mark.parametrize("searched", ["every", "turn_start"])
def test_width_one_plays_the_heuristics_games(searched):
    """One move per decision leaves nothing to halve: the games are the heuristic's (greedy_duel
    with more players, solo greedy_tuned), whatever the budget."""
    for players, heuristic in ((1, "greedy_tuned"), (2, "greedy_duel")):
        params = GAME.params_model(players=players)
        others = [("greedy", {})] * (players - 1)
        strong = ("strong", {"width": 1, "iterations": 5, "searched": searched})
        searched_games = play(params, seating(strong, *others), range(5))
        plain = play(params, seating((heuristic, {}), *others), range(5))
        for name in ("score", "win", "turns", "animals"):
            assert np.array_equal(searched_games[name], plain[name]), name


def test_turn_start_searches_only_the_destination():
    """With `searched: turn_start` every decision of the seat but the destination (N-4.1) is the
    heuristic's own move (strong with width 1, as the test above shows), and some destinations
    are not."""
    seats = seating(("strong", SMALL | {"searched": "turn_start"}), ("greedy_duel", {}))
    position = step_api.new_game(GAME.params_model(players=2), seats, seed=4)
    state = position.state
    searching, heuristic = state.policy_params[0].copy(), GAME.policies["strong"].pack({"width": 1})
    destinations_differing = 0
    while not step_api.is_over(position):
        move = step_api.policy_move(position)
        if position.decider == 0:
            state.policy_params[0] = heuristic
            heuristic_move = step_api.policy_move(position)
            state.policy_params[0] = searching
            if state.sc[SC_DECISION] == D_DEST:
                destinations_differing += move != heuristic_move
            else:
                assert move == heuristic_move
        step_api.apply(position, move)
    assert destinations_differing > 0


def test_strong_beats_its_heuristic_and_wins_more_solo_games_than_greedy_tuned():
    """Two players against greedy_duel, seats rotated; solo (N-8.2: the board complete within
    the laps), where every line is played to the end by greedy_tuned."""
    params = GAME.params_model(players=2)
    seeds = np.repeat(np.arange(300, 310), 2)
    rotations = np.tile(np.arange(2), 10)
    columns = play(params, seating(("strong", {}), ("greedy_duel", {})), seeds, rotations)
    wins = columns["win"][np.arange(20), rotations].astype(float)
    assert (wins / np.maximum(columns["win"].sum(axis=1), 1)).mean() > 0.7
    solo = GAME.params_model(players=1)
    strong = play(solo, seating(("strong", {"width": 3}),), range(400, 420))["solo_won"].mean()
    tuned = play(solo, seating(("greedy_tuned", {}),), range(400, 420))["solo_won"].mean()
    assert strong > tuned + 0.2, (strong, tuned)


def test_strong_never_reads_the_hidden_tiles():
    """N-12.6 with hidden stacks: scrambling the tiles below the bay tops never changes the move
    for a fixed random stream; the lines are played on determinize's deal."""
    params = GAME.params_model(players=2, ai_sees_full_stacks=False)
    position = step_api.new_game(params, seating(*[("greedy", {})] * 2), seed=3)
    for _ in range(10):
        step_api.apply(position, step_api.policy_move(position))
    state = position.state
    state.policy_id[:] = GAME.policies["strong"].policy_id
    state.policy_params[:] = GAME.policies["strong"].pack(SMALL | {"searched": "every", "rollout_depth": 3})
    rng_before = state.rng.copy()
    choice = step_api.policy_move(position)
    layers = [(space, layer) for space in range(1, state.bay_count.shape[0])
              for layer in range(state.bay_count[space] - 1)]
    assert layers
    for draw in range(3):
        tiles = [state.bay_tiles[space, layer] for space, layer in layers]
        np.random.default_rng(draw).shuffle(tiles)
        for (space, layer), tile in zip(layers, tiles):
            state.bay_tiles[space, layer] = tile
        state.rng[:] = rng_before
        assert step_api.policy_move(position) == choice


@pytest.mark.parametrize("params", [SMALL, SMALL | {"searched": "every", "rollout_depth": 0}],
                         ids=["turn_start", "every_to_the_end"])
def test_no_invariant_is_broken_in_checked_mode(params):
    """N-11 T18 after every move at 1-4 players, with rule variants (the short game, hidden
    stacks, the physical animal supply)."""
    for players, knobs in ((1, {}), (2, {"short_game_2p": True}), (3, {"ai_sees_full_stacks": False}),
                           (4, {"animal_supply": "physical"})):
        rules = GAME.params_model(players=players, **knobs)
        seats = seating(("strong", params), *[("greedy", {})] * (players - 1))
        columns = play(rules, seats, range(3), np.arange(3) % players, check=True)
        assert columns["check_violations"].sum() == 0


def test_budget_past_the_horizon_averages_sampled_lines_of_the_horizons_length():
    """Past `horizon_iterations` the lines are as long as at that budget and a move is valued by
    the mean of several: at temperature 0 every line is the heuristic's, so the games are the
    horizon's; at the shipped temperature the sampled lines change some move."""
    params = GAME.params_model(players=2)
    others = ("greedy_duel", {})
    horizon = play(params, seating(("strong", SMALL), others), range(6))
    for temperature, same in ((0.0, True), (0.05, False)):
        past = SMALL | {"iterations": 16, "horizon_iterations": 4, "temperature": temperature}
        games = play(params, seating(("strong", past), others), range(6))
        assert all(np.array_equal(games[name], horizon[name])
                   for name in ("score", "win", "turns", "animals")) == same, temperature


def test_logs_are_identical_for_one_and_two_jobs(tmp_path):
    """With hidden stacks and lines sampled past the horizon (each line's deal and moves from
    the search stream)."""
    seats = [{"policy": "strong", "params": SMALL | {"horizon_iterations": 2}},
             {"policy": "strong", "params": {"iterations": 2}}]
    plan = build_plan(parse_experiment({"name": "strong_jobs", "seed": 5, "games": 6, "chunk_games": 2,
                                        "studies": [{"game": "nyz", "rules": {"players": 2,
                                                                               "ai_sees_full_stacks": False},
                                                     "seats": seats}]}))
    run_plan(plan, tmp_path / "one", "", jobs=1, progress=False)
    run_plan(plan, tmp_path / "two", "", jobs=2, backend="loky", progress=False)
    assert log_digests(tmp_path / "one") == log_digests(tmp_path / "two")
    assert len(log_digests(tmp_path / "one")) == 3


@pytest.mark.parametrize("params, words", [
    ({"iterations": 0}, ["iterations", "whole number from 1"]),
    ({"iterations": 2.5}, ["iterations", "whole number"]),
    ({"rollout_depth": -1}, ["rollout_depth"]),
    ({"solo_rollout_depth": -1}, ["solo_rollout_depth"]),
    ({"width": 0}, ["width", "whole number from 1"]),
    ({"searched": "some"}, ["searched", "every, turn_start"]),
    ({"heuristic": "greedy"}, ["heuristic", "greedy_tuned, greedy_duel"]),
    ({"solo_heuristic": "random"}, ["solo_heuristic", "greedy_tuned, greedy_duel"]),
    ({"exploration": 0.3}, ["unknown parameter 'exploration'"]),
    ({"weights": "missing.npz"}, ["weights", "missing.npz", "cannot read"]),
])
def test_impossible_strong_parameters_are_refused(params, words):
    with pytest.raises(ZoosimError) as error:
        seating(("strong", params), ("greedy", {}))
    for word in words:
        assert word in str(error.value)


def test_the_cli_refuses_an_impossible_strong_parameter_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, lines = refused_run(tmp_path, "games: 10\nstudies: [{game: nyz, rules: {players: 2}, seats: "
                                        "[{policy: strong, params: {searched: some}}, greedy]}]\n")
    assert len(lines) == 1 and "searched" in lines[0] and str(path) in lines[0], lines


def test_rules_lists_strong_with_its_parameters():
    result = CliRunner().invoke(main, ["rules", "nyz"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("strong: "))
    parameters = [line.split()[0] for line in lines[start + 1:start + 12]]
    assert parameters == ["iterations", "solo_rollout_depth", "searched", "rollout_depth", "width",
                          "solo_heuristic", "heuristic", "horizon_iterations", "temperature",
                          "rollout_depth_3p", "weights"], lines[start:start + 12]
    assert lines[start + 3].startswith("    searched = turn_start ")


@pytest.mark.parametrize("policy", ["strong", "expert"])
def test_rollout_depth_alone_sets_the_3_to_5_player_depth_too(policy):
    """`rollout_depth` set every line's depth until `rollout_depth_3p` split the 3-5 player one
    off: an experiment giving only `rollout_depth` keeps its games; given, each sets its own."""
    from simulator.games.nyz.specs import ROLLOUT_DEPTH, S_ROLLOUT_DEPTH_3P

    spec = GAME.policies[policy]
    alone = spec.pack({"rollout_depth": 3})
    assert alone[ROLLOUT_DEPTH] == 3 and alone[S_ROLLOUT_DEPTH_3P] == 3
    both = spec.pack({"rollout_depth": 3, "rollout_depth_3p": 5})
    assert both[ROLLOUT_DEPTH] == 3 and both[S_ROLLOUT_DEPTH_3P] == 5
    assert spec.pack()[S_ROLLOUT_DEPTH_3P] == spec.params["rollout_depth_3p"]
