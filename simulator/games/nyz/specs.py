"""The New York Zoo policies as an experiment names them: policy ids, parameter rows and defaults
of the heuristics (policies.py, whose docstring explains the greedy weights), of the search
policies (search.py) and of the learned policies (`learned`, `strong`, `expert`) with their
evaluations' feature names (features.py), for the registry and the plan. Imports no numba: building a plan
(`zoosim validate`) never loads the kernels."""

from pathlib import Path

from simulator.games.base import DOUBLE_ITERATIONS, HALVE_TEMPERATURE, ParamRange, PolicySpec
from simulator.games.learned import DEFAULT_WEIGHTS, KeyedWeights, LearnedWeights
from simulator.games.layouts import EXPLORATION_HELP, SEARCH_CHOICES, SEARCH_RANGES
from simulator.games.nyz.state import MAX_OPTIONS, N_SPACES

RANDOM, GREEDY = 0, 1

# The greedy weights, in the order of their policy parameter row (the one declaration of it):
# name -> help. Every greedy policy gives all of them (`_greedy` puts them in this order).
GREEDY_WEIGHTS = {
    "tile_value": "value per square of an enclosure or attraction taken",
    "animal_value": "value of an animal entering an enclosure, times its fill ratio",
    "fill_bonus": "extra value when an animal fills an enclosure (scoring + attraction)",
    "breeding_value": "value per own enclosure that may breed on a crossed line",
    "house_value": "value of an animal kept in a house",
    "contact_weight": "value per tile edge touching a covered square or the border",
    "hole_weight": "penalty per empty square left without an empty neighbour",
    "dead_end_weight": "penalty per empty square left with exactly one empty neighbour",
    "pair_value": "value of making an enclosure able to breed; lost when populating breaks it",
    "ahead_spaces": "strip spaces after the destination looked ahead over (0: none)",
    "breeding_ahead": "value per own breeding enclosure on a line within ahead_spaces",
    "opponent_breeding": "penalty per opponent breeding enclosure on a line the next player can reach",
}

# Their places in the row, as the kernels read them (policies.py); written out for grep,
# tests/games/test_constants.py checks them against GREEDY_WEIGHTS.
W_TILE_VALUE = 0
W_ANIMAL_VALUE = 1
W_FILL_BONUS = 2
W_BREEDING_VALUE = 3
W_HOUSE_VALUE = 4
W_CONTACT_WEIGHT = 5
W_HOLE_WEIGHT = 6
W_DEAD_END_WEIGHT = 7
W_PAIR_VALUE = 8
W_AHEAD_SPACES = 9
W_BREEDING_AHEAD = 10
W_OPPONENT_BREEDING = 11

# the new weights off: the games of the eight-weight greedy (see the module docstring)
_NO_LOOKAHEAD = dict(pair_value=0.0, ahead_spaces=0.0, breeding_ahead=0.0, opponent_breeding=0.0)


# the look-ahead weights are counts of enclosures the move is worth or costs: never negative;
# ahead_spaces counts strip spaces (a lap has N_SPACES)
_GREEDY_RANGES = {
    "pair_value": ParamRange(0.0),
    "ahead_spaces": ParamRange(0, N_SPACES - 1, integer=True),
    "breeding_ahead": ParamRange(0.0),
    "opponent_breeding": ParamRange(0.0),
}


def _greedy(name, description, **weights):
    if set(weights) != set(GREEDY_WEIGHTS):
        raise ValueError(f"{name}: the greedy weights are {', '.join(GREEDY_WEIGHTS)}")
    return PolicySpec(name, GREEDY, description, params={w: weights[w] for w in GREEDY_WEIGHTS},
                      param_help=GREEDY_WEIGHTS, ranges=_GREEDY_RANGES)


POLICIES = {
    "random": PolicySpec("random", RANDOM, "uniform random choice at every decision"),
    "greedy": _greedy(
        "greedy", "one-step greedy with balanced weights",
        tile_value=1.0, animal_value=2.0, fill_bonus=6.0, breeding_value=1.0, house_value=0.5,
        contact_weight=1.0, hole_weight=3.0, dead_end_weight=1.0, **_NO_LOOKAHEAD,
    ),
    "greedy_builder": _greedy(
        "greedy_builder", "greedy that prefers big tiles and tight packing over animals",
        tile_value=3.0, animal_value=0.5, fill_bonus=3.0, breeding_value=0.3, house_value=0.2,
        contact_weight=1.5, hole_weight=4.0, dead_end_weight=1.5, **_NO_LOOKAHEAD,
    ),
    "greedy_breeder": _greedy(
        "greedy_breeder", "greedy that chases animals, breeding lines and full enclosures",
        tile_value=0.5, animal_value=3.0, fill_bonus=10.0, breeding_value=3.0, house_value=1.0,
        contact_weight=0.5, hole_weight=2.0, dead_end_weight=0.5, **_NO_LOOKAHEAD,
    ),
    "greedy_pairs": _greedy(
        "greedy_pairs", "greedy that keeps and makes breeding pairs (pair_value)",
        tile_value=1.0, animal_value=2.0, fill_bonus=6.0, breeding_value=1.0, house_value=0.5,
        contact_weight=1.0, hole_weight=3.0, dead_end_weight=1.0,
        pair_value=2.0, ahead_spaces=0.0, breeding_ahead=0.0, opponent_breeding=0.0,
    ),
    "greedy_tuned": _greedy(
        "greedy_tuned", "greedy tuned for 2-player wins against greedy and solo wins together "
        "(benchmarks/tune_heuristics.py nyz --trials 40 --deals 300 --solo-weight 10 --seed 2)",
        tile_value=1.44, animal_value=2.33, fill_bonus=7.11, breeding_value=0.26, house_value=0.41,
        contact_weight=1.07, hole_weight=4.44, dead_end_weight=1.33,
        pair_value=3.43, ahead_spaces=1.0, breeding_ahead=0.18, opponent_breeding=0.63,
    ),
    "greedy_duel": _greedy(
        "greedy_duel", "greedy tuned for 2-player wins against greedy only; weak solo "
        "(benchmarks/tune_heuristics.py nyz --trials 60 --deals 400 --solo-weight 0.5)",
        tile_value=1.09, animal_value=3.51, fill_bonus=0.25, breeding_value=4.76, house_value=0.34,
        contact_weight=0.45, hole_weight=2.04, dead_end_weight=0.15,
        pair_value=2.71, ahead_spaces=3.0, breeding_ahead=1.48, opponent_breeding=2.63,
    ),
}


MCTS = 2
FIRST_SEARCH_POLICY = MCTS

# Policy parameter row of `mcts`.
ITERATIONS = 0
EXPLORATION = 1
ROLLOUT = 2
ROLLOUT_DEPTH = 3
WIDTH = 4
SCORE_SCALE = 5
HEURISTIC = 6

# The heuristics whose move values rank the expansions and play the greedy rollouts (`heuristic`).
HEURISTICS = ("greedy_tuned", "greedy_duel")


def mcts_spec(name, heuristic, description):
    """`mcts` and its presets differ only in the default heuristic."""
    return PolicySpec(
        name=name, policy_id=MCTS, description=description,
        params={"iterations": 4.0, "exploration": 0.25, "rollout": "greedy", "rollout_depth": 0.0,
                "width": 2.0, "score_scale": 3.0, "heuristic": heuristic},
        param_help={
            "iterations": "search iterations per decision (each one rollout)",
            "exploration": EXPLORATION_HELP,
            "rollout": "policy playing the rollouts: random (among the width best moves), or "
                       "greedy (the heuristic)",
            "rollout_depth": "decisions per rollout before the position is estimated (0 = to "
                             "the end)",
            "width": "moves considered per decision: the best by the heuristic's move values",
            "score_scale": "squares of lead worth a factor e in an estimated position's win "
                           "shares (solo: of the projected coverage)",
            "heuristic": "heuristic whose move values rank the moves and play greedy rollouts",
        },
        ranges={
            **SEARCH_RANGES,
            "width": ParamRange(1, MAX_OPTIONS, integer=True),
            "score_scale": ParamRange(0.1),
        },
        choices={**SEARCH_CHOICES, "heuristic": HEURISTICS},
        climb=DOUBLE_ITERATIONS,
    )


SEARCH_POLICIES = {
    "mcts": mcts_spec(
        "mcts", "greedy_tuned",
        "Monte Carlo tree search over every decision: the `width` best moves by greedy_tuned's "
        "values, greedy_tuned rollouts; strong in solo and 2-player games",
    ),
    "mcts_duel": mcts_spec(
        "mcts_duel", "greedy_duel",
        "mcts with greedy_duel ranking and rollouts: the strongest 2-player tree search (`strong` "
        "beats it); loses solo games as greedy_duel does",
    ),
}


# ---- learned evaluation and the policies on it (features.py, search.py) -------------------------

# Features of a seat's position, in the order of the evaluation's weights (features.py computes
# them; its docstring says what each one counts).
FEATURE_NAMES = (
    "empty", "holes", "dead_ends", "fill_share", "open_enclosures", "unstarted_enclosures",
    "animals_needed", "breeders", "house_animals", "free_houses", "breeding_ahead", "offer_fits",
    "time_left", "empty_x_time_used",
)
# The evaluation's sets: solo (predicts minus the final empty squares) and 2-5 players (predicts
# the final margin in squares over the other seats' mean), in the order of the weights file.
SET_NAMES = ("solo", "multi")
SET_SOLO, SET_MULTI = 0, 1
WEIGHTS = LearnedWeights("nyz", FEATURE_NAMES, SET_NAMES,
                         str(Path(__file__).parent / "weights" / "default.npz"))

LEARNED = 3
STRONG = 4
EXPERT = 5

# The expert's evaluation (features.py, "The expert's evaluation"): the features above, then per
# class of an empty square's eight neighbours (which of them are empty squares of the board; the
# 51 classes of the 256 patterns under rotation and reflection, SHAPE_CLASSES) the empty squares
# of that class, then per unfilled enclosure's capacity (1..MAX_CAPACITY, larger counted as
# MAX_CAPACITY) and animals in it (0..capacity - 1) the enclosures in that state.
SHAPE_CLASSES = 51
MAX_CAPACITY = 6
EXPERT_FEATURE_NAMES = (
    FEATURE_NAMES + tuple(f"shape_{k:02d}" for k in range(SHAPE_CLASSES))
    + tuple(f"enclosure_{capacity}_{count}" for capacity in range(1, MAX_CAPACITY + 1)
            for count in range(capacity))
)
EXPERT_WEIGHTS = KeyedWeights("nyz", EXPERT_FEATURE_NAMES, SET_NAMES,
                              str(Path(__file__).parent / "weights" / "expert.npz"))

# Policy parameter row of `learned`; the weights (learned.py's layout) from L_WEIGHTS on.
L_TEMPERATURE = 0
L_WIDTH = 1
L_HEURISTIC = 2
L_SOLO_HEURISTIC = 3
L_VALUED = 4
L_DESTINATIONS = 5
L_SOLO_WIDTH = 6
L_WEIGHTS = 7
# Policy parameter row of `strong` (search.py's strong_move): the names it shares with mcts at
# mcts's places (ITERATIONS, ROLLOUT_DEPTH, WIDTH, HEURISTIC), its own at the places between.
S_SOLO_ROLLOUT_DEPTH = 1
S_SEARCHED = 2
S_SOLO_HEURISTIC = 5
S_HORIZON_ITERATIONS = 7
S_TEMPERATURE = 8
S_ROLLOUT_DEPTH_3P = 9
S_WEIGHTS = 10
# `searched` choices: which decisions strong searches in 2-5 player games (the others its
# heuristic takes; solo it searches every one)
SEARCHED_DECISIONS = ("every", "turn_start")
SEARCH_EVERY, SEARCH_TURN_START = 0, 1
# `valued` choices: which decisions learned values by the evaluation in 2-5 player games (the
# others its heuristic takes; solo it values every one)
VALUED_DECISIONS = ("destination", "destination_and_placement")
VALUE_DESTINATION, VALUE_DESTINATION_AND_PLACEMENT = 0, 1
# `destinations` choices: which of the heuristic's `width` best destinations learned plays out in
# 2-5 player games: all of them, or two: the best and the best of the other kind of space (a bay
# if the best is an animal space, else an animal space; the second best if there is none)
DESTINATION_CHOICES = ("best", "best_of_each_kind")
DESTINATIONS_BEST, DESTINATIONS_BEST_OF_EACH_KIND = 0, 1

TEMPERATURE_HELP = ("0: the best move by the evaluation; > 0: a softmax over the moves' values "
                    "(squares of margin) divided by this, drawn with the game's random stream")
WEIGHTS_HELP = "the evaluation's weights file (default: the shipped one)"
SOLO_HEURISTIC_HELP = ("the heuristic in solo games, in place of `heuristic` (greedy_duel loses "
                       "solo games)")


def halving_spec(name, policy_id, weights, *, description, models, searched="turn_start",
                 iterations=16.0, rollout_depth_3p=1.0, climb=DOUBLE_ITERATIONS):
    """`strong` and `expert`: search.py's strong_move (sequential halving along the heuristic's
    lines) on an evaluation; they differ in the evaluation (`weights`, features.py) and in
    which decisions they search by default. One parameter row, its places S_* above."""
    return PolicySpec(
        name=name, policy_id=policy_id, description=description,
        params={"iterations": iterations, "solo_rollout_depth": 0.0, "searched": searched,
                "rollout_depth": 1.0, "width": 4.0, "solo_heuristic": "greedy_tuned",
                "heuristic": "greedy_duel", "horizon_iterations": 64.0, "temperature": 0.05,
                "rollout_depth_3p": rollout_depth_3p, "weights": DEFAULT_WEIGHTS},
        param_help={
            "iterations": "budget per decision in line extensions (at least one per move and "
                          "round): more looks further ahead up to `horizon_iterations`, then "
                          "averages more lines",
            "solo_rollout_depth": "solo: turns per extension (0 = every line to the end)",
            "searched": "2-5 players: decisions searched, every one or turn_start (the "
                        "destination, N-4.1; the heuristic takes the rest of the turn); solo "
                        "searches every decision",
            "rollout_depth": "turns a line is extended by per extension, after the rest of the "
                             "seat's turn (0 = to the end): at 2 players, and at 3-5 players too "
                             "where rollout_depth_3p is not given",
            "width": "moves considered per decision: the best by the heuristic's move values",
            "solo_heuristic": SOLO_HEURISTIC_HELP,
            "heuristic": "heuristic whose move values rank the moves and play the lines",
            "horizon_iterations": "2-5 players: the budget whose lines are looked along furthest; "
                                  "a move is valued by the mean of iterations / this many lines "
                                  "that far: the heuristic's and sampled ones",
            "temperature": "sampled lines: every seat's moves drawn from the softmax of the "
                           "heuristic's move values divided by this, with a search stream drawn "
                           "from the game's",
            "rollout_depth_3p": "3-5 players: turns a line is extended by per extension, after "
                                "the rest of the seat's turn (0 = to the end); not given: the "
                                "value given to rollout_depth, else this default",
            "weights": WEIGHTS_HELP,
        },
        ranges={
            "iterations": SEARCH_RANGES["iterations"],
            "rollout_depth": SEARCH_RANGES["rollout_depth"],
            "rollout_depth_3p": SEARCH_RANGES["rollout_depth"],
            "solo_rollout_depth": SEARCH_RANGES["rollout_depth"],
            "width": ParamRange(1, MAX_OPTIONS, integer=True),
            "horizon_iterations": SEARCH_RANGES["iterations"],
            "temperature": ParamRange(0.0),
        },
        choices={"heuristic": HEURISTICS, "solo_heuristic": HEURISTICS, "searched": SEARCHED_DECISIONS},
        weights=weights,
        climb=climb,
        models=models,
        # rollout_depth set both depths until rollout_depth_3p split the 3-5 player one off
        follows={"rollout_depth_3p": "rollout_depth"},
    )


LEARNED_POLICIES = {
    "learned": PolicySpec(
        name="learned", policy_id=LEARNED,
        description="no search: at the destination (solo: every decision) the heuristic's "
                    "best moves are played on to the end of the turn by the heuristic and the "
                    "learned evaluation of the position reached picks the move; the heuristic "
                    "takes the other decisions",
        params={"temperature": 0.0, "width": 4.0, "heuristic": "greedy_duel",
                "solo_heuristic": "greedy_tuned", "valued": "destination",
                "destinations": "best_of_each_kind", "solo_width": 4.0, "weights": DEFAULT_WEIGHTS},
        param_help={
            "temperature": TEMPERATURE_HELP,
            "width": "2-5 players: moves considered per valued decision, the best by the "
                     "heuristic's move values (`destinations` says which of them a destination "
                     "plays out)",
            "heuristic": "heuristic whose move values rank the moves and finish the turn",
            "solo_heuristic": SOLO_HEURISTIC_HELP,
            "valued": "2-5 players: decisions valued by the evaluation, the destination (N-4.1) "
                      "or the destination and the tile's placement; the heuristic takes the "
                      "rest; solo values every decision",
            "destinations": "2-5 players: the destinations played out, the heuristic's `width` "
                            "best (best) or two of them (best_of_each_kind): the best and the "
                            "best of the other kind of space, bay or animal space (else the "
                            "second best)",
            "solo_width": "solo: moves considered per decision (the shipped solo weights were "
                          "tuned at 4; other widths win far fewer solo games)",
            "weights": WEIGHTS_HELP,
        },
        ranges={"temperature": ParamRange(0.0), "width": ParamRange(1, MAX_OPTIONS, integer=True),
                "solo_width": ParamRange(1, MAX_OPTIONS, integer=True)},
        choices={"heuristic": HEURISTICS, "solo_heuristic": HEURISTICS, "valued": VALUED_DECISIONS,
                 "destinations": DESTINATION_CHOICES},
        weights=WEIGHTS,
        climb=HALVE_TEMPERATURE,
        models=("a practised player who plays the move its learned evaluation ranks best at the end of its "
                "turn (its heuristic finishing the turn), looking no further"),
        mistake_temperature="temperature",
    ),
    "strong": halving_spec(
        "strong", STRONG, WEIGHTS,
        description="sequential halving over the heuristic's `width` best moves: each move's "
                    "line is played on by the heuristic, the survivors further each round, and "
                    "valued by the learned evaluation (the margin in squares)",
        models="an expert who looks ahead: a search on its learned evaluation along its heuristic's lines",
    ),
    "expert": halving_spec(
        # no climb: 16 iterations (longer lines) lost to 4 (docs/benchmarks.md, "New York Zoo `expert`")
        "expert", EXPERT, EXPERT_WEIGHTS, searched="every", iterations=4.0, rollout_depth_3p=2.0, climb=None,
        description="strong's sequential halving at every decision (placements included) on the "
                    "expert evaluation (board shapes and enclosure states, fitted on self-play "
                    "games): the heuristic's `width` best moves, their lines valued a turn or more ahead",
        models="an expert who weighs every choice of its turn by how its board's shape and "
               "enclosures will play out, a turn or more ahead",
    ),
}
