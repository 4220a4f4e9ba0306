"""Figure `length`: the median and the 90th and 95th percentiles of game length, in turns and in
rounds, each with a 95% interval on the deal as the unit.

Method: Woodruff's interval for a quantile. The estimate is the sample quantile x_p (the
smallest recorded length with at least a share p of games at or below it, numpy's
"inverted_cdf"); the share of games at or below x_p gets its clustered interval
(stats.clustered_rate_interval, deals as clusters), its half-widths are moved to p, and the
interval's ends are the sample quantiles at those two shares. No bootstrap: the interval costs
one pass over the games.
Reference: Woodruff, R. S. (1952), Confidence intervals for medians and other position measures,
JASA 47:635-646; Sitter, R. R. and Wu, C. (2001), A note on Woodruff confidence intervals for
quantiles, Statistics & Probability Letters 52:353-358.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import Chart, CellGames, Figure, clustered_share, item, register, rows

LENGTH_MEASURES = ("turns", "rounds")
PERCENTILES = {"median": 0.5, "90th percentile": 0.9, "95th percentile": 0.95}
QUANTILE_METHOD = "inverted_cdf"  # a length that was played, never an average of two


def quantile_interval(games: CellGames, lengths: np.ndarray, share: float, confidence: float) -> tuple[float, float, float]:
    """(quantile, low, high) of `lengths` at `share` by Woodruff's method (module doc)."""
    estimate = float(np.quantile(lengths, share, method=QUANTILE_METHOD))
    rate, low, high = clustered_share(games, lengths <= estimate, confidence)
    low_share = max(share - (rate - low), 0.0)
    high_share = min(share + (high - rate), 1.0)
    return (estimate, float(np.quantile(lengths, low_share, method=QUANTILE_METHOD)),
            float(np.quantile(lengths, high_share, method=QUANTILE_METHOD)))


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    items = []
    for measure in LENGTH_MEASURES:
        lengths = np.asarray(games.game[measure], dtype=float)
        for name, share in PERCENTILES.items():
            items.append(item(f"{name} {measure}", quantile_interval(games, lengths, share, confidence), measure))
    return rows("length", items, games, "Woodruff quantile interval, deal-clustered")


register(Figure(
    name="length",
    title="Game length",
    reduce=reduce,
    order=10,
    game_columns=LENGTH_MEASURES,
    shown=(("item", "", "text"), ("estimate", "length", "int"), ("low", "95% low", "int"), ("high", "95% high", "int"),
           ("unit", "unit", "text"), ("games", "games", "int"), ("deals", "deals", "int")),
    note="Median and 90th/95th percentiles of game length; intervals by Woodruff's method with the deal as the unit.",
    chart=Chart("length", "Game length, percentiles marked", "share of games (%)", measures=LENGTH_MEASURES,
                tick=lambda row: row["item"].split(" ")[0]),
))
