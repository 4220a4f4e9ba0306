"""Strength-ladder pages and lines a designer can read (#21 finding 3): per player count the skill
curve of the self-play rungs and a chart of the head-to-heads; no sweep heatmap mixing the two;
the terminal prints the ladder verdict per player count and labels head-to-heads as such."""

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
    assert page.count("head-to-heads, each policy") == 2
    for players in (2, 3):
        group = page.split(f'id="study-ladder-ladder-{players}">', 1)[1].split("</details>", 1)[0]
        assert len(re.findall(r"<svg", group)) == 1 and "head-to-heads, each policy" in group


def test_each_seats_deviation_per_rung_is_drawn_once_in_the_skill_curve_and_listed_in_the_table(
        tmp_path, write_experiment):
    """The ladder drew each seat's deviation per rung twice, in a chart by rung and in the skill
    curve; the skill curve alone draws it (before the head-to-heads), and the ladder's table keeps
    every rung's numbers, those of a rung the skill curve cannot place included."""
    path = write_experiment(LADDER)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "run"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run" / "report.html").read_text()
    assert "seat deviation from fair against rung strength" not in page
    assert page.count("skill curve, each seat's points from fair") == 2
    ladder = page.split("Strength ladder</h3>", 1)[1]
    assert ladder.index('class="skill-curve"') < ladder.index('id="study-ladder-ladder-2"')
    table = re.search(r'<table class="data" id="ladder-ladder">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    assert len(rows) == len(RUNGS) * (2 + 3)  # every rung, every seat, at 2 and at 3 players


def test_the_ladder_shows_a_skill_curve_per_player_count_and_each_seats_claim(tmp_path, write_experiment):
    # issue #39 item 2: each seat's deviation against rung strength (Elo) per player count, its
    # rungs named, and per seat what holds across the two strongest rungs
    path = write_experiment(LADDER)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "run"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run" / "report.html").read_text()
    block = page.split('<details class="skill-curve" id="skill-curve-ladder">', 1)[1].split("</details>", 1)[0]
    charts = re.findall(r"<svg.*?</svg>", block, re.S)
    assert len(charts) == 2 and "2 players: skill curve" in charts[0] and "3 players: skill curve" in charts[1]
    for chart in charts:
        assert "seat 0 (first)" in chart and "seat 1" in chart  # every seat's marker is named in the legend
        assert "rung strength (Elo" in chart
        sizes = [float(size) for size in re.findall(r"font-size:\s*([\d.]+)px", chart)]
        assert sizes and min(sizes) >= 12.0 * 0.75  # 9 pt: 12 px when drawn at its natural size
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", block, re.S)
    assert len(captions) == 2 and all(all(label in caption for label in RUNG_LABELS) for caption in captions)
    for caption in captions:  # numbered weakest first
        numbers, elo = zip(*[(int(n), int(e)) for n, e in re.findall(r"(\d) [^;]*? \(([+-]\d+) Elo\)", caption)])
        assert numbers == (1, 2, 3, 4) and list(elo) == sorted(elo), caption
    table = re.search(r'<table class="data" id="ladder-claims-ladder">(.*?)</table>', block, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    assert len(rows) == 2 + 3  # a row per seat at 2 and at 3 players
    claims = {re.findall(r'data-value="([^"]*)"', row)[-1] for row in rows}
    assert claims <= {"agrees", "flips", "edge holds", "differs", "open"}
    # the verdict line per player count ends with the seats' claims, a list item each (in one
    # sentence they ran to ten lines at 5 players), none of them left in the sentence
    lines = re.findall(r'<li><strong data-value="(\d)">.*?</strong>(.*?)<ul class="seat-claims">(.*?)</ul></li>', page, re.S)
    assert [players for players, _, _ in lines] == ["2", "3"]
    for players, sentence, claims in lines:
        assert sentence.strip().endswith("Per seat (strongest rung, then runner-up):")
        assert "Across the ladder:" in sentence and "(first)" not in sentence
        items = re.findall(r"<li>(.*?)</li>", claims)
        assert [item.split(" ")[:2] for item in items[:int(players)]] == [["seat", f"{seat}"] for seat in range(int(players))]
        assert items[0].startswith("seat 0 (first) ")
