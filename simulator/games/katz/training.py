"""Katz's training code behind the per-game training contract (record, fit): the training sets
from recorded games (features.record_games, the numba kernel) and the ridge fit of the learned
evaluation, plus `train_weights`, the game's whole procedure for benchmarks/train_eval.py.

Sets (specs.SET_NAMES): `position` rows are the deciding seat's position features (the move
features zeroed), `move` rows the same with the chosen move's features; every target is the
deciding seat's final score in points. Recording plays heuristics only (features.record_games
dispatches to policies.choose_move), with a share `explore` of random decisions.
"""

from __future__ import annotations

import numpy as np

from simulator.games.katz import state as S
from simulator.games.katz.features import FIRST_MOVE_FEATURE, FEATURES, params_arrays, record_games
from simulator.games.katz.specs import FEATURE_NAMES, SET_NAMES
from simulator.games.learned import fit_ridge

# Training (train_weights): games of each player count, their share of --games, played by
# greedy_tuned (the strongest heuristic) with a share TRAINING_EXPLORE of random decisions. The
# target is the seat's own final score: the margin over the other seats' mean fitted worse
# (learned won 43.8% against greedy_tuned with it, 54.6% with the score; 500 deals each).
TRAINING_PLAYERS = {2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}
TRAINING_POLICY = "greedy_tuned"
TRAINING_EXPLORE = 0.15
TRAINING_ALPHA = 1.0  # ridge penalty


def record(params, seat_policies, seeds, rotations, explore: float = 0.0) -> dict[str, tuple[np.ndarray, ...]]:
    """The training contract's record: per set name (rows, targets) of the games played by
    `seat_policies` (heuristics) with a share `explore` of random decisions, one game per seed."""
    rules, cards, deck = params_arrays(params)
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
    return {SET_NAMES[0]: (positions, targets), SET_NAMES[1]: (with_moves, targets.copy())}


def fit(data: dict[str, tuple[np.ndarray, ...]], seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """The training contract's fit: one ridge evaluation per set (TRAINING_ALPHA, a 20%
    held-out share chosen by `seed`)."""
    weights, intercepts, fits = [], [], {}
    for name in SET_NAMES:
        result = fit_ridge(data[name][0], data[name][1], alpha=TRAINING_ALPHA, holdout=0.2, seed=seed)
        weights.append(result.coefficients)
        intercepts.append(result.intercept)
        fits[name] = result.quality
    return np.array(weights), np.array(intercepts), fits


def _training_chunk(players, seeds, rotations):
    from simulator.games.katz import GAME

    params = GAME.make_params({"players": players})
    seating = GAME.seat_policies([(TRAINING_POLICY, {})] * players)
    return record(params, seating, seeds, rotations, TRAINING_EXPLORE)


def train_weights(seed, games, jobs, out, command):
    """Katz's part of benchmarks/train_eval.py: record `games` training games (TRAINING_*),
    fit one ridge evaluation per set, write `out` (None: the shipped WEIGHTS_FILE) with its card;
    returns the card. The same seed and games give the same file for any `jobs`."""
    from joblib import Parallel, delayed

    from simulator.games.base import params_hash, played_rules
    from simulator.games.katz import GAME
    from simulator.games.katz.specs import WEIGHTS_FILE
    from simulator.games.learned import WEIGHTS_FORMAT, save_weights

    tasks = []
    for players, share in TRAINING_PLAYERS.items():
        count = int(round(games * share))
        seeds = np.random.SeedSequence([seed, players]).generate_state(count, dtype=np.uint64)
        rotations = np.arange(count) % players  # by the game's index: the same for any jobs
        for chunk in np.array_split(np.arange(count), max(1, min(count, 4 * jobs))):
            if len(chunk):
                tasks.append((players, seeds[chunk], rotations[chunk]))
    parts = Parallel(n_jobs=jobs)(delayed(_training_chunk)(*task) for task in tasks)
    data = {name: tuple(np.concatenate([part[name][i] for part in parts]) for i in range(2))
            for name in SET_NAMES}
    weights, intercepts, fits = fit(data, seed)
    params = GAME.make_params({})
    card = {
        "format": WEIGHTS_FORMAT, "game": "katz", "features": list(FEATURE_NAMES),
        "sets": list(SET_NAMES), "rules": played_rules(params),
        "rules_hash": params_hash(params, GAME.rules_version), "seed": int(seed),
        "training_games": int(sum(len(task[1]) for task in tasks)),
        "training_positions": int(fits[SET_NAMES[0]]["train_rows"] + fits[SET_NAMES[0]]["holdout_rows"]),
        "command": command, "fit": fits, "strength": None,
        "training": {"players": {str(k): v for k, v in TRAINING_PLAYERS.items()},
                     "policy": TRAINING_POLICY, "explore": TRAINING_EXPLORE,
                     "alpha": TRAINING_ALPHA},
    }
    out = WEIGHTS_FILE if out is None else out
    out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(out, weights, intercepts, card)
    return card
