"""Progress while chunks are in play (runner.py, progress.py): sub-batches play the very games
one batch plays, workers note their progress, and the parent's bar counts it."""

import io
import re

import numpy as np
import pytest
from tqdm import tqdm

from simulator import progress, runner
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.progress import CellWork, ProgressBar, cost_weight
from simulator.runner import play_in_sub_batches, run_plan
from tests_support import log_digests

DOCUMENT = {
    "name": "batches", "seed": 21, "games": 300, "chunk_games": 150,
    "studies": [{"game": "katz", "rules": {"players": 4}, "seats": ["random"]},
                {"game": "katz", "rules": {"players": 3}, "seats": ["greedy", "random", "expectimax"]},
                {"game": "nyz", "rules": {"players": 2}, "games": 60}],
}


def test_sub_batches_of_one_deal_write_the_same_logs_as_one_batch(tmp_path, monkeypatch):
    plan = build_plan(parse_experiment(DOCUMENT))
    monkeypatch.setattr(runner, "FIRST_SUB_BATCH_GAMES", 10**9)
    run_plan(plan, tmp_path / "whole", "", jobs=1, progress=False)
    monkeypatch.setattr(runner, "FIRST_SUB_BATCH_GAMES", 1)
    monkeypatch.setattr(runner, "SUB_BATCH_SECONDS", 0.0)  # never grows: one deal at a time
    run_plan(plan, tmp_path / "pieces", "", jobs=2, backend="threading", progress=False)
    assert log_digests(tmp_path / "pieces") == log_digests(tmp_path / "whole")
    assert len(log_digests(tmp_path / "whole")) == len(plan.chunks()) == 6


def test_a_worker_notes_its_progress_after_every_sub_batch_and_removes_the_note(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "SUB_BATCH_SECONDS", 0.0)
    note = tmp_path / ".chunk-000000.progress"
    seen = []

    def play(seeds, rotations):
        seen.append(int(note.read_text()) if note.exists() else 0)
        return {"score": seeds[:, None] * 2, "turns": rotations.copy()}

    seeds = np.arange(200, dtype=np.uint64)
    rotations = np.tile(np.arange(2, dtype=np.int8), 100)
    columns = play_in_sub_batches(play, seeds, rotations, 2, note)
    assert seen == [0] + list(range(64, 200, 2))  # 64 games first, then (too slow for 0 s) one deal each
    assert np.array_equal(columns["score"][:, 0], seeds * 2) and np.array_equal(columns["turns"], rotations)
    assert not note.exists()


def test_the_bar_counts_finished_chunks_and_games_in_play(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "POLL_SECONDS", 0.01)
    folder = tmp_path / "logs" / "cell=0002"
    folder.mkdir(parents=True)
    bar = ProgressBar(tmp_path, {2: CellWork(games=10_000, finished=1_000, weight=1.0)}, description="t", enabled=True)
    (folder / ".chunk-000001.progress").write_text("1500")
    (folder / ".chunk-000004.progress").write_text("")  # being rewritten right now
    bar.chunk_done(2, 2_000, seconds=1.0)
    import time

    deadline = time.monotonic() + 5
    while "4,500/10,000 games" not in bar.bar.games:
        assert time.monotonic() < deadline, bar.bar.games
        time.sleep(0.01)
    assert bar.bar.n == 450  # the work done: one cell, so the share of its games
    (folder / ".chunk-000001.progress").unlink()
    bar.close()
    assert bar.bar.n == 450  # never counts backwards


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_time_left_weighs_each_cell_by_its_measured_speed_not_its_games(tmp_path):
    """Issue 21 finding 4: a ladder's bar showed 11 s left with minutes to go. A cell of search
    games ahead counts by its cost weight until measured, then by its measured speed."""
    clock = FakeClock()
    cells = {0: CellWork(games=1_000, finished=0, weight=1.0), 1: CellWork(games=1_000, finished=0, weight=101.0)}
    bar = ProgressBar(tmp_path, cells, description="ladder", enabled=False, clock=clock)
    assert bar.seconds_left({}) is None  # nothing played yet: no estimate
    clock.now = 10.0
    bar.chunk_done(0, 1_000, seconds=10.0)  # the greedy cell: 0.01 s a game
    assert bar.seconds_left({}) == pytest.approx(10.0 * 101)  # counting games would say 10 s
    assert bar.work_fraction({}) == pytest.approx(1 / 102)
    clock.now = 210.0
    bar.chunk_done(1, 100, seconds=200.0)  # the search cell is slower than its weight said: 2 s a game
    assert bar.seconds_left({}) == pytest.approx(210.0 * (900 * 2.0) / (1_000 * 0.01 + 100 * 2.0))
    assert bar.seconds_left({1: 450}) == pytest.approx(210.0 * (450 * 2.0) / (1_000 * 0.01 + 550 * 2.0))


def test_a_cell_not_yet_measured_costs_what_measured_cells_of_its_kind_cost(tmp_path):
    """The explain study's bar said about a minute left for its last five minutes: its New York
    Zoo cells (expert seats, weighted about as much as a heuristic's game) were estimated from
    every measured cell, the many Katz games among them. A cell of a kind (game and seats) already
    measured costs what that kind costs; another kind of the same game scales by the game's cells;
    a game not yet measured, by every measured cell."""
    clock = FakeClock()
    katz, expert = ("katz", ("greedy", "greedy")), ("nyz", ("expert", "expert"))
    cells = {0: CellWork(games=100_000, finished=0, weight=1.0, kind=katz),
             1: CellWork(games=1_000, finished=0, weight=5.0, kind=expert),
             2: CellWork(games=1_000, finished=0, weight=5.0, kind=expert),
             3: CellWork(games=1_000, finished=0, weight=1.0, kind=("nyz", ("greedy", "greedy"))),
             4: CellWork(games=1_000, finished=0, weight=1.0, kind=("coin", ("random", "random")))}
    bar = ProgressBar(tmp_path, cells, description="explain", enabled=False, clock=clock)
    clock.now = 20.0
    bar.chunk_done(0, 100_000, seconds=10.0)  # Katz: 0.1 ms a game
    bar.chunk_done(1, 1_000, seconds=10.0)  # expert: 10 ms a game
    costs = bar._costs()
    assert costs[2] == pytest.approx(0.01)  # as the measured expert cell, not the mix (about 0.2 ms)
    assert costs[3] == pytest.approx(0.01 / 5.0)  # New York Zoo's seconds per unit of weight
    assert costs[4] == pytest.approx(20.0 / (100_000 * 1.0 + 1_000 * 5.0))  # every measured cell's
    assert bar.seconds_left({}) == pytest.approx(20.0 * (1_000 * 0.01 + 1_000 * 0.002 + 1_000 * costs[4]) / 20.0)


def test_a_cell_whose_first_chunk_is_in_play_costs_what_that_chunk_takes(tmp_path):
    """The explain study's bar said 5 s left at 74% with 13 minutes to go: no New York Zoo chunk
    had finished, so its expert cells were priced by the Katz games' speed. A chunk in play
    measures its cell from its progress file, from when the bar first read it."""
    clock = FakeClock()
    katz, expert = ("katz", ("greedy", "greedy")), ("nyz", ("expert", "expert"))
    cells = {0: CellWork(games=100_000, finished=0, weight=1.0, kind=katz),
             1: CellWork(games=1_000, finished=0, weight=5.0, kind=expert),
             2: CellWork(games=1_000, finished=0, weight=5.0, kind=expert)}
    bar = ProgressBar(tmp_path, cells, description="explain", enabled=False, clock=clock)
    clock.now = 10.0
    bar.chunk_done(0, 100_000, seconds=10.0)  # Katz: 0.1 ms a game
    folder = tmp_path / "logs" / "cell=0001"
    folder.mkdir(parents=True)
    (folder / ".chunk-000000.progress").write_text("10")
    assert bar._in_play() == {1: 10}
    assert bar._costs()[1] == pytest.approx(5.0 * 1e-4)  # nothing to go on yet but the Katz games
    clock.now = 20.0
    (folder / ".chunk-000000.progress").write_text("110")
    assert bar._in_play() == {1: 110}
    costs = bar._costs()
    assert costs[1] == costs[2] == pytest.approx(0.1)  # 100 games in 10 s: 0.1 s a game
    assert bar.seconds_left({1: 110}) == pytest.approx(20.0 * (890 * 0.1 + 1_000 * 0.1) / (10.0 + 110 * 0.1))
    (folder / ".chunk-000000.progress").unlink()
    bar.chunk_done(1, 1_000, seconds=50.0)  # the finished chunk's measurement takes over
    assert bar._in_play() == {} and bar._costs()[2] == pytest.approx(0.05)


def test_a_progress_file_read_while_it_is_rewritten_measures_nothing(tmp_path):
    """The 3-player explain probe's bar jumped to 100% with 90% of its games to go: a progress
    file read empty while its worker rewrote it counted as 0 games, so its chunk seemed to have
    played a negative number since the bar first read it."""
    clock = FakeClock()
    cells = {cell: CellWork(games=4_000, finished=0, weight=5.0, kind=("nyz", ("expert",))) for cell in range(4)}
    bar = ProgressBar(tmp_path, cells, description="explain", enabled=False, clock=clock)
    folder = tmp_path / "logs" / "cell=0000"
    folder.mkdir(parents=True)
    progress_file = folder / ".chunk-000000.progress"
    for now, text in [(1.0, "100"), (2.0, "200"), (3.0, ""), (4.0, "400")]:
        clock.now = now
        progress_file.write_text(text)
        in_play = bar._in_play()
        assert all(games >= 0 for games, _ in bar.playing.values())
        assert 0.0 <= bar.work_fraction(in_play) < 0.2
    assert bar.playing[0] == (300, 3.0)  # from the first read (1.0 s, 100 games) on
    assert bar._costs()[3] == pytest.approx(0.01)


def test_games_played_in_an_earlier_session_count_as_done_but_not_as_this_sessions_speed(tmp_path):
    clock = FakeClock()
    bar = ProgressBar(tmp_path, {0: CellWork(games=1_000, finished=900, weight=1.0)}, "resumed", enabled=False, clock=clock)
    assert bar.work_fraction({}) == pytest.approx(0.9)
    clock.now = 5.0
    assert bar.seconds_left({0: 50}) == pytest.approx(5.0)  # 50 games in 5 s, 50 to go


def test_a_search_cell_weighs_its_iterations():
    plan = build_plan(parse_experiment({
        "games": 10, "studies": [{"game": "katz", "rules": {"players": 2}, "seats": ["greedy", {"policy": "ismcts", "params": {"iterations": 40}}]}],
    }))
    assert cost_weight(plan.cells[0]) == pytest.approx((1 + 41) / 2)


def test_while_a_game_still_compiles_the_bar_shows_the_games_played_and_its_compile_status(tmp_path, monkeypatch):
    """Issue #41: the cells of the game compiled first play while another game compiles; the bar
    counts their games and says, after them, where the other game's compile stands."""
    monkeypatch.setattr(progress, "POLL_SECONDS", 0.01)
    status = ["compiling nyz: kernel 80 of 187, about 30 s left"]
    cells = {0: CellWork(games=1_000, finished=0, weight=1.0), 1: CellWork(games=100, finished=0, weight=1.0)}
    bar = ProgressBar(tmp_path, cells, description="seat_bias", enabled=True, compiling=lambda: list(status))
    bar.chunk_done(0, 500, seconds=1.0)
    import time

    deadline = time.monotonic() + 5
    while "500/1,100 games" not in bar.bar.games:
        assert time.monotonic() < deadline, bar.bar.games
        time.sleep(0.01)
    assert bar.bar.games.endswith("; compiling nyz: kernel 80 of 187, about 30 s left"), bar.bar.games
    status.clear()  # compiled: the note goes
    bar.chunk_done(1, 100, seconds=1.0)
    bar.close()
    assert bar.bar.games.startswith("600/1,100 games") and "compiling" not in bar.bar.games, bar.bar.games


def test_the_warm_ups_report_the_compile_status_of_each_game_still_compiling(tmp_path):
    """The status each compile process writes (kernel_cache.compile_progress's status_file) is
    what _WarmUps.compiling reports while that game's warm-up is under way, and nothing after."""
    from concurrent.futures import Future

    compiling, compiled = Future(), Future()
    compiled.set_result({})
    warm = runner._WarmUps({"nyz": compiling, "katz": compiled}, status_dir=tmp_path)
    assert warm.compiling() == ["compiling nyz"]  # no kernel compiled yet
    (tmp_path / "nyz.status").write_text("compiling nyz: kernel 3 of 187, about 80 s left")
    assert warm.compiling() == ["compiling nyz: kernel 3 of 187, about 80 s left"]
    compiling.set_result({})
    assert warm.compiling() == []


def test_when_stderr_is_not_a_terminal_the_progress_is_plain_lines(tmp_path, capsys, monkeypatch):
    """`zoosim run ... 2> file`: no carriage-return frames, a line per cell finished and a last
    one with every game played."""
    monkeypatch.setattr(progress, "CELL_LINE_SECONDS", 0.0)  # these cells finish within a second
    plan = build_plan(parse_experiment({"name": "logged", "games": 400, "chunk_games": 100,
                                        "studies": [{"game": "coin", "sweep": {"players": [2, 3]}}]}))
    run_plan(plan, tmp_path / "run", "", jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and "\033" not in err, repr(err)
    lines = [line for line in err.splitlines() if line.startswith("logged: ")]
    assert len(lines) <= 2 + 3, lines  # the run's first line, a line per cell, the last line
    assert lines[-1] == "logged: 100% 802/802 games", lines  # 2 and 3 players: whole deals of 400 games
    assert any(re.fullmatch(r"logged: \d+% 400/802 games, .* left", line) for line in lines), lines  # a cell done


def test_plain_lines_come_every_line_seconds_while_games_play(tmp_path, monkeypatch):
    clock = FakeClock()
    written = io.StringIO()
    monkeypatch.setattr(progress, "POLL_SECONDS", 3600)  # this test refreshes by hand
    bar = ProgressBar(tmp_path, {0: CellWork(games=1_000, finished=0, weight=1.0)}, "slow", enabled=True,
                      clock=clock, stream=written)
    folder = tmp_path / "logs" / "cell=0000"
    folder.mkdir(parents=True)
    (folder / ".chunk-000000.progress").write_text("100")
    clock.now = progress.LINE_SECONDS - 1
    bar.refresh()
    assert written.getvalue() == ""  # too soon, and nothing is finished
    clock.now = progress.LINE_SECONDS
    bar.refresh()
    left = tqdm.format_interval(progress.LINE_SECONDS * 9)  # 100 games in LINE_SECONDS, 900 to go
    assert written.getvalue() == f"slow: 10% 100/1,000 games, {left} left\n"
    bar.close()


def test_cells_finished_within_a_second_of_the_last_line_share_the_next_one(tmp_path, monkeypatch):
    """A sweep of thousands of small cells: not a line for each."""
    clock = FakeClock()
    written = io.StringIO()
    monkeypatch.setattr(progress, "POLL_SECONDS", 3600)
    cells = {index: CellWork(games=10, finished=0, weight=1.0) for index in range(3)}
    bar = ProgressBar(tmp_path, cells, "many", enabled=True, clock=clock, stream=written)
    clock.now = progress.CELL_LINE_SECONDS
    bar.chunk_done(0, 10, seconds=1.0)
    clock.now += progress.CELL_LINE_SECONDS / 2
    bar.chunk_done(1, 10, seconds=0.5)  # too soon after cell 0's line
    bar.close()
    lines = written.getvalue().splitlines()
    assert [line.split(" games")[0] for line in lines] == ["many: 33% 10/30", "many: 67% 20/30"], lines


def test_the_poll_thread_and_chunk_done_read_and_count_under_the_lock(tmp_path):
    """`_in_play` swaps in its measurements and chunk_done adds to the counts the bar reads, one
    from the poll thread, one from the run's: both happen under the bar's lock, so a race cannot
    restart a chunk's speed measurement or read a count half updated."""
    cells = {0: CellWork(games=100, finished=0, weight=1.0, kind=("katz", ("greedy",)))}
    bar = ProgressBar(tmp_path, cells, description="lock", enabled=True, clock=FakeClock(), stream=io.StringIO())
    held = []
    reads = bar._in_play
    bar._in_play = lambda: (held.append(bar.lock.locked()), reads())[1]
    bar.refresh()
    bar.chunk_done(0, 100, seconds=1.0)  # the cell is finished: a LineBar writes its line
    assert held == [True, True]
