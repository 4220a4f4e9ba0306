"""The engine checked move by move against an independent reference model (reference_model.py,
written from the rules spec and seeds/alles-fuer-die-katz.md only), in the style of OpenSpiel's
"two implementations checked against each other".

For every game the engine deals (`new_game`); the model takes the deal (hands, the card under
each face-down cell, the start seat) and nothing else from the engine. Then, at every decision:
the legal move sets are compared, one move is picked uniformly at random (numpy Generator seeded
per game) and applied to both, and the resulting states are compared: cells (with the cards
still face down), hands, supply, seat to decide, phase and gap, pending skips, the extra-turn
flag; at the end also the end reason, scores and winners. A mismatch fails with the seed, the
step, both positions and the differing sets.

A second test replays games chosen by the engine's own policies through the step API
(`policy_move` + `apply`, mirrored by the model) and compares them with `play_batch` for the
same seeds and rotations.

Scripted positions of the spec (§7: T2-T8, T12-T14, T16) check the model against the spec's
stated answers and then the engine against the model on every line of play from them.
"""

from __future__ import annotations

import numpy as np
import pytest

from katz_helpers import make_move, make_params, state_from_text
from reference_model import GAP as M_GAP
from reference_model import KEEPER as M_KEEPER
from reference_model import KEEPER_OVER as M_KEEPER_OVER
from reference_model import FACE_DOWN as M_FACE_DOWN
from reference_model import FACE_UP as M_FACE_UP
from reference_model import NEED_DEAL, SEAT_COUNTS, SPLITMIX_GAMMA, SPLITMIX_MASK, Deal, Model, Rules
from simulator.games.katz import GAME, play, render, step_api
from simulator.games.katz import state as S

PLAYER_COUNTS = (2, 3, 4, 5)

SMALL = {"deck": {"zoo_kinds": ["giraffe", "elephant", "monkey", "lion"], "penalty_kinds": ["cat"],
                  "values": [1, 2, 7]},
         "hand_size": 2, "grid": {"cols": 3}}
SMALL_TWO_PENALTY = {**SMALL, "deck": {**SMALL["deck"], "penalty_kinds": ["cat", "rat"]}}

# (id, knobs). The first group is the brief's list; the second exercises further knobs the
# model reads (none of them is needed for the defaults).
VARIANTS = [
    ("defaults", {}),
    ("dead_cell", {"blocked_cell_rule": "dead_cell"}),
    ("either", {"blocked_cell_rule": "either"}),
    ("off", {"blocked_cell_rule": "off"}),
    ("line_completion_compulsory", {"blocked_cell_optional": False}),
    ("either_compulsory", {"blocked_cell_rule": "either", "blocked_cell_optional": False}),
    ("dead_cell_compulsory", {"blocked_cell_rule": "dead_cell", "blocked_cell_optional": False}),
    ("covered_block", {"covered_cards_block": True}),
    ("covered_block_either", {"covered_cards_block": True, "blocked_cell_rule": "either"}),
    ("cats_do_not_block", {"penalty_kind_blocks": False}),
    ("cats_do_not_block_either", {"penalty_kind_blocks": False, "blocked_cell_rule": "either"}),
    ("effects_not_on_place", {"value_effects_on": {"place": False}}),
    ("effects_not_on_replace", {"value_effects_on": {"replace": False}}),
    ("effects_not_on_covered", {"value_effects_on": {"covered": False}, "blocked_cell_rule": "either"}),
    ("no_chain", {"chain_extra_turns": False}),
    ("tie_fewest_hand_cards", {"tie_break": "fewest_hand_cards"}),
    ("tie_fewest_cats", {"tie_break": "fewest_cats"}),
    ("tie_later_seat", {"tie_break": "later_seat"}),
    ("keepers_3", {"keepers": 3}),
    ("keepers_1", {"keepers": 1}),
    ("keepers_unlimited", {"keepers": None}),
    # further knobs
    ("later_seat_random_first", {"tie_break": "later_seat", "first_player": "random"}),
    ("keepers_do_not_fill_lines", {"line_complete_counts_keepers": False, "blocked_cell_rule": "either"}),
    ("keeper_allowed_while_fit", {"must_place_if_able": False}),
    ("pass_allowed", {"allow_pass": True}),
    ("no_replacement", {"allow_keeper_replacement": False}),
    ("scoring_soft", {"scoring": {"other_of_kind_penalty": "zero", "penalty_kind_card": "minus_one"}}),
    ("scoring_minus_one", {"scoring": {"other_of_kind_penalty": "minus_one"}}),
    ("effect_values", {"extra_turn_values": [6, 7], "skip_values": [1, 2]}),
    ("no_face_down_end_off", {"end_when_no_face_down": False, "keepers": 4}),
    ("no_end_but_progress", {"end_when_no_face_down": False, "keepers": None}),
    ("complete_round", {"end_timing": "complete_round"}),
    ("complete_round_random_first", {"end_timing": "complete_round", "first_player": "random",
                                     "keepers": 3}),
    ("rounds_3", {"rounds": 3, "tie_break": "fewest_cats", "first_player": "random"}),
    # a small deck (5 kinds x values 1, 2, 7; hands of 2; 3 columns; cards set aside): other
    # geometry, frequent ties for the tie-breaks, and two penalty kinds in the last two
    ("small_shared", SMALL),
    ("small_fewest_hand_cards", {**SMALL, "tie_break": "fewest_hand_cards"}),
    ("small_fewest_cats", {**SMALL, "tie_break": "fewest_cats", "blocked_cell_rule": "either"}),
    ("small_later_seat", {**SMALL, "tie_break": "later_seat", "first_player": "random"}),
    ("small_two_penalty_kinds", {**SMALL_TWO_PENALTY, "tie_break": "fewest_cats",
                                 "blocked_cell_rule": "dead_cell"}),
    ("small_two_penalty_kinds_do_not_block", {**SMALL_TWO_PENALTY, "penalty_kind_blocks": False,
                                              "rounds": 2}),
    # the #13 readings and the #10 seat-compensation knobs
    ("summary_line_completion", {"line_completion_needs_no_fit": False}),
    ("summary_either_compulsory", {"line_completion_needs_no_fit": False, "blocked_cell_rule": "either",
                                   "blocked_cell_optional": False}),
    ("summary_keepers_do_not_fill", {"line_completion_needs_no_fit": False,
                                     "line_complete_counts_keepers": False, "covered_cards_block": True}),
    ("summary_small", {**SMALL, "line_completion_needs_no_fit": False, "must_place_if_able": False}),
    ("lost_extra_turn_in_run", {"lost_extra_turn_in_pass_streak": True, "end_when_no_face_down": False,
                                "keepers": 4}),
    ("lost_extra_turn_not_in_run_small", {**SMALL, "end_when_no_face_down": False,
                                          "extra_turn_values": [2, 7]}),
    ("lost_extra_turn_in_run_small", {**SMALL, "end_when_no_face_down": False,
                                      "extra_turn_values": [2, 7], "lost_extra_turn_in_pass_streak": True}),
    ("seat_bonus_half_points", {"seat_bonus_points": [0, 0.5, 1, 1.5, 2], "tie_break": "fewest_cats"}),
    ("seat_bonus_small", {**SMALL, "seat_bonus_points": [-1, 0.5, 0, 1.5, 0], "rounds": 2}),
    ("seat_hand_size_delta", {"seat_hand_size_delta": [-1, 0, 1, 1, 2]}),
    ("seat_hand_size_delta_small", {**SMALL, "seat_hand_size_delta": [0, 1, -1, 2, 0],
                                    "first_player": "random", "rounds": 2}),
    ("first_turn_no_extra_turn", {"first_turn_limit": "no_extra_turn", "rounds": 2}),
    ("first_turn_return_drawn_card", {"first_turn_limit": "return_drawn_card", "rounds": 3,
                                      "first_player": "random"}),
    ("first_turn_return_small_summary", {**SMALL, "first_turn_limit": "return_drawn_card",
                                         "line_completion_needs_no_fit": False, "allow_pass": True}),
    # the issue-24 turn order (K-3.6.1)
    ("snake", {"turn_order": "snake", "rounds": 2}),
    ("snake_complete_round", {"turn_order": "snake", "end_timing": "complete_round",
                              "first_player": "random"}),
    ("snake_small_passes", {**SMALL, "turn_order": "snake", "allow_pass": True,
                            "end_when_no_face_down": False, "keepers": 3}),
    # K-3.6.2
    ("random_each_round", {"turn_order": "random_each_round", "rounds": 2,
                           "tie_break": "later_seat"}),
    ("random_each_round_complete_round", {"turn_order": "random_each_round",
                                          "end_timing": "complete_round",
                                          "first_turn_limit": "return_drawn_card"}),
    ("random_each_round_small_passes", {**SMALL, "turn_order": "random_each_round", "allow_pass": True,
                                        "end_when_no_face_down": False, "keepers": 3,
                                        "first_turn_limit": "no_extra_turn", "rounds": 2}),
    ("random_after_first_round", {"turn_order": "random_after_first_round", "rounds": 3,
                                  "first_player": "random", "end_timing": "complete_round"}),
]
GAMES_PER_CELL = 24  # per variant and player count: 61 variants x 4 counts x 24 = 5,856 games
REPLAY_GAMES = 80  # per player count and seating in the play_batch replay


class Mismatch(AssertionError):
    pass


# ---- reading the engine through its public state --------------------------------------------


def deal_of(state: step_api.KatzState) -> Deal:
    """The only thing the model takes from the engine: what the shuffle dealt."""
    cells = int(state.rules[S.P_CELLS])
    assert all(state.cells[S.CELL_STATE, cell] == S.FACE_DOWN for cell in range(cells))
    return Deal(
        hands=[state.hand(seat) for seat in range(state.params.players)],
        zoo=[int(card) for card in state.hidden[:cells]],
        start_seat=int(state.scalars[S.S_START_SEAT]),
        order_seed=deal_order_seed(state),
    )


def deal_order_seed(state: step_api.KatzState) -> int:
    """K-3.6.2: the seed of the deal's order stream. The engine keeps the stream's state, which
    random_each_round's first round has moved on by its n - 1 draws (SplitMix64 adds gamma per
    draw)."""
    stream = int(state.scalars[S.S_ORDER_STREAM]) & SPLITMIX_MASK
    draws = state.params.players - 1 if state.params.turn_order == "random_each_round" else 0
    return (stream - draws * SPLITMIX_GAMMA) & SPLITMIX_MASK


def model_for(state: step_api.KatzState) -> Model:
    rules = Rules(state.params)
    deal = deal_of(state)
    if rules.first_player == "seat0":
        deal.start_seat = 0  # K-2.4: the model's own knowledge; the engine must agree
    return Model.start(rules, deal)


ENGINE_CELL_NAMES = {S.FACE_DOWN: M_FACE_DOWN, S.FACE_UP: M_FACE_UP, S.KEEPER: M_KEEPER,
                     S.KEEPER_OVER: M_KEEPER_OVER, S.GAP: M_GAP}
ENGINE_SEAT_COUNTS = {
    "cards_drawn": S.SEAT_CARDS_DRAWN, "keepers_replaced": S.SEAT_KEEPERS_REPLACED,
    "zookeepers_placed": S.SEAT_ZOOKEEPERS_PLACED, "extra_turns_taken": S.SEAT_EXTRA_TURNS,
    "turns_skipped": S.SEAT_TURNS_SKIPPED,
}
ENGINE_PHASES = {S.PHASE_ACTION: "action", S.PHASE_PLACE: "place", S.PHASE_OVER: "over"}


def engine_cells(state) -> list[tuple]:
    out = []
    for cell in range(int(state.rules[S.P_CELLS])):
        kind = int(state.cells[S.CELL_STATE, cell])
        if kind == S.FACE_DOWN:
            out.append((M_FACE_DOWN, int(state.hidden[cell])))
        elif kind in (S.FACE_UP, S.KEEPER_OVER):
            out.append((ENGINE_CELL_NAMES[kind], int(state.cells[S.CELL_CARD, cell])))
        else:
            out.append((ENGINE_CELL_NAMES[kind], None))
    return out


def move_tuple(code: int) -> tuple:
    """An engine move code as the model's move tuple."""
    name, cell, card = step_api.decode_move(code)
    if name == "pass":
        return (name,)
    if name in ("draw", "keeper"):
        return (name, cell)
    return (name, cell, card)


def engine_moves(state) -> set[tuple]:
    return {move_tuple(code) for code in step_api.legal_moves(state)}


def engine_code(move: tuple) -> int:
    name = move[0]
    cell = move[1] if len(move) > 1 else 0
    card = move[2] if len(move) > 2 else 0
    return make_move(name, cell, card)


def engine_snapshot(state) -> dict:
    n = state.params.players
    phase = ENGINE_PHASES[state.phase]
    snap = {
        "phase": phase,
        "cells": engine_cells(state),
        "hands": [sorted(state.hand(seat)) for seat in range(n)],
        "supply": None if state.params.keepers is None else int(state.scalars[S.S_SUPPLY]),
        "scores": [float(score) for score in step_api.scores(state)],
        "forced_passes": int(state.scalars[S.S_FORCED_PASSES]),
    }
    for name, field in ENGINE_SEAT_COUNTS.items():
        snap[name] = [int(state.seats[seat, field]) for seat in range(n)]
    if phase == "over":
        snap["end_reason"] = S.END_REASONS[int(state.scalars[S.S_END_REASON])]
        snap["winners"] = [seat in step_api.winners(state) for seat in range(n)]
    else:
        snap["seat"] = state.seat
        snap["gap"] = int(state.scalars[S.S_GAP]) if phase == "place" else None
        snap["skips"] = [bool(state.seats[seat, S.SEAT_SKIP_PENDING]) for seat in range(n)]
        snap["extra_turn"] = bool(state.scalars[S.S_IN_EXTRA_TURN])
        snap["pass_streak"] = int(state.scalars[S.S_PASS_STREAK])
    return snap


def model_snapshot(model: Model) -> dict:
    snap = {
        "phase": model.phase,
        "cells": list(model.cells),
        "hands": [sorted(hand) for hand in model.hands],
        "supply": model.supply,
        "scores": [float(score) for score in model.scores()],
        "forced_passes": model.forced_passes,
    }
    for name in SEAT_COUNTS:
        snap[name] = list(model.seat_counts[name])
    if model.phase == "over":
        snap["end_reason"] = model.end_reason
        snap["winners"] = model.winners()
    else:
        snap["seat"] = model.seat
        snap["gap"] = model.gap
        snap["skips"] = list(model.skip)
        snap["extra_turn"] = model.in_extra_turn
        snap["pass_streak"] = model.pass_streak
    return snap


# ---- readable failure messages ---------------------------------------------------------------


def move_text(params, move: tuple) -> str:
    cols = params.grid.cols
    parts = [move[0]]
    if len(move) > 1:
        parts.append(f"({move[1] // cols},{move[1] % cols})")
    if len(move) > 2:
        parts.append(render.card_text(params, move[2]))
    return " ".join(parts)


def moves_text(params, moves) -> str:
    return "{" + ", ".join(sorted(move_text(params, move) for move in moves)) + "}"


def value_text(params, key: str, value) -> str:
    if key == "cells":
        return str([state if card is None else f"{state}:{render.card_text(params, card)}"
                    for state, card in value])
    if key == "hands":
        return str([[render.card_text(params, card) for card in hand] for hand in value])
    return str(value)


def fail(context: dict, state, model: Model, what: str) -> None:
    params = state.params
    history = " | ".join(move_text(params, move) for move in context["history"][-12:])
    raise Mismatch(
        f"{what}\n"
        f"variant {context['variant']}, players {params.players}, game seed {context['seed']}, "
        f"rotation {context['rotation']}, step {context['step']}\n"
        f"last moves (oldest first): {history}\n"
        f"engine position:\n{render.render_state(state)}\n"
        f"{model.text()}"
    )


def compare_moves(context, state, model) -> set[tuple]:
    ours, theirs = model.legal_moves(), engine_moves(state)
    if ours != theirs:
        params = state.params
        fail(context, state, model,
             f"legal moves differ: engine only {moves_text(params, theirs - ours)}, "
             f"model only {moves_text(params, ours - theirs)}")
    return ours


def compare_states(context, state, model) -> None:
    theirs, ours = engine_snapshot(state), model_snapshot(model)
    if theirs != ours:
        params = state.params
        lines = []
        for key in sorted(set(theirs) | set(ours)):
            if theirs.get(key) != ours.get(key):
                lines.append(f"  {key}: engine {value_text(params, key, theirs.get(key))}\n"
                             f"  {' ' * len(key)}  model  {value_text(params, key, ours.get(key))}")
        fail(context, state, model, "states differ after the move:\n" + "\n".join(lines))


# ---- playing one game on both sides ----------------------------------------------------------


def play_compared(params, seating, seed: int, rotation: int, variant: str,
                  chooser=None) -> tuple[step_api.KatzState, Model, int]:
    """One game on both implementations. `chooser(state, legal)` returns the move tuple to
    play; by default uniformly random with a Generator seeded by the game seed. Returns the
    final engine state, the model and the number of steps compared."""
    state = step_api.new_game(params, seating, seed, rotation)
    model = model_for(state)
    generator = np.random.default_rng(seed)
    context = {"variant": variant, "seed": seed, "rotation": rotation, "step": 0, "history": []}
    compare_states(context, state, model)
    limit = 20 * (params.grid_rows * params.grid.cols + params.deck.size) * params.rounds
    while not step_api.is_over(state):
        legal = compare_moves(context, state, model)
        if chooser is None:
            ordered = sorted(legal)
            move = ordered[int(generator.integers(len(ordered)))]
        else:
            move = chooser(state, legal)
        context["history"].append(move)
        step_api.apply(state, engine_code(move))
        model.apply(move)
        if model.phase == NEED_DEAL and not step_api.is_over(state):
            model.begin_deal(deal_of(state))  # K-4.4: the next shuffle comes from the engine
        context["step"] += 1
        compare_states(context, state, model)
        assert context["step"] < limit, "game does not end"
    if not model.is_over():
        fail(context, state, model, "the engine's game is over, the model's is not")
    return state, model, context["step"]


def seating_of(players: int, policy: str = "random"):
    return GAME.seat_policies([(policy, {})] * players)


@pytest.mark.parametrize("variant,knobs", VARIANTS, ids=[name for name, _ in VARIANTS])
def test_engine_matches_reference_model(variant, knobs):
    """Random play: legal sets, states, end reason, scores and winners agree at every step."""
    for players in PLAYER_COUNTS:
        params = make_params(players=players, **knobs)
        seating = seating_of(players)
        for game in range(GAMES_PER_CELL):
            seed = 1_000_003 * players + 7919 * VARIANTS.index((variant, knobs)) + game
            play_compared(params, seating, seed, game % players, variant)


def policy_choice(state, legal: set[tuple]) -> tuple:
    """The move the engine's policy for the seat picks (same random stream as play_batch)."""
    move = move_tuple(step_api.policy_move(state))
    assert move in legal
    return move


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_policy_games_step_api_matches_play_batch_and_model(players):
    """Games chosen by the engine's own policies: the step API (policy_move + apply, mirrored
    by the model move by move) ends with the same scores, winners, end reason and turns as
    play_batch for the same seeds and rotations."""
    seatings = [["greedy"] * players, ["random"] * players,
                (["expectimax", "greedy", "random"] * 2)[:players]]
    for knobs in ({}, {"blocked_cell_rule": "either"}, {"covered_cards_block": True, "keepers": 4}):
        params = make_params(players=players, **knobs)
        for names in seatings:
            seating = GAME.seat_policies([(name, {}) for name in names])
            seeds = np.arange(REPLAY_GAMES, dtype=np.uint64) + 50_000 * players
            rotations = np.arange(REPLAY_GAMES) % players
            batch = play.play_batch(params, seating, seeds, rotations)
            for game in range(REPLAY_GAMES):
                seed, rotation = int(seeds[game]), int(rotations[game])
                state, model, _ = play_compared(params, seating, seed, rotation,
                                                f"policies {names} {knobs}", policy_choice)
                where = f"seed {seed}, rotation {rotation}, seating {names}, knobs {knobs}"
                assert list(batch["score"][game]) == list(step_api.scores(state)), where
                assert list(batch["score"][game]) == model.scores(), where
                for name in SEAT_COUNTS:
                    assert list(batch[name][game]) == model.seat_counts[name], (name, where)
                assert list(batch["win"][game]) == model.winners(), where
                assert S.END_REASONS[batch["end_reason"][game]] == model.end_reason, where
                assert batch["turns"][game] == state.scalars[S.S_TURNS], where


# ---- discrepancies found by the comparison, as minimal scripted cases ------------------------


# ---- scripted positions of the spec (§7): model vs spec, engine vs model ------------------------


def model_from_text(params, grid: str, hands: list[str], *, seat: int = 0, supply: int | None = None,
                    face_down: dict | None = None, skips=()) -> Model:
    """The model's own reading of a §7 position. Face-down cells hold `face_down`'s cards, the
    others the unused cards in card-id order (the convention state_from_text documents)."""
    rules = Rules(params)
    codes = {rules.card_text(card): card for card in range(len(rules.kind_names) * len(rules.values))}
    rows = [line.split(":", 1)[-1].split() for line in grid.strip().splitlines()]
    used = {codes[text] for text in (face_down or {}).values()}
    cells = []
    for row in rows:
        for token in row:
            if token == "##":
                cells.append((M_FACE_DOWN, None))
            elif token == "__":
                cells.append((M_GAP, None))
            elif token == "ZK":
                cells.append((M_KEEPER, None))
            elif token.startswith("ZK/"):
                cells.append((M_KEEPER_OVER, codes[token[3:]]))
            else:
                cells.append((M_FACE_UP, codes[token]))
    hand_cards = [[codes[text] for text in hand.split()] for hand in hands]
    used |= {card for _, card in cells if card is not None} | {c for hand in hand_cards for c in hand}
    unused = iter(sorted(set(codes.values()) - used))
    for cell, (state, _) in enumerate(cells):
        if state == M_FACE_DOWN:
            where = (cell // rules.cols, cell % rules.cols)
            cells[cell] = (M_FACE_DOWN, codes[face_down[where]] if face_down and where in face_down
                           else next(unused))
    keepers_shown = sum(state in (M_KEEPER, M_KEEPER_OVER) for state, _ in cells)
    if supply is None and rules.keepers is not None:
        supply = rules.keepers - keepers_shown
    return Model.from_position(rules, cells, hand_cards, seat=seat, supply=supply, skips=skips)


def short_text(params, move: tuple) -> str:
    """'place Li7', 'cover Mo6', 'keeper', 'replace (0,1) Li7', 'draw (2,6)', 'pass'."""
    if move[0] in ("place", "cover"):
        return f"{move[0]} {render.card_text(params, move[2])}"
    if move[0] == "keeper":
        return "keeper"
    return move_text(params, move)


def explore(params, position: dict, path: tuple, depth: int, context: dict) -> int:
    """Every line of play from the position up to `depth` moves: legal sets and states compared
    after each move (both sides rebuilt from the text and replayed along the path). Returns the
    number of positions compared."""
    state = state_from_text(params, **position)
    model = model_from_text(params, **position)
    context["history"] = list(path)
    context["step"] = len(path)
    for move in path:
        step_api.apply(state, engine_code(move))
        model.apply(move)
    compare_states(context, state, model)
    if depth == 0 or step_api.is_over(state):
        return 1
    compared = 1
    for move in sorted(compare_moves(context, state, model)):
        compared += explore(params, position, path + (move,), depth - 1, context)
    return compared


T2 = """
r0: Gi5 El2 __  ##  ##  ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  Mo4 ##  ##  ##  ##
"""
T4 = """
r0: Gi5 El2 ##  ##  ##  ##  ##
r1: ##  ##  ##  Ca3 ##  __  ##
r2: ##  ##  Mo4 ##  ##  ##  ##
"""
T5 = """
r0: ##  ##  ##     ##  ##  ##  ##
r1: ZK  __  ZK/Gi4 ##  ##  ##  ##
r2: ##  ##  ##     ##  ##  ##  ##
"""
T6 = """
r0: Gi5 El2 Mo1 __  Pa4 ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  ##  Pe2 ##  ##  ##
"""
T7 = """
r0: Gi1 El2 Mo3 __  Pa4 Pe5 Li6
r1: ##  ##  ##  Pd2 ##  ##  ##
r2: ##  ##  ##  Ca1 ##  ##  ##
"""
T8 = """
r0: Gi5 ZK      ##  ##  ##  ##  ##
r1: ##  El3     ##  ##  ##  ##  ##
r2: ##  ZK/Pa4  ##  ##  ##  ##  ##
"""
T12 = """
r0: Gi1 El1 Mo1 Pa1 Pe1 Li1 Pd1
r1: El2 Mo2 Pa2 Pe2 Li2 Pd2 ZK
r2: ZK  ZK  ZK  ZK  ZK  ZK  ##
"""
T13 = """
r0: ##  El1 Mo1 Pa1 Pe1 Li1 Pd1
r1: El2 Mo2 Pa2 Pe2 Li2 Pd2 ZK
r2: ZK  ZK  ZK  ZK  ZK  ZK  ##
"""
T7_ALL = {"keeper", "cover Ca7", "cover Gi4", "cover Li2", "cover El6"}
DEPTH = 2

# (id, knobs, position, the spec's legal non-draw moves at the position, search depth)
SCRIPTED = [
    ("T2", {}, dict(grid=T2, hands=["Gi1 Li7 Ca2 Mo5 Pd3 Pe6"] + [""] * 4),
     {"place Li7", "place Ca2", "place Pd3", "place Pe6"}, DEPTH),
    ("T4", {}, dict(grid=T4, hands=["Ca2 Gi1"] + [""] * 4), {"place Gi1"}, DEPTH),
    ("T5", {}, dict(grid=T5, hands=["Gi2"] + [""] * 4), {"place Gi2"}, DEPTH),
    ("T5_covered_block", {"covered_cards_block": True}, dict(grid=T5, hands=["Gi2"] + [""] * 4),
     {"keeper"}, DEPTH),
    ("T6", {}, dict(grid=T6, hands=["Mo6 Ca5 Pe7 Gi3"] + [""] * 4),
     {"keeper", "cover Gi3", "cover Mo6"}, DEPTH),
    ("T6_either", {"blocked_cell_rule": "either"}, dict(grid=T6, hands=["Mo6 Ca5 Pe7 Gi3"] + [""] * 4),
     {"keeper", "cover Gi3", "cover Mo6"}, DEPTH),
    ("T6_dead_cell", {"blocked_cell_rule": "dead_cell"},
     dict(grid=T6, hands=["Mo6 Ca5 Pe7 Gi3"] + [""] * 4), {"keeper"}, DEPTH),
    ("T6_off", {"blocked_cell_rule": "off"}, dict(grid=T6, hands=["Mo6 Ca5 Pe7 Gi3"] + [""] * 4),
     {"keeper"}, DEPTH),
    ("T7_dead_cell", {"blocked_cell_rule": "dead_cell"},
     dict(grid=T7, hands=["Ca7 Gi4 Li2 El6"] + [""] * 4), T7_ALL, DEPTH),
    ("T7_line_completion", {}, dict(grid=T7, hands=["Ca7 Gi4 Li2 El6"] + [""] * 4), T7_ALL, DEPTH),
    ("T7_compulsory", {"blocked_cell_rule": "either", "blocked_cell_optional": False},
     dict(grid=T7, hands=["Ca7 Gi4 Li2 El6"] + [""] * 4), T7_ALL - {"keeper"}, DEPTH),
    ("T7_no_covered_effects", {"blocked_cell_rule": "dead_cell", "value_effects_on": {"covered": False}},
     dict(grid=T7, hands=["Ca7 Gi4 Li2 El6"] + [""] * 4), T7_ALL, DEPTH),
    ("T7_off", {"blocked_cell_rule": "off"}, dict(grid=T7, hands=["Ca7 Gi4 Li2 El6"] + [""] * 4),
     {"keeper"}, DEPTH),
    ("T8", {}, dict(grid=T8, hands=["Gi2 El6 Pa1 Li7"] + [""] * 4, supply=6),
     {"replace (0,1) Pa1", "replace (0,1) Li7"}, 1),
    ("T8_covered_block", {"covered_cards_block": True},
     dict(grid=T8, hands=["Gi2 El6 Pa1 Li7"] + [""] * 4, supply=6), {"replace (0,1) Li7"}, 1),
    ("T8_no_replace_effects", {"value_effects_on": {"replace": False}},
     dict(grid=T8, hands=["Gi2 El6 Pa1 Li7"] + [""] * 4, supply=6),
     {"replace (0,1) Pa1", "replace (0,1) Li7"}, 1),
    ("T12", {}, dict(grid=T12, hands=["Ca3"] + [""] * 4, face_down={(2, 6): "Gi7"}), None, DEPTH),
    ("T12_T13_both_triggers", {}, dict(grid=T12, hands=["Pd3"] + [""] * 4, face_down={(2, 6): "Pd5"}),
     None, DEPTH),
    ("T13", {}, dict(grid=T13, hands=["Pd3"] + [""] * 4, face_down={(2, 6): "Pd5"}), None, 3),
    ("T14", {}, dict(grid=T8, hands=[""] * 5, supply=6), set(), 2),
]


@pytest.mark.parametrize("name,knobs,position,expected,depth", SCRIPTED,
                         ids=[case[0] for case in SCRIPTED])
def test_scripted_positions(name, knobs, position, expected, depth):
    """The model gives the spec's answer at each §7 position, and the engine agrees with the
    model on every line of play from it (up to `depth` moves)."""
    params = make_params(players=5, **knobs)
    model = model_from_text(params, **position)
    non_draws = {short_text(params, move) for move in model.legal_moves() if move[0] != "draw"}
    assert expected is None or non_draws == expected
    context = {"variant": name, "seed": "scripted", "rotation": 0, "step": 0, "history": []}
    assert explore(params, position, (), depth, context) > 1


def play_model(params, position: dict, moves: list[str]) -> Model:
    """The model at a §7 position after moves given as short texts ('draw (2,6)', 'place Gi7')."""
    model = model_from_text(params, **position)
    for text in moves:
        by_text = {short_text(params, move): move for move in model.legal_moves()}
        model.apply(by_text[text])
    return model


def test_model_t12_t13_immediate_end():
    """T12/T13 and K-11 #7 on the model: the end beats the extra turn; both triggers at once
    report no_face_down; the eighth keeper alone ends with keepers_exhausted."""
    params = make_params(players=5)
    last_gi7 = dict(grid=T12, hands=["Ca3"] + [""] * 4, face_down={(2, 6): "Gi7"})
    model = play_model(params, last_gi7, ["draw (2,6)", "place Gi7"])
    assert model.is_over() and model.end_reason == "no_face_down" and model.hands[0] == [
        render.parse_card(params, "Ca3")]
    last_pd5 = dict(grid=T12, hands=["Pd3"] + [""] * 4, face_down={(2, 6): "Pd5"})
    for outcome in ("keeper", "cover Pd5", "cover Pd3"):
        model = play_model(params, last_pd5, ["draw (2,6)", outcome])
        assert model.is_over() and model.end_reason == "no_face_down" and model.supply == 0
    eighth = dict(grid=T13, hands=["Pd3"] + [""] * 4, face_down={(2, 6): "Pd5"})
    assert {short_text(params, m) for m in play_model(params, eighth, ["draw (2,6)"]).legal_moves()} \
        == {"keeper", "cover Pd5", "cover Pd3"}  # row 2 completed and shows nothing
    model = play_model(params, eighth, ["draw (2,6)", "keeper"])
    assert model.is_over() and model.end_reason == "keepers_exhausted"


ROW = "Gi1 El1 ZK ZK Pa1 ## Ca1"  # one row (a 1 x 7 zoo); the last face-down cell hides Pd5


@pytest.mark.parametrize("tie_break,hands,winners", [
    ("shared", ["Gi7 El3", "Mo7 Pa5 Ca2", "Li7"], [True, True, False]),  # T16
    ("fewest_hand_cards", ["Gi7 El3", "Mo7 Pa5 Ca2", "Li7"], [True, False, False]),
    ("fewest_cats", ["Gi7 El3", "Mo7 Pa5 Ca2", "Li7"], [True, False, False]),
    ("later_seat", ["Gi7 El3", "Mo7 Pa5 Ca2", "Li7"], [False, True, False]),
    ("fewest_hand_cards", ["Gi7 El3", "Mo6 Pa4", "Li7"], [True, True, False]),
    ("fewest_cats", ["Gi7 El5 Ca3", "Mo7 Pa4 Ca2", "Li7"], [True, True, False]),
    ("later_seat", ["Gi7 El3", "Mo6 Pa4", "Li7 Pe3"], [False, False, True]),
])
def test_tie_breaks(tie_break, hands, winners):
    """K-4.3 at a scripted end: seat 0 draws the last face-down card (Pd5) and must put it back;
    the scores then tie; the model's winners are the spec's, and the engine's the model's."""
    params = make_params(players=3, grid={"rows": 1}, tie_break=tie_break)
    position = dict(grid=ROW, hands=hands, face_down={(0, 5): "Pd5"})
    model = model_from_text(params, **position)
    assert model.legal_moves() == {("draw", 5)}
    model.apply(("draw", 5))
    assert model.legal_moves() == {("place", 5, render.parse_card(params, "Pd5"))}
    model.apply(("place", 5, render.parse_card(params, "Pd5")))
    assert model.is_over() and model.end_reason == "no_face_down"
    assert model.winners() == winners
    context = {"variant": f"tie {tie_break}", "seed": "scripted", "rotation": 0, "step": 0, "history": []}
    explore(params, position, (), 2, context)


def test_pass_in_extra_turn_counts_towards_no_progress():
    """K-4.1.5 read as 'n passes in a row' (chosen or forced, an extra turn's pass included):
    seat 0 puts Gi7 back (extra turn) and passes, seat 1 passes, and the deal ends. The seeds
    say 'n consecutive seat turns without an action', which read literally would not count seat
    0's turn (it had an action); the same paragraph's 'a lost extra turn with nothing to do is a
    forced pass' and the purpose (every seat declined at an unchanged position) support the
    engine's reading, which the model follows. Both sides are checked along the line."""
    params = make_params(players=2, grid={"rows": 3}, allow_pass=True)
    grid = "__ ## ## ## ## ## ##\n" + "## ## ## ## ## ## ##\n" * 2
    position = dict(grid=grid, hands=["Gi7 Mo2", "El3"])
    state = state_from_text(params, **position)
    model = model_from_text(params, **position)
    context = {"variant": "K-4.1.5", "seed": "scripted", "rotation": 0, "step": 0, "history": []}
    for text in ("place Gi7", "pass", "pass"):
        move = {short_text(params, m): m for m in compare_moves(context, state, model)}[text]
        context["history"].append(move)
        context["step"] += 1
        step_api.apply(state, engine_code(move))
        model.apply(move)
        compare_states(context, state, model)
        if text == "place Gi7":
            assert model.seat == 0 and model.in_extra_turn
    assert model.is_over() and model.end_reason == "no_progress"
