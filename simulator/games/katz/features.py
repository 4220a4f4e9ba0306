"""Features of a Katz position and of a move from one seat's point of view, the learned
evaluation over them, and the recording of training positions (issue #19 item 2).

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

Recording (`record_games`): games played by a behaviour policy (a heuristic of policies.py, with
a share `explore` of its decisions replaced by a uniformly random legal move, so that every kind
of move is seen), one row per decision: the deciding seat's position row with the chosen move's
features, the seat, and the game; the targets are each seat's final score. `train_weights` (recording,
fit and weights file in one) is the game's hook for benchmarks/train_eval.py.
"""

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.katz import moves as M
from simulator.games.katz import policies as P
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.params import deck_cards, rule_array
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
def position_value(weights, offset, rules, cards, scalars, cells, lines, hand, hand_len, seats,
                   seat, scratch):
    """The position set's estimate of `seat`'s final score, from what that seat sees."""
    row, worths, workspace = scratch
    stats = workspace[0]
    R.fill_kind_stats(rules, cards, hand, hand_len, stats)
    fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, seat, stats, row)
    return evaluate(weights, offset, SET_POSITION, row)


# ---- recording training positions ----------------------------------------------------------------


@allocating
def record_games(rules, cards, deck, policy_ids, policy_params, explore, seeds, rotations,
                 rows, row_seats, row_games, finals):
    """Play one game per seed with the heuristics of `policy_ids` (by slot, as play_batch),
    a share `explore` of the decisions made uniformly at random instead, recording one row per
    decision into rows (capacity, FEATURES), the deciding seat and the game index; finals[g, seat]
    = the seat's final score in points. Returns the rows written (stops at the capacity)."""
    game = M.allocate_game(rules, 0)
    scalars, cells, hidden, lines, hands, seats, events = game
    moves = np.empty(M.max_moves(rules), dtype=np.int64)
    scratch = allocate_features(rules)
    row, worths, workspace = scratch
    rng = random_stream.new_state(0)
    limit = M.step_limit(rules)
    written = 0
    capacity = rows.shape[0]
    for g in range(seeds.shape[0]):
        rng[0] = seeds[g]
        M.start_game(rules, cards, deck, game, rng, rotations[g])
        while scalars[S.S_PHASE] != S.PHASE_OVER and scalars[S.S_STEPS] < limit:
            count = M.legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
            if count == 0:
                break
            seat = scalars[S.S_SEAT]
            hand, hand_len = hands[seat], seats[seat, S.SEAT_HAND_LEN]
            if random_stream.uniform(rng) < explore:
                index = random_stream.randint(rng, count)
            else:
                slot = seats[seat, S.SEAT_SLOT]
                index = P.choose_move(policy_ids[slot], policy_params[slot], rules, cards, scalars,
                                      cells, lines, hand, hand_len, seats, moves, count, rng,
                                      workspace)
            if written < capacity:
                P.fill_move_worths(POINTS_ONLY, rules, cards, scalars, cells, lines, hand,
                                   hand_len, moves, count, workspace, worths)
                R.fill_kind_stats(rules, cards, hand, hand_len, workspace[0])
                fill_position(rules, cards, scalars, cells, lines, hand, hand_len, seats, seat,
                              workspace[0], row)
                fill_move(rules, cards, scalars, lines, moves[index], worths[index], row)
                fill_fitting_kinds(rules, cards, lines, hand, hand_len, moves[index], row)
                for feature in range(FEATURES):
                    rows[written, feature] = row[feature]
                row_seats[written] = seat
                row_games[written] = g
                written += 1
            M.apply_move(rules, cards, deck, game, rng, moves[index])
        for seat in range(rules[S.P_PLAYERS]):
            finals[g, seat] = 0.5 * M.final_half_points(rules, seats, seat)
    return written


# Training (train_weights): games of each player count, their share of --games, played by
# greedy_tuned (the strongest heuristic) with a share TRAINING_EXPLORE of random decisions. The
# target is the seat's own final score: the margin over the other seats' mean fitted worse
# (learned won 43.8% against greedy_tuned with it, 54.6% with the score; 500 deals each).
TRAINING_PLAYERS = {2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}
TRAINING_POLICY = "greedy_tuned"
TRAINING_EXPLORE = 0.15
TRAINING_ALPHA = 1.0  # ridge penalty


def training_rows(params, seat_policies, seeds, rotations, explore):
    """Rows and targets of each evaluation set (SET_NAMES order) from games played by
    `seat_policies` (heuristics) with a share `explore` of random decisions. The position set's
    rows are the move set's with the move features zeroed; every target is the deciding seat's
    final score in points."""
    rules, cards, deck = params_arrays(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    capacity = len(seeds) * (int(rules[S.P_CELLS]) + int(rules[S.P_DECK_SIZE])) * 3 + 1024
    rows = np.zeros((capacity, FEATURES), dtype=np.float64)
    row_seats = np.zeros(capacity, dtype=np.int64)
    row_games = np.zeros(capacity, dtype=np.int64)
    finals = np.zeros((len(seeds), params.players), dtype=np.float64)
    written = record_games(rules, cards, deck,
                           np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64),
                           np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64),
                           float(explore), seeds, rotations, rows, row_seats, row_games, finals)
    if written >= capacity:  # more decisions than a game can have: an engine bug
        raise RuntimeError(f"training_rows: {written} decisions reached the capacity {capacity}")
    with_moves = rows[:written]
    targets = finals[row_games[:written], row_seats[:written]]
    positions = with_moves.copy()
    positions[:, FIRST_MOVE_FEATURE:] = 0.0
    return [positions, with_moves], [targets, targets]


def _training_chunk(players, seeds, rotations):
    from simulator.games.katz import GAME

    params = GAME.make_params({"players": players})
    seating = GAME.seat_policies([(TRAINING_POLICY, {})] * players)
    return training_rows(params, seating, seeds, rotations, TRAINING_EXPLORE)


def train_weights(seed, games, jobs, out, command):
    """Katz's part of benchmarks/train_eval.py: record `games` training games (TRAINING_*),
    fit one ridge evaluation per set, write `out` (None: the shipped WEIGHTS_FILE) with its card;
    returns the card. The same seed and games give the same file for any `jobs`."""
    from joblib import Parallel, delayed

    from simulator.games.base import params_hash, played_rules
    from simulator.games.katz import GAME
    from simulator.games.katz.specs import WEIGHTS_FILE
    from simulator.games.learned import WEIGHTS_FORMAT, fit_ridge, save_weights

    tasks = []
    for players, share in TRAINING_PLAYERS.items():
        count = int(round(games * share))
        seeds = np.random.SeedSequence([seed, players]).generate_state(count, dtype=np.uint64)
        rotations = np.arange(count) % players  # by the game's index: the same for any jobs
        for chunk in np.array_split(np.arange(count), max(1, min(count, 4 * jobs))):
            if len(chunk):
                tasks.append((players, seeds[chunk], rotations[chunk]))
    parts = Parallel(n_jobs=jobs)(delayed(_training_chunk)(*task) for task in tasks)
    weights, intercepts, fits = [], [], {}
    for index, name in enumerate(SET_NAMES):
        rows = np.concatenate([part[0][index] for part in parts])
        targets = np.concatenate([part[1][index] for part in parts])
        fit = fit_ridge(rows, targets, alpha=TRAINING_ALPHA, holdout=0.2, seed=seed)
        weights.append(fit.coefficients)
        intercepts.append(fit.intercept)
        fits[name] = fit.quality
    params = GAME.make_params({})
    card = {
        "format": WEIGHTS_FORMAT, "game": "katz", "features": list(FEATURE_NAMES),
        "sets": list(SET_NAMES), "rules": played_rules(params),
        "rules_hash": params_hash(params, GAME.rules_version), "seed": int(seed),
        "training_games": int(sum(len(task[1]) for task in tasks)),
        "training_positions": int(fits[SET_NAMES[0]]["train_rows"] + fits[SET_NAMES[0]]["holdout_rows"]),
        "command": command, "fit": fits, "strength": None,
        "training": {"players": {str(k): v for k, v in TRAINING_PLAYERS.items()},
                     "policy": TRAINING_POLICY, "explore": TRAINING_EXPLORE,
                     "alpha": TRAINING_ALPHA},
    }
    out = WEIGHTS_FILE if out is None else out
    out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(out, np.array(weights), np.array(intercepts), card)
    return card
def params_arrays(params):
    """Rule array, card table and deck of a Params (as play_batch builds them)."""
    return rule_array(params), M.card_table(params), deck_cards(params)
