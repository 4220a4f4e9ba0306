"""The tic-tac-toe example plugin (examples/zoosim-tictactoe, rules T-1..T-5 in its RULES.md):
its rules through the step API, and its training role end to end (`zoosim train tictactoe`)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.games import get_game
from simulator.plugin import InvariantViolation, load_weights


pytestmark = pytest.mark.usefixtures("example_plugins")
@pytest.fixture
def tictactoe():
    return get_game("tictactoe")


def play(game, moves, check=False):
    state = game.steps.new_game(game.make_params(), None, seed=1, check=check)
    for move in moves:
        game.steps.apply(state, move)
    return state


def test_a_line_wins_at_once_and_the_board_alternates(tictactoe):
    """T-1, T-3: X (seat 0) moves first; X's top row ends the game, 2 points to 0."""
    state = play(tictactoe, [0, 3, 1, 4, 2])
    assert tictactoe.steps.is_over(state) and tictactoe.steps.legal_moves(state) == []
    assert tictactoe.steps.winners(state) == [0] and tictactoe.steps.scores(state).tolist() == [2, 0]
    assert state.cells[:6] == [0, 0, 0, 1, 1, -1]


def test_a_full_board_without_a_line_is_a_draw_shared_by_both_seats(tictactoe):
    """T-4: X O X / X O O / O X X: both seats win (a shared win), 1 point each."""
    state = play(tictactoe, [0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert tictactoe.steps.winners(state) == [0, 1] and tictactoe.steps.scores(state).tolist() == [1, 1]


def test_checked_mode_catches_unbalanced_marks(tictactoe):
    """T-5."""
    state = play(tictactoe, [0], check=True)
    state.cells[8] = 1  # an O out of turn: O will have one mark more than X
    with pytest.raises(InvariantViolation, match="marks_unbalanced"):
        tictactoe.steps.apply(state, 4)


def test_greedy_completes_its_line_before_blocking(tictactoe):
    params = tictactoe.make_params()
    greedy = tictactoe.seat_policies([("greedy", {})] * 2)
    state = tictactoe.steps.new_game(params, greedy, seed=1)
    for move in (0, 3, 1, 4):  # X threatens 2, O threatens 5
        tictactoe.steps.apply(state, move)
    assert tictactoe.steps.policy_move(state) == 2


def test_zoosim_train_tictactoe_runs_end_to_end(tmp_path):
    """Training as a declared role of a plugin game (issue #40 item 2): a tiny training writes
    weights of the role's features that `learned` loads, and its report."""
    out = tmp_path / "train"
    result = CliRunner().invoke(main, ["train", "tictactoe", "--out", str(out), "--rounds", "1", "--games", "20",
                                       "--gate-games", "4", "--strength-games", "4", "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    spec = get_game("tictactoe").policies["learned"].weights
    weights = load_weights(out / "round-01.npz", "tictactoe", spec.feature_names, spec.set_names)
    assert weights.card["training"]["play"] == "greedy" and weights.card["training"]["explore"] == 0.3
    assert weights.card["training_positions"] > 20 and weights.weights.any()
    card = json.loads((out / "round-01.json").read_text())
    assert set(card["strength"]) == {"shipped", "heuristic"} and card["strength"]["heuristic"]["opponent"] == "greedy"
    assert "zoosim train tictactoe" in (out / "report.html").read_text()


def test_the_rules_give_the_exact_random_play_shares(tictactoe):
    """The README's known answer, derived from the plugin's own rules: every game of the tree
    through the step API, each weighted by the chance that uniformly random play plays it (the
    product of 1 / legal moves over its moves), gives 737/1260, 121/420 and 8/63 exactly. The
    shares after each board are computed once (5,478 boards instead of 255,168 games)."""
    steps = tictactoe.steps
    state = steps.new_game(tictactoe.make_params(), None, seed=1)
    known: dict[tuple[int, ...], tuple[Fraction, Fraction, Fraction]] = {}

    def outcome_shares() -> tuple[Fraction, Fraction, Fraction]:
        """(first wins, second wins, draws) of random play from the current board."""
        board = tuple(state.cells)
        if board not in known:
            if steps.is_over(state):
                won = steps.winners(state)
                known[board] = (Fraction(0), Fraction(0), Fraction(1)) if len(won) == 2 else \
                    ((Fraction(1), Fraction(0), Fraction(0)) if won == [0] else (Fraction(0), Fraction(1), Fraction(0)))
            else:
                moves = steps.legal_moves(state)
                total = [Fraction(0)] * 3
                for move in moves:
                    steps.apply(state, move)
                    total = [sum_ + share / len(moves) for sum_, share in zip(total, outcome_shares())]
                    state.cells[move], state.turn, state.end_reason = -1, state.turn - 1, -1  # take it back
                known[board] = tuple(total)
        return known[board]

    assert outcome_shares() == (Fraction(737, 1260), Fraction(121, 420), Fraction(8, 63))
    assert len(known) == 5478
