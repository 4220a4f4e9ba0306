"""Tic-tac-toe's training code, the `code` of its training role (zoosim train tictactoe):
`record` plays games through the step API and returns, per decision, the features of the
position after the chosen move from the mover's view with the mover's result (1 win, 1/2 draw,
0 loss); `fit` fits the learned evaluation to them by ridge regression."""

import numpy as np

from simulator.plugin import fit_ridge
from zoosim_tictactoe import game as rules
from zoosim_tictactoe.features import feature_row
from zoosim_tictactoe.specs import FEATURE_NAMES, SET_NAMES

RIDGE_ALPHA = 1.0
HOLDOUT = 0.2  # share of the rows held out to measure the fit
EXPLORE_STREAM = 2  # the exploring draws' stream: (seed, EXPLORE_STREAM), apart from the game's own


def record(params, seat_policies, seeds, rotations, explore=0.0):
    """{set name: (rows (n, features), targets (n,))}: one row per decision of one game per
    seed, a share `explore` of the moves uniformly random instead of the seated policy's."""
    rows, targets = [], []
    for seed, rotation in zip(seeds, rotations):
        state = rules.new_game(params, seat_policies, int(seed), int(rotation))
        exploring = np.random.default_rng([int(seed), EXPLORE_STREAM])
        decisions = []
        while not rules.is_over(state):
            moves = rules.legal_moves(state)
            if explore > 0.0 and exploring.random() < explore:
                move = moves[int(exploring.integers(len(moves)))]
            else:
                move = rules.policy_move(state)
            mover = state.seat
            rules.apply(state, move)
            decisions.append((feature_row(state.cells, mover), mover))
        result = rules.scores(state) / (2 * rules.DRAW_SCORE)  # 1 win, 1/2 draw, 0 loss
        rows += [features for features, _ in decisions]
        targets += [result[mover] for _, mover in decisions]
    shape = (len(rows), len(FEATURE_NAMES))
    return {SET_NAMES[0]: (np.array(rows, dtype=np.float64).reshape(shape), np.array(targets, dtype=np.float64))}


def fit(data, seed):
    """(weights (1, features), intercepts (1,), fit quality per set) on record()'s data."""
    rows, targets = data[SET_NAMES[0]][:2]
    result = fit_ridge(rows, targets, alpha=RIDGE_ALPHA, holdout=HOLDOUT, seed=seed)
    return result.coefficients[None, :], np.array([result.intercept]), {SET_NAMES[0]: result.quality}
