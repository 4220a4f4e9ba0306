"""Strength ladders (issue #9 items 3-4): schema, the cells a ladder plays, the verdict across
rungs, and a real tiny ladder run whose report leads with the strongest rung's verdict."""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simulator.analysis import stats
from simulator.analysis.tables import claims_sentence, ladder_comparison, ladder_verdict, seat_claims, seat_swaps
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.runner import run_plan

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_bad_input import experiment_file, refused  # noqa: E402


def ladder_document(ladder, players=(2, 3), games=100, **study):
    return {"name": "ladder", "seed": 5, "games": games, "chunk_games": 400,
            "studies": [{"name": "katz ladder", "game": "katz", "ladder": ladder,
                         "sweep": {"players": list(players)}, **study}]}


@pytest.mark.parametrize("study, words", [
    ("ladder: [random]", ("studies[0]", "at least 2 rungs")),
    ("ladder: [random, greedy], seats: [random]", ("studies[0]", "seats and ladder")),
    ("ladder: [random, greedy], pool: [random, greedy]", ("studies[0]", "pool and ladder")),
    ("ladder: [random, greedy, random]", ("studies[0].ladder", "listed twice")),
    ("ladder: [random, {policy: greedy, params: {bogus: 1}}]", ("studies[0].ladder", "bogus")),
    ("ladder: [random, nonsense]", ("studies[0].ladder", "nonsense")),
    # a rung's own game count is not part of the player: the same player twice
    ("ladder: [random, greedy, {policy: greedy, games: 50}]", ("studies[0].ladder", "the same player as greedy")),
    ("ladder: [random, {policy: greedy, games: 0}]", ("studies[0].ladder[1].games", "greater than or equal to 1")),
    ("ladder: [random, {policy: greedy, games: many}]", ("studies[0].ladder[1].games", "integer")),
])
def test_bad_ladders_are_refused_in_one_line(tmp_path, monkeypatch, study, words):
    path = experiment_file(tmp_path, f"studies: [{{game: katz, sweep: {{players: [2, 3]}}, {study}}}]\n")
    refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, *words)


def test_a_ladder_plays_every_rung_in_self_play_and_each_neighbouring_pair_head_to_head():
    plan = build_plan(parse_experiment(ladder_document(["random", "greedy", "expectimax"], players=(2, 3))))
    seatings = [(cell.players, cell.seat_labels) for cell in plan.cells]
    assert seatings == [
        (2, ["random"] * 2), (2, ["greedy"] * 2), (2, ["expectimax"] * 2),
        (2, ["random", "greedy"]), (2, ["greedy", "expectimax"]),
        (3, ["random"] * 3), (3, ["greedy"] * 3), (3, ["expectimax"] * 3),
        (3, ["random", "greedy", "random"]), (3, ["greedy", "expectimax", "greedy"]),
    ]
    assert all(cell.rotate for cell in plan.cells)  # every seating plays every seat


def test_a_rung_sets_the_games_of_its_own_cells_and_of_its_head_to_heads():
    # issue #23 item 4: an expensive rung plays only what it needs; a head-to-head of two rungs
    # that both set games plays the smaller count, one with a single such rung plays its count
    ladder = ["random", {"policy": "greedy", "games": 60}, {"policy": "expectimax", "games": 40}]
    plan = build_plan(parse_experiment(ladder_document(ladder, players=(2,), games=100)))
    games = {" vs ".join(dict.fromkeys(cell.seat_labels)): cell.games for cell in plan.cells}
    assert games == {"random": 100, "greedy": 60, "expectimax": 40,
                     "random vs greedy": 60, "greedy vs expectimax": 40}
    # the players and their seeds are those of the same ladder without game counts
    plain = build_plan(parse_experiment(ladder_document(["random", "greedy", "expectimax"], players=(2,), games=100)))
    assert [cell.seed_entropy for cell in plan.cells] == [cell.seed_entropy for cell in plain.cells]
    assert [cell.seats for cell in plan.cells] == [cell.seats for cell in plain.cells]


def rung(elo, deviations, se=0.2, games=100_000, width=30.0):
    """A rung's seat rows as the analysis gives them: deviations from fair with their standard
    errors and simultaneous 95% intervals (Bonferroni over the seats, as a cell's)."""
    deviations = np.asarray(deviations, dtype=float)
    z_simultaneous = stats.two_sided_z(stats.bonferroni_confidence(0.95, len(deviations)))
    return pd.DataFrame({"elo": elo, "elo_low": elo - width, "elo_high": elo + width, "verdict": "balanced",
                         "seat": np.arange(len(deviations)), "deviation_points": deviations,
                         "low_points": deviations - z_simultaneous * se, "high_points": deviations + z_simultaneous * se,
                         "se_points": se, "games": games})


def test_ladder_verdicts_on_constructed_rungs():
    strong = rung(200.0, [0.3, -0.3])
    # equal within ±1 point at every seat, shown by the differences' 90% intervals
    assert ladder_verdict(strong, rung(100.0, [0.1, -0.1])) == "stable"
    # seat 0 moved by 4 points: shown different
    comparison = ladder_comparison(strong, rung(100.0, [-3.7, 3.7]))
    assert comparison.verdict == "strength-dependent" and "seat 0" in comparison.reason
    # a difference near the margin with wide intervals: neither, and the games that would settle it
    open_question = ladder_comparison(strong, rung(100.0, [-0.5, 0.5], se=0.5), margin=1.0)
    assert open_question.verdict == "unresolved" and open_question.games_to_settle > 100_000
    assert ladder_verdict(strong, None) == "unresolved"
    assert ladder_verdict(rung(np.nan, [0.3, -0.3]), strong) == "unresolved"
    # rungs whose ratings overlap are not known to be ordered: unresolved, whatever the seats say
    overlapping = ladder_comparison(rung(120.0, [0.3, -0.3]), rung(100.0, [0.3, -0.3]))
    assert overlapping.verdict == "unresolved" and "not separated" in overlapping.reason


def test_a_ladder_that_is_not_stable_says_by_how_much_its_top_rungs_disagree_and_what_would_settle_it():
    # issue #23's goal: a ladder that is not stable names the pair of rungs, by how much they
    # disagree and how many games would settle it, whichever reason keeps it open
    strong = rung(200.0, [0.3, -0.3])
    shifted = ladder_comparison(strong, rung(100.0, [-3.7, 3.7]))
    assert "+4.0 points" in shifted.reason and "seat 0" in shifted.reason
    wide = ladder_comparison(strong, rung(100.0, [-0.5, 0.5], se=0.5))
    assert "+0.8 points" in wide.reason and "would settle it" in wide.reason
    # ratings 20 Elo apart with ±30 intervals each: (2.80 / 1.96 x 60 / 20)^2 = 18.4 times the
    # games (80% power at the 95% level) would separate them
    overlapping = ladder_comparison(rung(120.0, [0.3, -0.3]), rung(100.0, [-0.7, 0.7]))
    assert overlapping.verdict == "unresolved"
    assert "20 Elo apart" in overlapping.reason and "+1.0 points" in overlapping.reason
    assert overlapping.games_to_settle == pytest.approx(18.4 * 100_000, rel=0.01)
    assert "1,900,000 games per cell would separate them" in overlapping.reason
    # rated equal: no number of games orders them
    level = ladder_comparison(rung(100.0, [0.3, -0.3]), rung(100.0, [0.3, -0.3]))
    assert level.games_to_settle == np.inf and "no number of games" in level.reason


def test_stable_is_not_declared_for_a_real_difference_hidden_by_wide_intervals():
    # Finding 3 of issue 20: at the New York Zoo ladder's size a true -11 against -5 point seat
    # deviation came out "stable" (overlapping intervals) 54% of the time.
    rng = np.random.default_rng(3)
    se = 2.5
    verdicts = [
        ladder_verdict(rung(200.0, rng.normal([-11.0, 11.0], se), se=se), rung(100.0, rng.normal([-5.0, 5.0], se), se=se),
                       margin=1.0)
        for _ in range(400)
    ]
    assert verdicts.count("stable") == 0
    assert verdicts.count("strength-dependent") > 0


@pytest.mark.parametrize("true_difference", [1.0, -1.0])
def test_stable_is_a_5_percent_claim_at_the_margin(true_difference):
    rng = np.random.default_rng(4)
    se = 0.3
    stable = np.mean([
        ladder_verdict(rung(200.0, rng.normal([true_difference, 0.0], se), se=se), rung(100.0, rng.normal([0.0, 0.0], se), se=se))
        == "stable" for _ in range(1000)
    ])
    assert stable <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 1000)


def test_each_seat_gets_its_own_claim_across_the_top_rungs():
    # issue #39 item 2, the case a new user met: at 3 players the whole count is
    # strength-dependent, yet seat 0 agrees to 0.3 points between the top two rungs
    strong, practised = rung(236.0, [12.0, -4.0, -8.0]), rung(166.0, [11.7, -11.3, -0.4])
    comparison = ladder_comparison(strong, practised)
    assert comparison.verdict == "strength-dependent"
    claims = comparison.claims.set_index("seat")
    assert claims.loc[0, ["size", "side", "claim"]].tolist() == ["agrees", "holds", "agrees"]
    assert claims.loc[0, "difference_points"] == pytest.approx(0.3)
    # seat 1 is disfavoured by both but by 7.3 points more with the runner-up: its edge holds
    assert claims.loc[1, ["size", "side", "claim"]].tolist() == ["differs", "holds", "edge holds"]
    # seat 2 is fair within its interval with the runner-up: only its size is shown to differ
    assert claims.loc[2, ["size", "side", "claim"]].tolist() == ["differs", "open", "differs"]
    # seats 1 and 2 are shown in opposite orders by the two rungs
    assert comparison.swaps == [(1, 2)]
    words = claims_sentence(comparison.claims, comparison.swaps, 1.0)
    assert "seat 0 (first) agrees within ±1 (+12.0 and +11.7 points, difference +0.3 [" in words
    assert "seat 1's edge holds (disfavoured by both: -4.0 and -11.3 points; its size differs" in words
    assert words.endswith("seats 1 and 2 swap places.")


def test_a_seat_that_changes_side_flips_and_an_unshown_one_is_open():
    # the New York Zoo ladder at 2 players: seat 1 -7.9 with strong, +9.2 with learned
    claims = seat_claims(rung(236.0, [7.9, -7.9], se=0.5), rung(166.0, [-9.2, 9.2], se=0.5)).set_index("seat")
    assert claims["claim"].tolist() == ["flips", "flips"] and claims["size"].tolist() == ["differs", "differs"]
    # both rungs near fair with wide intervals: nothing shown
    open_seat = seat_claims(rung(236.0, [0.3, -0.3], se=0.5), rung(166.0, [-0.3, 0.3], se=0.5))
    assert open_seat["claim"].tolist() == ["open", "open"] and open_seat["size"].tolist() == ["undecided"] * 2
    assert seat_swaps(rung(236.0, [0.3, -0.3], se=0.5), rung(166.0, [-0.3, 0.3], se=0.5)) == []


def test_the_whole_count_word_follows_from_the_seat_claims():
    # stable exactly when every seat agrees; strength-dependent when some seat's size differs
    for strong, practised in [([0.3, -0.3], [0.1, -0.1]), ([12.0, -4.0, -8.0], [11.7, -11.3, -0.4]),
                              ([0.3, -0.3], [-0.5, 0.5]), ([5.0, -2.0, -3.0], [4.9, -2.2, -2.7])]:
        comparison = ladder_comparison(rung(200.0, strong, se=0.3), rung(100.0, practised, se=0.3))
        sizes = set(comparison.claims["size"])
        expected = ("stable" if sizes == {"agrees"} else "strength-dependent" if "differs" in sizes
                    else "unresolved")
        assert comparison.verdict == expected, (strong, practised)
    # rungs not separated in rating: unresolved, but each seat's claim is still given
    level = ladder_comparison(rung(110.0, [0.3, -0.3]), rung(100.0, [0.3, -0.3]))
    assert level.verdict == "unresolved" and level.claims["claim"].tolist() == ["agrees", "agrees"]


def test_a_seat_edge_is_said_to_hold_at_most_5_percent_of_the_time_when_one_rung_is_fair():
    # the side claim needs both rungs' simultaneous intervals to exclude fair: with seat 0 truly
    # fair at the strongest rung, "edge holds" or "flips" is a false claim about that rung
    rng = np.random.default_rng(7)
    se = 0.5
    claimed = np.mean([
        seat_claims(rung(200.0, rng.normal([0.0, 0.0], se), se=se), rung(100.0, rng.normal([3.0, -3.0], se), se=se))
        .loc[0, "side"] != "open" for _ in range(1000)
    ])
    assert claimed <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 1000)
    # and it is claimed when both edges are real and large
    assert seat_claims(rung(200.0, [3.0, -3.0], se=se), rung(100.0, [3.0, -3.0], se=se)).loc[0, "side"] == "holds"


@pytest.fixture(scope="module")
def ladder_report(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("ladder")
    plan = build_plan(parse_experiment(ladder_document(["random", "greedy"], players=(2, 3), games=300)))
    run_plan(plan, run_dir, "name: ladder\n", jobs=1, progress=False)
    path, analysis = build_report(run_dir)
    return path.read_text(), analysis


def test_a_real_ladder_puts_random_below_greedy_and_reports_a_verdict_per_player_count(ladder_report):
    page, analysis = ladder_report
    rungs = analysis.ladder_seats.drop_duplicates("rung").set_index("rung")
    assert rungs.loc["greedy", "elo_low"] > rungs.loc["random", "elo_high"]
    assert analysis.ladder["players"].tolist() == [2, 3]
    assert (analysis.ladder["strongest"] == "greedy").all()
    assert set(analysis.ladder["verdict"]) <= {"stable", "strength-dependent", "unresolved"}
    # deviations are the self-play cells' own seat numbers
    for _, row in analysis.ladder_seats.iterrows():
        seat = analysis.seats[(analysis.seats["cell"] == row["cell"]) & (analysis.seats["seat"] == row["seat"])].iloc[0]
        assert row["deviation_points"] == seat["deviation_points"]


def test_the_report_leads_with_the_ladder_and_shows_its_numbers_with_data_values(ladder_report):
    page, analysis = ladder_report
    summary = page.split('<ul class="summary" id="ladder-verdicts">', 1)[1].split("</ul>", 1)[0]
    first = re.findall(r"<li>(.*?)</li>", summary, re.S)[0]
    assert "ladder at 2 players" in first and "strongest rung (greedy)" in first
    assert "Strength ladder" in page and page.count("skill curve, each seat's points from fair") == 2
    table = re.search(r'<table class="data" id="ladder-katz-ladder">(.*?)</table>', page, re.S).group(1)
    rows = [re.findall(r'data-value="([^"]*)"', row) for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])]
    assert len(rows) == len(analysis.ladder_seats)
    shown = np.array([[row[2], row[6]] for row in rows], dtype=float)  # Elo, points from fair
    assert np.array_equal(shown, analysis.ladder_seats[["elo", "deviation_points"]].to_numpy())


def test_a_rung_that_never_beat_its_neighbour_has_no_rating_and_the_others_keep_theirs():
    """New York Zoo's random never beats greedy: its strength is bounded only by the half-win
    prior, so printing it as a number would be falsely precise (finding 3 of issue 20)."""
    from simulator.analysis.tables import _jackknife_elo

    batches = np.zeros((20, 3, 3))
    batches[:, 1, 0] = 50  # greedy always beats random
    rng = np.random.default_rng(5)
    batches[:, 1, 2] = rng.binomial(50, 0.4, size=20)  # greedy_tuned beats greedy 60%
    batches[:, 2, 1] = 50 - batches[:, 1, 2]
    elo, low, high = _jackknife_elo(batches, 0.95)
    assert np.isnan([elo[0], low[0], high[0]]).all()
    assert np.isfinite(elo[1:]).all() and high[1] < low[2]
    wins = batches.sum(axis=0)
    assert abs((elo[2] - elo[1]) - 400 * np.log10((wins[2, 1] + 0.5) / (wins[1, 2] + 0.5))) < 1.0
    assert elo[1] + elo[2] == pytest.approx(0.0)  # centred on the estimable rungs


def test_the_jackknife_uses_t_on_batches_minus_one_degrees_of_freedom():
    from scipy import stats as scipy_stats

    from simulator.analysis.tables import _jackknife_elo

    rng = np.random.default_rng(6)
    batches = np.zeros((20, 2, 2))
    batches[:, 0, 1] = rng.binomial(100, 0.55, size=20)
    batches[:, 1, 0] = 100 - batches[:, 0, 1]
    elo, low, high = _jackknife_elo(batches, 0.95)
    se = (high[0] - elo[0]) / scipy_stats.t.ppf(0.975, 19)
    leave_one_out = np.array([_jackknife_elo(np.delete(batches, b, axis=0)[None].sum(axis=1), 0.95)[0][0]
                              for b in range(20)])
    assert se == pytest.approx(np.sqrt(19 / 20 * ((leave_one_out - leave_one_out.mean()) ** 2).sum()), rel=1e-6)
