"""New York Zoo's training code behind the per-game training contract (issue #19 item 2, issue
#23): record() plays games and returns the evaluation's training rows per set, fit() fits the
weights of every set from them, tune() then tunes them for play. benchmarks/train_eval.py nyz
(the command that reproduces the shipped weights) and `zoosim train` call only these three.

Recording. Games are played through the step API, so every game is the game play_batch plays
for its seed. At each turn's first decision (the destination, N-5) the features of every seat
(features.all_seat_features) are recorded; the game's final empty squares give the targets.

Sets (specs.SET_NAMES). `solo`: rows are the seat's features, the target is minus its final
empty squares. `multi` (2-5 players): per seat, its features minus the others' mean, the target
the margin in squares over the others' mean (features.py, "Value"). A game adds rows to its own
set only; the other set's arrays have no rows, so the chunks of several calls concatenate.

The expert's training (policy `expert`, issue #39: `zoosim train nyz --play expert --gate-policy
expert --start zero`, fitted value iteration). When the recorded games' seats play `expert`, record
stores the expert's features (features.py, "The expert's evaluation"; a turn's first decision is
the position the previous turn left, its afterstate) and fit is the same ridge fit per set, over
all rounds' games: each round's games are played by the best weights so far, so the fit learns
the values of the positions its own play reaches. Those weights are not tuned for play (tune
returns them as fitted): 86 weights per set are beyond a TPE search of a few hundred trials, and
fitted on the player's own positions they already play well (docs/benchmarks.md, "The expert").

Tuning for play. The regression predicts outcomes but plays badly when a policy maximises it
(measured: 0-7% against greedy_duel; the weights of correlated features such as fill_share and
open enclosures come out with signs that reward not filling enclosures), so tune() searches
each set's weights by play: a seeded TPE search (optuna) whose first two trials are the
regression's weights (clipped to the ranges) and a hand-set prior (PRIOR), scored by `learned`'s
win share against TUNE_OPPONENT over `deals` deals in both seat orders (multi, two players) or
its solo win rate (solo), under the training's rules (matches.py). It plays in this process,
one trial after another, so its result depends on the seed only, not on --jobs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from simulator.errors import ZoosimError
from simulator.games.learned import WEIGHTS_FORMAT, fit_ridge, load_weights, save_weights
from simulator.games.matches import deal_seeds, head_to_head, solo_rate
from simulator.games.nyz import features as NF
from simulator.games.nyz import step_api
from simulator.games.nyz.specs import EXPERT, FEATURE_NAMES, SET_MULTI, SET_NAMES, SET_SOLO
from simulator.games.nyz.state import D_DEST, SC_DECISION

# ridge penalty of the fit (learned.fit_ridge; columns standardised) and its held-out share
RIDGE_ALPHA = 1.0
HOLDOUT = 0.2

# Tuning ranges of each feature's weight (squares of final margin per unit); the features not
# listed keep weight 0 in that set. PRIOR starts each search beside the regression.
TUNE_RANGES = {
    "empty": (-2.0, 0.0), "holes": (-2.0, 0.0), "dead_ends": (-1.0, 0.0), "fill_share": (0.0, 8.0),
    "open_enclosures": (-3.0, 3.0), "unstarted_enclosures": (-3.0, 3.0),
    "animals_needed": (-3.0, 1.0), "breeders": (0.0, 4.0), "house_animals": (-1.0, 3.0),
    "breeding_ahead": (0.0, 4.0), "offer_fits": (-1.0, 1.0),
}
SOLO_TUNE_RANGES = {**TUNE_RANGES, "time_left": (0.0, 150.0), "empty_x_time_used": (-2.0, 0.0)}
PRIOR = {"empty": -1.0, "time_left": 40.0, "holes": -0.5, "dead_ends": -0.2, "fill_share": 3.0, "animals_needed": -1.0,
         "breeders": 1.0, "house_animals": 0.5, "breeding_ahead": 1.0}
TUNE_OPPONENT = "greedy_duel"
# the tuning record of the expert's weights (module docstring, "The expert's training")
EXPERT_NOT_TUNED = "none: the expert's weights are the fit on its own games, not tuned for play"
TUNE_TRIALS = 120  # per set and call (the shipped weights' budget; `zoosim train` uses it per round)
TUNE_DEALS = 100  # deals per trial: two-player deals in both seat orders, or solo games
TUNE_STARTUP_TRIALS = 10  # TPE's random trials before it models the scores
# the card of a trial's weights file (load_weights checks the game and the names only)
TRIAL_CARD = {"format": WEIGHTS_FORMAT, "game": "nyz", "features": list(FEATURE_NAMES), "sets": list(SET_NAMES),
              "rules": {}, "rules_hash": "", "seed": 0, "training_games": 0, "training_positions": 0,
              "command": "tuning trial", "fit": {}, "strength": None}


def play_and_record(params, seat_policies, seed: int, rotation: int, width: int = NF.N_FEATURES):
    """(features (positions, players, width), final empty squares (players,)) of one game: the
    14 features of `learned` and `strong` or, width NF.N_EXPERT_FEATURES, the expert's."""
    position = step_api.new_game(params, seat_policies, seed=seed, rotation=rotation,
                                 stop_at_forced=False)
    rows = []
    while not step_api.is_over(position):
        if position.state.sc[SC_DECISION] == D_DEST:
            rows.append(NF.all_seat_features(position.state, position.tables, width))
        step_api.apply(position, step_api.policy_move(position))
    players = params.players
    return np.array(rows).reshape(-1, players, width), -step_api.scores(position).astype(float)


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
    """Play one game per seed (rotation per game) and return per set name (rows (n, features),
    targets (n,)) (module docstring): the expert's features when the seats play `expert` (module
    docstring, "The expert's training"), else the 14 of `learned` and `strong`. New York Zoo
    takes no random decisions: `explore` must be 0."""
    if explore != 0.0:
        raise ZoosimError("nyz: training takes no exploration (explore: 0 only; New York Zoo's "
                          "policies draw no random decisions)")
    expert = bool(np.any(np.asarray(seat_policies.policy_ids) == EXPERT))
    width = NF.N_EXPERT_FEATURES if expert else NF.N_FEATURES
    own_set = SET_NAMES[SET_SOLO if params.players == 1 else SET_MULTI]
    rows, targets = [np.empty((0, width))], [np.empty(0)]
    for seed, rotation in zip(seeds, rotations):
        game_rows, game_targets = training_rows(*play_and_record(params, seat_policies, int(seed),
                                                                 int(rotation), width))
        rows.append(game_rows)
        targets.append(game_targets)
    empty = (np.empty((0, width)), np.empty(0))
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


def tune(weights, intercepts, rules: dict[str, Any], seed: int, trials: int | None = None,
         deals: int | None = None, incumbent: str | None = None,
         policy: str = "learned") -> tuple[np.ndarray, dict[str, dict[str, Any]]]:
    """(weights tuned for play, the tuning record per set name) from fit()'s weights (module
    docstring, "Tuning for play"): each set in SET_NAMES order, with TPE seeded by `seed` and the
    deals deal_seeds(seed + 100 x the set's index, deals). `trials` and `deals` default to
    TUNE_TRIALS and TUNE_DEALS (read when called). `incumbent`, a weights file (`zoosim train`'s
    best so far), is the multi set's opponent (`policy` with it) instead of TUNE_OPPONENT, and
    its rows start each search beside the regression and the prior. `policy` (a learned policy:
    `learned` or `strong`) plays the multi set's trials, so the weights are tuned for the player
    that will use them; solo trials are always `learned`'s (its solo win rate)."""
    if np.shape(weights)[1] != len(FEATURE_NAMES):  # the expert's evaluation: fitted only
        return np.array(weights, dtype=float), {name: {"objective": EXPERT_NOT_TUNED} for name in SET_NAMES}
    trials = TUNE_TRIALS if trials is None else trials
    deals = TUNE_DEALS if deals is None else deals
    if incumbent:
        incumbent_rows = load_weights(incumbent, "nyz", FEATURE_NAMES, SET_NAMES).weights
        opponent = (policy, {"weights": incumbent}), f"{policy} with the incumbent weights"
    else:
        incumbent_rows, opponent = None, ((TUNE_OPPONENT, {}), TUNE_OPPONENT)
    prior = np.array([PRIOR.get(feature, 0.0) for feature in FEATURE_NAMES])
    tuned = np.array(weights, dtype=float)
    records = {}
    with tempfile.TemporaryDirectory(prefix="nyz-tune-") as folder:
        for index, name in enumerate(SET_NAMES):
            starts = [tuned[index].copy(), prior] + ([incumbent_rows[index]] if incumbent else [])
            tuned[index], records[name] = _tune_set(tuned, intercepts, index, starts, opponent, policy, rules,
                                                    trials, deals, seed, Path(folder))
    return tuned, records


def _tune_set(weights, intercepts, index: int, starts, opponent, policy: str, rules, trials: int, deals: int,
              seed: int, folder: Path):
    """One set's tuned row and its record (tune()). `starts`: the rows of the first trials
    (clipped to the ranges); `opponent`: (the multi set's opponent seat, its name on the record);
    `policy`: the multi set's player."""
    import optuna

    from simulator.games import get_game

    game = get_game("nyz")
    solo = index == SET_SOLO
    ranges = SOLO_TUNE_RANGES if solo else TUNE_RANGES
    seeds = deal_seeds(seed + 100 * index, deals)

    def row(values: dict[str, float]) -> np.ndarray:
        trial = np.zeros(weights.shape[1])
        for feature, value in values.items():
            trial[FEATURE_NAMES.index(feature)] = value
        return trial

    def score(trial) -> float:
        values = {feature: trial.suggest_float(feature, *bounds) for feature, bounds in ranges.items()}
        candidate = weights.copy()
        candidate[index] = row(values)
        path = folder / f"{SET_NAMES[index]}-{trial.number:04d}.npz"  # a file per trial: learned caches by file
        save_weights(path, candidate, intercepts, TRIAL_CARD)
        if solo:
            return solo_rate(game, ("learned", {"weights": str(path)}), seeds, rules)
        return head_to_head(game, (policy, {"weights": str(path)}), opponent[0], seeds, rules)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(
        seed=seed, n_startup_trials=TUNE_STARTUP_TRIALS))
    for start in starts:
        study.enqueue_trial({feature: float(np.clip(start[FEATURE_NAMES.index(feature)], *bounds))
                             for feature, bounds in ranges.items()})
    study.optimize(score, n_trials=trials)
    scores = [trial.value for trial in study.trials] + [None] * len(starts)  # None: a start not played
    objective = "solo win rate" if solo else f"win share against {opponent[1]}"
    if not solo and policy != "learned":  # learned's words as before: the shipped card reproduces byte for byte
        objective += f", {policy} playing"
    record = {"objective": objective, "trials": trials,
              "deals": deals, "regression_score": scores[0], "prior_score": scores[1], "best_score": study.best_value}
    if len(starts) > 2:
        record["incumbent_score"] = scores[2]
    return row(study.best_params), record
