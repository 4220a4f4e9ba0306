"""A report of more cells than anyone reads one by one (issue #45: 10,000 cells within a minute):
every cell's verdict is in the table of every cell, the detail sections (and the gameplay figures,
which read each cell's logs) are those of the DETAIL_CELLS cells furthest from fair plus the cells
asked for with `zoosim report --cell`, and the page says so. DETAIL_CELLS is lowered here so that
a run of five cells is "large"."""

import functools
import re

import pytest
from click.testing import CliRunner

import simulator.analysis.gameplay as gameplay
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report import build
from simulator.report.compare import compare_runs, render_comparison
from simulator.runner import run_plan

BONUSES = [0.0, 0.1, 0.2, 0.3, 0.4]
SHOWN = 2


def played(tmp_path_factory, seed):
    run_dir = tmp_path_factory.mktemp("run")
    document = {"name": "many", "seed": seed, "games": 400, "chunk_games": 200,
                "studies": [{"name": "bonus", "game": "coin", "rules": {"players": 2},
                             "sweep": {"first_seat_bonus": BONUSES}}]}
    run_plan(build_plan(parse_experiment(document)), run_dir, "name: many\n", jobs=1, progress=False)
    return run_dir


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return played(tmp_path_factory, seed=5)


@pytest.fixture()
def few_details(monkeypatch):
    monkeypatch.setattr(build, "DETAIL_CELLS", SHOWN)
    read = []
    real = gameplay.cell_games
    monkeypatch.setattr(gameplay, "cell_games", lambda run, cell, *rest: read.append(cell.index) or real(run, cell, *rest))
    return read


def furthest_from_fair(analysis, count):
    distance = analysis.cells.set_index("cell")["max_signed_deviation_points"].abs()
    return set(distance.sort_values(ascending=False, kind="stable").index[:count])


def sections(page):
    return {int(number) for number in re.findall(r'<details class="cell" id="cell-(\d+)"', page)}


def test_a_large_run_shows_every_verdict_and_the_detail_of_the_cells_furthest_from_fair(run_dir, few_details):
    path, analysis = build.build_report(run_dir)
    page = path.read_text()
    expected = furthest_from_fair(analysis, SHOWN)
    assert len(analysis.cells) == len(BONUSES) and sections(page) == expected
    assert sorted(few_details) == sorted(expected)  # only their logs were read for the gameplay figures
    table = re.search(r'<table class="data" id="cells">(.*?)</table>', page, re.S).group(1)
    assert table.count("<tr>") - 1 == len(BONUSES)  # every cell's verdict (less the heading row)
    linked = {int(number) for number in re.findall(r'href="#cell-(\d+)"', page)}
    assert linked == expected  # no link to a section the page does not have
    note = re.search(r'<p class="note detail-limit">(.*?)</p>', page, re.S).group(1)
    assert f"the {SHOWN} cells furthest from fair" in note and f"{SHOWN} of this study's {len(BONUSES)} cells" in note
    assert f"zoosim report {run_dir} --cell NUMBER" in note and "simulator.open_run(RUN_DIR).seats()" in note


def test_report_cell_adds_a_cells_detail(run_dir, few_details):
    path, analysis = build.build_report(run_dir)
    nearest = min(set(analysis.cells["cell"]) - furthest_from_fair(analysis, SHOWN))
    result = CliRunner().invoke(main, ["report", str(run_dir), "--cell", str(nearest)])
    assert result.exit_code == 0, result.output
    assert sections(path.read_text()) == furthest_from_fair(analysis, SHOWN) | {nearest}


def test_report_cell_of_no_cell_is_refused_in_one_line_writing_nothing(run_dir):
    page = (run_dir / "report.html").read_bytes() if (run_dir / "report.html").exists() else None
    result = CliRunner().invoke(main, ["report", str(run_dir), "--cell", str(len(BONUSES))])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"zoosim: error: {run_dir}: --cell {len(BONUSES)}: the run has no such cell (its cells are numbered 0 "
        f"to {len(BONUSES) - 1}, as in the report's table of every cell)"]
    assert ((run_dir / "report.html").read_bytes() if page is not None else None) == page


def test_a_run_within_the_limit_shows_every_cell_without_a_note(run_dir):
    path, _ = build.build_report(run_dir)
    page = path.read_text()
    assert sections(page) == set(range(len(BONUSES))) and "detail-limit" not in page


def test_compare_reads_the_gameplay_of_the_pairs_that_changed_most(run_dir, tmp_path_factory, monkeypatch):
    other = played(tmp_path_factory, seed=6)
    read = []
    real = gameplay.cell_games
    monkeypatch.setattr(gameplay, "cell_games", lambda run, cell, *rest: read.append(cell.index) or real(run, cell, *rest))
    import simulator.report.compare as compare

    monkeypatch.setattr(compare, "cell_games", gameplay.cell_games)
    comparison = compare_runs(run_dir, other, gameplay_pairs=SHOWN)
    changed = comparison.cells["size_change"].abs().sort_values(ascending=False, kind="stable").index[:SHOWN]
    labels = set(comparison.cells.loc[changed, "label"])
    assert comparison.gameplay_pairs == SHOWN and set(comparison.gameplay["label"]) == labels
    assert len(read) == 2 * SHOWN  # both cells of each compared pair, and no other
    everything = compare_runs(run_dir, other)
    assert everything.gameplay_pairs == len(BONUSES) == everything.gameplay["label"].nunique()
    note = "matched cells whose largest seat deviation changed most"
    out = tmp_path_factory.mktemp("compare") / "compare.html"
    assert note not in render_comparison(run_dir, other, out)[0].read_text()
    monkeypatch.setattr(compare, "compare_runs", functools.partial(compare_runs, gameplay_pairs=SHOWN))
    assert f"Shown for the {SHOWN} of the\n{len(BONUSES)} {note}" in render_comparison(run_dir, other, out)[0].read_text()
