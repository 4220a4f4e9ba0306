"""Katz search policies: `ismcts` (information-set Monte Carlo tree search from the deciding
seat's view) and `oracle` (the same search seeing every card, rules spec section 3.5: the upper
bound on what hidden information is worth). The tree search itself is simulator/games/search.py;
this module gives it the Katz step functions and allocates its workspace.

What an `ismcts` determinization conditions on (K-8.3). Each iteration copies the public
position (scalars, cells with face-up and covered cards, line summaries, every seat's public
facts: hand sizes, pending skips, totals) and the deciding seat's own hand, then deals the cards
that seat has not seen at random: the deck minus its hand minus every face-up and covered card
(policies.fill_unseen, copies counted) is shuffled and laid into the face-down cells, the other
seats' hands (each to its known size) and the set-aside cards (their known count). So it
conditions on its hand, the public zoo and the known card counts; the cards it saw revealed are
either in its hand or face up or covered, and therefore excluded. It does not infer anything
from the opponents' choices (for example that a seat that put a keeper into a gap held no card
fitting it): every consistent deal is equally likely. It never reads `hidden` or another hand:
determinize clears them before dealing. With a drawn turn order (K-3.6.2) it knows
the current round's seat order (public) but not the later rounds': determinize redraws the
deal's order stream. Deals after the current one are shuffled
afresh inside the simulation (K-4.4), from the search's own stream.

Rewards. At the end of the game each seat's win share (1/k for k winners after the tie-break,
K-4.3). A rollout cut off after `rollout_depth` moves is scored by each seat's estimated final
score: its score of finished deals plus its current hand (K-4.2) and seat bonus (K-4.5); the win
shares are the softmax of those estimates divided by `score_scale` points (a lead of
score_scale points weighs e times more), or, with score_scale 0, the leaders share the win.

Priors (search.py's root_priors, counted as prior_weight visits). At the searching seat's own
decision a move's prior is the seat's win share by the same softmax among level seats when its
score rises by expectimax's worth of the move in points (policies.fill_move_worths: the expected
best placement of a draw, the sure worth of a placement or replacement), computed once per
search from the public position and the seat's hand (never from the other hands: the seats
count as level). Deeper in the tree every prior is 0.5 (priors
there cost 40% of the speed and gained nothing measurable). The worths use greedy_tuned's value
weights, as the greedy rollouts do: with expectimax's default weights (an extra turn and a lost
turn worth 3 points each) expectimax wins only 38% of 2-player games against itself with
greedy_tuned's.

Parameters (row of the seat's policy_params): iterations, exploration, rollout (random or
greedy with greedy_tuned's weights), rollout_depth (moves per rollout, 0 = to the end),
score_scale (points, for cut-off rollouts), prior_weight (visits a prior counts as).
"""

import numpy as np

from simulator.games import rng as random_stream
from simulator.games import search as tree_search
from simulator.games.katz import features as F
from simulator.games.katz import moves as M
from simulator.games.katz import policies as P
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.specs import (
    EXPLORATION, FIRST_SEARCH_POLICY, ISMCTS, ITERATIONS, LEARNED, L_WEIGHTS, POLICIES,
    PRIOR_WEIGHT, ROLLOUT, ROLLOUT_DEPTH, SCORE_SCALE, STRONG, S_WEIGHTS, L_TEMPERATURE,
)
from simulator.games.kernels import allocating, kernel
from simulator.games.layouts import ROLLOUT_RANDOM

# Value weights of the greedy rollouts and of the move worths behind the root's priors (module
# docstring): greedy_tuned's.
TUNED_WEIGHTS = POLICIES["greedy_tuned"].pack()


# ---- step functions for the generic search (kernels.py's list) -----------------------------------
# ctx = (rules, cards, deck, policy workspace, unseen counts int64 (card ids,), card pool int16
# (deck size,), winner flags bool (players,), step limit, score scale in half points, estimated
# half points float64 (players,))


@kernel
def copy_state(source, target):
    """Copy a game into the scratch game: every array but the event log, which starts empty."""
    scalars, cells, hidden, lines, hands, seats, events = target
    tree_search.copy_array(source[0], scalars)
    tree_search.copy_array(source[1], cells)
    tree_search.copy_array(source[2], hidden)
    tree_search.copy_array(source[3], lines)
    tree_search.copy_array(source[4], hands)
    tree_search.copy_array(source[5], seats)
    scalars[S.S_EVENT_COUNT] = 0


@kernel
def determinize(game, ctx, observer, rng):
    """Replace what `observer` cannot see by a random deal of the cards it has not seen (module
    docstring, K-8.3): clear `hidden` and the other hands, then deal the unseen multiset into the
    face-down cells, the other hands (their known sizes) and the set-aside tail (its known
    count); with a random turn order (K-3.6.2) a new order stream for the later rounds. Reads
    only public arrays and the observer's own hand."""
    rules, cards, unseen, pool = ctx[0], ctx[1], ctx[4], ctx[5]
    scalars, cells, hidden, lines, hands, seats, events = game
    for index in range(hidden.shape[0]):
        hidden[index] = S.NO_CARD
    for seat in range(rules[S.P_PLAYERS]):
        if seat != observer:
            for slot in range(hands.shape[1]):
                hands[seat, slot] = S.NO_CARD
    hand_len = seats[observer, S.SEAT_HAND_LEN]
    total = P.fill_unseen(rules, cards, cells, hands[observer], hand_len, unseen)
    count = 0
    for card in range(rules[S.P_CARD_IDS]):
        for _ in range(unseen[card]):
            pool[count] = card
            count += 1
    random_stream.shuffle(rng, pool[:count])
    dealt = 0
    cell_count = rules[S.P_CELLS]
    for cell in range(cell_count):
        if cells[S.CELL_STATE, cell] == S.FACE_DOWN:
            hidden[cell] = pool[dealt]
            dealt += 1
    for seat in range(rules[S.P_PLAYERS]):
        if seat != observer:
            for slot in range(seats[seat, S.SEAT_HAND_LEN]):
                hands[seat, slot] = pool[dealt]
                dealt += 1
    for index in range(scalars[S.S_SET_ASIDE]):
        hidden[cell_count + index] = pool[dealt]
        dealt += 1
    if M.drawn_orders(rules):
        # K-3.6.2: the current round's order is public, the later rounds' orders are not: a
        # fresh order stream for the rest of the deal
        M.order_stream(scalars)[0] = random_stream.next_u64(rng)
    if dealt != total:  # the public counts contradict the deck: an engine bug
        scalars[S.S_PHASE] = S.PHASE_OVER
        scalars[S.S_VIOLATIONS] += 1


@kernel
def legal_moves(game, ctx, out):
    scalars, cells, hidden, lines, hands, seats, events = game
    return M.legal_moves_into(ctx[0], ctx[1], scalars, cells, lines, hands, seats, out)


@kernel
def apply_move(game, ctx, rng, move):
    M.apply_move(ctx[0], ctx[1], ctx[2], game, rng, move)


@kernel
def is_over(game, ctx):
    """The game is over, or the step bound (K-4.1.6) is reached."""
    scalars = game[0]
    return scalars[S.S_PHASE] == S.PHASE_OVER or scalars[S.S_STEPS] >= ctx[7]


@kernel
def decider(game):
    return game[0][S.S_SEAT]


@kernel
def rollout_move(game, ctx, moves, count, rng, rollout_policy):
    if rollout_policy == ROLLOUT_RANDOM or count == 1:
        return random_stream.randint(rng, count) if count > 1 else 0
    rules, cards = ctx[0], ctx[1]
    scalars, cells, hidden, lines, hands, seats, events = game
    seat = scalars[S.S_SEAT]
    return P.choose_move(P.GREEDY, TUNED_WEIGHTS, rules, cards, scalars, cells, lines,
                         hands[seat], seats[seat, S.SEAT_HAND_LEN], seats, moves, count, rng,
                         ctx[3])


@kernel
def scores(game, ctx, out):
    """Win shares at the end (K-4.3); at a cut-off rollout shares from the estimated final
    scores (module docstring)."""
    rules, cards, win, scale, estimates = ctx[0], ctx[1], ctx[6], ctx[8], ctx[9]
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    if scalars[S.S_PHASE] != S.PHASE_OVER:
        for seat in range(players):
            estimates[seat] = estimated_half_points(rules, cards, hands, seats, seat)
        for seat in range(players):
            out[seat] = share_of(estimates, players, seat, scale)
        return
    win_shares(rules, scalars, seats, win, out)


@kernel
def win_shares(rules, scalars, seats, win, out):
    """out[seat] = the seat's win share of the finished game (1/k for k winners, K-4.3)."""
    players = rules[S.P_PLAYERS]
    M.winners_into(rules, seats, scalars[S.S_FIRST_SEAT], win)
    winners = 0
    for seat in range(players):
        winners += win[seat]
    for seat in range(players):
        out[seat] = win[seat] / winners if winners > 0 else 0.0


@kernel
def estimated_half_points(rules, cards, hands, seats, seat):
    return M.final_half_points(rules, seats, seat) + 2 * R.hand_score(
        rules, cards, hands[seat], seats[seat, S.SEAT_HAND_LEN])


@kernel
def share_of(estimates, players, seat, scale):
    """The seat's win share from estimated half points: the softmax of estimates / scale, or
    with scale 0 the leaders' shared win (as scores)."""
    if scale > 0:
        total = 0.0
        for other in range(players):
            total += np.exp((estimates[other] - estimates[seat]) / scale)  # own term is 1
        return 1.0 / total
    leaders = 0
    for other in range(players):
        if estimates[other] > estimates[seat]:
            return 0.0
        leaders += estimates[other] == estimates[seat]
    return 1.0 / leaders


@kernel
def root_priors(game, ctx, moves, count, out):
    """Priors of the searching seat's decision (search.py's root_priors, once per search): each
    move's win share (share_of) among level seats when the move's worth, expectimax's with
    greedy_tuned's weights (policies.fill_move_worths), puts the seat ahead or behind by that
    much. Reads only the public state and the seat's own hand (the other hands' scores are
    not known to it, so the seats count as level)."""
    rules, cards, workspace, scale, estimates = ctx[0], ctx[1], ctx[3], ctx[8], ctx[9]
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    seat = scalars[S.S_SEAT]
    P.fill_move_worths(TUNED_WEIGHTS, rules, cards, scalars, cells, lines, hands[seat],
                       seats[seat, S.SEAT_HAND_LEN], moves, count, workspace, out)
    for other in range(players):
        estimates[other] = 0.0
    for index in range(count):
        estimates[seat] = 2.0 * out[index]  # half points
        out[index] = share_of(estimates, players, seat, scale)


search = tree_search.make_search(copy_state, determinize, legal_moves, apply_move, is_over,
                                 decider, rollout_move, scores, root_priors=root_priors)


# ---- the learned evaluation's search (`strong`) and apprentice (`learned`) -----------------------
# strong's ctx is ismcts's with two more entries: ctx[10] the seat's parameter row (the weights
# from S_WEIGHTS on, features.py's layout), ctx[11] the feature scratch
# (features.allocate_features).


@kernel
def learned_scores(game, ctx, out):
    """Win shares at the end (K-4.3); at a cut-off rollout the softmax (share_of) of each seat's
    final score as the learned position evaluation estimates it from that seat's own view."""
    rules, cards, win, scale, estimates, row, scratch = ctx[0], ctx[1], ctx[6], ctx[8], ctx[9], ctx[10], ctx[11]
    scalars, cells, hidden, lines, hands, seats, events = game
    players = rules[S.P_PLAYERS]
    if scalars[S.S_PHASE] == S.PHASE_OVER:
        win_shares(rules, scalars, seats, win, out)
        return
    for seat in range(players):
        estimates[seat] = 2.0 * F.position_value(row, S_WEIGHTS, rules, cards, scalars,
                                                 cells, lines, hands[seat],
                                                 seats[seat, S.SEAT_HAND_LEN], seats, seat,
                                                 scratch)
    for seat in range(players):
        out[seat] = share_of(estimates, players, seat, scale)


@kernel
def learned_root_priors(game, ctx, moves, count, out):
    """Priors of the searching seat's decision: each move's win share (share_of) among level
    seats when the seat gains what the learned move evaluation expects of the move over the
    position's evaluation. Reads only the public state and the seat's own hand."""
    rules, cards, scale, estimates, row, scratch = ctx[0], ctx[1], ctx[8], ctx[9], ctx[10], ctx[11]
    scalars, cells, hidden, lines, hands, seats, events = game
    seat = scalars[S.S_SEAT]
    base = F.fill_move_values(row, S_WEIGHTS, rules, cards, scalars, cells, lines,
                              hands[seat], seats[seat, S.SEAT_HAND_LEN], seats, moves, count,
                              scratch, out)
    for other in range(rules[S.P_PLAYERS]):
        estimates[other] = 0.0
    for index in range(count):
        estimates[seat] = 2.0 * (out[index] - base)  # half points
        out[index] = share_of(estimates, rules[S.P_PLAYERS], seat, scale)


strong_search = tree_search.make_search(copy_state, determinize, legal_moves, apply_move, is_over,
                                        decider, rollout_move, learned_scores,
                                        root_priors=learned_root_priors)


@kernel
def learned_choice(policy_params, rules, cards, game, moves, count, rng, scratch, values):
    """`learned`'s move: the highest learned move value (temperature 0; ties to the first
    listed), else a draw from the softmax of values / temperature with the game's stream."""
    scalars, cells, hidden, lines, hands, seats, events = game
    seat = scalars[S.S_SEAT]
    F.fill_move_values(policy_params, L_WEIGHTS, rules, cards, scalars, cells, lines,
                       hands[seat], seats[seat, S.SEAT_HAND_LEN], seats, moves, count, scratch,
                       values)
    best_index = 0
    for index in range(count):
        if values[index] > values[best_index]:
            best_index = index
    temperature = policy_params[L_TEMPERATURE]
    if temperature <= 0.0:
        return best_index
    total = 0.0
    for index in range(count):
        values[index] = np.exp((values[index] - values[best_index]) / temperature)
        total += values[index]
    target = random_stream.uniform(rng) * total
    for index in range(count):
        target -= values[index]
        if target < 0.0:
            return index
    return best_index


# ---- workspace and dispatch ---------------------------------------------------------------------


def search_workspace(rules, cards, deck, policy_ids, policy_params):
    """The search workspace of one batch or step (allocate_search), or None when no seat plays
    a search policy: the play kernels compiled for a None workspace leave the search out (numba
    prunes their `search_workspace is not None` branch before typing), so a run without a search
    policy never compiles it."""
    if not np.any(policy_ids >= FIRST_SEARCH_POLICY):
        return None
    return allocate_search(rules, cards, deck, policy_ids, policy_params)


@kernel
def is_tree_search(policy_id):
    """Whether the policy searches a tree (ismcts, oracle, strong): `learned` does not."""
    return policy_id >= FIRST_SEARCH_POLICY and policy_id != LEARNED


@allocating
def allocate_search(rules, cards, deck, policy_ids, policy_params):
    """Workspace of the search policies of one batch: the deck (the caller's, params.deck_cards),
    a scratch game, unseen counts, a card pool, winner flags, the step bound, per-seat estimated
    half points and a tree sized for the largest `iterations` among the seats."""
    iterations = 0
    for slot in range(policy_ids.shape[0]):
        if is_tree_search(policy_ids[slot]):
            iterations = max(iterations, int(policy_params[slot, ITERATIONS]))
    return (
        deck,
        M.allocate_game(rules, 0),
        np.zeros(rules[S.P_CARD_IDS], dtype=np.int64),
        np.zeros(rules[S.P_DECK_SIZE], dtype=np.int16),
        np.zeros(rules[S.P_PLAYERS], dtype=np.bool_),
        M.step_limit(rules),
        np.zeros(rules[S.P_PLAYERS], dtype=np.float64),
        tree_search.allocate_tree(iterations + 1, M.max_moves(rules), rules[S.P_PLAYERS]),
        F.allocate_features(rules),
        np.zeros(M.max_moves(rules), dtype=np.float64),
    )


@kernel
def choose_move(policy_id, policy_params, rules, cards, game, moves, count, rng, workspace,
                search_workspace):
    """Index into moves[:count] chosen by a search policy for the seat to decide. `ismcts` sees
    only what determinize leaves (public state and the seat's own hand)."""
    if count == 1:
        return 0
    deck, scratch, unseen, pool, win, limit, estimates, tree, features, values = search_workspace
    if policy_id == LEARNED:
        return learned_choice(policy_params, rules, cards, game, moves, count, rng, features,
                              values)
    ctx = (rules, cards, deck, workspace, unseen, pool, win, limit,
           2.0 * policy_params[SCORE_SCALE], estimates)  # scale in half points, as the scores
    if policy_id == STRONG:
        return strong_search(ctx + (policy_params, features), game, scratch, tree, rng,
                             game[0][S.S_SEAT], moves, count, int(policy_params[ITERATIONS]),
                             policy_params[EXPLORATION], int(policy_params[ROLLOUT]),
                             int(policy_params[ROLLOUT_DEPTH]), True, policy_params[PRIOR_WEIGHT])
    return search(ctx, game, scratch, tree, rng, game[0][S.S_SEAT], moves, count,
                  int(policy_params[ITERATIONS]), policy_params[EXPLORATION],
                  int(policy_params[ROLLOUT]), int(policy_params[ROLLOUT_DEPTH]),
                  policy_id == ISMCTS, policy_params[PRIOR_WEIGHT])
