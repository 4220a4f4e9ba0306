"""New York Zoo's training code behind the per-game training contract (issue #19 item 2, issue
#23): record() plays games and returns the evaluation's training rows per set, fit() fits the
weights of every set from them. benchmarks/train_eval.py nyz (the command that reproduces the
shipped weights, with its tuning for play) and `zoosim train` call only these two.

Recording. Games are played through the step API, so every game is the game play_batch plays
for its seed. At each turn's first decision (the destination, N-5) the features of every seat
(features.all_seat_features) are recorded; the game's final empty squares give the targets.

Sets (specs.SET_NAMES). `solo`: rows are the seat's features, the target is minus its final
empty squares. `multi` (2-5 players): per seat, its features minus the others' mean, the target
the margin in squares over the others' mean (features.py, "Value"). A game adds rows to its own
set only; the other set's arrays have no rows, so the chunks of several calls concatenate.
"""

from __future__ import annotations

import numpy as np

from simulator.errors import ZoosimError
from simulator.games.learned import fit_ridge
from simulator.games.nyz import features as NF
from simulator.games.nyz import step_api
from simulator.games.nyz.specs import SET_MULTI, SET_NAMES, SET_SOLO
from simulator.games.nyz.state import D_DEST, SC_DECISION

# ridge penalty of the fit (learned.fit_ridge; columns standardised) and its held-out share
RIDGE_ALPHA = 1.0
HOLDOUT = 0.2


def play_and_record(params, seat_policies, seed: int, rotation: int):
    """(features (positions, players, N_FEATURES), final empty squares (players,)) of one game."""
    position = step_api.new_game(params, seat_policies, seed=seed, rotation=rotation,
                                 stop_at_forced=False)
    rows = []
    while not step_api.is_over(position):
        if position.state.sc[SC_DECISION] == D_DEST:
            rows.append(NF.all_seat_features(position.state, position.tables))
        step_api.apply(position, step_api.policy_move(position))
    players = params.players
    return np.array(rows).reshape(-1, players, NF.N_FEATURES), -step_api.scores(position).astype(float)


def training_rows(features, empty):
    """One game's (rows, targets) of its set (module docstring, "Sets")."""
    players = features.shape[1]
    if players == 1:
        return features[:, 0, :], np.full(len(features), -empty[0])
    rows, targets = [], []
    for seat in range(players):
        others = [other for other in range(players) if other != seat]
        rows.append(features[:, seat, :] - features[:, others, :].mean(axis=1))
        targets.append(np.full(len(features), empty[others].mean() - empty[seat]))
    return np.concatenate(rows), np.concatenate(targets)


def record(params, seat_policies, seeds, rotations, explore=0.0) -> dict[str, tuple[np.ndarray, ...]]:
    """Play one game per seed (rotation per game) and return per set name (rows (n, N_FEATURES),
    targets (n,)) (module docstring). New York Zoo takes no random decisions: `explore` must be 0."""
    if explore != 0.0:
        raise ZoosimError("nyz: training takes no exploration (explore: 0 only; New York Zoo's "
                          "policies draw no random decisions)")
    own_set = SET_NAMES[SET_SOLO if params.players == 1 else SET_MULTI]
    rows, targets = [np.empty((0, NF.N_FEATURES))], [np.empty(0)]
    for seed, rotation in zip(seeds, rotations):
        game_rows, game_targets = training_rows(*play_and_record(params, seat_policies, int(seed), int(rotation)))
        rows.append(game_rows)
        targets.append(game_targets)
    empty = (np.empty((0, NF.N_FEATURES)), np.empty(0))
    return {name: (np.concatenate(rows), np.concatenate(targets)) if name == own_set else empty
            for name in SET_NAMES}


def fit(data: dict[str, tuple[np.ndarray, ...]], seed: int, alpha: float = RIDGE_ALPHA):
    """(weights (len(SET_NAMES), N_FEATURES), intercepts (len(SET_NAMES),), fit_info) from
    record()'s data: per set a ridge fit (learned.fit_ridge, seeded hold-out) whose quality is
    fit_info[set]. The multi set's intercept is 0 (it cancels in the margin, features.py)."""
    weights, intercepts, info = [], [], {}
    for name in SET_NAMES:
        rows, targets = data[name][:2]
        fitted = fit_ridge(rows, targets, alpha=alpha, holdout=HOLDOUT, seed=seed)
        weights.append(fitted.coefficients)
        intercepts.append(fitted.intercept if name == SET_NAMES[SET_SOLO] else 0.0)
        info[name] = fitted.quality
    return np.array(weights), np.array(intercepts), info
