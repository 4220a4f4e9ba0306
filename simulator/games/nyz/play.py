"""New York Zoo batch play loop: whole batches in one kernel call (`play_batch`, base.Game) and
their record columns. Each decision goes to the seat's heuristic policy (policies.py) or search
policy (search.py); the step rules (moves.py) apply it. The loop sits above both, so the search
needs only the step rules.
"""

import numpy as np

from simulator.games.base import SeatPolicies
from simulator.games.kernels import allocating, by_ref, kernel, slot_of_seat
from simulator.games.layouts import RecordColumns
from simulator.games.nyz import policies
from simulator.games.nyz import search as NS
from simulator.games.nyz.invariants import check_invariants
from simulator.games.nyz.moves import (
    animals_of, apply_checked_move, apply_move, empty_squares, new_state, solo_score,
)
from simulator.games.nyz.state import (
    GAME_COLUMNS, P_ACQUIRED, P_ATTRACTIONS, P_ATTRACTION_SQUARES, P_BONUS_YOUNG, P_DECISIONS,
    P_ENCLOSURES, P_FILLED, P_HOUSE_ADDS, P_KEPT, P_PASSES, P_TURNS, P_WIN, P_YOUNG, R_PLAYERS,
    R_SOLO, SC_ACTIVE, SC_BREEDING_EVENTS, SC_DECIDER, SC_ENDER, SC_END_REASON,
    SC_FIRST_VIOLATION, SC_LAPS, SC_N_OPTIONS, SC_OVER, SC_ROUNDS, SC_SOLO_WON, SC_TURNS,
    SC_VIOLATIONS, SEAT_COLUMNS,
)
from simulator.games.nyz.tables import kernel_tables


# Record columns by their place in state.GAME_COLUMNS / SEAT_COLUMNS (kernel output order).
GAME_COLUMN_TURNS = GAME_COLUMNS.index("turns")
GAME_COLUMN_ROUNDS = GAME_COLUMNS.index("rounds")
GAME_COLUMN_END_REASON = GAME_COLUMNS.index("end_reason")
GAME_COLUMN_BREEDINGS = GAME_COLUMNS.index("breedings")
GAME_COLUMN_SOLO_WON = GAME_COLUMNS.index("solo_won")
GAME_COLUMN_SOLO_SCORE = GAME_COLUMNS.index("solo_score")
GAME_COLUMN_CHECK_VIOLATIONS = GAME_COLUMNS.index("check_violations")
GAME_COLUMN_FIRST_VIOLATION = GAME_COLUMNS.index("first_violation")
GAME_COLUMN_LAPS = GAME_COLUMNS.index("laps")
GAME_COLUMN_LAST_MOVER = GAME_COLUMNS.index("last_mover")
GAME_COLUMN_ENDER = GAME_COLUMNS.index("ender")
SEAT_COLUMN_SCORE = SEAT_COLUMNS.index("score")
SEAT_COLUMN_WIN = SEAT_COLUMNS.index("win")
SEAT_COLUMN_ENCLOSURES_PLACED = SEAT_COLUMNS.index("enclosures_placed")
SEAT_COLUMN_ENCLOSURES_FILLED = SEAT_COLUMNS.index("enclosures_filled")
SEAT_COLUMN_ATTRACTIONS = SEAT_COLUMNS.index("attractions")
SEAT_COLUMN_EMPTY_SQUARES = SEAT_COLUMNS.index("empty_squares")
SEAT_COLUMN_ANIMALS = SEAT_COLUMNS.index("animals")
SEAT_COLUMN_YOUNG = SEAT_COLUMNS.index("young")
SEAT_COLUMN_ACQUIRED = SEAT_COLUMNS.index("acquired")
SEAT_COLUMN_PASSES = SEAT_COLUMNS.index("passes")
SEAT_COLUMN_TURNS_PLAYED = SEAT_COLUMNS.index("turns_played")
SEAT_COLUMN_ATTRACTION_SQUARES = SEAT_COLUMNS.index("attraction_squares")
SEAT_COLUMN_BONUS_YOUNG = SEAT_COLUMNS.index("bonus_young")
SEAT_COLUMN_KEPT_FROM_FULL = SEAT_COLUMNS.index("kept_from_full")
SEAT_COLUMN_HOUSE_ADDS = SEAT_COLUMNS.index("house_adds")
SEAT_COLUMN_SEAT_TURNS = SEAT_COLUMNS.index("seat_turns")
SEAT_COLUMN_DECISIONS = SEAT_COLUMNS.index("decisions")


@kernel
def choose(st, tab, scratch, search_workspace):
    """Index into st.options of the move the deciding seat's policy takes: the heuristics
    (policies.py) or the search policy (search.py, with its workspace and a reference to its
    scratch game)."""
    # scratch and search_workspace are None when no seat searches (NS.search_workspace): numba
    # then prunes this branch before typing, and the search is not compiled into the caller
    if search_workspace is not None and st.policy_id[st.sc[SC_DECIDER]] >= NS.FIRST_SEARCH_POLICY:
        return NS.choose_move(st, tab, scratch, search_workspace)
    return policies.choose(st, tab)


@kernel
def play_out(st, tab, scratch, search_workspace, check):
    """Play a set-up game to its end with the seats' policies. `check` is True (a checked game:
    the invariants run after every move) or None: for None numba prunes the `check is not None`
    branches before typing, so an unchecked batch compiles no `check_invariants`.

    A kernel of its own: calls from here pass the state without reference counting (kernels.kernel).
    """
    if check is not None:
        check_invariants(st, tab)
    while st.sc[SC_OVER] == 0:
        if st.sc[SC_N_OPTIONS] >= 2:  # a decision (turn-order facts, logs.TURN_ORDER_SEAT_COLUMNS)
            st.seat[st.sc[SC_DECIDER], P_DECISIONS] += 1
        move = st.options[choose(st, tab, scratch, search_workspace)]
        if check is not None:
            apply_checked_move(st, tab, move)
        else:
            apply_move(st, tab, move)


@allocating
def play_games(tab, slot_policy_ids, slot_policy_params, scratch, search_workspace, seeds, rotations,
               check, game_out, seat_out):
    """Play every game of a batch. game_out[g, column], seat_out[g, seat, column] (GAME_COLUMNS,
    SEAT_COLUMNS in state.py). `scratch`, `search_workspace`: NS.search_workspace's (None when
    no seat searches: this specialisation compiles without the search). `check`: True in checked
    mode, None otherwise (that specialisation compiles without the invariants, play_out)."""
    checked = True if check is not None else False  # the state's flag (SC_CHECKED)
    players = tab.rules[R_PLAYERS]
    policy_id = np.empty(players, dtype=np.int8)
    # as wide as the rows given (base.MAX_POLICY_PARAMS): a constant of base.py compiled in here
    # would outlive an edit of it in the kernel cache, which does not key on base.py
    policy_params = np.empty((players, slot_policy_params.shape[1]), dtype=np.float64)
    for g in range(seeds.shape[0]):
        for seat in range(players):
            slot = slot_of_seat(seat, rotations[g], players)
            policy_id[seat] = slot_policy_ids[slot]
            policy_params[seat] = slot_policy_params[slot]
        st = new_state(tab, seeds[g], policy_id, policy_params, checked, False)
        play_out(by_ref(st), by_ref(tab), by_ref(scratch), search_workspace, check)
        game_out[g, GAME_COLUMN_TURNS] = st.sc[SC_TURNS]
        game_out[g, GAME_COLUMN_ROUNDS] = st.sc[SC_ROUNDS]
        game_out[g, GAME_COLUMN_END_REASON] = st.sc[SC_END_REASON]
        game_out[g, GAME_COLUMN_BREEDINGS] = st.sc[SC_BREEDING_EVENTS]
        game_out[g, GAME_COLUMN_SOLO_WON] = st.sc[SC_SOLO_WON]
        game_out[g, GAME_COLUMN_SOLO_SCORE] = solo_score(st, tab) if tab.rules[R_SOLO] != 0 else 0
        game_out[g, GAME_COLUMN_CHECK_VIOLATIONS] = st.sc[SC_VIOLATIONS]
        game_out[g, GAME_COLUMN_FIRST_VIOLATION] = st.sc[SC_FIRST_VIOLATION]
        game_out[g, GAME_COLUMN_LAPS] = st.sc[SC_LAPS]
        game_out[g, GAME_COLUMN_LAST_MOVER] = st.sc[SC_ACTIVE]  # the seat of the last turn
        game_out[g, GAME_COLUMN_ENDER] = st.sc[SC_ENDER]
        for seat in range(players):
            empty = empty_squares(st, tab, seat)
            seat_out[g, seat, SEAT_COLUMN_SCORE] = -empty
            seat_out[g, seat, SEAT_COLUMN_WIN] = st.seat[seat, P_WIN]
            seat_out[g, seat, SEAT_COLUMN_ENCLOSURES_PLACED] = st.seat[seat, P_ENCLOSURES]
            seat_out[g, seat, SEAT_COLUMN_ENCLOSURES_FILLED] = st.seat[seat, P_FILLED]
            seat_out[g, seat, SEAT_COLUMN_ATTRACTIONS] = st.seat[seat, P_ATTRACTIONS]
            seat_out[g, seat, SEAT_COLUMN_EMPTY_SQUARES] = empty
            seat_out[g, seat, SEAT_COLUMN_ANIMALS] = animals_of(st, seat)
            seat_out[g, seat, SEAT_COLUMN_YOUNG] = st.seat[seat, P_YOUNG]
            seat_out[g, seat, SEAT_COLUMN_ACQUIRED] = st.seat[seat, P_ACQUIRED]
            seat_out[g, seat, SEAT_COLUMN_PASSES] = st.seat[seat, P_PASSES]
            seat_out[g, seat, SEAT_COLUMN_TURNS_PLAYED] = st.seat[seat, P_TURNS]
            seat_out[g, seat, SEAT_COLUMN_ATTRACTION_SQUARES] = st.seat[seat, P_ATTRACTION_SQUARES]
            seat_out[g, seat, SEAT_COLUMN_BONUS_YOUNG] = st.seat[seat, P_BONUS_YOUNG]
            seat_out[g, seat, SEAT_COLUMN_KEPT_FROM_FULL] = st.seat[seat, P_KEPT]
            seat_out[g, seat, SEAT_COLUMN_HOUSE_ADDS] = st.seat[seat, P_HOUSE_ADDS]
            seat_out[g, seat, SEAT_COLUMN_SEAT_TURNS] = st.seat[seat, P_TURNS]
            seat_out[g, seat, SEAT_COLUMN_DECISIONS] = st.seat[seat, P_DECISIONS]


# ---------------------------------------------------------------------------------------------
# play_batch (base.Game): whole batches in one kernel call

RECORDS = RecordColumns(
    game=GAME_COLUMNS, seat=SEAT_COLUMNS, kernel_dtype=np.int32, default_dtype=np.int16,
    dtypes={"win": np.bool_, "solo_won": np.bool_, "end_reason": np.int8, "last_mover": np.int8,
            "ender": np.int8},
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
    scratch, search_workspace = NS.search_workspace(tables, seat_policies.policy_ids, seat_policies.policy_params)
    play_games(
        tables, seat_policies.policy_ids, seat_policies.policy_params, scratch, search_workspace,
        seeds, rotations, True if check else None, game_out, seat_out,
    )
    return RECORDS.unpack(game_out, seat_out)
