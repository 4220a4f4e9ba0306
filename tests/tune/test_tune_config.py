"""Tune files: every kind of bad input gives one line naming the file and the key, exit status 2,
and writes nothing; per-seat search keys expand to one parameter per seat of every player count."""

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main
from simulator.errors import ZoosimError
from simulator.tune.config import TuneSection
from simulator.games import get_game
from simulator.tune.space import build_space, changes, effective_setting, knob_values

GOOD = {
    "seed": 1,
    "tune": {
        "game": "katz",
        "seats": ["greedy"],
        "players": [4, 5],
        "search": {"hand_size": [5, 6, 7]},
        "budget": {"trials": 4, "games": {"start": 200, "max": 400}},
        "confirm": {"games": 400, "margin_points": 1.0},
    },
}


def with_tune(**changes_):
    document = yaml.safe_load(yaml.safe_dump(GOOD))
    document["tune"].update(changes_)
    return document


# (tune section changes, words the error line must contain; the key path is always checked)
BAD_TUNE_FILES = [
    ({"search": {"hand_sise": [5, 6]}}, ["tune.search.hand_sise", "unknown knob 'hand_sise'", "did you mean 'hand_size'"]),
    ({"search": {"hand_size": []}}, ["tune.search", "an empty search over 'hand_size'"]),
    ({"search": {"hand_size": [6]}}, ["tune.search", "at least 2 choices"]),
    # issue #22, finding 7: a choice listed twice weighs one setting twice
    ({"search": {"hand_size": [6, 6]}}, ["tune.search", "the choice 6 of 'hand_size' is listed twice"]),
    ({"search": {"hand_size": {"choices": [6, 7, 6.0]}}}, ["tune.search.hand_size", "the choice 6.0 is listed twice"]),
    ({"search": {"hand_size": {"low": 6, "high": 6}}}, ["tune.search.hand_size", "an empty range"]),
    ({"search": {"hand_size": {"choices": []}}}, ["tune.search.hand_size", "an empty search"]),
    ({"search": {"hand_size": {"low": 7, "high": 5}}}, ["tune.search.hand_size", "low (7) is above high (5)"]),
    ({"search": {"hand_size": {"low": 5}}}, ["tune.search.hand_size", "needs both 'low' and 'high'"]),
    ({"search": {"hand_size": {"low": 5, "high": 7, "step": 1.5}}}, ["tune.search.hand_size", "not a multiple of step"]),
    ({"search": {"hand_size": {"low": 5, "high": 7, "stp": 1}}}, ["tune.search.hand_size", "unknown key 'stp'", "step"]),
    ({"search": {"hand_size": {"low": 5, "high": 7, "per_seat": True}}}, ["tune.search.hand_size", "not a per-seat knob"]),
    ({"search": {"keepers": [4, 0]}}, ["tune.search.keepers", "the value 0 is not allowed"]),
    ({"search": {"players": [4, 5]}}, ["tune.search.players", "cannot be searched"]),
    ({"search": {}}, ["tune.search", "search names no knob"]),
    ({"objective": "fairness"}, ["tune.objective", "unknown objective 'fairness'", "seat_fairness"]),
    ({"objective": ["seat_fairness", "speed"]}, ["tune.objective", "unknown objective 'speed'"]),
    ({"budget": {"trials": 0, "games": {"start": 200, "max": 400}}}, ["tune.budget.trials", "greater than or equal to 1"]),
    ({"budget": {"trials": 4, "games": {"start": 0, "max": 400}}}, ["tune.budget.games.start", "greater than or equal to 1"]),
    ({"budget": {"trials": 4, "games": {"start": 400, "max": 200}}}, ["tune.budget.games", "max (200) is below start (400)"]),
    ({"budget": {"trials": 4, "batch": 0, "games": {"start": 200, "max": 400}}}, ["tune.budget.batch"]),
    ({"confirm": {"games": 0}}, ["tune.confirm.games"]),
    ({"constraints": {"turns": [40, 25]}}, ["tune.constraints", "above the highest"]),
    ({"players": [9]}, ["tune.players", "players must be 2..5"]),
    ({"players": []}, ["tune.players"]),
    ({"game": "nyz", "seats": None, "players": [1, 2], "search": {"solo_laps": [2, 3]}}, ["tune.players", "solo game"]),
    ({"rules": {"hand_size": -1}}, ["tune.rules.hand_size"]),
    ({"seats": ["psychic"]}, ["tune.seats", "unknown policy 'psychic'"]),
    ({"game": "chess"}, ["tune.game", "unknown game 'chess'"]),
    ({"sampler": "grid"}, ["tune.sampler"]),
    ({"extra": 1}, ["tune.extra", "unknown key 'extra'"]),
    ({"players": [4, 4]}, ["tune.players", "4", "twice"]),
    ({"budget": {"trials": 4, "games": {"start": 200, "max": 10_000_000_000}}},
     ["tune.budget", "chunk files", "at most 100,000"]),
    ({"budget": {"trials": 4, "games": {"start": 20_000_000, "max": 20_000_000}}},
     ["tune.budget.games.start", "less than or equal to 10000000"]),
    ({"budget": {"trials": 1000, "batch": 1000, "games": {"start": 200, "max": 400}}, "players": [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      "rules": {"allow_nonstandard_players": True, "hand_size": 1}},
     ["tune.budget", "cells", "at most 10,000"]),
    ({"confirm": {"games": 10_000_000_000}}, ["tune.confirm", "chunk files", "at most 100,000"]),
    # confirm.seatings (issue #44): each seating is checked like tune.seats
    ({"confirm": {"games": 400, "seatings": ["greedy", "psychic"]}}, ["tune.confirm.seatings[1]", "unknown policy 'psychic'"]),
    ({"confirm": {"games": 400, "seatings": [["greedy", "random", "greedy", "greedy"]]}},
     ["tune.confirm.seatings[0]", "4 seats listed but the tune plays [4, 5] players"]),
    ({"confirm": {"games": 400, "seatings": []}}, ["tune.confirm.seatings", "at least 1 item"]),
    ({"confirm": {"games": 400_000_000, "seatings": ["greedy", "random"]}}, ["tune.confirm", "2 seating(s)", "chunk files"]),  # 1 seating: fits
]


@pytest.mark.parametrize("changes_, expected", BAD_TUNE_FILES, ids=[str(c) for c, _ in BAD_TUNE_FILES])
def test_bad_tune_file_gives_one_line_exit_2_and_writes_nothing(tmp_path, changes_, expected):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(with_tune(**changes_)))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"zoosim: error: {path}: ")
    for words in expected:
        assert words in lines[0]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


@pytest.mark.parametrize("name", ["my tune", "../up", "x" * 60])
def test_a_tune_name_that_cannot_name_its_folder_and_best_file_is_refused(tmp_path, name):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**with_tune(), "name": name}))
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    # the experiment name's rule, at the shorter length that leaves room for "-best"
    assert (f"{path}: name: the tune name must be 1-59 characters: letters A-Z a-z, digits, '_', "
            "'-' and '.', starting with a letter or digit") in result.output
    assert not (tmp_path / "out").exists()


def test_a_file_name_with_spaces_gives_a_valid_tune_name(tmp_path):
    from simulator.tune.config import load_tune

    path = tmp_path / "my tune (v2).yaml"
    path.write_text(yaml.safe_dump(with_tune()))
    assert load_tune(path)[0].name == "my_tune_v2"


def test_a_file_without_tune_section_is_refused(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("seed: 1\nstudies: [{game: katz}]\n")
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output.strip().endswith("run.yaml: tune: no 'tune' section (a file with studies is run with `zoosim run`)")


def test_tune_has_help():
    result = CliRunner().invoke(main, ["tune", "--help"])
    assert result.exit_code == 0
    assert "Usage: zoosim tune" in result.output and "--resume" in result.output


def section(**changes_) -> TuneSection:
    return TuneSection.model_validate(with_tune(**changes_)["tune"])


def test_nyz_per_seat_houses_become_one_parameter_per_seat_of_every_player_count():
    tune = section(game="nyz", seats=None, players=[2, 3],
                   search={"houses": {"low": 2, "high": 4, "per_seat": True},
                           "start_animals": {"choices": [["meerkat", "flamingo"], ["flamingo", "kangaroo"]], "per_seat": True}})
    parameters = build_space(tune)
    names = [p.name for p in parameters]
    assert names[:5] == [
        "geometry.boards.p2.seat1.houses", "geometry.boards.p2.seat2.houses",
        "geometry.boards.p3.seat1.houses", "geometry.boards.p3.seat2.houses", "geometry.boards.p3.seat3.houses",
    ]
    assert len(parameters) == 10
    # N-2.2: the printed 3-player boards have 2, 3 and 3 houses
    assert [p.defaults for p in parameters[2:5]] == [((3, 2),), ((3, 3),), ((3, 3),)]
    raw = {"geometry.boards.p3.seat1.houses": 3, "geometry.boards.p2.seat1.houses": 3,
           "geometry.boards.p3.seat3.start_animals": '["flamingo", "kangaroo"]'}
    assert knob_values(parameters, raw, 3, None) == {
        "geometry.boards.p3.seat1.houses": 3, "geometry.boards.p3.seat3.start_animals": ["flamingo", "kangaroo"]}
    # p2 seat 1 keeps its printed 3 houses: two knobs (houses, start_animals), one seat entry each
    assert changes(parameters, effective_setting(tune, parameters, raw, get_game("nyz"))) == (2, 2)


def test_nyz_houses_without_per_seat_says_to_add_it():
    with pytest.raises(ZoosimError, match="'houses' is set per seat: add per_seat: true"):
        build_space(section(game="nyz", seats=None, players=[2], search={"houses": [2, 3]}))


def test_whole_number_ranges_of_integer_knobs_are_integer_parameters():
    parameters = build_space(section(search={"hand_size": {"low": 5, "high": 8}, "keepers": {"low": 4, "high": 12, "step": 2}}))
    assert [type(p.distribution).__name__ for p in parameters] == ["IntDistribution", "IntDistribution"]
    assert parameters[1].distribution.step == 2


def test_the_shipped_new_york_zoo_tune_expands_houses_and_animals_for_every_seat():
    from simulator.tune.command import load_checked

    from conftest import REPO

    experiment, _, parameters = load_checked(REPO / "experiments" / "tune_nyz_compensation.yaml")
    assert experiment.tune.players == [2, 3, 4, 5]
    assert len(parameters) == 2 * (2 + 3 + 4 + 5)  # houses and starting animals of every seat


def test_katz_seat_lists_are_written_one_entry_per_seat_as_the_engine_reads_them():
    """K-4.5 seat_bonus_points and K-2.5 seat_hand_size_delta: entry i is seat i (seat 0 moves
    first); the tune writes one entry per seat of the player count, which the engine accepts
    (seats beyond a list get 0) and applies to the right seats."""
    from simulator.games import get_game

    katz = get_game("katz")
    parameters = build_space(section(search={
        "seat_bonus_points": {"low": 0, "high": 4, "step": 0.5, "per_seat": True},
        "seat_hand_size_delta": {"choices": [-1, 0, 1], "per_seat": True},
    }))
    assert [p.name for p in parameters][:5] == [f"seat_bonus_points[4p][{seat}]" for seat in range(4)] + ["seat_bonus_points[5p][0]"]
    raw = {"seat_bonus_points[4p][3]": 2.5, "seat_bonus_points[5p][4]": 4.0, "seat_bonus_points[5p][1]": 0.5,
           "seat_hand_size_delta[4p][1]": "-1", "seat_hand_size_delta[5p][0]": "1"}
    four, five = knob_values(parameters, raw, 4, katz), knob_values(parameters, raw, 5, katz)
    assert four == {"seat_bonus_points": [0.0, 0.0, 0.0, 2.5], "seat_hand_size_delta": [0, -1, 0, 0]}
    assert five == {"seat_bonus_points": [0.0, 0.5, 0.0, 0.0, 4.0], "seat_hand_size_delta": [1, 0, 0, 0, 0]}
    params4 = katz.make_params({"players": 4, **four})
    params5 = katz.make_params({"players": 5, **five})
    assert params4.seat_bonus_halves == [0, 0, 0, 5] and params4.seat_hand_sizes == [7, 6, 7, 7]
    assert params5.seat_bonus_halves == [0, 1, 0, 0, 8] and params5.seat_hand_sizes == [8, 7, 7, 7, 7]


def test_the_shipped_katz_tune_expands_bonus_and_hand_size_for_every_seat():
    from simulator.tune.command import load_checked

    from conftest import REPO

    experiment, _, parameters = load_checked(REPO / "experiments" / "tune_katz_compensation.yaml")
    assert experiment.tune.players == [4, 5]
    names = [p.name for p in parameters]
    assert sum(name.startswith("seat_bonus_points[") for name in names) == 4 + 5
    assert sum(name.startswith("seat_hand_size_delta[") for name in names) == 4 + 5
    assert "first_turn_limit" in names  # K-3.8, one setting for every player count


@pytest.mark.parametrize("damaged", [b"[]", b"\xff\xfe", b"[" * 100_000, b'{"tune_hash": 5}'])
def test_a_damaged_tune_record_is_one_line_and_force_replaces_it(tmp_path, damaged):
    path = tmp_path / "tune.yaml"
    path.write_text(yaml.safe_dump(GOOD))
    out = tmp_path / "out"
    out.mkdir()
    (out / "tune.json").write_bytes(damaged)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--resume"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert result.stderr.startswith(f"zoosim: error: {out}: ") and "--force" in result.stderr
    assert (out / "tune.json").read_bytes() == damaged


COIN_TUNE = ("seed: 2\ntune: {game: coin, players: [2], search: {first_seat_bonus: [0, 1]}, "
             "budget: {trials: 2, batch: 2, games: {start: 20, max: 20}}, confirm: {games: 20}}\n")


def test_a_second_tune_of_a_folder_in_use_is_refused_and_a_lock_alone_is_no_foreign_file(tmp_path):
    """Two tunes of one folder would both propose trials into one journal (more trials than the
    budget, and not the trials one tune proposes); the tune folder has the run folder's lock."""
    from tests_support import lock_held_elsewhere

    path = tmp_path / "tune.yaml"
    path.write_text(COIN_TUNE)
    out = tmp_path / "out"
    with lock_held_elsewhere(out) as holder:
        for extra in ([], ["--force"]):
            result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1"] + extra)
            assert result.exit_code == 2 and f"{out}: is in use by another zoosim run (pid {holder}" in result.stderr
        assert sorted(p.name for p in out.iterdir()) == ["zoosim.lock"]
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("extra", [[], ["--force"]])
def test_a_folder_that_holds_no_tune_is_refused_even_with_force(tmp_path, extra):
    """--force replaces a tune; it deleted nothing of a user's folder but filled it with a tune."""
    path = tmp_path / "tune.yaml"
    path.write_text(COIN_TUNE)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1"] + extra)
    assert result.exit_code == 2 and "holds no zoosim tune (--force only replaces zoosim tunes)" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
