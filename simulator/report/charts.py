"""Matplotlib charts rendered to inline SVG strings (no files, no network needed to view)."""

from __future__ import annotations

import io

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


def to_svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and doctype for inline use


def seat_win_rates(seats: pd.DataFrame, players: int, margin_points: float, title: str) -> str:
    """Win rate per seat: point, 95% interval (thick), simultaneous interval (thin), fair band."""
    figure, axes = plt.subplots(figsize=(5.2, 2.6))
    fair = 100.0 / players
    axes.axhspan(fair - margin_points, fair + margin_points, color=BAND_COLOUR, label=f"fair ±{margin_points:g} pts")
    axes.axhline(fair, color=FAIR_COLOUR, linewidth=1, linestyle="--", label=f"fair 1/{players}")
    x = seats["seat"].to_numpy()
    rate = seats["win_rate"].to_numpy() * 100
    axes.vlines(x, seats["sim_low"] * 100, seats["sim_high"] * 100, color=POINT_COLOUR, linewidth=1)
    axes.vlines(x, seats["ci_low"] * 100, seats["ci_high"] * 100, color=POINT_COLOUR, linewidth=4)
    axes.plot(x, rate, "o", color="white", markeredgecolor=POINT_COLOUR, markersize=6)
    axes.set_xticks(x, [f"seat {s}" + (" (first)" if s == 0 else "") for s in x])
    axes.set_ylabel("win rate (%)")
    axes.set_title(title, loc="left")
    axes.legend(loc="best", fontsize=7, frameon=False)
    return to_svg(figure)


def length_histogram(lengths: pd.DataFrame, measure: str, title: str) -> str:
    """Distribution of a game-length measure (e.g. turns) as a bar chart of game shares."""
    figure, axes = plt.subplots(figsize=(5.2, 2.4))
    values = lengths["value"].to_numpy()
    share = lengths["games"].to_numpy() / lengths["games"].sum() * 100
    axes.bar(values, share, width=0.9, color=POINT_COLOUR)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(measure)
    axes.set_ylabel("games (%)")
    axes.set_title(title, loc="left")
    return to_svg(figure)


def sweep_chart(cells: pd.DataFrame, seats: pd.DataFrame, knob: str, study_knobs: list[str], margin_points: float) -> str:
    """Against one swept knob: the first seat's win rate minus fair (simultaneous interval) and
    the largest seat deviation (hollow), and the mean game length in turns (95% interval).
    Cells that differ in other swept knobs form separate, labelled series."""
    figure, (balance, length) = plt.subplots(1, 2, figsize=(9.5, 2.8))
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
        label = ", ".join(f"{c[6:]}={v}" for c, v in zip(others, key if isinstance(key, tuple) else (key,))) or None
        colour = f"C{number}"
        balance.vlines(x, (rows["sim_low"].to_numpy() - fair) * 100, (rows["sim_high"].to_numpy() - fair) * 100, color=colour)
        balance.plot(x, (rows["win_rate"].to_numpy() - fair) * 100, "o", color=colour, label=label)
        balance.plot(x, group["max_deviation_points"], "o", mfc="none", color=colour)
        length.vlines(x, group["mean_turns_low"], group["mean_turns_high"], color=colour)
        length.plot(x, group["mean_turns"], "o", color=colour, label=label)
    balance.axhspan(-margin_points, margin_points, color=BAND_COLOUR, zorder=0)
    balance.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1)
    balance.set_ylabel("points vs fair")
    balance.set_title(f"first seat (filled) and largest deviation (hollow) by {knob}", loc="left", fontsize=8)
    length.set_ylabel("mean turns")
    length.set_title(f"game length by {knob}", loc="left", fontsize=8)
    for axes in (balance, length):
        axes.set_xticks(range(len(values)), [str(v) for v in values])
        axes.set_xlabel(knob)
    if others:
        balance.legend(fontsize=7, frameon=False)
    return to_svg(figure)


def _sort_key(value):
    """Numbers in numeric order, everything else after them by text."""
    return (0, value, "") if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0, str(value))


def strength_chart(ratings: pd.DataFrame, title: str) -> str:
    """Seat advantage against agent strength: does moving first help strong policies more?"""
    figure, axes = plt.subplots(figsize=(5.2, 2.8))
    x = ratings["elo"].to_numpy()
    y = ratings["first_seat_advantage_points"].to_numpy()
    axes.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1)
    axes.errorbar(
        x, y, xerr=[x - ratings["elo_low"].to_numpy(), ratings["elo_high"].to_numpy() - x],
        fmt="o", color=POINT_COLOUR, capsize=2,
    )
    for name, px, py in zip(ratings["policy"], x, y):
        axes.annotate(name, (px, py), textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.set_xlabel("strength (Elo, Bradley-Terry)")
    axes.set_ylabel("first seat − own average (pts)")
    axes.set_title(title, loc="left")
    return to_svg(figure)
