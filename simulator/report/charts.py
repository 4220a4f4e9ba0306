"""Matplotlib charts rendered to inline SVG strings (no files, no network needed to view)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
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
    axes.set_xlabel(measure)
    axes.set_ylabel("games (%)")
    axes.set_title(title, loc="left")
    return to_svg(figure)


def sweep_chart(cells: pd.DataFrame, seats: pd.DataFrame, knob: str, margin_points: float, title: str) -> str:
    """First-seat deviation from fair, with its interval, against one swept knob value."""
    figure, axes = plt.subplots(figsize=(5.2, 2.6))
    first = seats[seats["seat"] == 0].set_index("cell")
    ordered = cells.sort_values(f"sweep:{knob}")
    x = np.arange(len(ordered))
    players = ordered["players"].to_numpy()
    rows = first.loc[ordered["cell"]]
    fair = 1.0 / players
    centre = (rows["win_rate"].to_numpy() - fair) * 100
    low = (rows["sim_low"].to_numpy() - fair) * 100
    high = (rows["sim_high"].to_numpy() - fair) * 100
    axes.axhspan(-margin_points, margin_points, color=BAND_COLOUR)
    axes.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1)
    axes.vlines(x, low, high, color=POINT_COLOUR, linewidth=2)
    axes.plot(x, centre, "o", color=POINT_COLOUR)
    axes.set_xticks(x, [str(v) for v in ordered[f"sweep:{knob}"]])
    axes.set_xlabel(knob)
    axes.set_ylabel("first seat − fair (pts)")
    axes.set_title(title, loc="left")
    return to_svg(figure)


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
