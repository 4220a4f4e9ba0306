"""`zoosim bench`: games per second per core for each game, policy and player count.

Each line plays the same policy in every seat in one process on one core, after a warm-up batch
has compiled (or loaded from cache) the kernels; batches double until `seconds` have passed.
Speed targets live here and in benchmarks/, never in timed unit tests.
"""

from __future__ import annotations

import time
from typing import Iterable, Iterator

import numpy as np

from simulator.errors import ZoosimError
from simulator.rundir import warn
from simulator.games import game_names, get_game
from simulator.games.base import batch_problem, call_game

CANDIDATE_PLAYERS = (1, 2, 3, 4, 5)


def measure(game_name: str, players: int, policy: str, seconds: float) -> float:
    """Games per second of one game/policy/player count on this core."""
    game = get_game(game_name)
    params = game.make_params({"players": players})
    seat_policies = game.seat_policies([(policy, {})] * players)

    def play(count: int, offset: int) -> None:
        seeds = np.arange(offset, offset + count, dtype=np.uint64)
        columns = call_game(game, "play_batch()", game.play_batch, params, seat_policies, seeds, np.zeros(count, dtype=np.int8))
        problem = batch_problem(game, columns, count, players)
        if problem is not None:
            raise ZoosimError(f"game '{game_name}' broke the game contract: {problem}")

    play(8, 0)  # compile or load cached kernels
    batch, played, elapsed = 64, 0, 0.0
    while elapsed < seconds:
        started = time.perf_counter()
        play(batch, 1_000 + played)
        elapsed += time.perf_counter() - started
        played += batch
        batch *= 2
    return played / elapsed


def run_bench(
    games: Iterable[str] | None, players: Iterable[int], policies: Iterable[str], seconds: float
) -> Iterator[str]:
    """Lines of the table for the named games; for every registered game when `games` is None,
    where a game that cannot be loaded (a broken plugin) is one warning line, and skipped."""
    players, policies = tuple(players), tuple(policies)
    yield f"{'game':6} {'policy':18} {'players':>7} {'games/s per core':>17}"
    for game_name in game_names() if games is None else games:
        try:
            game = get_game(game_name)
        except ZoosimError as error:
            if games is not None:
                raise
            warn(f"{error}; left out")
            continue
        for policy in policies or tuple(game.policies):
            if policy not in game.policies:
                raise ZoosimError(f"unknown policy '{policy}' for {game_name} (allowed: {', '.join(game.policies)})")
            for count in players or CANDIDATE_PLAYERS:
                try:
                    game.make_params({"players": count})
                except ZoosimError:
                    if players:
                        raise
                    continue  # not a standard player count of this game
                rate = measure(game_name, count, policy, seconds)
                yield f"{game_name:6} {policy:18} {count:>7} {rate:>17,.0f}"
