"""Katz's training code (issue #19 item 2; the per-game training contract): `record` plays games
and returns the positions and targets of each evaluation set, `fit` fits the learned evaluation
on them. benchmarks/train_eval.py katz (the command that reproduces the shipped weights) and
`zoosim train` call only these two.

What is recorded (`record_games`): games played by any policies (heuristics, search and learned
players, as play_batch seats them), a share `explore` of the decisions made by a uniformly random
legal move instead (so that every kind of move is seen); one row per decision: the deciding
seat's position features with the chosen move's features (features.fill_decision_row). The
`position` set's rows are the same with the move features zeroed. Every target is the deciding
seat's final score in points.

Move priors from the search's visit counts (expert iteration, issue #23). Where a tree search
(`ismcts`, `oracle`, `strong`) made a decision among two or more moves, record() also returns,
under VISITS, one row per legal move of it (the position with that move's features), the share
of the root's visits the move received and a flag on the decision's first row. `fit` then
takes the move set's move weights from those shares (learned.fit_visit_logits: the softmax of
the move values over TRAINING_PRIOR_SCALE points, `strong`'s score_scale, is the search's visit
distribution, so `learned` plays the search's likeliest move and `strong`'s root priors, the
logistic of a move's gain over that scale, are the search's own odds), and its intercept and
position weights from the outcomes (what the final score leaves after the move part). Without
search decisions (the default recording by greedy_tuned) the move set is the outcome fit alone.
Measured (docs/learned-players.md, "Move priors from the search's visit counts"): priors
distilled from 1,000 games of `strong` at 200 iterations agree with the search's most visited
move in 57% of held-out decisions (63% with 2,000), and neither player got stronger on them (a linear model over 11 move features cannot express the search),
so the shipped weights stay the outcome fit of greedy_tuned's games.

The training's settings (TRAINING_*, benchmarks/train_eval.py katz): games of each player
count, their share of the training games, played by TRAINING_POLICY (greedy_tuned, the strongest
heuristic; train_eval.py's --katz-policy seats another, e.g. `strong` for a second round on its
own games) with a share TRAINING_EXPLORE of random decisions; the shipped weights' card
(weights/default.json) names the command that made them. The target is the seat's own final
score: the margin over the other seats' mean fitted worse (learned won 43.8% against
greedy_tuned with it, 54.6% with the score; 500 deals each).
"""

import numpy as np

from simulator.games import rng as random_stream
from simulator.games import search as tree_search
from simulator.games.katz import features as F
from simulator.games.katz import moves as M
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz.play import choose_for_seat, rule_tables
from simulator.games.katz.specs import SET_NAMES
from simulator.games.kernels import allocating, kernel
from simulator.games.learned import fit_ridge, fit_visit_logits

TRAINING_PLAYERS = {2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}  # player count: share of the training games
TRAINING_POLICY = "greedy_tuned"
TRAINING_EXPLORE = 0.15
TRAINING_ALPHA = 1.0  # ridge penalty
TRAINING_HOLDOUT = 0.2  # share of the rows kept out of the fit to measure it
VISITS = "visits"  # record()'s entry of the search decisions' visit counts (module docstring)
TRAINING_PRIOR_SCALE = 4.0  # points: the softmax scale of the move priors, strong's score_scale
VISIT_ROWS_PER_GAME = 1500  # first guess of the visit rows a game adds; record() doubles it as needed


@allocating
def record_games(rules, cards, deck, policy_ids, policy_params, search_workspace, explore, seeds,
                 rotations, rows, row_seats, row_games, finals, visit_rows, visit_shares,
                 visit_starts):
    """Play one game per seed with the policies of `policy_ids` (by slot, as play_batch; the
    search policies with `search_workspace`, search.search_workspace's), a share `explore` of the
    decisions made uniformly at random instead, recording one row per decision into rows
    (capacity, FEATURES), the deciding seat and the game index; finals[g, seat] = the seat's
    final score in points. At every decision with two or more moves that a tree search made
    (ismcts, oracle, strong; not a random exploring draw) visit_rows gets one row per legal move
    (the position with that move's features), visit_shares the share of the root's visits the
    move received and visit_starts 1 at the decision's first move. Returns the rows and the
    visit rows written (each stops at its capacity)."""
    game = M.allocate_game(rules, 0)
    scalars, cells, hidden, lines, hands, seats, events = game
    moves = np.empty(M.max_moves(rules), dtype=np.int64)
    scratch = F.allocate_features(rules)
    row, workspace = scratch[0], scratch[2]
    rng = random_stream.new_state(0)
    limit = M.step_limit(rules)
    written = 0
    visits_written = 0
    capacity = rows.shape[0]
    for g in range(seeds.shape[0]):
        rng[0] = seeds[g]
        M.start_game(rules, cards, deck, game, rng, rotations[g])
        while scalars[S.S_PHASE] != S.PHASE_OVER and scalars[S.S_STEPS] < limit:
            count = M.legal_moves_into(rules, cards, scalars, cells, lines, hands, seats, moves)
            if count == 0:
                break
            # no draw at explore 0: the games are then play_batch's, search players' included
            searched = False
            if explore > 0.0 and random_stream.uniform(rng) < explore:
                index = random_stream.randint(rng, count)
            else:
                index = choose_for_seat(rules, cards, game, policy_ids, policy_params, moves, count,
                                        rng, workspace, search_workspace)
                searched = count > 1 and KS.is_tree_search(policy_ids[seats[scalars[S.S_SEAT], S.SEAT_SLOT]])
            # search_workspace is None when no seat searches: numba prunes the branch (play.py)
            if search_workspace is not None:
                if searched:
                    visits_written = record_visits(rules, cards, game, moves, count, scratch,
                                                   search_workspace, visit_rows, visit_shares,
                                                   visit_starts, visits_written)
            if written < capacity:
                seat = scalars[S.S_SEAT]
                F.fill_decision_row(rules, cards, scalars, cells, lines, hands[seat],
                                    seats[seat, S.SEAT_HAND_LEN], seats, moves, count, index,
                                    scratch)
                for feature in range(F.FEATURES):
                    rows[written, feature] = row[feature]
                row_seats[written] = seat
                row_games[written] = g
                written += 1
            M.apply_move(rules, cards, deck, game, rng, moves[index])
        for seat in range(rules[S.P_PLAYERS]):
            finals[g, seat] = 0.5 * M.final_half_points(rules, seats, seat)
    return written, visits_written


@kernel
def record_visits(rules, cards, game, moves, count, scratch, search_workspace, visit_rows,
                  visit_shares, visit_starts, written):
    """The rows of the decision just searched (record_games): every legal move's row and its
    share of the root's visits, read from the search's tree (search.py's layout: tree[0] the
    nodes, tree[9] the root's child per move). Returns the visit rows written so far, or the
    capacity + 1 once they do not fit (record() then plays the games again with more room)."""
    capacity = visit_rows.shape[0]
    if written + count > capacity:
        return capacity + 1
    scalars, cells, hidden, lines, hands, seats, events = game
    seat = scalars[S.S_SEAT]
    hand, hand_len = hands[seat], seats[seat, S.SEAT_HAND_LEN]
    nodes, root_children = search_workspace[7][0], search_workspace[7][9]
    total = 0
    for index in range(count):
        if root_children[index] >= 0:
            total += nodes[tree_search.NODE_VISITS, root_children[index]]
    row, worths = scratch[0], scratch[1]
    # the first move's row fills the position features and every move's worth; the other
    # moves change only the move features (as features.fill_move_values does)
    F.fill_decision_row(rules, cards, scalars, cells, lines, hand, hand_len, seats, moves, count, 0,
                        scratch)
    for index in range(count):
        if index > 0:
            F.fill_move(rules, cards, scalars, lines, moves[index], worths[index], row)
            F.fill_fitting_kinds(rules, cards, lines, hand, hand_len, moves[index], row)
        for feature in range(F.FEATURES):
            visit_rows[written, feature] = row[feature]
        child = root_children[index]
        visits = nodes[tree_search.NODE_VISITS, child] if child >= 0 else 0
        visit_shares[written] = visits / total if total > 0 else 1.0 / count
        visit_starts[written] = index == 0
        written += 1
    return written


def record(params, seat_policies, seeds, rotations, explore=0.0):
    """Play one game per seed (rotation per game) with `seat_policies` (GAME.seat_policies'
    output: any Katz policies), a share `explore` of the decisions made uniformly at random;
    returns {set name: (rows (n, FEATURES) float64, targets (n,) float64, deciding seats (n,)
    int64)} in SET_NAMES order (module docstring). Deterministic for the seeds: the games of one call are the games of
    several calls over a split of the seeds, in order."""
    rules, cards, deck = rule_tables(params)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    rotations = np.ascontiguousarray(rotations, dtype=np.int64)
    capacity = len(seeds) * (int(rules[S.P_CELLS]) + int(rules[S.P_DECK_SIZE])) * 3 + 1024
    rows = np.zeros((capacity, F.FEATURES), dtype=np.float64)
    row_seats = np.zeros(capacity, dtype=np.int64)
    row_games = np.zeros(capacity, dtype=np.int64)
    finals = np.zeros((len(seeds), params.players), dtype=np.float64)
    policy_ids = np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64)
    searching = any(KS.is_tree_search(policy_id) for policy_id in policy_ids)
    visit_capacity = len(seeds) * VISIT_ROWS_PER_GAME if searching else 0
    while True:  # the same games again with room for more visit rows until they fit
        visit_rows = np.zeros((visit_capacity, F.FEATURES), dtype=np.float64)
        visit_shares = np.zeros(visit_capacity, dtype=np.float64)
        visit_starts = np.zeros(visit_capacity, dtype=np.bool_)
        written, visits_written = record_games(
            rules, cards, deck, policy_ids, policy_params,
            KS.search_workspace(rules, cards, deck, policy_ids, policy_params), float(explore),
            seeds, rotations, rows, row_seats, row_games, finals, visit_rows, visit_shares,
            visit_starts)
        if visits_written <= visit_capacity:
            break
        visit_capacity *= 2
    if written >= capacity:  # more decisions than a game can have: an engine bug
        raise RuntimeError(f"record: {written} decisions reached the capacity {capacity}")
    with_moves = rows[:written]
    deciders = row_seats[:written]
    targets = finals[row_games[:written], deciders]
    positions = with_moves.copy()
    positions[:, F.FIRST_MOVE_FEATURE:] = 0.0
    data = dict(zip(SET_NAMES, ((positions, targets, deciders), (with_moves, targets, deciders))))
    data[VISITS] = (visit_rows[:visits_written], visit_shares[:visits_written],
                    visit_starts[:visits_written])
    return data


def fit(data, seed):
    """(weights (len(SET_NAMES), F.FEATURES), intercepts (len(SET_NAMES),), fit quality per set)
    on record()'s data, or on several record() calls' chunks concatenated along axis 0: one
    ridge fit of the final score per set (TRAINING_ALPHA, a seeded TRAINING_HOLDOUT share held
    out). Where the data hold search decisions (VISITS), the move set's move weights are the
    search's move priors instead (module docstring): learned.fit_visit_logits at
    TRAINING_PRIOR_SCALE points, and its intercept and position weights the ridge fit of what the
    final score leaves after them."""
    weights, intercepts, fits = [], [], {}
    visits = data.get(VISITS)
    for name in SET_NAMES:
        rows, targets = data[name][:2]
        if name == SET_NAMES[F.SET_MOVE] and visits is not None and len(visits[0]):
            coefficients, intercept, fits[name] = fit_move_priors(rows, targets, visits, seed)
        else:
            result = fit_ridge(rows, targets, alpha=TRAINING_ALPHA, holdout=TRAINING_HOLDOUT, seed=seed)
            coefficients, intercept, fits[name] = result.coefficients, result.intercept, result.quality
        weights.append(coefficients)
        intercepts.append(intercept)
    return np.array(weights), np.array(intercepts), fits


def fit_move_priors(rows, targets, visits, seed):
    """The move set from the search's visit counts (its move features) and the outcomes (its
    level: the intercept and the position features, fitted to the final score minus the move
    part); returns (coefficients, intercept, quality of both fits)."""
    first = F.FIRST_MOVE_FEATURE
    priors = fit_visit_logits(visits[0][:, first:], visits[1], visits[2], TRAINING_PRIOR_SCALE,
                              alpha=TRAINING_ALPHA, holdout=TRAINING_HOLDOUT, seed=seed)
    level = fit_ridge(rows[:, :first], targets - rows[:, first:] @ priors.coefficients,
                      alpha=TRAINING_ALPHA, holdout=TRAINING_HOLDOUT, seed=seed)
    coefficients = np.concatenate([level.coefficients, priors.coefficients])
    return coefficients, level.intercept, {**level.quality, "move_priors": priors.quality}
