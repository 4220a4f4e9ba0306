"""Tic-tac-toe's knobs, end reasons, invariants, policies and the learned player's feature names:
everything a plan needs, without the engine."""

from pathlib import Path
from typing import Literal

from simulator.plugin import DEFAULT_WEIGHTS, LearnedWeights, PolicySpec, StrictModel, knob

RULES_VERSION = 1
END_REASONS = ("line", "full_board")  # T-3, T-4
VIOLATION_NAMES = ("none", "marks_unbalanced", "two_lines")  # T-5
RANDOM, GREEDY, LEARNED = 0, 1, 2  # policy ids

# The learned evaluation's features of the position after a move, from the mover's view
# (features.py computes them in this order) and its one set of weights.
FEATURE_NAMES = ("wins", "own_open_twos", "opponent_open_twos", "center", "own_corners")
SET_NAMES = ("all",)
WEIGHTS = LearnedWeights("tictactoe", FEATURE_NAMES, SET_NAMES, str(Path(__file__).parent / "weights" / "default.npz"))


class Params(StrictModel):
    preset: Literal["standard"] = "standard"
    players: int = knob(2, "T-1", "number of players (tic-tac-toe is a two-player game)", ge=2, le=2)


POLICIES = {
    "random": PolicySpec("random", RANDOM, "puts its mark on an empty cell drawn uniformly at random",
                         models="a player moving uniformly at random"),
    "greedy": PolicySpec("greedy", GREEDY, "completes its own line, else blocks the opponent's, else takes "
                         "the center, else the first free corner, else the first free cell"),
    "learned": PolicySpec("learned", LEARNED, "plays the move whose position the learned evaluation values "
                          "most (the lowest cell among equals)", params={"weights": DEFAULT_WEIGHTS},
                          param_help={"weights": "the evaluation's weights file"}, weights=WEIGHTS),
}
