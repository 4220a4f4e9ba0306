"""Katz search policies (simulator/games/katz/search.py over simulator/games/search.py): what an
`ismcts` determinization keeps and samples (K-8.3), the oracle's exact copy (rules spec 3.5),
the step API replaying play_batch, checked-mode invariants (T17), determinism across jobs,
strength against the heuristics, and parameter validation. The no-peeking test for `ismcts`
is test_katz_params_policies_render.test_policies_never_peek."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from katz_helpers import make_params, seeds
from test_katz_params_policies_render import clone, scramble_hidden
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.games import rng as random_stream
from simulator.games.katz import GAME, play, step_api
from simulator.games.katz import policies as P
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import SEARCH_PARAMETER_REFUSALS, log_digests, refused_run

SMALL = {"iterations": 30}


def mid_game(players=3, seed=5, moves=25):
    """A position some moves into a greedy game."""
    params = make_params(players=players)
    state = step_api.new_game(params, GAME.seat_policies([("greedy", {})] * players), seed=seed)
    for _ in range(moves):
        step_api.apply(state, step_api.policy_move(state))
    return state


def determinized(state, sample, draw=0):
    """The scratch game of one search iteration from `state`, seen by the seat to decide."""
    workspace = KS.allocate_search(state.rules, state.cards, state.deck, state.policy_ids,
                                   state.policy_params)
    deck, scratch, unseen, pool, win, limit, estimates, tree = workspace[:8]
    ctx = (state.rules, state.cards, deck, P.allocate_workspace(state.rules), unseen, pool, win,
           limit, 0.0, estimates)
    rng = random_stream.new_state(np.uint64(draw))
    KS.copy_state(state.game, scratch)
    if sample:
        KS.determinize(scratch, ctx, state.seat, rng)
    return scratch


def hidden_cards(state, game, observer):
    """Multiset of the cards observer cannot see in a game tuple, and where they lie."""
    scalars, cells, hidden, lines, hands, seats, events = game
    cell_count = cells.shape[1]
    face_down = [int(hidden[c]) for c in range(cell_count) if cells[S.CELL_STATE, c] == S.FACE_DOWN]
    set_aside = [int(card) for card in hidden[cell_count:cell_count + scalars[S.S_SET_ASIDE]]]
    others = {seat: sorted(int(card) for card in hands[seat, :seats[seat, S.SEAT_HAND_LEN]])
              for seat in range(state.params.players) if seat != observer}
    return Counter(face_down + set_aside + [c for hand in others.values() for c in hand]), others


def test_a_determinization_keeps_everything_public_and_deals_the_unseen_cards():
    """K-8.3: the sample keeps the public arrays and the seat's hand, deals exactly the unseen
    multiset (deck minus own hand, face-up and covered cards) into face-down cells, other hands
    of their sizes and the set-aside tail; different draws deal differently."""
    state = mid_game()
    observer = state.seat
    unseen, _ = hidden_cards(state, state.game, observer)
    deals = set()
    for draw in range(5):
        scratch = determinized(state, True, draw)
        for index in (1, 3, 5):
            assert np.array_equal(scratch[index], state.game[index])
        public = [i for i in range(S.S_SIZE) if i != S.S_EVENT_COUNT]
        assert np.array_equal(scratch[0][public], state.scalars[public])
        hand_len = state.seats[observer, S.SEAT_HAND_LEN]
        assert np.array_equal(scratch[4][observer, :hand_len], state.hands[observer, :hand_len])
        sampled, others = hidden_cards(state, scratch, observer)
        assert sampled == unseen
        for cell in range(state.cells.shape[1]):
            if state.cells[S.CELL_STATE, cell] != S.FACE_DOWN:
                assert scratch[2][cell] == S.NO_CARD
        deals.add(tuple(tuple(hand) for hand in others.values()))
    assert len(deals) > 1


def test_the_oracle_copies_the_position_as_it_is():
    state = mid_game()
    scratch = determinized(state, False)
    for index in range(1, 6):
        assert np.array_equal(scratch[index], state.game[index])


@pytest.mark.parametrize("policy", ["ismcts", "oracle"])
def test_the_step_api_replays_play_batch(policy):
    """policy_move (fresh workspace per decision) and play_batch (one workspace for the batch)
    play the same games: nothing of one decision's tree leaks into the next."""
    params = make_params(players=2)
    seating = GAME.seat_policies([(policy, SMALL), ("greedy", {})])
    columns = play.play_batch(params, seating, seeds(3), np.zeros(3, np.int8))
    for game in range(3):
        state = step_api.new_game(params, seating, seed=game)
        while not step_api.is_over(state):
            step_api.apply(state, step_api.policy_move(state))
        assert np.array_equal(step_api.scores(state), columns["score"][game])


@pytest.mark.parametrize("policy", ["ismcts", "oracle"])
def test_search_games_replay_for_a_seed_and_differ_between_seeds(policy):
    params = make_params(players=3)
    seating = GAME.seat_policies([(policy, SMALL)] * 3)
    first = play.play_batch(params, seating, seeds(4), np.arange(4, dtype=np.int8) % 3)
    again = play.play_batch(params, seating, seeds(4), np.arange(4, dtype=np.int8) % 3)
    for name in first:
        assert np.array_equal(first[name], again[name]), name
    assert len({tuple(row) for row in first["score"]}) > 1


@pytest.mark.parametrize("players", [2, 4])
def test_the_root_priors_read_nothing_the_seat_cannot_see(players):
    """K-8.3: scrambling the face-down cards, set-aside cards and other hands leaves every prior
    of the seat's decision unchanged (the no-peeking test of the policies checks only choices)."""
    rng = np.random.default_rng(1)
    for moves_played in (0, 9, 20, 31):
        state = mid_game(players, seed=moves_played, moves=moves_played)
        moves = np.array(step_api.legal_moves(state), dtype=np.int64)
        priors = []
        for scramble in (False, True, True):
            view = clone(state)
            if scramble:
                scramble_hidden(view, rng, keep_seat=state.seat)
            workspace = KS.allocate_search(view.rules, view.cards, view.deck, view.policy_ids,
                                           view.policy_params)
            deck, scratch, unseen, pool, win, limit, estimates, tree = workspace[:8]
            ctx = (view.rules, view.cards, deck, P.allocate_workspace(view.rules), unseen, pool, win,
                   limit, 8.0, estimates)
            out = np.zeros(len(moves))
            KS.root_priors(view.game, ctx, moves, len(moves), out)
            priors.append(out)
        assert np.all((priors[0] > 0) & (priors[0] < 1))
        assert np.array_equal(priors[0], priors[1]) and np.array_equal(priors[0], priors[2])


@pytest.mark.parametrize("players", [2, 4])
def test_at_one_iteration_the_search_plays_the_move_its_priors_rank_first(players):
    """The root's priors are expectimax's worths with greedy_tuned's value weights (K-8.3):
    one iteration visits only the move of highest prior, so every choice has the highest worth
    (ties in any order). Without priors one iteration would pick a move at random."""
    params = make_params(players=players)
    seating = GAME.seat_policies([("ismcts", {"iterations": 1})] * players)
    checked = 0
    for seed in range(4):
        state = step_api.new_game(params, seating, seed=seed)
        workspace = P.allocate_workspace(state.rules)
        while not step_api.is_over(state):
            moves = np.array(step_api.legal_moves(state), dtype=np.int64)
            move = step_api.policy_move(state)
            if len(moves) > 1:
                seat = state.seat
                worths = np.zeros(len(moves))
                P.fill_move_worths(KS.TUNED_WEIGHTS, state.rules, state.cards, state.scalars,
                                   state.cells, state.lines, state.hands[seat],
                                   state.seats[seat, S.SEAT_HAND_LEN], moves, len(moves), workspace,
                                   worths)
                assert worths[list(moves).index(move)] == worths.max()
                checked += 1
            step_api.apply(state, move)
    assert checked > 50


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_search_games_are_identical_for_any_number_of_jobs_and_backend(backend, tmp_path):
    """The search draws its stream from the game's, so chunks played by one job or by two (in
    threads or processes) hold the same games, byte for byte."""
    seats = [{"policy": "ismcts", "params": SMALL}, {"policy": "oracle", "params": SMALL}, "greedy"]
    assert_identical_for_jobs(seats, backend, tmp_path)


def assert_identical_for_jobs(seats, backend, tmp_path):
    """A 3-player run of these seats gives byte-identical chunk logs with one job and two."""
    plan = build_plan(parse_experiment({"name": "search_jobs", "seed": 3, "games": 12, "chunk_games": 4,
                                        "studies": [{"game": "katz", "rules": {"players": 3},
                                                     "seats": seats}]}))
    run_plan(plan, tmp_path / "one", "", jobs=1, progress=False)
    run_plan(plan, tmp_path / "two", "", jobs=2, backend=backend, progress=False)
    assert log_digests(tmp_path / "one") == log_digests(tmp_path / "two")
    assert len(log_digests(tmp_path / "one")) == len(plan.chunks()) >= 2


def win_share(names, deals, players=2, **policy_params):
    """Share of the wins of slot 0's policy over `deals` deals, every deal in both rotations."""
    params = make_params(players=players)
    seating = GAME.seat_policies([(name, policy_params.get(name, {})) for name in names])
    game_seeds = np.repeat(seeds(deals, 9000), players)
    rotations = np.tile(np.arange(players), deals).astype(np.int8)
    columns = play.play_batch(params, seating, game_seeds, rotations)
    seat = rotations % players
    wins = columns["win"][np.arange(len(rotations)), seat].astype(float)
    return float((wins / columns["win"].sum(axis=1)).mean())


def test_ismcts_beats_random_and_the_oracle_beats_ismcts():
    assert win_share(["ismcts", "random"], 40, ismcts=SMALL) > 0.8
    assert win_share(["oracle", "ismcts"], 60, oracle=SMALL, ismcts=SMALL) > 0.5


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["ismcts", "oracle"])
def test_search_policies_break_no_invariant_in_checked_mode(policy):
    """T17 over 2,000 games (the brief's 20,000 are run by hand, see the report), at 2-5 players
    with the blocked-cell exception and several rounds in some of them."""
    games = 0
    for players, knobs in ((2, {}), (3, {"rounds": 2}), (4, {"blocked_cell_rule": "either"}),
                           (5, {"keepers": None})):
        params = make_params(players=players, **knobs)
        seating = GAME.seat_policies([(policy, {"iterations": 8}), ("greedy", {})] + [("random", {})] * (players - 2))
        count = 500
        columns = play.play_batch(params, seating, seeds(count, 100), np.arange(count) % players,
                                    check=True)
        assert columns["check_violations"].sum() == 0
        games += count
    assert games == 2000


@pytest.mark.parametrize("params, words", SEARCH_PARAMETER_REFUSALS + [
    ({"prior_weight": -1}, ["prior_weight", "from 0 to 1,000,000"]),
    ({"prior_weight": math.inf}, ["prior_weight", "finite"]),
])
@pytest.mark.parametrize("policy", ["ismcts", "oracle"])
def test_impossible_search_parameters_are_refused(policy, params, words):
    with pytest.raises(ZoosimError) as error:
        GAME.seat_policies([(policy, params), ("greedy", {})])
    for word in words:
        assert word in str(error.value)


def test_the_cli_refuses_impossible_search_parameters_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, lines = refused_run(tmp_path, "games: 10\nstudies: [{game: katz, rules: {players: 2}, seats: "
                                        "[{policy: ismcts, params: {iterations: 0}}, greedy]}]\n")
    assert len(lines) == 1 and "iterations" in lines[0] and str(path) in lines[0], lines
