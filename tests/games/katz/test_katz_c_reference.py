"""The C reference engine of issue #25 (benchmarks/reference/katz_random.c) plays the same game
as zoosim's Katz kernel: benchmarks/kernel_vs_c.py's fidelity check, on fewer games, passes for
2-5 players, and fails for a C engine with one rule changed (so the check can fail)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))

import kernel_vs_c  # noqa: E402

GAMES = 20_000
pytestmark = pytest.mark.skipif(
    not any(map(shutil.which, ("cc", "gcc", "clang"))),
    reason="no C compiler (cc, gcc or clang) on this machine: the C reference engine cannot be built",
)


def test_the_c_engine_plays_the_kernels_game_for_every_box_player_count(tmp_path):
    binary = kernel_vs_c.compile_reference(tmp_path)
    problems, tests = kernel_vs_c.fidelity_problems(binary, kernel_vs_c.FIDELITY_PLAYERS, GAMES, 7, alpha=1e-3)
    assert tests == 2 * sum(len(kernel_vs_c.GAME_FIELDS) + 2 * players for players in kernel_vs_c.FIDELITY_PLAYERS)
    assert problems == []


def test_the_check_fails_for_a_c_engine_whose_extra_turns_do_not_chain(tmp_path):
    # K-3.5.1 chain_extra_turns (default true): a 7 played in an extra turn earns another one
    source = kernel_vs_c.SOURCE.read_text()
    rule = "extra_turn = value_of(entered) == 7;"
    assert rule in source
    altered = tmp_path / "katz_no_chain.c"
    altered.write_text(source.replace(rule, "extra_turn = value_of(entered) == 7 && new_seat_turn;"))
    binary = kernel_vs_c.compile_reference(tmp_path, altered)
    problems, _ = kernel_vs_c.fidelity_problems(binary, (2,), GAMES, 7, alpha=1e-3)
    assert any("rounds" in problem for problem in problems)


def test_a_missing_compiler_is_one_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler")
    monkeypatch.setattr(kernel_vs_c.shutil, "which", lambda name: None)
    with pytest.raises(kernel_vs_c.NoCompiler, match="no C compiler found"):
        kernel_vs_c.compile_reference(tmp_path)
