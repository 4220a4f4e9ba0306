"""The `zoosim` command line: a thin click layer over config, plan, runner, report and games.

Heavy modules (numba engines, pandas, matplotlib) are imported inside the commands, so
`zoosim --help` is instant. Every user-fixable problem is a `ZoosimError`, printed as one line on
stderr with exit status 2.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import click

from simulator.errors import Terminated, ZoosimError
from simulator.options import MAX_JOBS, checked_jobs, checked_out, jobs_or_every_core
from simulator.processes import run_console
from simulator.version import __version__



class ZoosimGroup(click.Group):
    """Every user error, ours or click's usage errors, is one line on stderr and exit status 2."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            super().main(*args, **kwargs)
        except ZoosimError as error:
            _fail(str(error))
        except OSError as error:  # the system refused a read or write (read-only, full, missing)
            _fail(_describe_os_error(error))
        except click.exceptions.NoArgsIsHelpError as error:
            click.echo(error.ctx.get_help() if error.ctx else error.format_message())
        except click.UsageError as error:
            command = error.ctx.command_path if error.ctx else "zoosim"
            _fail(f"{error.format_message()} (see '{command} --help')")
        except click.ClickException as error:
            _fail(error.format_message())
        except click.Abort as error:  # click's form of a KeyboardInterrupt (or Terminated)
            if not isinstance(error.__cause__, KeyboardInterrupt):
                click.echo("zoosim: aborted", err=True)
                sys.exit(1)
            _exit_stopped(error.__cause__)
        except KeyboardInterrupt as stop:
            _exit_stopped(stop)
        sys.exit(0)


def _exit_stopped(stop: BaseException | None, kept: str = "") -> None:
    """End a command that Ctrl-C (status 130) or SIGTERM (`Terminated`, 143) stopped, saying so;
    `kept` goes on the same line: what is kept and the command that goes on (on a line of its own
    then, after whatever progress the command showed)."""
    word, status = ("terminated", 143) if isinstance(stop, Terminated) else ("interrupted", 130)
    click.echo(f"\nzoosim: {word}{kept}" if kept else f"zoosim: {word}", err=True)
    sys.exit(status)


def _describe_os_error(error: OSError) -> str:
    """`PATH: Read-only file system`, one line, for an error the system raised."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename}: {reason}" if error.filename else reason


def _fail(message: str) -> None:
    click.echo(f"zoosim: error: {message}", err=True)
    sys.exit(2)


@click.group(name="zoosim", cls=ZoosimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="zoosim")
def main() -> None:
    """Monte Carlo rules-balance analysis for tabletop games.

    Plays many games of a ruleset under AI heuristics and reports seat advantage, win rates and
    game lengths with confidence intervals. Start with:

        zoosim run experiments/seat_bias.yaml
    """


def _named_path(ctx, param, value):
    """An --out path as a Path; an empty one (which would mean the current folder) is refused."""
    return checked_out(value, key=param.opts[0])


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses nan and inf (click's lets nan through every bound)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def _checked_jobs(ctx, param, value):
    return checked_jobs(value)


def _jobs_option(help_text: str):
    """--jobs, the same bounds for every command that plays games (and the Python API's)."""
    return click.option("--jobs", "-j", type=int, callback=_checked_jobs, default=None, metavar=f"1-{MAX_JOBS}",
                        help=help_text)


def _backend_options(command):
    """--backend and --scheduler, the same for every command that plays games."""
    command = click.option("--scheduler", default=None, help="dask scheduler address (with --backend dask).")(command)
    return click.option("--backend", type=click.Choice(["threading", "loky", "dask"]), default="threading",
                        show_default=True, help="Where games run: threads of this process (the game kernels "
                        "release the GIL), worker processes, or a dask cluster.")(command)


@main.command()
@click.argument("experiment", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False), callback=_named_path, default=None,
              help="Run folder for logs and report. Default: reports/<name>-<run hash>, "
                   "which is resumed automatically when it exists.")
@_jobs_option("Parallel workers (default: every core).")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games per cell, overriding the file (every study's games, and an explain study's "
                   "games_as_written_and_all_off).")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=None,
              help="Master seed, overriding the file.")
@click.option("--resume", is_flag=True, help="Continue a run in --out, skipping finished chunks.")
@click.option("--force", is_flag=True, help="Replace whatever --out holds.")
@_backend_options
@click.option("--check", is_flag=True, help="Check the rules' invariants after every move (slower).")
@click.option("--no-report", is_flag=True, help="Only play and log the games.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run(experiment, out, jobs, games, seed, resume, force, backend, scheduler, check, no_report, quiet):
    """Play every game of EXPERIMENT (a YAML file) and write logs and an HTML report."""
    from simulator.config import load_experiment
    from simulator.plan import build_plan
    from simulator.rundir import default_run_dir
    from simulator.runner import run_experiment

    model, text = load_experiment(experiment, games=games, seed=seed)
    plan = build_plan(model, file=str(experiment))
    if out is None:
        out = default_run_dir(model.name, plan.run_hash)
        resume = resume or not force
    jobs = jobs_or_every_core(jobs)
    try:
        summary = run_experiment(
            plan, out, text, source=str(experiment), jobs=jobs, backend=backend, scheduler=scheduler,
            resume=resume, force=force, check=check, progress=not quiet,
            meanwhile=None if no_report else lambda: importlib.import_module("simulator.report.build"),
        )
    except KeyboardInterrupt as stop:
        from simulator.rundir import resume_command

        _exit_stopped(stop, f"; finished chunks are kept in {out}. Resume with:\n"
                            f"  {resume_command(str(experiment), out)}")
    if summary.games_played:
        playing = summary.seconds - summary.compile_seconds
        rate = f"{summary.games_played / playing / jobs:,.0f}" if playing > 0 else "?"
        compiled = f", {summary.compile_seconds:.1f} s of it compiling the engines" if summary.compile_seconds >= 0.5 else ""
        click.echo(
            f"played {summary.games_played:,} games in {summary.seconds:.1f} s{compiled} "
            f"({rate} games/s per core while playing, {jobs} job{'s' if jobs != 1 else ''})",
            err=True,
        )
    if not no_report:
        try:
            _report(out)
        except KeyboardInterrupt as stop:
            from simulator.rundir import report_command

            _exit_stopped(stop, f" while writing the report; every game is kept in {out}. "
                                f"Write the report with:\n  {report_command(out)}")


def _report(run_dir: Path, from_logs: bool = False, cells: tuple[int, ...] = ()) -> None:
    from simulator.report.build import build_report, reference_lines, summary
    from simulator.rundir import read_manifest

    path, analysis = build_report(run_dir, from_logs=from_logs, detail_cells=cells)
    manifest = read_manifest(run_dir)
    by_label = {cell.label: cell for cell in manifest["cells"]}
    switched_off: dict[str, list] = {}  # by explain study: its cells with mechanisms switched off
    for line in summary(manifest, analysis):
        cell = by_label.get(line["label"])
        if cell is not None and cell.explain and cell.explain["off"]:
            switched_off.setdefault(cell.study, []).append(cell)
            continue
        click.echo(f"  {line['label']}: {line['verdict']}. {line['sentence']}")
    for study, settings in switched_off.items():  # a line per study, not per setting
        names = ", ".join(mechanism["name"] for mechanism in settings[0].explain["mechanisms"])
        click.echo(f"  {study}: {len(settings)} settings with mechanisms switched off ({names}): their verdicts are "
                   "in the report")
    for line in reference_lines(manifest["cells"]):
        click.echo(f"  players: {line}.")
    if any(cell.explain for cell in manifest["cells"]):
        _print_explained(run_dir, manifest)
    click.echo(f"report: {path}")


def _print_explained(run_dir: Path, manifest: dict) -> None:
    """The explain studies' sentences (the report's explain section leads with the same), paired
    from the explain cells' logs."""
    from simulator.analysis.explain import explain_run
    from simulator.report.build import explain_lines

    click.echo("where the seat edge comes from:")
    for line in explain_lines(explain_run(run_dir, manifest)):
        click.echo(f"  {line['label']}: {line['sentence']}")


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--from-logs", is_flag=True,
              help="Recompute every number from the game logs instead of the chunks' summaries (slower).")
@click.option("--cell", "cells", type=click.IntRange(min=0), multiple=True, metavar="NUMBER",
              help="Also show this cell's detail section (repeatable): a report of many cells shows only the "
                   "detail of those furthest from fair. NUMBER is the cell's number (column `cell` of the cells' CSV).")
def report(run_dir, from_logs, cells):
    """Re-render RUN_DIR/report.html from the run folder, without replaying any game."""
    _report(run_dir, from_logs, cells)


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
def explain(run_dir):
    """Print where each explained cell's seat edge comes from (RUN_DIR's explain studies), one
    sentence per cell, without writing the report."""
    from simulator.config import Experiment
    from simulator.errors import ZoosimError
    from simulator.rundir import read_manifest

    manifest = read_manifest(run_dir, Experiment)
    if not any(cell.explain for cell in manifest["cells"]):
        raise ZoosimError("the run has no explain study (an `explain:` section in a study of its experiment file)",
                          file=str(run_dir))
    _print_explained(run_dir, manifest)


@main.command()
@click.argument("run_a", type=click.Path(file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False), callback=_named_path, default=None,
              help="HTML file to write (default: RUN_B/compare.html).")
def compare(run_a, run_b, out):
    """Compare two runs seat by seat (before/after a rule change), with intervals."""
    from simulator.report.compare import render_comparison

    path, comparison = render_comparison(run_a, run_b, out or run_b / "compare.html")
    for _, row in comparison.cells.iterrows():
        click.echo(f"  {row['label']}: {row['sentence']}")
    for run, labels in (("A", comparison.only_a), ("B", comparison.only_b)):
        for label in labels:
            click.echo(f"  {label}: only in {run}")
    click.echo("differences: " + ("; ".join(comparison.differences) or "none (same rules and settings)"))
    click.echo(f"comparison: {path}")


@main.command()
@click.argument("experiment", type=click.Path(dir_okay=False, path_type=Path))
def validate(experiment):
    """Check EXPERIMENT (an experiment or a tune file) without running it: schema, rule knobs,
    policies, seatings, and for a tune file its search space."""
    from simulator.config import load_experiment, read_yaml_mapping
    from simulator.plan import build_plan

    document, _ = read_yaml_mapping(experiment, what="an experiment file must be a mapping with at least a "
                                                     "'studies' list (or a tune file, with a 'tune' section)")
    if "tune" in document:
        from simulator.tune.command import load_checked

        model, _, parameters = load_checked(experiment)
        knobs = list(dict.fromkeys(parameter.knob for parameter in parameters))
        click.echo(f"{experiment}: valid tune file. {model.tune.game}, {model.tune.budget.trials:,} trial(s) over "
                   f"players {', '.join(map(str, model.tune.players))}, searching {', '.join(knobs)}")
        return
    model, _ = load_experiment(experiment)
    plan = build_plan(model, file=str(experiment))
    click.echo(f"{experiment}: valid experiment file. {len(plan.cells)} cell(s), {plan.games:,} games, "
               f"{plan.chunk_count:,} chunks, run hash {plan.run_hash}")
    for cell in plan.cells:
        rotation = f", {cell.players} rotations per deal" if cell.rotate else ""
        click.echo(f"  {cell.label}: {cell.games:,} games, seats {', '.join(cell.seat_labels)}{rotation}")


@main.command()
@click.argument("experiment", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False), callback=_named_path, default=None,
              help="Tune folder (journal, trial runs, best.yaml, confirmation, tune.html). "
                   "Default: reports/<name>-tune-<hash>, resumed automatically when it exists.")
@_jobs_option("Parallel workers (default: every core). Does not change the trials.")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games every trial plays first (budget.games.start), overriding the file; racing's top "
                   "and the confirmation scale with it. For quick looks.")
@click.option("--trials", type=click.IntRange(min=1), default=None,
              help="Trials of the search (budget.trials), overriding the file.")
@click.option("--confirm-games", type=click.IntRange(min=1), default=None,
              help="Games per player count of the confirmation (confirm.games), overriding the file without "
                   "changing the tune: resuming a finished tune with it adds games to its confirmation up to N, "
                   "keeping every trial (an inconclusive confirmation prints the command). It never shrinks one.")
@click.option("--resume", is_flag=True, help="Continue an interrupted tune in --out.")
@click.option("--force", is_flag=True, help="Replace whatever tune --out holds.")
@_backend_options
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def tune(experiment, out, jobs, games, trials, confirm_games, resume, force, backend, scheduler, quiet):
    """Search rule knobs for the fairest game and confirm the best setting on fresh games.

    EXPERIMENT is a YAML file with a `tune:` section (game, seats, players, search, objective,
    budget, confirm; see docs/tuning.md). Writes best.yaml (an experiment `zoosim run` accepts),
    the confirmation run and tune.html.
    """
    from simulator.rundir import DEFAULT_REPORTS_DIR
    from simulator.tune.command import confirmation_lines, default_out, load_checked, resume_tune_command, run_tune

    if out is None:
        model, _, _ = load_checked(experiment, games=games, trials=trials)
        out = default_out(DEFAULT_REPORTS_DIR, model)
        resume = resume or not force
    try:
        outcome = run_tune(experiment, out, jobs=jobs_or_every_core(jobs), backend=backend, scheduler=scheduler,
                           resume=resume, force=force, progress=not quiet, games=games, trials=trials,
                           confirm_games=confirm_games)
    except KeyboardInterrupt as stop:
        _exit_stopped(stop, f"; the tune is kept in {out}. Resume with:\n  "
                            f"{resume_tune_command(experiment, out, games, trials, confirm_games)}")
    click.echo(outcome.choice.explanation)
    for line in confirmation_lines(outcome):
        click.echo(f"  {line}")
    if outcome.games_to_decide is not None:
        more = resume_tune_command(experiment, out, games, trials, outcome.games_to_decide)
        click.echo(f"  to play {outcome.games_to_decide:,} confirmation games per player count: {more}")
    if outcome.best_file is not None:
        click.echo(f"best settings: {outcome.best_file}")
    click.echo(f"tune report: {outcome.report}")


def _parse_settings(settings: tuple[str, ...], option: str = "--set", what: str = "knob") -> dict:
    """`--set knob=value` (or another option's key=value) pairs; each value is YAML, read by the
    same safe loader as files."""
    from simulator.safe_yaml import load_yaml

    knobs = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ZoosimError(f"{option} takes {what}=value, got '{setting}'")
        knobs[name] = load_yaml(value, key=f"{option} {name}")
    return knobs


class GameName(click.ParamType):
    """A game from the registry (built-ins and installed plugins). The registry is read only
    when a command needs it, so `zoosim --help` stays instant."""

    name = "game"

    def convert(self, value, param, ctx):
        from simulator.games import game_names

        if value in game_names():
            return value
        self.fail(f"unknown game '{value}' (allowed: {', '.join(game_names())})", param, ctx)


class PlayCommand(click.Command):
    """`zoosim play`, whose help ends with every registered game's key to its codes."""

    def format_epilog(self, ctx, formatter) -> None:
        from simulator.games import game_names, get_game

        super().format_epilog(ctx, formatter)
        from simulator.games.base import game_legend

        for name in game_names():
            try:
                game = get_game(name)
                legend = None if game.legend is None else game_legend(game, game.make_params())
            except ZoosimError as error:  # a broken plugin: one line, and every other game's key
                legend = f"unusable: {error}"
            if legend is not None:
                formatter.write_paragraph()
                formatter.write_text(f"{name}: {legend}")


@main.command()
@click.argument("game", type=GameName(), metavar="GAME")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="YAML file of rule knobs to train under (a mapping, as a study's `rules:`).")
@click.option("--set", "settings", multiple=True, metavar="KNOB=VALUE",
              help="A rule knob to train under (repeatable; on top of --rules).")
@click.option("--out", type=click.Path(file_okay=False), callback=_named_path, default=None,
              help="Training folder (rounds, best.npz, report.html). Default: reports/GAME-train-<hash>.")
@click.option("--rounds", type=click.IntRange(min=0, max=99), default=4, show_default=True,
              help="Rounds after the starting point (round 0). A finished training resumed with more rounds goes on.")
@click.option("--games", type=click.IntRange(min=1, max=10_000_000), default=None,
              help="Games recorded per round, split over the game's player counts (default: its training role's).")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True,
              help="Seed of the recorded games, the fits and the gates.")
@click.option("--start", default="zero", show_default=True,
              help="Round 0's weights: zero (from scratch: every weight 0, the player falls back on its "
                   "tie-break or heuristic), default (the shipped file) or PATH (a weights file).")
@click.option("--play", default=None,
              help="Policy that plays the recorded games (a learned one plays the best weights so far). "
                   "Default: the game's training role's.")
@click.option("--play-param", "play_params", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the --play policy (repeatable), e.g. iterations=200: a search "
                   "recording deeper than its default (where the game's training reads a search's "
                   "visit counts as move priors).")
@click.option("--players", "player_shares", multiple=True, metavar="N=SHARE",
              help="Share of the recorded games at N players (repeatable; replaces the game's training role's "
                   "shares), e.g. --players 1=0.3 --players 2=0.4 --players 3=0.1 --players 4=0.1 --players 5=0.1.")
@click.option("--explore", type=FiniteFloatRange(min=0.0, max=1.0), default=None,
              help="Share of random decisions in recorded games (default: the game's training role's; "
                   "0 only for a game whose training records the players' own decisions).")
@click.option("--gate-policy", default=None,
              help="Learned policy of the head-to-heads (gate and strength), with each side's weights, and of "
                   "the game's tuning for play, if it tunes, so the weights are trained for its play. "
                   "Default: the game's training role's.")
@click.option("--gate-games", type=click.IntRange(min=1, max=1_000_000), default=200, show_default=True,
              help="Deals of the gate (two-player games, both seat orders) against the best so far.")
@click.option("--strength-games", type=click.IntRange(min=0, max=1_000_000), default=200, show_default=True,
              help="Deals against the shipped weights and against the heuristic per round (0: not measured).")
@click.option("--keep", type=click.Choice(["share", "lower"]), default="share", show_default=True,
              help="Keep a round when its gate win share is above 50% (share) or its 95% lower bound is (lower).")
@_jobs_option("Parallel workers (default: every core). Does not change the result.")
@click.option("--resume", is_flag=True, help="Continue the training in --out after its last finished round.")
@_backend_options
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def train(game, rules_file, settings, out, rounds, games, seed, start, play, play_params, player_shares, explore,
          gate_policy, gate_games, strength_games, keep, jobs, resume, backend, scheduler, quiet):
    """Train GAME's learned evaluation for the rules given, by expert iteration.

    Round 0 is --start. Each later round records --games games, fits the evaluation on all the
    data so far (the game's training.record and training.fit) and keeps the new weights only if
    they beat the best so far head to head. Writes OUT/round-NN.npz (+ .json card) per round,
    OUT/best.npz (the latest kept) and OUT/report.html. Seat the result in a study with
    {policy: strong, params: {weights: OUT/best.npz}} (or learned).
    """
    import shlex

    from simulator.rundir import DEFAULT_REPORTS_DIR
    from simulator.train.loop import run_training
    from simulator.train.settings import TrainSettings, training_role

    defaults = training_role(game)
    knobs = _rules_file(rules_file) if rules_file is not None else {}
    knobs.update(_parse_settings(settings))
    if explore not in (None, 0.0) and not defaults.explore_allowed:
        raise ZoosimError(f"{game} records the players' own decisions only; --explore must be 0", key="--explore")
    chosen = TrainSettings(
        game=game, rules=knobs, rounds=rounds, games=games or defaults.games, seed=seed, start=start,
        play=play or defaults.play, gate_policy=gate_policy or defaults.gate_policy, gate_games=gate_games,
        strength_games=strength_games, keep=keep, explore=defaults.explore if explore is None else explore,
        players=_player_shares(player_shares) or dict(defaults.players), play_params=_parse_settings(play_params, option="--play-param", what="key"))
    _checked_training(chosen, rules_file, bool(settings))
    out = out or DEFAULT_REPORTS_DIR / f"{game}-train-{chosen.digest()[:8]}"
    words = _given_options(click.get_current_context(), skip=("out", "resume", "quiet"))
    command = shlex.join(["zoosim", "train", game, *words, "--out", str(out)])
    try:
        outcome = run_training(chosen, out, command=command, jobs=jobs_or_every_core(jobs), backend=backend,
                               scheduler=scheduler, resume=resume, progress=not quiet)
    except KeyboardInterrupt as stop:
        _exit_stopped(stop, f"; every finished round is kept in {out}. Resume with:\n  {command} --resume")
    click.echo(f"best: round {outcome.best_round} in {out / 'best.npz'}")
    click.echo(f"training report: {outcome.report}")


def _given_options(ctx: click.Context, skip: tuple[str, ...]) -> list[str]:
    """The options given on the command line, as words (what made a training, for its card)."""
    words = []
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in skip:
            continue
        if ctx.get_parameter_source(param.name) != click.core.ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[param.name]
        flag = param.opts[0] if param.opts[0].startswith("--") else param.opts[-1]
        if param.is_flag:
            words.append(flag)
        else:
            for item in value if param.multiple else [value]:
                words += [flag, str(item)]
    return words


def _rules_file(path: Path) -> dict:
    from simulator.config import read_yaml_mapping

    document, _ = read_yaml_mapping(path, what="a rules file must be a mapping of rule knobs (as a study's rules:)")
    return document


def _player_shares(given: tuple[str, ...]) -> dict[int, float]:
    """`--players N=SHARE` pairs as {player count: share}; {} when none is given."""
    shares = {}
    for pair in given:
        count, _, share = pair.partition("=")
        try:
            players, value = int(count), float(share)
        except ValueError:
            players, value = 0, 0.0
        if players < 1 or not value > 0 or value == float("inf"):
            raise ZoosimError(f"takes N=SHARE (a player count of at least 1 and a share above 0), got '{pair}'",
                              key="--players")
        shares[players] = value
    return shares


def _checked_training(chosen, rules_file: Path | None, chosen_by_set: bool) -> None:
    """check_settings, a rule problem named by where the rules came from (--rules FILE, --set)."""
    from simulator.train.settings import check_settings

    try:
        check_settings(chosen)
    except ZoosimError as error:  # a rule knob's problem (its key, or none for one of the whole rules)
        if error.file is None and not (error.key or "").startswith("--") and error.key != "GAME":
            where = " and ".join(filter(None, (rules_file and str(rules_file), chosen_by_set and "--set")))
            raise ZoosimError(error.detail, file=where or None, key=error.key) from None
        raise


@main.command(cls=PlayCommand)
@click.argument("game", type=GameName(), metavar="GAME")
@click.option("--players", type=click.IntRange(min=1), default=None, help="Number of players.")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True,
              help="Game seed; the same seed replays the same game.")
@click.option("--rotation", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seat rotation of the deal (slot j sits in seat (j + rotation) mod n).")
@click.option("--policy", default=None,
              help="Policy for every seat, or one per seat separated by commas (e.g. greedy,random).")
@click.option("--set", "settings", multiple=True, metavar="KNOB=VALUE",
              help="Set a rule knob (repeatable), e.g. --set blocked_cell_rule=dead_cell.")
def play(game, players, seed, rotation, policy, settings):
    """Print one game of GAME turn by turn: board, hands, every decision, final scores; first a
    key to the codes it uses (below for every game)."""
    from simulator.games import get_game
    from simulator.games.base import call_game, game_legend, player_count
    from simulator.games.kernel_cache import compile_progress

    module = get_game(game)
    knobs = _parse_settings(settings)
    if players is not None:
        knobs["players"] = players
    params = module.make_params(knobs)
    n = player_count(module, params)
    names = [name.strip() for name in (module.default_policy if policy is None else policy).split(",")]
    if not all(names):
        raise ZoosimError(f"--policy names no policy in {policy!r} (give a policy, or one per seat separated by commas)")
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise ZoosimError(f"--policy lists {len(names)} policies for {n} players")
    seat_policies = module.seat_policies([(name, {}) for name in names])
    if module.legend is not None:
        click.echo(game_legend(module, params) + "\n")
    with compile_progress(game, kernel_set=f"{game} step API"):
        text = call_game(module, "trace()", module.trace, params, seat_policies, seed, rotation % n)
    click.echo(text)


@main.command()
@click.argument("game", type=GameName(), metavar="[GAME]", required=False)
def rules(game):
    """List every rule knob of GAME with its default, allowed values and rule id, and every
    preset with what it sets; without GAME, list the registered games."""
    import json

    from simulator.games import get_game, registered_games
    from simulator.games.base import flatten_dotted

    if game is None:
        click.echo("games (`zoosim rules GAME` lists a game's knobs and policies):")
        for name, target in registered_games().items():
            try:
                title = get_game(name).title
            except ZoosimError as error:  # one broken plugin must not hide the other games
                title = f"unusable: {error}"
            click.echo(f"{name}: {title}   [{target}]")
        return
    module = get_game(game)
    click.echo(f"{module.title}: rule knobs (rules version {module.rules_version}); "
               "set them under `rules:` in an experiment or with `zoosim play --set`.\n")
    for knob in module.knobs():
        click.echo(f"{knob.name} = {knob.default}   [{knob.rule}]")
        per_seat = " (per seat: entry i is seat i in turn order)" if knob.per_seat else ""
        click.echo(f"    allowed: {knob.allowed}{per_seat}")
        if knob.description:
            click.echo(f"    {knob.description}")
    click.echo("\npresets (`preset: NAME` under `rules:`, the first is the default; knobs set "
               "beside it override what it sets):")
    for name, settings in module.presets.items():
        sets = ", ".join(f"{knob}={json.dumps(value)}" for knob, value in flatten_dotted(settings).items())
        click.echo(f"  {name}: {sets or 'the defaults above'}")
    click.echo("\npolicies (seat them by name; set parameters with {policy: NAME, params: {...}}):")
    for name, spec in module.policies.items():
        default = " (default)" if name == module.default_policy else ""
        click.echo(f"{name}{default}: {spec.description}")
        for parameter in spec.params:
            click.echo(f"    {parameter} = {spec.describe_value(parameter)}   "
                       f"{spec.param_help.get(parameter, '')}".rstrip())


@main.command()
@click.argument("experiment", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--port", type=click.IntRange(min=0, max=65535), default=8765, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@_jobs_option("Threads a live run plays on [default: all cores].")
@click.option("--out", type=click.Path(file_okay=False), callback=_named_path, default="reports/studio",
              show_default=True, help="The only folder the studio writes in (saved experiments and runs).")
def studio(experiment, port, jobs, out):
    """Change rules in the browser and watch the seat verdict settle (docs/studio.md): serves a
    page on 127.0.0.1 that starts from EXPERIMENT's first study (default: the first registered
    game's defaults)."""
    from simulator.studio.server import run_studio

    run_studio(experiment, out, jobs_or_every_core(jobs), port,
               announce=lambda url: click.echo(f"zoosim studio: open {url}\n(Ctrl-C stops it; it writes only in "
                                               f"{out})", err=True))


@main.command()
@click.argument("game", type=GameName(), metavar="[GAME]", required=False)
@click.option("--players", type=click.IntRange(min=1), multiple=True, help="Player counts (default: all).")
@click.option("--policy", multiple=True, help="Policies (default: all).")
@click.option("--seconds", type=FiniteFloatRange(min=0.05, max=3600), default=1.0, show_default=True,
              help="Measuring time per line.")
def bench(game, players, policy, seconds):
    """Games per second per core of each policy and player count (one core, after compiling)."""
    from simulator.bench import run_bench

    for line in run_bench([game] if game else None, players, policy, seconds):
        click.echo(line)


def console() -> None:
    """The `zoosim` process (the console script and `python -m simulator.cli`): `main`, then a
    quick exit (processes.run_console)."""
    run_console(main)


if __name__ == "__main__":
    console()
