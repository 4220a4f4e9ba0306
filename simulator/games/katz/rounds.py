"""Katz's per-round score (Game.round_scores): each seat's running score (step_api.scores:
finished deals' totals plus the current hand, plus the seat bonus) after each turn-order round."""

from __future__ import annotations

from simulator.games import rounds
from simulator.games.katz import state as S
from simulator.games.katz import step_api


def rounds_done(state: step_api.KatzState) -> int:
    """Rounds finished: a round ends when the next one begins (S_TABLE_ROUNDS counts those begun)."""
    return max(int(state.scalars[S.S_TABLE_ROUNDS]) - 1, 0)


def round_scores(params, seat_policies, seed: int, rotation: int):
    return rounds.play_rounds(step_api, rounds_done, params, seat_policies, seed, rotation)
