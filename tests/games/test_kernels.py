"""The kernel toolkit (simulator/games/kernels.py): numba's private `_nrt=False` still does what
the engines rely on, state by reference, seat rotation, record columns and rule layouts."""

from collections import namedtuple
from typing import Literal

import numpy as np
import pytest
from numba import njit, types
from numba.core.errors import TypingError

from simulator.games.base import knob
from simulator.schema import StrictModel
from simulator.games.kernels import KernelDispatcher, allocating, by_ref, jit_with, kernel, kernel_options, slot_of_seat
from simulator.games.layouts import Choice, Derived, Equals, Flag, Int, RecordColumns, RuleLayout


def _double(values, index):
    return values[index] * 2


def _sum_doubled(values):
    total = 0
    for index in range(values.shape[0]):
        total += double_kernel(values, index)
    return total


# uncached copies with the toolkit's options: numba cannot inspect code loaded from its cache
double_kernel = njit(**kernel_options(cache=False))(_double)
sum_doubled_kernel = njit(**kernel_options(cache=False))(_sum_doubled)
sum_doubled_counted = njit(**kernel_options(allocates=True, cache=False))(_sum_doubled)


def _allocate(n):
    return np.zeros(n)


def _llvm(dispatcher) -> str:
    return "".join(dispatcher.inspect_llvm().values())


def test_kernels_pass_arrays_without_reference_counting():
    """If a numba upgrade ignores `_nrt=False`, every kernel call that passes arrays pays
    atomic reference counts again (the engines' main cost before): this fails first."""
    values = np.arange(5, dtype=np.int64)
    assert sum_doubled_kernel(values) == sum_doubled_counted(values) == 20
    assert "NRT_" in _llvm(sum_doubled_counted)  # the probe sees reference counting ...
    assert "NRT_" not in _llvm(sum_doubled_kernel)  # ... and a kernel has none


def test_a_kernel_cannot_allocate():
    """Without numba's runtime an allocation does not compile: a kernel that allocates fails
    loudly at its first call instead of leaking or crashing."""
    with pytest.raises(TypingError):
        njit(**kernel_options(cache=False))(_allocate)(3)


def _add(value, step):
    return value + step


def _add_constants(value):
    return _add_uncached(value, 1) + _add_uncached(value, 2) + _add_uncached(value, 2.5)


_add_uncached = jit_with(kernel_options(cache=False))(_add)
_add_constants_uncached = jit_with(kernel_options(cache=False))(_add_constants)


def test_a_kernel_called_with_constants_compiles_once_per_type_not_per_value():
    """Issue 21 finding 4: numba compiles a function once per literal it is called with; the
    toolkit's kernels compile once per argument type."""
    assert _add_constants_uncached(1) == 1 + 1 + 1 + 2 + 1 + 2.5
    assert [tuple(str(arg) for arg in signature) for signature in _add_uncached.signatures] == [
        ("int64", "int64"), ("int64", "float64")]


def test_kernels_in_a_game_module_are_compiled_by_the_toolkits_dispatcher():
    from simulator.games.katz import play

    assert isinstance(play.play_one_game, KernelDispatcher) and isinstance(play.play_games, KernelDispatcher)


def _search(workspace, value):
    return workspace[0] + value


def _choose(value, workspace):
    if workspace is not None and value > 0:  # as the engines' choose_for_seat / choose
        return _search_uncached(workspace, value)
    return value


def _play(values, workspace):
    total = 0.0
    for index in range(values.shape[0]):
        total += _choose_uncached(values[index], workspace)
    return total


_search_uncached = jit_with(kernel_options(cache=False))(_search)
_choose_uncached = jit_with(kernel_options(inline=True, cache=False))(_choose)
_play_uncached = jit_with(kernel_options(cache=False))(_play)


def test_a_none_workspace_leaves_the_search_out_of_the_compiled_play_loop():
    """Issue 21 finding 4: the engines pass the search workspace as None when no seat searches,
    and numba prunes the search branch before typing, so the search is never compiled for such a
    run (seen in numba's compile events). A numba upgrade that stops pruning fails here."""
    from numba.core import event

    compiled = []

    class Compiled(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__name__)

        def on_end(self, ev):
            pass

    values = np.arange(3, dtype=np.float64)
    with event.install_listener("numba:compile", Compiled()):
        assert _play_uncached(values, None) == 3.0
        assert compiled == ["_play"]
        assert _play_uncached(values, np.ones(1)) == 0.0 + 2.0 + 3.0
    assert compiled == ["_play", "_play", "_search"]


@pytest.mark.parametrize("name", ["katz", "nyz"])
def test_a_heuristic_seating_plays_kernels_specialised_without_the_search(name):
    import importlib
    import inspect

    from simulator.games import get_game

    game = get_game(name)
    engine = importlib.import_module(f"simulator.games.{name}.play")
    params = game.make_params({"players": 2})
    game.play_batch(params, game.seat_policies([("greedy", {})] * 2), np.arange(2, dtype=np.uint64), np.zeros(2, np.int64))
    position = list(inspect.signature(engine.play_games.py_func).parameters).index("search_workspace")
    assert any(isinstance(signature[position], types.NoneType) for signature in engine.play_games.signatures)



@pytest.mark.parametrize("name", ["katz", "nyz"])
def test_an_unchecked_batch_plays_kernels_specialised_without_the_invariants(name):
    """Issue 21 finding 4: an unchecked batch passes `check` as None, so numba prunes the
    invariants (Katz's find_violation, New York Zoo's check_invariants) out of the play loop it
    compiles; a checked batch compiles the other specialisation."""
    import importlib
    import inspect

    from simulator.games import get_game

    engine = importlib.import_module(f"simulator.games.{name}.play")
    game = get_game(name)
    params, seats = game.make_params({"players": 2}), game.seat_policies([("greedy", {})] * 2)
    position = list(inspect.signature(engine.play_games.py_func).parameters).index("check")
    game.play_batch(params, seats, np.arange(2, dtype=np.uint64), np.zeros(2, np.int64))
    assert any(isinstance(signature[position], types.NoneType) for signature in engine.play_games.signatures)
    checked = game.play_batch(params, seats, np.arange(2, dtype=np.uint64), np.zeros(2, np.int64), check=True)
    assert checked["check_violations"].sum() == 0
    assert any(isinstance(signature[position], types.Boolean) for signature in engine.play_games.signatures)

State = namedtuple("State", ["counts", "weights"])


@kernel
def _weighted(ref, index):
    return ref.counts[index] * ref.weights[index]


@allocating
def _weighted_total(state):
    ref = by_ref(state)
    total = 0.0
    for index in range(state.counts.shape[0]):
        total += _weighted(ref, index)
    return total


def test_by_ref_reads_the_fields_of_the_callers_tuple():
    state = State(np.array([1, 2, 3]), np.array([0.5, 1.0, 2.0]))
    assert _weighted_total(state) == 0.5 + 2.0 + 6.0


def test_slot_of_seat_inverts_the_rotation():
    """Rotation r puts slot j in seat (j + r) % n (base.py)."""
    for players in range(1, 6):
        for rotation in range(players):
            for slot in range(players):
                assert slot_of_seat((slot + rotation) % players, rotation, players) == slot


def test_record_columns_allocate_and_unpack_with_their_dtypes():
    records = RecordColumns(game=("turns", "end_reason"), seat=("score", "win"),
                            kernel_dtype=np.int64, default_dtype=np.int16,
                            dtypes={"end_reason": np.int8, "win": np.bool_})
    game_out, seat_out = records.allocate(3, 2)
    assert game_out.shape == (3, 2) and seat_out.shape == (3, 2, 2)
    game_out[:, 0] = [10, 11, 12]
    seat_out[1, 1, 1] = 1
    columns = records.unpack(game_out, seat_out)
    assert columns["turns"].tolist() == [10, 11, 12] and columns["turns"].dtype == np.int16
    assert columns["end_reason"].dtype == np.int8
    assert columns["win"].dtype == np.bool_ and columns["win"].tolist() == [[False, False],
                                                                          [False, True],
                                                                          [False, False]]


def test_record_columns_first_keep_each_seat_column_in_one_block():
    records = RecordColumns(game=("turns",), seat=("score", "win"), kernel_dtype=np.int64,
                            default_dtype=np.int16, dtypes={"win": np.bool_}, columns_first=True)
    game_out, seat_out = records.allocate(3, 2)
    assert seat_out.shape == (2, 3, 2) and seat_out[1].flags.c_contiguous
    seat_out[1, 1, 1] = 1  # win of game 1, seat 1
    seat_out[0, 2, 0] = 7  # score of game 2, seat 0
    columns = records.unpack(game_out, seat_out)
    assert columns["win"].tolist() == [[False, False], [False, True], [False, False]]
    assert columns["score"].tolist() == [[0, 0], [0, 0], [7, 0]]
    assert records.seat_column(seat_out, 0).tolist() == columns["score"].tolist()


class _Inner(StrictModel):
    limit: int | None = knob(None, "X-2", "a limit", encode=Int("R_LIMIT", none=-1))


class _Knobs(StrictModel):
    players: int = knob(2, "X-1", "players", encode=Int("R_PLAYERS"))
    fast: bool = knob(False, "X-1", "fast", encode=Flag("R_FAST"))
    mode: Literal["plain", "odd", "wild"] = knob("plain", "X-3", "mode",
                                                 encode=Choice("R_MODE", prefix="MODE_"))
    supply: Literal["open", "closed"] = knob("open", "X-4", "supply",
                                             encode=Equals("R_CLOSED", value="closed"))
    inner: _Inner = knob(_Inner(), "X-2", "nested group")
    note: str = knob("", "X-5", "not in the rule array")


def _layout() -> RuleLayout:
    return RuleLayout(_Knobs, dtype=np.int32, derived=(
        Derived("R_SEATS", lambda p: [10 + seat for seat in range(p.players)], width=4),
        Derived("R_DOUBLE", lambda p: 2 * p.players),
    ))


def test_rule_layout_numbers_knobs_in_declaration_order_then_derived_entries():
    layout = _layout()
    assert layout.constants() == {
        "R_PLAYERS": 0, "R_FAST": 1, "R_MODE": 2, "R_CLOSED": 3, "R_LIMIT": 4, "R_SEATS": 5,
        "R_DOUBLE": 9, "MODE_PLAIN": 0, "MODE_ODD": 1, "MODE_WILD": 2,
    }
    assert layout.size == 10


def test_rule_layout_fills_the_array_from_params():
    layout = _layout()
    params = _Knobs(players=3, fast=True, mode="wild", supply="closed", inner=_Inner(limit=7))
    array = layout.array(params, tail=[5, 6])
    assert array.dtype == np.int32
    assert array.tolist() == [3, 1, 2, 1, 7, 10, 11, 12, 0, 6, 5, 6]
    assert layout.array(_Knobs()).tolist()[:5] == [2, 0, 0, 0, -1]


def test_rule_layout_rejects_an_index_declared_twice():
    with pytest.raises(ValueError, match="R_PLAYERS"):
        RuleLayout(_Knobs, derived=(Derived("R_PLAYERS", lambda p: 0),))


def test_rule_layout_rejects_a_derived_entry_wider_than_declared():
    layout = RuleLayout(_Knobs, derived=(Derived("R_SEATS", lambda p: [1] * 3, width=2),))
    with pytest.raises(ValueError, match="R_SEATS"):
        layout.array(_Knobs())


def test_randint_at_is_the_draw_randint_makes_at_that_call():
    """rng.randint_at(seed, k, n) is what randint(new_state(seed), n) draws at its k-th call
    (the seat orders' stream, New York Zoo turn_order, reads draws by index)."""
    from simulator.games import rng

    for seed, n in ((np.uint64(7), 2), (np.uint64(2**63 + 12345), 5), (np.uint64(0), 97)):
        state = rng.new_state(seed)
        drawn = [rng.randint(state, n) for _ in range(40)]
        assert drawn == [rng.randint_at(seed, index, n) for index in range(1, 41)]
        assert len(set(drawn)) > 1
