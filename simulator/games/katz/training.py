"""Katz's training code (issue #19 item 2; the per-game training contract): `record` plays games
and returns the positions and targets of each evaluation set, `fit` fits the learned evaluation
on them. benchmarks/train_eval.py katz (the command that reproduces the shipped weights) and
`zoosim train` call only these two.

What is recorded (`record_games`): games played by any policies (heuristics, search and learned
players, as play_batch seats them), a share `explore` of the decisions made by a uniformly random
legal move instead (so that every kind of move is seen); one row per decision: the deciding
seat's position features with the chosen move's features (features.fill_decision_row). The
`position` set's rows are the same with the move features zeroed. Every target is the deciding
seat's final score in points.

The training's settings (TRAINING_*, benchmarks/train_eval.py katz): games of each player
count, their share of the training games, played by TRAINING_POLICY (greedy_tuned, the strongest
heuristic; train_eval.py's --katz-policy seats another, e.g. `strong` for a second round on its
own games) with a share TRAINING_EXPLORE of random decisions; the shipped weights' card
(weights/default.json) names the command that made them. The target is the seat's own final
score: the margin over the other seats' mean fitted worse (learned won 43.8% against
greedy_tuned with it, 54.6% with the score; 500 deals each).
"""

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.katz import features as F
from simulator.games.katz import moves as M
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz.play import choose_for_seat, rule_tables
from simulator.games.katz.specs import SET_NAMES
from simulator.games.kernels import allocating
from simulator.games.learned import fit_ridge

TRAINING_PLAYERS = {2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}  # player count: share of the training games
TRAINING_POLICY = "greedy_tuned"
TRAINING_EXPLORE = 0.15
TRAINING_ALPHA = 1.0  # ridge penalty
TRAINING_HOLDOUT = 0.2  # share of the rows kept out of the fit to measure it


@allocating
def record_games(rules, cards, deck, policy_ids, policy_params, search_workspace, explore, seeds,
                 rotations, rows, row_seats, row_games, finals):
    """Play one game per seed with the policies of `policy_ids` (by slot, as play_batch; the
    search policies with `search_workspace`, search.search_workspace's), a share `explore` of the
    decisions made uniformly at random instead, recording one row per decision into rows
    (capacity, FEATURES), the deciding seat and the game index; finals[g, seat] = the seat's
    final score in points. Returns the rows written (stops at the capacity)."""
    game = M.allocate_game(rules, 0)
    scalars, cells, hidden, lines, hands, seats, events = game
    moves = np.empty(M.max_moves(rules), dtype=np.int64)
    scratch = F.allocate_features(rules)
    row, workspace = scratch[0], scratch[2]
    rng = random_stream.new_state(0)
    limit = M.step_limit(rules)
    written = 0
    capacity = rows.shape[0]
    for g in range(seeds.shape[0]):
        rng[0] = seeds[g]
        M.start_game(rules, cards, deck, game, rng, rotations[g])
        while scalars[S.S_PHASE] != S.PHASE_OVER and scalars[S.S_STEPS] < limit:
            count = M.legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
            if count == 0:
                break
            # no draw at explore 0: the games are then play_batch's, search players' included
            if explore > 0.0 and random_stream.uniform(rng) < explore:
                index = random_stream.randint(rng, count)
            else:
                index = choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count,
                                        rng, workspace, search_workspace)
            if written < capacity:
                seat = scalars[S.S_SEAT]
                F.fill_decision_row(rules, cards, scalars, cells, lines, hands[seat],
                                    seats[seat, S.SEAT_HAND_LEN], seats, moves, count, index,
                                    scratch)
                for feature in range(F.FEATURES):
                    rows[written, feature] = row[feature]
                row_seats[written] = seat
                row_games[written] = g
                written += 1
            M.apply_move(rules, cards, deck, game, rng, moves[index])
        for seat in range(rules[S.P_PLAYERS]):
            finals[g, seat] = 0.5 * M.final_half_points(rules, seats, seat)
    return written


def record(params, seat_policies, seeds, rotations, explore=0.0):
    """Play one game per seed (rotation per game) with `seat_policies` (GAME.seat_policies'
    output: any Katz policies), a share `explore` of the decisions made uniformly at random;
    returns {set name: (rows (n, FEATURES) float64, targets (n,) float64, deciding seats (n,)
    int64)} in SET_NAMES order (module docstring). Deterministic for the seeds: the games of one call are the games of
    several calls over a split of the seeds, in order."""
    rules, cards, deck = rule_tables(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    capacity = len(seeds) * (int(rules[S.P_CELLS]) + int(rules[S.P_DECK_SIZE])) * 3 + 1024
    rows = np.zeros((capacity, F.FEATURES), dtype=np.float64)
    row_seats = np.zeros(capacity, dtype=np.int64)
    row_games = np.zeros(capacity, dtype=np.int64)
    finals = np.zeros((len(seeds), params.players), dtype=np.float64)
    policy_ids = np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64)
    written = record_games(rules, cards, deck, policy_ids, policy_params,
                           KS.search_workspace(rules, cards, deck, policy_ids, policy_params),
                           float(explore), seeds, rotations, rows, row_seats, row_games, finals)
    if written >= capacity:  # more decisions than a game can have: an engine bug
        raise RuntimeError(f"record: {written} decisions reached the capacity {capacity}")
    with_moves = rows[:written]
    deciders = row_seats[:written]
    targets = finals[row_games[:written], deciders]
    positions = with_moves.copy()
    positions[:, F.FIRST_MOVE_FEATURE:] = 0.0
    return dict(zip(SET_NAMES, ((positions, targets, deciders), (with_moves, targets, deciders))))


def fit(data, seed):
    """(weights (len(SET_NAMES), F.FEATURES), intercepts (len(SET_NAMES),), fit quality per set)
    of one ridge fit per set (TRAINING_ALPHA, a seeded TRAINING_HOLDOUT share held out) on
    record()'s data, or on several record() calls' chunks concatenated along axis 0."""
    weights, intercepts, fits = [], [], {}
    for name in SET_NAMES:
        rows, targets = data[name][:2]
        result = fit_ridge(rows, targets, alpha=TRAINING_ALPHA, holdout=TRAINING_HOLDOUT, seed=seed)
        weights.append(result.coefficients)
        intercepts.append(result.intercept)
        fits[name] = result.quality
    return np.array(weights), np.array(intercepts), fits
