"""A test-only game whose game lengths, end reasons and component effects are known exactly
(issue #43), for the gameplay figures (simulator/analysis/gameplay).

Two players; a deal is played `GAMES_PER_DEAL` times (as rotations would be), and shares:
- a length part: turns = TURNS_BASE + U{0 .. DEAL_TURNS - 1} per deal + U{0 .. GAME_TURNS - 1}
  per game, rounds = ceil(turns / 2); the true quantiles follow from the convolution
  (`true_length_quantile`);
- an end-reason type: a "slow" deal ends by "deck_out" with probability SLOW_DECK_OUT, a fast one
  with FAST_DECK_OUT, the rest by "target"; deals are slow with probability 1/2, so the true
  share of "deck_out" is their mean, and games of a deal are correlated (the deal is the unit);
- a seat edge for seat 0 of EDGE_LOW or EDGE_HIGH (each with probability 1/2) per deal.
Components: seat s takes "boost" with probability BOOST_TAKE[s] (unequal: adjusting for the seat
matters), and a seat that took it against one that did not gains BOOST_EFFECT in win
probability; whatever the seat, P(win | took) - P(win | did not) = BOOST_EFFECT exactly (the
other seat's take cancels: derivation in `play_records`). "dud" is taken with probability 1/2
and changes nothing: its true difference is 0.
"""

from __future__ import annotations

import numpy as np

from simulator.analysis.gameplay import CellGames

PLAYERS = 2
GAMES_PER_DEAL = 4
END_REASONS = ("target", "deck_out")
TURNS_BASE, DEAL_TURNS, GAME_TURNS = 20, 10, 4  # no length has P(length <= x) within 0.025 of 0.5, 0.9, 0.95
SLOW_DECK_OUT, FAST_DECK_OUT = 0.75, 0.05
TRUE_DECK_OUT = (SLOW_DECK_OUT + FAST_DECK_OUT) / 2
EDGE_LOW, EDGE_HIGH = 0.0, 0.2  # seat 0's extra win probability, per deal
BOOST_TAKE = (0.8, 0.3)
BOOST_EFFECT = 0.2  # in win share
COMPONENTS = {"boost": "a boost", "dud": "a dud"}


def true_length_quantile(share: float, measure: str) -> float:
    """The exact quantile (smallest length with P(length <= x) >= share) of turns or rounds."""
    turns = TURNS_BASE + np.add.outer(np.arange(DEAL_TURNS), np.arange(GAME_TURNS)).ravel()
    lengths = turns if measure == "turns" else -(-turns // 2)
    values = np.sort(lengths)  # every combination equally likely
    return float(values[int(np.ceil(share * len(values))) - 1])


def play_records(rng: np.random.Generator, deals: int) -> CellGames:
    """The games of `deals` deals. Seat 0 wins with probability 1/2 + edge + BOOST_EFFECT (only
    seat 0 took the boost) or - BOOST_EFFECT (only seat 1) or + 0 (both or neither). For seat 0,
    P(win | took) - P(win | not) = [q1 (1/2 + e) + (1 - q1)(1/2 + e + B)] - [q1 (1/2 + e - B) +
    (1 - q1)(1/2 + e)] = B for any q1 and edge e, and the same for seat 1 by symmetry."""
    games = deals * GAMES_PER_DEAL
    deal = np.repeat(np.arange(deals), GAMES_PER_DEAL)
    per_game = lambda values: np.repeat(values, GAMES_PER_DEAL)  # noqa: E731 (a deal's value in each of its games)
    turns = TURNS_BASE + per_game(rng.integers(DEAL_TURNS, size=deals)) + rng.integers(GAME_TURNS, size=games)
    slow = per_game(rng.random(deals) < 0.5)
    deck_out = rng.random(games) < np.where(slow, SLOW_DECK_OUT, FAST_DECK_OUT)
    edge = per_game(np.where(rng.random(deals) < 0.5, EDGE_LOW, EDGE_HIGH))
    boost = rng.random((games, PLAYERS)) < np.asarray(BOOST_TAKE)
    dud = rng.random((games, PLAYERS)) < 0.5
    seat0 = 0.5 + edge + BOOST_EFFECT * (boost[:, 0].astype(float) - boost[:, 1])
    first_wins = rng.random(games) < seat0
    win = np.stack([first_wins, ~first_wins], axis=1)
    return CellGames(
        players=PLAYERS, deal=deal,
        game={"turns": turns, "rounds": -(-turns // 2), "end_reason": deck_out.astype(np.int8)},
        seat={"win": win, "boost": boost.astype(np.int16) * rng.integers(1, 4, size=(games, PLAYERS)),
              "dud": dud.astype(np.int16)},
        end_reasons=END_REASONS, components=COMPONENTS,
    )
