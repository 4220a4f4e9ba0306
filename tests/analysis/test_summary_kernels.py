"""The chunk summary's numba kernels (analysis/summary_kernels.py, issue #25) give bit for bit the
summary numpy gave before (summary_reference.py): every summary field of the same chunks, for
both games, a plugin, the test game without and with seat rotation, mixed seatings, and float,
negative and wide columns; and numpy's own float sum order at every length."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from simulator.analysis import summary_kernels
from simulator.analysis.summary import SEAT_FIELDS, summarize_columns
from simulator.games import get_game
from simulator.logs import record_columns
from summary_reference import numpy_summary

# game, players, seats, games, rotate; game counts reach past numpy's pairwise blocks (128 deals)
CASES = {
    "katz-4p-random": ("katz", 4, ["random"] * 4, 1200, True),
    "katz-3p-mixed": ("katz", 3, ["greedy", "random", "random"], 600, True),
    "nyz-2p-mixed": ("nyz", 2, ["greedy", "random"], 300, True),
    "feeding-plugin": ("feeding", 3, None, 900, True),
    "coin-unrotated": ("coin", 3, None, 1001, False),
}


def chunk_records(game_name: str, players: int, seats, games: int, rotate: bool) -> dict[str, np.ndarray]:
    game = get_game(game_name)
    params = game.make_params({"players": players})
    seat_policies = game.seat_policies([(name, {}) for name in seats or [game.default_policy] * players])
    seeds = np.random.SeedSequence(11).generate_state(games, dtype=np.uint64)
    rotations = (np.arange(games) % players if rotate else np.zeros(games)).astype(np.int8)
    columns = game.play_batch(params, seat_policies, seeds, rotations)
    return record_columns(columns, first_game=0, games_per_deal=players if rotate else 1, seeds=seeds,
                          rotations=rotations)


def assert_same_summaries(records: dict[str, np.ndarray], players: int, mixed: bool, games_per_deal: int) -> None:
    new = summarize_columns(records, players, mixed, games_per_deal).to_json()
    old = numpy_summary(records, players, mixed, games_per_deal).to_json()
    assert new.keys() == old.keys()
    for key in old:  # exact equality of every number, key by key for a readable failure
        assert new[key] == old[key], key


@pytest.mark.parametrize("case", CASES)
def test_the_kernels_give_numpys_summary_bit_for_bit(case):
    game_name, players, seats, games, rotate = CASES[case]
    records = chunk_records(game_name, players, seats, games, rotate)
    mixed = seats is not None and len(set(seats)) > 1
    assert_same_summaries(records, players, mixed, players if rotate else 1)


def test_float_negative_and_wide_columns_and_float_scores():
    """Columns a plugin may add: floats (no histogram), negative and wide integers (no
    histogram either), fractional scores (margins and deal means that do not add up exactly)."""
    records = chunk_records("coin", 4, None, 1040, True)
    rng = np.random.default_rng(5)
    games = len(records["turns"])
    records["heat"] = rng.standard_normal(games) * 1e3
    records["debt"] = rng.integers(-5, 5, games).astype(np.int32)
    records["wide"] = rng.integers(0, 50_000, games).astype(np.int64)
    for seat in range(4):
        records[f"score_{seat}"] = records[f"score_{seat}"] + rng.random(games) / 3
        records[f"tempo_{seat}"] = rng.random(games).astype(np.float32)
        records[f"flag_{seat}"] = rng.random(games) < 0.3
    assert_same_summaries(records, 4, False, 4)
    summary = summarize_columns(records, 4, False, 4)
    assert summary.histograms["heat"] is None and summary.histograms["debt"] is None
    assert summary.histograms["wide"] is None and summary.histograms["flag"] is not None


def test_a_chunk_without_the_turn_order_columns_and_an_empty_one():
    records = chunk_records("coin", 3, None, 300, True)
    old_records = {name: values for name, values in records.items() if name not in ("last_mover", "ender")}
    assert_same_summaries(old_records, 3, False, 3)
    assert not summarize_columns(old_records, 3, False, 3).turn_order_kept
    empty = {name: values[:0] for name, values in records.items()}
    assert_same_summaries(empty, 3, False, 3)


def test_pairwise_sum_is_numpys_at_every_length():
    rng = np.random.default_rng(2)
    for length in [*range(0, 300), 1023, 1024, 1025, 4099, 50_000]:
        values = rng.standard_normal(length) * 10.0 ** rng.integers(-3, 6)
        assert summary_kernels._sum(values) == values.sum(), length


def test_the_seat_sums_are_one_row_per_seat_field():
    assert summary_kernels.SEAT_SUM_ROWS == len(SEAT_FIELDS)


# In a fresh interpreter (a process that summarized real chunks already would pass vacuously):
# the signatures the made-up chunk compiles, then any the real chunks of both games add.
SUMMARIES_THEN_REAL_CHUNKS = """
import numpy as np
from simulator.analysis import summary_kernels
from simulator.analysis.summary import compile_summary_kernels, summarize_columns
from simulator.games import get_game
from simulator.logs import record_columns

def signatures():
    return {name: set(map(str, kernel.signatures)) for name, kernel in vars(summary_kernels).items()
            if hasattr(kernel, "signatures")}

compile_summary_kernels()
compiled = signatures()
for name in ("katz", "nyz"):
    game = get_game(name)
    for seats in (["greedy", "greedy"], ["greedy", "random"]):
        seeds, rotations = np.arange(4, dtype=np.uint64), np.array([0, 1, 0, 1], dtype=np.int8)
        columns = game.play_batch(game.make_params({"players": 2}), game.seat_policies([(s, {}) for s in seats]),
                                  seeds, rotations)
        records = record_columns(columns, first_game=0, games_per_deal=2, seeds=seeds, rotations=rotations)
        summarize_columns(records, 2, len(set(seats)) > 1, 2)
print({name: sorted(new - compiled[name]) for name, new in signatures().items() if new - compiled[name]})
print(" ".join(name for name, compiled_signatures in sorted(compiled.items()) if compiled_signatures))
"""


def test_the_runs_summary_warm_up_compiles_every_kernel_signature_the_games_chunks_need():
    """Issue 21 (at most 60 s of compiling per game): the run's warm-up compiles the chunk
    summaries' kernels once, from a made-up chunk (summary.compile_summary_kernels), instead of
    in every game's warm-up process; the real chunks of both games then call no kernel with
    argument types it did not compile (else every worker would compile them again)."""
    result = subprocess.run([sys.executable, "-c", SUMMARIES_THEN_REAL_CHUNKS], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    added, compiled = result.stdout.splitlines()
    assert added == "{}"
    # the kernels summarize_columns calls (those they call are linked into them, and gain a
    # signature of their own only where they compiled in this process)
    assert {"seat_statistics", "integer_column_moments", "turn_order_moments"} <= set(compiled.split())
