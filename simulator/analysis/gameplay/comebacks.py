"""Figure `comeback`: comeback chance by deficit band, from the cell's trajectory sample
(per-round scores by the game's own measure, Game.round_scores).

Definition: at the halfway round of each sampled game (ceil(R / 2) of its R rounds), every seat
whose score is below the top score trails by its deficit (top score minus its own); it comes
back when it is among the game's winners (a shared win counts). The deficits are grouped into
up to BANDS bands at the sample's deficit quantiles (1/3, 2/3; equal edges merge), since the
score's scale is the game's own (Katz points, New York Zoo squares); each band's row has its
edges (`band_low` < deficit <= `band_high`). Interval: Wilson on the deal-clustered effective
sample (figure.deal_share: a deal's trailing seats are its trials).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import (
    CellGames, Chart, Trajectories, deal_share, item, register, sample_rows, trajectory_figure,
)
from simulator.analysis.gameplay.halfway import halfway_rounds

BANDS = 3
QUANTILE_METHOD = "inverted_cdf"  # an edge is a deficit that occurred


def halfway_deficits(sample: Trajectories) -> np.ndarray:
    """(games, players) each seat's deficit to the top score at the game's halfway round."""
    scores = sample.scores[np.arange(sample.games), halfway_rounds(sample) - 1]
    return scores.max(axis=1, keepdims=True) - scores


def band_edges(deficits: np.ndarray) -> list[float]:
    """The bands' edges: 0, the trailing deficits' quantiles at 1/3 and 2/3 (distinct, below
    the largest) and infinity."""
    if not len(deficits):
        return []
    cuts = np.quantile(deficits, [k / BANDS for k in range(1, BANDS)], method=QUANTILE_METHOD)
    inner = sorted({float(cut) for cut in cuts if cut < deficits.max()})
    return [0.0, *inner, float("inf")]


def band_name(low: float, high: float) -> str:
    if high == float("inf"):
        return f"behind by more than {low:g}"
    return f"behind by up to {high:g}" if low == 0 else f"behind by more than {low:g}, up to {high:g}"


def band_tick(row) -> str:
    """A band's short label on the comeback curve's axis."""
    low, high = row["band_low"], row["band_high"]
    if high == float("inf"):
        return f"over {low:g}"
    return f"up to {high:g}" if low == 0 else f"{low:g} to {high:g}"


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    sample = games.trajectories
    codes, deals = sample.deal_codes()
    deficits = halfway_deficits(sample)
    trailing = deficits > 0
    edges = band_edges(deficits[trailing])
    seat_codes = np.repeat(codes, games.players)
    items = []
    for low, high in zip(edges[:-1], edges[1:]):
        counted = (trailing & (deficits > low) & (deficits <= high)).ravel()
        interval = deal_share(seat_codes, deals, sample.win.ravel(), counted, confidence)
        items.append(item(band_name(low, high), interval, "share of trailing seats that won",
                          band_low=low, band_high=high, seats=int(counted.sum())))
    return sample_rows("comeback", items, sample, "clustered Wilson interval")


register(trajectory_figure(
    name="comeback",
    title="Comebacks",
    reduce=reduce,
    order=52,
    shown=(("item", "deficit at halfway", "text"), ("estimate", "won", "pct"), ("low", "95% low", "pct"),
           ("high", "95% high", "pct"), ("seats", "trailing seats", "int"), ("games", "sampled games", "int"),
           ("deals", "sampled deals", "int")),
    note=("The chance that a seat behind at the halfway round still wins, by how far behind it was (the "
          "game's per-round score; bands at the sample's deficit tertiles), in a sample of deals."),
    chart=Chart("curve", "Comeback chance by deficit at halfway", "trailing seats that won (%)", percent=True,
                tick=band_tick),
))
