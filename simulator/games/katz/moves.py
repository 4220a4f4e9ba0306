"""The Katz step rules as numba kernels: what a move does. Allocate a game, deal, list the legal
moves, apply a move, sequence turns, end deals, score and pick winners.

A game is the tuple `game = (scalars, cells, hidden, lines, hands, seats, events)` laid out in
state.py. What fits where, legal placements, value effects and hand scores come from rules.py,
which the policies share. The batch play loop (play.py), the search adapter (search.py) and the
Python step API (step_api.py) all drive these kernels, so there is one implementation of each
rule. Rule ids (K-...) refer to seeds/alles-fuer-die-katz.md.
"""

from __future__ import annotations

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.params import Params
from simulator.games.kernels import allocating, inline_kernel, kernel, slot_of_seat


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
    if drawn_orders(rules):
        # K-3.6.2: the deal's order stream is seeded by one draw from the game's stream after
        # the shuffle (and K-2.4's first seat). random_each_round draws the first round's order
        # too, and its first seat starts the deal (the first deal's start seat is the game's
        # first seat); random_after_first_round's first round goes clockwise from the start seat
        order_stream(scalars)[0] = random_stream.next_u64(rng)
        if rules[S.P_TURN_ORDER] == S.ORDER_RANDOM_EACH_ROUND:
            draw_round_order(rules, scalars)
            start_seat = scalars[S.S_ROUND_ORDER]
            if deal == 0:
                scalars[S.S_FIRST_SEAT] = start_seat
        else:
            for place in range(players):
                scalars[S.S_ROUND_ORDER + place] = (start_seat + place) % players
            scalars[S.S_ORDER_PLACE] = 0
    scalars[S.S_START_SEAT] = start_seat
    scalars[S.S_GAP] = -1
    scalars[S.S_FINAL_TURNS_LEFT] = -1
    scalars[S.S_PASS_STREAK] = 0
    scalars[S.S_END_REASON] = -1
    scalars[S.S_INITIAL_KEEPERS] = 0
    scalars[S.S_BARE_KEEPERS] = 0
    scalars[S.S_FIRST_TURN] = 1  # K-3.8: until the start seat's first action is done
    scalars[S.S_REVERSED] = 0  # K-3.6.1: every deal's first round runs forwards
    emit(scalars, events, S.EV_DEAL, start_seat, deal, -1)
    seat_turns_from(rules, cards, game, start_seat)


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
            keep = R.listed_once(has_copies, hand, slot, R.card_fits(cards[card, S.CARD_KIND_BIT], visible))
            count = R.append_if(out, count, R.encode_move(S.MOVE_REPLACE, cell, card), keep)
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
            count = R.append_if(out, count, R.encode_move(S.MOVE_DRAW, cell, 0),
                                cells[S.CELL_STATE, cell] == S.FACE_DOWN)
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


@inline_kernel
def drawn_orders(rules):
    """Whether rounds go in orders drawn from the deal's order stream (K-3.6.2): turn_order
    random_each_round or random_after_first_round, the last two values of the knob."""
    return rules[S.P_TURN_ORDER] >= S.ORDER_RANDOM_EACH_ROUND


@inline_kernel
def order_stream(scalars):
    """The deal's order stream (K-3.6.2) as the one-element uint64 state rng.py draws from: a
    view of its scalar, so drawing advances it in place."""
    return scalars[S.S_ORDER_STREAM:S.S_ORDER_STREAM + 1].view(np.uint64)


@kernel
def draw_round_order(rules, scalars):
    """K-3.6.2: a new round's seat order, a Fisher-Yates shuffle (rng.shuffle) of the seats
    0..n-1 from the deal's order stream; the round starts at its place 0."""
    players = rules[S.P_PLAYERS]
    order = scalars[S.S_ROUND_ORDER:S.S_ROUND_ORDER + players]
    for place in range(players):
        order[place] = place
    random_stream.shuffle(order_stream(scalars), order)
    scalars[S.S_ORDER_PLACE] = 0


@inline_kernel
def round_last_seat(rules, scalars):
    """The seat that closes the current round: the one before the start seat, with a snake
    order running backwards (K-3.6.1) the start seat itself, with a random order (K-3.6.2) the
    last of the round's order."""
    if drawn_orders(rules):
        return scalars[S.S_ROUND_ORDER + rules[S.P_PLAYERS] - 1]
    if scalars[S.S_REVERSED]:
        return scalars[S.S_START_SEAT]
    return (scalars[S.S_START_SEAT] - 1) % rules[S.P_PLAYERS]


@inline_kernel
def round_first_seat(rules, scalars):
    """The seat that opens the current round: the start seat, with a snake order running
    backwards (K-3.6.1) the seat before it, with a random order (K-3.6.2) the first of the
    round's order."""
    if drawn_orders(rules):
        return scalars[S.S_ROUND_ORDER]
    if scalars[S.S_REVERSED]:
        return (scalars[S.S_START_SEAT] - 1) % rules[S.P_PLAYERS]
    return scalars[S.S_START_SEAT]


@inline_kernel
def seat_turns_left_in_round(rules, scalars, seat):
    """Seat turns of the current round after `seat`'s (K-4.1.4's final turns), counted in the
    round's direction (K-3.6.1) or its drawn order (K-3.6.2)."""
    players = rules[S.P_PLAYERS]
    if drawn_orders(rules):
        return players - 1 - scalars[S.S_ORDER_PLACE]
    last = round_last_seat(rules, scalars)
    return (seat - last) % players if scalars[S.S_REVERSED] else (last - seat) % players


@inline_kernel
def next_seat(rules, scalars, seat):
    """The seat whose turn follows `seat`'s (K-3.6): the next one up, without a division; with
    `turn_order: snake` (K-3.6.1) the round's last seat moves again and the order turns round;
    with drawn orders (K-3.6.2) the next place of the round's order, and after its last place
    the first of a newly drawn order."""
    players = rules[S.P_PLAYERS]
    if rules[S.P_TURN_ORDER] == S.ORDER_CLOCKWISE:
        following = seat + 1
        return following if following < players else 0
    if drawn_orders(rules):
        place = scalars[S.S_ORDER_PLACE] + 1
        if place == players:
            draw_round_order(rules, scalars)
        else:
            scalars[S.S_ORDER_PLACE] = place
        return scalars[S.S_ROUND_ORDER + scalars[S.S_ORDER_PLACE]]
    if seat == round_last_seat(rules, scalars):
        scalars[S.S_REVERSED] = 1 - scalars[S.S_REVERSED]
        return seat
    if scalars[S.S_REVERSED]:
        return (seat - 1) % players
    return (seat + 1) % players


@inline_kernel
def enter_seat_turn(rules, scalars, seats, seat):
    """The turn comes round to `seat`: count it (and the round, at the round's first seat) and
    open its action phase."""
    if seat == round_first_seat(rules, scalars):
        scalars[S.S_TABLE_ROUNDS] += 1
    seats[seat, S.SEAT_TURNS] += 1
    scalars[S.S_SEAT] = seat
    scalars[S.S_IN_EXTRA_TURN] = 0
    scalars[S.S_PHASE] = S.PHASE_ACTION


@inline_kernel
def begin_seat_turn(rules, cards, game, seat):
    """Hand the turn to `seat` (see seat_turns_from) after an ordinary action. The common case -
    no final turns, no pending skip, a draw available - is inlined into the caller: the call to
    the general kernel passes the rule array, card table and game as ~80 machine words on the
    stack, which cost about a tenth of a random game's time when paid every turn (issue #25).
    The rare callers (a deal's start, a pass, the final turns) call seat_turns_from, so the
    fast path is compiled in once."""
    scalars, cells, hidden, lines, hands, seats, events = game
    if (scalars[S.S_FINAL_TURNS_LEFT] < 0 and seats[seat, S.SEAT_SKIP_PENDING] == 0
            and R.draw_available(rules, scalars)):
        enter_seat_turn(rules, scalars, seats, seat)
        return
    seat_turns_from(rules, cards, game, seat)


@kernel
def seat_turns_from(rules, cards, game, seat):
    """Hand the turn to `seat`, or past it: a pending skip loses the whole turn (K-3.5.2); a seat
    with no legal action passes (K-4.1.5); in the final turns of complete_round (K-4.1.4) each
    seat turn counts down and the deal ends when none is left."""
    scalars, cells, hidden, lines, hands, seats, events = game
    while True:
        if scalars[S.S_FINAL_TURNS_LEFT] == 0:
            end_deal(rules, cards, game)
            return
        if scalars[S.S_FINAL_TURNS_LEFT] > 0:
            scalars[S.S_FINAL_TURNS_LEFT] -= 1
        enter_seat_turn(rules, scalars, seats, seat)
        if seats[seat, S.SEAT_SKIP_PENDING]:
            seats[seat, S.SEAT_SKIP_PENDING] = 0
            scalars[S.S_SKIPPED_TURNS] += 1
            seats[seat, S.SEAT_TURNS_SKIPPED] += 1
            emit(scalars, events, S.EV_SKIPPED, seat, -1, -1)
            seat = next_seat(rules, scalars, seat)
            continue
        if R.draw_available(rules, scalars):  # the common case, without a call
            return
        if has_legal_action(rules, cards, scalars, cells, lines, hands, seats, seat):
            return
        scalars[S.S_FORCED_PASSES] += 1
        emit(scalars, events, S.EV_FORCED_PASS, seat, -1, -1)
        if count_pass(rules, cards, game):
            return
        seat = next_seat(rules, scalars, seat)


@kernel
def count_pass(rules, cards, game):
    """A seat turn without an action; n in a row end the deal (K-4.1.5). True if it ended."""
    scalars = game[0]
    scalars[S.S_PASS_STREAK] += 1
    if scalars[S.S_PASS_STREAK] < rules[S.P_PLAYERS]:
        return False
    scalars[S.S_END_REASON] = S.END_NO_PROGRESS
    scalars[S.S_ENDER] = scalars[S.S_SEAT]
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
    seat = scalars[S.S_SEAT]
    scalars[S.S_GAP] = -1
    scalars[S.S_FIRST_TURN] = 0
    if scalars[S.S_FINAL_TURNS_LEFT] < 0:
        reason = end_trigger(rules, scalars)
        if reason >= 0:
            scalars[S.S_END_REASON] = reason
            scalars[S.S_ENDER] = seat
            if rules[S.P_END_COMPLETE_ROUND] == 0:
                end_deal(rules, cards, game)
                return
            # K-4.1.4: the seats after this one up to the last seat of the round play once more
            turns_left = seat_turns_left_in_round(rules, scalars, seat)
            scalars[S.S_FINAL_TURNS_LEFT] = turns_left
            emit(scalars, events, S.EV_FINAL_TURNS, seat, turns_left, -1)
            seat_turns_from(rules, cards, game, next_seat(rules, scalars, seat))
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
    begin_seat_turn(rules, cards, game, next_seat(rules, scalars, seat))


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
    scalars[S.S_LAST_MOVER] = seat
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
            seat_turns_from(rules, cards, game, next_seat(rules, scalars, seat))
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


@kernel
def step_limit(rules):
    """K-4.1.6: a generous bound on apply calls per game; reaching it is a T17.6 violation."""
    per_deal = 4 * (rules[S.P_CELLS] + rules[S.P_DECK_SIZE] + 8) * (rules[S.P_PLAYERS] + 1)
    return per_deal * rules[S.P_ROUNDS]


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
