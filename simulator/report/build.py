"""Renders a run folder into one self-contained HTML report (`RUN_DIR/report.html`).

Reads only the run folder (manifest, run.json, logs), so `zoosim report RUN_DIR` re-renders a
report without replaying a game. Charts are inline SVG, tables are plain HTML (each number also
carried raw in a `data-value` attribute) with a CSV download as a data URL; nothing is fetched.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any, Collection

import jinja2
import numpy as np
import pandas as pd

import yaml

from simulator.analysis import stats
from simulator.analysis.explain import (
    REST_NAMES, ExplainAnalysis, explain_run, explain_sentence, much_unexplained, not_shown_explained_text, ordered_shares,
    unused_knobs_text,
)
from simulator.analysis.gameplay import FIGURES, run_gameplay
from simulator.analysis.tables import MIN_GAMES, PER_SEAT, Analysis, analyze_run, claim_phrases, seat_swaps
from simulator.analysis.turn_order import lead_sentence
from simulator.config import Experiment, parse_experiment
from simulator.errors import ZoosimError
from simulator.manifest_cell import ManifestCell
from simulator.plan import flatten_dotted
from simulator.report import charts
from simulator.report.matching import any_pair
from simulator.rundir import (
    MANIFEST, REPORT, no_games_error, read_experiment_text, read_manifest, read_run_info, real_path, report_command,
    resume_command, write_text_atomic,
)
from simulator.samples import read_samples
from simulator.version import __version__

PACKAGES = ("numpy", "numba", "pandas", "pyarrow", "scipy", "matplotlib", "joblib", "pydantic")


def build_report(run_dir: Path, out: Path | None = None, from_logs: bool = False,
                 detail_cells: Collection[int] = ()) -> tuple[Path, Analysis]:
    """Write the report; the numbers come from the chunks' summaries, or with `from_logs` from
    the logs themselves (the same numbers, slower). A run of more than DETAIL_CELLS cells shows
    the detail of the cells furthest from fair and of `detail_cells` (`detailed_cells`)."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir, Experiment)
    _refuse_unknown_cells(detail_cells, manifest, run_dir)
    out = Path(out) if out else run_dir / REPORT
    with charts.library_warnings_quiet():
        analysis = analyze_run(run_dir, manifest, from_logs=from_logs)
        if out.exists() and not any(totals.games for totals in analysis.totals.values()):
            # A report with games is never replaced by one without (issue #22, finding 8): the
            # chunks were removed or all failed verification, which the warnings above named.
            raise no_games_error(run_dir, manifest, kept=f"; {out.name} is kept as it was")
        # an explain study's settings are paired deal by deal, which needs the logs (explain.py)
        explain = explain_run(run_dir, manifest) if any(cell.explain for cell in manifest["cells"]) else None
        detailed = detailed_cells(manifest, analysis, detail_cells)
        page = render_html(manifest, read_run_info(run_dir), analysis, read_experiment_text(run_dir),
                           previous_run(run_dir, manifest), resume_command(manifest.get("experiment_file"), run_dir),
                           read_samples(run_dir, manifest["run_hash"]), explain,
                           run_gameplay(run_dir, manifest, cells=detailed), detailed, report_command(run_dir))
    write_text_atomic(out, page)
    return out, analysis


def _refuse_unknown_cells(indices: Collection[int], manifest: dict[str, Any], run_dir: Path) -> None:
    unknown = sorted(set(indices) - {cell.index for cell in manifest["cells"]})
    if unknown:
        raise ZoosimError(f"--cell {unknown[0]}: the run has no such cell (its cells are numbered 0 to "
                          f"{len(manifest['cells']) - 1}, as in the report's table of every cell)", file=str(run_dir))


def detailed_cells(manifest: dict[str, Any], analysis: Analysis, also: Collection[int] = ()) -> set[int] | None:
    """The cells whose detail section the report shows: every cell of a run of at most
    DETAIL_CELLS cells (None), else the DETAIL_CELLS furthest from fair (the largest seat
    deviation from fair, in points) and `also`. Nobody reads 10,000 sections; every cell's
    verdict is in the table of every cell, and rendering each cell's charts and tables would
    cost a large run minutes."""
    if len(manifest["cells"]) <= DETAIL_CELLS:
        return None
    cells = analysis.cells
    distance = cells["max_signed_deviation_points"].abs().fillna(-1.0) if len(cells) else pd.Series(dtype=float)
    furthest = cells.assign(distance=distance).sort_values(["distance", "cell"], ascending=[False, True], kind="stable")
    return {int(index) for index in furthest["cell"].head(DETAIL_CELLS)} | set(also)


def explain_lines(explain: ExplainAnalysis | None) -> list[dict[str, str]]:
    """One sentence per explained cell (label, sentence): the explain section's lead, and what
    `zoosim run` and `zoosim report` print after the verdicts."""
    if explain is None:
        return []
    return [{"label": cell["label"], "sentence": explain_sentence(cell, _group_shares(explain, cell["group"]))}
            for _, cell in explain.cells.iterrows()]


def _group_shares(explain: ExplainAnalysis, group: int) -> pd.DataFrame:
    if not len(explain.shares):
        return pd.DataFrame(columns=["mechanism", "rules", "share", "interacts"])
    return ordered_shares(explain.shares[explain.shares["group"] == group])


def explain_view(explain: ExplainAnalysis | None) -> list[dict[str, Any]]:
    """The explain section: per explained cell its sentence, waterfall chart and table."""
    views = []
    for line, (_, cell) in zip(explain_lines(explain), explain.cells.iterrows() if explain is not None else []):
        shares = _group_shares(explain, cell["group"])
        ready = cell.get("deals", 0) >= MIN_GAMES and not pd.isna(cell.get("deviation"))
        # where much stays unexplained: the knobs a designer could add as mechanisms
        unused = ready and much_unexplained(cell) and bool(cell.get("unused_knobs"))
        views.append({
            "group": int(cell["group"]), "label": cell["label"], "sentence": line["sentence"],
            **dict(zip(("lead", "detail"), lead_and_detail(line["sentence"]))),
            "chart": charts.explain_waterfall(shares, cell, REST_NAMES[cell["method"]]) if ready else None,
            "table": table_view(shares.assign(interacts=shares["interacts"].map({True: "yes", False: "no"})),
                                f"explain-table-{int(cell['group'])}", EXPLAIN_COLUMNS) if ready else None,
            "deals": int(cell.get("deals", 0)),
            "share_deals": int(cell.get("share_deals", cell.get("deals", 0))),
            "pairing_gain": cell.get("pairing_gain"),
            "unused_knobs": unused_knobs_text(cell) if unused else None,
            "not_shown_explained": not_shown_explained_text(cell) if unused else None,
        })
    return views


def render_html(
    manifest: dict[str, Any],
    run_info: dict[str, Any],
    analysis: Analysis,
    experiment_text: str,
    previous: dict[str, Any] | None = None,
    resume: str | None = None,
    sample_games: dict[str, dict[str, str]] | None = None,
    explain: ExplainAnalysis | None = None,
    gameplay: pd.DataFrame | None = None,
    detailed: set[int] | None = None,
    report: str = "zoosim report RUN_DIR",
) -> str:
    """The report page; a cell without a finished game yet shows how to resume the run. Only the
    cells in `detailed` get a detail section (None: every cell); `report` is the command that
    writes this report, to which the page says to add `--cell NUMBER` for another cell's detail."""
    experiment = manifest["experiment"]
    margin = float(experiment.get("margin_points", 1.0))
    samples_pending = sample_games is None  # the run has not drawn them yet (it does at its end)
    sample_games = sample_games or {}
    studies = []
    ladders = ladder_studies(experiment)
    # each cell's gameplay rows, split once (a mask per cell made a 10,000-cell report quadratic)
    gameplay_of = {} if gameplay is None or not len(gameplay) else dict(tuple(gameplay.groupby("cell", sort=False)))
    for study_name, study_cells in _group_by_study(manifest["cells"]).items():
        y_limits = _study_deviation_limits(study_cells, analysis, margin)
        shown = study_cells if detailed is None else [cell for cell in study_cells if cell.index in detailed]
        cells = [_cell_view(cell, analysis, margin, y_limits, ladders) or _pending_cell_view(cell, analysis)
                 for cell in shown]
        for view, cell in zip(cells, shown):
            view["gameplay"] = gameplay_view(view["index"], gameplay_of.get(view["index"]),
                                             analysis.of_cell("lengths", view["index"]))
            view["round_score_meaning"] = cell.round_score_meaning
        # a ladder's cells are rungs and head-to-heads, drawn by its own charts; an explain study's
        # are settings of one rule set, explained by its own section
        drawn_apart = study_name in ladders or any(cell.explain for cell in study_cells)
        sweep_charts = [] if drawn_apart else _sweep_charts(study_cells, analysis, margin, study_key(study_name))
        studies.append(
            {
                "name": study_name,
                "key": study_key(study_name),
                "game": study_cells[0].game,
                "cells": cells,
                "heatmap": sweep_charts[0] if sweep_charts else None,
                "sweep_charts": sweep_charts[1:],
                "cells_shown": len(cells) <= CELLS_SHOWN,
                # a run over DETAIL_CELLS: how many of the study's cells have their detail shown
                "detail_limit": None if detailed is None else {"shown": len(cells), "cells": len(study_cells)},
                "sample_game": sample_games.get(study_name),
                "sample_pending": samples_pending,
                **_tournament_view(study_name, analysis, study_key(study_name)),
                "ladder": _ladder_view(study_name, study_cells, analysis, rung_models(study_cells), manifest),
            }
        )
    sessions = run_info.get("sessions", [])
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("simulator.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["count"] = lambda value: f"{int(value):,}"
    template = environment.get_template("report.html")
    lines = summary(manifest, analysis)
    return template.render(
        title=experiment.get("name") or "zoosim run",
        description=experiment.get("description", ""),
        overrides=command_line_overrides(experiment_text, experiment),
        previous=previous,
        summary=lines,
        ladder_lines=lines[:len(analysis.ladder)],
        heatmaps=[study for study in studies if study["heatmap"]],
        trained=trained_lines(manifest["cells"]),
        reference_lines=reference_lines(manifest["cells"]),
        explained=explain_view(explain),
        studies=studies,
        margin=margin,
        cells_table=table_view(_with_findings(analysis.cells, detailed), "cells", CELL_COLUMNS),
        cells_table_shown=len(analysis.cells) <= CELLS_SHOWN,
        games_played=int(analysis.cells["games"].sum()) if len(analysis.cells) else 0,
        # playing time: numba's compiling of kernels not yet cached is said apart
        compile_seconds=sum(s.get("compile_seconds", 0.0) for s in sessions),
        run_seconds=sum(s["seconds"] for s in sessions),
        sessions=sessions,
        experiment_text=experiment_text,
        experiment_json=json.dumps(experiment, indent=2),
        run_hash=manifest["run_hash"],
        resume=resume,
        cells=manifest["cells"],
        detail_cells=DETAIL_CELLS if detailed is not None else None,
        report_command=report,
        versions=_versions(),
    )


SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def command_line_overrides(experiment_text: str, experiment: dict[str, Any]) -> list[str]:
    """The run's `--games` and `--seed` overrides, found by resolving the experiment file alone
    and comparing with what ran (the manifest's experiment), e.g. "--games 2,000 (the file asks
    for 250,000 per cell)". Empty when the file ran as written."""
    try:
        # libyaml's parser where PyYAML has it: the same document, 20 times faster (a 10,000-cell
        # sweep's file took seconds in the pure-Python one)
        document = yaml.load(experiment_text, Loader=SAFE_LOADER) if experiment_text else None
        as_written = parse_experiment(document).model_dump(mode="json") if isinstance(document, dict) else None
    except (yaml.YAMLError, ZoosimError):
        return []
    if as_written is None:
        return []
    lines = []
    file_games, ran_games = (
        [_games_text(study.get("games") or resolved["games"]) for study in resolved["studies"]]
        for resolved in (as_written, experiment)
    )
    if file_games != ran_games:
        lines.append(f"--games {_games_text(experiment['games'])} (the file asks for "
                     f"{' / '.join(dict.fromkeys(file_games))} per cell)")
    if as_written["seed"] != experiment["seed"]:
        lines.append(f"--seed {experiment['seed']} (the file's seed is {as_written['seed']})")
    return lines


def _games_text(games: Any) -> str:
    return f"{games:,}" if isinstance(games, int) else "precision mode"


def previous_run(run_dir: Path, manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The latest earlier run of the same experiment (same name or same source file) in the same
    parent folder, and the settings and knobs in which this run differs from it; None when there
    is none or nothing differs (then the report says nothing). The suggested `zoosim compare` is
    given only when the two runs have cells that compare pairs."""
    this_time = (run_dir / MANIFEST).stat().st_mtime
    this_folder = real_path(run_dir)
    earlier = []
    for folder in run_dir.parent.iterdir() if run_dir.parent.is_dir() else []:
        other = folder / MANIFEST
        if real_path(folder) == this_folder or not other.is_file():
            continue
        other_time = other.stat().st_mtime
        if other_time >= this_time:
            continue  # not an earlier run: no need to read its manifest
        try:
            candidate = read_manifest(folder, Experiment)
        except ZoosimError:
            continue
        same_name = candidate.get("experiment", {}).get("name") == manifest["experiment"].get("name")
        same_file = manifest.get("experiment_file") and candidate.get("experiment_file") == manifest.get("experiment_file")
        if same_name or same_file:
            earlier.append((other_time, folder.name, candidate))
    if not earlier:
        return None
    _, name, candidate = max(earlier, key=lambda entry: entry[:2])
    differences = flat_differences(_comparable(candidate["experiment"]), _comparable(manifest["experiment"]))
    seated = [[cell for cell in cells if cell.players > 1] for cells in (candidate["cells"], manifest["cells"])]
    command = shlex.join(["zoosim", "compare", str(run_dir.parent / name), str(run_dir)]) if any_pair(*seated) else None
    return {"folder": name, "differences": differences, "command": command} if differences else None


def experiment_settings(experiment: dict[str, Any]) -> dict[str, Any]:
    """An experiment's run-wide settings (seed, games, margin, ...): without its name and free
    text, which change no game, and without its studies."""
    return {k: v for k, v in experiment.items() if k not in ("name", "description", "studies")}


def _comparable(experiment: dict[str, Any]) -> dict[str, Any]:
    """An experiment's settings and studies (keyed by name) for comparing two runs."""
    studies = experiment.get("studies", [])
    return {**experiment_settings(experiment),
            "studies": {study.get("name") or f"#{index}": study for index, study in enumerate(studies)}}


def _group_by_study(cells: list[ManifestCell]) -> dict[str, list[ManifestCell]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault(cell.study, []).append(cell)
    return groups


def ladder_studies(experiment: dict[str, Any]) -> set[str]:
    """The names of an experiment's strength-ladder studies (as cells name their study)."""
    return {study.get("name") or study["game"] for study in experiment["studies"] if study.get("ladder")}


def is_head_to_head(cell: ManifestCell, ladders: set[str]) -> bool:
    """A ladder cell in which two rungs meet: it places them on one strength scale and, its seats
    mixing two players, has no seat verdict of its own."""
    return cell.study in ladders and len(set(cell.seats)) > 1


def players_text(seats: list[str]) -> str:
    """Who played a cell, e.g. "greedy in every seat" or "greedy, random, greedy"."""
    return f"{seats[0]} in every seat" if len(set(seats)) == 1 else ", ".join(seats)


HEAD_TO_HEAD_SENTENCE = ("A ladder head-to-head: it places two rungs on one strength scale and has no seat verdict. "
                         "Players: {players}; their seats mix the two, so see the ladder verdict.")


def _verdict_view(cell: ManifestCell, row: pd.Series, ladders: set[str]) -> dict[str, str]:
    """A cell's verdict and its sentence naming the players behind it, whole and as lead and
    detail; a ladder's head-to-head is labelled as such instead of given a seat verdict."""
    if is_head_to_head(cell, ladders):
        sentence = HEAD_TO_HEAD_SENTENCE.format(players=" and ".join(dict.fromkeys(cell.seats)))
    else:
        sentence = f"{row['sentence']} (players: {players_text(cell.seats)})"
    lead, detail = lead_and_detail(sentence)
    return {"verdict": "head-to-head" if is_head_to_head(cell, ladders) else row["verdict"], "sentence": sentence,
            "lead": lead, "detail": detail}


def trained_lines(cells: list[ManifestCell]) -> dict[str, list[str]]:
    """What the report says of learned players (plan.trained_players): per player, the rules it
    was trained on ("notes"), and per study a warning for its cells whose rules differ from their
    learned players' training rules ("warnings": one line for all of an explain study's
    settings, not one per setting)."""
    notes: dict[tuple[str, str], str] = {}  # by game and player: each game's `learned` has its own weights
    differing: dict[tuple[str, str], list[str]] = {}  # by study and players: the cells' labels
    cells_per_study = Counter(cell.study for cell in cells)
    for cell in cells:
        entries = cell.trained or []
        for entry in entries:
            notes.setdefault((cell.game, entry["player"]),
                             f"{cell.game} {entry['player']}: trained on {entry['rules']}")
        if any(entry["differ"] for entry in entries):
            differing.setdefault((cell.study, _trained_seats_text(entries)), []).append(cell.label)
    warnings = []
    for (study, who), labels in differing.items():
        which = (f"{labels[0]}: its rules differ" if len(labels) == 1 else
                 f"{study}: the rules of {len(labels)} of its {cells_per_study[study]} cells differ")
        warnings.append(f"{which} from the training rules of {who}; the players may misplay what changed")
    return {"notes": list(notes.values()), "warnings": warnings}


def _trained_seats_text(entries: list[dict[str, Any]]) -> str:
    """The seat slots whose learned players were trained on other rules, a player once: "seat
    slots 0 and 1 learned (trained on the printed rules)"."""
    slots: dict[tuple[str, str], list[str]] = {}
    for entry in entries:
        if entry["differ"]:
            slots.setdefault((entry["player"], entry["rules"]), []).append(str(entry["slot"]))
    parts = []
    for (player, rules), numbers in slots.items():
        where = f"seat slot {numbers[0]}" if len(numbers) == 1 else f"seat slots {', '.join(numbers[:-1])} and {numbers[-1]}"
        parts.append(f"{where} {player} (trained on {rules})")
    return "; ".join(parts)


def reference_lines(cells: list[ManifestCell]) -> list[str]:
    """One line per study whose seat-verdict cells seat other players than their game's
    reference players (the cells' `reference_players`, plan.reference_note): who they are, and
    by how much they are weaker or stronger where the shipped ladder rates both. The report's
    summary and the lines `zoosim run` and `zoosim report` print."""
    lines: dict[str, None] = {}
    for cell in cells:
        note = cell.reference_players
        if note is None:
            continue
        players = [entry["player"] for entry in note["players"]]
        gaps = "; ".join(_elo_gap_text(entry, note) for entry in note["players"])
        lines[(f"{cell.study} seats {', '.join(players)}, not the reference player of {note['source']}, "
               f"{note['reference']}: {gaps}. Its verdicts are those of its own players")] = None
    return list(lines)


def _elo_gap_text(entry: dict[str, Any], note: dict[str, Any]) -> str:
    gap = entry["elo_gap"]
    if gap is None:
        return f"{entry['player']} is not rated against it on {note['rated_by']}"
    if round(gap) == 0:
        return f"{entry['player']} is as strong on {note['rated_by']}"
    return f"{entry['player']} is {abs(gap):.0f} Elo {'weaker' if gap < 0 else 'stronger'} on {note['rated_by']}"


def summary(manifest: dict[str, Any], analysis: Analysis) -> list[dict[str, str]]:
    """One line per cell, led by each strength ladder's verdict per player count (its sentence
    names the strongest rung). A cell's line names the players behind its verdict; a ladder's
    head-to-head is labelled as such, not given a seat verdict. The report's summary and the
    lines `zoosim run` and `zoosim report` print."""
    ladders = ladder_studies(manifest["experiment"])
    by_index = {cell.index: cell for cell in manifest["cells"]}
    lines = [
        {"label": f"{row['study']} · ladder at {row['players']} players", "verdict": row["verdict"],
         "sentence": ladder_sentence(row, manifest), "href": f"#{study_key(row['study'])}-ladder",
         "lead": ladder_lead(row)}
        for _, row in analysis.ladder.iterrows()
    ]
    return lines + [{"label": row["label"], "href": f"#cell-{row['cell']}",
                     **_verdict_view(by_index[row["cell"]], row, ladders)}
                    for _, row in analysis.cells.iterrows()]


def ladder_lead(row: pd.Series) -> str:
    """A ladder verdict's finding in a few words (its sentence gives the detail), e.g. "Unbalanced
    with the strongest rung (strong); stable across the ladder"."""
    return (f"{str(row['seat_verdict']).capitalize()} with the strongest rung ({row['strongest']}); "
            f"{row['verdict']} across the ladder.")


def study_key(name: str) -> str:
    """A study's anchor on the page, e.g. "Tic-tac-toe, 2 players" -> "study-tic-tac-toe-2-players"."""
    return "study-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def lead_and_detail(sentence: str) -> tuple[str, str]:
    """A verdict's lead, its first sentence (the finding, at most about 120 characters: issue
    #41), and the detail after it. The sentences of analysis/ put the finding first."""
    lead, _, detail = sentence.partition(". ")
    return (f"{lead}." if detail else lead), detail


def ladder_sentence(row: pd.Series, manifest: dict[str, Any]) -> str:
    """A ladder verdict's sentence (analysis.ladder), followed, for a climbing ladder, by its
    climb at that player count (the manifest's `climbs`, simulator/climb.py)."""
    climb = next((record for record in manifest.get("climbs", [])
                  if record["study"] == row["study"] and record["players"] == row["players"]), None)
    return row["sentence"] if climb is None else f"{row['sentence']} {climb_sentence(climb)}"


def _verdict_item(row: pd.Series, seats: pd.DataFrame, claims: pd.DataFrame, manifest: dict[str, Any]) -> dict[str, Any]:
    """A ladder verdict line of the report: its sentence without the per-seat claims (the
    verdicts' `headline`), with the climb, and the claims as a list, an item per seat and per
    pair of seats that swap places (in one sentence they ran to ten lines at 5 players)."""
    item = {"players": int(row["players"]), "verdict": row["verdict"], "seats": [], "seats_heading": PER_SEAT}
    at = claims[(claims["study"] == row["study"]) & (claims["players"] == row["players"])] if len(claims) else claims
    if len(at):
        def rung(name):
            return seats[(seats["players"] == row["players"]) & (seats["rung"] == name)]

        item["seats"] = claim_phrases(at.sort_values("seat"), seat_swaps(rung(row["strongest"]), rung(row["runner_up"])),
                                      float(manifest["experiment"].get("margin_points", 1.0)))
    headline = row.copy()
    headline["sentence"] = row["headline"]
    item["sentence"] = ladder_sentence(headline, manifest)
    return item


def climb_sentence(record: dict[str, Any]) -> str:
    """A ladder's climb at one player count in words: each rung it added, and why it stopped."""
    labels = record["labels"]
    how = f"added {len(labels)} rung(s): {', '.join(labels)}" if labels else "added no rung"
    verdicts = " -> ".join(record["verdicts"]) or "not judged yet"
    stopped = record["stopped"] or "still climbing (the run is not finished)"
    return f"Climb (at most {record['max_climbs']} rungs): {how}; stopped: {stopped} (ladder verdicts: {verdicts})."


def rung_models(study_cells: list[ManifestCell]) -> list[str]:
    """Per rung of a ladder study, weakest first: what kind of player it models (the cells'
    `rung_models`, plan.rung_model)."""
    models: dict[str, str] = {}
    for cell in study_cells:
        for label, model in (cell.rung_models or {}).items():
            models.setdefault(label, f"{label}: {model}")
    return list(models.values())


def _ladder_view(study_name: str, study_cells: list[ManifestCell], analysis: Analysis,
                 rungs: list[str], manifest: dict[str, Any]) -> dict[str, Any] | None:
    """A ladder study's verdicts in words; per player count its skill curve (each seat's deviation
    from fair against the self-play rungs' strength, `_skill_curve_view`) and a chart of its
    head-to-heads; the numbers as tables (every rung's, those the skill curve cannot place too)."""
    if len(analysis.ladder) == 0 or study_name not in set(analysis.ladder["study"]):
        return None
    seats = analysis.ladder_seats[analysis.ladder_seats["study"] == study_name]
    verdicts = analysis.ladder[analysis.ladder["study"] == study_name]
    key = study_name.replace(" ", "-")
    duels = {cell.index: cell for cell in study_cells if len(set(cell.seats)) > 1}
    policies = analysis.policies[analysis.policies["cell"].isin(list(duels))].copy() if len(analysis.policies) else None
    duel_charts = {}
    if policies is not None and len(policies):
        policies["label"] = [" vs ".join(dict.fromkeys(duels[index].seats)) for index in policies["cell"]]
        policies["fair"] = [1 / duels[index].players for index in policies["cell"]]
        policies["players"] = [duels[index].players for index in policies["cell"]]
        duel_charts = {players: charts.head_to_head_chart(group, f"{players} players: head-to-heads, each policy's "
                                                                 "win rate from fair (the strength scale)")
                       for players, group in policies.groupby("players")}
    return {
        "rungs": rungs,
        "climbs": any(record["study"] == study_name for record in manifest.get("climbs", [])),
        "verdicts": [_verdict_item(row, seats, analysis.ladder_claims, manifest) for _, row in verdicts.iterrows()],
        "charts": [{"players": int(players), "id": f"{study_key(study_name)}-ladder-{players}", "svg": duel_charts[players]}
                   for players in sorted(duel_charts)],
        "table": table_view(seats, f"ladder-{key}", LADDER_COLUMNS),
        "verdict_table": table_view(verdicts, f"ladder-verdicts-{key}", LADDER_VERDICT_COLUMNS),
        **_skill_curve_view(study_name, seats, analysis, float(manifest["experiment"].get("margin_points", 1.0))),
    }


def _skill_curve_view(study_name: str, seats: pd.DataFrame, analysis: Analysis, margin: float) -> dict[str, Any]:
    """The ladder's skill curves (a chart per player count: each seat's deviation against rung
    strength, with the rungs' numbers named in a caption) and its per-seat claims across the
    top two rungs as a table."""
    key = study_name.replace(" ", "-")
    curves = []
    for players, group in seats.groupby("players"):
        order = charts.skill_curve_rungs(group)
        strength = group.drop_duplicates("rung").set_index("rung")["elo"]
        named = [f"{number} {rung} ({strength[rung]:+.0f} Elo)" for number, rung in enumerate(order, start=1)
                 if np.isfinite(strength[rung])]
        unplaced = [rung for rung in order if not np.isfinite(strength[rung])]
        curves.append({
            "players": int(players),
            "svg": charts.skill_curve_chart(group, f"{players} players: skill curve, each seat's points from fair "
                                                   "as the rungs get stronger", margin),
            "caption": f"Rungs: {'; '.join(named)}." + (
                f" Not placed (rating not estimable): {', '.join(unplaced)}; their seats' points from fair are "
                "in the ladder's tables." if unplaced else ""),
        })
    claims = analysis.ladder_claims
    claims = claims[claims["study"] == study_name] if len(claims) else None
    return {"skill_curves": curves, "skill_curve_id": f"skill-curve-{key}",
            "claims_table": table_view(claims, f"ladder-claims-{key}", LADDER_CLAIM_COLUMNS)}


def _study_deviation_limits(study_cells: list[ManifestCell], analysis: Analysis, margin: float) -> tuple[float, float] | None:
    """One y-range (points from fair) for every seat chart of a study, so equal deviations look
    equal from cell to cell."""
    if len(analysis.seats) == 0:
        return None
    players = {cell.index: cell.players for cell in study_cells if cell.players > 1}
    seats = analysis.seats[analysis.seats["cell"].isin(list(players))]
    if len(seats) == 0:
        return None
    return charts.deviation_limits(seats, seats["cell"].map(players), margin)


def _pending_cell_view(cell: ManifestCell, analysis: Analysis) -> dict[str, Any]:
    """A cell without numbers: no finished game yet, or too few to analyse (`analysable`)."""
    totals = analysis.totals.get(cell.index)
    games, rated = (totals.games, totals.rated_games) if totals is not None else (0, 0)
    return {"index": cell.index, "label": cell.label, "pending": True, "games": games, "rated_games": rated,
            "min_games": MIN_GAMES}


# End reasons in words (a game's codes, as its engine records them); a code not listed here is
# shown with its underscores as spaces.
END_REASON_WORDS = {
    "no_face_down": "no face-down card left",
    "keepers_exhausted": "the keepers ran out",
    "no_progress": "no progress possible",
    "complete_in_action": "a zoo completed on an action turn",
    "complete_in_breeding": "a zoo completed during breeding",
    "solo_laps": "the solo laps ran out",
    "turn_cap": "the turn cap was reached",
    "stuck": "no player could move",
    "done": "the game ended",
}


def end_reason_text(code: str) -> str:
    return END_REASON_WORDS.get(code, code.replace("_", " "))


def crn_text(gain: float) -> str:
    """The CRN gain in words: what replaying every deal in every rotation bought."""
    if not np.isfinite(gain) or gain > 1e9:
        return "∞: no deal luck left in the seat comparison"
    if gain < 1.05:
        return (f"×{gain:.2f}: replaying deals in rotation bought no precision here (which seat wins "
                "hardly depends on the deal, so each game counts as one)")
    return f"×{gain:.2f}: each game counted as much as {gain:.1f} games on independent deals"


def _cell_view(cell: ManifestCell, analysis: Analysis, margin: float, y_limits, ladders: set[str]) -> dict[str, Any] | None:
    rows = analysis.of_cell("cells", cell.index)
    if len(rows) == 0:
        return None  # no finished game yet
    row = rows.iloc[0]
    seats = analysis.of_cell("seats", cell.index)
    lengths = analysis.of_cell("lengths", cell.index)
    length_charts, constant_lengths = [], []
    for measure in dict.fromkeys(lengths["measure"]) if len(lengths) else []:
        subset = lengths[lengths["measure"] == measure]
        if subset["value"].nunique() > 1:
            length_charts.append(charts.length_histogram(subset, measure))
        else:
            constant_lengths.append({"measure": measure.replace("_", " "), "value": int(subset["value"].iloc[0])})
    policies = analysis.of_cell("policies", cell.index) if len(analysis.policies) else None
    return {
        "index": cell.index,
        "label": cell.label,
        "row": row,
        "significance_note": _significance_note(row, margin),
        "seats_chart": charts.seat_deviations(seats, cell.players, margin, y_limits) if cell.players > 1 else None,
        "seats_table": table_view(seats, f"seats-cell-{cell.index}", SEAT_COLUMNS),
        "measures_table": table_view(
            analysis.of_cell("measures", cell.index) if len(analysis.measures) else None,
            f"measures-cell-{cell.index}", MEASURE_COLUMNS,
        ),
        "policies_table": (
            table_view(policies, f"policies-cell-{cell.index}", policy_columns(policies))
            if policies is not None and len(policies) else None
        ),
        "length_charts": length_charts,
        "constant_lengths": constant_lengths,
        "turn_order": _turn_order_view(cell, analysis),
        "knobs": json.dumps(cell.params, indent=2),
        "end_reasons": ", ".join(
            f"{end_reason_text(name[4:])} {_share_text(share)}" for name, share in row.items()
            if name.startswith("end:") and share > 0
        ),
        "crn_text": crn_text(float(row["crn_gain"])),
        "statistics": table_view(statistics_rows(row, len(analysis.cells)), f"stats-cell-{cell.index}",
                                 STATISTICS_COLUMNS),
        "score_meaning": cell.score_meaning,
        **_verdict_view(cell, row, ladders),
        "seating": cell.seats,
        "rotate": cell.rotate,
        "games": int(row["games"]),
    }


# A trajectory figure of fewer sampled deals shows no chart or table, only how to sample more:
# a share's 95% interval over 30 deals is still about ±18 points wide, over a handful it spans
# most of 0-100% (`auto` gives a 2,000-game New York Zoo cell 4 deals).
MIN_SHOWN_SAMPLE_DEALS = 30
WITHHELD_TITLE = "From the trajectory sample"


def gameplay_view(cell_index: int, rows: pd.DataFrame | None, lengths: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """The "How the game plays" section of a cell (templates/gameplay.html) from its gameplay
    rows: per figure with rows, its title, note, chart (where its unit declares one; a length
    chart draws the cell's `lengths`) and table (the columns its unit shows; analysis/gameplay);
    the trajectory figures of a sample of too few deals make one last entry instead, whose
    `withheld` names them and says how to sample more."""
    if rows is None or not len(rows):
        return []
    by_figure = dict(tuple(rows.groupby("figure", sort=False)))
    view, withheld, sampled = [], [], 0
    for figure in FIGURES.values():
        if figure.name not in by_figure:
            continue
        figure_rows = by_figure[figure.name]
        if figure.reads_trajectories and (deals := int(figure_rows["deals"].max())) < MIN_SHOWN_SAMPLE_DEALS:
            withheld.append(figure.title)
            sampled = max(sampled, deals)
            continue
        view.append({"title": figure.title, "note": figure.note, "withheld": None,
                     "chart": charts.gameplay_chart(figure.chart, figure_rows, lengths) if figure.chart else None,
                     "table": table_view(figure_rows, f"{figure.name}-cell-{cell_index}", list(figure.shown))})
    if withheld:
        view.append({"title": WITHHELD_TITLE, "note": None, "chart": None, "table": None,
                     "withheld": f"Not shown: {', '.join(withheld)}. The cell's trajectory sample has {sampled} "
                                 f"sampled deals, and a readable interval needs at least {MIN_SHOWN_SAMPLE_DEALS}: set "
                                 f"`trajectory_deals: {MIN_SHOWN_SAMPLE_DEALS}` or more in the study or the experiment to replay "
                                 f"more (`Run.gameplay()` has the rows)."})
    return view


TURN_ORDER_MISSING = ("Some or all of this cell's games were recorded before zoosim kept turn-order facts "
                      "(turns per seat, last mover, ender); play the experiment into a new folder to see them.")


def _turn_order_view(cell: ManifestCell, analysis: Analysis) -> dict[str, Any] | None:
    """The turn-order section of a seat-bias cell: its lead sentence and table
    (analysis.turn_order), or the note that the run predates them."""
    if cell.index not in analysis.turn_order:
        return None  # a solo cell
    turn_order = analysis.turn_order[cell.index]
    if turn_order is None:
        return {"sentence": TURN_ORDER_MISSING, "table": None, "finding": None}
    return {"sentence": lead_sentence(turn_order, cell.players), "finding": turn_order_finding(turn_order),
            "table": table_view(turn_order.seats, f"turn-order-cell-{cell.index}", TURN_ORDER_COLUMNS)}


def turn_order_finding(turn_order) -> str:
    """The turn-order facts a cell's verdict line shows (issue #41: New York Zoo's most useful
    "why", buried in each cell): how often the seats got unequal turns and what seat 0 won in
    those games and in the others; the section's sentence gives the intervals."""
    first = turn_order.seats.iloc[0]
    text = f"{stats.percent_text(turn_order.unequal_rate)} of games ended before every seat had its last turn"
    if first["games_unequal"] > 0 and first["games_equal"] > 0:
        text += (f"; seat 0 won {stats.percent_text(first['win_rate_unequal'])} of those and "
                 f"{stats.percent_text(first['win_rate_equal'])} of the others")
    return text + "."


def _significance_note(row: pd.Series, margin: float) -> dict[str, Any] | None:
    """For a balanced cell whose chi-square test is significant: the numbers that explain why
    that is no contradiction (the template words them)."""
    if row["verdict"] != "balanced" or not row["p_value"] < 0.05:
        return None
    return {"p": _format(row["p_value"], "p"), "p_raw": _raw(row["p_value"]),
            "deviation": float(row["max_signed_deviation_points"]), "games": int(row["games"]), "margin": margin}


def _tournament_view(study_name: str, analysis: Analysis, key: str) -> dict[str, Any]:
    if len(analysis.ratings) == 0:
        return {}
    ratings = analysis.ratings[analysis.ratings["study"] == study_name]
    if len(ratings) == 0:
        return {}
    rated = ratings["elo"].notna().all()
    chart = charts.strength_chart(ratings, "seat advantage against strength") if rated else None
    elo = ratings.set_index("policy")["elo"]
    numbered = [f"{number} {policy} ({elo[policy]:+.0f} Elo)"
                for number, policy in enumerate(charts.strength_order(ratings), start=1)]
    return {
        "ratings_table": table_view(ratings, f"ratings-{study_name}", RATING_COLUMNS),
        "ratings_chart": chart and {"id": f"{key}-ratings", "title": "chart: seat advantage against strength", "svg": chart,
                                    "caption": f"Points: {'; '.join(numbered)}."},
        "strongest": strongest_policy(ratings) if rated else None,
    }


def strongest_policy(ratings: pd.DataFrame) -> dict[str, Any]:
    """The highest-rated policy of a tournament, its Elo interval, the runner-up, and whether the
    two intervals are apart (the template words it: "expectimax is strongest, +181 Elo ...")."""
    order = ratings.sort_values("elo", ascending=False)
    best = order.iloc[0]
    runner_up = order.iloc[1] if len(order) > 1 else None
    return {
        "policy": best["policy"], "elo": float(best["elo"]), "low": float(best["elo_low"]), "high": float(best["elo_high"]),
        "win_rate": float(best["win_rate"]),
        "runner_up": None if runner_up is None else {
            "policy": runner_up["policy"], "elo": float(runner_up["elo"]),
            "apart": bool(best["elo_low"] > runner_up["elo_high"]),
        },
    }


def _share_text(share: float) -> str:
    """A share as a percentage that never shows a nonzero share as 0.0%."""
    return "< 0.1%" if share < 0.001 else f"{share:.1%}"


# A study's sweep charts (the heatmap, one column per cell, and the charts against each knob) are
# drawn for at most this many cells: beyond it no label is readable, and drawing them took minutes
# (a 1,000-cell heatmap alone 48 s); the cells' tables carry the same numbers.
MAX_SWEEP_CHART_CELLS = 200


def _sweep_charts(study_cells: list[ManifestCell], analysis: Analysis, margin: float, key: str) -> list[dict[str, str]]:
    """For a sweep or a list of cases: the seat x cell heatmap of signed points from fair, then
    one chart per knob that takes more than one value on one scale (balance and game length
    against it), each as {id, title, svg} (`key` the study's anchor). Cases may set different
    knobs: a knob a case leaves out takes the value that case plays (the study's rule or the
    default)."""
    knobs = list(dict.fromkeys(knob for cell in study_cells for knob in cell.sweep_values))
    if len(study_cells) < 2 or not knobs or len(analysis.cells) == 0:
        return []
    indices = [cell.index for cell in study_cells]
    cells = analysis.cells[analysis.cells["cell"].isin(indices) & (analysis.cells["players"] > 1)].copy()
    if not 2 <= len(cells) <= MAX_SWEEP_CHART_CELLS:
        return []
    played = {cell.index: knob_values(cell, knobs) for cell in study_cells}
    for knob in knobs:
        cells[f"sweep:{knob}"] = [played[index][knob] for index in cells["cell"]]
    by_label = {cell.index: cell.label for cell in study_cells}
    if any(cell.sweep_values.keys() != study_cells[0].sweep_values.keys() for cell in study_cells):
        # cases with different knob sets: each column is named by what its case sets
        columns = [by_label[index].split(" · ", 1)[-1].replace(", ", "\n") for index in cells["cell"]]
        x_label = "case"
    else:
        columns = ["\n".join(_value_text(played[index][knob]) for knob in knobs) for index in cells["cell"]]
        x_label = " / ".join(knobs)
    title = f"{study_cells[0].study}: points from fair by seat and {' × '.join(knobs)}"
    views = [{"id": f"{key}-heatmap", "title": f"heatmap: points from fair by seat and {' × '.join(knobs)}",
              "svg": charts.seat_heatmap(cells, analysis.seats, columns, x_label, title)}]
    for knob in knobs:
        values = cells[f"sweep:{knob}"]
        if values.nunique() > 1 and _one_scale(values):
            views.append({"id": f"{key}-sweep-{re.sub(r'[^a-z0-9]+', '-', knob)}", "title": f"chart: balance and length by {knob}",
                          "svg": charts.sweep_chart(cells, analysis.seats, knob, knobs, margin)})
    return views


def knob_values(cell: ManifestCell, knobs: list[str]) -> dict[str, Any]:
    """The value each knob (a dotted name) has in the games of a cell: the cell's rules as played
    (presets, defaults and `auto` resolved), for a pseudo-knob such as a tournament's seating its
    sweep value (a table cell's text for lists and groups)."""
    rules = flatten_dotted(cell.rules)
    values = {}
    for knob in knobs:
        value = rules[knob] if knob in rules else cell.sweep_values.get(knob)
        values[knob] = json.dumps(value) if isinstance(value, (list, dict)) else value
    return values


def _value_text(value: Any) -> str:
    return "default" if value is None else str(value)


def _one_scale(values: pd.Series) -> bool:
    """Whether a knob's values can share one axis: all numbers, or all names. A mix such as
    [4, 5, "auto"] cannot (where "auto" falls among the numbers depends on the other rules), so
    such a knob is shown only in the heatmap."""
    numeric = [isinstance(value, (int, float)) and not isinstance(value, bool) for value in values]
    return all(numeric) or not any(numeric)


# A run with more cells than this shows the detail section of this many (`detailed_cells`).
DETAIL_CELLS = 100

# A cell's study with more cells than this lists them collapsed (a ladder's or an explain study's
# dozens), and the answer's table of cells is collapsed too: the page as first shown stays short.
CELLS_SHOWN = 12

def statistics_rows(row: pd.Series, cells: int) -> pd.DataFrame:
    """A cell's statistics panel, one row per figure: the term (its glossary entry's anchor),
    the value and what it says in words. The verdict rests on the intervals; these are for a
    statistician's check."""
    effect = float(row["design_effect"])
    rows = [("games", "glossary-games", row["games"], "int", "games played in this cell"),
            ("design effect", "glossary-design-effect", effect, "times", design_effect_text(effect)),
            ("CRN gain", "glossary-crn-gain", row["crn_gain"], "times", crn_text(float(row["crn_gain"])))]
    if row["players"] > 1:
        rows += [
            ("χ² (chi-square)", "glossary-chi2", row["chi2"], "num",
             f"seat uniformity statistic on {int(row['players']) - 1} degrees of freedom (seats − 1)"),
            ("p", "glossary-chi2", row["p_value"], "p",
             "chance of seat differences at least this large if every seat won equally often"),
            ("p (Holm)", "glossary-holm", row["p_holm"], "p", f"p corrected for testing {cells} cells at once"),
            ("Cohen's w", "glossary-chi2", row.get("cohens_w", np.nan), "num",
             "effect size of the seat differences (0.1 small, 0.3 medium)"),
        ]
        if row["verdict"] == "inconclusive":
            rows.append(("games to decide", "glossary-games-to-decide", row["games_to_decide"], "approx",
                         "games in this cell that would decide the verdict with 80% probability"))
    rows.append(("ties", "glossary-win-share", row["tie_rate"], "pct", "share of games whose win was shared"))
    return pd.DataFrame([{"term": term, "anchor": anchor, "value": value, "style": style, "meaning": meaning}
                         for term, anchor, value, style, meaning in rows])


def design_effect_text(effect: float) -> str:
    """The design effect in words: how many independent games one game of this cell was worth
    (issue #41: "×0.92" unexplained)."""
    if not np.isfinite(effect):
        return "unknown"
    if effect < 0.95:
        return (f"below 1: replaying each deal in every seat rotation made a game worth {1 / effect:.2f} games "
                "on independent deals (deal luck travels with the hand and cancels out)")
    if effect > 1.05:
        return (f"above 1: the games of a deal are alike, so a game is worth {1 / effect:.2f} of a game on an "
                "independent deal; the intervals count that")
    return "about 1: each game counts as one game on an independent deal"


def _with_findings(cells: pd.DataFrame, detailed: set[int] | None = None) -> pd.DataFrame:
    """The answer's table of cells: each cell's verdict lead (its finding in words) beside its
    numbers, and whether the page has its detail section (its label links there)."""
    if len(cells) == 0:
        return cells
    found = cells.assign(finding=[lead_and_detail(sentence)[0] for sentence in cells["sentence"]])
    return found if detailed is None else found.assign(detail=found["cell"].isin(list(detailed)))


# (column, heading, format) for the tables: "pct" shows a rate as a percentage, "int" a count with
# thousands separators, "signed" a signed number, "points" signed points of win rate with their
# unit, "seat" a seat number as "seat 2", "cell" a cell's label linked to its section, "times" a
# factor such as the CRN gain.
SEAT_COLUMNS = [
    ("seat", "seat", "int"),
    ("policy", "policy", "text"),
    ("games", "games", "int"),
    ("win_rate", "win rate", "pct"),
    ("ci_low", "95% low", "pct"),
    ("ci_high", "95% high", "pct"),
    ("sim_low", "simultaneous low", "pct"),
    ("sim_high", "simultaneous high", "pct"),
    ("deviation_points", "points from fair", "points"),
    ("outright_wins", "sole wins", "int"),
    ("shared_wins", "shared wins", "int"),
    ("mean_score", "mean score per game", "num"),
    ("mean_margin", "mean margin (own − best other score)", "signed"),
]
LADDER_COLUMNS = [
    ("players", "players", "int"),
    ("rung", "rung", "text"),
    ("elo", "Elo", "signed"),
    ("elo_low", "Elo low", "signed"),
    ("elo_high", "Elo high", "signed"),
    ("seat", "seat", "int"),
    ("deviation_points", "points from fair", "signed"),
    ("low_points", "simultaneous low (pts)", "signed"),
    ("high_points", "simultaneous high (pts)", "signed"),
    ("verdict", "self-play verdict", "text"),
]
LADDER_VERDICT_COLUMNS = [
    ("players", "players", "int"),
    ("strongest", "strongest rung", "text"),
    ("strongest_elo", "its Elo", "signed"),
    ("seat_verdict", "its seat verdict", "text"),
    ("runner_up", "runner-up", "text"),
    ("verdict", "across the ladder", "text"),
]
LADDER_CLAIM_COLUMNS = [
    ("players", "players", "int"),
    ("seat", "seat", "int"),
    ("strongest", "strongest rung", "text"),
    ("strongest_points", "its points from fair", "signed"),
    ("runner_up", "runner-up", "text"),
    ("runner_up_points", "its points from fair", "signed"),
    ("difference_points", "difference (pts)", "signed"),
    ("difference_low", "90% low", "signed"),
    ("difference_high", "90% high", "signed"),
    ("size", "size", "text"),
    ("side", "side of fair", "text"),
    ("claim", "claim", "text"),
]
EXPLAIN_COLUMNS = [
    ("mechanism", "mechanism", "text"),
    ("rules", "rules", "text"),
    ("knobs", "switched off by", "text"),
    ("share", "share (points)", "signed"),
    ("share_low", "95% low", "signed"),
    ("share_high", "95% high", "signed"),
    ("alone", "alone (points)", "signed"),
    ("alone_low", "95% low", "signed"),
    ("alone_high", "95% high", "signed"),
    ("interaction", "share − alone", "signed"),
    ("interacts", "interacts", "text"),
    ("alone_pairing_gain", "pairing gain (alone)", "times"),
    ("alone_changed_deals", "deals changed (alone)", "pct"),
]

MEASURE_COLUMNS = [
    ("measure", "measure", "text"),
    ("seat", "seat", "int"),
    ("mean", "mean per game", "num"),
    ("ci_low", "95% low", "num"),
    ("ci_high", "95% high", "num"),
]
TURN_ORDER_COLUMNS = [
    ("seat", "seat", "int"),
    ("turns", "turns per game", "num"),
    ("decisions", "decisions per game", "num"),
    ("last_mover_rate", "moved last", "pct"),
    ("ender_rate", "ended the game", "pct"),
    ("games_unequal", "games, unequal turns", "int"),
    ("win_rate_unequal", "win rate, unequal turns", "pct"),
    ("win_unequal_low", "95% low", "pct"),
    ("win_unequal_high", "95% high", "pct"),
    ("games_equal", "games, equal turns", "int"),
    ("win_rate_equal", "win rate, equal turns", "pct"),
    ("win_equal_low", "95% low", "pct"),
    ("win_equal_high", "95% high", "pct"),
]
RATING_COLUMNS = [
    ("policy", "policy", "text"),
    ("games", "games", "int"),
    ("win_rate", "win rate", "pct"),
    ("ci_low", "95% low", "pct"),
    ("ci_high", "95% high", "pct"),
    ("fair_rate", "fair rate", "pct"),
    ("elo", "Elo", "signed"),
    ("elo_low", "Elo low", "signed"),
    ("elo_high", "Elo high", "signed"),
    ("first_seat_advantage_points", "first seat vs own average (pts)", "signed"),
]
# The answer's table: what a designer decides on (the statistics are in each cell's panel).
CELL_COLUMNS = [
    ("label", "cell", "cell"),
    ("players", "players", "int"),
    ("verdict", "verdict", "text"),
    ("most_deviant_seat", "worst seat", "seat"),
    ("max_signed_deviation_points", "its win rate from fair", "points"),
    ("games", "games", "int"),
    ("finding", "finding", "text"),
]
STATISTICS_COLUMNS = [("term", "figure", "term"), ("value", "value", "styled"), ("meaning", "what it says", "text")]


def policy_columns(policies: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Columns of a mixed cell's by-policy table: the policy's overall rate, then per seat."""
    seats = [name for name in policies.columns if name.startswith("seat_") and name.endswith("_rate")]
    return [
        ("slot", "seating slot", "int"),
        ("policy", "policy", "text"),
        ("games", "games", "int"),
        ("win_rate", "win rate", "pct"),
        ("ci_low", "95% low", "pct"),
        ("ci_high", "95% high", "pct"),
    ] + [(name, f"from seat {name[5:-5]}", "pct") for name in seats]


def _format(value: Any, style: str) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if isinstance(value, (float, np.floating)) and np.isinf(value):
        return "never" if style in ("int", "approx") else "∞"
    if style == "pct":
        return f"{value * 100:.2f}%"
    if style == "signed":
        return f"{value:+.2f}"
    if style == "points":
        return f"{value:+.2f} pts"
    if style == "seat":
        return f"seat {int(value)}"
    if style == "int":
        return f"{int(value):,}"
    if style == "approx":
        return f"about {stats.count_text(value)}"
    if style == "p":
        return "< 0.0001" if value < 1e-4 else f"{value:.4f}"
    if style == "times":
        return f"×{value:.2f}"
    if style == "num":
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.2f}"
    if style == "yes_no":
        return "yes" if value else "no"
    return str(value)


# A table frame's columns that say how to show a row, not what it holds: left out of its CSV.
NOT_IN_CSV = ("anchor", "style", "detail")


def table_view(frame: pd.DataFrame | None, table_id: str, columns: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A table view: headings, formatted cells with raw values, and the CSV as a data URL."""
    if frame is None:
        frame = pd.DataFrame()
    columns = [c for c in columns if c[0] in frame.columns]
    # each row's values as iterrows gives them (in the type common to all the frame's columns),
    # without building a Series per row: a 10,000-cell report renders tens of thousands of rows
    names = list(frame.columns)
    rows = [[_table_cell(dict(zip(names, values)), name, style) for name, _, style in columns]
            for values in frame.to_numpy()]
    hidden = [name for name in NOT_IN_CSV if name in names]  # dropping absent columns costs a table milliseconds
    csv = (frame.drop(columns=hidden) if hidden else frame).to_csv(index=False)
    return {
        "id": table_id,
        "headings": [(name, heading) for name, heading, _ in columns],
        "rows": rows,
        "csv_url": "data:text/csv;base64," + base64.b64encode(csv.encode()).decode(),
        "csv_name": f"{table_id}.csv",
    }


def _table_cell(record: dict[str, Any], name: str, style: str) -> dict[str, Any]:
    """One table cell: its text, raw value, and for a "cell" label or a statistics "term" the
    link to the cell's section or to the term's glossary entry ("styled": the row says its
    format)."""
    value = record[name]
    style = record["style"] if style == "styled" else style
    href = {"cell": lambda: f"#cell-{record['cell']}" if record.get("detail", True) else None,
            "term": lambda: f"#{record['anchor']}"}.get(style)
    return {"text": _format(value, style), "raw": _raw(value), "numeric": style not in ("text", "cell", "term", "yes_no"),
            "href": href() if href else None}


def _raw(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def flat_differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Where two nested settings dicts differ, one line per leaf in dotted names, e.g.
    "blocked_cell_rule: dead_cell → keeper_cell" (a leaf one side does not set shows as
    "default": an unset knob or setting takes its default, so an unset one and a null one, such
    as a study's `explain` in a run from before explain studies existed, do not differ)."""
    flat_before, flat_after = flatten_dotted(before), flatten_dotted(after)
    lines = []
    for key in sorted(set(flat_before) | set(flat_after)):
        old, new = flat_before.get(key), flat_after.get(key)
        if old != new:
            lines.append(f"{key}: {_setting_text(key, old)} → {_setting_text(key, new)}")
    return lines


def _setting_text(key: str, value: Any) -> str:
    """A setting's value as the YAML would say it; game counts with thousands separators."""
    if value is None:
        return "default"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) and "games" in key:
        return f"{value:,}"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def _versions() -> dict[str, str]:
    versions = {"zoosim": __version__}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
