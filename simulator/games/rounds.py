"""Per-round scores by the step API (issue #43's trajectory figures): one game replayed a
decision at a time, each seat's score read after every round. A game declares its per-round
score as `Game.round_scores`; Katz and New York Zoo build theirs with `play_rounds` from their
step API, their round counter and their own score.

A game played by `play_rounds` is the game play_batch plays for the same (seed, rotation): the
step API's contract (base.StepAPI) is that following `policy_move` replays it exactly.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from simulator.games.base import SeatPolicies, StepAPI


def play_rounds(steps: StepAPI, rounds_done: Callable[[Any], int], params: Any, seat_policies: SeatPolicies,
                seed: int, rotation: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores (rounds, players) float64, win (players,) bool) of the game play_batch plays for
    (seed, rotation), played by `steps` (the game's step API, or an object with the calls made
    here: new_game, is_over, policy_move, apply, scores, winners): row r is each seat's `steps.scores` once `rounds_done(state)` (the rounds
    the game has finished) reached r + 1, the last row the final scores, so a game of R rounds
    has R rows; `win` marks the winners after the tie-break (several on a shared win)."""
    state = steps.new_game(params, seat_policies, seed, rotation)
    rows = []
    done = rounds_done(state)
    while not steps.is_over(state):
        steps.apply(state, steps.policy_move(state))
        finished = rounds_done(state)
        if finished > done and not steps.is_over(state):
            rows.extend([np.asarray(steps.scores(state), dtype=np.float64)] * (finished - done))
        done = finished
    rows.append(np.asarray(steps.scores(state), dtype=np.float64))
    win = np.zeros(len(rows[-1]), dtype=np.bool_)
    win[steps.winners(state)] = True
    return np.vstack(rows), win
