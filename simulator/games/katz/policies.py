"""Katz heuristics (numba; their ids and parameters as the YAML names them are in specs.py). A
policy picks one of the legal moves the engine listed; it sees only public state and its own hand
(K-8.3): the rule array, card table, scalars (phase, gap, supply, extra-turn and final-turn
flags), the public cells (face-up and covered cards, keepers), the line summaries, its hand, and
the seats' public facts (hand sizes, pending skips). It never receives the face-down identities
or other hands.

Values are measured with the spec's hand score (rules.hand_score, K-4.2): a move's worth is the
change of the own hand's score, plus `extra_turn_value` for a card that earns an extra turn
and minus `skip_cost` for one that costs a turn (only where those effects apply, K-3.5).
"""

import numpy as np
from numba import njit

from simulator.games import kernel_cache  # noqa: F401  installs the kernel cache locator before any kernel below
from simulator.games import rng as random_stream
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.specs import (
    BLOCKED_COST, EXTRA_TURN_VALUE, GREEDY, RANDOM, REPLACE_THRESHOLD, SKIP_COST,
)

NEG_INF = -1e18


@njit(cache=True, nogil=True)  # allocates: keeps reference counting
def allocate_workspace(rules):
    """Scratch arrays of the policies: kind stats; per-kind gains and the held kinds ranked by
    gain (row 0: face-up placement, row 1: covered); unseen card counts; per unseen card id
    (add delta, best within its kind placed face up, best within its kind covered); and the
    value-effect bonuses per way of entering the zoo (fill_entry_bonuses)."""
    kinds = rules[S.P_KINDS]
    card_ids = rules[S.P_CARD_IDS]
    return (
        np.zeros((kinds, R.STAT_FIELDS), dtype=np.int64),
        np.zeros((2, kinds), dtype=np.float64),
        np.zeros(card_ids, dtype=np.int64),
        np.zeros((3, card_ids), dtype=np.float64),
        np.zeros((2, kinds), dtype=np.int64),
        np.zeros((3, 2), dtype=np.float64),
    )


@R.inline_kernel
def choose_move(policy_id, policy_params, rules, cards, scalars, cells, lines, hand, hand_len,
                seats, moves, move_count, rng, workspace):
    """Index into moves[:move_count] chosen by policy `policy_id`."""
    if policy_id == RANDOM or move_count == 1:
        return random_move(rng, move_count)
    stats, bonuses = workspace[0], workspace[5]
    R.fill_kind_stats(rules, cards, hand, hand_len, stats)
    fill_entry_bonuses(rules, scalars, policy_params, bonuses)
    if scalars[S.S_PHASE] == S.PHASE_PLACE:
        return best_outcome(rules, cards, stats, bonuses, moves, move_count)
    if policy_id == GREEDY:
        return greedy_action(rules, cards, lines, hand, hand_len, stats, bonuses, policy_params,
                             moves, move_count, workspace[1][0], workspace[4][0])
    return expectimax_action(rules, cards, cells, lines, hand, hand_len, stats, bonuses, moves,
                             move_count, workspace)


@R.inline_kernel
def random_move(rng, move_count):
    """`random`: uniform over the legal moves; a single legal move draws no random number."""
    return random_stream.randint(rng, move_count) if move_count > 1 else 0


@R.inline_kernel
def fill_entry_bonuses(rules, scalars, policy_params, bonuses):
    """bonuses[entry] = (worth of an extra turn, cost of a lost turn) for a card entering the
    zoo that way now (0 where the effect would not apply, K-3.5)."""
    for entry in (S.ENTRY_PLACE, S.ENTRY_REPLACE, S.ENTRY_COVERED):
        bonuses[entry, 0] = 0.0
        bonuses[entry, 1] = 0.0
        if R.extra_turn_possible(rules, scalars, entry):
            bonuses[entry, 0] = policy_params[EXTRA_TURN_VALUE]
        if R.effects_switched_on(rules, entry):
            bonuses[entry, 1] = policy_params[SKIP_COST]


@R.inline_kernel
def effect_bonus(cards, card, entry, bonuses):
    """Value-effect part of a card's worth: + extra-turn worth, - lost-turn cost."""
    return (bonuses[entry, 0] * cards[card, S.CARD_EXTRA_TURN]
            - bonuses[entry, 1] * cards[card, S.CARD_SKIP])


@R.inline_kernel
def card_gain(rules, cards, stats, card, entry, bonuses):
    """Worth of moving a held card into the zoo: hand score change plus value-effect bonus."""
    return R.removal_delta(rules, cards, stats, card) + effect_bonus(cards, card, entry, bonuses)


@R.inline_kernel
def move_value(rules, cards, stats, bonuses, move):
    """Immediate worth of a placement outcome or replacement (a bare keeper or pass is 0)."""
    move_type = move // S.MOVE_TYPE_UNIT
    card = move & S.MOVE_CARD_MASK
    if move_type == S.MOVE_PLACE:
        return card_gain(rules, cards, stats, card, S.ENTRY_PLACE, bonuses)
    if move_type == S.MOVE_COVER:
        return card_gain(rules, cards, stats, card, S.ENTRY_COVERED, bonuses)
    if move_type == S.MOVE_REPLACE:
        return card_gain(rules, cards, stats, card, S.ENTRY_REPLACE, bonuses)
    return 0.0


@R.inline_kernel
def best_outcome(rules, cards, stats, bonuses, moves, move_count):
    """Placement after a draw (greedy and expectimax): the outcome leaving the best hand; the
    first listed wins ties."""
    best_index = 0
    best_value = NEG_INF
    for index in range(move_count):
        value = move_value(rules, cards, stats, bonuses, moves[index])
        if value > best_value:
            best_value = value
            best_index = index
    return best_index


@R.inline_kernel
def fill_kind_gains(rules, cards, hand, hand_len, stats, entry, bonuses, gains, ranking):
    """gains[kind] = best card_gain among held cards of that kind (NEG_INF if none held);
    ranking[:count] = the held kinds by falling gain (ties: lower kind first); returns count."""
    kinds = rules[S.P_KINDS]
    for kind in range(kinds):
        gains[kind] = NEG_INF
    for slot in range(hand_len):
        card = hand[slot]
        gain = card_gain(rules, cards, stats, card, entry, bonuses)
        kind = cards[card, S.CARD_KIND]
        if gain > gains[kind]:
            gains[kind] = gain
    count = 0
    for kind in range(kinds):
        if gains[kind] == NEG_INF:
            continue
        position = count
        while position > 0 and gains[ranking[position - 1]] < gains[kind]:
            ranking[position] = ranking[position - 1]
            position -= 1
        ranking[position] = kind
        count += 1
    return count


@R.kernel
def best_two_kinds(gains, ranking, ranked, kinds_mask):
    """(best kind, its gain, best gain of any other kind) among the ranked kinds in the mask."""
    best_kind = -1
    best = NEG_INF
    for index in range(ranked):
        kind = ranking[index]
        if (kinds_mask >> kind) & 1:
            if best_kind >= 0:
                return best_kind, best, gains[kind]
            best_kind = kind
            best = gains[kind]
    return best_kind, best, NEG_INF


@R.kernel
def held_kinds(rules, stats):
    mask = 0
    for kind in range(rules[S.P_KINDS]):
        if stats[kind, R.STAT_COUNT] > 0:
            mask |= 1 << kind
    return mask


@R.inline_kernel
def greedy_action(rules, cards, lines, hand, hand_len, stats, bonuses, policy_params, moves,
                  move_count, gains, ranking):
    """Greedy's action: the draw cell where its most harmful fitting card scores best (or
    -blocked_cost where nothing fits), unless a replacement gains more by replace_threshold.
    It passes (when allowed) only if no card fits anywhere and no replacement gains."""
    ranked = fill_kind_gains(rules, cards, hand, hand_len, stats, S.ENTRY_PLACE, bonuses, gains,
                             ranking)
    all_kinds = rules[S.P_ALL_KINDS]
    blocked = -policy_params[BLOCKED_COST]
    draw_index, best_draw = -1, NEG_INF
    replace_index, best_replace = -1, NEG_INF
    pass_index = -1
    for index in range(move_count):
        move = moves[index]
        move_type = move // S.MOVE_TYPE_UNIT
        if move_type == S.MOVE_DRAW:
            cell = (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK
            fitting = all_kinds & ~R.cell_visible_kinds(rules, lines, cell)
            value = best_two_kinds(gains, ranking, ranked, fitting)[1]
            if value == NEG_INF:
                value = blocked
            if value > best_draw:
                draw_index, best_draw = index, value
        elif move_type == S.MOVE_REPLACE:
            value = move_value(rules, cards, stats, bonuses, move)
            if value > best_replace:
                replace_index, best_replace = index, value
        else:
            pass_index = index
    if pass_index >= 0 and best_draw <= blocked and best_replace <= 0:
        return pass_index
    if replace_index >= 0 and (
        draw_index < 0 or best_replace > max(best_draw, 0.0) + policy_params[REPLACE_THRESHOLD]
    ):
        return replace_index
    if draw_index >= 0:
        return draw_index
    return replace_index if replace_index >= 0 else pass_index


@R.kernel
def fill_unseen(rules, cards, cells, hand, hand_len, unseen):
    """Cards the seat has not seen: the deck minus its hand, face-up and covered cards."""
    total = 0
    for card in range(rules[S.P_CARD_IDS]):
        unseen[card] = cards[card, S.CARD_COPIES]
        total += unseen[card]
    for slot in range(hand_len):
        unseen[hand[slot]] -= 1
        total -= 1
    for cell in range(rules[S.P_CELLS]):
        state = cells[S.CELL_STATE, cell]
        if state == S.FACE_UP or state == S.KEEPER_OVER:
            unseen[cells[S.CELL_CARD, cell]] -= 1
            total -= 1
    return total


@R.kernel
def fill_draw_outlook(rules, cards, hand, hand_len, stats, bonuses, unseen, per_card):
    """For each unseen card x, relative to the current hand's score:
    per_card[0, x] = score change of just adding x (it stays in hand),
    per_card[1, x] / per_card[2, x] = best worth of putting x or a held card of x's kind face
    up / under a keeper, with x added to the hand first."""
    for x in range(rules[S.P_CARD_IDS]):
        if unseen[x] == 0:
            continue
        kind = cards[x, S.CARD_KIND]
        is_penalty = cards[x, S.CARD_IS_PENALTY] != 0
        top = stats[kind, R.STAT_TOP]
        second = stats[kind, R.STAT_SECOND]
        total = stats[kind, R.STAT_TOTAL]
        count = stats[kind, R.STAT_COUNT]
        before = R.kind_term(rules, is_penalty, top, total, count)
        top2, second2, total2, count2 = R.stats_with(top, second, total, count, cards[x, S.CARD_VALUE])
        per_card[0, x] = R.kind_term(rules, is_penalty, top2, total2, count2) - before
        for row, entry in ((1, S.ENTRY_PLACE), (2, S.ENTRY_COVERED)):
            best = effect_bonus(cards, x, entry, bonuses)  # x itself goes back
            for slot in range(hand_len):
                card = hand[slot]
                if cards[card, S.CARD_KIND] != kind:
                    continue
                after = R.term_without(rules, is_penalty, top2, second2, total2, count2,
                                       cards[card, S.CARD_VALUE])
                value = after - before + effect_bonus(cards, card, entry, bonuses)
                best = max(best, value)
            per_card[row, x] = best


@R.inline_kernel
def best_cover_value(kind, bit, add, eligible, cover_kind, cover_best, cover_runner_up,
                     per_card, x):
    """Best worth of putting a card under a keeper after drawing x (of `kind`, kind bit `bit`):
    a held card of an eligible kind, or x itself if its kind is eligible (NEG_INF if none)."""
    best = NEG_INF
    other = cover_runner_up if cover_kind == kind else cover_best
    if other > NEG_INF:
        best = add + other
    if bit & eligible:
        best = max(best, per_card[2, x])
    return best


@R.kernel
def expected_draw_value(rules, cards, lines, cell, held, gains, ranking, ranked, per_card,
                        unseen, unseen_total):
    """Expected worth of drawing at `cell`: the best legal outcome (rules.placement_outcomes'
    rules, via the same fit and exception queries) averaged over the unseen cards. (The K-3.8
    first-turn limits are not modelled: they restrict one decision per deal.)"""
    if unseen_total <= 0:
        return 0.0
    all_kinds = rules[S.P_ALL_KINDS]
    visible = R.cell_visible_kinds(rules, lines, cell)
    fitting = all_kinds & ~visible
    # kinds the exception may cover: they do not fit (K-3.3.5 asks only about those)
    eligible = R.cover_eligible_kinds(rules, lines, cell, visible, 1) & visible
    cover_while_fit = rules[S.P_LINE_COMPLETION_NEEDS_NO_FIT] == 0 and eligible != 0
    place_kind, place_best, place_runner_up = best_two_kinds(gains[0], ranking[0], ranked, fitting)
    cover_kind, cover_best, cover_runner_up = best_two_kinds(gains[1], ranking[1], ranked, eligible)
    expected = 0.0
    for x in range(rules[S.P_CARD_IDS]):
        if unseen[x] == 0:
            continue
        kind = cards[x, S.CARD_KIND]
        bit = cards[x, S.CARD_KIND_BIT]
        add = per_card[0, x]
        best = NEG_INF
        if (held | bit) & fitting:
            other = place_runner_up if place_kind == kind else place_best
            if other > NEG_INF:
                best = add + other
            if bit & fitting:
                best = max(best, per_card[1, x])
            if R.bare_keeper_legal(rules, True, False):
                best = max(best, add)
            if cover_while_fit:
                best = max(best, best_cover_value(kind, bit, add, eligible, cover_kind, cover_best,
                                                  cover_runner_up, per_card, x))
        else:
            any_eligible = ((held | bit) & eligible) != 0
            if any_eligible:
                best = best_cover_value(kind, bit, add, eligible, cover_kind, cover_best,
                                        cover_runner_up, per_card, x)
            if R.bare_keeper_legal(rules, False, any_eligible):
                best = max(best, add)
        expected += unseen[x] * best
    return expected / unseen_total


@R.inline_kernel
def prepare_expectimax(rules, cards, cells, hand, hand_len, stats, bonuses, workspace):
    """Fill expectimax's tables of the seat's hand (kind gains and ranking per way of entering,
    unseen cards, per-card draw outlook); returns (ranked kinds, unseen total, held kinds)."""
    gains, unseen, per_card, ranking = workspace[1], workspace[2], workspace[3], workspace[4]
    ranked = fill_kind_gains(rules, cards, hand, hand_len, stats, S.ENTRY_PLACE, bonuses,
                             gains[0], ranking[0])
    fill_kind_gains(rules, cards, hand, hand_len, stats, S.ENTRY_COVERED, bonuses, gains[1],
                    ranking[1])
    unseen_total = fill_unseen(rules, cards, cells, hand, hand_len, unseen)
    fill_draw_outlook(rules, cards, hand, hand_len, stats, bonuses, unseen, per_card)
    return ranked, unseen_total, held_kinds(rules, stats)


@R.inline_kernel
def expectimax_value(rules, cards, lines, stats, bonuses, move, ranked, unseen_total, held,
                     workspace):
    """Expectimax's worth of an action (after prepare_expectimax): a draw by
    expected_draw_value, a replacement by its sure worth, a pass at 0."""
    if move // S.MOVE_TYPE_UNIT == S.MOVE_DRAW:
        cell = (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK
        return expected_draw_value(rules, cards, lines, cell, held, workspace[1], workspace[4],
                                   ranked, workspace[3], workspace[2], unseen_total)
    return move_value(rules, cards, stats, bonuses, move)


@R.kernel
def expectimax_action(rules, cards, cells, lines, hand, hand_len, stats, bonuses, moves,
                      move_count, workspace):
    """Expectimax's action: the listed move of highest expected worth (expectimax_value)."""
    ranked, unseen_total, held = prepare_expectimax(rules, cards, cells, hand, hand_len, stats,
                                                    bonuses, workspace)
    best_index, best_value = 0, NEG_INF
    for index in range(move_count):
        value = expectimax_value(rules, cards, lines, stats, bonuses, moves[index], ranked,
                                 unseen_total, held, workspace)
        if value > best_value:
            best_index, best_value = index, value
    return best_index


@R.kernel
def fill_move_worths(policy_params, rules, cards, scalars, cells, lines, hand, hand_len, moves,
                     move_count, workspace, worths):
    """worths[i] = expectimax's worth in points of moves[i] with these value weights: a
    placement or replacement its sure worth (move_value, as best_outcome), a draw its expected
    worth (expectimax_value), a pass 0."""
    stats, bonuses = workspace[0], workspace[5]
    R.fill_kind_stats(rules, cards, hand, hand_len, stats)
    fill_entry_bonuses(rules, scalars, policy_params, bonuses)
    if scalars[S.S_PHASE] == S.PHASE_PLACE:
        for index in range(move_count):
            worths[index] = move_value(rules, cards, stats, bonuses, moves[index])
        return
    ranked, unseen_total, held = prepare_expectimax(rules, cards, cells, hand, hand_len, stats,
                                                    bonuses, workspace)
    for index in range(move_count):
        worths[index] = expectimax_value(rules, cards, lines, stats, bonuses, moves[index], ranked,
                                         unseen_total, held, workspace)
