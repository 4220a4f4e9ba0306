"""New York Zoo search policies `mcts` and `mcts_duel`: Monte Carlo tree search over the game's
decisions (they differ in the default heuristic only); and the policies on the learned
evaluation (features.py), which use the same scratch game and workspace: `strong` (sequential
halving at the root over lines valued by the evaluation; strong_move and "Strong" below),
`expert` (the same search on the expert's evaluation, by default at every decision; "Expert"
below) and `learned` (no search; see learned_move and "Learned policies" below). The tree search itself is
simulator/games/search.py (shared with Alles für die Katz); this module gives it the New York
Zoo step functions and allocates its workspace.

Information (N-12.6). Everything is public except, with `ai_sees_full_stacks = false`, the tiles
below the top of each bay. With the default (true) nothing is hidden: `determinize` is never
called and every iteration searches the real position. With false, every iteration first deals
the tiles the deciding seat has not seen at random into the hidden layers: the tiles of each
class in the game (tile_classes) minus every tile that is or was visible (top tiles of the bays,
enclosure tiles on any board, short-game start tiles still to place, the tile in hand), shuffled
per class and laid into the layers below the tops, whose classes are fixed by the setup (N-3.3).
The removed top layers of solo and the short game are part of that unseen pool. The hidden
layers are overwritten without being read.

Decisions and expansion. Every decision (destination, placement, populating, animal choice and
placement, house add, keep-one, attraction, breeding, bonus) is a tree level of the seat taking
it. A placement decision has hundreds of legal moves, so the search only considers the `width`
best moves of each decision by the move values of its `heuristic` (policies.option_values with
greedy_tuned's weights, or greedy_duel's in `mcts_duel`; equal values keep the legal-move order).
The root's other moves are never chosen. Moves are expanded best first and kept in that order,
so ties in UCB and in the final choice go to the heuristic's move: with width 1 the search
plays the heuristic's games exactly.

Why more iterations used to play worse (issue #19). New York Zoo has no chance after the setup,
so a greedy rollout is one deterministic line. Two defects made a larger budget lose to a
smaller one in 2-5 player games: (1) a finished game rewarded only the win, so a line lost by
one square counted as little as one lost by twenty and the means were averages of 0/1 flips;
(2) an unvisited move scored infinity, so every node tried its second-ranked move at its second
visit, and a subtree the search looked at more collected more of the seat's own worse
deviations in its mean (the backup averages), making the heuristic's move look worse the longer
it was examined. Now half a finished game's reward is the margin in empty squares (WIN_WEIGHT),
and every move starts with PRIOR_WEIGHT virtual visits of reward 1/2 (search.py's prior_weight,
every prior even), so a second-ranked move is tried where the first one's line scores poorly.
Solo keeps its reward and no virtual visits. docs/players.md ("Why more thought used to play
worse") and docs/benchmarks.md ("Budget scaling", benchmarks/scaling.py) have the measurements.

Rollouts. `greedy` plays the heuristic (the best of the ranked moves, the move the heuristic
itself takes) for every seat, `random` a uniform choice among the `width` ranked moves. A
rollout stops at the end of the game or after `rollout_depth` decisions (0 = to the end; cut-off
rollouts are weak, see docs/benchmarks.md).

Rewards (in [0, 1], the seat's value of the position):
- 2-5 players, game over: WIN_WEIGHT (1/2) times the win share (1/k for k winners, N-7.2; 0 for
  all at the turn cap) plus the rest times the softmax over seats of minus each seat's empty
  squares divided by `score_scale` (the margin: a narrow loss is worth more than a wide one).
- 2-5 players, cut off: the softmax over seats of minus each seat's estimated remaining squares
  divided by `score_scale` squares. Remaining squares = empty squares minus FILL_SQUARES per
  enclosure times the share of it filled (a full enclosure brings an attraction, N-4.4).
- Solo, game over: 1 for a win (N-8.2); a loss 1 / (1 + exp(empty squares / score_scale)),
  below 0.5, so a near miss is worth more than a board left half empty.
- Solo, cut off: 1 / (1 + exp(-(projected - to fill) / score_scale)), where projected = squares
  covered (estimated as above) divided by the share of the solo laps used so far: the covering
  rate so far extrapolated to the end of the last lap.

Learned policies. `learned` takes, among the heuristic's `width` best moves, the one whose
position at the end of the seat's turn (the heuristic finishing the turn on the scratch game)
features.position_value values most, or draws from the softmax of those values over
`temperature` with the game's stream. In 2-5 player games it values only the destination
(valued_decision; `valued: destination_and_placement` also the tile's placement, the default
before 2026-12-04) and takes the heuristic's move at every other decision: valuing the animal,
house and breeding choices by the evaluation played them worse than the heuristic does, and
valuing the placement made it no stronger and a third slower. With `destinations:
best_of_each_kind` (the default) it plays out two of the `width` best destinations, the best
and the best of the other kind of space (best_of_each_kind): a bay's tile costs a placement
sweep to play out, an animal space little. It plays about 1.4 times the games per second of
`destinations: best` at width 3, level with it head to head and weaker against mcts_duel
(docs/benchmarks.md, "Learned players", "learned's destinations and turn plan", has the
measurements). Solo values every decision among the `solo_width` best (there the evaluation's
choices won more solo games; the shipped solo weights were tuned at 4 and other widths win far
fewer solo games, so solo has a width of its own).

The turn plan. The heuristic's moves after the valued decision are those of the chosen
candidate's line (the same state, the same deterministic heuristic), so learned_move keeps that
line's moves (finish_turn records them; keep_plan, plan_move) and plays them at the seat's later
decisions of the turn instead of valuing every legal move again. The plan is only followed where
the game is where it expects it: the same game (its stream's state: no move of the turn draws
from it), seat, turn and count of the seat's decisions (play.py's); anywhere else, and in the
step API, which allocates a workspace per call, the heuristic decides, so the games are the same
with and without it (the golden digests of tests/games/nyz/test_speed_equivalence.py). Both
learned policies read the evaluation's weights from their parameter row (learned.py's layout,
from specs.L_WEIGHTS / specs.S_WEIGHTS on) and use `solo_heuristic` in place of `heuristic` in
solo games.

Strong (strong_move; docs/players.md, "Learned players (New York Zoo)", has the measurements).
With no chance after the setup, the heuristic playing every seat from a position is one
deterministic line, so sampling a move's line again tells nothing new; looking further along it
does. `strong` is sequential halving (Karnin, Koren & Somekh 2013; the root of Gumbel MuZero)
over the heuristic's `width` best moves of the decision with that as the arm pull: a move's
line is the move, then the heuristic for every seat; one extension of it is `rollout_depth`
more turns after the rest of the seat's turn (3-5 players `rollout_depth_3p`, solo
`solo_rollout_depth`; 0 = to the end of the game, then one round). A round gives each
surviving move max(1, iterations / (rounds x survivors)) extensions more (rounds =
ceil(log2 width)), values each line's position by
position_value (the margin in squares over the others' mean; solo minus the empty squares)
and keeps the better half (ties: the heuristic's order); the best of the last round is played.
A round plays a surviving line on from where the last one stopped (kept_lines keeps its game
and its stream; a line's moves depend on nothing else, so it is the line played again from the
decision). The played move's heuristic line passes through the next decision's position and goes
on with that decision's heuristic move: when the next decision follows at once (no other move and
no other policy's decision between, the same heuristic, no hidden stacks), the heuristic move's
line there starts from the played move's kept games (the carried line) where they are not past
the round's end.
A line that reaches the end of the game is valued by its outcome (a win above every unfinished
position, a loss below: features.finished_value) and is not played on in later rounds. A
larger budget looks further along the finalists' lines, which the evaluation values more
accurately the nearer they are to the end; valuing a finished line by its margin alone made
the budgets whose lines reach the end play worse (docs/players.md, "Why more thought used to
play worse"). Past `horizon_iterations` (64) the lines stop growing (their length is
the horizon budget's) and a move is valued by the mean of iterations / horizon_iterations lines:
the heuristic's and lines whose every move is drawn from the softmax of the heuristic's move
values over `temperature`, line i from the search stream (a number of the game's stream) + i,
the same for every move; more budget then lowers the estimate's noise instead of changing what
is estimated (looking further made 128 iterations lose to 64, issue #19). With width 1 it
plays its heuristic's games exactly. `searched: turn_start` (2-5 players) searches only each
turn's destination (N-4.1) and lets the heuristic take the turn's other decisions; solo every
decision is searched (a solo win needs the whole board covered in time, N-8.2). With hidden stacks
(N-12.6) every line of one decision is played on the same determinization, drawn with one
number of the game's stream.

Expert. strong_move with the expert's evaluation (features.py, "The expert's evaluation": 86
features, the board's shape included, so that it tells placements apart) and by default
`searched: every` and, at 3-5 players, `rollout_depth_3p` 2: lines extended by two turns at a
time there won more games among `strong`s, at 2 players they cost a third of the speed for no
gain (docs/benchmarks.md, "New York Zoo `expert`"). Its row is strong's, except that the
weights slot holds the weights file's key (learned.KeyedWeights): search_workspace appends to
the workspace the vectors of the keys the expert seats play (expert_evaluations) and a
features buffer, and strong_move takes the seat's vector by its key.

Parameters of the tree search (row of the seat's policy_params): iterations, exploration, rollout
(random or greedy), rollout_depth (decisions, 0 = to the end), width (moves considered per
decision), score_scale (squares), heuristic (greedy_tuned or greedy_duel: ranking and greedy
rollouts); `strong`'s and `expert`'s row is specs.py's (ITERATIONS .. S_WEIGHTS).
"""

import math

import numpy as np

from simulator.games import rng as random_stream
from simulator.games import search as tree_search
from simulator.games.kernels import allocating, kernel
from simulator.games.layouts import ROLLOUT_RANDOM
from simulator.games.nyz import moves as M
from simulator.games.nyz import policies as P
from simulator.games.learned import registered
from simulator.games.nyz.features import (
    N_EXPERT_FEATURES, N_FEATURES, advance_offer_scans, position_value, solo_time_used,
)
from simulator.games.nyz.specs import (
    EXPLORATION, FIRST_SEARCH_POLICY, HEURISTIC, HEURISTICS, ITERATIONS, L_HEURISTIC,
    DESTINATIONS_BEST_OF_EACH_KIND, EXPERT, L_DESTINATIONS, L_SOLO_HEURISTIC, L_SOLO_WIDTH,
    L_TEMPERATURE, L_VALUED, L_WEIGHTS, L_WIDTH, LEARNED, MCTS, POLICIES, ROLLOUT, ROLLOUT_DEPTH,
    S_HORIZON_ITERATIONS, S_ROLLOUT_DEPTH_3P, S_SEARCHED, S_SOLO_HEURISTIC, S_SOLO_ROLLOUT_DEPTH,
    S_TEMPERATURE, S_WEIGHTS, SCORE_SCALE, SEARCH_TURN_START, STRONG, VALUE_DESTINATION_AND_PLACEMENT,
    WIDTH,
)
from simulator.games.nyz.state import (
    D_DEST, D_PLACE, E_CAPACITY, E_COUNT, E_TILE, MAX_OPTIONS, N_ENCLOSURE_TILES, N_SPACES,
    P_DECISIONS, P_ENCLOSURES,
    P_START_TILES, P_WIN, R_SEES_FULL_STACKS, R_SOLO, SC_DECIDER, SC_DECISION, SC_CHECKED,
    SC_N_OPTIONS, SC_ORDER_SEED_LO, SC_OVER, SC_PLAYERS, SC_STOP_AT_FORCED, SC_TILE, SC_TURNS,
)

# greedy weights of each `heuristic` choice (specs.HEURISTICS)
HEURISTIC_WEIGHTS = np.stack([POLICIES[name].pack() for name in HEURISTICS])

# Squares one full enclosure is worth in a cut-off position: the attraction it brings (N-4.4).
FILL_SQUARES = 3.0

# Share of a finished 2-5 player game's reward that is the win share; the rest rewards the
# margin in empty squares (module docstring, "Rewards").
WIN_WEIGHT = 0.5

# learned's turn plan (learned_move, "Learned policies"): the moves one candidate line holds at
# most (its seat's decisions with two or more legal moves in the rest of a turn; a longer rest is
# played on by the heuristic), and the plan's slots: the seat, turn and decision count where its
# next move is due, the line kept and the next move's place in it
PLAN_CAPACITY = 64
N_PLAN_SLOTS = 5
PLAN_SEAT, PLAN_TURN, PLAN_DECISIONS, PLAN_LINE, PLAN_NEXT = range(N_PLAN_SLOTS)

# Most games strong_move keeps (kept_lines): the default width's 16 and more
KEPT_LINES = 64

# kept_lines' layout: two banks of half the slots each, a decision's games in the bank the carried
# line's are not in: round r's line `line` of ranked move k at the bank's first slot + (r x count
# + k) x lines + line. Carried slots: the carried line's games (the played move's at the end of
# each round, in order). Stops: the last turn of a kept game's round (END_STOP: to the end of the
# game), row CARRIED of the carried games', row CURRENT of this decision's rounds (at most
# MAX_ROUNDS: ceil(log2(width))). Carry key: the game's stream word, the decisions made
# (decisions_made) and the heuristic the carried line was played with, the number of carried
# games and the bank they are in.
MAX_ROUNDS = math.ceil(math.log2(MAX_OPTIONS))
CARRIED, CURRENT = 0, 1
END_STOP = 1 << 40
KEY_STREAM, KEY_DECISIONS, KEY_HEURISTIC, KEY_CARRIED, KEY_BANK = range(5)

# Virtual visits of reward 1/2 every move of a 2-5 player game starts with (search.py's
# prior_weight, every prior even): at exploration 0.25 a node's second-ranked move is tried at its
# second visit only where the first move's line scored below about 0.62, instead of always.
PRIOR_WEIGHT = 1.0

# Flips bits of the scratch game's seat orders' seed (copy_state; below 2**ORDER_SEED_BITS)
SCRATCH_ORDER_SALT = 0x2A5F3C91


# ---- step functions for the generic search (kernels.py's list) -----------------------------------
# ctx = (tables, heuristic weights float64 (MAX_POLICY_PARAMS,), seen flags int32
# (N_ENCLOSURE_TILES,), tile pool int32 (N_ENCLOSURE_TILES,), width, score scale)
CTX_TABLES, CTX_WEIGHTS, CTX_SEEN, CTX_POOL, CTX_WIDTH, CTX_SCALE = range(6)


@kernel
def copy_state(source, target):
    """Copy a game into the scratch game: every array but the work spaces (scratch,
    option_values) and the options past the current decision's; the scratch neither checks
    invariants (the real game does) nor stops at forced decisions (play_batch does not), so the
    step API searches the trees play_batch searches."""
    copy = tree_search.copy_array
    copy(source.sc, target.sc)
    # turn_order random_each_round: the scratch game's later rounds go in orders of a stream of
    # its own, so a search does not see the real game's coming orders (they are not drawn yet)
    target.sc[SC_ORDER_SEED_LO] ^= SCRATCH_ORDER_SALT
    copy(source.rng, target.rng)
    copy(source.policy_id, target.policy_id)
    copy(source.policy_params, target.policy_params)
    copy(source.bay_tiles, target.bay_tiles)
    copy(source.bay_count, target.bay_count)
    copy(source.animal_supply, target.animal_supply)
    copy(source.attraction_supply, target.attraction_supply)
    copy(source.grid, target.grid)
    copy(source.cells, target.cells)
    copy(source.house, target.house)
    copy(source.enc, target.enc)
    copy(source.seat, target.seat)
    copy(source.start_tiles, target.start_tiles)
    copy(source.events, target.events)
    copy(source.follow, target.follow)
    copy(source.markers_used, target.markers_used)
    copy(source.fit_from, target.fit_from)
    for index in range(source.sc[SC_N_OPTIONS]):
        target.options[index] = source.options[index]
        target.option_aux[index] = source.option_aux[index]
    target.sc[SC_CHECKED] = 0
    target.sc[SC_STOP_AT_FORCED] = 0


@kernel
def copy_slot(array, kept, slot, save):
    """kept[slot] = array (save), else array = kept[slot]."""
    if save:
        tree_search.copy_array(array, kept[slot])
    else:
        tree_search.copy_array(kept[slot], array)


@kernel
def keep_line(scratch, kept, slot, save):
    """Save the scratch game into kept line `slot` (save) or restore it from there (kept_lines:
    every State array with a slot axis in front): copy_state's arrays but the policies (the
    same in every line of a decision, and no move changes them) and the current decision's
    options."""
    copy_slot(scratch.sc, kept.sc, slot, save)
    copy_slot(scratch.rng, kept.rng, slot, save)
    copy_slot(scratch.bay_tiles, kept.bay_tiles, slot, save)
    copy_slot(scratch.bay_count, kept.bay_count, slot, save)
    copy_slot(scratch.animal_supply, kept.animal_supply, slot, save)
    copy_slot(scratch.attraction_supply, kept.attraction_supply, slot, save)
    copy_slot(scratch.grid, kept.grid, slot, save)
    copy_slot(scratch.cells, kept.cells, slot, save)
    copy_slot(scratch.house, kept.house, slot, save)
    copy_slot(scratch.enc, kept.enc, slot, save)
    copy_slot(scratch.seat, kept.seat, slot, save)
    copy_slot(scratch.start_tiles, kept.start_tiles, slot, save)
    copy_slot(scratch.events, kept.events, slot, save)
    copy_slot(scratch.follow, kept.follow, slot, save)
    copy_slot(scratch.markers_used, kept.markers_used, slot, save)
    copy_slot(scratch.fit_from, kept.fit_from, slot, save)
    for index in range(scratch.sc[SC_N_OPTIONS]):  # sc first: this decision's count either way
        if save:
            kept.options[slot, index] = scratch.options[index]
            kept.option_aux[slot, index] = scratch.option_aux[index]
        else:
            scratch.options[index] = kept.options[slot, index]
            scratch.option_aux[index] = kept.option_aux[slot, index]


@kernel
def determinize(st, ctx, observer, rng):
    """Deal the tiles not seen into the layers below the bay tops (module docstring). Every
    seat sees the same, so `observer` does not matter."""
    tab, seen, pool = ctx[CTX_TABLES], ctx[CTX_SEEN], ctx[CTX_POOL]
    for tile in range(N_ENCLOSURE_TILES):
        seen[tile] = 0
    for space in range(1, N_SPACES + 1):
        if st.bay_count[space] > 0:
            seen[st.bay_tiles[space, st.bay_count[space] - 1]] = 1
    for seat in range(st.sc[SC_PLAYERS]):
        for e in range(st.seat[seat, P_ENCLOSURES]):
            seen[st.enc[seat, e, E_TILE]] = 1
        for k in range(st.seat[seat, P_START_TILES]):
            seen[st.start_tiles[seat, k]] = 1
    if 0 <= st.sc[SC_TILE] < N_ENCLOSURE_TILES:
        seen[st.sc[SC_TILE]] = 1
    for cls in range(4):
        count = 0
        for tile in range(N_ENCLOSURE_TILES):
            if tab.tile_class[tile] == cls and seen[tile] == 0:
                pool[count] = tile
                count += 1
        random_stream.shuffle(rng, pool[:count])
        dealt = 0
        for space in range(1, N_SPACES + 1):
            for layer in range(st.bay_count[space] - 1):
                if tab.bay_layers[space, layer] == cls and dealt < count:
                    st.bay_tiles[space, layer] = pool[dealt]
                    dealt += 1


@kernel
def legal_moves(st, ctx, out):
    """The `width` best legal moves by the heuristic's values, best first (ties: listed first);
    st.option_values is overwritten."""
    n = st.sc[SC_N_OPTIONS]
    if n == 1:
        out[0] = st.options[0]
        return 1
    P.option_values(st, ctx[CTX_TABLES], st.sc[SC_DECIDER], ctx[CTX_WEIGHTS])
    values = st.option_values
    count = min(n, ctx[CTX_WIDTH])
    for rank in range(count):
        best, best_value = 0, -math.inf
        for i in range(n):
            if values[i] > best_value:
                best, best_value = i, values[i]
        out[rank] = st.options[best]
        values[best] = -math.inf
    return count


@kernel
def apply_move(st, ctx, rng, move):
    """New York Zoo draws no random number after setup (N-12.6): `rng` is not needed."""
    M.apply_move(st, ctx[CTX_TABLES], move)


@kernel
def is_over(st, ctx):
    """The game is over (the engine's turn cap, N-7.3, bounds every game)."""
    return st.sc[SC_OVER] != 0


@kernel
def decider(st):
    return st.sc[SC_DECIDER]


@kernel
def rollout_move(st, ctx, moves, count, rng, rollout_policy):
    """moves[:count] are ranked best first: greedy takes the first (the heuristic's own move),
    random a uniform one."""
    if rollout_policy == ROLLOUT_RANDOM and count > 1:
        return random_stream.randint(rng, count)
    return 0


@kernel
def remaining_squares(st, tab, seat):
    """Empty squares minus FILL_SQUARES per enclosure times its filled share (module docstring)."""
    remaining = float(M.empty_squares(st, tab, seat))
    for e in range(st.seat[seat, P_ENCLOSURES]):
        remaining -= FILL_SQUARES * st.enc[seat, e, E_COUNT] / st.enc[seat, e, E_CAPACITY]
    return remaining


@kernel
def softmax_of_minus(out, players, scale):
    """out[:players] = the softmax over seats of minus out / scale (fewer squares left: more)."""
    best = math.inf
    for seat in range(players):
        best = min(best, out[seat])
    total = 0.0
    for seat in range(players):  # shifted by the best so that no exponent overflows
        out[seat] = math.exp((best - out[seat]) / scale)
        total += out[seat]
    for seat in range(players):
        out[seat] /= total


@kernel
def scores(st, ctx, out):
    """Each seat's reward (module docstring)."""
    tab, scale = ctx[CTX_TABLES], ctx[CTX_SCALE]
    players = st.sc[SC_PLAYERS]
    over = st.sc[SC_OVER] != 0
    if tab.rules[R_SOLO] != 0:
        if over:
            empty = M.empty_squares(st, tab, 0)
            out[0] = 1.0 if st.seat[0, P_WIN] != 0 else 1.0 / (1.0 + math.exp(empty / scale))
        else:
            to_fill = tab.to_fill[0]
            projected = (to_fill - remaining_squares(st, tab, 0)) / solo_time_used(st, tab)
            out[0] = 1.0 / (1.0 + math.exp(min((to_fill - projected) / scale, 700.0)))
        return
    if not over:
        for seat in range(players):
            out[seat] = remaining_squares(st, tab, seat)
        softmax_of_minus(out, players, scale)
        return
    winners = 0
    for seat in range(players):
        winners += st.seat[seat, P_WIN] != 0
        out[seat] = M.empty_squares(st, tab, seat)
    softmax_of_minus(out, players, scale)
    for seat in range(players):  # WIN_WEIGHT of the win share, the rest by the margin
        share = (st.seat[seat, P_WIN] != 0) / winners if winners > 0 else 0.0
        out[seat] = WIN_WEIGHT * share + (1.0 - WIN_WEIGHT) * out[seat]


search = tree_search.make_search(copy_state, determinize, legal_moves, apply_move, is_over,
                                 decider, rollout_move, scores, expand_in_order=True)


# ---- workspace and dispatch ---------------------------------------------------------------------


def search_workspace(tab, policy_id, policy_params):
    """allocate_search's (scratch game, workspace) for one batch or step, or (None, None) when
    no seat plays the search policy: the play kernels compiled for a None workspace leave the
    search out (numba prunes their `search_workspace is not None` branch before typing), so a
    run without a search policy never compiles it. The workspace ends with the expert's
    evaluations (expert_evaluations)."""
    if not np.any(np.asarray(policy_id) >= FIRST_SEARCH_POLICY):
        return None, None
    scratch, workspace = allocate_search(tab, policy_id, policy_params)
    return scratch, workspace + expert_evaluations(policy_id, policy_params) + kept_lines(
        scratch, policy_id, policy_params)


def kept_lines(scratch, policy_id, policy_params):
    """(kept games, their line streams, stops, carried slots, carry key): the slots where
    strong_move keeps its lines (module docstring, "Strong"; the layout at MAX_ROUNDS), for the
    largest width x lines among the `strong` and `expert` seats, at most KEPT_LINES (lines past
    them are played from the decision). The games are the scratch game's arrays with a slot axis
    in front."""
    slots = 0
    for policy, row in zip(policy_id, policy_params):
        if policy == STRONG or policy == EXPERT:
            budget = int(row[ITERATIONS])  # strong_move's lines per move (solo: fewer)
            lines = lines_per_move(budget, horizon_iterations(budget, int(row[S_HORIZON_ITERATIONS]), False))
            width = min(int(row[WIDTH]), MAX_OPTIONS)
            slots = max(slots, 2 * halving_rounds(max(width, 1)) * width * lines)
    slots = min(slots, KEPT_LINES)
    games = type(scratch)(*(np.zeros((slots,) + array.shape, dtype=array.dtype) for array in scratch))
    return (games, np.zeros(slots, dtype=np.uint64), np.zeros((2, MAX_ROUNDS), dtype=np.int64),
            np.zeros(MAX_ROUNDS, dtype=np.int64), np.zeros(5, dtype=np.uint64))


def expert_evaluations(policy_id, policy_params):
    """(keys (n,), weights vectors (n, 2 x (N_EXPERT_FEATURES + 1)), features buffer): the weights
    of the n distinct evaluations the `expert` seats play, found by the key in their rows
    (learned.KeyedWeights; n = 0 when no seat plays expert), and a buffer for their features."""
    keys = sorted({float(row[S_WEIGHTS]) for policy, row in zip(policy_id, policy_params) if policy == EXPERT})
    vectors = np.zeros((len(keys), 2 * (N_EXPERT_FEATURES + 1)), dtype=np.float64)
    for index, key in enumerate(keys):
        vectors[index] = registered(key)
    return np.array(keys, dtype=np.float64), vectors, np.zeros(N_EXPERT_FEATURES, dtype=np.float64)


@allocating
def allocate_search(tab, policy_id, policy_params):
    """(scratch game, workspace) of the search policy of one game or batch: the scratch game
    (its setup is overwritten by every iteration's copy; callers pass it by reference) and the
    workspace: a tree sized for the largest `iterations` among the mcts seats (`strong` uses its
    move buffer for its survivors and its stream for its deals), seen flags, a tile pool, the
    ranked root moves, a features buffer, the ranked moves' values, and `learned`'s turn plan
    (a line per move, sized for the largest `width` or `solo_width` among the learned seats;
    see "Learned policies")."""
    iterations, width = 0, 1
    for seat in range(policy_id.shape[0]):
        if policy_id[seat] == MCTS:
            iterations = max(iterations, int(policy_params[seat, ITERATIONS]))
        if policy_id[seat] == LEARNED:
            width = max(width, int(policy_params[seat, L_WIDTH]),
                        int(policy_params[seat, L_SOLO_WIDTH]))
    scratch = M.new_state(tab, np.uint64(0), policy_id, policy_params, False, False)
    return scratch, (
        tree_search.allocate_tree(iterations + 1, MAX_OPTIONS, policy_id.shape[0]),
        np.zeros(N_ENCLOSURE_TILES, dtype=np.int32),
        np.zeros(N_ENCLOSURE_TILES, dtype=np.int32),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.zeros(N_FEATURES, dtype=np.float64),
        np.zeros(MAX_OPTIONS, dtype=np.float64),
        np.zeros((min(width, MAX_OPTIONS), PLAN_CAPACITY), dtype=np.int64),
        np.zeros(min(width, MAX_OPTIONS), dtype=np.int64),
        np.full(N_PLAN_SLOTS, -1, dtype=np.int64),
        np.zeros(1, dtype=np.uint64),
    )


@kernel
def finish_turn(st, tab, seat, weights, line):
    """Play the heuristic (greedy with `weights`) for the seat until its turn is over: the game
    ends, another seat decides (breeding, N-6.1) or the next turn starts. Returns the number of
    moves written to `line`: the moves of the decisions with two or more legal moves, in order,
    as many as fit (the turn plan, "Learned policies")."""
    turn = st.sc[SC_TURNS]
    length = 0
    while st.sc[SC_OVER] == 0 and st.sc[SC_DECIDER] == seat and st.sc[SC_TURNS] == turn:
        n = st.sc[SC_N_OPTIONS]
        move = st.options[P.greedy(st, tab, seat, n, weights)]
        if n >= 2 and length < line.shape[0]:
            line[length] = move
            length += 1
        M.apply_move(st, tab, move)
    return length


@kernel
def decisions_made(st):
    """Decisions of every seat so far (play.py counts each one before its move)."""
    total = 0
    for seat in range(st.sc[SC_PLAYERS]):
        total += st.seat[seat, P_DECISIONS]
    return total


@kernel
def plan_move(st, seat, plan, plan_key, lines, lengths):
    """The next move of the seat's turn plan when the game is where the plan expects it (the
    same game, seat, turn and count of the seat's decisions) and the plan has one, else -1."""
    if (plan[PLAN_SEAT] != seat or plan[PLAN_TURN] != st.sc[SC_TURNS]
            or plan[PLAN_DECISIONS] != st.seat[seat, P_DECISIONS] or plan_key[0] != st.rng[0]
            or plan[PLAN_NEXT] >= lengths[plan[PLAN_LINE]]):
        return -1
    move = lines[plan[PLAN_LINE], plan[PLAN_NEXT]]
    plan[PLAN_NEXT] += 1
    plan[PLAN_DECISIONS] += 1
    return move


@kernel
def keep_plan(st, seat, plan, plan_key, line):
    """Make candidate `line`'s rest of the turn the seat's turn plan: its first move is the
    seat's next decision with two or more legal moves (play.py counts this one already)."""
    plan[PLAN_SEAT] = seat
    plan[PLAN_TURN] = st.sc[SC_TURNS]
    plan[PLAN_DECISIONS] = st.seat[seat, P_DECISIONS] + 1
    plan[PLAN_LINE] = line
    plan[PLAN_NEXT] = 0
    plan_key[0] = st.rng[0]


@kernel
def valued_decision(decision, valued):
    """Whether `learned` values this kind of decision in a 2-5 player game: the destination
    (which tile or animals to take, N-4.1), with `valued` = VALUE_DESTINATION_AND_PLACEMENT the
    tile's placement too; the heuristic takes the rest (populating, animal placement, houses,
    attractions, breeding choices). Solo values every decision (module docstring, "Learned
    policies")."""
    return decision == D_DEST or (valued == VALUE_DESTINATION_AND_PLACEMENT and decision == D_PLACE)


@kernel
def best_of_each_kind(tab, ranked, count):
    """Keep two of the `count` ranked destinations (best first) in ranked[:2]: the best and the
    best of the other kind of space (bay or animal space, N-4.2 / N-4.3), or the second best when
    all are of one kind; returns the number kept. A destination move is marker x 32 + space."""
    if count <= 2:
        return count
    kind = tab.strip_kind[ranked[0] % 32]
    for k in range(1, count):
        if tab.strip_kind[ranked[k] % 32] != kind:
            ranked[1] = ranked[k]
            break
    return 2


@kernel
def learned_move(st, tab, scratch, workspace, params):
    """The `learned` policy: the move (among the heuristic's `width` best) whose position at the
    end of the seat's turn, the heuristic finishing the turn, the evaluation values most;
    temperature > 0 draws from the softmax over those values (squares) / temperature."""
    seat = st.sc[SC_DECIDER]
    tree, seen, pool, ranked, features, move_values, lines, lengths, plan, plan_key = workspace[:10]
    weights = HEURISTIC_WEIGHTS[int(params[L_SOLO_HEURISTIC if tab.rules[R_SOLO] != 0 else L_HEURISTIC])]
    if tab.rules[R_SOLO] == 0 and not valued_decision(st.sc[SC_DECISION], int(params[L_VALUED])):
        move = plan_move(st, seat, plan, plan_key, lines, lengths)
        if move >= 0:
            return move
        return st.options[P.greedy(st, tab, seat, st.sc[SC_N_OPTIONS], weights)]
    evaluation = params[L_WEIGHTS:]
    width = int(params[L_SOLO_WIDTH if tab.rules[R_SOLO] != 0 else L_WIDTH])
    # the plan's lines are sized for the largest width among the learned seats
    # (allocate_search): never more candidates than it has lines (no bounds checks here)
    ctx = (tab, weights, seen, pool, min(width, lines.shape[0]), 1.0)
    count = legal_moves(st, ctx, ranked)
    if (tab.rules[R_SOLO] == 0 and st.sc[SC_DECISION] == D_DEST
            and int(params[L_DESTINATIONS]) == DESTINATIONS_BEST_OF_EACH_KIND):
        count = best_of_each_kind(tab, ranked, count)
    advance_offer_scans(st, tab)
    best, best_value = 0, -math.inf
    for k in range(count):
        copy_state(st, scratch)
        M.apply_move(scratch, tab, ranked[k])
        lengths[k] = finish_turn(scratch, tab, seat, weights, lines[k])
        move_values[k] = position_value(scratch, tab, seat, evaluation, features)
        if move_values[k] > best_value:
            best, best_value = k, move_values[k]
    temperature = params[L_TEMPERATURE]
    if temperature > 0.0 and count > 1:
        best = random_stream.softmax_draw(st.rng, move_values, count, best_value, temperature)
    keep_plan(st, seat, plan, plan_key, best)
    return ranked[best]


@kernel
def sampled_move(st, tab, seat, n, weights, temperature, rng):
    """Index of a legal move drawn from the softmax of the heuristic's move values (greedy with
    `weights`) divided by `temperature`, with the stream `rng`."""
    if n == 1:
        return 0
    P.option_values(st, tab, seat, weights)
    values = st.option_values
    best = -math.inf
    for i in range(n):
        best = max(best, values[i])
    return random_stream.softmax_draw(rng, values, n, best, temperature)


@kernel
def play_line(st, tab, weights, last_turn, temperature, rng):
    """Play the heuristic (greedy with `weights`; temperature > 0: sampled_move) for every seat
    until the game ends or turn `last_turn` + 1 starts (last_turn < 0: to the end of the game)."""
    while st.sc[SC_OVER] == 0 and (last_turn < 0 or st.sc[SC_TURNS] <= last_turn):
        n, decider = st.sc[SC_N_OPTIONS], st.sc[SC_DECIDER]
        if temperature > 0.0:
            index = sampled_move(st, tab, decider, n, weights, temperature, rng)
        else:
            index = P.greedy(st, tab, decider, n, weights)
        M.apply_move(st, tab, st.options[index])


@kernel
def horizon_iterations(budget, horizon, solo):
    """strong_move's iterations per line: the whole budget in solo, else at most `horizon`
    (S_HORIZON_ITERATIONS), at least one."""
    return budget if solo else max(1, min(budget, horizon))


@kernel
def lines_per_move(budget, horizon_budget):
    """strong_move's lines per candidate move (kept_lines sizes its slots by it)."""
    return max(1, budget // horizon_budget)


@kernel
def halving_rounds(count):
    """The rounds of strong_move's sequential halving over `count` (>= 1) candidate moves."""
    return max(1, math.ceil(math.log2(count)))


@kernel
def strong_move(st, tab, scratch, workspace, params):
    """The `strong` policy (module docstring, "Strong"): sequential halving over the heuristic's
    `width` best moves, each round extending the surviving moves' lines and ranking them by the
    mean evaluation of the positions reached; the best survivor of the last round."""
    seat = st.sc[SC_DECIDER]
    tree, seen, pool, ranked, features, move_values = workspace[:6]
    evaluation = params[S_WEIGHTS:]
    if st.policy_id[seat] == EXPERT:  # its weights by the key in its row (expert_evaluations)
        keys, vectors, features = workspace[10:13]
        for index in range(keys.shape[0]):
            if keys[index] == params[S_WEIGHTS]:
                evaluation = vectors[index]
    # survivors' indices into ranked, best first; the line stream; 1 where every line of a move
    # has reached the end of the game (its value is their outcomes, features.finished_value: it
    # is not played on again)
    order, rng, line_over = tree[3], tree[5], tree[8]
    kept, kept_streams, stops, carried_slots, carry_key = workspace[13:]
    solo = tab.rules[R_SOLO] != 0
    heuristic = int(params[S_SOLO_HEURISTIC if solo else HEURISTIC])
    weights = HEURISTIC_WEIGHTS[heuristic]
    if not solo and int(params[S_SEARCHED]) == SEARCH_TURN_START and st.sc[SC_DECISION] != D_DEST:
        return st.options[P.greedy(st, tab, seat, st.sc[SC_N_OPTIONS], weights)]
    ctx = (tab, weights, seen, pool, int(params[WIDTH]), 1.0)
    count = legal_moves(st, ctx, ranked)
    if count == 1:
        return ranked[0]
    advance_offer_scans(st, tab)
    # turns per extension: solo's, the 2-player one or the 3-5 player one
    if solo:
        depth = int(params[S_SOLO_ROLLOUT_DEPTH])
    else:
        depth = int(params[ROLLOUT_DEPTH if st.sc[SC_PLAYERS] == 2 else S_ROLLOUT_DEPTH_3P])
    hidden = tab.rules[R_SEES_FULL_STACKS] == 0
    budget = int(params[ITERATIONS])
    # lines per move: the heuristic's, then sampled ones (solo: the heuristic's only)
    horizon_budget = horizon_iterations(budget, int(params[S_HORIZON_ITERATIONS]), solo)
    lines = lines_per_move(budget, horizon_budget)
    # games of the carried line valid here (module docstring, "Strong"): keyed on the game's
    # stream before this decision draws the lines' streams from it
    carried = 0
    if (not hidden and carry_key[KEY_STREAM] == st.rng[0]
            and carry_key[KEY_DECISIONS] == decisions_made(st) and carry_key[KEY_HEURISTIC] == heuristic):
        carried = int(carry_key[KEY_CARRIED])
    # line i's stream starts at stream + i (line 0's stream is the deal: the heuristic's line
    # draws nothing)
    stream = random_stream.next_u64(st.rng) if hidden or lines > 1 else np.uint64(0)
    temperature = params[S_TEMPERATURE]
    rounds = 1 if depth == 0 else halving_rounds(count)
    for k in range(count):
        order[k] = k
        line_over[k] = 0
    bank = 1 - int(carry_key[KEY_BANK])
    first = bank * (kept_streams.shape[0] // 2)
    end = first + kept_streams.shape[0] // 2
    survivors, extensions = count, 0
    for round_index in range(rounds):
        extensions += max(1, horizon_budget // (rounds * survivors))
        last_turn = -1 if depth == 0 else st.sc[SC_TURNS] + extensions * depth
        stop = END_STOP if last_turn < 0 else last_turn
        stops[CURRENT, round_index] = stop
        for j in range(survivors):
            k = order[j]
            if line_over[k] != 0:
                continue
            total, over = 0.0, 1
            for line in range(lines):
                slot = first + (round_index * count + k) * lines + line
                # the kept game furthest along this line and not past this round's end: the
                # last round's, or (the heuristic's move and line) a carried one
                source, reached = -1, -1
                if round_index > 0 and slot - count * lines < end:
                    source = slot - count * lines
                    reached = stops[CURRENT, round_index - 1]
                if k == 0 and line == 0:
                    for c in range(carried):
                        if reached < stops[CARRIED, c] <= stop:
                            source, reached = carried_slots[c], stops[CARRIED, c]
                if source >= 0:  # on from where it stopped
                    keep_line(scratch, kept, source, False)
                    rng[0] = kept_streams[source]
                else:
                    copy_state(st, scratch)
                    rng[0] = stream + np.uint64(line)
                    if hidden:  # every move's line i on the same deal of the unseen tiles
                        determinize(scratch, ctx, seat, rng)
                    M.apply_move(scratch, tab, ranked[k])
                play_line(scratch, tab, weights, last_turn, 0.0 if line == 0 else temperature, rng)
                total += position_value(scratch, tab, seat, evaluation, features)
                over &= scratch.sc[SC_OVER]
                if slot < end:
                    keep_line(scratch, kept, slot, True)
                    kept_streams[slot] = rng[0]
            move_values[k] = total / lines
            line_over[k] = over
        for j in range(1, survivors):  # insertion sort, stable: ties keep the heuristic's order
            k = order[j]
            i = j
            while i > 0 and move_values[order[i - 1]] < move_values[k]:
                order[i] = order[i - 1]
                i -= 1
            order[i] = k
        survivors = (survivors + 1) // 2
    carry_line(st, kept, stops, carried_slots, carry_key, order[0], count, lines, rounds, first, end,
               heuristic, hidden)
    return ranked[order[0]]


@kernel
def carry_line(st, kept, stops, carried_slots, carry_key, k, count, lines, rounds, first, end,
               heuristic, hidden):
    """Make the played move k's heuristic line (its games at the end of each round, up to the
    round its game ended, in the bank from `first` to `end`) the carried line for the decision
    after its move (module docstring, "Strong")."""
    carried = 0
    if not hidden:
        for round_index in range(rounds):
            slot = first + (round_index * count + k) * lines
            if slot >= end:
                break
            carried_slots[round_index] = slot
            stops[CARRIED, round_index] = stops[CURRENT, round_index]
            carried += 1
            if kept.sc[slot, SC_OVER] != 0:
                break
    carry_key[KEY_STREAM] = st.rng[0]
    carry_key[KEY_DECISIONS] = decisions_made(st) + 1
    carry_key[KEY_HEURISTIC] = heuristic
    carry_key[KEY_CARRIED] = carried
    carry_key[KEY_BANK] = first != 0


@kernel
def choose_move(st, tab, scratch, workspace):
    """Index into st.options chosen by the search policy of the seat to decide (`scratch`: a
    reference to the scratch game of allocate_search, made by the allocating caller)."""
    n = st.sc[SC_N_OPTIONS]
    if n == 1:
        return 0
    seat = st.sc[SC_DECIDER]
    params = st.policy_params[seat]
    if st.policy_id[seat] == LEARNED:
        move = learned_move(st, tab, scratch, workspace, params)
    elif st.policy_id[seat] == STRONG or st.policy_id[seat] == EXPERT:
        move = strong_move(st, tab, scratch, workspace, params)
    else:
        tree, seen, pool, ranked = workspace[:4]
        ctx = (tab, HEURISTIC_WEIGHTS[int(params[HEURISTIC])], seen, pool, int(params[WIDTH]),
               params[SCORE_SCALE])
        # the root's moves best first, so that equally good children go to the heuristic's order
        count = legal_moves(st, ctx, ranked)
        move = ranked[search(ctx, st, scratch, tree, st.rng, seat, ranked, count,
                             int(params[ITERATIONS]), params[EXPLORATION], int(params[ROLLOUT]),
                             int(params[ROLLOUT_DEPTH]), tab.rules[R_SEES_FULL_STACKS] == 0,
                             0.0 if tab.rules[R_SOLO] != 0 else PRIOR_WEIGHT)]
    for index in range(n):
        if st.options[index] == move:
            return index
    return 0
