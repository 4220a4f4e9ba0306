"""The runner: identical logs for any job count and backend, resume, and output-folder safety."""

import json
import os
import threading
import time
from pathlib import Path

import pytest

from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.plan import build_plan
from simulator.rundir import MANIFEST, chunk_path, verified_chunks
from simulator.runner import run_plan
from simulator.safe_yaml import load_yaml
from simulator.samples import read_samples
from tests_support import log_digests

REPO = Path(__file__).resolve().parents[2]

DOCUMENT = {
    "name": "coin_run",
    "seed": 1,
    "games": 900,
    "chunk_games": 200,
    "studies": [{"game": "coin", "rules": {"first_seat_bonus": 0.2}, "sweep": {"players": [2, 3]}}],
}


def make_plan(**overrides):
    return build_plan(parse_experiment({**DOCUMENT, **overrides}))


def run(plan, out, **options):
    return run_plan(plan, out, "experiment text", progress=False, **options)


def test_one_job_and_two_threads_write_byte_identical_logs(tmp_path):
    plan = make_plan()
    run(plan, tmp_path / "a", jobs=1)
    run(plan, tmp_path / "b", jobs=2, backend="threading")
    digests = log_digests(tmp_path / "a")
    assert len(digests) == sum(cell.chunks for cell in plan.cells) == 10
    assert digests == log_digests(tmp_path / "b")


def test_resume_plays_only_missing_chunks_and_matches_a_full_run(tmp_path):
    plan = make_plan()
    run(plan, tmp_path / "full", jobs=1)
    run(plan, tmp_path / "partial", jobs=1)
    for chunk in (0, 3):  # as if the run had been killed before these were written
        chunk_path(tmp_path / "partial", 1, chunk).unlink()
    (tmp_path / "partial" / "logs" / "cell=0001" / ".chunk-000004.parquet.1.tmp").write_bytes(b"half")
    summary = run(plan, tmp_path / "partial", jobs=1, resume=True)
    assert summary.games_played == plan.cells[1].chunk(0).games + plan.cells[1].chunk(3).games == 2 * 198
    assert log_digests(tmp_path / "partial") == log_digests(tmp_path / "full")
    assert not list((tmp_path / "partial").rglob("*.tmp"))


def test_a_folder_with_another_experiment_is_refused_unless_forced(tmp_path):
    run(make_plan(), tmp_path / "out", jobs=1)
    other = make_plan(seed=2)
    with pytest.raises(ZoosimError, match="holds a different experiment"):
        run(other, tmp_path / "out", jobs=1)
    run(other, tmp_path / "out", jobs=1, force=True)
    assert json.loads((tmp_path / "out" / MANIFEST).read_text())["run_hash"] == other.run_hash


def test_the_same_experiment_needs_resume_to_continue(tmp_path):
    plan = make_plan()
    run(plan, tmp_path / "out", jobs=1)
    with pytest.raises(ZoosimError, match="--resume"):
        run(plan, tmp_path / "out", jobs=1)
    assert run(plan, tmp_path / "out", jobs=1, resume=True).games_played == 0


def test_a_foreign_non_empty_folder_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ZoosimError, match="holds no zoosim run"):
        run(make_plan(), tmp_path, jobs=1)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_an_unwritable_location_is_refused_before_writing(tmp_path):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    with pytest.raises(ZoosimError, match="cannot write"):
        run(make_plan(), blocker / "run", jobs=1)
    assert sorted(os.listdir(tmp_path)) == ["plain-file"]


def test_an_output_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(ZoosimError, match="not a folder"):
        run(make_plan(), target, jobs=1)


def test_every_game_index_is_logged_once(tmp_path):
    import pyarrow.parquet as pq

    plan = make_plan()
    run(plan, tmp_path / "out", jobs=2, backend="threading")
    for cell in plan.cells:
        assert set(verified_chunks(tmp_path / "out", cell.describe(), set_aside=False)) == set(range(cell.chunks))
        folder = tmp_path / "out" / "logs" / f"cell={cell.index:04d}"
        indices = [i for path in folder.glob("*.parquet") for i in pq.read_table(path).column("game_index").to_pylist()]
        assert sorted(indices) == list(range(cell.games))


def test_a_failing_chunk_names_cell_chunk_and_replay_command(tmp_path, write_experiment):
    from click.testing import CliRunner

    from simulator.cli import main

    path = write_experiment("games: 100\nstudies: [{game: coin, rules: {crash: true, players: 2}}]\n")
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 2
    message = result.stderr.strip().splitlines()[-1]
    assert "cell 0 (coin) chunk 0 failed: RuntimeError: the engine crashed" in message
    assert "zoosim play coin --seed " in message and "--rotation 0 --policy fair,fair --set players=2 --set crash=true" in message


def test_checked_mode_stops_at_the_first_broken_invariant(tmp_path):
    plan = build_plan(parse_experiment({"games": 100, "studies": [{"game": "coin", "rules": {"players": 2, "broken_rule": True}}]}))
    run(plan, tmp_path / "unchecked", jobs=1)  # without --check nobody looks
    with pytest.raises(ZoosimError, match=r"14 game\(s\) broke a rule invariant, first game 3 \(score_out_of_range\)"):
        run(plan, tmp_path / "checked", jobs=1, check=True)
    assert not list((tmp_path / "checked").rglob("*.parquet"))
    fine = build_plan(parse_experiment({"games": 100, "studies": [{"game": "coin", "rules": {"players": 2}}]}))
    assert run(fine, tmp_path / "fine", jobs=1, check=True).games_played == 100


def test_the_parent_warms_kernels_up_once_then_leaves_loading_them_to_the_workers(tmp_path, monkeypatch):
    """Issue 11 (speed): a run's parent plays a game to compile a game's kernels only while no
    warm marker says an earlier warm-up left them in the cache; afterwards it never pays numba's
    start-up (the workers load the kernels themselves)."""
    from simulator import runner
    from simulator.games import kernel_cache

    marker = tmp_path / "warm"
    monkeypatch.setattr(kernel_cache, "warm_marker", lambda source_file, variant: marker)
    played = []
    monkeypatch.setattr(runner, "_play_games", lambda chunk, seeds, rotations, check: played.append(len(seeds)))
    monkeypatch.setattr(runner, "_records_and_summary", lambda chunk, columns, seeds, rotations: None)
    todo = make_plan().cells[0].all_chunks()
    runner._compile_kernels(todo, progress=False, jobs=1, sample_cells=[])
    assert played == [1] and marker.exists()
    runner._compile_kernels(todo, progress=False, jobs=1, sample_cells=[])
    assert played == [1]


def test_the_parent_warms_up_each_kernel_variant_a_run_plays(tmp_path, monkeypatch):
    """A seating with a search policy compiles other play kernels than one without, and Katz's
    random-only seating others again (base.Game.kernel_variant): each variant a run plays is
    warmed up once, with its own marker."""
    from simulator import runner
    from simulator.games import kernel_cache

    monkeypatch.setattr(kernel_cache, "warm_marker", lambda source_file, variant: tmp_path / variant)
    played = []
    monkeypatch.setattr(runner, "_play_games", lambda chunk, seeds, rotations, check: played.append((chunk.cell.label, check)))
    monkeypatch.setattr(runner, "_records_and_summary", lambda chunk, columns, seeds, rotations: None)
    plan = build_plan(parse_experiment({"games": 10, "studies": [
        {"name": "h", "game": "katz", "rules": {"players": 2}, "pool": ["greedy", "random"]},
        {"name": "s", "game": "katz", "rules": {"players": 2}, "seats": ["greedy", {"policy": "ismcts", "params": {"iterations": 2}}]},
        {"name": "r", "game": "katz", "rules": {"players": 2}, "seats": ["random"]},
    ]}))
    todo = [chunk for cell in plan.cells for chunk in cell.all_chunks()]
    runner._compile_kernels(todo, progress=False, jobs=1, sample_cells=[])
    assert len(played) == 3 and sorted(path.name for path in tmp_path.iterdir()) == [
        "heuristic", "plain", "search", "summaries"]
    # a checked run warms up the checked specialisations (Katz compiles its invariants only
    # into checked batches), each under a marker of its own
    runner._compile_kernels(todo, progress=False, jobs=1, sample_cells=[], check=True)
    assert [check for _, check in played] == [False] * 3 + [True] * 3
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "heuristic", "heuristic-checked", "plain", "plain-checked", "search", "search-checked", "summaries"]


def test_the_chunk_summaries_compile_once_per_run_in_a_warm_up_of_their_own(tmp_path, monkeypatch):
    """Issue 21 (at most 60 s of compiling per game): the chunk summaries' kernels, the same for
    every game, compiled inside each game's warm-up process, so with two games both compiled
    them. The warm-up plan now has them once, beside the games' warm-ups: in a process of their
    own whenever a game compiles meanwhile and --jobs allows, else in the parent; with their own
    warm marker, so that cached summaries are not compiled again and cached games do not keep
    them from compiling."""
    from simulator import runner
    from simulator.games import kernel_cache

    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setattr(kernel_cache, "warm_marker",
                        lambda source_file, variant: markers / f"{Path(source_file).parent.name}-{variant}")
    plan = build_plan(parse_experiment({"games": 10, "studies": [
        {"name": "k", "game": "katz", "rules": {"players": 2}},
        {"name": "n", "game": "nyz", "rules": {"players": 2}},
    ]}))
    todo = [chunk for cell in plan.cells for chunk in cell.all_chunks()]

    def games(warm_ups):
        return [chunks[0][0].cell.game for chunks in warm_ups]

    two_cores = runner._warm_up_plan(todo, jobs=2)
    assert games(two_cores.games_apart) == ["katz", "nyz"] and two_cores.games_here == []
    assert two_cores.summaries_marker == markers / "analysis-summaries" and two_cores.summaries_apart
    one_core = runner._warm_up_plan(todo, jobs=1)
    assert games(one_core.games_here) == ["katz", "nyz"] and one_core.summaries_marker is not None
    assert not one_core.summaries_apart
    katz_only = runner._warm_up_plan([chunk for chunk in todo if chunk.cell.game == "katz"], jobs=2)
    assert games(katz_only.games_here) == ["katz"] and katz_only.summaries_apart  # compiled beside katz
    (markers / "analysis-summaries").touch()
    assert runner._warm_up_plan(todo, jobs=2).summaries_marker is None
    (markers / "analysis-summaries").unlink()
    (markers / "katz-heuristic").touch()
    (markers / "nyz-heuristic").touch()
    games_cached = runner._warm_up_plan(todo, jobs=2)
    assert games_cached.games_apart == games_cached.games_here == []
    assert games_cached.summaries_marker is not None and not games_cached.summaries_apart  # alone: here


def test_every_kernel_set_the_quick_start_compiles_has_a_shipped_compile_record(tmp_path, monkeypatch):
    """The quick start's first run on a new machine shows each compile as "kernel k of N"
    (issue #41): every game warm-up of experiments/seat_bias.yaml, from an empty cache, is named
    by a kernel set whose record zoosim ships (kernel_cache.SHIPPED_COMPILE_RECORDS). A change of
    the quick start's players or of how warm-ups are named fails here: ship the new records
    (copy them from compile-records/ in the kernel cache after a fresh run)."""
    from simulator import runner
    from simulator.games import kernel_cache

    monkeypatch.setattr(kernel_cache, "warm_marker", lambda source_file, variant: tmp_path / "none")  # nothing warm
    document = load_yaml((REPO / "experiments" / "seat_bias.yaml").read_text())
    plan = build_plan(parse_experiment(document))
    todo = [chunk for cell in plan.cells for chunk in cell.all_chunks()]
    warm_up = runner._warm_up_plan(todo, jobs=2)
    shipped = {path.name for path in kernel_cache.SHIPPED_COMPILE_RECORDS.glob("*.json")}
    kernel_sets = [runner.warm_up_kernel_set(warm_ups, check=False) for warm_ups in warm_up.games_apart + warm_up.games_here]
    assert len(kernel_sets) == 2  # katz and nyz
    for kernel_set in kernel_sets + ["chunk summary kernels"]:
        assert kernel_cache.compile_record_path(kernel_set).name in shipped, kernel_set


def test_a_games_warm_up_plays_its_game_and_leaves_the_summaries_to_their_own(tmp_path, monkeypatch):
    """A game's warm-up (its own process when two games compile) plays a game and draws samples;
    it summarizes nothing, so it compiles none of the chunk summaries' kernels."""
    from simulator import runner

    played, summarized = [], []
    monkeypatch.setattr(runner, "_play_games", lambda chunk, seeds, rotations, check: played.append(len(seeds)))
    monkeypatch.setattr(runner, "_records_and_summary", lambda *args: summarized.append(args))
    chunk = make_plan().cells[0].all_chunks()[0]
    assert runner._warm_up([(chunk, tmp_path / "warm")], progress=False, sample_cells=[]) == {}
    assert played == [1] and summarized == [] and (tmp_path / "warm").exists()


def test_games_compile_in_processes_of_their_own_at_once_and_play_the_same_games(tmp_path, monkeypatch):
    """Issue 21 finding 4: with several games to compile and --jobs above 1, each game's kernels
    compile in a process of its own at the same time, writing the shared cache; the games are
    those of a run that compiled nothing."""
    from simulator import runner
    from simulator.games import kernel_cache

    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setattr(kernel_cache, "warm_marker",
                        lambda source_file, variant: markers / f"{Path(source_file).parent.name}-{variant}")
    in_processes = []
    warm_up_in_processes = runner._warm_up_in_processes
    monkeypatch.setattr(runner, "_warm_up_in_processes", lambda by_game, *args: (
        in_processes.append(sorted(chunk.cell.game for warm_ups in by_game for chunk, _ in warm_ups)),
        warm_up_in_processes(by_game, *args))[1])
    plan = build_plan(parse_experiment({"seed": 3, "games": 40, "chunk_games": 20, "studies": [
        {"name": "k", "game": "katz", "rules": {"players": 2}},
        {"name": "n", "game": "nyz", "rules": {"players": 2}},
    ]}))
    run(plan, tmp_path / "parallel", jobs=2)
    assert in_processes == [["katz", "nyz"]]
    assert sorted(path.name for path in markers.iterdir()) == ["analysis-summaries", "katz-heuristic", "nyz-heuristic"]
    run(plan, tmp_path / "warm", jobs=1)  # the markers exist: nothing warms up
    assert in_processes == [["katz", "nyz"]]
    assert log_digests(tmp_path / "parallel") == log_digests(tmp_path / "warm") != {}
    # the warm-ups drew the report's samples, the warm run's first idle worker the same ones
    samples = read_samples(tmp_path / "parallel", plan.run_hash)
    assert list(samples) == ["k", "n"] and samples == read_samples(tmp_path / "warm", plan.run_hash)


def test_the_game_compiled_first_plays_while_another_still_compiles(tmp_path, monkeypatch):
    """Issue 21 (the first hour): with worker threads, the chunks of the game whose kernels are
    compiled first play while another game still compiles in its own process (the core that
    compiled it would otherwise idle); the other game's chunks wait for its warm-up. The games
    are those of a run that compiled nothing."""
    from concurrent.futures import Future

    from simulator import runner
    from simulator.games import kernel_cache

    monkeypatch.setattr(kernel_cache, "warm_marker", lambda source_file, variant: tmp_path / "never" / variant)
    katz_compiled, nyz_compiled = Future(), Future()
    katz_compiled.set_result({})
    monkeypatch.setattr(runner, "_warm_up_in_processes", lambda by_game, *args: (
        runner._WarmUps({"katz": katz_compiled, "nyz": nyz_compiled})))
    plan = build_plan(parse_experiment({"seed": 3, "games": 12, "chunk_games": 4, "studies": [
        {"name": "n", "game": "nyz", "rules": {"players": 2}},
        {"name": "k", "game": "katz", "rules": {"players": 2}},
    ]}))
    katz_chunks = sum(cell.chunks for cell in plan.cells if cell.game == "katz")
    played = []
    play_chunk = runner.play_chunk

    def noting(chunk, *args):
        result = play_chunk(chunk, *args)
        played.append((chunk.cell.game, nyz_compiled.done()))
        if chunk.cell.game == "katz" and played.count(("katz", False)) == katz_chunks:
            nyz_compiled.set_result({})  # nyz compiles until every katz chunk is played
        return result

    monkeypatch.setattr(runner, "play_chunk", noting)
    # a runner that waited for every game to compile would wait for ever: give up after a while
    give_up = threading.Timer(60, lambda: nyz_compiled.done() or nyz_compiled.set_result({}))
    give_up.daemon = True
    give_up.start()
    summary = run(plan, tmp_path / "overlapped", jobs=2)
    give_up.cancel()
    assert played == [("katz", False)] * katz_chunks + [("nyz", True)] * (len(played) - katz_chunks)
    assert summary.games_played == plan.games
    monkeypatch.setattr(runner, "play_chunk", play_chunk)
    run(plan, tmp_path / "plain", jobs=1)
    assert log_digests(tmp_path / "overlapped") == log_digests(tmp_path / "plain") != {}


def test_a_warm_up_failing_while_the_other_game_plays_ends_the_run_with_its_error(tmp_path, monkeypatch):
    """The game still compiling breaks (its warm-up raises) while the game compiled first plays:
    the run ends with that error, naming the cell to replay, and keeps only finished chunks."""
    from concurrent.futures import Future

    from simulator import runner
    from simulator.games import kernel_cache

    monkeypatch.setattr(kernel_cache, "warm_marker", lambda source_file, variant: tmp_path / "never" / variant)
    katz_compiled, nyz_compiled = Future(), Future()
    katz_compiled.set_result({})
    monkeypatch.setattr(runner, "_warm_up_in_processes", lambda by_game, *args: (
        runner._WarmUps({"katz": katz_compiled, "nyz": nyz_compiled})))
    play_chunk = runner.play_chunk

    def breaking(chunk, *args):
        result = play_chunk(chunk, *args)
        if not nyz_compiled.done():
            nyz_compiled.set_exception(ZoosimError("cell 0 (n) chunk 0 failed: the engine crashed"))
        return result

    monkeypatch.setattr(runner, "play_chunk", breaking)
    plan = build_plan(parse_experiment({"seed": 3, "games": 8, "chunk_games": 4, "studies": [
        {"name": "n", "game": "nyz", "rules": {"players": 2}},
        {"name": "k", "game": "katz", "rules": {"players": 2}},
    ]}))
    with pytest.raises(ZoosimError, match="the engine crashed"):
        run(plan, tmp_path / "out", jobs=2)
    assert not list((tmp_path / "out").rglob("cell=0000/*.parquet"))  # nyz's cell: nothing played


def test_a_sessions_recorded_time_leaves_out_compiling(tmp_path, monkeypatch):
    """Issue 21 finding 8: the run time in the record (the report's provenance) included the
    compile of a cold kernel cache; it is recorded apart."""
    from simulator import runner
    from simulator.rundir import read_run_info

    def compile_slowly(todo, progress, jobs, sample_cells, check, overlap):
        warm = runner._WarmUps()
        time.sleep(0.5)
        warm.wait(all_games=True)
        return warm

    monkeypatch.setattr(runner, "_compile_kernels", compile_slowly)
    summary = run(make_plan(), tmp_path / "out", jobs=1)
    session = read_run_info(tmp_path / "out")["sessions"][0]
    assert session["compile_seconds"] >= 0.5 and summary.compile_seconds >= 0.5
    assert session["seconds"] == pytest.approx(summary.seconds - summary.compile_seconds, abs=0.1)


def test_worker_threads_stop_before_a_failed_run_lets_go_of_its_folder(tmp_path):
    """Threads cannot be killed and joblib does not wait for them: when a threaded run fails
    (here a chunk that crashes), the thread playing a long chunk abandons it at its next
    sub-batch and the run waits for that, so nothing writes into the folder afterwards."""
    plan = build_plan(parse_experiment({
        "name": "stop", "seed": 1, "games": 100000, "chunk_games": 100000, "rotate_seats": False,
        "studies": [{"name": "long", "game": "coin", "rules": {"players": 2}},
                    {"name": "crash", "game": "coin", "rules": {"players": 2, "crash": True}, "games": 10}],
    }))
    with pytest.raises(ZoosimError, match="the engine crashed"):
        run(plan, tmp_path / "out", jobs=2, backend="threading")
    written = sorted(p.name for p in (tmp_path / "out" / "logs").rglob("*"))
    time.sleep(1.0)
    assert sorted(p.name for p in (tmp_path / "out" / "logs").rglob("*")) == written
    assert not [name for name in written if name.startswith("chunk-") or name.endswith(".progress")]
