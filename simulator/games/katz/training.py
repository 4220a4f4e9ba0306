"""Katz's training code (issue #19 item 2; the per-game training contract): `record` plays games
and returns the positions and targets of each evaluation set, `fit` fits the learned evaluation
on them. benchmarks/train_eval.py katz (the command that reproduces the shipped weights) and
`zoosim train` call only these two; the recording kernel itself is features.record_games.

What is recorded (features.py's module docstring): one row per decision, the deciding seat's
position features with the chosen move's features; the `position` set's rows are the same with
the move features zeroed. Every target is the deciding seat's final score in points.

The shipped weights' training (TRAINING_*): games of each player count, their share of the
training games, played by greedy_tuned (the strongest heuristic) with a share TRAINING_EXPLORE
of random decisions. The target is the seat's own final score: the margin over the other seats'
mean fitted worse (learned won 43.8% against greedy_tuned with it, 54.6% with the score; 500
deals each).
"""

import numpy as np

from simulator.games.katz import moves as M
from simulator.games.katz import state as S
from simulator.games.katz.features import FEATURES, FIRST_MOVE_FEATURE, record_games
from simulator.games.katz.params import deck_cards, rule_array
from simulator.games.katz.specs import SET_NAMES
from simulator.games.learned import fit_ridge

TRAINING_PLAYERS = {2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}  # player count: share of the training games
TRAINING_POLICY = "greedy_tuned"
TRAINING_EXPLORE = 0.15
TRAINING_ALPHA = 1.0  # ridge penalty
TRAINING_HOLDOUT = 0.2  # share of the rows kept out of the fit to measure it


def record(params, seat_policies, seeds, rotations, explore=0.0):
    """Play one game per seed (rotation per game) with `seat_policies` (heuristics,
    GAME.seat_policies' output), a share `explore` of the decisions made uniformly at random;
    returns {set name: (rows (n, FEATURES) float64, targets (n,) float64)} in SET_NAMES order
    (module docstring). Deterministic for the seeds: the games of one call are the games of
    several calls over a split of the seeds, in order."""
    rules, cards, deck = rule_array(params), M.card_table(params), deck_cards(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    capacity = len(seeds) * (int(rules[S.P_CELLS]) + int(rules[S.P_DECK_SIZE])) * 3 + 1024
    rows = np.zeros((capacity, FEATURES), dtype=np.float64)
    row_seats = np.zeros(capacity, dtype=np.int64)
    row_games = np.zeros(capacity, dtype=np.int64)
    finals = np.zeros((len(seeds), params.players), dtype=np.float64)
    written = record_games(rules, cards, deck,
                           np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64),
                           np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64),
                           float(explore), seeds, rotations, rows, row_seats, row_games, finals)
    if written >= capacity:  # more decisions than a game can have: an engine bug
        raise RuntimeError(f"record: {written} decisions reached the capacity {capacity}")
    with_moves = rows[:written]
    targets = finals[row_games[:written], row_seats[:written]]
    positions = with_moves.copy()
    positions[:, FIRST_MOVE_FEATURE:] = 0.0
    return dict(zip(SET_NAMES, ((positions, targets), (with_moves, targets))))


def fit(data, seed):
    """(weights (len(SET_NAMES), FEATURES), intercepts (len(SET_NAMES),), fit quality per set)
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
