"""New York Zoo's per-round score (Game.round_scores): minus the empty squares left on each
seat's board (step_api.scores) after each round, a round being one turn per seat (the record's
`rounds` is ceil(turns / players))."""

from __future__ import annotations

from simulator.games import rounds
from simulator.games.nyz import step_api
from simulator.games.nyz.state import SC_PLAYERS, SC_TURNS


def rounds_done(position: step_api.Position) -> int:
    """Rounds finished: SC_TURNS counts the turns begun, so round r is over once turn
    r * players + 1 has begun."""
    return max(position.scalar(SC_TURNS) - 1, 0) // position.scalar(SC_PLAYERS)


def round_scores(params, seat_policies, seed: int, rotation: int):
    return rounds.play_rounds(step_api, rounds_done, params, seat_policies, seed, rotation)
