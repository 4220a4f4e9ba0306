"""Katz's per-round score (Game.round_scores): each seat's running score (step_api.scores:
finished deals' totals plus the current hand, plus the seat bonus) after each turn-order round.

The game is played through `Replay`, the step API's calls that games.rounds.play_rounds makes,
over the same kernels, with the move buffer and the policies' workspaces made once per game (as
play_batch makes them once per batch) and without the step API's check that a move is legal (the
policy picks among the legal moves), so a replay does less Python work per move than the step API.
The game is the one play_batch plays (the conformance kit's check_round_scores compares them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.games import rounds
from simulator.games.katz import policies as P
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz import step_api
from simulator.games.katz.moves import apply_move, legal_moves_into, max_moves
from simulator.games.katz.play import choose_for_seat


@dataclass
class ReplayedGame:
    """A step-API game with the buffers its replay reuses."""

    state: step_api.KatzState
    moves: np.ndarray
    workspace: tuple
    search_workspace: tuple


class Replay:
    """new_game, is_over, policy_move, apply, scores and winners (base.StepAPI's) for play_rounds."""

    @staticmethod
    def new_game(params, seat_policies, seed: int, rotation: int) -> ReplayedGame:
        state = step_api.new_game(params, seat_policies, seed, rotation)
        return ReplayedGame(state, np.empty(max_moves(state.rules), dtype=np.int64), P.allocate_workspace(state.rules),
                            KS.search_workspace(state.rules, state.cards, state.deck, state.policy_ids,
                                                state.policy_params))

    @staticmethod
    def is_over(game: ReplayedGame) -> bool:
        return step_api.is_over(game.state)

    @staticmethod
    def policy_move(game: ReplayedGame) -> int:
        state = game.state
        count = legal_moves_into(state.rules, state.cards, state.scalars, state.cells, state.lines, state.hands,
                                 state.seats, game.moves)
        index = choose_for_seat(state.rules, state.cards, state.game, state.policy_ids, state.policy_params,
                                game.moves, count, state.rng, game.workspace, game.search_workspace)
        return int(game.moves[index])

    @staticmethod
    def apply(game: ReplayedGame, move: int) -> None:
        state = game.state
        state.scalars[S.S_EVENT_COUNT] = 0  # as step_api.apply: the events of this move only
        apply_move(state.rules, state.cards, state.deck, state.game, state.rng, np.int64(move))

    @staticmethod
    def scores(game: ReplayedGame) -> np.ndarray:
        return step_api.scores(game.state)

    @staticmethod
    def winners(game: ReplayedGame) -> list[int]:
        return step_api.winners(game.state)


def rounds_done(game: ReplayedGame) -> int:
    """Rounds finished: a round ends when the next one begins (S_TABLE_ROUNDS counts those begun)."""
    return max(int(game.state.scalars[S.S_TABLE_ROUNDS]) - 1, 0)


def round_scores(params, seat_policies, seed: int, rotation: int):
    return rounds.play_rounds(Replay, rounds_done, params, seat_policies, seed, rotation)
