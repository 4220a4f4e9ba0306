"""Seeded head-to-head matches of any game played in this process through its play_batch:
the deals' seeds, a candidate's win share per deal over both seat orders, its solo win rate.
Shared by New York Zoo's tuning for play (nyz/training.py, `zoosim train`) and the benchmark
scripts (benchmarks/tune_heuristics.py and those that import it). No runner, no run folder: the
same seeds give the same figures in any process.

A seat is (policy name, parameters), as Game.seat_policies takes it; slot 0 is the candidate.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def deal_seeds(seed: int, deals: int) -> np.ndarray:
    return (np.arange(deals, dtype=np.uint64) + np.uint64(seed * 1_000_003 + 1)) * np.uint64(2654435761)


def deal_shares(game, candidate: tuple[str, dict], opponent: tuple[str, dict], seeds,
                rules: dict[str, Any] | None = None) -> np.ndarray:
    """Candidate's win share per deal, the mean over the deal's two seat orders (slot 0 is the
    candidate), two-player games under `rules` (the game's defaults when None)."""
    params = game.make_params({**(rules or {}), "players": 2})
    seating = game.seat_policies([candidate, opponent])
    both = np.concatenate([seeds, seeds])
    rotations = np.repeat(np.arange(2, dtype=np.int64), len(seeds))
    win = game.play_batch(params, seating, both, rotations)["win"].astype(float)
    # rotation r puts slot 0 in seat r; a shared win counts 1 / (number of winners)
    share = win / np.maximum(win.sum(axis=1, keepdims=True), 1)
    candidate_share = share[np.arange(len(both)), rotations]
    return candidate_share.reshape(2, len(seeds)).mean(axis=0)


def head_to_head(game, candidate: tuple[str, dict], opponent: tuple[str, dict], seeds,
                 rules: dict[str, Any] | None = None) -> float:
    """Candidate's win share over every deal in both seat orders (slot 0 is the candidate)."""
    return float(deal_shares(game, candidate, opponent, seeds, rules).mean())


def solo_rate(game, candidate: tuple[str, dict], seeds, rules: dict[str, Any] | None = None) -> float:
    """Candidate's win rate over one solo game per seed, under `rules`."""
    params = game.make_params({**(rules or {}), "players": 1})
    seating = game.seat_policies([candidate])
    return float(game.play_batch(params, seating, seeds, np.zeros(len(seeds), np.int64))["win"].mean())
