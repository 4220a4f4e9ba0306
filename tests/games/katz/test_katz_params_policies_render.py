"""Params validation and knob table (K-9), the game-module contract, policies (K-8.3: no
peeking; greedy and expectimax beat random) and text rendering / traces."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from katz_helpers import make_params, seeds, state_from_text
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import params_hash
from simulator.games.katz import GAME, play, render, step_api
from simulator.games.katz import state as S
from simulator.games.katz.moves import card_table
from simulator.games.katz.params import RULES_VERSION, rule_array

# ---- params --------------------------------------------------------------------------------------


def test_defaults_are_the_spec_defaults():
    params = make_params()
    assert params.preset == "spec" and params.edition == "amigo"
    assert params.players == 4 and params.hand_size == 7
    assert params.grid_rows == 4 and params.keepers == 8 and params.rounds == 1
    assert params.blocked_cell_rule == "line_completion" and params.blocked_cell_optional
    assert params.extra_turn_values == [7] and params.skip_values == [1]
    assert params.value_effects_on.model_dump() == {"place": True, "replace": True, "covered": True}
    assert params.deck.size == 56
    assert params.line_completion_needs_no_fit and not params.lost_extra_turn_in_pass_streak
    assert params.seat_bonus_points == [0] * 5 and params.seat_hand_size_delta == [0] * 5
    assert params.first_turn_limit == "none"
    assert RULES_VERSION == 1 and GAME.rules_version == 1


def test_editions_play_identical_rules():
    """K-9.1: the three editions differ only in name."""
    hashes = {params_hash(GAME.make_params({"edition": e}).model_copy(update={"edition": "amigo"}), 1)
              for e in ("amigo", "zoo_party", "7_safari")}
    assert len(hashes) == 1
    assert np.array_equal(rule_array(GAME.make_params({"edition": "7_safari"})), rule_array(make_params()))


def test_presets_set_knob_groups_that_single_knobs_override():
    """K-9.2: `spec` is the defaults; `seed_summary` the Dutch summary's readings (K-3.3.5);
    knobs given alongside a preset override it; an unknown preset names the allowed ones."""
    assert GAME.make_params({"preset": "spec"}) == make_params()
    summary = GAME.make_params({"preset": "seed_summary", "players": 3})
    assert summary.preset == "seed_summary" and summary.players == 3
    assert summary.line_completion_needs_no_fit is False
    assert summary.blocked_cell_rule == "line_completion"
    overridden = GAME.make_params({"preset": "seed_summary", "line_completion_needs_no_fit": True})
    assert overridden.line_completion_needs_no_fit is True
    with pytest.raises(ZoosimError, match="unknown preset 'amigo' \\(allowed: spec, seed_summary\\)"):
        GAME.make_params({"preset": "amigo"})


@pytest.mark.parametrize(
    "knobs, message",
    [
        ({"players": 6}, "players must be 2..5"),
        ({"players": 5, "hand_size": 12}, "deck of 56 cards cannot deal 5 hands of 12 and one row of 7"),
        ({"grid": {"rows": 6}}, "cannot deal 4 hands of 7 and 6 rows of 7"),
        ({"extra_turn_values": [8]}, "extra_turn_values [8] are not card values"),
        ({"extra_turn_values": [1]}, "cannot both earn an extra turn and cost a turn"),
        ({"deck": {"zoo_kinds": ["lion", "lion"]}}, "distinct"),
        ({"deck": {"values": [1, 1, 2]}}, "distinct"),
        ({"blocked_cell_rule": "sometimes"}, "line_completion"),
        ({"tie_break": "coin"}, "later_seat"),
        ({"playerz": 3}, "did you mean 'players'"),
        ({"deck.copies": 2}, "unknown key 'copies' (allowed: copies_per_card"),
        ({"take_from": "top_left"}, "any_face_down"),
        ({"rounds": 0}, "greater than or equal to 1"),
        ({"edition": "rio"}, "7_safari"),
        ({"line_completion_needs_no_fit": "maybe"}, "valid boolean"),
        ({"lost_extra_turn_in_pass_streak": 2}, "valid boolean"),
        ({"first_turn_limit": "skip"}, "return_drawn_card"),
        ({"seat_bonus_points": [0, 0.25]}, "seat_bonus_points[1] must be a whole or half number"),
        ({"seat_bonus_points": [0, 101]}, "in -100..100"),
        ({"seat_bonus_points": 2}, "valid list"),
        ({"seat_bonus_points": [0] * 17}, "at most 16 items"),
        ({"seat_hand_size_delta": [0, 0, -8]}, "leaves seat 2 a hand of -1 cards"),
        ({"seat_hand_size_delta": [0, 1.5]}, "valid integer"),
        ({"players": 5, "seat_hand_size_delta": [0, 0, 0, 0, 15]},
         "cannot deal hands of [7, 7, 7, 7, 22] (seat 0 first) and one row of 7"),
        ({"players": 2, "grid": {"rows": 6}, "seat_hand_size_delta": [0, 1]},
         "cannot deal hands of [7, 8] (seat 0 first) and 6 rows of 7"),
    ],
)
def test_unplayable_or_unknown_configurations_are_rejected(knobs, message):
    with pytest.raises(ZoosimError) as error:
        GAME.make_params(knobs)
    assert message in str(error.value)


def test_dotted_knobs_and_custom_grid():
    params = GAME.make_params({"value_effects_on.replace": False, "grid.rows": 2, "players": 3})
    assert params.value_effects_on.replace is False and params.grid_rows == 2
    rules = rule_array(params)
    assert rules[S.P_CELLS] == 14 and rules[S.P_EFFECTS_ON_REPLACE] == 0
    state = step_api.new_game(params, seed=1)
    assert state.scalars[S.S_SET_ASIDE] == 56 - 21 - 14  # K-2.3 leftover set aside


def test_knob_table_documents_every_knob_with_a_rule_id():
    knobs = {knob.name: knob for knob in GAME.knobs()}
    for name in ("players", "hand_size", "deck.zoo_kinds", "deck.copies_per_card", "grid.rows",
                 "keepers", "blocked_cell_rule", "value_effects_on.covered",
                 "scoring.other_of_kind_penalty", "tie_break", "rounds", "end_timing"):
        assert name in knobs
    assert all(knob.rule.startswith("K-") and knob.description for knob in knobs.values())
    assert knobs["blocked_cell_rule"].default == '"line_completion"'
    seed_text = (__import__("pathlib").Path(__file__).parents[3] / "seeds" / "alles-fuer-die-katz.md").read_text()
    for knob in knobs.values():
        assert knob.rule in seed_text, f"{knob.name} cites {knob.rule}, which seeds/ does not define"


def test_card_table_layout():
    table = card_table(make_params())
    card = render.parse_card(make_params(), "Pd3")
    assert card == 6 * 7 + 2
    assert table[card, S.CARD_KIND] == 6 and table[card, S.CARD_VALUE] == 3
    cat7 = render.parse_card(make_params(), "Ca7")
    assert table[cat7, S.CARD_IS_PENALTY] == 1 and table[cat7, S.CARD_EXTRA_TURN] == 1
    with pytest.raises(ValueError, match="no card 'Xx3'"):
        render.parse_card(make_params(), "Xx3")


def test_game_contract():
    assert get_game("katz") is GAME
    columns = GAME.play_batch(make_params(players=3), GAME.seat_policies([("greedy", {})] * 3),
                              seeds(20), np.zeros(20, np.int8))
    assert columns["win"].dtype == np.bool_ and columns["end_reason"].dtype == np.int8
    assert columns["score"].shape == (20, 3)
    with pytest.raises(ZoosimError, match="unknown parameter 'greed'"):
        GAME.seat_policies([("greedy", {"greed": 1.0})])
    with pytest.raises(ValueError, match="seat policies for 3 players"):
        GAME.play_batch(make_params(players=3), GAME.seat_policies([("greedy", {})] * 2),
                        seeds(2), np.zeros(2, np.int8))


# ---- policies ------------------------------------------------------------------------------------


def clone(state):
    return dataclasses.replace(state, game=tuple(a.copy() for a in state.game), rng=state.rng.copy())


def scramble_hidden(state, rng: np.random.Generator, keep_seat: int):
    """Shuffle everything the seat cannot see: face-down cards, set-aside cards and other hands."""
    cells = state.cells.shape[1]
    face_down = [c for c in range(cells) if state.cells[S.CELL_STATE, c] == S.FACE_DOWN]
    pool = [int(state.hidden[c]) for c in face_down]
    set_aside = int(state.scalars[S.S_SET_ASIDE])
    pool += state.hidden[cells:cells + set_aside].tolist()
    others = [seat for seat in range(state.params.players) if seat != keep_seat]
    for seat in others:
        pool += state.hand(seat)
    pool = list(rng.permutation(pool))
    for c in face_down:
        state.hidden[c] = pool.pop()
    for index in range(set_aside):
        state.hidden[cells + index] = pool.pop()
    for seat in others:
        length = int(state.seats[seat, S.SEAT_HAND_LEN])
        state.hands[seat, :length] = [pool.pop() for _ in range(length)]
    assert not pool


@pytest.mark.parametrize("policy, policy_params", [
    ("greedy", {}), ("expectimax", {}), ("random", {}), ("ismcts", {"iterations": 40}),
    ("learned", {}), ("learned", {"temperature": 1.0}), ("strong", {"iterations": 12}),
])
def test_policies_never_peek(policy, policy_params):
    """K-8.3: changing what a seat cannot see (face-down identities, other hands) never changes
    its choice, at every decision of several games."""
    rng = np.random.default_rng(0)

    def scrambled(blind, deciding_seat):
        scramble_hidden(blind, rng, keep_seat=deciding_seat)

    assert decisions_blind_to(make_params(players=3), policy, policy_params, scrambled, games=6) > 100


def decisions_blind_to(params, policy, policy_params, change, games: int) -> int:
    """Plays `games` games of `policy` in every seat and asserts that at every decision the
    choice stays the same, twice, after `change(copy of the state, deciding seat)` altered what
    the seat must not see; returns the decisions checked."""
    seating = GAME.seat_policies([(policy, policy_params)] * params.players)
    decisions = 0
    for seed in range(games):
        state = step_api.new_game(params, seating, seed=seed)
        while not step_api.is_over(state):
            choice = step_api.policy_move(clone(state))
            for _ in range(2):
                blind = clone(state)
                change(blind, state.seat)
                assert step_api.policy_move(blind) == choice
            step_api.apply(state, step_api.policy_move(state))
            decisions += 1
    return decisions


@pytest.mark.parametrize("policy, policy_params", [
    ("ismcts", {"iterations": 40}), ("strong", {"iterations": 12}),
])
def test_search_never_peeks_at_future_round_orders(policy, policy_params):
    """K-3.6.2 and K-8.3: with `turn_order: random_each_round` the later rounds' seat orders
    are unknown to every seat (only the current round's is public), so changing the deal's
    order stream never changes a search player's choice: its determinizations redraw them."""
    rng = np.random.default_rng(2)

    def other_future_orders(blind, deciding_seat):
        blind.scalars[S.S_ORDER_STREAM] = rng.integers(-2**63, 2**63 - 1)

    params = make_params(players=3, turn_order="random_each_round")
    assert decisions_blind_to(params, policy, policy_params, other_future_orders, games=4) > 60


def seat_results(names, games, players=4, **knobs):
    """Mean score and win rate per policy name, every deal played in every rotation."""
    params = make_params(players=players, **knobs)
    seating = GAME.seat_policies([(name, {}) for name in names])
    game_seeds = np.repeat(seeds(games, 5000), players)
    rotations = np.tile(np.arange(players), games).astype(np.int8)
    columns = play.play_batch(params, seating, game_seeds, rotations)
    results = {}
    for name in set(names):
        score, win = [], []
        for slot, slot_name in enumerate(names):
            if slot_name == name:
                seats_of_slot = (slot + rotations) % players
                score.append(columns["score"][np.arange(len(rotations)), seats_of_slot])
                win.append(columns["win"][np.arange(len(rotations)), seats_of_slot])
        results[name] = (np.concatenate(score).mean(), np.concatenate(win).mean())
    return results


def test_greedy_beats_random_in_mixed_seatings():
    results = seat_results(["greedy", "random", "greedy", "random"], games=1000)
    greedy_score, greedy_wins = results["greedy"]
    random_score, random_wins = results["random"]
    assert greedy_score > random_score + 5
    assert greedy_wins > 2 * random_wins


def test_expectimax_beats_random_in_mixed_seatings():
    results = seat_results(["expectimax", "random", "expectimax", "random"], games=300)
    assert results["expectimax"][0] > results["random"][0] + 5
    assert results["expectimax"][1] > 2 * results["random"][1]


def test_policy_parameters_change_play():
    """greedy's extra_turn_value steers it: a huge value makes it play sevens whenever it can."""
    params = make_params(players=4)
    plain = GAME.seat_policies([("greedy", {})] * 4)
    eager = GAME.seat_policies([("greedy", {"extra_turn_value": 100.0})] * 4)
    zeros = np.zeros(500, np.int8)
    assert (play.play_batch(params, eager, seeds(500), zeros)["extra_turns"].mean()
            > play.play_batch(params, plain, seeds(500), zeros)["extra_turns"].mean())


# ---- render --------------------------------------------------------------------------------------


def test_grid_text_round_trip():
    grid = """
    r0: Gi5 El2 __  ##  ##  ##  ##
    r1: ZK  ##  ##  Ca3 ##  ##  ##
    r2: ##  ZK/Ca7  Mo4 ##  ##  ##  ##
    """
    state = state_from_text(make_params(players=5), grid, ["Pe6", "", "", "", ""])
    lines = render.grid_text(state).splitlines()[1:]
    assert [line.split()[1:] for line in lines] == [
        "Gi5 El2 __ ## ## ## ##".split(), "ZK ## ## Ca3 ## ## ##".split(), "## ZK/Ca7 Mo4 ## ## ## ##".split()]
    text = render.render_state(state)
    assert "supply 6" in text and "seat 0 (greedy), score 6: Pe6" in text


def test_trace_is_reproducible_and_complete():
    params = make_params(players=3)
    seating = GAME.seat_policies([("greedy", {}), ("random", {}), ("expectimax", {})])
    text = GAME.trace(params, seating, 17, 1)
    assert text == GAME.trace(params, seating, 17, 1)
    assert text != GAME.trace(params, seating, 18, 1)
    assert "seat 1 (greedy)" in text and "seat 0 (expectimax)" in text  # rotation 1
    assert "deal over:" in text and "final scores:" in text and "winners:" in text
    record = GAME.play_batch(params, seating, np.array([17], np.uint64), np.array([1], np.int8))
    final = text.split("final scores: ")[1].splitlines()[0]
    assert final == ", ".join(f"seat {s} {int(v)}" for s, v in enumerate(record["score"][0]))
    assert text.count(" draws at ") == int(record["draws"][0])
