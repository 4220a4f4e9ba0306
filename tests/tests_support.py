"""Helpers shared by test modules."""

import contextlib
import hashlib
import json
import math
import os
import time
from pathlib import Path


def log_digests(run_dir):
    """Chunk file name -> sha256 of its bytes: byte-identical logs give identical dicts."""
    logs = run_dir / "logs"
    return {
        str(path.relative_to(logs)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(logs.rglob("*.parquet"))
    }


def lock_holder(run_dir):
    """The pid recorded in a run folder's lock file, or None."""
    try:
        return json.loads((run_dir / "zoosim.lock").read_text())["pid"]
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def lock_held_elsewhere(run_dir):
    """A child process holding `run_dir`'s lock, as a running `zoosim run` or `tune` would; yields
    its pid once it holds the lock, and kills it at the end (which releases the lock)."""
    from simulator.rundir import RunLock

    holder = os.fork()
    if holder == 0:
        with RunLock(run_dir):
            time.sleep(60)
        os._exit(0)
    try:
        deadline = time.monotonic() + 10
        while lock_holder(run_dir) != holder:
            assert time.monotonic() < deadline, "the child did not take the lock"
            time.sleep(0.05)
        yield holder
    finally:
        os.kill(holder, 9)
        os.waitpid(holder, 0)


def refused_run(folder, text):
    """`zoosim run` of an experiment file with `text` in an otherwise empty `folder` (the working
    directory): asserts exit status 2 and that nothing was written; returns the path and the
    stderr lines."""
    from click.testing import CliRunner

    from simulator.cli import main

    path = folder / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2
    assert sorted(p.name for p in folder.iterdir()) == ["bad.yaml"]
    return path, result.stderr.strip().splitlines()


# Parameters every search policy (games/search.py) refuses, with words the one-line error names:
# (params, words) rows for a game's test_impossible_search_parameters_are_refused.
SEARCH_PARAMETER_REFUSALS = [
    ({"iterations": 0}, ["iterations", "whole number from 1"]),
    ({"iterations": -5}, ["iterations", "whole number from 1"]),
    ({"iterations": 2.5}, ["iterations", "whole number"]),
    ({"exploration": -0.1}, ["exploration", "from 0 to 1,000,000"]),
    ({"exploration": math.nan}, ["exploration", "finite"]),
    ({"rollout_depth": -1}, ["rollout_depth"]),
    ({"rollout": "smart"}, ["rollout", "random, greedy"]),
    ({"rollout": 1}, ["rollout", "random, greedy"]),
    ({"depth": 3}, ["unknown parameter 'depth'"]),
]


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# name -> (source folder, entry point target) of each example plugin under examples/
EXAMPLE_PLUGINS = {
    "feeding": (EXAMPLES / "zoosim-feeding-time", "zoosim_feeding:GAME"),
    "tictactoe": (EXAMPLES / "zoosim-tictactoe", "zoosim_tictactoe:GAME"),
}


@contextlib.contextmanager
def example_plugins_registered():
    """The example plugins, registered from their source folders where they are not installed
    (tests/run-all.sh installs them), so that the tests run on them either way."""
    import sys

    import simulator.games as registry

    added = [name for name in EXAMPLE_PLUGINS if name not in registry.game_names()]
    for name in added:
        folder, target = EXAMPLE_PLUGINS[name]
        sys.path.insert(0, str(folder))
        registry.register_game(name, target)
    try:
        yield
    finally:
        for name in added:
            registry.unregister_game(name)
            sys.path.remove(str(EXAMPLE_PLUGINS[name][0]))


def trace_from_batch(play_batch):
    """A test game's trace(): its one game played by play_batch, as the outcome lines every
    trace ends with (the conformance kit's check_trace)."""
    import numpy as np

    from simulator.games.base import outcome_lines

    def trace(params, seat_policies, seed, rotation):
        columns = play_batch(params, seat_policies, np.array([seed], dtype=np.uint64), np.array([rotation], dtype=np.int8))
        players = seat_policies.players
        names = [seat_policies.names[(seat - rotation) % players] for seat in range(players)]
        return "\n".join(outcome_lines(columns["score"][0], np.flatnonzero(columns["win"][0]).tolist(), names))

    return trace
