"""Tic-tac-toe as a zoosim game plugin with a known answer: under uniformly random play the first
player wins exactly 737/1260 of games, the second 121/420, and 8/63 are drawn (README.md).

The package follows the file roles of zoosim's own games (docs/adding-a-game.md): this module
holds only the `GAME` record, whose engine parts are `Deferred` (imported when first played);
specs.py the knobs, policies and feature names; game.py the rules, the step API, `play_batch`
and `trace`; features.py the learned player's features; training.py its training code. It
imports zoosim's public plugin API only (`simulator.plugin`). Rules: RULES.md (T-1..T-5).
"""

from simulator.plugin import Deferred, Game, Training

from zoosim_tictactoe.specs import END_REASONS, POLICIES, RULES_VERSION, VIOLATION_NAMES, Params

GAME = Game(
    name="tictactoe",
    title="Tic-tac-toe (example plugin with a known answer)",
    rules_version=RULES_VERSION,
    params_model=Params,
    presets={"standard": {}},
    policies=POLICIES,
    default_policy="random",
    end_reasons=END_REASONS,
    violation_names=VIOLATION_NAMES,
    # nothing is dealt and the random players draw from one stream seeded by the game seed alone,
    # so a rotation only moves the slots' policies to other seats
    deal_travels_with_slot=False,
    players=lambda params: params.players,
    play_batch=Deferred("zoosim_tictactoe.game:play_batch"),
    trace=Deferred("zoosim_tictactoe.game:trace"),
    legend=Deferred("zoosim_tictactoe.game:legend"),
    steps=Deferred("zoosim_tictactoe.game"),
    seat_columns=("marks",),
    game_columns=("empty_cells",),
    seat_measures={"marks": "marks placed"},
    # zoosim train tictactoe: greedy games with 30% random moves, the learned player's weights
    # gated head to head and measured against greedy
    training=Training(code=Deferred("zoosim_tictactoe.training"), play="greedy", explore=0.3,
                      players={2: 1.0}, gate_policy="learned", heuristic="greedy", games=200),
)
