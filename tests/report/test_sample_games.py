"""The report's sample-game drawings: the final position of a game replayed from its seed,
drawn as inline SVG, agrees with the game's own text trace of the same game."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simulator.games import get_game
from simulator.games.katz import state as S
from simulator.games.nyz.state import P_DECISIONS


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
    hash) so that a report never loads a game's kernels; without the file (an interrupted run)
    the report draws nothing either (issue #18: the report never builds a plan or touches an
    engine) and says that the run's end draws it."""
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
    monkeypatch.setattr(samples, "draw_samples", lambda cells: pytest.fail("the report drew a sample"))
    with_kept = build_report(tmp_path)[0].read_text()
    assert kept[plan.cells[0].study]["svg"] in with_kept and "No sample game yet" not in with_kept
    (tmp_path / samples.SAMPLES).unlink()
    without = build_report(tmp_path)[0].read_text()
    assert kept[plan.cells[0].study]["svg"] not in without
    assert "No sample game yet: a run draws it when its last chunk is played" in without


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


@pytest.mark.parametrize("players, names", [(2, ["greedy", "random"]), (3, ["expectimax", "greedy", "random"]),
                                            (2, [("ismcts", {"iterations": 2}), "greedy"])])
def test_katz_finished_game_is_the_step_api_game(players, names):
    """Issue 21 finding 4: the sample drawing plays its game with the batch's kernel
    (step_api.finished_game) instead of the step kernels, which a run then never compiles; it
    is the game the step API plays, move for move (only the trace's event log differs: the
    step API keeps the last move's events; and the decision counts of the turn-order facts,
    which only the batch's play loop keeps)."""
    from simulator.games.katz import step_api

    game = get_game("katz")
    params = game.make_params({"players": players})
    seating = game.seat_policies([(name, {}) if isinstance(name, str) else name for name in names])
    for seed, rotation in ((1, 0), (12345, 1), (7, players - 1)):
        finished = step_api.finished_game(params, seating, seed, rotation)
        stepped = step_api.new_game(params, seating, seed, rotation)
        while not step_api.is_over(stepped):
            step_api.apply(stepped, step_api.policy_move(stepped))
        for field, (ours, theirs) in enumerate(zip(finished.game[:-1], stepped.game[:-1])):  # all but the events
            if field == 0:
                ours, theirs = np.delete(ours, S.S_EVENT_COUNT), np.delete(theirs, S.S_EVENT_COUNT)
            if field == 5:  # seats: all but the play loop's decision count
                ours, theirs = np.delete(ours, S.SEAT_DECISIONS, axis=1), np.delete(theirs, S.SEAT_DECISIONS, axis=1)
            assert np.array_equal(ours, theirs), field
        assert np.array_equal(finished.rng, stepped.rng)
        assert step_api.winners(finished) == step_api.winners(stepped)
        assert np.array_equal(step_api.scores(finished), step_api.scores(stepped))


@pytest.mark.parametrize("players, names", [(2, ["greedy", "random"]), (3, ["greedy_pairs", "greedy", "random"]),
                                            (2, [("mcts", {"iterations": 2}), "greedy"])])
def test_nyz_finished_game_is_the_step_api_game(players, names):
    """As for Katz: New York Zoo's sample drawing plays the batch's game kernel (play_out), and
    the game is the step API's, state for state (but the play loop's decision counts)."""
    from simulator.games.nyz import step_api

    game = get_game("nyz")
    params = game.make_params({"players": players})
    seating = game.seat_policies([(name, {}) if isinstance(name, str) else name for name in names])
    for seed, rotation in ((1, 0), (12345, 1), (7, players - 1)):
        finished = step_api.finished_game(params, seating, seed, rotation)
        stepped = step_api.new_game(params, seating, seed, rotation, stop_at_forced=False)
        while not step_api.is_over(stepped):
            step_api.apply(stepped, step_api.policy_move(stepped))
        for field in finished.state._fields:
            ours, theirs = getattr(finished.state, field), getattr(stepped.state, field)
            if field == "seat":
                ours, theirs = np.delete(ours, P_DECISIONS, axis=1), np.delete(theirs, P_DECISIONS, axis=1)
            assert np.array_equal(ours, theirs), field
        assert step_api.winners(finished) == step_api.winners(stepped)


STEP_KERNELS = {"katz": ("apply_move", "choose_for_seat", "legal_moves_into", "find_violation"),
                "nyz": ("_apply_move", "_choose")}


@pytest.mark.parametrize("name", sorted(STEP_KERNELS))
def test_a_drawing_after_a_batch_loads_no_step_kernel(name):
    """The drawing after a batch calls no step kernel (each would be a compile of its own from
    an empty cache): in a fresh process, none of them has a signature loaded afterwards."""
    script = (
        "import numpy as np\n"
        "from simulator.games import get_game\n"
        f"from simulator.games.{name} import step_api\n"
        f"game = get_game({name!r}); params = game.make_params({{'players': 2}})\n"
        "seating = game.seat_policies([('greedy', {})] * 2)\n"
        "game.play_batch(params, seating, np.arange(2, dtype=np.uint64), np.zeros(2, np.int64))\n"
        "game.final_position_svg(params, seating, 5, 1)\n"
        f"print([kernel for kernel in {STEP_KERNELS[name]!r} if getattr(step_api, kernel).signatures])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
