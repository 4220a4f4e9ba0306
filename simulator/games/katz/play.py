"""The Katz batch play loop: one kernel call plays a whole batch (`play_batch`, base.Game) and
writes its record columns. It hands each decision to the seat's policy (policies.py) or search
policy (search.py) and applies it with the step rules (moves.py); it sits above both, so search
needs only the step rules.
"""

from __future__ import annotations

import threading

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.base import SeatPolicies
from simulator.games.katz import policies as P
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz.invariants import find_violation, record_violation
from simulator.games.katz.moves import (
    allocate_game, apply_move, card_table, final_half_points, legal_moves_into, max_moves,
    start_game, step_limit, winners_into,
)
from simulator.games.katz.params import Params, deck_cards, rule_array
from simulator.games.kernels import allocating, inline_kernel, kernel
from simulator.games.layouts import RecordColumns


# Record columns (their names and kernel output order: state.GAME_COLUMNS, SEAT_COLUMNS).
# The scalar each per-game column copies, by name; in GAME_COLUMNS' order for the kernel.
GAME_COLUMN_SCALAR = {
    "turns": S.S_TURNS, "rounds": S.S_TABLE_ROUNDS, "end_reason": S.S_END_REASON,
    "first_seat": S.S_FIRST_SEAT, "draws": S.S_DRAWS, "replacements": S.S_REPLACEMENTS,
    "keepers_placed": S.S_KEEPERS_PLACED, "covered_keepers": S.S_COVERED_KEEPERS,
    "extra_turns": S.S_EXTRA_TURNS, "skips": S.S_SKIPPED_TURNS, "skips_earned": S.S_SKIPS_EARNED,
    "passes": S.S_PASSES, "forced_passes": S.S_FORCED_PASSES, "no_fit_draws": S.S_NO_FIT_DRAWS,
    "dead_cell_draws": S.S_DEAD_CELL_DRAWS, "check_violations": S.S_VIOLATIONS,
    "first_violation": S.S_FIRST_VIOLATION, "last_mover": S.S_LAST_MOVER, "ender": S.S_ENDER,
}
GAME_COLUMN_SCALARS = tuple(GAME_COLUMN_SCALAR[name] for name in S.GAME_COLUMNS)
GAME_COLUMN_SCALAR_INDICES = np.asarray(GAME_COLUMN_SCALARS, dtype=np.int64)  # as the kernel reads them
SEAT_COLUMN_SCORE = S.SEAT_COLUMNS.index("score")
SEAT_COLUMN_WIN = S.SEAT_COLUMNS.index("win")
SEAT_COLUMN_RANK = S.SEAT_COLUMNS.index("rank")
SEAT_COLUMN_HAND_CARDS = S.SEAT_COLUMNS.index("hand_cards")
SEAT_COLUMN_CATS_HELD = S.SEAT_COLUMNS.index("cats_held")
# per-seat counters copied from the seats array: (column index, SEAT_* field)
SEAT_COUNTER_FIELDS = tuple((S.SEAT_COLUMNS.index(column), field) for column, field in (
    ("cards_drawn", S.SEAT_CARDS_DRAWN), ("keepers_replaced", S.SEAT_KEEPERS_REPLACED),
    ("zookeepers_placed", S.SEAT_ZOOKEEPERS_PLACED), ("extra_turns_taken", S.SEAT_EXTRA_TURNS),
    ("turns_skipped", S.SEAT_TURNS_SKIPPED), ("seat_turns", S.SEAT_TURNS),
    ("decisions", S.SEAT_DECISIONS),
))
RECORDS = RecordColumns(
    game=S.GAME_COLUMNS, seat=S.SEAT_COLUMNS, kernel_dtype=np.int64, default_dtype=S.COUNT_DTYPE,
    columns_first=True,
    dtypes={"end_reason": np.int8, "first_seat": np.int8, "first_violation": np.int8,
            "last_mover": np.int8, "ender": np.int8,
            "check_violations": np.int32, "score": S.SCORE_DTYPE, "win": np.bool_,
            "rank": np.int8},
)


# ---- whole games ---------------------------------------------------------------------------------


@inline_kernel
def choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count, rng, workspace,
                    search_workspace):
    """Index into moves[:count] chosen by the policy of the slot in the seat to decide. The
    policy receives public state and its own hand only (never `hidden` or other hands); the
    search policies (search.py) receive the game and sample what `ismcts` may not see."""
    scalars, cells, hidden, lines, hands, seats, events = game
    # workspace is None when every seat plays random (play_batch): numba then prunes the rest
    # before typing, and a random batch compiles without the heuristics (issue #25: a smaller
    # kernel, and no seat-to-policy lookups per decision)
    if workspace is None:
        return P.random_move(rng, count)
    seat = scalars[S.S_SEAT]
    slot = seats[seat, S.SEAT_SLOT]
    # search_workspace is None when no seat searches (KS.search_workspace): numba then prunes
    # this branch before typing, and the search is not compiled into the caller
    if search_workspace is not None and policy_ids[slot] >= KS.FIRST_SEARCH_POLICY:
        return KS.choose_move(policy_ids[slot], policy_params[slot], rules, cards, game, moves,
                              count, rng, workspace, search_workspace)
    return P.choose_move(
        policy_ids[slot], policy_params[slot], rules, cards, scalars, cells, lines,
        hands[seat], seats[seat, S.SEAT_HAND_LEN], seats, moves, count, rng, workspace,
    )


@allocating  # allocates buffers and one generator per game
def play_games(rules, cards, deck, policy_ids, policy_params, workspace, search_workspace, seeds,
               rotations, check, column_scalars, game_out, seat_out):
    """Play every game to the end; game_out[g, i] is scalar column_scalars[i] (the
    S.GAME_COLUMNS), seat_out[j, g, seat] is S.SEAT_COLUMNS[j] (column-major, so each column is one
    contiguous block for play_batch). `workspace`: the policies' (P.allocate_workspace), None
    when every seat plays random (this specialisation compiles without the heuristics).
    `search_workspace`: KS.search_workspace's (None when no seat searches: this specialisation
    compiles without the search). `check`: True in checked mode, None otherwise (that
    specialisation compiles without the invariants)."""
    game = allocate_game(rules, 0)
    scalars, cells, hidden, lines, hands, seats, events = game
    moves = np.empty(max_moves(rules), dtype=np.int64)
    cells_before = np.empty_like(cells)
    lines_scratch = np.empty_like(lines)
    counts = np.empty(rules[S.P_CARD_IDS], dtype=np.int64)
    win = np.empty(rules[S.P_PLAYERS], dtype=np.bool_)
    limit = step_limit(rules)
    rng = random_stream.new_state(0)
    for g in range(seeds.shape[0]):
        rng[0] = seeds[g]  # what random_stream.new_state(seeds[g]) holds, without allocating
        play_one_game(rules, cards, deck, policy_ids, policy_params, game, rng, rotations[g],
                      check, limit, moves, workspace, search_workspace, cells_before, lines_scratch,
                      counts)
        write_records(rules, scalars, seats, win, column_scalars, game_out[g], seat_out, g)


@kernel
def play_one_game(rules, cards, deck, policy_ids, policy_params, game, rng, rotation, check,
                  limit, moves, workspace, search_workspace, cells_before, lines_scratch, counts):
    """One game from its first deal to the end. A kernel of its own (no reference counting), so
    the per-decision calls and the helpers inlined into it run without numba's refcounts.
    `check` is True or None: for None numba prunes the `check is not None` branches before
    typing, so an unchecked batch never compiles the invariants (find_violation)."""
    scalars, cells, hidden, lines, hands, seats, events = game
    start_game(rules, cards, deck, game, rng, rotation)
    while scalars[S.S_PHASE] != S.PHASE_OVER:
        count = legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
        if count == 0 or scalars[S.S_STEPS] >= limit:
            record_violation(scalars, S.VIOLATION_NO_TERMINATION)
            break
        index = choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count,
                                rng, workspace, search_workspace)
        if count >= 2:  # a decision (turn-order facts, logs.TURN_ORDER_SEAT_COLUMNS)
            seats[scalars[S.S_SEAT], S.SEAT_DECISIONS] += 1
        deal_before = scalars[S.S_DEAL]
        if check is not None:
            for field in range(cells.shape[0]):  # a slice copy would need the NRT
                for cell in range(cells.shape[1]):
                    cells_before[field, cell] = cells[field, cell]
        apply_move(rules, cards, deck, game, rng, moves[index])
        if check is not None:
            record_violation(scalars, find_violation(rules, cards, game, deal_before,
                                                     cells_before, lines_scratch, counts, moves))


@kernel
def write_records(rules, scalars, seats, win, column_scalars, game_row, seat_out, g):
    for index in range(column_scalars.shape[0]):
        game_row[index] = scalars[column_scalars[index]]
    winners_into(rules, seats, scalars[S.S_FIRST_SEAT], win)
    players = rules[S.P_PLAYERS]
    for seat in range(players):
        score = final_half_points(rules, seats, seat)
        better = 0
        for other in range(players):
            better += final_half_points(rules, seats, other) > score
        seat_out[SEAT_COLUMN_SCORE, g, seat] = score  # half points; play_batch converts
        seat_out[SEAT_COLUMN_WIN, g, seat] = win[seat]
        seat_out[SEAT_COLUMN_RANK, g, seat] = better + 1
        seat_out[SEAT_COLUMN_HAND_CARDS, g, seat] = seats[seat, S.SEAT_TOTAL_HAND_CARDS]
        seat_out[SEAT_COLUMN_CATS_HELD, g, seat] = seats[seat, S.SEAT_TOTAL_PENALTY_CARDS]
        for column, field in SEAT_COUNTER_FIELDS:
            seat_out[column, g, seat] = seats[seat, field]


# ---- Python side: batches and the step API -------------------------------------------------------


def play_batch(params: Params, seat_policies: SeatPolicies, seeds, rotations, check: bool = False):
    """Play one game per seed (rotation per game, K-8.1), PIECE_GAMES games per kernel call;
    returns the record columns of base.py. With `check`, the T17 invariants run after every action and violations
    are counted in `check_violations` / `first_violation`."""
    players = params.players
    if seat_policies.players != players:
        raise ValueError(f"{seat_policies.players} seat policies for {players} players")
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    games = seeds.shape[0]
    rules, cards, deck = rule_tables(params)
    policy_ids = np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64)
    workspace = policy_workspace(rules, policy_ids)
    search_workspace = KS.search_workspace(rules, cards, deck, policy_ids, policy_params)
    columns = {name: np.empty(games, dtype=RECORDS.dtype(name)) for name in RECORDS.game}
    columns.update({name: np.empty((games, players), dtype=RECORDS.dtype(name)) for name in RECORDS.seat
                    if name != "score"})
    halves = np.empty((games, players), dtype=np.int32)  # the score column in half points
    for first in range(0, games, PIECE_GAMES):
        stop = min(games, first + PIECE_GAMES)
        game_out, seat_out = piece_buffers(stop - first, players)
        play_games(rules, cards, deck, policy_ids, policy_params, workspace, search_workspace,
                   seeds[first:stop], rotations[first:stop], True if check else None,
                   GAME_COLUMN_SCALAR_INDICES, game_out, seat_out)
        for index, name in enumerate(RECORDS.game):
            columns[name][first:stop] = game_out[:, index]
        for index, name in enumerate(RECORDS.seat):
            target = halves if index == SEAT_COLUMN_SCORE else columns[name]
            target[first:stop] = RECORDS.seat_column(seat_out, index)
    columns["score"] = points_from_halves(params, halves)
    return {name: columns[name] for name in (*RECORDS.game, *RECORDS.seat)}  # in RECORDS' order


# A rule set's tables (rule_array, card_table, deck_cards), built once per rule set and shared by
# every batch and thread: the kernels only read them (the deal shuffles a copy of the deck).
# Building them from the params took about a tenth of a millisecond per play_batch call, a
# fiftieth of a 1,000-game batch (issue #25). Keyed by the params' JSON (a params model is not
# hashable); at most RULE_TABLES_KEPT rule sets are kept, all dropped when more come.
RULE_TABLES_KEPT = 256
_rule_tables: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def rule_tables(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rules, cards, deck) of `params`: rule_array, card_table and deck_cards, not to be written."""
    key = params.model_dump_json()
    tables = _rule_tables.get(key)
    if tables is None:
        if len(_rule_tables) >= RULE_TABLES_KEPT:
            _rule_tables.clear()
        tables = _rule_tables[key] = (rule_array(params), card_table(params), deck_cards(params))
    return tables


def policy_workspace(rules: np.ndarray, policy_ids: np.ndarray):
    """The policies' scratch arrays for one batch (P.allocate_workspace), or None when every
    seat plays random: the play kernels compiled for None leave the heuristics out (a
    random-only batch is the C reference's game, issue #25). Search seats need the heuristics'
    workspace too (their rollouts and priors)."""
    if np.all(policy_ids == P.RANDOM):
        return None
    return P.allocate_workspace(rules)


# The kernel writes a batch's records as int64 into buffers of PIECE_GAMES games at most, which
# each thread keeps and reuses, and play_batch copies every piece into the record arrays (their
# own dtypes, a quarter to an eighth of the size). A fresh int64 pair per batch (23 MB per 50,000
# four-player games) cost a page fault per 4 KiB written and, when freed, an munmap whose TLB
# shootdown interrupts the other threads of the process: the system time that made two threads
# slower than two processes (issue #25). A piece stays in the cache while it is copied.
PIECE_GAMES = 8_192
_piece_buffers = threading.local()


def piece_buffers(games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    """This thread's kernel output buffers (RECORDS.allocate's shapes) for `games` <= PIECE_GAMES
    games: views of two flat int64 arrays kept per thread, not zeroed (write_records writes
    every column of every game)."""
    game_size, seat_size = PIECE_GAMES * len(RECORDS.game), PIECE_GAMES * len(RECORDS.seat) * players
    flat = getattr(_piece_buffers, "flat", None)
    if flat is None or flat[1].shape[0] < seat_size:
        flat = np.empty(game_size, dtype=np.int64), np.empty(seat_size, dtype=np.int64)
        _piece_buffers.flat = flat
    game_out = flat[0][:games * len(RECORDS.game)].reshape(games, len(RECORDS.game))
    seat_out = flat[1][:games * len(RECORDS.seat) * players].reshape(len(RECORDS.seat), games, players)
    return game_out, seat_out


def points_from_halves(params: Params, halves: np.ndarray) -> np.ndarray:
    """Scores from half points (K-4.5): int16 whole points, or float32 when some seat bonus is
    a half point (then scores can end in .5)."""
    if any(bonus % 2 for bonus in params.seat_bonus_halves):
        return (halves / 2).astype(np.float32)
    return (halves // 2).astype(S.SCORE_DTYPE)
