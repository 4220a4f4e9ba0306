"""Every shipped study speaks with the same players (issue #39 item 3): each game declares its
reference players (`Game.reference_players`: the quick start's, with ratings from the shipped
strength ladder), and a study seating others says so in its terminal lines and report,
and by how much where both are rated."""

from pathlib import Path

from click.testing import CliRunner

import dataclasses

from simulator import plan as plan_module
from simulator.cli import main
from simulator.config import SeatSpec, parse_experiment
from simulator.games import get_game
from simulator.games.base import ReferencePlayers
from simulator.manifest_cell import ManifestCell
from simulator.plan import build_plan, reference_note, resolved_player
from simulator.report.build import reference_lines
from simulator.safe_yaml import load_yaml

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def shipped_plan(name: str):
    return build_plan(parse_experiment(load_yaml((EXPERIMENTS / name).read_text())))


def seat_spec(player) -> SeatSpec:
    policy, params = ReferencePlayers.policy_and_params(player)
    return SeatSpec(policy=policy, params=params)


def reference_players() -> dict[str, ReferencePlayers]:
    """The reference players of the games the shipped experiments play, by game."""
    games = {study.game for study in parse_experiment(load_yaml((EXPERIMENTS / "seat_bias.yaml").read_text())).studies}
    return {game: get_game(game).reference_players for game in sorted(games)}


def test_the_reference_player_of_each_game_is_the_one_the_quick_start_seats():
    experiment = parse_experiment(load_yaml((EXPERIMENTS / "seat_bias.yaml").read_text()))
    references = reference_players()
    assert all(reference is not None for reference in references.values()) and len(references) == 2
    for study in experiment.studies:
        reference = references[study.game]
        assert "experiments/seat_bias.yaml" in reference.source
        assert [resolved_player(study, seat) for seat in study.seats] == [resolved_player(study, seat_spec(reference.player))]
    assert all(reference_note(cell) is None for cell in shipped_plan("seat_bias.yaml").cells)


def test_every_rated_player_is_a_rung_of_the_shipped_ladder_in_its_order():
    experiment = parse_experiment(load_yaml((EXPERIMENTS / "strength_ladder.yaml").read_text()))
    for game, reference in reference_players().items():
        study = next(study for study in experiment.studies if study.game == game)
        rungs = [resolved_player(study, rung) for rung in study.ladder]
        rated = [resolved_player(study, seat_spec(player)) for player, _ in reference.ratings]
        assert rated == rungs, game  # every rung rated, weakest first, as the ladder lists them
        elo = [value for _, value in reference.ratings]
        assert elo == sorted(elo), game


def test_shipped_studies_with_other_players_say_so_and_by_how_much():
    # the explain study seats the quick start's players (issue #39 item 3): nothing to say
    assert reference_lines([cell.describe() for cell in shipped_plan("explain_seat_edge.yaml").cells]) == []
    lines = reference_lines([cell.describe() for cell in shipped_plan("player_counts.yaml").cells])
    by_study = {line.split(" seats ", 1)[0]: line for line in lines}
    assert set(by_study) == {"Alles für die Katz", "New York Zoo"}, lines
    # greedy and the quick start's player are both New York Zoo ladder rungs: -222 against +121 Elo
    assert by_study["New York Zoo"].startswith(
        "New York Zoo seats greedy, not the reference player of the quick start (experiments/seat_bias.yaml), "
        "learned(destinations=best, width=3): greedy is 343 Elo weaker on the strength ladder "
        "(experiments/strength_ladder.yaml")
    # Katz's quick start player greedy_tuned is not on the ladder
    assert "greedy is not rated against it" in by_study["Alles für die Katz"]


def test_players_are_compared_as_played_and_ladders_and_tournaments_are_left_alone():
    document = {"name": "x", "seed": 1, "games": 10, "studies": [
        # the quick start's player with a default written out is the same player
        {"name": "same", "game": "nyz", "rules": {"players": 2},
         "seats": [{"policy": "learned", "params": {"destinations": "best", "width": 3, "temperature": 0}}]},
        {"name": "mixed", "game": "nyz", "rules": {"players": 2},
         "seats": [{"policy": "learned", "params": {"destinations": "best", "width": 3}}, "strong"]},
        {"name": "ladder", "game": "nyz", "rules": {"players": 2}, "ladder": ["greedy", "strong"]},
        {"name": "pool", "game": "nyz", "rules": {"players": 2}, "pool": ["greedy", "strong"]},
    ]}
    notes = {cell.study: reference_note(cell) for cell in build_plan(parse_experiment(document)).cells}
    assert notes["same"] is None and notes["ladder"] is None and notes["pool"] is None
    # only the seat that differs is named; strong is 69 Elo above the quick start's player
    assert notes["mixed"]["players"] == [{"player": "strong", "elo_gap": 69.0}]
    mixed = ManifestCell.model_construct(study="mixed", reference_players=notes["mixed"])
    assert "strong is 69 Elo stronger on" in reference_lines([mixed])[0]


def test_a_run_prints_the_players_line_and_its_report_shows_it(tmp_path, write_experiment, monkeypatch):
    # the coin test game, given a reference player and ratings for the test
    coin = dataclasses.replace(get_game("coin"), reference_players=ReferencePlayers(
        "the coin quick start", "fair", "the coin ladder", (("fair", 10.0), ({"policy": "lucky"}, -40.0))))
    monkeypatch.setattr(plan_module, "get_game", lambda name: coin if name == "coin" else get_game(name))
    path = write_experiment("seed: 3\ngames: 40\nstudies: [{name: lucky table, game: coin, seats: [lucky]},"
                            " {name: fair table, game: coin, seats: [fair]}]\n")
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "run"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    expected = ("lucky table seats lucky, not the reference player of the coin quick start, fair: "
                "lucky is 50 Elo weaker on the coin ladder. Its verdicts are those of its own players")
    players = [line for line in result.output.splitlines() if line.startswith("  players: ")]
    assert players == [f"  players: {expected}."]
    page = (tmp_path / "run" / "report.html").read_text()
    assert page.count('<p class="warning players-differ">') == 1 and expected in page


def test_a_game_naming_a_reference_player_it_does_not_have_breaks_the_contract():
    from simulator.games.base import contract_problem

    coin = get_game("coin")
    assert contract_problem(coin) is None and coin.reference_players is None  # optional
    unknown = dataclasses.replace(coin, reference_players=ReferencePlayers("here", "fair", ratings=(("nobody", 1.0),)))
    assert contract_problem(unknown) == f"its reference_players name 'nobody', not one of its policies ({', '.join(coin.policies)})"
    unwritten = dataclasses.replace(coin, reference_players=ReferencePlayers("here", {"params": {}}))
    assert contract_problem(unwritten).startswith("its reference_players name a player as {'params': {}}")
