"""New York Zoo's training code behind the per-game training contract (record, fit): recording
positions of self-play games and fitting the learned evaluation on them (learned.fit_ridge per
set). benchmarks/train_eval.py and `zoosim train` call these two.

Recording. Games are played through the step API (so every game is the game play_batch plays
for its seed and rotation); every seat's features are recorded at each turn's first decision
(the destination, features.all_seat_features) with the game's final outcome. The sets
(specs.SET_NAMES): `solo` rows are the seat's features with target minus the final empty
squares; `multi` rows are, per seat, its features minus the other seats' mean with target its
final margin in squares over their mean. A solo game gives only `solo` rows, a game of 2-5
players only `multi` rows. `explore` is not supported here (the step API plays the seats'
policies only) and must be 0.
"""

from __future__ import annotations

import numpy as np

from simulator.games.learned import fit_ridge
from simulator.games.nyz.specs import SET_MULTI, SET_NAMES, SET_SOLO

TRAINING_ALPHA = 1.0  # ridge penalty


def play_and_record(params, seat_policies, seed: int, rotation: int):
    """(features (positions, players, F), final empty squares (players,)) of one game."""
    from simulator.games.nyz import GAME
    from simulator.games.nyz import features as NF
    from simulator.games.nyz.state import D_DEST, SC_DECISION

    steps = GAME.steps
    position = steps.new_game(params, seat_policies, seed=seed, rotation=rotation, stop_at_forced=False)
    rows = []
    while not steps.is_over(position):
        if position.state.sc[SC_DECISION] == D_DEST:
            rows.append(NF.all_seat_features(position.state, position.tables))
        steps.apply(position, steps.policy_move(position))
    return np.array(rows).reshape(-1, params.players, NF.N_FEATURES), -steps.scores(position).astype(float)


def training_rows(features: np.ndarray, empty: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray]:
    """One game's rows and targets: solo, the features and minus the final empty squares; 2-5
    players, per seat its features minus the others' mean, and the margin over their mean."""
    if players == 1:
        return features[:, 0, :], np.full(len(features), -empty[0])
    rows, targets = [], []
    for seat in range(players):
        others = [other for other in range(players) if other != seat]
        rows.append(features[:, seat, :] - features[:, others, :].mean(axis=1))
        targets.append(np.full(len(features), empty[others].mean() - empty[seat]))
    return np.concatenate(rows), np.concatenate(targets)


def record(params, seat_policies, seeds, rotations, explore: float = 0.0) -> dict[str, tuple[np.ndarray, ...]]:
    """The training contract's record: one game per seed (and rotation), per set name its
    (rows (n, N_FEATURES), targets (n,)); the set the player count does not train is empty."""
    from simulator.games.nyz import features as NF

    if explore != 0.0:
        raise ValueError("nyz records the seats' own decisions only: explore must be 0")
    rows, targets = [], []
    for seed, rotation in zip(seeds, rotations):
        features, empty = play_and_record(params, seat_policies, int(seed), int(rotation))
        game_rows, game_targets = training_rows(features, empty, params.players)
        rows.append(game_rows)
        targets.append(game_targets)
    filled = SET_SOLO if params.players == 1 else SET_MULTI
    data = {name: (np.zeros((0, NF.N_FEATURES)), np.zeros(0)) for name in SET_NAMES}
    if rows:
        data[SET_NAMES[filled]] = (np.concatenate(rows), np.concatenate(targets))
    return data


def fit(data: dict[str, tuple[np.ndarray, ...]], seed: int,
        alpha: float = TRAINING_ALPHA) -> tuple[np.ndarray, np.ndarray, dict]:
    """The training contract's fit: ridge per set (penalty `alpha`, a 20% held-out share chosen
    by `seed`); the multi set's intercept is 0 (it cancels in a margin over the other seats)."""
    weights, intercepts, fits = [], [], {}
    for name in SET_NAMES:
        rows, targets = data[name][0], data[name][1]
        result = fit_ridge(rows, targets, alpha=alpha, holdout=0.2, seed=seed)
        weights.append(result.coefficients)
        intercepts.append(result.intercept if name == SET_NAMES[SET_SOLO] else 0.0)
        fits[name] = result.quality
    return np.array(weights), np.array(intercepts), fits
