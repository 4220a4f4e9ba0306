"""The report's sample-game drawings: the final position of a game replayed from its seed,
drawn as inline SVG, agrees with the game's own text trace of the same game."""

import re
from pathlib import Path

import pytest

from simulator.games import get_game


@pytest.mark.parametrize("name, players", [("katz", 2), ("nyz", 2)])
def test_drawing_shows_the_same_winners_as_the_trace(name, players):
    game = get_game(name)
    params = game.make_params({"players": players})
    seating = game.seat_policies([("greedy", {}), ("random", {})])
    svg = game.final_position_svg(params, seating, 12345, 1)
    assert svg == game.final_position_svg(params, seating, 12345, 1)  # replayed, deterministic
    assert svg.startswith("<svg") and 'class="final-position"' in svg and "key:" in svg
    winners_drawn = sorted(int(seat) for seat in re.findall(r"seat (\d) \([^)]*\)[^<]*· winner", svg))
    trace = game.trace(params, seating, 12345, 1)
    winners_line = trace.splitlines()[-1]  # both games end with the same winner line
    assert winners_line.startswith("winners: ")
    winners_traced = sorted(int(seat) for seat in re.findall(r"seat (\d)", winners_line))
    assert winners_drawn == winners_traced and winners_drawn


def test_katz_drawing_has_one_square_per_grid_cell():
    game = get_game("katz")
    params = game.make_params({"players": 3})
    seating = game.seat_policies([("greedy", {})] * 3)
    svg = game.final_position_svg(params, seating, 7, 0)
    grid_lines = [line for line in game.trace(params, seating, 7, 0).splitlines() if re.match(r"r\d+:", line)]
    rows = int(re.match(r"r(\d+):", grid_lines[-1]).group(1)) + 1
    final_grid = grid_lines[-rows:]
    assert svg.count("<rect") == sum(len(line.split()) - 1 for line in final_grid)
    for token in final_grid[0].split()[1:]:  # the cards of the top row are labelled with their codes
        if token not in ("##", "__", "ZK"):
            assert f">{token.removeprefix('ZK/')}</text>" in svg


def test_a_run_keeps_its_sample_games_and_the_report_uses_them(tmp_path, monkeypatch):
    """Issue 11 (speed): a run's worker draws the sample games (samples.json, under the run
    hash) so that a report never loads a game's kernels; without the file (an older or
    interrupted run) the report draws the same pictures itself."""
    from simulator import samples
    from simulator.config import parse_experiment
    from simulator.plan import build_plan
    from simulator.report.build import build_report
    from simulator.runner import run_plan

    plan = build_plan(parse_experiment({"name": "sample", "seed": 3, "games": 40, "chunk_games": 20,
                                        "studies": [{"game": "katz", "rules": {"players": 2}}]}))
    run_plan(plan, tmp_path, "", jobs=1, progress=False)
    kept = samples.read_samples(tmp_path, plan.run_hash)
    assert list(kept) == [plan.cells[0].study] and kept == samples.draw_samples(plan.cells)
    assert samples.read_samples(tmp_path, "another run") is None
    with monkeypatch.context() as patched:
        patched.setattr(samples, "draw_samples", lambda cells: pytest.fail("the report drew a kept sample"))
        page, _ = build_report(tmp_path)
    with_kept = page.read_text()
    assert kept[plan.cells[0].study]["svg"] in with_kept
    (tmp_path / samples.SAMPLES).unlink()
    page, _ = build_report(tmp_path)
    assert page.read_text() == with_kept


def test_the_report_of_a_finished_run_imports_no_numba(tmp_path):
    """Issue 11 (speed: `zoosim report` of 10 M games within 1 s): with the sample games kept in
    samples.json the report needs no engine, so a fresh interpreter building it never imports
    numba (about 0.2 s of imports) nor a game's kernels."""
    import subprocess
    import sys

    from simulator.config import parse_experiment
    from simulator.plan import build_plan
    from simulator.runner import run_plan

    plan = build_plan(parse_experiment({"name": "no_numba", "seed": 5, "games": 60, "chunk_games": 30,
                                        "studies": [{"game": "katz", "rules": {"players": 3}}]}))
    run_plan(plan, tmp_path, "", jobs=1, progress=False)
    assert (tmp_path / "samples.json").exists()
    (tmp_path / "report.html").unlink(missing_ok=True)
    build = ("import sys; from pathlib import Path; from simulator.report.build import build_report; "
             f"build_report(Path({str(tmp_path)!r})); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite') "
             "or m.startswith(('simulator.games.katz', 'simulator.games.nyz', 'simulator.games.kernel'))))")
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", build], cwd=repo, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]" and (tmp_path / "report.html").exists()
