"""Strength-ladder pages and lines a designer can read (#21 finding 3): per player count a chart
of the self-play rungs in rung order and one of the head-to-heads; no sweep heatmap mixing the
two; the terminal prints the ladder verdict per player count and labels head-to-heads as such."""

import re

from click.testing import CliRunner

from simulator.cli import main

RUNGS = ["fair", {"policy": "lucky", "params": {"luck": 0.5}}, "lucky", {"policy": "lucky", "params": {"luck": 2}}]
LADDER = ("seed: 3\ngames: 300\nchunk_games: 150\nstudies: [{name: ladder, game: coin, sweep: {players: [2, 3]}, "
          "ladder: [fair, {policy: lucky, params: {luck: 0.5}}, lucky, {policy: lucky, params: {luck: 2}}]}]\n")
RUNG_LABELS = ["fair", "lucky(luck=0.5)", "lucky", "lucky(luck=2)"]


def test_the_terminal_prints_the_ladder_verdict_per_player_count_and_labels_head_to_heads(tmp_path, write_experiment):
    path = write_experiment(LADDER)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "run"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for players in (2, 3):
        verdict = next(line for line in lines if f"ladder · ladder at {players} players: " in line)
        assert re.search(r": (stable|strength-dependent|unresolved)\. ", verdict), verdict
    duels = [line for line in lines if " vs " in line]
    assert len(duels) == 2 * (len(RUNGS) - 1)
    assert all(": head-to-head. A ladder head-to-head" in line for line in duels), duels
    rungs = [line for line in lines if "rungs=" in line and " vs " not in line]
    assert len(rungs) == 2 * len(RUNGS)
    assert all("(players: " in line and " in every seat)" in line for line in rungs), rungs

    page = (tmp_path / "run" / "report.html").read_text()
    assert "points from fair by seat and" not in page  # no sweep heatmap mixing rungs and head-to-heads
    assert page.count("seat deviation from fair against rung strength") == 2
    assert page.count("head-to-heads, each policy") == 2
    chart = page.split("Strength ladder</h3>", 1)[1].split("</svg>", 1)[0]
    ticks = [text for text in re.findall(r">([^<]*)</text>", chart) if text in RUNG_LABELS]
    assert ticks == RUNG_LABELS, ticks  # the self-play rungs only, in ladder order, weakest first
