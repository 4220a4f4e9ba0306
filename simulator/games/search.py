"""Monte Carlo tree search for every game, inside numba: a factory over a game's kernel-level step
functions (`make_search`) and the preallocated tree it runs on (`allocate_tree`).

One search serves both information settings. Each iteration starts by copying the real position
into a scratch state (the game's `copy_state`): a single-observer information-set search
(ISMCTS, Cowling, Powley & Whitehouse 2012) then has `determinize` sample everything the
deciding seat cannot see, an oracle search keeps the position as it is. The tree is keyed by
move sequences from the root, so the statistics of one node pool every determinization that
reached it, and selection considers only the children whose moves are legal in the current
determinization (UCB with availability counts).

Iteration: selection (UCB1 over the legal moves, each move's prior counting as `prior_weight`
visits of its reward: (total + prior_weight * prior) / w + c * sqrt(ln(available) / w), w =
visits + prior_weight; a legal move without a child is unvisited and counts as available in
every iteration of its parent so far; ties at random, or to the first listed move for a game that lists its moves best first), expansion (the first selected move
without a child becomes a node: one node per iteration; with prior_weight 0 unvisited moves come
first, which is plain UCT with a random untried move), rollout (the game's rollout move for at
most `rollout_depth` moves, 0 = to the end), backpropagation (each node on the path adds the
reward of the seat that made the move leading to it: its win share at the end of the game, or
the game's estimate at a truncated rollout). The move played is the root child with the most
visits (ties: the higher mean, then the first listed). Priors steer a small budget towards the
moves a heuristic ranks first (progressive bias as virtual visits, Chaslot et al. 2008; Gelly &
Silver 2007): the root's are computed once per search from the real position (the observer's
legal moves are the same in every determinization), the others on every visit.

The game supplies the kernel-level step functions of simulator/games/kernels.py's contract, as
numba kernels; `ctx` is the game's read-only tables and scratch:
  copy_state(source, state)               copy a position into the scratch state
  determinize(state, ctx, observer, rng)  replace what observer cannot see by a consistent sample
  legal_moves(state, ctx, out) -> count   the legal moves of the decision, into `out`
  apply_move(state, ctx, rng, move)       carry out a legal move
  is_over(state, ctx) -> bool             the game (or the rollout's horizon) is over
  decider(state) -> seat                  the seat deciding now
  rollout_move(state, ctx, moves, count, rng, rollout_policy) -> index into moves[:count]
                                          (rollout_policy: layouts.ROLLOUT_POLICIES index)
  scores(state, ctx, out)                 per-seat reward in [0, 1] (win share, or an estimate
                                          when the game is not over)
and optionally (make_search's keyword; every other prior is 0.5, no preference):
  root_priors(state, ctx, moves, count, out)   each of the searching seat's moves' prior reward in
                                               [0, 1], reading only what that seat sees (once per
                                               search)

Tree layout (allocate_tree): nodes int64 (NODE_FIELDS, capacity) with the fields below, node 0
the root; totals float64 (capacity,) the summed rewards of the seat that moved into the node;
path int64 (capacity + 1,) the nodes of the current iteration; moves int64 (max_moves,) a move
buffer; rewards float64 (players,); rng uint64 (1,) the search's own stream, seeded by one draw
from the game's stream per decision so that the game's stream advances the same way whatever the
search does; priors float64 (max_moves,) 0.5 for the moves below the root, and root priors
float64 (max_moves,) of the root's moves; children and root children int64 (max_moves,) the child each of those moves leads to
(-1: none yet; the root's kept up to date through the search). Capacity is iterations + 1 (one
node is added per iteration; a full tree plays on without adding nodes).
"""

import math

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.kernels import allocating, kernel

NODE_MOVE = 0  # the move leading to this node
NODE_SEAT = 1  # the seat that made that move (whose reward the node's total sums)
NODE_FIRST_CHILD = 2  # -1 when none
NODE_NEXT_SIBLING = 3  # -1 at the end of the parent's child list
NODE_VISITS = 4
NODE_AVAILABLE = 5  # iterations in which this node's move was legal at its parent
NODE_FIELDS = 6

@allocating  # kernels cannot allocate: the tree comes from here
def allocate_tree(capacity, max_moves, players):
    """The tree and buffers of one search (layout in the module docstring)."""
    capacity = max(capacity, 1)
    return (
        np.zeros((NODE_FIELDS, capacity), dtype=np.int64),
        np.zeros(capacity, dtype=np.float64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.zeros(max_moves, dtype=np.int64),
        np.zeros(players, dtype=np.float64),
        np.zeros(1, dtype=np.uint64),
        np.full(max_moves, 0.5),
        np.zeros(max_moves, dtype=np.float64),
        np.zeros(max_moves, dtype=np.int64),
        np.zeros(max_moves, dtype=np.int64),
    )


@kernel
def new_node(nodes, totals, index, move, seat):
    """Node `index` as a fresh leaf (the tree is reused from decision to decision)."""
    nodes[NODE_MOVE, index] = move
    nodes[NODE_SEAT, index] = seat
    nodes[NODE_FIRST_CHILD, index] = -1
    nodes[NODE_NEXT_SIBLING, index] = -1
    nodes[NODE_VISITS, index] = 0
    nodes[NODE_AVAILABLE, index] = 0
    totals[index] = 0.0


@kernel
def copy_array(source, target):
    """target[...] = source[...] for C-contiguous arrays of one shape (a slice copy would need
    the NRT); games' copy_state kernels copy their arrays with it."""
    flat_source = source.reshape(-1) if source.ndim > 1 else source
    flat_target = target.reshape(-1) if target.ndim > 1 else target
    for index in range(flat_source.shape[0]):
        flat_target[index] = flat_source[index]


@kernel
def fill_children(nodes, parent, moves, count, children):
    """children[i] = the child of `parent` that moves[i] leads to, or -1."""
    for index in range(count):
        children[index] = -1
    child = nodes[NODE_FIRST_CHILD, parent]
    while child >= 0:
        move = nodes[NODE_MOVE, child]
        for index in range(count):
            if moves[index] == move:
                children[index] = child
                break
        child = nodes[NODE_NEXT_SIBLING, child]


@kernel
def uniform_priors(state, ctx, moves, count, out):
    """The default root_priors: no preference (the search ignores priors at prior_weight 0)."""
    for index in range(count):
        out[index] = 0.5


@kernel
def select_move(nodes, totals, parent, children, priors, count, exploration, prior_weight, rng,
                first_on_ties):
    """Index of the legal move to follow from `parent` (children[i]: its child or -1): UCB1 over
    the legal moves with each move's prior counted as prior_weight visits of that reward,
    (total + prior_weight * prior) / w + exploration * sqrt(ln(available) / w), w = visits +
    prior_weight. A legal move without a child is unvisited and counts as available in every
    iteration of its parent so far; with prior_weight 0 unvisited moves come first. Ties go
    uniformly at random, or with `first_on_ties` to the first listed. Also counts the
    availability of the legal children."""
    parent_available = nodes[NODE_VISITS, parent] + 1  # this iteration included
    best_index, best_score, ties = 0, -math.inf, 0
    for index in range(count):
        child = children[index]
        visits, available, total = 0, parent_available, 0.0
        if child >= 0:
            nodes[NODE_AVAILABLE, child] += 1
            visits = nodes[NODE_VISITS, child]
            available = nodes[NODE_AVAILABLE, child]
            total = totals[child]
        weight = visits + prior_weight
        score = math.inf
        if weight > 0.0:
            score = (total + prior_weight * priors[index]) / weight + exploration * math.sqrt(
                math.log(available) / weight)
        if score > best_score:
            best_index, best_score, ties = index, score, 1
        elif score == best_score and not first_on_ties:
            ties += 1
            if random_stream.randint(rng, ties) == 0:
                best_index = index
    return best_index


@kernel
def most_visited(nodes, totals, root_children, root_count):
    """Index into the root's moves of the most visited root child (ties: higher mean, then
    first)."""
    best_index, best_visits, best_mean = 0, -1, -math.inf
    for index in range(root_count):
        child = root_children[index]
        if child < 0:
            continue
        visits = nodes[NODE_VISITS, child]
        mean = totals[child] / visits if visits > 0 else -math.inf
        if visits > best_visits or (visits == best_visits and mean > best_mean):
            best_index, best_visits, best_mean = index, visits, mean
    return best_index


def make_search(copy_state, determinize, legal_moves, apply_move, is_over, decider, rollout_move,
                scores, root_priors=uniform_priors, expand_in_order=False):
    """The search kernel over one game's step functions (see the module docstring); with
    `expand_in_order` (a game listing its moves best first) every tie of the selection goes to
    the first listed move instead of a random one, so unvisited moves are expanded in that order
    and equal scores favour the better listed move:
    search(ctx, root, state, tree, game_rng, observer, root_moves, root_count, iterations,
    exploration, rollout_policy, rollout_depth, sample, prior_weight=0.0) -> index into
    root_moves[:root_count]."""
    @kernel
    def search(ctx, root, state, tree, game_rng, observer, root_moves, root_count, iterations,
               exploration, rollout_policy, rollout_depth, sample, prior_weight=0.0):
        nodes, totals, path, moves, rewards, rng = tree[:6]
        priors, root_values, children, root_children = tree[6:]
        rng[0] = random_stream.next_u64(game_rng)  # one draw of the game's stream per decision
        capacity = totals.shape[0]
        new_node(nodes, totals, 0, -1, observer)
        used = 1
        fill_children(nodes, 0, root_moves, root_count, root_children)  # none yet: all -1
        if prior_weight > 0.0:  # the observer's decision is the same in every sample: once
            root_priors(root, ctx, root_moves, root_count, root_values)
        for _ in range(iterations):
            copy_state(root, state)
            if sample:
                determinize(state, ctx, observer, rng)
            node, length = 0, 1
            path[0] = 0
            # selection, down to a move without a child (the new leaf)
            while not is_over(state, ctx):
                if length == 1:  # the root's moves are the observer's, the same in every sample
                    count, buffer, values, kids = root_count, root_moves, root_values, root_children
                else:
                    count = legal_moves(state, ctx, moves)
                    buffer, values, kids = moves, priors, children
                    fill_children(nodes, node, buffer, count, kids)
                if count == 0:
                    break
                seat = decider(state)
                index = select_move(nodes, totals, node, kids, values, count, exploration,
                                    prior_weight, rng, expand_in_order)
                move, child = buffer[index], kids[index]
                expanded = child < 0
                if expanded and used < capacity:  # else the tree is full: play on without a node
                    child = used
                    kids[index] = child
                    used += 1
                    new_node(nodes, totals, child, move, seat)
                    nodes[NODE_AVAILABLE, child] = nodes[NODE_VISITS, node] + 1
                    nodes[NODE_NEXT_SIBLING, child] = nodes[NODE_FIRST_CHILD, node]
                    nodes[NODE_FIRST_CHILD, node] = child
                apply_move(state, ctx, rng, move)
                if child >= 0:
                    path[length] = child
                    length += 1
                    node = child
                if expanded:
                    break
            # rollout
            steps = 0
            while not is_over(state, ctx) and (rollout_depth <= 0 or steps < rollout_depth):
                count = legal_moves(state, ctx, moves)
                if count == 0:
                    break
                index = rollout_move(state, ctx, moves, count, rng, rollout_policy)
                apply_move(state, ctx, rng, moves[index])
                steps += 1
            # backpropagation
            scores(state, ctx, rewards)
            for position in range(length):
                node = path[position]
                nodes[NODE_VISITS, node] += 1
                if position > 0:
                    totals[node] += rewards[nodes[NODE_SEAT, node]]
        return most_visited(nodes, totals, root_children, root_count)

    return search
