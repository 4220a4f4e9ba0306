"""The seat-balance step of `zoosim tune`: in every batch after the first, a quarter of the
trials (at least one, and never the whole batch) are proposed by a model of how the per-seat
knobs move each seat's win rate; the optimiser proposes the rest.

Why. Seat compensation is nearly separable: more for seat i (bonus points, houses) raises seat
i's win rate and takes a little from every other seat, and adding the same to every seat changes
little or nothing. A black-box optimiser learns only from the objective, one number per trial
(the worst seat's deviation), but every trial measures the deviation of every seat at every
player count. The model uses all of them, so one batch of trials pins down what the optimiser
would need many generations to find.

The model. For each player count n, every per-seat knob k set for all n seats gives features
c_ki for seat i: a numeric knob (Katz `seat_bonus_points`, New York Zoo `houses`) its value x_ki,
a categorical one (New York Zoo `start_animals`) one 0/1 column per choice but the first (does
seat i hold it?), each minus its mean over the seats, since only differences between seats
count. Then

    deviation_i = a_i + sum_k b_k . c_ki        (points from a fair 1/n)

a_i and the slopes b_k (one per numeric knob, one per choice) are fitted by least squares to
every seat of every setting played so far, each weighted by the games it played at n (a
deviation's variance falls as 1/games). The slopes are the model's knowledge; the proposals are
a Newton step from the incumbent (the fairest trial, within the constraints if any is, among
those that played the most games): its measured deviations, corrected by the slopes for a
change of the per-seat values,

    predicted_i(x) = deviation_i(incumbent) + sum_k b_k . (c_ki(x) - c_ki(incumbent)),

are driven towards zero by changing one or two per-seat values at a time (a numeric value one
grid step: a range's `step`, 1/50 of a continuous range; a choice to any other choice; pairs
because on a grid the fair differences may need two values moved at once), always the change
that lowers the predicted sum of squared deviations most, until none lowers it. The proposals
are that setting and its neighbours one change away, the fairest first by the predicted
objective (largest |deviation| of any seat and player count, then the sum of squares), leaving
out settings already tried. Whole-game knobs keep the incumbent's values, so its measured
deviations stay the right anchor; starting at the incumbent keeps the seats' common level where
it is. No proposal is made while the slopes cannot be fitted (too few distinct settings, or a
choice no trial has tried). As the proposals win, the incumbent moves and the next step starts
from there: a noisy Newton iteration, with the optimiser's trials exploring beside it and
racing giving the promising ones more games.

When. The step serves `seat_fairness` (the objective the seats' deviations predict), needs
per-seat knobs and a batch of 2 or more, and is off with `sampler: random`, which stays
plain random search (the baseline `benchmarks/tune_vs_random.py` measures). It is a pure
function of the trials told so far, so the tune stays deterministic and resumable. Its trials
say `proposed by: seat balance` in the report and trials.csv.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna

from simulator.tune.space import Parameter, seat_index

CONTINUOUS_STEPS = 50  # a continuous range is walked in steps of 1/50 of its width
MAX_MOVES = 1000  # a bound on the walk; each move lowers the predicted sum of squares


@dataclass(frozen=True)
class SeatKnob:
    """The optimiser parameters of one per-seat knob at one player count, in seat order."""

    players: int
    knob: str
    names: tuple[str, ...]  # names[i]: the parameter that sets seat i
    choices: tuple[Any, ...] | None  # a categorical knob's choices (optimiser values); None: numeric

    def features(self, setting: dict[str, Any]) -> np.ndarray:
        """Seat x column: a numeric knob's value, or for a categorical knob whether the seat holds
        each choice but the first; minus the mean over the seats (only differences count)."""
        if self.choices is None:
            columns = np.array([[float(setting[name])] for name in self.names])
        else:
            columns = np.array([[float(setting[name] == choice) for choice in self.choices[1:]] for name in self.names])
        return columns - columns.mean(axis=0)


def seat_knobs(parameters: list[Parameter]) -> list[SeatKnob]:
    """The per-seat knobs the model can move: one parameter for every seat of a player count."""
    by_knob: dict[tuple[int, str], dict[int, Parameter]] = {}
    for parameter in parameters:
        seat = seat_index(parameter)
        if seat is not None:
            by_knob.setdefault((parameter.players, parameter.knob), {})[seat] = parameter
    knobs = []
    for (players, knob), seats in sorted(by_knob.items()):
        if sorted(seats) == list(range(players)):
            distribution = seats[0].distribution
            choices = tuple(distribution.choices) if isinstance(distribution, optuna.distributions.CategoricalDistribution) else None
            knobs.append(SeatKnob(players, knob, tuple(seats[i].name for i in range(players)), choices))
    return knobs


def balance_proposals(trials: list[optuna.trial.FrozenTrial], parameters: list[Parameter], count: int) -> list[dict[str, Any]]:
    """Up to `count` untried settings the model predicts fairest (none when it cannot be fitted)."""
    knobs = seat_knobs(parameters)
    # a setting proposed again was not played again (same deals, same result): count it once
    told = list({_key(t.params): t for t in reversed(trials)
                 if t.state == optuna.trial.TrialState.COMPLETE and "by_players" in t.user_attrs}.values())
    if not knobs or not told:
        return []
    incumbent = _incumbent(told)
    models = []
    for players in sorted({k.players for k in knobs}):
        here = [k for k in knobs if k.players == players]
        slopes = _fit_slopes(told, here, players)
        if slopes is None:
            return []
        measured = incumbent.user_attrs["by_players"][str(players)]["seat_deviation_points"]
        models.append(_SeatModel(here, slopes, np.array(measured), incumbent.params))
    distributions = {p.name: p.distribution for p in parameters}
    best = dict(incumbent.params)
    for model in models:
        best = model.walk(best, distributions)
    candidates = [best] + [
        {**best, name: value}
        for model in models for name in model.names for value in _neighbours(best[name], distributions[name])
    ]

    def predicted(setting: dict[str, Any]) -> tuple[float, float]:
        deviations = np.concatenate([model.predict(setting) for model in models])
        return float(np.max(np.abs(deviations))), float(np.sum(deviations**2))

    tried = {_key(t.params) for t in trials}
    untried = [c for c in candidates if _key(c) not in tried]
    return sorted(untried, key=predicted)[:count]


def _incumbent(told: list[optuna.trial.FrozenTrial]) -> optuna.trial.FrozenTrial:
    """The fairest trial (within the constraints if any is) of those that played the most games."""
    top = max(t.user_attrs["rung"] for t in told)

    def unfairness(trial: optuna.trial.FrozenTrial) -> float:
        return max(abs(d) for m in trial.user_attrs["by_players"].values() for d in m["seat_deviation_points"])

    return min((t for t in told if t.user_attrs["rung"] == top),
               key=lambda t: (not t.user_attrs["feasible"], unfairness(t), t.number))


def _features(setting: dict[str, Any], knobs: list[SeatKnob]) -> np.ndarray:
    """Seat x feature: every knob's centred columns side by side."""
    return np.hstack([knob.features(setting) for knob in knobs])


def _fit_slopes(told: list[optuna.trial.FrozenTrial], knobs: list[SeatKnob], players: int) -> np.ndarray | None:
    """Weighted least squares of every seat's deviation on a seat intercept and the knobs'
    centred features; None when the slopes are not determined by the trials."""
    rows, targets, weights = [], [], []
    seat_columns = np.eye(players)  # row i: seat i's intercept indicator
    for trial in told:
        measured = trial.user_attrs["by_players"].get(str(players))
        if measured is None or not all(name in trial.params for k in knobs for name in k.names):
            continue
        centred = _features(trial.params, knobs)
        for seat in range(players):
            rows.append(np.concatenate([seat_columns[seat], centred[seat]]))
            targets.append(measured["seat_deviation_points"][seat])
            weights.append(measured["games"])
    if not rows:
        return None
    design, root = np.array(rows), np.sqrt(np.array(weights, dtype=float))
    if np.linalg.matrix_rank(design) < design.shape[1]:
        return None
    solution, *_ = np.linalg.lstsq(design * root[:, None], np.array(targets) * root, rcond=None)
    return solution[players:]


class _SeatModel:
    """Predicted seat deviations at one player count: the incumbent's, moved by the slopes."""

    def __init__(self, knobs: list[SeatKnob], slopes: np.ndarray, measured: np.ndarray, anchor: dict[str, Any]):
        self.knobs, self.slopes, self.measured = knobs, slopes, measured
        self.names = [name for knob in knobs for name in knob.names]
        self.anchor = self._shift(anchor)

    def _shift(self, setting: dict[str, Any]) -> np.ndarray:
        return _features(setting, self.knobs) @ self.slopes

    def predict(self, setting: dict[str, Any]) -> np.ndarray:
        return self.measured + self._shift(setting) - self.anchor

    def walk(self, start: dict[str, Any], distributions: dict[str, optuna.distributions.BaseDistribution]) -> dict[str, Any]:
        """Greedy grid descent of the predicted sum of squared deviations."""

        def squares(setting: dict[str, Any]) -> float:
            return float(np.sum(self.predict(setting) ** 2))

        current, value = start, squares(start)
        for _ in range(MAX_MOVES):
            steps = {name: _neighbours(current[name], distributions[name]) for name in self.names}
            singles = [{**current, name: v} for name in self.names for v in steps[name]]
            # pairs too: on a grid, the fair differences may need two values moved at once
            pairs = [{**current, first: u, second: v} for i, first in enumerate(self.names) for u in steps[first]
                     for second in self.names[i + 1:] for v in steps[second]]
            scored = [(squares(move), move) for move in singles + pairs]
            best_value, best = min(scored, key=lambda pair: pair[0], default=(None, None))
            if best is None or best_value >= value - 1e-12:
                break
            current, value = best, best_value
        return current


def _neighbours(value: Any, distribution: optuna.distributions.BaseDistribution) -> list[Any]:
    """The values one grid step below and above, inside the range; a choice's other choices."""
    if isinstance(distribution, optuna.distributions.CategoricalDistribution):
        return [choice for choice in distribution.choices if choice != value]
    step = distribution.step or (distribution.high - distribution.low) / CONTINUOUS_STEPS
    kind = int if isinstance(distribution, optuna.distributions.IntDistribution) else float
    candidates = [kind(round(value - step, 12)), kind(round(value + step, 12))]
    return [v for v in candidates if distribution.low <= v <= distribution.high]


def _key(params: dict[str, Any]) -> tuple:
    return tuple(sorted(params.items()))
