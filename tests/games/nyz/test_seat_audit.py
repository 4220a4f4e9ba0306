"""Seat audit: every seat starts as the specification prescribes, and seat order, end and
tie-break are accounted as specified (seat-bias study of 2-5 players).

The expected values are copied from shared/rules/new-york-zoo.md (spec §2 table and
Appendix A, §3.4 setup, §4 turn order, §7 end), not read from components.py, so a change of the
component data or of the setup code that moves a board, house or starting animal to another seat
fails here.
Seat 0 here = spec "seat 1" = the start player (seeds N-2.3).
"""

import numpy as np
import pytest

from simulator import logs
from simulator.games.nyz import GAME, render, step_api
from simulator.games.nyz import components as comp
from simulator.games.nyz import state as S

MF, MK, FK = ("meerkat", "flamingo"), ("meerkat", "kangaroo"), ("flamingo", "kangaroo")

# spec §2 / Appendix A, per seat from the start player on:
# (grid width, height, barn row widths, houses, starting animals, squares to fill)
SPEC_SEATS = {
    2: [
        (14, 9, [4, 4, 4, 4, 3], 3, MF, 107),
        (14, 9, [5, 4, 4, 4, 4], 3, MK, 105),
    ],
    3: [
        (11, 9, [4, 4, 4, 3, 3], 2, MF, 81),
        (11, 9, [4, 4, 4, 4, 3], 3, MF, 80),
        (11, 9, [5, 4, 4, 4, 4], 3, MK, 78),
    ],
    4: [
        (9, 9, [4, 4, 4, 3, 3], 2, MF, 63),
        (9, 9, [4, 4, 4, 4, 3], 3, MF, 62),
        (9, 9, [5, 4, 4, 4, 4], 3, MK, 60),
        (9, 9, [5, 5, 4, 4, 4], 4, MK, 59),
    ],
    5: [
        (8, 9, [4, 4, 4, 3, 3], 2, MF, 54),
        (8, 9, [4, 4, 4, 4, 3], 3, MF, 53),
        (8, 9, [5, 4, 4, 4, 4], 3, MK, 51),
        (8, 9, [5, 5, 4, 4, 4], 4, MK, 50),
        (8, 9, [5, 5, 5, 4, 4], 4, FK, 49),
    ],
}
PLAYERS = sorted(SPEC_SEATS)


def mixed_seating(players):
    return GAME.seat_policies(
        [(("greedy", "random", "greedy_breeder")[j % 3], {}) for j in range(players)]
    )


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("rotation", [0, 1])
def test_each_seat_starts_with_the_spec_board_houses_and_animals(players, rotation):
    """Spec §2 table, §3.4 steps 1-3 (N-2.1, N-2.2, N-2.3): seat k gets board "seat k+1"
    (grid, barn, squares to fill, houses, the two starting animals in houses, no enclosure),
    whatever the seed and whichever policy slot the rotation puts there."""
    params = GAME.make_params({"players": players})
    for seed in (1, 12345):
        pos = step_api.new_game(params, mixed_seating(players), seed=seed, rotation=rotation,
                              check=True)
        st, tab = pos.state, pos.tables
        for seat, (width, height, barn, houses, animals, to_fill) in enumerate(
                SPEC_SEATS[players]):
            where = f"{players}p seat {seat} (spec seat {seat + 1})"
            assert (int(tab.width[seat]), int(tab.height[seat])) == (width, height), where
            # barn: left-aligned runs in the top rows, nothing below (spec §2 pictures)
            runs = [barn[r] if r < len(barn) else 0 for r in range(height)]
            for r in range(height):
                row = [int(st.cells[seat, r * width + c]) for c in range(width)]
                assert row == [S.CELL_BARN] * runs[r] + [S.CELL_EMPTY] * (width - runs[r]), (
                    f"{where} row {r}")
            assert -step_api.scores(pos)[seat] == to_fill, where
            assert int(tab.to_fill[seat]) == to_fill, where
            assert st.seat[seat, S.P_HOUSES] == houses, where
            held = [int(h) for h in st.house[seat, :houses]]
            assert sorted(comp.SPECIES[h] for h in held if h != S.NO_SPECIES) == sorted(animals)
            assert held.count(S.NO_SPECIES) == houses - 2, where  # 2-house boards: none free
            assert (st.house[seat, houses:] == S.NO_SPECIES).all(), where
            assert st.seat[seat, S.P_ENCLOSURES] == 0, where
            header, *grid = render.render_board(pos, seat).splitlines()[: height + 1]
            assert header == f"seat {seat}: {to_fill} empty squares"
            assert [line.strip() for line in grid] == [
                "#" * runs[r] + "." * (width - runs[r]) for r in range(height)]


@pytest.mark.parametrize("players", PLAYERS)
def test_start_player_is_seat_zero_and_turns_go_round(players):
    """Spec §3.4 steps 1 and 4, §4 (N-3.1, N-4): the elephant starts on space 10, seat 0 (the
    seat-1 board) moves first, then seats 1..n-1 in order, round after round."""
    params = GAME.make_params({"players": players})
    seating = GAME.seat_policies([("greedy", {})] * players)
    pos = step_api.new_game(params, seating, seed=3, check=True)
    assert pos.scalar(S.SC_ELEPHANT) == comp.START_SPACE == 10
    assert pos.scalar(S.SC_ACTIVE) == 0 and pos.scalar(S.SC_TURNS) == 1
    assert pos.decision == S.D_DEST and pos.decider == 0
    movers = []
    while not step_api.is_over(pos) and len(movers) < 3 * players:
        if pos.decision == S.D_DEST:
            assert pos.decider == pos.scalar(S.SC_ACTIVE)
            assert pos.scalar(S.SC_TURNS) == len(movers) + 1
            movers.append(pos.decider)
        step_api.apply(pos, step_api.policy_move(pos))
    assert movers == [i % players for i in range(3 * players)]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_end_and_tie_break_accounting(players, policy):
    """Spec §7, E14, E15 (N-7.1, N-7.2): a board completed in the main action ends the game at
    once, so the active seat (the last to move) is then the only complete board and the sole
    winner; otherwise the winners are the complete boards with the most animals (houses +
    enclosures). No game of the default rules hits the safety cap or gets stuck."""
    params = GAME.make_params({"players": players})
    games = 150
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    c = GAME.play_batch(params, GAME.seat_policies([(policy, {})] * players), seeds,
                        np.zeros(games, np.int8), check=True)
    assert (c["check_violations"] == 0).all()
    reason = c["end_reason"]
    assert set(np.unique(reason)) <= {S.END_COMPLETE_ACTION, S.END_COMPLETE_BREEDING}
    complete = c["empty_squares"] == 0
    animals = c["animals"].astype(int)
    best = np.where(complete, animals, -1).max(axis=1)
    assert (c["win"] == (complete & (animals == best[:, None]))).all()
    assert (c["win"].sum(axis=1) >= 1).all()
    in_action = reason == S.END_COMPLETE_ACTION
    last_mover = (c["turns"].astype(int) - 1) % players
    assert (complete[in_action].sum(axis=1) == 1).all()
    assert c["win"][in_action, last_mover[in_action]].all()
    assert (c["rounds"] == (c["turns"].astype(int) + players - 1) // players).all()


@pytest.mark.parametrize("players", PLAYERS)
def test_boards_stay_with_seats_in_records(players):
    """Records (seeds N-7 'Records', logs.py): boards belong to seats, so with one policy in every
    seat a rotation changes nothing, and the record's per-seat columns are the engine's seat s
    with slot_s = (s - rotation) mod n."""
    params = GAME.make_params({"players": players})
    deals = 40
    seeds = np.repeat(np.arange(1, deals + 1, dtype=np.uint64), players)
    rotations = np.tile(np.arange(players, dtype=np.int8), deals)
    c = GAME.play_batch(params, GAME.seat_policies([("greedy", {})] * players), seeds, rotations)
    for name, values in c.items():
        per_deal = values.reshape(deals, players, *values.shape[1:])
        assert (per_deal == per_deal[:, :1]).all(), name
    table = logs.records_table(logs.record_columns(c, cell_index=0, first_game=0, games_per_deal=players,
                                                   seeds=seeds, rotations=rotations)).to_pydict()
    for seat in range(players):
        assert (np.array(table[f"slot_{seat}"]) == (seat - rotations) % players).all()
        assert (np.array(table[f"win_{seat}"]) == c["win"][:, seat]).all()
        assert (np.array(table[f"empty_squares_{seat}"]) == c["empty_squares"][:, seat]).all()
