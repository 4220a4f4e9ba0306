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
from simulator.games import get_game

CANDIDATE_PLAYERS = (1, 2, 3, 4, 5)


def measure(game_name: str, players: int, policy: str, seconds: float) -> float:
    """Games per second of one game/policy/player count on this core."""
    game = get_game(game_name)
    params = game.make_params({"players": players})
    seat_policies = game.seat_policies([(policy, {})] * players)

    def play(count: int, offset: int) -> None:
        seeds = np.arange(offset, offset + count, dtype=np.uint64)
        game.play_batch(params, seat_policies, seeds, np.zeros(count, dtype=np.int8))

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
    games: Iterable[str], players: Iterable[int], policies: Iterable[str], seconds: float
) -> Iterator[str]:
    players, policies = tuple(players), tuple(policies)
    yield f"{'game':6} {'policy':18} {'players':>7} {'games/s per core':>17}"
    for game_name in games:
        game = get_game(game_name)
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
