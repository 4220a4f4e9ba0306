"""Training as a game role (issue #40 item 2): `zoosim train GAME` reads everything game-specific
from the training role its `Game` declares (base.Training), so it trains any installed game that
declares one and refuses, in one line, one that does not."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.games import get_game
from simulator.games.base import Training, contract_problem
from simulator.train.settings import trainable_games


def test_a_game_without_a_training_role_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["train", "feeding", "--out", str(out)])
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "game 'feeding' has no training code" in line and "declares no training role" in line
    assert not out.exists()


def test_the_trainable_games_are_those_declaring_a_role():
    trainable = trainable_games()
    assert {"katz", "nyz"} <= set(trainable) and "feeding" not in trainable and "coin" not in trainable


def test_an_explore_the_role_does_not_allow_is_refused(tmp_path):
    """nyz's role records the players' own decisions only (explore_allowed False)."""
    result = CliRunner().invoke(main, ["train", "nyz", "--explore", "0.1", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--explore must be 0" in result.output and "nyz records" in result.output
    assert not (tmp_path / "o").exists()


ROLE = Training(code=None, play="greedy_tuned", gate_policy="learned", heuristic="greedy_tuned",
                players={2: 1.0}, games=10)


@pytest.mark.parametrize("change, words", [
    ({"play": "nobody"}, "training's play 'nobody' is not one of its policies"),
    ({"gate_policy": "greedy"}, "gate_policy 'greedy' plays no learned weights"),
    ({"heuristic": "nobody"}, "heuristic 'nobody'"),
    ({"players": {0: 1.0}}, "players must map player counts"),
    ({"players": {}}, "players must map player counts"),
    ({"games": 0}, "games must be a whole number >= 1"),
    ({"explore": 0.2, "explore_allowed": False}, "explore 0.2 must be from 0 to 1"),
])
def test_a_broken_training_role_breaks_the_contract_in_one_line(change, words):
    katz = get_game("katz")
    assert contract_problem(replace(katz, training=replace(ROLE))) is None
    problem = contract_problem(replace(katz, training=replace(ROLE, **change)))
    assert problem is not None and words in problem
