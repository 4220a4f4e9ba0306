"""Pure rule queries shared by the engine and the policies: what a cell shows, what fits where,
which cards the blocked-cell exception admits, which placements are legal, what a card's value
effect is, and the score of a hand. They read public state only (rule array, card table, the
line summaries, a hand), so a policy can ask them about hypothetical hands without seeing
anything hidden. The engine asks the same functions, so there is one implementation of each rule.

Array layouts are documented in state.py; rule ids refer to seeds/alles-fuer-die-katz.md.
"""

import numpy as np

from simulator.games.katz import state as S
from simulator.games.kernels import inline_kernel, kernel


@kernel
def line_visible_kinds(rules, lines, line):
    """Kinds a line shows to the fit rule (K-3.1.2): face-up cards, plus covered cards when
    covered_cards_block (K-3.1.3). Masks hold blocking kinds only (K-3.1.4)."""
    visible = lines[S.LINE_FACE_UP_KINDS, line]
    if rules[S.P_COVERED_CARDS_BLOCK]:
        visible |= lines[S.LINE_COVERED_KINDS, line]
    return visible


@kernel
def cell_lines(rules, cell):
    """(row line, column line) of a cell: line indices into `lines` (state.py)."""
    entry = S.P_CELL_LINES + 2 * cell
    return rules[entry], rules[entry + 1]


@kernel
def cell_visible_kinds(rules, lines, cell):
    """Visible kinds of a cell's cross (K-3.1.2). The cell itself is never face up when asked."""
    row, column = cell_lines(rules, cell)
    return line_visible_kinds(rules, lines, row) | line_visible_kinds(rules, lines, column)


@kernel
def card_fits(kind_bit, visible):
    """K-3.1.5: a card (given by its kind bit) fits when its kind is not among the visible
    kinds; values play no part."""
    return (kind_bit & visible) == 0


@kernel
def line_complete(rules, lines, line, cell_still_face_down):
    """K-3.3.2: the line has no other face-down cell (and, unless keepers count as filling, no
    keeper). `cell_still_face_down` = 1 when asked about a cell before it is drawn."""
    if lines[S.LINE_FACE_DOWN, line] - cell_still_face_down != 0:
        return False
    if rules[S.P_LINE_COMPLETE_COUNTS_KEEPERS]:
        return True
    return lines[S.LINE_KEEPERS, line] == 0


@kernel
def cover_eligible_kinds(rules, lines, cell, visible, cell_still_face_down):
    """Kinds of hand cards the blocked-cell exception (K-3.3) lets go under a keeper in `cell`,
    assuming no hand card fits. Returns a kind mask (0 = exception not available)."""
    rule = rules[S.P_BLOCKED_CELL_RULE]
    if rule == S.RULE_OFF:
        return 0
    all_kinds = rules[S.P_ALL_KINDS]
    eligible = 0
    if rule == S.RULE_DEAD_CELL or rule == S.RULE_EITHER:
        if visible == all_kinds:  # K-3.3.1 dead cell: every hand card is eligible
            eligible = all_kinds
    if rule == S.RULE_LINE_COMPLETION or rule == S.RULE_EITHER:
        row, column = cell_lines(rules, cell)
        # K-3.3.2: cards new to a line that this placement completes
        if line_complete(rules, lines, row, cell_still_face_down):
            eligible |= all_kinds & ~line_visible_kinds(rules, lines, row)
        if line_complete(rules, lines, column, cell_still_face_down):
            eligible |= all_kinds & ~line_visible_kinds(rules, lines, column)
    return eligible


@kernel
def bare_keeper_legal(rules, any_fits, any_eligible):
    """K-3.2.3/K-3.2.4/K-3.3.4: a bare keeper is legal when nothing fits (unless the exception is
    compulsory and usable), or always when must_place_if_able is off."""
    if any_fits:
        return rules[S.P_MUST_PLACE_IF_ABLE] == 0
    if rules[S.P_BLOCKED_CELL_OPTIONAL]:
        return True
    return not any_eligible


@kernel
def repeated_in_hand(hand, slot):
    """True if an earlier hand slot holds the same card id (K-3.2.5: one move per distinct
    card). Only called when the deck has copies."""
    for earlier in range(slot):
        if hand[earlier] == hand[slot]:
            return True
    return False


@kernel
def encode_move(move_type, cell, card):
    return move_type * S.MOVE_TYPE_UNIT + cell * S.MOVE_CELL_UNIT + card


@inline_kernel
def append_if(out, count, move, keep):
    """Append `move` at out[count] when `keep`; returns the new count. Branch-free: the move is
    written either way and counted only if kept (a move buffer, moves.max_moves, has room for
    every candidate), because whether a card fits or a cell is face down is a coin flip to the
    processor, and a mispredicted branch per candidate cost more than the store (issue #25).
    The index is unsigned (count >= 0), so numba adds no negative-index wraparound to it."""
    out[np.uint64(count)] = move
    return count + keep


@inline_kernel
def listed_once(has_copies, hand, slot, keep):
    """`keep`, unless the deck has copies and an earlier slot holds the same card (K-3.2.5: one
    move per distinct card). `has_copies` (rules[P_COPIES] > 1) is tested first: without copies
    `keep` passes through with no branch on it."""
    if has_copies:
        return keep and not repeated_in_hand(hand, slot)
    return keep


@inline_kernel
def placement_outcomes(rules, cards, lines, gap, hand, hand_len, out):
    """Legal outcomes after a draw into `gap` (K-3.2.2 to K-3.3), written to `out`; returns the
    count. `hand` holds the cards that may leave the hand, the drawn card included (all of the
    hand, or in a return_drawn_card first turn only the drawn card, K-3.8)."""
    visible = cell_visible_kinds(rules, lines, gap)
    has_copies = rules[S.P_COPIES] > 1
    count = 0
    for slot in range(hand_len):
        card = hand[slot]
        keep = listed_once(has_copies, hand, slot, card_fits(cards[card, S.CARD_KIND_BIT], visible))
        count = append_if(out, count, encode_move(S.MOVE_PLACE, gap, card), keep)
    any_fits = count > 0
    any_eligible = False
    # K-3.3.5: the exception is asked only when nothing fits, unless the summary's reading lets
    # a completed line take a card that clashes crosswise (then only cards that do not fit).
    if not any_fits or rules[S.P_LINE_COMPLETION_NEEDS_NO_FIT] == 0:
        fits_count = count
        eligible = cover_eligible_kinds(rules, lines, gap, visible, 0) & visible
        for slot in range(hand_len):
            card = hand[slot]
            keep = listed_once(has_copies, hand, slot, (cards[card, S.CARD_KIND_BIT] & eligible) != 0)
            count = append_if(out, count, encode_move(S.MOVE_COVER, gap, card), keep)
        any_eligible = count > fits_count
    if bare_keeper_legal(rules, any_fits, any_eligible):
        out[count] = encode_move(S.MOVE_KEEPER, gap, 0)
        count += 1
    return count


@inline_kernel
def placement_first_slot(rules, scalars, hand_len):
    """K-3.8 return_drawn_card: in the start seat's first turn only the drawn card (the hand's
    last slot) may leave the hand; otherwise every hand card may."""
    if rules[S.P_FIRST_TURN_LIMIT] == S.FIRST_TURN_RETURN_DRAWN_CARD and scalars[S.S_FIRST_TURN] != 0:
        return hand_len - 1
    return 0


@kernel
def draw_available(rules, scalars):
    """K-3.2.1: a draw needs a face-down card and a keeper in the supply (for a possible no-fit)."""
    if scalars[S.S_FACE_DOWN] == 0:
        return False
    if rules[S.P_KEEPERS] == S.UNLIMITED:
        return True
    return scalars[S.S_SUPPLY] > 0


@kernel
def effects_switched_on(rules, entry):
    if entry == S.ENTRY_PLACE:
        return rules[S.P_EFFECTS_ON_PLACE] != 0
    if entry == S.ENTRY_REPLACE:
        return rules[S.P_EFFECTS_ON_REPLACE] != 0
    return rules[S.P_EFFECTS_ON_COVERED] != 0


@kernel
def extra_turn_possible(rules, scalars, entry):
    """K-3.5.1 for a qualifying card entering the zoo this way now: not if effects are off for
    this entry, chaining is off during an extra turn, it is a no_extra_turn first turn (K-3.8),
    or the deal is in its final turns (K-4.1.4). The end itself may still forfeit the turn."""
    if not effects_switched_on(rules, entry):
        return False
    if scalars[S.S_IN_EXTRA_TURN] != 0 and rules[S.P_CHAIN_EXTRA_TURNS] == 0:
        return False
    if scalars[S.S_FIRST_TURN] != 0 and rules[S.P_FIRST_TURN_LIMIT] == S.FIRST_TURN_NO_EXTRA_TURN:
        return False  # K-3.8
    return scalars[S.S_FINAL_TURNS_LEFT] < 0


@kernel
def earns_extra_turn(rules, cards, scalars, card, entry):
    """K-3.5.1: does this card, entering this way now, earn an extra turn?"""
    if cards[card, S.CARD_EXTRA_TURN] == 0:
        return False
    return extra_turn_possible(rules, scalars, entry)


@kernel
def earns_skip(rules, cards, card, entry):
    """K-3.5.2: the seat's next turn is lost."""
    if cards[card, S.CARD_SKIP] == 0:
        return False
    return effects_switched_on(rules, entry)


# ---- scoring (K-4.2) ----------------------------------------------------------------------------
# A kind's part of a hand is summarised by (top, second, total, count): the highest value, the
# highest value left after removing one top card (-1 if none), the value sum and the card count.
STAT_TOP = 0
STAT_SECOND = 1
STAT_TOTAL = 2
STAT_COUNT = 3
STAT_FIELDS = 4


@kernel
def kind_term(rules, is_penalty, top, total, count):
    """The score one kind contributes (K-4.2)."""
    if count == 0:
        return 0
    if is_penalty:
        if rules[S.P_PENALTY_KIND_CARD] == S.PENALTY_MINUS_ONE:
            return -count
        return -total
    penalty = rules[S.P_OTHER_OF_KIND_PENALTY]
    if penalty == S.SCORE_ZERO:
        return top
    if penalty == S.SCORE_MINUS_ONE:
        return top - (count - 1)
    return top - (total - top)


@kernel
def stats_with(top, second, total, count, value):
    """A kind summary after adding a card of `value`."""
    if value > top:
        return value, top, total + value, count + 1
    if value > second:
        return top, value, total + value, count + 1
    return top, second, total + value, count + 1


@kernel
def term_without(rules, is_penalty, top, second, total, count, value):
    """The kind's score after removing one card of `value` (which it holds)."""
    new_top = second if value == top else top
    return kind_term(rules, is_penalty, new_top, total - value, count - 1)


@inline_kernel
def fill_kind_stats(rules, cards, hand, hand_len, stats):
    """stats[kind, STAT_*] for a hand."""
    for kind in range(rules[S.P_KINDS]):
        stats[kind, STAT_TOP] = -1
        stats[kind, STAT_SECOND] = -1
        stats[kind, STAT_TOTAL] = 0
        stats[kind, STAT_COUNT] = 0
    for slot in range(hand_len):
        card = hand[slot]
        kind = cards[card, S.CARD_KIND]
        top, second, total, count = stats_with(
            stats[kind, STAT_TOP], stats[kind, STAT_SECOND], stats[kind, STAT_TOTAL],
            stats[kind, STAT_COUNT], cards[card, S.CARD_VALUE],
        )
        stats[kind, STAT_TOP] = top
        stats[kind, STAT_SECOND] = second
        stats[kind, STAT_TOTAL] = total
        stats[kind, STAT_COUNT] = count


@kernel
def hand_score(rules, cards, hand, hand_len):
    """K-4.2 score of a hand, kind by kind. Branch-free over the hand (whether a card is of the
    kind is a coin flip to the processor) and without a division per card (issue #25: the
    earlier `card // values == kind` with branches cost a tenth of a random game's time)."""
    values = rules[S.P_VALUES]
    score = 0
    for kind in range(rules[S.P_KINDS]):
        top, total, count = -1, 0, 0  # kind_term's summary of the kind (STAT_* without second)
        for slot in range(hand_len):
            card = hand[slot]
            match = cards[card, S.CARD_KIND] == kind
            value = cards[card, S.CARD_VALUE]
            top = max(top, value if match else -1)
            total += value if match else 0
            count += match
        score += kind_term(rules, cards[kind * values, S.CARD_IS_PENALTY] != 0, top, total, count)
    return score


@inline_kernel
def removal_delta(rules, cards, stats, card):
    """Change of the hand's score when `card` (held) leaves it; stats describe the hand."""
    kind = cards[card, S.CARD_KIND]
    is_penalty = cards[card, S.CARD_IS_PENALTY] != 0
    before = kind_term(rules, is_penalty, stats[kind, STAT_TOP], stats[kind, STAT_TOTAL],
                       stats[kind, STAT_COUNT])
    after = term_without(rules, is_penalty, stats[kind, STAT_TOP], stats[kind, STAT_SECOND],
                         stats[kind, STAT_TOTAL], stats[kind, STAT_COUNT], cards[card, S.CARD_VALUE])
    return after - before
