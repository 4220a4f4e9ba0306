"""CPU seconds numba spends compiling each kernel of a game, with an empty kernel cache.

    python benchmarks/compile_times.py katz [--policy greedy] [--search mcts|none]
    python benchmarks/compile_times.py katz --warm-up

Plays one game with `--policy` in every seat (what a heuristic-only run compiles), then one with
`--search` in every seat (what a run with a search policy compiles in addition), then draws the
report's sample game with `--policy` (the step API's kernels; `--search none` skips the search step), in a process of its own whose
kernel cache is a fresh temporary folder (the shared cache is never touched).
Each kernel's line is its own CPU time (process time, so other load on the machine counts
little), not counting the kernels it compiled meanwhile; the totals are per step.

With `--warm-up`: the CPU time of each warm-up process a cold run of the game starts instead
(runner._warm_up: one game of `--policy` and its report sample; runner._warm_up_summaries: the
chunk summaries' kernels, once per run), each in a fresh process with an empty kernel cache.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def profile(game_name: str, policy: str, search: str) -> None:
    """Runs in the child process: compile, timing every numba:compile event."""
    import time

    import numpy as np
    from numba.core import event

    from simulator.games import get_game

    game = get_game(game_name)
    params = game.make_params({})
    stack: list[list] = []  # [name, started, seconds spent in kernels compiled meanwhile]
    spent: dict[str, float] = {}

    class Timer(event.Listener):
        def on_start(self, ev):
            function = ev.data["dispatcher"].py_func
            name = f"{function.__module__.rsplit('.', 1)[-1]}.{function.__qualname__}"
            stack.append([name, time.process_time(), 0.0])

        def on_end(self, ev):
            name, started, inner = stack.pop()
            total = time.process_time() - started
            spent[name] = spent.get(name, 0.0) + total - inner
            if stack:
                stack[-1][2] += total

    def batch(seats):
        game.play_batch(params, seats, np.arange(1, dtype=np.uint64), np.zeros(1, dtype=np.int64))

    def sample(seats):
        game.final_position_svg(params, seats, 0, 0)

    steps = (("play_batch", policy, batch), ("play_batch", search, batch), ("sample drawing", policy, sample))
    for label, policy_name, play in steps:
        if policy_name == "none":
            continue
        spent.clear()
        seats = game.seat_policies([(policy_name, {})] * params.players)
        started = time.process_time()
        with event.install_listener("numba:compile", Timer()):
            play(seats)
        total = time.process_time() - started
        print(f"## {game_name}: {label}, one game of {policy_name}: {total:.1f} s CPU in all, "
              f"{sum(spent.values()):.1f} s in numba:compile events", flush=True)
        for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
            print(f"{seconds:8.1f}  {name}")


def warm_up(task: str, policy: str, cache: str) -> None:
    """Runs in the child process: one warm-up task of a cold run (a game's, or "summaries")."""
    import time
    from pathlib import Path

    from simulator import runner
    from simulator.config import parse_experiment
    from simulator.plan import build_plan

    started = time.process_time()
    if task == "summaries":
        runner._warm_up_summaries(Path(cache) / "warm-marker", progress=False)
    else:
        plan = build_plan(parse_experiment({"name": "warm_up", "seed": 1, "games": 2, "studies": [
            {"name": task, "game": task, "rules": {"players": 2}, "seats": [policy]}]}))
        runner._warm_up([(plan.cells[0].all_chunks()[0], None)], False, plan.cells)
    print(f"## warm-up of {task}: {time.process_time() - started:.1f} s CPU", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--policy", default="greedy")
    parser.add_argument("--search", default="mcts")
    parser.add_argument("--warm-up", action="store_true", help="time the warm-up processes of a cold run instead")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-warm-up", metavar="TASK", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        profile(args.game, args.policy, args.search)
        return
    if args.child_warm_up:
        warm_up(args.child_warm_up, args.policy, os.environ["XDG_CACHE_HOME"])
        return
    children = [["--child-warm-up", task] for task in (args.game, "summaries")] if args.warm_up else [["--child"]]
    for child in children:
        with tempfile.TemporaryDirectory() as cache:
            env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
            env["XDG_CACHE_HOME"] = cache
            subprocess.run([sys.executable, __file__, args.game, "--policy", args.policy, "--search", args.search,
                            *child], env=env, check=True)


if __name__ == "__main__":
    main()
