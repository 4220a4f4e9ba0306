"""The trajectory figures (lead changes, halfway leader, comebacks, decisiveness and drama;
analysis/gameplay, issue #43) on the race game (race_game.py), whose values are known exactly:
the 95% intervals cover them over repeated seeds, and the definitions hold on hand-made games."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import race_game as race
from simulator.analysis.gameplay import CellGames, Trajectories, cell_gameplay
from simulator.analysis.gameplay.decisiveness import DECIDED_ITEM, DRAMA_ITEM, decided_at, drama
from simulator.analysis.gameplay.halfway import ITEM as HALFWAY_ITEM
from simulator.analysis.gameplay.lead_changes import MANY_CHANGES, MEAN_ITEM, distribution_item, lead_changes
from test_gameplay import MIN_COVERAGE, REPLICATIONS, coverage

DEALS = 200


@pytest.fixture(scope="module")
def replications() -> list[pd.DataFrame]:
    rng = np.random.default_rng(20261204)
    return [cell_gameplay(race.play_records(rng, DEALS)).set_index(["figure", "item"]) for _ in range(REPLICATIONS)]


# A share's interval (Wilson's, on the deal-clustered effective sample) covers at its level when
# the sample holds a few games of the kind; near a true share of 0 it is known to cover less
# (Brown, Cai and DasGupta (2001), Statistical Science 16:101-133), so a share is checked where
# its expected count in a replication's sample is at least this; a share that is exactly 0 must
# be estimated as 0.
MIN_EXPECTED_COUNT = 5


@pytest.mark.parametrize("changes", range(MANY_CHANGES + 1))
def test_lead_change_shares_cover_the_exact_distribution(replications, changes):
    truth = race.truth("changes", changes=changes, at_least=changes == MANY_CHANGES)
    item = distribution_item(changes)
    if truth == 0:
        assert all(frame.loc[("lead_change", item), "estimate"] == 0 for frame in replications)
    elif truth * DEALS * race.GAMES_PER_DEAL >= MIN_EXPECTED_COUNT:
        assert coverage(replications, "lead_change", item, truth) >= MIN_COVERAGE
    else:
        assert changes == 3  # the one share too rare for a check in this game (truth 0.0004)


def test_the_mean_lead_changes_cover_the_exact_mean(replications):
    assert coverage(replications, "lead_change", MEAN_ITEM, race.truth("mean_changes")) >= MIN_COVERAGE


def test_the_halfway_leader_share_covers_the_exact_share(replications):
    assert coverage(replications, "halfway_leader", HALFWAY_ITEM, race.truth("halfway")) >= MIN_COVERAGE


def test_comeback_chances_cover_the_exact_chance_of_each_deficit_band(replications):
    # the bands are the sample's deficit tertiles, so a rare band shows in some replications only:
    # each band seen in most of them must cover on its own, and every (replication, band) together
    truth = lambda row: race.truth("comeback", low=row["band_low"], high=row["band_high"])  # noqa: E731
    bands = {item for frame in replications for (figure, item) in frame.index if figure == "comeback"}
    checks = []
    for band in bands:
        having = [frame for frame in replications if ("comeback", band) in frame.index]
        checks += [coverage([frame], "comeback", band, truth) for frame in having]
        if len(having) >= REPLICATIONS / 2:
            assert coverage(having, "comeback", band, truth) >= MIN_COVERAGE, band
    assert sum(len(having) >= REPLICATIONS / 2 for having in
               ([f for f in replications if ("comeback", band) in f.index] for band in bands)) >= 2
    assert np.mean(checks) >= MIN_COVERAGE


def test_decisiveness_and_drama_cover_their_exact_means(replications):
    assert coverage(replications, "decisiveness", DECIDED_ITEM, race.truth("decided")) >= MIN_COVERAGE
    assert coverage(replications, "decisiveness", DRAMA_ITEM, race.truth("drama")) >= MIN_COVERAGE


def test_the_rows_show_the_sample_size():
    frame = cell_gameplay(race.play_records(np.random.default_rng(5), 50)).set_index(["figure", "item"])
    assert frame.loc[("lead_change", MEAN_ITEM), "deals"] == 50
    assert frame.loc[("lead_change", MEAN_ITEM), "games"] == 50 * race.GAMES_PER_DEAL


def hand_made(scores: list[list[list[float]]], win: list[list[bool]]) -> Trajectories:
    """Games of equal length from their per-round scores (games, rounds, seats)."""
    array = np.asarray(scores, dtype=float)
    return Trajectories(np.arange(len(array)), np.full(len(array), array.shape[1]), array, np.asarray(win))


def test_a_shared_top_score_keeps_the_last_leader_and_the_winner_leads_for_good_from_its_last_overtake():
    sample = hand_made([
        # leaders: 0, tie, 0, 1, 1, 1 -> one change (the tie keeps seat 0); seat 1 leads from round 4 of 6
        [[1, 0], [1, 1], [2, 1], [2, 3], [2, 4], [2, 5]],
        # leaders: 1, 0, tie, 1, tie, 0 -> three changes; seat 0 leads alone only at the end
        [[0, 1], [2, 1], [2, 2], [2, 3], [3, 3], [4, 3]],
    ], [[False, True], [True, False]])
    assert lead_changes(sample).tolist() == [1, 3]
    assert decided_at(sample).tolist() == pytest.approx([4 / 6, 6 / 6])
    assert drama(sample).tolist() == pytest.approx([3 / 5, 4 / 5])


def test_a_cell_without_a_trajectory_sample_has_no_trajectory_figures():
    games = race.play_records(np.random.default_rng(1), 20)
    without = CellGames(games.players, games.deal, games.game, games.seat)
    assert cell_gameplay(without).empty
    assert {"lead_change", "halfway_leader", "comeback", "decisiveness"} <= set(cell_gameplay(games)["figure"])


def test_compare_gives_changes_of_the_trajectory_figures_that_cover_zero_between_runs_of_one_game(replications):
    from simulator.analysis.gameplay import compare_gameplay

    covered, figures = [], set()
    for before, after in zip(replications[0:80:2], replications[1:80:2]):
        changes = compare_gameplay(before.reset_index().assign(label="race"), after.reset_index().assign(label="race"))
        trajectory = changes[changes["figure"].isin(["lead_change", "halfway_leader", "comeback", "decisiveness"])]
        trajectory = trajectory[np.isfinite(trajectory["change_low"])]
        figures |= set(trajectory["figure"])
        covered += (~trajectory["changed"]).tolist()
    assert figures == {"lead_change", "halfway_leader", "comeback", "decisiveness"}
    assert np.mean(covered) >= MIN_COVERAGE
