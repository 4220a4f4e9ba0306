"""A test-only race game whose trajectory figures are known exactly (issue #43): lead changes,
the halfway leader's wins, comebacks by deficit, decisiveness and drama.

Two seats race for ROUNDS rounds. A deal is of one of KINDS (equally likely), which gives each
seat its chance to score in a round; in every round each seat scores the round's ROUND_POINTS
with its chance, independently, else 0 (the last round is worth more, so that a seat behind at
halfway keeps a fair chance: the comeback bands' chances stay away from 0, where no interval
for a rate covers well). The higher final score wins; equal scores share the win. A deal is played
GAMES_PER_DEAL times (as rotations would be), so the games of a deal are correlated (the deal is
the unit). Every outcome of a game is one of 4^ROUNDS score paths, so the true value of every
figure is an exact sum over them (`truth`), computed here by plain loops from the definitions in
the units' docstrings, independently of the units' code.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from simulator.analysis.gameplay import CellGames, Trajectories

PLAYERS = 2
ROUNDS = 6
HALFWAY = math.ceil(ROUNDS / 2)
KINDS = ((0.6, 0.4), (0.35, 0.55))  # per deal kind: each seat's chance to score in a round
ROUND_POINTS = (1, 1, 1, 1, 1, 3)
GAMES_PER_DEAL = 2


def play_records(rng: np.random.Generator, deals: int) -> CellGames:
    """The trajectory sample of `deals` deals (and the records the trajectory figures need)."""
    games = deals * GAMES_PER_DEAL
    deal = np.repeat(np.arange(deals), GAMES_PER_DEAL)
    chances = np.asarray(KINDS)[np.repeat(rng.integers(len(KINDS), size=deals), GAMES_PER_DEAL)]
    points = rng.random((games, ROUNDS, PLAYERS)) < chances[:, None, :]
    scores = np.cumsum(points * np.asarray(ROUND_POINTS)[None, :, None], axis=1).astype(float)
    final = scores[:, -1]
    win = final == final.max(axis=1, keepdims=True)
    sample = Trajectories(deal, np.full(games, ROUNDS), scores, win)
    return CellGames(PLAYERS, deal, {}, {"win": win}, trajectories=sample)


def _leader(scores: tuple[int, int]) -> int:
    return -1 if scores[0] == scores[1] else int(scores[1] > scores[0])


@functools.cache
def _paths() -> list[tuple[float, list[tuple[int, int]], tuple[bool, bool]]]:
    """Every (probability, scores after each round, winners) of a game, over the deal kinds."""
    paths = []
    for steps in itertools.product(((0, 0), (0, 1), (1, 0), (1, 1)), repeat=ROUNDS):
        for chance in KINDS:
            probability = 1.0 / len(KINDS)
            totals, history = [0, 0], []
            for step, worth in zip(steps, ROUND_POINTS):
                for seat in range(PLAYERS):
                    probability *= chance[seat] if step[seat] else 1 - chance[seat]
                    totals[seat] += worth * step[seat]
                history.append(tuple(totals))
            final = history[-1]
            paths.append((probability, history, (final[0] >= final[1], final[1] >= final[0])))
    return paths


def _lead_changes(history) -> int:
    changes, held = 0, -1
    for scores in history:
        leader = _leader(scores)
        if leader >= 0:
            changes += held >= 0 and leader != held
            held = leader
    return changes


@functools.cache
def truth(name: str, **given) -> float:
    """The exact value of a figure's item, as E[hits] / E[counted] over all paths."""
    hits = counted = 0.0
    for probability, history, winners in _paths():
        hit, count = _measure(name, history, winners, **given)
        hits += probability * hit
        counted += probability * count
    return hits / counted


def _measure(name: str, history, winners, **given) -> tuple[float, float]:
    sole = winners.index(True) if sum(winners) == 1 else -1
    if name == "changes":  # the share of games with given["changes"] (or, with "at_least", that many or more)
        changes = _lead_changes(history)
        return float(changes >= given["changes"] if given.get("at_least") else changes == given["changes"]), 1.0
    if name == "mean_changes":
        return float(_lead_changes(history)), 1.0
    if name == "halfway":
        leader = _leader(history[HALFWAY - 1])
        return (float(winners[leader]), 1.0) if leader >= 0 else (0.0, 0.0)
    if name == "comeback":  # trailing seats with low < deficit <= high at halfway, and those that won
        scores = history[HALFWAY - 1]
        hit = count = 0.0
        for seat in range(PLAYERS):
            deficit = max(scores) - scores[seat]
            if deficit > 0 and given["low"] < deficit <= given["high"]:
                count += 1
                hit += winners[seat]
        return hit, count
    if sole < 0:
        return 0.0, 0.0
    leads = [_leader(scores) == sole for scores in history]
    if name == "decided":
        first_for_good = ROUNDS
        while first_for_good > 1 and leads[first_for_good - 2]:
            first_for_good -= 1
        if not leads[-1]:
            first_for_good = ROUNDS
        return first_for_good / ROUNDS, 1.0
    if name == "drama":
        return sum(not led for led in leads[:-1]) / (ROUNDS - 1), 1.0
    raise ValueError(name)
