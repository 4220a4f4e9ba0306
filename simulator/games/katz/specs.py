"""The Katz policies as an experiment names them: policy ids, parameter rows and defaults of the
heuristics (policies.py) and of the search policies (search.py), for the registry and the plan.
The learned players' feature and set names live
here too (features.py computes them). Imports no numba: building a plan (`zoosim validate`)
never loads the kernels."""

from pathlib import Path

from simulator.games.base import DOUBLE_ITERATIONS, HALVE_TEMPERATURE, ParamRange, PolicySpec
from simulator.games.learned import DEFAULT_WEIGHTS, LearnedWeights
from simulator.games.layouts import EXPLORATION_HELP, SEARCH_CHOICES, SEARCH_RANGES

RANDOM = 0
GREEDY = 1
EXPECTIMAX = 2

# Policy parameter rows (base.MAX_POLICY_PARAMS wide); greedy and expectimax share the first two.
EXTRA_TURN_VALUE = 0
SKIP_COST = 1
REPLACE_THRESHOLD = 2
BLOCKED_COST = 3

_VALUE_HELP = {
    "extra_turn_value": "points a placement that earns an extra turn is worth on top of the hand change",
    "skip_cost": "points a placement that costs the next turn is worth less",
}

_GREEDY_HELP = {
    **_VALUE_HELP,
    "replace_threshold": (
        "a replacement is chosen only if it beats the best draw (counted as at least 0, "
        "since a drawn card can usually go straight back) by more than this"
    ),
    "blocked_cost": "assumed loss of drawing at a cell where no hand card fits",
}

POLICIES = {
    "random": PolicySpec(
        name="random",
        policy_id=RANDOM,
        description="uniform over the legal options of each decision (action, then placement)",
    ),
    "greedy": PolicySpec(
        name="greedy",
        policy_id=GREEDY,
        description=(
            "draws where its most harmful card can be dumped, replaces a keeper when that "
            "gains more, and places the fitting card that leaves the best hand"
        ),
        params={"extra_turn_value": 3.0, "skip_cost": 3.0, "replace_threshold": 0.0, "blocked_cost": 4.0},
        param_help=_GREEDY_HELP,
    ),
    "greedy_tuned": PolicySpec(
        name="greedy_tuned",
        policy_id=GREEDY,
        description=(
            "greedy with weights tuned by head-to-head play against greedy "
            "(benchmarks/tune_heuristics.py katz --trials 60 --deals 1000)"
        ),
        params={"extra_turn_value": 0.48, "skip_cost": 1.53, "replace_threshold": -0.96, "blocked_cost": 0.4},
        param_help=_GREEDY_HELP,
    ),
    "expectimax": PolicySpec(
        name="expectimax",
        policy_id=EXPECTIMAX,
        description=(
            "one-ply lookahead: each draw cell scored by the expected best placement over the "
            "cards it has not seen, against the best replacement (and a pass when allowed)"
        ),
        params={"extra_turn_value": 3.0, "skip_cost": 3.0},
        param_help=dict(_VALUE_HELP),
    ),
}


ISMCTS = 3
ORACLE = 4
FIRST_SEARCH_POLICY = ISMCTS

# Policy parameter row of both search policies.
ITERATIONS = 0
EXPLORATION = 1
ROLLOUT = 2
ROLLOUT_DEPTH = 3
SCORE_SCALE = 4
PRIOR_WEIGHT = 5

_SEARCH_PARAMS = {"iterations": 60.0, "exploration": 0.3, "rollout": "greedy", "rollout_depth": 4.0,
                  "score_scale": 4.0, "prior_weight": 10.0}
_SEARCH_HELP = {
    "iterations": "search iterations per decision (each one determinization and one rollout)",
    "exploration": EXPLORATION_HELP,
    "rollout": "policy playing the rollouts: random, or greedy with greedy_tuned's weights",
    "rollout_depth": "moves per rollout before the position is scored by the current scores (0 = to the end)",
    "score_scale": (
        "points of lead worth a factor e in a cut-off rollout's win shares "
        "(softmax of the estimated scores; 0 = the leaders share the win)"
    ),
    "prior_weight": (
        "visits a root move's prior counts as (the prior: the seat's win share among level "
        "seats after expectimax's worth of the move; 0 = no priors: untried moves first)"
    ),
}
_SEARCH_RANGES = {
    **SEARCH_RANGES,
    "score_scale": ParamRange(0.0),
    "prior_weight": ParamRange(0.0),
}


def search_spec(name, policy_id, description):
    """Both search policies take the same parameters."""
    return PolicySpec(name=name, policy_id=policy_id, description=description,
                      params=dict(_SEARCH_PARAMS), param_help=dict(_SEARCH_HELP),
                      ranges=dict(_SEARCH_RANGES),
                      choices=dict(SEARCH_CHOICES), climb=DOUBLE_ITERATIONS)


SEARCH_POLICIES = {
    "ismcts": search_spec(
        "ismcts", ISMCTS,
        "information-set Monte Carlo tree search: every iteration deals the cards the seat "
        "has not seen at random (face-down cells, other hands, set-aside cards), consistent "
        "with its hand and the public zoo",
    ),
    "oracle": search_spec(
        "oracle", ORACLE,
        "the same tree search seeing every card (face-down cells, other hands, set-aside "
        "cards): the upper bound on what hidden information is worth",
    ),
}


# ---- learned players (features.py, search.py) ----------------------------------------------------
LEARNED = 5
STRONG = 6

# The learned evaluation's features and sets (features.py's F_* and SET_* are their indices; the
# weights file's card names them, games/learned.py checks them on loading).
FEATURE_NAMES = (
    "hand_score", "banked", "hand_cards", "cats", "cat_points", "duplicate_points", "dumpable",
    "dumpable_by_turns", "stuck", "own_draws_left", "supply", "replace_gain", "skip_pending",
    "opponent_hand", "move_worth", "extra_turn", "skip", "draw", "replace", "keeper", "cover",
    "completes_line", "fitting_kinds", "placed_value", "placed_penalty",
)
SET_NAMES = ("position", "move")
WEIGHTS_FILE = Path(__file__).resolve().parent / "weights" / "default.npz"

# Parameter rows: `learned` [temperature, weights...], `strong` the search row then the weights.
L_TEMPERATURE = 0
L_WEIGHTS = 1  # slot where learned's weights begin (games/learned.py's vector)
S_WEIGHTS = 6  # slot where strong's weights begin (after the search row: PRIOR_WEIGHT + 1)

_WEIGHTS = LearnedWeights(game="katz", feature_names=FEATURE_NAMES, set_names=SET_NAMES,
                          default_file=str(WEIGHTS_FILE))
_WEIGHTS_HELP = ("the learned evaluation: 'default' (the shipped weights, "
                 "simulator/games/katz/weights/default.json says how they were made) or the path "
                 "of a katz weights file NAME.npz with its card NAME.json")

LEARNED_POLICIES = {
    "learned": PolicySpec(
        name="learned", policy_id=LEARNED,
        description=(
            "no search: the move its learned evaluation (a linear fit of the final score on "
            "features of the position and the move, from self-play) ranks best"
        ),
        params={"temperature": 0.0, "weights": DEFAULT_WEIGHTS},
        param_help={
            "temperature": ("0 = always the best-ranked move; above 0 a softmax over the "
                            "moves' values in points divided by this (casual play)"),
            "weights": _WEIGHTS_HELP,
        },
        ranges={"temperature": ParamRange(0.0)},
        weights=_WEIGHTS,
        climb=HALVE_TEMPERATURE,
        models="a practised player who always plays the move its learned evaluation ranks best, without looking ahead",
        mistake_temperature="temperature",
    ),
    "strong": PolicySpec(
        name="strong", policy_id=STRONG,
        description=(
            "ismcts on the learned evaluation: cut-off rollouts scored by each seat's "
            "estimated final score, root priors from the learned move values; hidden cards "
            "sampled as ismcts samples them"
        ),
        params={"iterations": 12.0, "exploration": 0.3, "rollout": "greedy", "rollout_depth": 2.0,
                "score_scale": 4.0, "prior_weight": 10.0, "weights": DEFAULT_WEIGHTS},
        param_help={
            **_SEARCH_HELP,
            "rollout_depth": ("moves per rollout before every seat's final score is estimated by "
                              "the learned evaluation (0 = to the end)"),
            "score_scale": ("points of estimated lead worth a factor e in a cut-off rollout's win "
                            "shares (0 = the leaders share the win)"),
            "prior_weight": ("visits a root move's prior counts as (the prior: the seat's win share "
                             "among level seats after the learned gain of the move)"),
            "weights": _WEIGHTS_HELP,
        },
        ranges=dict(_SEARCH_RANGES),
        choices=dict(SEARCH_CHOICES),
        weights=_WEIGHTS,
        climb=DOUBLE_ITERATIONS,
        models="an expert who looks ahead: a search on its learned evaluation, guessing the hidden cards",
    ),
}
