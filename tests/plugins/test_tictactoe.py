"""The tic-tac-toe example plugin (examples/zoosim-tictactoe, rules T-1..T-5 in its RULES.md):
its rules through the step API, and its training role end to end (`zoosim train tictactoe`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.games import get_game
from simulator.plugin import InvariantViolation, load_weights


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
