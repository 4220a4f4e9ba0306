"""Matplotlib charts rendered to inline SVG strings (no files, no network needed to view).

Conventions every chart keeps (the browser test checks the first three in Chromium):
- legends stand outside the plotting area, so they never cover data;
- tick labels are short or rotated, so neighbours do not overlap;
- SVG groups carry classes for what they are: `xtick`, `ytick`, `legend`, `text` (titles, axis
  labels, annotations), `data` (points, intervals, bars, cells) and `reference` (fair lines and
  bands, which legitimately span the whole plot);
- seat balance is drawn as signed points from fair (above zero: the seat wins more than 1/n).
"""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

plt.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: smaller, searchable, crisp
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "svg.hashsalt": "zoosim",  # stable element ids: same data, same SVG
    }
)

FAIR_COLOUR = "#888888"
BAND_COLOUR = "#d9ead3"
POINT_COLOUR = "#1f5fa8"
DATA = "data"  # gid of data artists (see to_svg)
REFERENCE = "reference"  # gid of fair lines and bands
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "frameon": False, "fontsize": 7}
# Above this many distinct values a length histogram groups values into bins of equal width.
MAX_BARS = 40

_GROUP_CLASSES = re.compile(r'<g id="(xtick|ytick|legend|text)_(\d+)"')
_GID_CLASSES = re.compile(rf'<g id="({DATA}|{REFERENCE})"')


def to_svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog and doctype for inline use
    text = _GROUP_CLASSES.sub(r'<g id="\1_\2" class="\1"', text)
    return _GID_CLASSES.sub(r'<g class="\1"', text)


def measure_title(measure: str) -> str:
    """A record column as words: "enclosures_placed" -> "enclosures placed per game"."""
    return f"{measure.replace('_', ' ')} per game"


def seat_deviations(seats: pd.DataFrame, players: int, margin_points: float, y_limits: tuple[float, float]) -> str:
    """Each seat's win rate as signed points from fair (1/n): point, 95% interval (thick),
    simultaneous interval (thin), the ±margin band; `y_limits` are shared by a study's cells."""
    figure, axes = plt.subplots(figsize=(5.6, 2.6))
    fair = 100.0 / players
    axes.axhspan(-margin_points, margin_points, color=BAND_COLOUR, label=f"fair ±{margin_points:g} pts", gid=REFERENCE)
    axes.axhline(0, color=FAIR_COLOUR, linewidth=1, linestyle="--", label=f"fair: 1/{players} = {fair:.1f}%", gid=REFERENCE)
    x = seats["seat"].to_numpy()
    deviation = (seats["win_rate"].to_numpy() - 1 / players) * 100
    for low, high, width in (("sim_low", "sim_high", 1), ("ci_low", "ci_high", 4)):
        axes.vlines(x, (seats[low].to_numpy() - 1 / players) * 100, (seats[high].to_numpy() - 1 / players) * 100,
                    color=POINT_COLOUR, linewidth=width, gid=DATA)
    axes.plot(x, deviation, "o", color="white", markeredgecolor=POINT_COLOUR, markersize=6, gid=DATA)
    axes.set_xticks(x, [f"{s} (first)" if s == 0 else str(s) for s in x])
    axes.set_xlim(x.min() - 0.6, x.max() + 0.6)
    axes.set_ylim(*y_limits)
    axes.set_xlabel("seat")
    axes.set_ylabel("points from fair")
    axes.set_title(f"win rate by seat, points from a fair {fair:.1f}%", loc="left")
    axes.legend(**LEGEND_OUTSIDE)
    return to_svg(figure)


def deviation_limits(seats: pd.DataFrame, players: pd.Series, margin_points: float) -> tuple[float, float]:
    """Symmetric y-limits (points from fair) that hold every simultaneous interval of `seats`
    (`players` gives each row's player count) and the margin band, with a little room."""
    fair = 1 / players.to_numpy()
    reach = np.nanmax(np.abs(np.concatenate([seats["sim_low"] - fair, seats["sim_high"] - fair]))) * 100
    reach = max(reach, margin_points) * 1.1
    return -reach, reach


def length_histogram(lengths: pd.DataFrame, measure: str) -> str:
    """Distribution of a game-length measure as shares of games. One bar per value when the
    measure takes at most MAX_BARS values in its range, else bars of equal integer width."""
    figure, axes = plt.subplots(figsize=(5.2, 2.4))
    values = lengths["value"].to_numpy()
    games = lengths["games"].to_numpy()
    low, high = int(values.min()), int(values.max())
    width = max(1, int(np.ceil((high - low + 1) / MAX_BARS)))
    starts = np.arange(low, high + 1, width)
    counts = np.bincount((values - low) // width, weights=games, minlength=len(starts))
    share = counts / games.sum() * 100
    centres = starts + (width - 1) / 2
    axes.bar(centres, share, width=0.85 * width, color=POINT_COLOUR, gid=DATA)
    axes.set_xlim(low - width, high + width)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
    axes.set_xlabel(measure.replace("_", " ") + ("" if width == 1 else f" (bars of {width})"))
    axes.set_ylabel("share of games (%)")
    axes.set_title(measure_title(measure), loc="left")
    return to_svg(figure)


def _tick_labels(axes, labels: list[str]) -> None:
    """Category tick labels (may have several lines), turned upright when their widest line
    would not fit beside its neighbours, so neighbours never overlap."""
    labels = [label.replace(" / ", " /\n") for label in labels]  # a seating: one policy a line
    longest = max((len(line) for label in labels for line in label.split("\n")), default=0)
    axes_width_chars = axes.get_position().width * axes.figure.get_figwidth() * 72 / 6  # ~6 pt a character
    upright = longest * len(labels) > 0.8 * axes_width_chars
    axes.set_xticks(range(len(labels)), labels, rotation=90 if upright else 0)


def sweep_chart(cells: pd.DataFrame, seats: pd.DataFrame, knob: str, study_knobs: list[str], margin_points: float) -> str:
    """Against one swept knob: the first seat's deviation from fair (filled, simultaneous
    interval) and the most deviant seat's signed deviation (hollow), and the mean game length in
    turns (95% interval). Cells that differ in other swept knobs form separate, labelled series."""
    figure, (balance, length) = plt.subplots(1, 2, figsize=(10, 2.9), layout="constrained")
    first = seats[seats["seat"] == 0].set_index("cell")
    values = sorted(cells[f"sweep:{knob}"].unique(), key=_sort_key)
    position = {value: index for index, value in enumerate(values)}
    others = [f"sweep:{k}" for k in study_knobs if k != knob]
    groups = list(cells.groupby(others, sort=True)) if others else [((), cells)]
    width = 0.6 / max(1, len(groups))
    for number, (key, group) in enumerate(groups):
        group = group.sort_values(f"sweep:{knob}", key=lambda column: column.map(_sort_key))
        x = np.array([position[v] for v in group[f"sweep:{knob}"]]) + (number - (len(groups) - 1) / 2) * width
        fair = 1.0 / group["players"].to_numpy()
        rows = first.loc[group["cell"]]
        label = ", ".join(f"{c[6:]} = {v}" for c, v in zip(others, key if isinstance(key, tuple) else (key,))) or None
        colour = f"C{number}"
        balance.vlines(x, (rows["sim_low"].to_numpy() - fair) * 100, (rows["sim_high"].to_numpy() - fair) * 100,
                       color=colour, gid=DATA)
        balance.plot(x, (rows["win_rate"].to_numpy() - fair) * 100, "o", color=colour, label=label, gid=DATA)
        balance.plot(x, group["max_signed_deviation_points"], "o", mfc="none", color=colour, gid=DATA)
        length.vlines(x, group["mean_turns_low"], group["mean_turns_high"], color=colour, gid=DATA)
        length.plot(x, group["mean_turns"], "o", color=colour, label=label, gid=DATA)
    balance.axhspan(-margin_points, margin_points, color=BAND_COLOUR, zorder=0, gid=REFERENCE)
    balance.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    balance.set_ylabel("points from fair")
    balance.set_title(f"first seat (filled) and most deviant seat (hollow) by {knob}", loc="left", fontsize=8)
    length.set_ylabel("mean turns per game")
    length.set_title(f"game length by {knob}", loc="left", fontsize=8)
    for axes in (balance, length):
        _tick_labels(axes, [str(v) for v in values])
        axes.set_xlabel(knob)
    if others:
        length.legend(**LEGEND_OUTSIDE)
    return to_svg(figure)


def seat_heatmap(cells: pd.DataFrame, seats: pd.DataFrame, column_labels: list[str], x_label: str, title: str) -> str:
    """Seats (rows) x a study's swept cells (columns, in the order of `cells`): signed points
    from fair, red above fair and blue below, each square labelled with its value."""
    players = int(cells["players"].max())
    grid = np.full((players, len(cells)), np.nan)
    for column, (cell, cell_players) in enumerate(zip(cells["cell"], cells["players"])):
        rows = seats[seats["cell"] == cell]
        grid[rows["seat"].to_numpy(), column] = (rows["win_rate"].to_numpy() - 1 / cell_players) * 100
    reach = max(float(np.nanmax(np.abs(grid))), 0.5)
    figure, axes = plt.subplots(figsize=(min(10, 2.4 + 0.75 * len(cells)), 1.2 + 0.32 * players), layout="constrained")
    image = axes.imshow(grid, cmap="RdBu_r", vmin=-reach, vmax=reach, aspect="auto", gid=DATA)
    for (seat, column), value in np.ndenumerate(grid):
        if np.isfinite(value):
            axes.text(column, seat, "0.0" if round(value, 1) == 0 else f"{value:+.1f}", ha="center", va="center", fontsize=7,
                      color="white" if abs(value) > 0.6 * reach else "#222222")
    _tick_labels(axes, column_labels)
    axes.set_xlabel(x_label)
    axes.set_yticks(range(players), [f"{s} (first)" if s == 0 else str(s) for s in range(players)])
    axes.set_ylabel("seat")
    figure.suptitle(title, x=0.01, ha="left", fontsize=8)  # above the colour bar's top label too
    axes.spines[:].set_visible(False)
    colour_bar = figure.colorbar(image, ax=axes, fraction=0.05, pad=0.02)
    colour_bar.set_label("points from fair", fontsize=7)
    return to_svg(figure)


def _sort_key(value):
    """Numbers in numeric order, everything else after them by text."""
    return (0, value, "") if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0, str(value))


def strength_chart(ratings: pd.DataFrame, title: str) -> str:
    """Seat advantage against agent strength: does moving first help strong policies more?"""
    figure, axes = plt.subplots(figsize=(5.6, 2.8))
    x = ratings["elo"].to_numpy()
    y = ratings["first_seat_advantage_points"].to_numpy()
    axes.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    axes.errorbar(
        x, y, xerr=[x - ratings["elo_low"].to_numpy(), ratings["elo_high"].to_numpy() - x],
        fmt="o", color=POINT_COLOUR, capsize=2, gid=DATA,
    )
    for number, (name, px, py) in enumerate(zip(ratings["policy"], x, y)):
        # alternate above/below so the names of close policies do not overlap
        axes.annotate(name, (px, py), textcoords="offset points", xytext=(4, 6 if number % 2 == 0 else -12), fontsize=7)
    spread = max(float(np.nanmax(ratings["elo_high"]) - np.nanmin(ratings["elo_low"])), 1.0)
    axes.set_xlim(np.nanmin(ratings["elo_low"]) - 0.08 * spread, np.nanmax(ratings["elo_high"]) + 0.25 * spread)
    axes.set_xlabel("strength (Elo, Bradley-Terry)")
    axes.set_ylabel("first seat − own average (pts)")
    axes.set_title(title, loc="left")
    return to_svg(figure)


def forest_plot(cells: pd.DataFrame, seats: pd.DataFrame) -> str:
    """Before/after: per cell, the change of the largest seat deviation (diamond, 95%) and each
    seat's change B - A (dot, simultaneous 95% over all seats), in points, one row each; cells
    whose games B replayed unchanged are left out."""
    rows = []
    for _, cell in cells[~cells["same_games"]].iterrows():  # a replayed cell cannot have changed
        rows.append((f"{cell['label']}: largest deviation", cell["size_change"], cell["size_change_low"],
                     cell["size_change_high"], "D"))
        for _, seat in seats[seats["label"] == cell["label"]].iterrows():
            rows.append((f"seat {seat['seat']}", seat["change_points"], seat["change_low_points"],
                         seat["change_high_points"], "o"))
    figure, axes = plt.subplots(figsize=(7.5, 0.8 + 0.24 * len(rows)))
    y = np.arange(len(rows))[::-1]
    axes.axvline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    for position, (_, change, low, high, marker) in zip(y, rows):
        colour = "#a83a1f" if marker == "D" else POINT_COLOUR
        axes.hlines(position, low, high, color=colour, linewidth=1.5, gid=DATA)
        axes.plot([change], [position], marker, color=colour, markersize=5, gid=DATA)
    axes.set_yticks(y, [row[0] for row in rows], fontsize=7)
    axes.set_xlabel("change B − A (points)")
    axes.set_title("what changed, with 95% intervals (seats: simultaneous over all seats)", loc="left", fontsize=8)
    return to_svg(figure)
