"""The run manifest's cell, declared once (issue #43 item 4): the plan writes a `ManifestCell`,
the run folder's readers get it back typed, and manifests written before it still open.

The fixture `data/manifest-main-c485fd6.json` is the manifest that main at c485fd6 (before the
typed cell) wrote for a small experiment: a Katz sweep of two cells and an explain study of two
settings (`zoosim run fixture.yaml --out run --no-report`, the experiment as its "experiment").
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pydantic
import pytest

from simulator.config import Experiment
from simulator.manifest_cell import SCORE_NOT_CARRIED, WRITTEN_WHEN_SET, ManifestCell
from simulator.plan import build_plan
from simulator.report.matching import match_cells
from simulator.rundir import MANIFEST, read_manifest

MAIN_MANIFEST = Path(__file__).parent / "data" / "manifest-main-c485fd6.json"
# keys an earlier zoosim's manifest cells did not carry (the readers used .get with a default)
ADDED_LATER = ("rules_version", "params_hash", "played_rules", "components", "score_meaning")
# keys the writer added after the fixture was written (main at c485fd6)
ADDED_SINCE_FIXTURE = ("trajectory_deals", "round_score_meaning")


@pytest.fixture()
def main_manifest() -> dict:
    return json.loads(MAIN_MANIFEST.read_text())


def run_folder_with(tmp_path: Path, manifest: dict) -> Path:
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    return tmp_path


def test_the_plan_writes_the_cells_that_main_wrote(main_manifest):
    """The writer is unchanged: planning main's experiment again gives main's cells, key for key
    (and the keys added since)."""
    plan = build_plan(Experiment.model_validate(main_manifest["experiment"]))
    written = [cell.describe().to_json() for cell in plan.cells]
    assert [{key: value for key, value in cell.items() if key not in ADDED_SINCE_FIXTURE} for cell in written
            ] == main_manifest["cells"]
    assert all(set(cell) - set(kept) == set(ADDED_SINCE_FIXTURE) for cell, kept in zip(written, main_manifest["cells"]))


def test_a_manifest_written_by_main_opens_typed_and_loses_nothing(tmp_path, main_manifest):
    manifest = read_manifest(run_folder_with(tmp_path, main_manifest), Experiment)
    cells = manifest["cells"]
    assert all(isinstance(cell, ManifestCell) for cell in cells)
    assert [{key: value for key, value in cell.to_json().items() if key not in ADDED_SINCE_FIXTURE}
            for cell in cells] == main_manifest["cells"]
    # the fixture's run replayed no deal and carried no per-round score's meaning
    assert all(cell.trajectory_deals == 0 and cell.round_score_meaning == "" for cell in cells)
    sweep, explained = cells[0], cells[2]
    assert (sweep.index, sweep.players, sweep.seats, sweep.rotate) == (0, 2, ["random", "greedy"], True)
    assert sweep.sweep_values == {"seat_bonus_points": [0, 0]} and sweep.explain is None
    assert explained.explain["group"] == 2 and explained.explain["off"] == []
    assert cells[3].explain["off"] == ["end_timing"]
    assert sweep.games == sweep.deals * sweep.games_per_deal


def test_an_earlier_manifest_without_the_later_keys_opens_with_their_defaults(tmp_path, main_manifest):
    for cell in main_manifest["cells"]:
        for key in ADDED_LATER:
            del cell[key]
    cell = read_manifest(run_folder_with(tmp_path, main_manifest))["cells"][0]
    assert cell.played_rules is None and cell.rules == cell.params  # compare matches on the rules as written
    assert cell.components == [] and cell.score_meaning == SCORE_NOT_CARRIED
    assert cell.rules_version is None and cell.params_hash is None


def test_keys_a_newer_zoosim_adds_are_kept(tmp_path, main_manifest):
    main_manifest["cells"][0]["trajectory_sample"] = 50
    cell = read_manifest(run_folder_with(tmp_path, main_manifest))["cells"][0]
    assert cell.to_json()["trajectory_sample"] == 50


def test_keys_written_only_when_set_are_left_out_when_not(main_manifest):
    sweep, explained = (ManifestCell.from_json(main_manifest["cells"][index]) for index in (0, 2))
    assert set(WRITTEN_WHEN_SET) & set(sweep.to_json()) == {"reference_players"}
    assert set(WRITTEN_WHEN_SET) & set(explained.to_json()) == {"explain", "reference_players"}


@pytest.mark.parametrize("damage, problem", [
    (lambda cell: cell.update(players=3), "lists 2 seats for 3 players"),
    (lambda cell: cell.update(games=7), "7 games do not match"),
    (lambda cell: cell.update(chunks=5), "5 chunks do not match"),
    (lambda cell: cell.update(players="2"), "valid integer"),
    (lambda cell: cell.pop("seed_entropy"), "Field required"),
])
def test_a_cell_that_is_not_one_is_refused(main_manifest, damage, problem):
    cell = main_manifest["cells"][0]
    damage(cell)
    with pytest.raises(pydantic.ValidationError, match=problem):
        ManifestCell.from_json(cell)


def test_the_cell_is_frozen(main_manifest):
    cell = ManifestCell.from_json(main_manifest["cells"][0])
    with pytest.raises(pydantic.ValidationError):
        cell.players = 3


def test_reading_a_cell_as_a_mapping_still_works_with_a_deprecation_warning(main_manifest):
    """`Run.manifest["cells"]` held dicts before: code that reads them by key keeps working."""
    cell = ManifestCell.from_json(main_manifest["cells"][0])
    with pytest.warns(DeprecationWarning, match="read its attributes"):
        assert cell["players"] == 2
    with pytest.warns(DeprecationWarning):
        assert cell.get("explain") is None and cell.get("label") == cell.label


def test_readers_use_attributes_not_the_deprecated_keys(tmp_path, main_manifest):
    """The report's matching of two runs, the analysis and the API read no cell by key."""
    import simulator

    run = run_folder_with(tmp_path, main_manifest)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        cells = read_manifest(run, Experiment)["cells"]
        assert [(a.index, b.index) for a, b in match_cells(cells, cells)] == [(0, 0), (1, 1), (2, 2), (3, 3)]
        assert simulator.open_run(run).knobs() == ["seat_bonus_points"]
