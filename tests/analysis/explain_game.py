"""`lever`, a test-only game whose two rule knobs give seat 0 known, overlapping advantages, to
check the explain study against exact Shapley shares (issue 24).

Every game draws, from its deal's seed and rotation, two uniform numbers u and w and a uniform
winner. With `gift` on, seat 0 wins when u < GIFT_RATE; with `bonus` on, seat 0 wins when
w < BONUS_RATE; otherwise the drawn winner wins. Both off, every seat's expected share is 1/n.
With A = {u < GIFT_RATE} and B = {w < BONUS_RATE} independent, seat 0's deviation from fair with
the events E switched on is (1 - 1/n) P(some event of E happens), so every Shapley share and
one-at-a-time effect is known exactly (`exact_effects`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pydantic

from simulator.games.base import Game, PolicySpec
from simulator.schema import StrictModel
from tests_support import trace_from_batch

GIFT_RATE = 0.2
BONUS_RATE = 0.1


class LeverParams(StrictModel):
    preset: Literal["standard"] = "standard"
    players: int = pydantic.Field(3, ge=2, le=5, json_schema_extra={"rule": "L-1"})
    gift: bool = pydantic.Field(True, description="seat 0 wins when u < 0.2", json_schema_extra={"rule": "L-2"})
    bonus: bool = pydantic.Field(True, description="seat 0 wins when w < 0.1", json_schema_extra={"rule": "L-3"})


def _lever_play_batch(params, seat_policies, seeds, rotations, check=False):
    games, n = len(seeds), params.players
    win = np.zeros((games, n), dtype=bool)
    for game, (seed, rotation) in enumerate(zip(seeds, rotations)):
        play = np.random.default_rng([int(seed), int(rotation)])
        u, w, drawn = play.random(), play.random(), play.integers(n)
        seat_zero = (params.gift and u < GIFT_RATE) or (params.bonus and w < BONUS_RATE)
        win[game, 0 if seat_zero else drawn] = True
    return winner_records(win, check)


def winner_records(win: np.ndarray, check: bool) -> dict[str, np.ndarray]:
    """The record columns of a test game that only draws its winners (`win`, games x seats): every
    game ten turns long, scored 1 for the winner; with `check`, the checked-mode columns of a game
    that breaks no invariant. The `ascent` game (climb_game.py) records its games so too."""
    games, n = win.shape
    checked = {}
    if check:
        checked = {"check_violations": np.zeros(games, dtype=np.int32), "first_violation": np.zeros(games, dtype=np.int8)}
    return {
        **checked,
        "turns": np.full(games, 10, dtype=np.int16),
        "rounds": np.full(games, 10 // n, dtype=np.int16),
        "end_reason": np.zeros(games, dtype=np.int8),
        "score": win.astype(np.int16),
        "win": win,
    }


def exact_effects(players: int) -> dict[str, float]:
    """Points: seat 0's deviation as written, each mechanism's Shapley share and effect alone."""
    scale = 100.0 * (1.0 - 1.0 / players)
    both = 1.0 - (1.0 - GIFT_RATE) * (1.0 - BONUS_RATE)
    gift_alone, bonus_alone = both - BONUS_RATE, both - GIFT_RATE  # removed by switching it off alone
    return {
        "deviation": scale * both,
        "gift_share": scale * (gift_alone + GIFT_RATE) / 2,
        "bonus_share": scale * (bonus_alone + BONUS_RATE) / 2,
        "gift_alone": scale * gift_alone,
        "bonus_alone": scale * bonus_alone,
    }


def exact_pairing_gain(players: int) -> float:
    """(var X + var Y) / var(X - Y) for seat 0's win X as written and Y with both mechanisms off
    in the same game: X - Y = 1 exactly when an event happens and the drawn winner is another seat.
    The rotations of a deal are independent games, so the per-deal means have the same ratio."""
    both = 1.0 - (1.0 - GIFT_RATE) * (1.0 - BONUS_RATE)
    written = both + (1.0 - both) / players
    moved = both * (1.0 - 1.0 / players)
    fair = 1.0 / players
    return (written * (1.0 - written) + fair * (1.0 - fair)) / (moved * (1.0 - moved))


LEVER = Game(
    name="lever",
    title="Lever test game",
    rules_version=1,
    params_model=LeverParams,
    presets={"standard": {}},
    policies={"fair": PolicySpec("fair", 0, "the only policy")},
    default_policy="fair",
    end_reasons=("done",),
    violation_names=("none",),
    deal_travels_with_slot=True,
    players=lambda params: params.players,
    play_batch=_lever_play_batch,
    trace=trace_from_batch(_lever_play_batch),
    seat_columns=(),
    game_columns=(),
)
