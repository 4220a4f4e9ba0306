"""The Katz engine: numba kernels that deal, list legal moves, apply moves, sequence turns, end
deals, score and pick winners, check the T17 invariants, and play whole batches of games
(`play_batch`); plus the Python step API (`new_game`, `legal_moves`, `apply`, `is_over`,
`scores`, `winners`, `policy_move`) that drives the very same kernels one move at a time.

A game is the tuple `game = (scalars, cells, hidden, lines, hands, seats, events)` laid out in
state.py. What fits where, legal placements, value effects and hand scores come from rules.py,
which the policies share. Rule ids (K-...) refer to seeds/alles-fuer-die-katz.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.base import InvariantViolation, SeatPolicies
from simulator.games.katz import policies as P
from simulator.games.katz import rules as R
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz.params import Params, deck_cards, rule_array
from simulator.games.kernels import allocating, inline_kernel, kernel, slot_of_seat
from simulator.games.layouts import RecordColumns

# Record columns (their names: state.py), in kernel output order.
GAME_COLUMN_SCALARS = (
    S.S_TURNS, S.S_TABLE_ROUNDS, S.S_END_REASON, S.S_FIRST_SEAT, S.S_DRAWS, S.S_REPLACEMENTS,
    S.S_KEEPERS_PLACED, S.S_COVERED_KEEPERS, S.S_EXTRA_TURNS, S.S_SKIPPED_TURNS,
    S.S_SKIPS_EARNED, S.S_PASSES, S.S_FORCED_PASSES, S.S_NO_FIT_DRAWS, S.S_DEAD_CELL_DRAWS,
    S.S_VIOLATIONS, S.S_FIRST_VIOLATION,
)
SEAT_SCORE, SEAT_WIN, SEAT_RANK, SEAT_HAND_CARDS, SEAT_CATS_HELD = range(5)
# per-seat counters copied from the seats array: (column index, SEAT_* field)
SEAT_COUNTER_FIELDS = (
    (5, S.SEAT_CARDS_DRAWN), (6, S.SEAT_KEEPERS_REPLACED), (7, S.SEAT_ZOOKEEPERS_PLACED),
    (8, S.SEAT_EXTRA_TURNS), (9, S.SEAT_TURNS_SKIPPED),
)
RECORDS = RecordColumns(
    game=S.GAME_COLUMNS, seat=S.SEAT_COLUMNS, kernel_dtype=np.int64, default_dtype=S.COUNT_DTYPE,
    columns_first=True,
    dtypes={"end_reason": np.int8, "first_seat": np.int8, "first_violation": np.int8,
            "check_violations": np.int32, "score": S.SCORE_DTYPE, "win": np.bool_,
            "rank": np.int8},
)


# ---- allocation and set-up (K-2) ----------------------------------------------------------------


@allocating  # allocates: keeps reference counting
def allocate_game(rules, event_capacity):
    """Zeroed arrays of one game; see state.py for the layout."""
    players = rules[S.P_PLAYERS]
    scalars = np.zeros(S.S_SIZE, dtype=np.int64)
    cells = np.zeros((2, rules[S.P_CELLS]), dtype=np.int16)
    hidden = np.zeros(rules[S.P_CELLS] + rules[S.P_DECK_SIZE], dtype=np.int16)
    lines = np.zeros((S.LINE_FIELDS, rules[S.P_ROWS] + rules[S.P_COLS]), dtype=np.int64)
    hands = np.zeros((players, rules[S.P_DECK_SIZE]), dtype=np.int16)
    seats = np.zeros((players, S.SEAT_FIELDS), dtype=np.int64)
    events = np.zeros((event_capacity, S.EVENT_FIELDS), dtype=np.int64)
    return scalars, cells, hidden, lines, hands, seats, events


@kernel
def max_moves(rules):
    """Size of a move buffer: draws + (bare keeper, distinct card) replacements + pass, which
    also bounds placements (distinct cards + keeper)."""
    return rules[S.P_CELLS] * (rules[S.P_CARD_IDS] + 1) + rules[S.P_CARD_IDS] + 2


@inline_kernel
def emit(scalars, events, code, seat, cell, card):
    """Append a trace event if the log has room (play_batch passes a log of capacity 0)."""
    index = scalars[S.S_EVENT_COUNT]
    if index < events.shape[0]:
        events[index, S.EVENT_CODE] = code
        events[index, S.EVENT_SEAT] = seat
        events[index, S.EVENT_CELL] = cell
        events[index, S.EVENT_CARD] = card
        scalars[S.S_EVENT_COUNT] = index + 1


@kernel
def recount_lines(rules, cards, cells, lines):
    """Rebuild the line summaries from the cells; returns True if some line shows two face-up
    cards of one blocking kind (T17.1). Used for scripted states and by the checked mode."""
    blocking = rules[S.P_BLOCKING_KINDS]
    lines[:, :] = 0
    duplicate = False
    for cell in range(rules[S.P_CELLS]):
        state = cells[S.CELL_STATE, cell]
        card = cells[S.CELL_CARD, cell]
        for line in R.cell_lines(rules, cell):
            if state == S.FACE_DOWN:
                lines[S.LINE_FACE_DOWN, line] += 1
            elif state == S.FACE_UP:
                bit = cards[card, S.CARD_KIND_BIT] & blocking
                if lines[S.LINE_FACE_UP_KINDS, line] & bit:
                    duplicate = True
                lines[S.LINE_FACE_UP_KINDS, line] |= bit
            elif state == S.KEEPER or state == S.KEEPER_OVER:
                lines[S.LINE_KEEPERS, line] += 1
                if state == S.KEEPER_OVER:
                    lines[S.LINE_COVERED_KINDS, line] |= cards[card, S.CARD_KIND_BIT] & blocking
    return duplicate


@kernel
def start_game(rules, cards, deck, game, rng, rotation):
    """Fresh game for a seed's stream: slot j sits in seat (j + rotation) % n (K-8.1), then the
    first deal."""
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    scalars[:] = 0
    seats[:, :] = 0
    for seat in range(players):
        seats[seat, S.SEAT_SLOT] = slot_of_seat(seat, rotation, players)
    begin_deal(rules, cards, deck, game, rng)
    settle(rules, cards, deck, game, rng)


@kernel
def begin_deal(rules, cards, deck, game, rng):
    """K-2: shuffle, deal to slots 0..n-1 in order, lay the rest face down row by row, set the
    leftover aside; the start seat moves on by one each deal (K-4.4). Hands (K-2.4, K-2.5): slot
    j takes cards [j * base, (j + 1) * base) of the shuffle (base = the smallest seat hand), then
    the cards its seat holds beyond base from the cards after those blocks, slots in order; the
    zoo follows. With equal hands (the box) that is hand_size consecutive cards per slot."""
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    base = rules[S.P_HAND_BASE]
    cell_count = rules[S.P_CELLS]
    deck_size = deck.shape[0]
    # The shuffle runs in hidden's tail; the cards left there at the end are the set-aside ones.
    shuffled = hidden[cell_count:cell_count + deck_size]
    for index in range(deck_size):
        shuffled[index] = deck[index]
    random_stream.shuffle(rng, shuffled)
    for seat in range(players):
        first = seats[seat, S.SEAT_SLOT] * base
        for index in range(base):
            hands[seat, index] = shuffled[first + index]
        seats[seat, S.SEAT_HAND_LEN] = rules[S.P_SEAT_HAND_SIZES + seat]
        seats[seat, S.SEAT_SKIP_PENDING] = 0
    dealt = players * base
    if rules[S.P_HAND_EXTRA_CARDS] > 0:  # K-2.5: cards beyond base, slots in order
        for slot in range(players):
            for seat in range(players):
                if seats[seat, S.SEAT_SLOT] == slot:
                    for index in range(base, seats[seat, S.SEAT_HAND_LEN]):
                        hands[seat, index] = shuffled[dealt]
                        dealt += 1
    for cell in range(cell_count):
        hidden[cell] = shuffled[dealt + cell]
        cells[S.CELL_STATE, cell] = S.FACE_DOWN
        cells[S.CELL_CARD, cell] = S.NO_CARD
    set_aside = deck_size - dealt - cell_count
    for index in range(set_aside):  # forward copy: the source is never behind the target
        shuffled[index] = shuffled[dealt + cell_count + index]
    scalars[S.S_SET_ASIDE] = set_aside
    recount_lines(rules, cards, cells, lines)
    scalars[S.S_FACE_DOWN] = cell_count
    scalars[S.S_SUPPLY] = rules[S.P_KEEPERS] if rules[S.P_KEEPERS] != S.UNLIMITED else 0
    deal = scalars[S.S_DEAL]
    if deal == 0:  # K-2.4
        first_seat = 0
        if rules[S.P_FIRST_PLAYER_RANDOM]:
            first_seat = random_stream.randint(rng, players)
        scalars[S.S_FIRST_SEAT] = first_seat
    start_seat = (scalars[S.S_FIRST_SEAT] + deal) % players
    scalars[S.S_START_SEAT] = start_seat
    scalars[S.S_GAP] = -1
    scalars[S.S_FINAL_TURNS_LEFT] = -1
    scalars[S.S_PASS_STREAK] = 0
    scalars[S.S_END_REASON] = -1
    scalars[S.S_INITIAL_KEEPERS] = 0
    scalars[S.S_BARE_KEEPERS] = 0
    scalars[S.S_FIRST_TURN] = 1  # K-3.8: until the start seat's first action is done
    emit(scalars, events, S.EV_DEAL, start_seat, deal, -1)
    begin_seat_turn(rules, cards, game, start_seat)


@inline_kernel
def settle(rules, cards, deck, game, rng):
    """After a deal ended: deal the next one (K-4.4) or end the game."""
    scalars = game[0]
    while scalars[S.S_PHASE] == S.PHASE_DEAL_OVER:
        scalars[S.S_DEAL] += 1
        if scalars[S.S_DEAL] < rules[S.P_ROUNDS]:
            begin_deal(rules, cards, deck, game, rng)
        else:
            scalars[S.S_DEAL] -= 1
            scalars[S.S_PHASE] = S.PHASE_OVER


# ---- legal moves (K-3.2, K-3.4) -----------------------------------------------------------------


@inline_kernel
def replacement_moves(rules, cards, cells, lines, hand, hand_len, out, count):
    """K-3.4: one move per (bare keeper, distinct fitting hand card), appended at out[count]."""
    if rules[S.P_ALLOW_REPLACEMENT] == 0:
        return count
    has_copies = rules[S.P_COPIES] > 1
    cell_count = rules[S.P_CELLS]
    for cell in range(cell_count):
        if cells[S.CELL_STATE, cell] != S.KEEPER:
            continue
        visible = R.cell_visible_kinds(rules, lines, cell)
        for slot in range(hand_len):
            card = hand[slot]
            if R.card_fits(cards[card, S.CARD_KIND_BIT], visible):
                if has_copies and R.repeated_in_hand(hand, slot):
                    continue
                out[count] = R.encode_move(S.MOVE_REPLACE, cell, card)
                count += 1
    return count


@inline_kernel
def legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, out):
    """The current decision's legal moves, written to `out`; returns their count."""
    phase = scalars[S.S_PHASE]
    seat = scalars[S.S_SEAT]
    hand = hands[seat]
    hand_len = seats[seat, S.SEAT_HAND_LEN]
    if phase == S.PHASE_PLACE:
        first_slot = R.placement_first_slot(rules, scalars, hand_len)  # K-3.8
        return R.placement_outcomes(rules, cards, lines, scalars[S.S_GAP], hand[first_slot:],
                                    hand_len - first_slot, out)
    if phase != S.PHASE_ACTION:
        return 0
    count = 0
    cell_count = rules[S.P_CELLS]
    if R.draw_available(rules, scalars):  # K-3.2.1: any face-down cell
        for cell in range(cell_count):
            if cells[S.CELL_STATE, cell] == S.FACE_DOWN:
                out[count] = R.encode_move(S.MOVE_DRAW, cell, 0)
                count += 1
    if scalars[S.S_BARE_KEEPERS] > 0 and hand_len > 0:
        count = replacement_moves(rules, cards, cells, lines, hand, hand_len, out, count)
    if rules[S.P_ALLOW_PASS]:  # K-3.2.6
        out[count] = R.encode_move(S.MOVE_PASS, 0, 0)
        count += 1
    return count


@kernel
def has_legal_action(rules, cards, scalars, cells, lines, hands, seats, seat):
    """Can the seat draw, pass, or replace some bare keeper with a fitting card (K-3.4)?"""
    if R.draw_available(rules, scalars) or rules[S.P_ALLOW_PASS]:
        return True
    if rules[S.P_ALLOW_REPLACEMENT] == 0 or scalars[S.S_BARE_KEEPERS] == 0:
        return False
    held_kinds = 0
    for slot in range(seats[seat, S.SEAT_HAND_LEN]):
        held_kinds |= cards[hands[seat, slot], S.CARD_KIND_BIT]
    for cell in range(rules[S.P_CELLS]):
        if cells[S.CELL_STATE, cell] == S.KEEPER:
            if held_kinds & ~R.cell_visible_kinds(rules, lines, cell):
                return True
    return False


# ---- turn sequencing (K-3.6, K-4.1) -------------------------------------------------------------


@kernel
def begin_seat_turn(rules, cards, game, seat):
    """Hand the turn to `seat`, or past it: a pending skip loses the whole turn (K-3.5.2); a seat
    with no legal action passes (K-4.1.5); in the final turns of complete_round (K-4.1.4) each
    seat turn counts down and the deal ends when none is left."""
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    while True:
        if scalars[S.S_FINAL_TURNS_LEFT] == 0:
            end_deal(rules, cards, game)
            return
        if scalars[S.S_FINAL_TURNS_LEFT] > 0:
            scalars[S.S_FINAL_TURNS_LEFT] -= 1
        if seat == scalars[S.S_START_SEAT]:
            scalars[S.S_TABLE_ROUNDS] += 1
        scalars[S.S_SEAT] = seat
        scalars[S.S_IN_EXTRA_TURN] = 0
        scalars[S.S_PHASE] = S.PHASE_ACTION
        if seats[seat, S.SEAT_SKIP_PENDING]:
            seats[seat, S.SEAT_SKIP_PENDING] = 0
            scalars[S.S_SKIPPED_TURNS] += 1
            seats[seat, S.SEAT_TURNS_SKIPPED] += 1
            emit(scalars, events, S.EV_SKIPPED, seat, -1, -1)
            seat = (seat + 1) % players
            continue
        if R.draw_available(rules, scalars):  # the common case, without a call
            return
        if has_legal_action(rules, cards, scalars, cells, lines, hands, seats, seat):
            return
        scalars[S.S_FORCED_PASSES] += 1
        emit(scalars, events, S.EV_FORCED_PASS, seat, -1, -1)
        if count_pass(rules, cards, game):
            return
        seat = (seat + 1) % players


@kernel
def count_pass(rules, cards, game):
    """A seat turn without an action; n in a row end the deal (K-4.1.5). True if it ended."""
    scalars = game[0]
    scalars[S.S_PASS_STREAK] += 1
    if scalars[S.S_PASS_STREAK] < rules[S.P_PLAYERS]:
        return False
    scalars[S.S_END_REASON] = S.END_NO_PROGRESS
    end_deal(rules, cards, game)
    return True


@inline_kernel
def end_trigger(rules, scalars):
    """K-4.1.1/K-4.1.2: END_* if an end condition holds now, else -1."""
    if rules[S.P_END_WHEN_NO_FACE_DOWN] and scalars[S.S_FACE_DOWN] == 0:
        return S.END_NO_FACE_DOWN
    if rules[S.P_KEEPERS] != S.UNLIMITED and scalars[S.S_SUPPLY] == 0:
        return S.END_KEEPERS_EXHAUSTED
    return -1


@inline_kernel
def finish_action(rules, cards, game, extra_turn):
    """After an action: end checks first (K-4.1.3: an end beats a pending extra turn), then the
    extra turn (K-3.5.1) or the next seat."""
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    seat = scalars[S.S_SEAT]
    scalars[S.S_GAP] = -1
    scalars[S.S_FIRST_TURN] = 0
    if scalars[S.S_FINAL_TURNS_LEFT] < 0:
        reason = end_trigger(rules, scalars)
        if reason >= 0:
            scalars[S.S_END_REASON] = reason
            if rules[S.P_END_COMPLETE_ROUND] == 0:
                end_deal(rules, cards, game)
                return
            # K-4.1.4: the seats after this one up to the last seat of the round play once more
            turns_left = (scalars[S.S_START_SEAT] - seat - 1) % players
            scalars[S.S_FINAL_TURNS_LEFT] = turns_left
            emit(scalars, events, S.EV_FINAL_TURNS, seat, turns_left, -1)
            begin_seat_turn(rules, cards, game, (seat + 1) % players)
            return
        if extra_turn:
            scalars[S.S_EXTRA_TURNS] += 1
            seats[seat, S.SEAT_EXTRA_TURNS] += 1
            emit(scalars, events, S.EV_EXTRA_TURN, seat, -1, -1)
            scalars[S.S_PHASE] = S.PHASE_ACTION
            scalars[S.S_IN_EXTRA_TURN] = 1
            if has_legal_action(rules, cards, scalars, cells, lines, hands, seats, seat):
                return
            scalars[S.S_FORCED_PASSES] += 1  # an extra turn with nothing to do is lost
            emit(scalars, events, S.EV_FORCED_PASS, seat, -1, -1)
            # K-4.1.5: by default the lost extra turn does not add to the passes in a row
            if rules[S.P_LOST_EXTRA_TURN_IN_PASS_STREAK] and count_pass(rules, cards, game):
                return
    begin_seat_turn(rules, cards, game, (seat + 1) % players)


@kernel
def end_deal(rules, cards, game):
    """K-4.2: score the hands of this deal into the seats' totals; the deal is over."""
    scalars, cells, hidden, lines, hands, seats, events = game
    for seat in range(rules[S.P_PLAYERS]):
        hand_len = seats[seat, S.SEAT_HAND_LEN]
        seats[seat, S.SEAT_TOTAL_SCORE] += R.hand_score(rules, cards, hands[seat], hand_len)
        seats[seat, S.SEAT_TOTAL_HAND_CARDS] += hand_len
        for slot in range(hand_len):
            seats[seat, S.SEAT_TOTAL_PENALTY_CARDS] += cards[hands[seat, slot], S.CARD_IS_PENALTY]
    emit(scalars, events, S.EV_DEAL_OVER, scalars[S.S_SEAT], scalars[S.S_END_REASON], -1)
    scalars[S.S_GAP] = -1
    scalars[S.S_PHASE] = S.PHASE_DEAL_OVER


# ---- applying a move -----------------------------------------------------------------------------


@inline_kernel
def remove_from_hand(hands, seats, seat, card):
    """Take one copy of `card` out of the seat's hand (order of the rest may change)."""
    hand_len = seats[seat, S.SEAT_HAND_LEN]
    for slot in range(hand_len):
        if hands[seat, slot] == card:
            hands[seat, slot] = hands[seat, hand_len - 1]
            seats[seat, S.SEAT_HAND_LEN] = hand_len - 1
            return


@inline_kernel
def show_card(rules, cards, cells, lines, cell, card, state):
    """Put `card` into `cell` face up or under a keeper and update both lines' masks."""
    cells[S.CELL_STATE, cell] = state
    cells[S.CELL_CARD, cell] = card
    bit = cards[card, S.CARD_KIND_BIT] & rules[S.P_BLOCKING_KINDS]
    field = S.LINE_FACE_UP_KINDS if state == S.FACE_UP else S.LINE_COVERED_KINDS
    row, column = R.cell_lines(rules, cell)
    lines[field, row] |= bit
    lines[field, column] |= bit


@inline_kernel
def add_keepers(rules, lines, cell, change):
    """A keeper enters (+1) or leaves (-1) `cell`: update both lines' keeper counts."""
    row, column = R.cell_lines(rules, cell)
    lines[S.LINE_KEEPERS, row] += change
    lines[S.LINE_KEEPERS, column] += change


@inline_kernel
def value_effects(rules, cards, game, card, entry):
    """K-3.5: set a pending skip now; return whether an extra turn is earned."""
    scalars, cells, hidden, lines, hands, seats, events = game
    seat = scalars[S.S_SEAT]
    if R.earns_skip(rules, cards, card, entry):
        seats[seat, S.SEAT_SKIP_PENDING] = 1
        scalars[S.S_SKIPS_EARNED] += 1
        emit(scalars, events, S.EV_SKIP_EARNED, seat, -1, card)
    return R.earns_extra_turn(rules, cards, scalars, card, entry)


@inline_kernel
def apply_move(rules, cards, deck, game, rng, move):
    """Carry out one legal move of the seat to decide, then sequence turns and deals."""
    scalars, cells, hidden, lines, hands, seats, events = game
    scalars[S.S_STEPS] += 1
    move_type = move // S.MOVE_TYPE_UNIT
    cell = (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK
    card = move & S.MOVE_CARD_MASK
    seat = scalars[S.S_SEAT]
    if move_type == S.MOVE_DRAW:  # K-3.2.1
        card = hidden[cell]
        hidden[cell] = S.NO_CARD
        cells[S.CELL_STATE, cell] = S.GAP
        row, column = R.cell_lines(rules, cell)
        lines[S.LINE_FACE_DOWN, row] -= 1
        lines[S.LINE_FACE_DOWN, column] -= 1
        scalars[S.S_FACE_DOWN] -= 1
        hand_len = seats[seat, S.SEAT_HAND_LEN]
        hands[seat, hand_len] = card
        seats[seat, S.SEAT_HAND_LEN] = hand_len + 1
        scalars[S.S_DRAWS] += 1
        seats[seat, S.SEAT_CARDS_DRAWN] += 1
        scalars[S.S_TURNS] += 1
        scalars[S.S_PASS_STREAK] = 0
        scalars[S.S_GAP] = cell
        scalars[S.S_PHASE] = S.PHASE_PLACE
        emit(scalars, events, S.EV_DRAW, seat, cell, card)
        visible = R.cell_visible_kinds(rules, lines, cell)
        fits = False
        for slot in range(hand_len + 1):
            if R.card_fits(cards[hands[seat, slot], S.CARD_KIND_BIT], visible):
                fits = True
        if not fits:
            scalars[S.S_NO_FIT_DRAWS] += 1
            if visible == rules[S.P_ALL_KINDS]:
                scalars[S.S_DEAD_CELL_DRAWS] += 1
        return
    extra_turn = False
    if move_type == S.MOVE_PLACE:  # K-3.2.3
        cell = scalars[S.S_GAP]
        remove_from_hand(hands, seats, seat, card)
        show_card(rules, cards, cells, lines, cell, card, S.FACE_UP)
        emit(scalars, events, S.EV_PLACE, seat, cell, card)
        extra_turn = value_effects(rules, cards, game, card, S.ENTRY_PLACE)
    elif move_type == S.MOVE_KEEPER:  # K-3.2.4
        cell = scalars[S.S_GAP]
        cells[S.CELL_STATE, cell] = S.KEEPER
        add_keepers(rules, lines, cell, 1)
        scalars[S.S_SUPPLY] -= 1
        scalars[S.S_BARE_KEEPERS] += 1
        scalars[S.S_KEEPERS_PLACED] += 1
        seats[seat, S.SEAT_ZOOKEEPERS_PLACED] += 1
        emit(scalars, events, S.EV_KEEPER, seat, cell, -1)
    elif move_type == S.MOVE_COVER:  # K-3.3
        cell = scalars[S.S_GAP]
        remove_from_hand(hands, seats, seat, card)
        show_card(rules, cards, cells, lines, cell, card, S.KEEPER_OVER)
        add_keepers(rules, lines, cell, 1)
        scalars[S.S_SUPPLY] -= 1
        scalars[S.S_COVERED_KEEPERS] += 1
        seats[seat, S.SEAT_ZOOKEEPERS_PLACED] += 1
        emit(scalars, events, S.EV_COVER, seat, cell, card)
        extra_turn = value_effects(rules, cards, game, card, S.ENTRY_COVERED)
    elif move_type == S.MOVE_REPLACE:  # K-3.4
        remove_from_hand(hands, seats, seat, card)
        show_card(rules, cards, cells, lines, cell, card, S.FACE_UP)
        add_keepers(rules, lines, cell, -1)
        scalars[S.S_SUPPLY] += 1
        scalars[S.S_BARE_KEEPERS] -= 1
        scalars[S.S_REPLACEMENTS] += 1
        seats[seat, S.SEAT_KEEPERS_REPLACED] += 1
        scalars[S.S_TURNS] += 1
        scalars[S.S_PASS_STREAK] = 0
        emit(scalars, events, S.EV_REPLACE, seat, cell, card)
        extra_turn = value_effects(rules, cards, game, card, S.ENTRY_REPLACE)
    else:  # MOVE_PASS, K-3.2.6
        scalars[S.S_PASSES] += 1
        scalars[S.S_TURNS] += 1
        scalars[S.S_FIRST_TURN] = 0
        emit(scalars, events, S.EV_PASS, seat, -1, -1)
        if not count_pass(rules, cards, game):
            begin_seat_turn(rules, cards, game, (seat + 1) % rules[S.P_PLAYERS])
        settle(rules, cards, deck, game, rng)
        return
    finish_action(rules, cards, game, extra_turn)
    settle(rules, cards, deck, game, rng)


# ---- results (K-4.2, K-4.3) ---------------------------------------------------------------------


@inline_kernel
def final_half_points(rules, seats, seat):
    """The seat's final score in half points: card points summed over deals, plus its seat
    bonus (K-4.5), which may be a half point."""
    return 2 * seats[seat, S.SEAT_TOTAL_SCORE] + rules[S.P_SEAT_BONUS_HALVES + seat]


@kernel
def winners_into(rules, seats, first_seat, win):
    """win[seat] = True for the winners by final score after the tie-break (K-4.3, K-4.5)."""
    players = rules[S.P_PLAYERS]
    best = final_half_points(rules, seats, 0)
    for seat in range(players):
        best = max(best, final_half_points(rules, seats, seat))
    for seat in range(players):
        win[seat] = final_half_points(rules, seats, seat) == best
    tie_break = rules[S.P_TIE_BREAK]
    if tie_break == S.TIE_SHARED:
        return
    if tie_break == S.TIE_LATER_SEAT:  # the tied seat that comes last in turn order wins alone
        last = -1
        for seat in range(players):
            if win[seat] and (last < 0 or (seat - first_seat) % players > (last - first_seat) % players):
                last = seat
        for seat in range(players):
            win[seat] = seat == last
        return
    field = S.SEAT_TOTAL_HAND_CARDS if tie_break == S.TIE_FEWEST_HAND_CARDS else S.SEAT_TOTAL_PENALTY_CARDS
    fewest = 1 << 40
    for seat in range(players):
        if win[seat]:
            fewest = min(fewest, seats[seat, field])
    for seat in range(players):
        if seats[seat, field] != fewest:
            win[seat] = False


# ---- checked mode (T17) --------------------------------------------------------------------------


@kernel
def find_violation(rules, cards, game, deal_before, cells_before, lines_scratch, counts, moves):
    """The first T17 invariant that does not hold after an action (VIOLATION_*), or 0.
    Everything is recomputed from the cells and hands, independently of the line summaries.
    `cells_before` / `deal_before` are the cells and deal index before the action."""
    scalars, cells, hidden, lines, hands, seats, events = game
    cell_count = rules[S.P_CELLS]
    players = rules[S.P_PLAYERS]
    # T17.1, and the line summaries agree with a recount
    if recount_lines(rules, cards, cells, lines_scratch):
        return S.VIOLATION_DUPLICATE_KIND
    for field in range(S.LINE_FIELDS):
        for line in range(lines.shape[1]):
            if lines_scratch[field, line] != lines[field, line]:
                return S.VIOLATION_BOUNDS
    # T17.7/8: face-up and covered cells never change (within a deal)
    for cell in range(cell_count if scalars[S.S_DEAL] == deal_before else 0):
        before = cells_before[S.CELL_STATE, cell]
        if before == S.FACE_UP or before == S.KEEPER_OVER:
            if cells[S.CELL_STATE, cell] != before or cells[S.CELL_CARD, cell] != cells_before[S.CELL_CARD, cell]:
                return S.VIOLATION_FROZEN_CELL
    # T17.2 cards, T17.3 keepers, face-down count
    counts[:] = 0
    face_down = 0
    keepers_in_zoo = 0
    bare_keepers = 0
    for cell in range(cell_count):
        state = cells[S.CELL_STATE, cell]
        if state == S.FACE_DOWN:
            face_down += 1
            if hidden[cell] < 0:
                return S.VIOLATION_CARDS
            counts[hidden[cell]] += 1
        elif hidden[cell] != S.NO_CARD:
            return S.VIOLATION_CARDS
        if state == S.FACE_UP or state == S.KEEPER_OVER:
            counts[cells[S.CELL_CARD, cell]] += 1
        if state == S.KEEPER or state == S.KEEPER_OVER:
            keepers_in_zoo += 1
        bare_keepers += state == S.KEEPER
        if state == S.GAP and (scalars[S.S_PHASE] != S.PHASE_PLACE or scalars[S.S_GAP] != cell):
            return S.VIOLATION_BOUNDS
    for index in range(scalars[S.S_SET_ASIDE]):
        counts[hidden[cell_count + index]] += 1
    for seat in range(players):
        hand_len = seats[seat, S.SEAT_HAND_LEN]
        if hand_len < 0 or hand_len > rules[S.P_DECK_SIZE]:
            return S.VIOLATION_BOUNDS
        for slot in range(hand_len):
            counts[hands[seat, slot]] += 1
    for card in range(rules[S.P_CARD_IDS]):
        if counts[card] != cards[card, S.CARD_COPIES]:
            return S.VIOLATION_CARDS
    if face_down != scalars[S.S_FACE_DOWN] or bare_keepers != scalars[S.S_BARE_KEEPERS]:
        return S.VIOLATION_BOUNDS
    if rules[S.P_KEEPERS] != S.UNLIMITED:
        supply = scalars[S.S_SUPPLY]
        if supply < 0 or supply + keepers_in_zoo != rules[S.P_KEEPERS]:
            return S.VIOLATION_KEEPERS
    # T17.4/5 bounds per deal begun
    deals = scalars[S.S_DEAL] + 1
    if scalars[S.S_DRAWS] > deals * cell_count:
        return S.VIOLATION_BOUNDS
    placed = scalars[S.S_KEEPERS_PLACED] + scalars[S.S_INITIAL_KEEPERS]
    if scalars[S.S_REPLACEMENTS] > placed:
        return S.VIOLATION_BOUNDS
    if scalars[S.S_EXTRA_TURNS] > deals * rules[S.P_EXTRA_TURN_CARDS]:
        return S.VIOLATION_BOUNDS
    if scalars[S.S_SKIPS_EARNED] > deals * rules[S.P_SKIP_CARDS]:
        return S.VIOLATION_BOUNDS
    # T17.9: no keeper offered while a hand card that may leave the hand (K-3.8) fits the gap
    # (fit recomputed from the cross); under K-3.3.5's summary reading a covered card is allowed
    # if it does not fit and is new to a line the gap completes (recomputed by a scan, too)
    if scalars[S.S_PHASE] == S.PHASE_PLACE:
        gap = scalars[S.S_GAP]
        seat = scalars[S.S_SEAT]
        cross = cross_kinds_by_scan(rules, cards, cells, gap)
        hand_len = seats[seat, S.SEAT_HAND_LEN]
        any_fits = False
        for slot in range(R.placement_first_slot(rules, scalars, hand_len), hand_len):
            if (cards[hands[seat, slot], S.CARD_KIND_BIT] & cross) == 0:
                any_fits = True
        count = legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
        if count == 0:
            return S.VIOLATION_NO_TERMINATION
        if any_fits and rules[S.P_MUST_PLACE_IF_ABLE]:
            for index in range(count):
                move = moves[index]
                move_type = move // S.MOVE_TYPE_UNIT
                if move_type == S.MOVE_KEEPER:
                    return S.VIOLATION_KEEPER_WHILE_FIT
                if move_type == S.MOVE_COVER:
                    bit = cards[move & S.MOVE_CARD_MASK, S.CARD_KIND_BIT]
                    rule = rules[S.P_BLOCKED_CELL_RULE]
                    by_line = rule == S.RULE_LINE_COMPLETION or rule == S.RULE_EITHER
                    if (rules[S.P_LINE_COMPLETION_NEEDS_NO_FIT] or not by_line or (bit & cross) == 0
                            or not completed_line_admits(rules, cards, cells, gap, bit)):
                        return S.VIOLATION_KEEPER_WHILE_FIT
    # T17.6: a finished deal ended for the reason it reports (immediate end timing)
    if scalars[S.S_PHASE] == S.PHASE_OVER and rules[S.P_END_COMPLETE_ROUND] == 0:
        reason = scalars[S.S_END_REASON]
        if reason == S.END_NO_FACE_DOWN and face_down != 0:
            return S.VIOLATION_NO_TERMINATION
        if reason == S.END_KEEPERS_EXHAUSTED and scalars[S.S_SUPPLY] != 0:
            return S.VIOLATION_NO_TERMINATION
        if reason < 0:
            return S.VIOLATION_NO_TERMINATION
    return S.VIOLATION_NONE


@kernel
def cross_kinds_by_scan(rules, cards, cells, cell):
    """Blocking kinds shown in a cell's cross, read cell by cell (checked mode's second opinion)."""
    rows = rules[S.P_ROWS]
    cols = rules[S.P_COLS]
    row = cell // cols
    column = cell % cols
    kinds = 0
    for other in range(rows * cols):
        if other == cell or (other // cols != row and other % cols != column):
            continue
        state = cells[S.CELL_STATE, other]
        if state == S.FACE_UP or (state == S.KEEPER_OVER and rules[S.P_COVERED_CARDS_BLOCK]):
            kinds |= cards[cells[S.CELL_CARD, other], S.CARD_KIND_BIT]
    return kinds & rules[S.P_BLOCKING_KINDS]


@kernel
def completed_line_admits(rules, cards, cells, gap, kind_bit):
    """Checked mode's second opinion on K-3.3.2: does the gap complete its row or column (no
    other face-down cell; no keeper either unless keepers fill lines) while that line shows no
    card of this kind? Read cell by cell. A line-completion rule (or `either`) is assumed."""
    rows = rules[S.P_ROWS]
    cols = rules[S.P_COLS]
    for is_column in range(2):
        complete = True
        shown = 0
        for other in range(rows * cols):
            same_line = other % cols == gap % cols if is_column else other // cols == gap // cols
            if other == gap or not same_line:
                continue
            state = cells[S.CELL_STATE, other]
            if state == S.FACE_DOWN:
                complete = False
            if (state == S.KEEPER or state == S.KEEPER_OVER) and not rules[S.P_LINE_COMPLETE_COUNTS_KEEPERS]:
                complete = False
            if state == S.FACE_UP or (state == S.KEEPER_OVER and rules[S.P_COVERED_CARDS_BLOCK]):
                shown |= cards[cells[S.CELL_CARD, other], S.CARD_KIND_BIT]
        if complete and (shown & rules[S.P_BLOCKING_KINDS] & kind_bit) == 0:
            return True
    return False


@inline_kernel
def record_violation(scalars, code):
    if code != S.VIOLATION_NONE:
        if scalars[S.S_VIOLATIONS] == 0:
            scalars[S.S_FIRST_VIOLATION] = code
        scalars[S.S_VIOLATIONS] += 1


# ---- whole games ---------------------------------------------------------------------------------


@inline_kernel
def choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count, rng, workspace,
                    search_workspace):
    """Index into moves[:count] chosen by the policy of the slot in the seat to decide. The
    policy receives public state and its own hand only (never `hidden` or other hands); the
    search policies (search.py) receive the game and sample what `ismcts` may not see."""
    scalars, cells, hidden, lines, hands, seats, events = game
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


@kernel
def step_limit(rules):
    """K-4.1.6: a generous bound on apply calls per game; reaching it is a T17.6 violation."""
    per_deal = 4 * (rules[S.P_CELLS] + rules[S.P_DECK_SIZE] + 8) * (rules[S.P_PLAYERS] + 1)
    return per_deal * rules[S.P_ROUNDS]


@allocating  # allocates buffers and one generator per game
def play_games(rules, cards, deck, policy_ids, policy_params, search_workspace, seeds, rotations,
               check, column_scalars, game_out, seat_out):
    """Play every game to the end; game_out[g, i] is scalar column_scalars[i] (the
    S.GAME_COLUMNS), seat_out[j, g, seat] is S.SEAT_COLUMNS[j] (column-major, so each column is one
    contiguous block for play_batch). `search_workspace`: KS.search_workspace's (None when no
    seat searches: this specialisation compiles without the search)."""
    game = allocate_game(rules, 0)
    scalars, cells, hidden, lines, hands, seats, events = game
    moves = np.empty(max_moves(rules), dtype=np.int64)
    workspace = P.allocate_workspace(rules)
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
    the per-decision calls and the helpers inlined into it run without numba's refcounts."""
    scalars, cells, hidden, lines, hands, seats, events = game
    start_game(rules, cards, deck, game, rng, rotation)
    while scalars[S.S_PHASE] != S.PHASE_OVER:
        count = legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
        if count == 0 or scalars[S.S_STEPS] >= limit:
            record_violation(scalars, S.VIOLATION_NO_TERMINATION)
            break
        index = choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count,
                                rng, workspace, search_workspace)
        deal_before = scalars[S.S_DEAL]
        if check:
            for field in range(cells.shape[0]):  # a slice copy would need the NRT
                for cell in range(cells.shape[1]):
                    cells_before[field, cell] = cells[field, cell]
        apply_move(rules, cards, deck, game, rng, moves[index])
        if check:
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
        seat_out[SEAT_SCORE, g, seat] = score  # half points; play_batch converts
        seat_out[SEAT_WIN, g, seat] = win[seat]
        seat_out[SEAT_RANK, g, seat] = better + 1
        seat_out[SEAT_HAND_CARDS, g, seat] = seats[seat, S.SEAT_TOTAL_HAND_CARDS]
        seat_out[SEAT_CATS_HELD, g, seat] = seats[seat, S.SEAT_TOTAL_PENALTY_CARDS]
        for column, field in SEAT_COUNTER_FIELDS:
            seat_out[column, g, seat] = seats[seat, field]


# ---- Python side: batches and the step API -------------------------------------------------------


def play_batch(params: Params, seat_policies: SeatPolicies, seeds, rotations, check: bool = False):
    """Play one game per seed (rotation per game, K-8.1) in one kernel call; returns the record
    columns of base.py. With `check`, the T17 invariants run after every action and violations
    are counted in `check_violations` / `first_violation`."""
    players = params.players
    if seat_policies.players != players:
        raise ValueError(f"{seat_policies.players} seat policies for {players} players")
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    games = seeds.shape[0]
    game_out, seat_out = RECORDS.allocate(games, players)
    rules, cards, deck = rule_array(params), card_table(params), deck_cards(params)
    policy_ids = np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64)
    play_games(
        rules, cards, deck, policy_ids, policy_params,
        KS.search_workspace(rules, cards, deck, policy_ids, policy_params),
        seeds, rotations, bool(check), np.asarray(GAME_COLUMN_SCALARS, dtype=np.int64),
        game_out, seat_out,
    )
    columns = RECORDS.unpack(game_out, seat_out)
    columns["score"] = points_from_halves(params, RECORDS.seat_column(seat_out, SEAT_SCORE))
    return columns


def points_from_halves(params: Params, halves: np.ndarray) -> np.ndarray:
    """Scores from half points (K-4.5): int16 whole points, or float32 when some seat bonus is
    a half point (then scores can end in .5)."""
    if any(bonus % 2 for bonus in params.seat_bonus_halves):
        return (halves / 2).astype(np.float32)
    return (halves // 2).astype(S.SCORE_DTYPE)


def card_table(params: Params) -> np.ndarray:
    """One row per card id (kind * value_count + value_index); columns `CARD_*` in state.py."""
    deck = params.deck
    zoo_count = len(deck.zoo_kinds)
    table = np.zeros((len(deck.kinds) * len(deck.values), S.CARD_FIELDS), dtype=np.int64)
    for kind in range(len(deck.kinds)):
        for value_index, value in enumerate(deck.values):
            row = table[kind * len(deck.values) + value_index]
            row[S.CARD_KIND] = kind
            row[S.CARD_VALUE] = value
            row[S.CARD_KIND_BIT] = 1 << kind
            row[S.CARD_IS_PENALTY] = kind >= zoo_count
            row[S.CARD_EXTRA_TURN] = value in params.extra_turn_values
            row[S.CARD_SKIP] = value in params.skip_values
            row[S.CARD_COPIES] = deck.copies_per_card
    return table


@dataclass
class KatzState:
    """One game for the step API: the kernel arrays plus what the kernels need alongside."""

    params: Params
    rules: np.ndarray
    cards: np.ndarray
    deck: np.ndarray
    game: tuple
    rng: np.ndarray
    policy_ids: np.ndarray
    policy_params: np.ndarray
    policy_names: tuple[str, ...]
    rotation: int
    check: bool = False

    @property
    def scalars(self) -> np.ndarray:
        return self.game[0]

    @property
    def cells(self) -> np.ndarray:
        return self.game[1]

    @property
    def hidden(self) -> np.ndarray:
        return self.game[2]

    @property
    def lines(self) -> np.ndarray:
        return self.game[3]

    @property
    def hands(self) -> np.ndarray:
        return self.game[4]

    @property
    def seats(self) -> np.ndarray:
        return self.game[5]

    @property
    def events(self) -> np.ndarray:
        return self.game[6]

    @property
    def seat(self) -> int:
        return int(self.scalars[S.S_SEAT])

    @property
    def phase(self) -> int:
        return int(self.scalars[S.S_PHASE])

    def hand(self, seat: int) -> list[int]:
        return [int(card) for card in self.hands[seat, : self.seats[seat, S.SEAT_HAND_LEN]]]

    def policy_of_seat(self, seat: int) -> str:
        return self.policy_names[int(self.seats[seat, S.SEAT_SLOT])]

    def last_events(self) -> list[tuple[int, int, int, int]]:
        """Events logged by the last apply (or the deal), as (code, seat, cell, card)."""
        count = int(self.scalars[S.S_EVENT_COUNT])
        return [tuple(int(v) for v in row) for row in self.events[:count]]


def empty_state(params: Params, seat_policies: SeatPolicies | None = None, rotation: int = 0,
                check: bool = False) -> KatzState:
    """A state with allocated, zeroed arrays (for new_game and for scripted positions)."""
    from simulator.games.katz import GAME  # the registry, for default policies

    if seat_policies is None:
        seat_policies = GAME.seat_policies([(GAME.default_policy, {})] * params.players)
    if seat_policies.players != params.players:
        raise ValueError(f"{seat_policies.players} seat policies for {params.players} players")
    rules = rule_array(params)
    return KatzState(
        params=params,
        rules=rules,
        cards=card_table(params),
        deck=deck_cards(params),
        game=allocate_game(rules, S.TRACE_EVENT_CAPACITY),
        rng=random_stream.new_state(np.uint64(0)),
        policy_ids=np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64),
        policy_params=np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64),
        policy_names=tuple(seat_policies.names),
        rotation=rotation % params.players,
        check=check,
    )


def new_game(params: Params, seat_policies: SeatPolicies | None = None, seed: int = 0,
             rotation: int = 0, check: bool = False) -> KatzState:
    """The game play_batch would play for (seed, rotation), ready for its first decision."""
    state = empty_state(params, seat_policies, rotation, check)
    state.rng = random_stream.new_state(np.uint64(seed))
    start_game(state.rules, state.cards, state.deck, state.game, state.rng, state.rotation)
    return state


def legal_moves(state: KatzState) -> list[int]:
    buffer = np.empty(max_moves(state.rules), dtype=np.int64)
    count = legal_moves_into(state.rules, state.cards, state.scalars, state.cells, state.lines,
                             state.hands, state.seats, buffer)
    return [int(move) for move in buffer[:count]]


def apply(state: KatzState, move: int) -> None:
    """Apply a legal move (ValueError otherwise); in checked mode raise InvariantViolation if an
    invariant breaks. `state.last_events()` then describes what happened."""
    if move not in legal_moves(state):
        raise ValueError(f"illegal move {describe_move(move)} (legal: "
                         f"{', '.join(describe_move(m) for m in legal_moves(state))})")
    state.scalars[S.S_EVENT_COUNT] = 0
    cells_before = state.cells.copy()
    deal_before = int(state.scalars[S.S_DEAL])
    apply_move(state.rules, state.cards, state.deck, state.game, state.rng, np.int64(move))
    if state.check:
        code = find_violation(state.rules, state.cards, state.game, deal_before, cells_before,
                              np.empty_like(state.lines), np.empty(state.cards.shape[0], np.int64),
                              np.empty(max_moves(state.rules), dtype=np.int64))
        if code != S.VIOLATION_NONE:
            raise InvariantViolation(f"T17 invariant broken: {S.VIOLATION_NAMES[code]}")


def policy_move(state: KatzState) -> int:
    """The move the policy of the seat to decide picks (consumes the game's random stream
    exactly as play_batch does)."""
    buffer = np.empty(max_moves(state.rules), dtype=np.int64)
    count = legal_moves_into(state.rules, state.cards, state.scalars, state.cells, state.lines,
                             state.hands, state.seats, buffer)
    index = choose_for_seat(state.rules, state.cards, state.game, state.policy_ids,
                            state.policy_params, buffer, count, state.rng,
                            P.allocate_workspace(state.rules),
                            KS.search_workspace(state.rules, state.cards, state.deck,
                                                state.policy_ids, state.policy_params))
    return int(buffer[index])


def is_over(state: KatzState) -> bool:
    return state.phase == S.PHASE_OVER


def scores(state: KatzState) -> np.ndarray:
    """Each seat's score: finished deals' totals plus, while a deal runs, its current hand, plus
    the seat bonus (K-4.5); int16, or float32 with half-point bonuses (as play_batch records)."""
    halves = 2 * state.seats[:, S.SEAT_TOTAL_SCORE].astype(np.int64)
    halves += np.asarray(state.params.seat_bonus_halves, dtype=np.int64)
    if not is_over(state):
        for seat in range(state.params.players):
            halves[seat] += 2 * R.hand_score(state.rules, state.cards, state.hands[seat],
                                             state.seats[seat, S.SEAT_HAND_LEN])
    return points_from_halves(state.params, halves)


def winners(state: KatzState) -> list[int]:
    """Winning seats of a finished game after the tie-break (K-4.3); several on a shared win."""
    win = np.zeros(state.params.players, dtype=np.bool_)
    winners_into(state.rules, state.seats, state.scalars[S.S_FIRST_SEAT], win)
    return [int(seat) for seat in np.flatnonzero(win)]


def decode_move(move: int) -> tuple[str, int, int]:
    """(type name, cell, card) of a move code."""
    move = int(move)
    return (S.MOVE_NAMES[move // S.MOVE_TYPE_UNIT],
            (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK, move & S.MOVE_CARD_MASK)


def describe_move(move: int) -> str:
    name, cell, card = decode_move(move)
    return f"{name}(cell={cell}, card={card})"
