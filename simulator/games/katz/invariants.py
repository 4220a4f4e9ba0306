"""Checked mode (T17): the invariants recomputed after every action from the cells and hands,
independently of the line summaries the step rules (moves.py) keep. The play loop (play.py) and
the step API (step_api.py) call `find_violation` when a batch or game is checked.
"""

from __future__ import annotations

from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.moves import drawn_orders, legal_moves_into, recount_lines
from simulator.games.kernels import inline_kernel, kernel


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
    # K-3.6.2: the current round's order holds every seat once, and the seat to move holds the
    # order's current place
    if drawn_orders(rules) and scalars[S.S_PHASE] != S.PHASE_OVER:
        seats_in_order = 0
        for place in range(players):
            seats_in_order |= 1 << scalars[S.S_ROUND_ORDER + place]
        place = scalars[S.S_ORDER_PLACE]
        if (seats_in_order != (1 << players) - 1 or place < 0 or place >= players
                or scalars[S.S_ROUND_ORDER + place] != scalars[S.S_SEAT]):
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
