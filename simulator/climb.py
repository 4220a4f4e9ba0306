"""Ladders that climb until their two top rungs agree (`climb: {max_climbs: N}` in a ladder study).

After a ladder is played, each climbing ladder is judged per player count by the ladder verdict
(analysis/tables.py `ladder_comparison`: the two strongest rungs' seat deviations shown
equivalent within the margin is *stable*, the project's equivalence rule). While the verdict is
not stable and fewer than N rungs were added at that player count, the climb adds a rung one
step stronger than the top rung, the step its policy declares (games/base.py `Climb`: a search's
iterations doubled, a learned player's temperature halved or, at 0, the next kept round of its
training), with the top rung's own game count:
its self-play cell and its head-to-head with the top rung (plan.climbed_rung_cells). Then the
new cells are played and every climbing ladder judged again. A climb stops when the top rungs
agree ("agreed"), at the cap ("cap reached"), or when the top rung cannot climb ("cannot climb:
..." with the reason: a heuristic has no strength parameter, or the step leaves its range).

Determinism and resuming: a decision depends only on the games played, which depend only on
their seeds, and added cells are seeded from the experiment's seed and what they play; so a
resumed or re-run climb makes the same decisions, adds the same cells under the same numbers
and skips their finished chunks, for any --jobs and backend. A ladder at one player count that
has stopped is never reopened. The record of each climb (`ClimbRecord`) goes into the manifest
(`climbs`), which the report and the terminal show.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simulator.config import Rung, SeatSpec
from simulator.games import get_game
from simulator.plan import Cell, Plan, climbed_rung_cells, policy_label, resolved_player

AGREED = "agreed"
CAP_REACHED = "cap reached"
CANNOT_CLIMB = "cannot climb"
# The ladder verdict at which a climb stops: the two top rungs shown equivalent.
AGREEING_VERDICT = "stable"


@dataclass
class ClimbRecord:
    """One climbing ladder at one player count: the rungs it added (as the experiment file would
    write them, and their labels), the ladder verdict each judgment gave (the first before any
    climb, the last the one it stopped at), and why it stopped (None while it climbs)."""

    study: str
    players: int
    max_climbs: int
    added: list[dict[str, Any]] = field(default_factory=list)  # Rung.model_dump of each added rung
    labels: list[str] = field(default_factory=list)  # policy_label of each added rung
    steps: list[str] = field(default_factory=list)  # how each was made ("iterations 12 -> 24 (...)")
    verdicts: list[str] = field(default_factory=list)
    stopped: str | None = None


def climb_records(plan: Plan) -> list[ClimbRecord]:
    """A fresh record per climbing ladder study and player count (solo cells have no ladder
    verdict: nothing to climb for), in plan order."""
    records: dict[tuple[str, int], ClimbRecord] = {}
    for study in plan.experiment.studies:
        if study.climb is None:
            continue
        name = study.name or study.game
        for cell in plan.cells:
            if cell.study == name and cell.players > 1:
                records.setdefault((name, cell.players), ClimbRecord(name, cell.players, study.climb.max_climbs))
    return list(records.values())


def start_climbs(plan: Plan) -> None:
    """Put fresh climb records on the plan (the manifest then shows the climbs from the start)."""
    plan.climbs = [asdict(record) for record in climb_records(plan)]


def climb_once(plan: Plan, run_dir: Path, progress: bool = False) -> list[Cell]:
    """Judge every climbing ladder still climbing from the games in `run_dir` and add, where it
    climbs on, the next rung's cells to the plan; returns the cells added (none: every climb has
    stopped). The plan's records are updated either way."""
    from simulator.analysis.tables import analyze_run
    from simulator.rundir import read_manifest

    records = [ClimbRecord(**record) for record in plan.climbs]
    analysis = analyze_run(run_dir, read_manifest(run_dir))
    verdicts = {(row["study"], int(row["players"])): row for _, row in analysis.ladder.iterrows()}
    added: list[Cell] = []
    for record in records:
        if record.stopped is not None:
            continue
        row = verdicts.get((record.study, record.players))
        verdict = row["verdict"] if row is not None else "unresolved"
        record.verdicts.append(verdict)
        if verdict == AGREEING_VERDICT:
            record.stopped = AGREED
        elif len(record.added) >= record.max_climbs:
            record.stopped = CAP_REACHED
        else:
            cells = _climb(plan, record)
            added += cells
            plan.cells += cells
        if progress:
            print(_progress_line(record, verdict), file=sys.stderr)
    plan.climbs = [asdict(record) for record in records]
    return added


def _climb(plan: Plan, record: ClimbRecord) -> list[Cell]:
    """The cells of the rung one step above the record's top rung (recorded on it), or none when
    the top rung cannot climb (the record then says why)."""
    study_index, study = next((index, study) for index, study in enumerate(plan.experiment.studies)
                              if (study.name or study.game) == record.study)
    rungs = [_as_rung(entry) for entry in study.ladder] + [Rung(**rung) for rung in record.added]
    top = rungs[-1]
    spec = get_game(study.game).policies[top.policy]
    if spec.climb is None:
        record.stopped = f"{CANNOT_CLIMB}: {top.policy} declares no step stronger (a player without a strength parameter)"
        return []
    params, step = spec.climb.step(spec, top.params)
    if params is None:
        record.stopped = f"{CANNOT_CLIMB}: {policy_label(top.policy, top.params)}: {step}"
        return []
    climbed = Rung(policy=top.policy, params=params, games=top.games)
    player = resolved_player(study, climbed)
    if any(resolved_player(study, rung) == player for rung in rungs):
        record.stopped = f"{CANNOT_CLIMB}: its next step {policy_label(climbed.policy, climbed.params)} is a rung already"
        return []
    like = next(cell for cell in plan.cells if cell.study == record.study and cell.players == record.players)
    record.added.append(climbed.model_dump(mode="json", exclude_none=True))
    record.labels.append(policy_label(climbed.policy, climbed.params))
    record.steps.append(step)
    return climbed_rung_cells(plan, study_index, like, top, climbed)


def _as_rung(entry: str | SeatSpec) -> Rung:
    """A ladder entry (a name, a seat spec or a rung) as a rung."""
    if isinstance(entry, str):
        return Rung(policy=entry)
    return entry if isinstance(entry, Rung) else Rung(policy=entry.policy, params=entry.params)


def _progress_line(record: ClimbRecord, verdict: str) -> str:
    where = f"{record.study} at {record.players} players"
    if record.stopped is not None:
        return f"climb: {where}: {verdict}; climb stopped ({record.stopped}) after {len(record.added)} added rung(s)"
    return (f"climb: {where}: {verdict}; climbing to {record.labels[-1]} "
            f"({len(record.added)} of at most {record.max_climbs}; {record.steps[-1]})")
