"""Features of a Katz position and of a move from one seat's point of view, the learned
and the learned evaluation over them (issue #19 item 2).

What a seat sees (K-8.3): the public zoo (cells, line summaries), the public seat facts (hand
sizes, pending skips, banked scores) and its own hand. Every feature below reads only those, so
the learned policies built on them (search.py) never peek.

Feature row (float64, FEATURES wide, index constants F_*): first the position features of the
seat (F_HAND_SCORE .. F_OPPONENT_HAND), then the move features (F_MOVE_WORTH .. F_PLACED_PENALTY),
which are 0 in a row that describes a position without a move. Minus points are the points a
card costs the hand now: a cat's value, or the value of a zoo card below its kind's top (under
the default scoring, minus_face; other scorings count them the same way here).

Evaluation (weights file of games/learned.py, two sets, both over the whole row):
  set SET_POSITION "position": the seat's final score (points) from a position row;
  set SET_MOVE "move": the seat's final score from a position row plus the features of the move
  it makes now.
In a policy's parameter row the weights lie from slot `offset` on as learned.Weights.vector
writes them: intercept of set 0, its FEATURES weights, intercept of set 1, its weights.

The training positions are recorded and fitted by training.py (fill_decision_row is the row of
one recorded decision).
"""

import numpy as np

from simulator.games.katz import moves as M
from simulator.games.katz import policies as P
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.specs import FEATURE_NAMES, SET_NAMES  # noqa: F401  (names of F_*, SET_*)
from simulator.games.kernels import allocating, kernel

# ---- position features ---------------------------------------------------------------------------
F_HAND_SCORE = 0  # the hand's score now (K-4.2)
F_BANKED = 1  # points of finished deals plus the seat bonus (K-4.5)
F_HAND_CARDS = 2  # cards held
F_CATS = 3  # penalty-kind cards held
F_CAT_POINTS = 4  # their minus points
F_DUPLICATE_POINTS = 5  # minus points of zoo cards below their kind's top
F_DUMPABLE = 6  # minus points of held cards whose kind fits some face-down cell
F_DUMPABLE_BY_TURNS = 7  # F_DUMPABLE * d / (d + 1), d = F_OWN_DRAWS_LEFT
F_STUCK = 8  # minus points of held cards whose kind fits no face-down cell
F_OWN_DRAWS_LEFT = 9  # face-down cells per player: the draws a seat can still expect
F_SUPPLY = 10  # keepers in the supply (face-down cells when unlimited)
F_REPLACE_GAIN = 11  # best hand-score gain of a replacement open now (0 if none)
F_SKIP_PENDING = 12  # 1 while the seat's next turn is lost
F_OPPONENT_HAND = 13  # mean hand size of the other seats
# ---- move features (0 in a position row) ---------------------------------------------------------
F_MOVE_WORTH = 14  # expectimax's worth of the move in points, without value-effect bonuses
F_EXTRA_TURN = 15  # the move puts a card into the zoo that earns an extra turn now
F_SKIP = 16  # ... that costs the seat's next turn
F_DRAW = 17  # move types (a placement face up is the base)
F_REPLACE = 18
F_KEEPER = 19
F_COVER = 20
F_COMPLETES_LINE = 21  # a draw at the last face-down cell of its row or column
F_FITTING_KINDS = 22  # a draw: held kinds that fit the cell
F_PLACED_VALUE = 23  # value of the card put into the zoo (place, cover, replace)
F_PLACED_PENALTY = 24  # 1 if that card is of the penalty kind
FEATURES = 25
FIRST_MOVE_FEATURE = F_MOVE_WORTH

SET_POSITION = 0
SET_MOVE = 1

# Value weights of the move worths: none, so F_MOVE_WORTH counts hand points only and the value
# effects are features of their own (F_EXTRA_TURN, F_SKIP).
POINTS_ONLY = np.zeros(16, dtype=np.float64)


@allocating
def allocate_features(rules):
    """Scratch of the feature kernels: the row, the per-move worths (max_moves,) and the
    policies' workspace (policies.allocate_workspace)."""
    return (np.zeros(FEATURES, dtype=np.float64), np.zeros(M.max_moves(rules), dtype=np.float64),
            P.allocate_workspace(rules))


@kernel
def fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, seat, stats, row):
    """row[:FIRST_MOVE_FEATURE] = the position features of `seat` (module docstring), its move
    features 0. `stats`: R.fill_kind_stats of the hand (the caller fills it)."""
    for index in range(FEATURES):
        row[index] = 0.0
    players = rules[S.P_PLAYERS]
    row[F_HAND_SCORE] = R.hand_score(rules, cards, hand, hand_len)
    row[F_BANKED] = 0.5 * M.final_half_points(rules, seats, seat)
    row[F_HAND_CARDS] = hand_len
    face_down = scalars[S.S_FACE_DOWN]
    # kinds that fit some face-down cell
    open_kinds = 0
    for cell in range(rules[S.P_CELLS]):
        if cells[S.CELL_STATE, cell] == S.FACE_DOWN:
            open_kinds |= rules[S.P_ALL_KINDS] & ~R.cell_visible_kinds(rules, lines, cell)
    for slot in range(hand_len):
        card = hand[slot]
        kind = cards[card, S.CARD_KIND]
        value = cards[card, S.CARD_VALUE]
        minus = 0.0
        if cards[card, S.CARD_IS_PENALTY]:
            row[F_CATS] += 1.0
            row[F_CAT_POINTS] += value
            minus = value
        elif value < stats[kind, R.STAT_TOP] or R.repeated_in_hand(hand, slot):  # not the top
            row[F_DUPLICATE_POINTS] += value
            minus = value
        if minus > 0.0:
            if cards[card, S.CARD_KIND_BIT] & open_kinds:
                row[F_DUMPABLE] += minus
            else:
                row[F_STUCK] += minus
    draws_left = face_down / players
    row[F_OWN_DRAWS_LEFT] = draws_left
    row[F_DUMPABLE_BY_TURNS] = row[F_DUMPABLE] * draws_left / (draws_left + 1.0)
    row[F_SUPPLY] = face_down if rules[S.P_KEEPERS] == S.UNLIMITED else scalars[S.S_SUPPLY]
    best_replace = 0.0
    if rules[S.P_ALLOW_REPLACEMENT] and scalars[S.S_BARE_KEEPERS] > 0:
        for cell in range(rules[S.P_CELLS]):
            if cells[S.CELL_STATE, cell] != S.KEEPER:
                continue
            visible = R.cell_visible_kinds(rules, lines, cell)
            for slot in range(hand_len):
                card = hand[slot]
                if R.card_fits(cards[card, S.CARD_KIND_BIT], visible):
                    best_replace = max(best_replace, R.removal_delta(rules, cards, stats, card))
    row[F_REPLACE_GAIN] = best_replace
    row[F_SKIP_PENDING] = seats[seat, S.SEAT_SKIP_PENDING]
    if players > 1:
        others = 0.0
        for other in range(players):
            if other != seat:
                others += seats[other, S.SEAT_HAND_LEN]
        row[F_OPPONENT_HAND] = others / (players - 1)


@kernel
def fill_move(rules, cards, scalars, lines, move, worth, row):
    """row[FIRST_MOVE_FEATURE:] = the features of `move` of the seat to decide; `worth`: its
    worth in points (policies.fill_move_worths with POINTS_ONLY)."""
    move_type = move // S.MOVE_TYPE_UNIT
    cell = (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK
    card = move & S.MOVE_CARD_MASK
    for index in range(FIRST_MOVE_FEATURE, FEATURES):
        row[index] = 0.0
    row[F_MOVE_WORTH] = worth
    entry = -1
    if move_type == S.MOVE_PLACE:
        entry = S.ENTRY_PLACE
    elif move_type == S.MOVE_COVER:
        entry = S.ENTRY_COVERED
        row[F_COVER] = 1.0
    elif move_type == S.MOVE_REPLACE:
        entry = S.ENTRY_REPLACE
        row[F_REPLACE] = 1.0
    elif move_type == S.MOVE_KEEPER:
        row[F_KEEPER] = 1.0
    elif move_type == S.MOVE_DRAW:
        row[F_DRAW] = 1.0
        row_line, column_line = R.cell_lines(rules, cell)
        if lines[S.LINE_FACE_DOWN, row_line] == 1 or lines[S.LINE_FACE_DOWN, column_line] == 1:
            row[F_COMPLETES_LINE] = 1.0
    if entry >= 0:
        row[F_EXTRA_TURN] = 1.0 if R.earns_extra_turn(rules, cards, scalars, card, entry) else 0.0
        row[F_SKIP] = 1.0 if R.earns_skip(rules, cards, card, entry) else 0.0
        row[F_PLACED_VALUE] = cards[card, S.CARD_VALUE]
        row[F_PLACED_PENALTY] = 1.0 if cards[card, S.CARD_IS_PENALTY] else 0.0


@kernel
def fill_fitting_kinds(rules, cards, lines, hand, hand_len, move, row):
    """row[F_FITTING_KINDS] for a draw move: the held kinds that fit its cell."""
    if move // S.MOVE_TYPE_UNIT != S.MOVE_DRAW:
        return
    cell = (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK
    held = 0
    for slot in range(hand_len):
        held |= cards[hand[slot], S.CARD_KIND_BIT]
    fitting = held & ~R.cell_visible_kinds(rules, lines, cell)
    count = 0
    while fitting:
        count += fitting & 1
        fitting >>= 1
    row[F_FITTING_KINDS] = count


@kernel
def evaluate(weights, offset, which, row):
    """intercept + weights . row of evaluation set `which`, the weights read from
    weights[offset:] (module docstring)."""
    start = offset + which * (FEATURES + 1)
    value = weights[start]
    for index in range(FEATURES):
        value += weights[start + 1 + index] * row[index]
    return value


@kernel
def fill_move_values(weights, offset, rules, cards, scalars, cells, lines, hand, hand_len, seats,
                     moves, count, scratch, values):
    """values[i] = the move set's estimate of the seat's final score after moves[i]; returns the
    position set's estimate of the position itself. Reads what the seat to decide sees only."""
    row, worths, workspace = scratch
    seat = scalars[S.S_SEAT]
    P.fill_move_worths(POINTS_ONLY, rules, cards, scalars, cells, lines, hand, hand_len, moves,
                       count, workspace, worths)
    stats = workspace[0]
    R.fill_kind_stats(rules, cards, hand, hand_len, stats)
    fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, seat, stats, row)
    position_value = evaluate(weights, offset, SET_POSITION, row)
    for index in range(count):
        fill_move(rules, cards, scalars, lines, moves[index], worths[index], row)
        fill_fitting_kinds(rules, cards, lines, hand, hand_len, moves[index], row)
        values[index] = evaluate(weights, offset, SET_MOVE, row)
    return position_value


@kernel
def fill_decision_row(rules, cards, scalars, cells, lines, hand, hand_len, seats, moves, count,
                      index, scratch):
    """scratch's row = the deciding seat's position features with those of moves[index]: the
    row a recorded decision adds to the training data (training.py)."""
    row, worths, workspace = scratch
    P.fill_move_worths(POINTS_ONLY, rules, cards, scalars, cells, lines, hand, hand_len, moves,
                       count, workspace, worths)
    R.fill_kind_stats(rules, cards, hand, hand_len, workspace[0])
    fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, scalars[S.S_SEAT],
                  workspace[0], row)
    fill_move(rules, cards, scalars, lines, moves[index], worths[index], row)
    fill_fitting_kinds(rules, cards, lines, hand, hand_len, moves[index], row)


@kernel
def position_value(weights, offset, rules, cards, scalars, cells, lines, hand, hand_len, seats,
                   seat, scratch):
    """The position set's estimate of `seat`'s final score, from what that seat sees."""
    row, worths, workspace = scratch
    stats = workspace[0]
    R.fill_kind_stats(rules, cards, hand, hand_len, stats)
    fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, seat, stats, row)
    return evaluate(weights, offset, SET_POSITION, row)
