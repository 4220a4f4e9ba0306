"""New York Zoo (Rosenberg, Feuerland 2020) for zoosim: the `GAME` object the runner uses.

Rules as implemented: seeds/new-york-zoo.md. Boards belong to seats (seat 0 = start player gets
the seat-1 board), so `deal_travels_with_slot` is False.
"""

import numpy as np

from simulator.games.base import Game, SeatPolicies
from simulator.games.kernels import RecordColumns
from simulator.games.nyz import engine, render
from simulator.games.nyz import params as nyz_params
from simulator.games.nyz.policies import POLICIES
from simulator.games.nyz.search import SEARCH_POLICIES
from simulator.games.nyz.state import END_REASONS, INVARIANT_NAMES
from simulator.games.nyz.tables import kernel_tables


# per-game and per-seat record columns beyond the required ones (order = kernel output order)
GAME_COLUMNS = (
    "turns", "rounds", "end_reason", "breedings", "solo_won", "solo_score",
    "check_violations", "first_violation", "laps",
)
SEAT_COLUMNS = (
    "score", "win", "enclosures_placed", "enclosures_filled", "attractions", "empty_squares",
    "animals", "young", "acquired", "passes", "turns_played", "attraction_squares",
    "bonus_young", "kept_from_full", "house_adds",
)
# the statistics Board Game Arena keeps per player for this game, as record columns
SEAT_MEASURES = {
    "turns_played": "turns per player",
    "empty_squares": "empty squares",
    "attraction_squares": "attraction squares",
    "attractions": "attractions placed",
    "young": "animals bred (bonus included)",
    "bonus_young": "bonus-bred animals",
    "kept_from_full": "animals kept from full enclosures",
    "house_adds": "animals added from houses",
}
RECORDS = RecordColumns(
    game=GAME_COLUMNS, seat=SEAT_COLUMNS, kernel_dtype=np.int32, default_dtype=np.int16,
    dtypes={"win": np.bool_, "solo_won": np.bool_, "end_reason": np.int8},
)


_TABLES_CACHE: dict[str, object] = {}
_TABLES_CACHE_SIZE = 32


def _kernel_tables(params):
    """`kernel_tables(params)`, built once per distinct rule setting: a chunk is played in many
    sub-batches (simulator.progress) and a tune plays the same settings rung after rung, and
    building the tables costs as much as playing dozens of games. The kernels only read them."""
    key = params.model_dump_json()
    tables = _TABLES_CACHE.get(key)
    if tables is None:
        if len(_TABLES_CACHE) >= _TABLES_CACHE_SIZE:
            _TABLES_CACHE.clear()
        tables = _TABLES_CACHE[key] = kernel_tables(params)
    return tables


def play_batch(params, seat_policies: SeatPolicies, seeds, rotations, check=False):
    """Play len(seeds) games in one numba call; returns the record columns (base.py).

    `score` = minus the empty squares left (0 for a complete board; higher is better).
    `check=True` runs the invariants after every move and counts violations in
    `check_violations` (`first_violation` = state.INVARIANT_NAMES index).
    """
    tables = _kernel_tables(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    games, players = len(seeds), params.players
    if seat_policies.players != players:
        raise ValueError(f"{seat_policies.players} policies for {players} players")
    game_out, seat_out = RECORDS.allocate(games, players)
    engine.play_games(
        tables, seat_policies.policy_ids, seat_policies.policy_params, seeds, rotations,
        bool(check), game_out, seat_out,
    )
    return RECORDS.unpack(game_out, seat_out)


GAME = Game(
    name="nyz",
    title="New York Zoo",
    rules_version=nyz_params.RULES_VERSION,
    params_model=nyz_params.Params,
    presets=nyz_params.PRESETS,
    policies={**POLICIES, **SEARCH_POLICIES},
    default_policy="greedy",
    end_reasons=END_REASONS,
    violation_names=("none",) + INVARIANT_NAMES[1:],
    length_columns=("breedings", "enclosures_placed", "enclosures_filled"),
    deal_travels_with_slot=False,
    players=lambda params: params.players,
    play_batch=play_batch,
    trace=render.trace,
    steps=engine,
    legend=render.legend,
    final_position_svg=render.final_position_svg,
    seat_columns=SEAT_COLUMNS[2:],
    game_columns=GAME_COLUMNS[3:],
    seat_measures=SEAT_MEASURES,
)
