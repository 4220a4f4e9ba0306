"""`ascent`, a test-only game whose players get stronger with their budget and whose first seat's
edge fades as they do, to check that a ladder's climb (simulator/climb.py) stops when its top
rungs agree, at its cap, and where the top rung cannot climb (issue 23 item 4).

Policies: `thinker` with a `budget` (a whole number 1 to MAX_BUDGET; it climbs by doubling it,
as a search climbs by doubling its iterations) and `rote` (budget 1 as well, but it declares no
climb, as a heuristic). Every game draws, from its deal's seed and rotation, two uniform numbers
u and w. Seat 0 wins when u < EDGE / b0^2, b0 being the budget of the player in seat 0 (the edge
of moving first, which thought wipes out); otherwise w picks the winner with odds proportional to
the seats' budgets (the stronger player wins more). So in self-play at budget b seat 0 is
100 (1 - 1/n) EDGE / b^2 points above fair: 20, 5, 1.25, 0.31 points at 2 players for b = 1, 2,
4, 8 (`seat_zero_points`), and doubling b shrinks the difference between neighbouring rungs
fourfold: with a margin of 3 points, rungs 1 and 2 differ, 4 and 8 agree.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pydantic

from simulator.games.base import Climb, Game, ParamRange, PolicySpec
from simulator.schema import StrictModel
from tests_support import trace_from_batch
from tests.analysis.explain_game import winner_records

EDGE = 0.4
MAX_BUDGET = 16
THINKER, ROTE = 0, 1


class AscentParams(StrictModel):
    preset: Literal["standard"] = "standard"
    players: int = pydantic.Field(2, ge=2, le=4, json_schema_extra={"rule": "A-1"})


def seat_zero_points(budget: float, players: int) -> float:
    """Seat 0's expected points above fair in self-play at `budget`."""
    return 100.0 * (1.0 - 1.0 / players) * EDGE / budget**2


def _uniforms(seeds: np.ndarray, rotations: np.ndarray, count: int) -> np.ndarray:
    """(games, count) uniforms on [0, 1) from each game's seed and rotation (splitmix64 steps:
    a game depends on nothing else)."""
    state = seeds.astype(np.uint64) ^ (rotations.astype(np.uint64) * np.uint64(0xD1B54A32D192ED03))
    columns = []
    with np.errstate(over="ignore"):
        for step in range(1, count + 1):
            z = state + np.uint64(step) * np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            columns.append((z >> np.uint64(11)).astype(np.float64) / 2.0**53)
    return np.stack(columns, axis=1)


def _ascent_play_batch(params, seat_policies, seeds, rotations, check=False):
    n = params.players
    budgets = np.where(seat_policies.policy_ids == THINKER, seat_policies.policy_params[:, 0], 1.0)
    # slot k sits at seat (k + r) % n in rotation r (games/base.py), so seat s holds slot (s - r) % n
    seat_budget = budgets[(np.arange(n)[None, :] - rotations.astype(np.int64)[:, None]) % n]
    draws = _uniforms(np.asarray(seeds), np.asarray(rotations), 2)
    edge = draws[:, 0] < EDGE / seat_budget[:, 0] ** 2
    odds = np.cumsum(seat_budget, axis=1) / seat_budget.sum(axis=1, keepdims=True)
    drawn = np.minimum((draws[:, 1:2] >= odds).sum(axis=1), n - 1)
    winner = np.where(edge, 0, drawn)
    return winner_records(winner[:, None] == np.arange(n)[None, :], check)


ASCENT = Game(
    name="ascent",
    title="Ascent test game",
    rules_version=1,
    params_model=AscentParams,
    presets={"standard": {}},
    policies={
        "thinker": PolicySpec("thinker", THINKER, "stronger with a bigger budget", {"budget": 1.0},
                              ranges={"budget": ParamRange(1, MAX_BUDGET, integer=True)},
                              climb=Climb("budget", 2.0, "budget doubled")),
        "rote": PolicySpec("rote", ROTE, "budget 1, no climb"),
    },
    default_policy="thinker",
    end_reasons=("done",),
    violation_names=("none",),
    deal_travels_with_slot=True,
    players=lambda params: params.players,
    play_batch=_ascent_play_batch,
    trace=trace_from_batch(_ascent_play_batch),
    seat_columns=(),
    game_columns=(),
)
