"""New York Zoo (Rosenberg, Feuerland 2020) for zoosim: the `GAME` object the runner uses.

Rules as implemented: seeds/new-york-zoo.md. Boards belong to seats (seat 0 = start player gets
the seat-1 board), so `deal_travels_with_slot` is False.
"""

import numpy as np

from simulator.games.base import Game, SeatPolicies
from simulator.games.kernel_cache import drop_stale_kernels
from simulator.games.nyz import params as nyz_params
from simulator.games.nyz.policies import POLICIES
from simulator.games.nyz.state import END_REASONS, INVARIANT_NAMES

drop_stale_kernels(__file__)  # before any kernel runs (numba loads its cache at the first call)

# per-game and per-seat record columns beyond the required ones (order = kernel output order)
GAME_COLUMNS = (
    "turns", "rounds", "end_reason", "breedings", "solo_won", "solo_score",
    "check_violations", "first_violation", "laps",
)
SEAT_COLUMNS = (
    "score", "win", "enclosures_placed", "enclosures_filled", "attractions", "empty_squares",
    "animals", "young", "acquired", "passes",
)
_BOOL_COLUMNS = {"win", "solo_won"}


def play_batch(params, seat_policies: SeatPolicies, seeds, rotations, check=False):
    """Play len(seeds) games in one numba call; returns the record columns (base.py).

    `score` = minus the empty squares left (0 for a complete board; higher is better).
    `check=True` runs the invariants after every move and counts violations in
    `check_violations` (`first_violation` = state.INVARIANT_NAMES index).
    """
    from simulator.games.nyz import engine

    tables = nyz_params.kernel_tables(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    games, players = len(seeds), params.players
    if seat_policies.players != players:
        raise ValueError(f"{seat_policies.players} policies for {players} players")
    game_out = np.zeros((games, len(GAME_COLUMNS)), dtype=np.int32)
    seat_out = np.zeros((games, players, len(SEAT_COLUMNS)), dtype=np.int32)
    engine.play_games(
        tables, seat_policies.policy_ids, seat_policies.policy_params, seeds, rotations,
        bool(check), game_out, seat_out,
    )
    columns = {}
    for i, name in enumerate(GAME_COLUMNS):
        columns[name] = game_out[:, i].astype(bool if name in _BOOL_COLUMNS else np.int16)
    for i, name in enumerate(SEAT_COLUMNS):
        columns[name] = seat_out[:, :, i].astype(bool if name in _BOOL_COLUMNS else np.int16)
    columns["end_reason"] = columns["end_reason"].astype(np.int8)
    return columns


def trace(params, seat_policies, seed, rotation=0):
    from simulator.games.nyz import render

    return render.trace(params, seat_policies, seed, rotation)


def final_position_svg(params, seat_policies, seed, rotation=0):
    from simulator.games.nyz import render

    return render.final_position_svg(params, seat_policies, seed, rotation)


GAME = Game(
    name="nyz",
    title="New York Zoo",
    rules_version=nyz_params.RULES_VERSION,
    params_model=nyz_params.Params,
    presets=nyz_params.PRESETS,
    policies=POLICIES,
    default_policy="greedy",
    end_reasons=END_REASONS,
    violation_names=("none",) + INVARIANT_NAMES[1:],
    length_columns=("breedings", "enclosures_placed", "enclosures_filled"),
    deal_travels_with_slot=False,
    players=lambda params: params.players,
    play_batch=play_batch,
    trace=trace,
    final_position_svg=final_position_svg,
    seat_columns=SEAT_COLUMNS[2:],
    game_columns=GAME_COLUMNS[3:],
)
