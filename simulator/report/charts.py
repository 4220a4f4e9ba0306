"""Charts rendered to inline SVG strings (no files, no network needed to view).

The two charts every cell shows, seat deviations and length histograms, are drawn here directly
as SVG (`_Axes`): simple shapes, and matplotlib would cost a report process about a second of
imports and drawing. The rarer charts (sweeps, heatmaps, ratings, ladders, before/after) use
matplotlib, imported on first use (`pyplot`).

Conventions every chart keeps (the browser tests check them in Chromium at a 1,400 px window):
- text at FONT (10 pt, 13 px on the page), never below 12 px, and inside its chart;
- legends stand outside the plotting area, so they never cover data;
- tick labels are short or upright; long category labels (rungs) are rows of level, wrapped text;
- every marker is named (a legend entry, or the seat number beside a most-deviant point);
- SVG groups carry classes for what they are: `xtick`, `ytick`, `legend`, `text` (titles, axis
  labels, annotations), `data` (points, intervals, bars, cells) and `reference` (fair lines and
  bands, which legitimately span the whole plot);
- seat balance is drawn as signed points from fair (above zero: the seat wins more than 1/n).
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import math
import re
import textwrap
import warnings

import numpy as np
import pandas as pd

FAIR_COLOUR = "#888888"
BAND_COLOUR = "#d9ead3"
POINT_COLOUR = "#1f5fa8"
MARK_COLOUR = "#a83a1f"  # percentiles marked on a length distribution
DATA = "data"  # gid of data artists (see to_svg)
REFERENCE = "reference"  # gid of fair lines and bands
# Text size of every chart, in points. A chart's SVG is sized in points (1 pt = 4/3 px) and is
# never wider than the report's column at 1,400 px, so 10 pt shows as 13.3 px: at least the 12 px
# the browser test requires (issue #41).
FONT = 10.0
# A heatmap square's label, a little smaller than the other text (still 12.7 px) to fit its square.
SQUARE_FONT = 9.5
# The widest chart, in inches: 10 in is 960 px, within the report's column at a 1,400 px window.
MAX_WIDTH_INCHES = 10.0
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "frameon": False, "fontsize": FONT}
# Tick label sizes in inches at FONT: one character's width, one line's height.
CHARACTER_INCHES = 0.085
LINE_INCHES = 0.19
# Category labels (rungs, head-to-heads) wrap at this many characters a line.
LABEL_CHARACTERS = 28
# Above this many distinct values a length histogram groups values into bins of equal width.
MAX_BARS = 40

_GROUP_CLASSES = re.compile(r'<g id="(xtick|ytick|legend|text)_(\d+)"')
_GID_CLASSES = re.compile(rf'<g id="({DATA}|{REFERENCE})"')


@contextlib.contextmanager
def library_warnings_quiet():
    """Building a report, no library warning reaches the terminal: matplotlib's, numpy's, scipy's
    and pandas' warnings (a legend with nothing to show, an empty slice) say nothing a reader can
    act on, and matplotlib points them at zoosim's source line. zoosim's own warnings are lines
    printed by `rundir.warn`, which this leaves alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@functools.cache
def pyplot():
    """matplotlib.pyplot, imported and set up (no display, stable SVG) on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",  # text stays text: smaller, searchable, crisp
            "font.size": FONT,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "svg.hashsalt": "zoosim",  # stable element ids: same data, same SVG
        }
    )
    return plt


def to_svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    pyplot().close(figure)
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
    fair = 100.0 / players
    x = seats["seat"].to_numpy()
    axes = _Axes((5.6, 2.6), (x.min() - 0.6, x.max() + 0.6), y_limits, _nice_ticks(*y_limits, bins=6),
                 legend=[("point", "seat's win rate"), ("thick", "95% interval"), ("thin", "simultaneous 95%"),
                         ("band", f"fair ±{margin_points:g} pts"), ("dashed", f"fair: 1/{players} = {fair:.1f}%")])
    axes.band(-margin_points, margin_points)
    axes.fair_line(0.0)
    for low, high, width in (("sim_low", "sim_high", 1), ("ci_low", "ci_high", 4)):
        lows, highs = ((seats[column].to_numpy() - 1 / players) * 100 for column in (low, high))
        axes.data("".join(f"M{axes.x(s):.2f} {axes.y(a):.2f}V{axes.y(b):.2f}" for s, a, b in zip(x, lows, highs)),
                  f'fill="none" stroke="{POINT_COLOUR}" stroke-width="{width}"')
    deviation = (seats["win_rate"].to_numpy() - 1 / players) * 100
    axes.data("".join(_circle(axes.x(s), axes.y(v), 3.0) for s, v in zip(x, deviation)),
              f'fill="white" stroke="{POINT_COLOUR}" stroke-width="1"')
    axes.x_ticks(x, [f"{s} (first)" if s == 0 else str(s) for s in x])
    axes.labels(f"win rate by seat, points from a fair {fair:.1f}%", "seat", "points from fair")
    return axes.svg()


def deviation_limits(seats: pd.DataFrame, players: pd.Series, margin_points: float) -> tuple[float, float]:
    """Symmetric y-limits (points from fair) that hold every simultaneous interval of `seats`
    (`players` gives each row's player count) and the margin band, with a little room."""
    fair = 1 / players.to_numpy()
    reach = np.nanmax(np.abs(np.concatenate([seats["sim_low"] - fair, seats["sim_high"] - fair]))) * 100
    reach = max(reach, margin_points) * 1.1
    return -reach, reach


def length_histogram(lengths: pd.DataFrame, measure: str, marks: list[tuple[str, float]] | None = None) -> str:
    """Distribution of a game-length measure as shares of games. One bar per value when the
    measure takes at most MAX_BARS values in its range, else bars of equal integer width.
    `marks` (name, value) are drawn as dashed lines, named in the legend (percentiles)."""
    values = lengths["value"].to_numpy()
    games = lengths["games"].to_numpy()
    low, high = int(values.min()), int(values.max())
    width = max(1, int(np.ceil((high - low + 1) / MAX_BARS)))
    starts = np.arange(low, high + 1, width)
    counts = np.bincount((values - low) // width, weights=games, minlength=len(starts))
    share = counts / games.sum() * 100
    centres = starts + (width - 1) / 2
    top = float(share.max()) * 1.05
    x_limits = (low - width, high + width)
    marks = marks or []
    legend = [("mark", ", ".join(f"{name} {value:g}" for name, value in marks))] if marks else None
    axes = _Axes((5.2, 2.4), x_limits, (0.0, top), _nice_ticks(0.0, top, bins=6), legend=legend)
    for _, value in marks:
        axes.mark_line(value)
    for centre, bar in zip(centres, share):
        left, right = axes.x(centre - 0.425 * width), axes.x(centre + 0.425 * width)
        axes.data(f"M{left:.2f} {axes.y(0):.2f}H{right:.2f}V{axes.y(bar):.2f}H{left:.2f}Z", f'fill="{POINT_COLOUR}"')
    ticks = [tick for tick in _nice_ticks(*x_limits, bins=8, integer=True) if x_limits[0] <= tick <= x_limits[1]]
    axes.x_ticks(ticks, [_number(tick, ticks) for tick in ticks])
    axes.labels(measure_title(measure), measure.replace("_", " ") + ("" if width == 1 else f" (bars of {width})"),
                "share of games (%)")
    return axes.svg()


# ---- SVG drawn directly ---------------------------------------------------------------------

TICK_FONT = FONT
TITLE_FONT = FONT * 1.1
LEGEND_FONT = FONT
CHARACTER_WIDTH = 0.62  # of the font size: a generous average for sans-serif text
TICK_LENGTH = 3.5


# The legend's keys, drawn left of their text: `left` and `middle` of the key, `y` its centre line.
LEGEND_KEYS = {
    "band": f'<path d="M{{left:.2f}} {{y:.2f}}m0 -4h14v8h-14Z" fill="{BAND_COLOUR}"/>',
    "dashed": f'<path d="M{{left:.2f}} {{y:.2f}}h14" stroke="{FAIR_COLOUR}" stroke-dasharray="3.7 1.6"/>',
    "point": f'<circle cx="{{middle:.2f}}" cy="{{y:.2f}}" r="3" fill="white" stroke="{POINT_COLOUR}"/>',
    "thick": f'<path d="M{{middle:.2f}} {{y:.2f}}m0 -5v10" stroke="{POINT_COLOUR}" stroke-width="4"/>',
    "thin": f'<path d="M{{middle:.2f}} {{y:.2f}}m0 -5v10" stroke="{POINT_COLOUR}" stroke-width="1"/>',
    "bar": f'<path d="M{{left:.2f}} {{y:.2f}}m2 -5h10v10h-10Z" fill="{BAND_COLOUR}" stroke="{POINT_COLOUR}"/>',
    "mark": f'<path d="M{{middle:.2f}} {{y:.2f}}m0 -6v12" stroke="{MARK_COLOUR}" stroke-dasharray="3.7 1.6"/>',
    "across": f'<path d="M{{left:.2f}} {{y:.2f}}h14" stroke="{POINT_COLOUR}" stroke-width="1"/>',
}


class _Axes:
    """One plotting area in an SVG of `size` inches (72 points each) plus, when given, a legend
    to its right: maps data to points, collects the drawing's groups (classes as in the module
    docstring) and closes it (`svg`). The y axis gets `y_ticks`."""

    def __init__(self, size: tuple[float, float], x_limits, y_limits, y_ticks: list[float],
                 legend: list[tuple[str, str]] | None = None, y_labels: list[str] | None = None):
        self.width, self.height = size[0] * 72, size[1] * 72
        self.x_limits, self.y_limits = x_limits, y_limits
        self.legend_entries = legend or []
        tick_labels = y_labels if y_labels is not None else [_number(tick, y_ticks) for tick in y_ticks]
        widest = max((len(label) for label in tick_labels), default=1) * CHARACTER_WIDTH * TICK_FONT
        legend_width = (22 + max(len(text) for _, text in self.legend_entries) * CHARACTER_WIDTH * LEGEND_FONT
                        if self.legend_entries else 0)
        self.left = 4 + TICK_FONT + 6 + widest + 3 + TICK_LENGTH
        self.right = self.width - 2 * TICK_FONT  # room for half a tick label of up to six characters
        self.width += legend_width  # the legend stands outside, as matplotlib's tight bounding box puts it
        self.top = TITLE_FONT + 10
        self.bottom = self.height - (TICK_LENGTH + 3 + TICK_FONT + 5 + TICK_FONT + 4)
        self.reference: list[str] = []
        self.drawn: list[str] = []
        self.axis: list[str] = [self._tick_group("ytick", number, self.left - TICK_LENGTH, self.y(tick), self.left,
                                                 self.y(tick), self.left - TICK_LENGTH - 3, self.y(tick) + TICK_FONT / 3,
                                                 "end", label)
                                for number, (tick, label) in enumerate(zip(y_ticks, tick_labels), 1)]

    def x(self, value: float) -> float:
        low, high = self.x_limits
        return self.left + (value - low) / (high - low) * (self.right - self.left)

    def y(self, value: float) -> float:
        low, high = self.y_limits
        return self.bottom - (value - low) / (high - low) * (self.bottom - self.top)

    def band(self, low: float, high: float) -> None:
        self.reference.append(f'<g class="{REFERENCE}"><path d="M{self.left:.2f} {self.y(low):.2f}H{self.right:.2f}'
                              f'V{self.y(high):.2f}H{self.left:.2f}Z" fill="{BAND_COLOUR}"/></g>')

    def mark_line(self, value: float) -> None:
        """A dashed vertical line at x = value (a percentile marked on a distribution)."""
        self.reference.append(f'<g class="{REFERENCE}"><path d="M{self.x(value):.2f} {self.top:.2f}V{self.bottom:.2f}" '
                              f'stroke="{MARK_COLOUR}" stroke-dasharray="3.7 1.6"/></g>')

    def zero_line(self, value: float) -> None:
        """A dashed vertical line at x = value (zero on a forest)."""
        self.reference.append(f'<g class="{REFERENCE}"><path d="M{self.x(value):.2f} {self.top:.2f}V{self.bottom:.2f}" '
                              f'stroke="{FAIR_COLOUR}" stroke-dasharray="3.7 1.6"/></g>')

    def column_band(self, low: float, high: float) -> None:
        """A vertical band from x = low to x = high (a forest's margin)."""
        self.reference.append(f'<g class="{REFERENCE}"><path d="M{self.x(low):.2f} {self.top:.2f}H{self.x(high):.2f}'
                              f'V{self.bottom:.2f}H{self.x(low):.2f}Z" fill="{BAND_COLOUR}"/></g>')

    def fair_line(self, value: float) -> None:
        self.reference.append(f'<g class="{REFERENCE}"><path d="M{self.left:.2f} {self.y(value):.2f}H{self.right:.2f}" '
                              f'stroke="{FAIR_COLOUR}" stroke-dasharray="3.7 1.6"/></g>')

    def data(self, path: str, style: str) -> None:
        self.drawn.append(f'<g class="{DATA}"><path d="{path}" {style}/></g>')

    def x_ticks(self, values, labels: list[str]) -> None:
        below = self.bottom + TICK_LENGTH + 3 + TICK_FONT * 0.8
        self.axis += [self._tick_group("xtick", number, self.x(value), self.bottom, self.x(value),
                                       self.bottom + TICK_LENGTH, self.x(value), below, "middle", label)
                      for number, (value, label) in enumerate(zip(values, labels), 1)]

    def labels(self, title: str, x_label: str, y_label: str) -> None:
        middle_x, middle_y = (self.left + self.right) / 2, (self.top + self.bottom) / 2
        self.axis += [
            _text(self.left, self.top - 6, title, TITLE_FONT, "start"),
            _text(middle_x, self.height - 4, x_label, TICK_FONT, "middle"),
            _text(4 + TICK_FONT * 0.8, middle_y, y_label, TICK_FONT, "middle", rotate=True),
        ]

    def svg(self) -> str:
        frame = (f'<path d="M{self.left:.2f} {self.top:.2f}V{self.bottom:.2f}H{self.right:.2f}" fill="none" '
                 'stroke="black" stroke-width="0.8"/>')
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}pt" height="{self.height:.0f}pt" '
                f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" font-family="DejaVu Sans, Verdana, sans-serif">'
                + "".join(self.reference + self.drawn + [frame] + self.axis + self._legend()) + "</svg>")

    def _legend(self) -> list[str]:
        if not self.legend_entries:
            return []
        left, parts = self.right + 8, []
        for row, (kind, text) in enumerate(self.legend_entries):
            y = self.top + 4 + row * (LEGEND_FONT + 5)
            parts.append(LEGEND_KEYS[kind].format(left=left, y=y, middle=left + 7))
            parts.append(f'<text x="{left + 18:.2f}" y="{y + LEGEND_FONT / 3:.2f}" font-size="{LEGEND_FONT:g}">'
                         f"{html.escape(text)}</text>")
        return ['<g id="legend_1" class="legend">' + "".join(parts) + "</g>"]

    @staticmethod
    def _tick_group(kind: str, number: int, x1: float, y1: float, x2: float, y2: float, text_x: float, text_y: float,
                    anchor: str, label: str) -> str:
        return (f'<g id="{kind}_{number}" class="{kind}"><path d="M{x1:.2f} {y1:.2f}L{x2:.2f} {y2:.2f}" stroke="black" '
                f'stroke-width="0.8"/><text x="{text_x:.2f}" y="{text_y:.2f}" font-size="{TICK_FONT:g}" '
                f'text-anchor="{anchor}">{html.escape(label)}</text></g>')


def _text(x: float, y: float, text: str, size: float, anchor: str, rotate: bool = False) -> str:
    turn = f' transform="rotate(-90 {x:.2f} {y:.2f})"' if rotate else ""
    return (f'<g class="text"><text x="{x:.2f}" y="{y:.2f}" font-size="{size:g}" text-anchor="{anchor}"{turn}>'
            f"{html.escape(text)}</text></g>")


def _circle(x: float, y: float, radius: float) -> str:
    return f"M{x - radius:.2f} {y:.2f}a{radius:g} {radius:g} 0 1 0 {2 * radius:g} 0a{radius:g} {radius:g} 0 1 0 {-2 * radius:g} 0"


def _nice_ticks(low: float, high: float, bins: int, integer: bool = False) -> list[float]:
    """Tick values at a round step (1, 2, 2.5 or 5 times a power of ten; whole numbers with
    `integer`) giving at most about `bins` intervals over [low, high]."""
    raw = max((high - low) / bins, 1e-12)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    multiples = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in multiples if m * magnitude >= raw * (1 - 1e-9))
    if integer:
        step = max(1.0, round(step))
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [0.0 if index == 0 else index * step for index in range(first, last + 1)]


def _number(value: float, ticks: list[float]) -> str:
    """A tick label with as many decimals as its axis needs, a typographic minus."""
    decimals = next((d for d in range(7) if all(abs(round(t, d) - t) < 1e-9 for t in ticks)), 6)
    return f"{value:.{decimals}f}".replace("-", "−")


def _tick_labels(axes, labels: list[str]) -> float:
    """Category tick labels (may have several lines), turned upright when their widest line
    would not fit beside its neighbours, so neighbours never overlap. Returns the inches the
    labels take below the axes beyond one line: the caller grows its figure by that, so the
    plot keeps its height whatever the labels."""
    labels = [label.replace(" / ", " /\n") for label in labels]  # a seating: one policy a line
    longest = max((len(line) for label in labels for line in label.split("\n")), default=0)
    axes_width_chars = axes.get_position().width * axes.figure.get_figwidth() * 72 / 6  # ~6 pt a character
    upright = longest * len(labels) > 0.8 * axes_width_chars
    axes.set_xticks(range(len(labels)), labels, rotation=90 if upright else 0)
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    return longest * CHARACTER_INCHES if upright else (lines - 1) * LINE_INCHES


def sweep_chart(cells: pd.DataFrame, seats: pd.DataFrame, knob: str, study_knobs: list[str], margin_points: float) -> str:
    """Against one swept knob: the first seat's deviation from fair (filled, simultaneous
    interval) and the most deviant seat's signed deviation (hollow), and the mean game length in
    turns (95% interval). Cells that differ in other swept knobs form separate, labelled series."""
    figure, (balance, length) = pyplot().subplots(1, 2, figsize=(MAX_WIDTH_INCHES - 1.2, 3.2), layout="constrained")
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
        for seat_x, seat_y, seat in zip(x, group["max_signed_deviation_points"], group["most_deviant_seat"]):
            balance.annotate(str(int(seat)), (seat_x, seat_y), textcoords="offset points", xytext=(0, 6),
                             ha="center", fontsize=FONT, color=colour)
        length.vlines(x, group["mean_turns_low"], group["mean_turns_high"], color=colour, gid=DATA)
        length.plot(x, group["mean_turns"], "o", color=colour, label=label, gid=DATA)
    balance.axhspan(-margin_points, margin_points, color=BAND_COLOUR, zorder=0, gid=REFERENCE)
    balance.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    balance.set_ylabel("points from fair")
    balance.set_title("first seat (filled) and most deviant\nseat (hollow, its number above)", loc="left")
    length.set_ylabel("mean turns per game")
    length.set_title(f"game length\nby {knob}", loc="left")
    grow = max(_tick_labels(axes, [str(v) for v in values]) for axes in (balance, length))
    figure.set_figheight(figure.get_figheight() + grow)
    for axes in (balance, length):
        axes.set_xlabel(knob)
    if others:  # one legend beside both panels: their series are the same
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
    figure, axes = pyplot().subplots(figsize=(min(MAX_WIDTH_INCHES - 2, 2.0 + 0.65 * len(cells)), 1.4 + 0.36 * players), layout="constrained")
    image = axes.imshow(grid, cmap="RdBu_r", vmin=-reach, vmax=reach, aspect="auto", gid=DATA)
    for (seat, column), value in np.ndenumerate(grid):
        if np.isfinite(value):
            axes.text(column, seat, "0.0" if round(value, 1) == 0 else f"{value:+.1f}", ha="center", va="center", fontsize=SQUARE_FONT,
                      color="white" if abs(value) > 0.6 * reach else "#222222")
    figure.set_figheight(figure.get_figheight() + _tick_labels(axes, column_labels))
    axes.set_xlabel(x_label)
    axes.set_yticks(range(players), [f"{s} (first)" if s == 0 else str(s) for s in range(players)])
    axes.set_ylabel("seat")
    figure.suptitle(title, x=0.01, ha="left", fontsize=FONT)  # above the colour bar's top label too
    axes.spines[:].set_visible(False)
    colour_bar = figure.colorbar(image, ax=axes, fraction=0.05, pad=0.02)
    colour_bar.set_label("points from fair (red: more)", fontsize=FONT)
    return to_svg(figure)


def _sort_key(value):
    """Numbers in numeric order, everything else after them by text."""
    return (0, value, "") if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 0, str(value))


def strength_order(ratings: pd.DataFrame) -> list[str]:
    """The policies in the order `strength_chart` numbers them: by Elo, weakest first."""
    return ratings.sort_values("elo", kind="stable")["policy"].tolist()


def strength_chart(ratings: pd.DataFrame, title: str) -> str:
    """Seat advantage against agent strength: does moving first help strong policies more? Each
    point is labelled with its policy's number in `strength_order` (names, long and a few Elo
    apart on a ladder, overlapped one another; the report names the numbers under the chart)."""
    figure, axes = pyplot().subplots(figsize=(6.4, 3.4))
    x = ratings["elo"].to_numpy()
    y = ratings["first_seat_advantage_points"].to_numpy()
    axes.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    axes.errorbar(
        x, y, xerr=[x - ratings["elo_low"].to_numpy(), ratings["elo_high"].to_numpy() - x],
        fmt="o", color=POINT_COLOUR, capsize=2, gid=DATA,
    )
    # Numbers in rows above and below their points, cycling in order of strength, so that the
    # numbers of up to four neighbours on the strength axis never share a row (a ladder's rungs
    # may sit a few Elo apart).
    rows = (8, -18, 24, -34)  # offsets in points, a line of FONT apart
    for rank, index in enumerate(np.argsort(x, kind="stable")):
        axes.annotate(str(rank + 1), (x[index], y[index]), textcoords="offset points",
                      xytext=(4, rows[rank % len(rows)]), fontsize=FONT)
    axes.margins(y=0.5)  # room for the outer rows of names inside the plot, clear of the title
    spread = max(float(np.nanmax(ratings["elo_high"]) - np.nanmin(ratings["elo_low"])), 1.0)
    axes.set_xlim(np.nanmin(ratings["elo_low"]) - 0.08 * spread, np.nanmax(ratings["elo_high"]) + 0.25 * spread)
    axes.set_xlabel("strength (Elo, Bradley-Terry)")
    axes.set_ylabel("first seat − own average (pts)")
    axes.set_title(title, loc="left")
    return to_svg(figure)


def _wrapped(label: str) -> str:
    """A category label in lines of about LABEL_CHARACTERS, broken at its spaces (a rung such as
    "learned(temperature=6, valued=destination_and_placement)" breaks after its commas)."""
    return "\n".join(textwrap.wrap(label, LABEL_CHARACTERS, break_long_words=False, break_on_hyphens=False)) or label


def _rows_height(labels: list[str], markers: int) -> float:
    """Inches for a chart with one row per label: room for each label's lines and for the row's
    `markers` side by side, plus the title and the axis label."""
    rows = sum(max(label.count("\n") + 1, 0.75 * markers) * LINE_INCHES + 0.12 for label in labels)
    return 1.3 + rows


def head_to_head_chart(policies: pd.DataFrame, title: str) -> str:
    """A ladder's head-to-head cells at one player count, one row each (in ladder order, the first
    on top): each policy's win rate over the seats it held, in points from a fair 1/n, with its 95%
    interval (the first policy a circle, the second a square). These cells place the rungs on one
    strength scale; they have no seat verdict (their seats mix players)."""
    cells = list(dict.fromkeys(policies["label"]))
    labels = [" vs\n".join(_wrapped(policy) for policy in label.split(" vs ")) for label in cells]
    figure, axes = pyplot().subplots(figsize=(8.5, _rows_height(labels, 2)), layout="constrained")
    axes.axvline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    for position, label in enumerate(cells):
        rows = policies[policies["label"] == label].groupby("policy", sort=False).agg(
            win_rate=("win_rate", "mean"), ci_low=("ci_low", "mean"), ci_high=("ci_high", "mean"), fair=("fair", "first"))
        for number, (policy, row) in enumerate(rows.iterrows()):
            y = len(cells) - 1 - position - (number - (len(rows) - 1) / 2) * 0.3
            axes.hlines([y], [(row["ci_low"] - row["fair"]) * 100], [(row["ci_high"] - row["fair"]) * 100],
                        color=f"C{number}", gid=DATA)
            axes.plot([(row["win_rate"] - row["fair"]) * 100], [y], "s" if number else "o", color=f"C{number}",
                      markersize=5, gid=DATA, label=None if position else ("first policy" if number == 0 else "second policy"))
    axes.set_yticks([len(cells) - 1 - position for position in range(len(cells))], labels)
    axes.set_ylim(-0.6, len(cells) - 0.4)
    axes.set_ylabel("head-to-head")
    axes.set_xlabel("points from fair (per seat held), 95% intervals")
    axes.legend(**LEGEND_OUTSIDE)
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
    figure, axes = pyplot().subplots(figsize=(7.5, 0.9 + 0.3 * len(rows)))
    y = np.arange(len(rows))[::-1]
    axes.axvline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    for position, (_, change, low, high, marker) in zip(y, rows):
        colour = "#a83a1f" if marker == "D" else POINT_COLOUR
        axes.hlines(position, low, high, color=colour, linewidth=1.5, gid=DATA)
        axes.plot([change], [position], marker, color=colour, markersize=5, gid=DATA)
    axes.set_yticks(y, [row[0] for row in rows])
    axes.set_xlabel("change B − A (points)")
    axes.set_title("what changed, with 95% intervals (seats: simultaneous over all seats)", loc="left")
    return to_svg(figure)


WATERFALL_ROW_INCHES = 0.34
SHARE_COLOURS = {True: POINT_COLOUR, False: "#a83a1f"}  # a share that raises the seat's rate, or lowers it


def explain_waterfall(shares: pd.DataFrame, cell: pd.Series, rest_name: str) -> str:
    """Where one cell's seat deviation comes from, as a horizontal waterfall in points: each
    mechanism's share (Shapley, or one-at-a-time) a bar from where the previous one ended, with its
    95% interval (paired, the deal as the unit) at the bar's end; then the rest (`rest_name`); the
    last bar is the whole deviation from fair, from 0. Rows top to bottom in the sentence's order."""
    rows = [(f"{row['mechanism']} ({row['rules']})" if row["rules"] else row["mechanism"],
             row["share"], row["share_low"], row["share_high"]) for _, row in shares.iterrows()]
    rows.append((rest_name, cell["unexplained"], cell["unexplained_low"], cell["unexplained_high"]))
    figure, axes = pyplot().subplots(figsize=(7.5, 1.1 + WATERFALL_ROW_INCHES * (len(rows) + 1)))
    y = np.arange(len(rows) + 1)[::-1]
    axes.axvline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    start = 0.0
    for position, (_, share, low, high) in zip(y, rows):
        axes.barh(position, share, left=start, height=0.6, color=SHARE_COLOURS[share * cell["deviation"] >= 0], gid=DATA)
        if not (pd.isna(low) or pd.isna(high)):
            axes.hlines(position, start + low, start + high, color="black", linewidth=1.2, gid=DATA)
        start += share
    axes.barh(y[-1], cell["deviation"], height=0.6, color="#555555", gid=DATA)
    if not pd.isna(cell["deviation_low"]):
        axes.hlines(y[-1], cell["deviation_low"], cell["deviation_high"], color="black", linewidth=1.2, gid=DATA)
    axes.set_yticks(y, [row[0] for row in rows] + [f"seat {int(cell['seat'])} from fair"])
    axes.set_ylim(-0.7, len(rows) + 0.7)
    axes.set_xlabel("points of win rate (bars: share of the deviation; lines: paired 95% interval)")
    method = "Shapley shares" if cell["method"] == "shapley" else "one mechanism off at a time"
    axes.set_title(f"{cell['label']}: where seat {int(cell['seat'])}'s edge comes from ({method})", loc="left")
    return to_svg(figure)


# The skill curve (issue #39 item 2): every text at FONT like every chart's, the legend under the
# plot within the chart, and each rung named by its number above the plot (the caption lists them).
SKILL_CURVE_INCHES = (7.0, 4.0)
# Seats of one rung are drawn side by side, this share of the strength axis apart, so that their
# intervals do not hide each other.
SKILL_CURVE_DODGE = 0.012
SKILL_CURVE_CLOSE = 0.04


def skill_curve_chart(rungs: pd.DataFrame, title: str, margin_points: float) -> str:
    """Each seat's signed deviation from fair (points, with its simultaneous interval) against
    its rung's strength (Elo) at one player count, rungs joined in order of strength, one colour
    and marker per seat: does a seat's edge grow, shrink or settle as the players get stronger?
    Rungs whose rating is not estimable cannot be placed and are left out (the caption names
    them). Rung numbers above the plot follow `skill_curve_rungs`."""
    plt = pyplot()
    placed = rungs[np.isfinite(rungs["elo"].to_numpy(dtype=float))]
    order = skill_curve_rungs(rungs)
    figure, axes = plt.subplots(figsize=SKILL_CURVE_INCHES, layout="constrained")
    axes.axhspan(-margin_points, margin_points, color=BAND_COLOUR, gid=REFERENCE, label=f"fair ±{margin_points:g} pts")
    axes.axhline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1, gid=REFERENCE)
    elo = placed.drop_duplicates("rung").set_index("rung")["elo"]
    spread = max(float(elo.max() - elo.min()), 1.0) if len(elo) else 1.0
    seats = sorted(placed["seat"].unique())
    markers = "os^Dv"
    for number, seat in enumerate(seats):
        group = placed[placed["seat"] == seat].sort_values("elo")
        x = group["elo"].to_numpy(dtype=float) + (number - (len(seats) - 1) / 2) * SKILL_CURVE_DODGE * spread
        axes.vlines(x, group["low_points"].to_numpy(), group["high_points"].to_numpy(), color=f"C{number}",
                    linewidth=1.2, gid=DATA)
        axes.plot(x, group["deviation_points"].to_numpy(), marker=markers[number % len(markers)], color=f"C{number}",
                  markersize=5, linewidth=1.2, gid=DATA, label=f"seat {seat}" + (" (first)" if seat == 0 else ""))
    if len(elo):
        axes.set_xlim(elo.min() - 0.08 * spread, elo.max() + 0.08 * spread)
    numbers = {rung: position for position, rung in enumerate(order, start=1)}
    elo = elo.sort_values()
    # each rung's number above the plot at its strength, in the lowest line that no weaker rung
    # closer than SKILL_CURVE_CLOSE of the axis holds, so numbers never overlap (three rungs a few
    # Elo apart stack in three lines)
    strengths = elo.to_numpy(dtype=float)
    lines = np.zeros(len(elo), dtype=int)
    for index in range(1, len(elo)):
        taken = set(lines[:index][strengths[index] - strengths[:index] < SKILL_CURVE_CLOSE * spread])
        lines[index] = min(set(range(len(taken) + 1)) - taken)
    for (rung, strength), line in zip(elo.items(), lines):
        axes.annotate(str(numbers[rung]), (strength, 1.0), xycoords=("data", "axes fraction"),
                      xytext=(0, 3 + FONT * 1.3 * line), textcoords="offset points", ha="center",
                      va="bottom", fontsize=FONT)
    axes.tick_params(labelsize=FONT)
    axes.set_xlabel("rung strength (Elo, Bradley-Terry); above the plot: rung numbers, weakest first",
                    fontsize=FONT)
    axes.set_ylabel("points from fair", fontsize=FONT)
    handles, labels = axes.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=FONT,
                  frameon=False)  # under the plot, within the chart: it covers no data
    figure.suptitle(title, x=0.01, ha="left", fontsize=FONT)
    return to_svg(figure)


def skill_curve_rungs(rungs: pd.DataFrame) -> list[str]:
    """A ladder's rungs at one player count in the order the skill curve numbers them: by
    strength, weakest first; rungs without an estimable rating last, in ladder order."""
    first = rungs.drop_duplicates("rung")
    rated = first[np.isfinite(first["elo"].to_numpy(dtype=float))].sort_values("elo", kind="stable")
    return rated["rung"].tolist() + first[~first["rung"].isin(rated["rung"])]["rung"].tolist()


# ---- "How the game plays" charts (analysis/gameplay: a figure's `Chart`) ---------------------------

GAMEPLAY_SIZE = (5.2, 2.4)  # inches: a bars or curve chart
FOREST_ROW_INCHES = 0.26


def gameplay_chart(chart, rows: pd.DataFrame, lengths: pd.DataFrame | None = None) -> str | None:
    """A figure's chart (analysis/gameplay/figure.Chart) from its rows; None when it has nothing
    to draw (no rows with an interval, or, for a length chart, no distribution of its measure)."""
    drawn = rows[[bool(chart.items(row)) for row in rows.to_dict("records")]] if len(rows) else rows
    drawn = drawn[np.isfinite(drawn["estimate"].to_numpy(dtype=float))] if len(drawn) else drawn
    if chart.kind == "length":
        for measure in chart.measures if lengths is not None and len(lengths) else ():
            subset = lengths[lengths["measure"] == measure]
            if subset["value"].nunique() > 1:  # a constant length is a sentence, not a chart
                marks = [(chart.tick(row), float(row["estimate"])) for row in drawn.to_dict("records")
                         if row["unit"] == measure]
                return length_histogram(subset, measure, marks)
        return None
    if not len(drawn):
        return None
    if chart.kind == "forest":
        return _forest(chart, drawn)
    return _across(chart, drawn)


def _interval_values(chart, rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scale = 100.0 if chart.percent else 1.0
    return tuple(scale * rows[column].to_numpy(dtype=float) for column in ("estimate", "low", "high"))


def _across(chart, rows: pd.DataFrame) -> str:
    """Bars or a curve: the items across, each estimate with its interval."""
    estimate, low, high = _interval_values(chart, rows)
    x = np.arange(len(rows), dtype=float)
    top = float(np.nanmax(np.concatenate([high, estimate]))) * 1.08 or 1.0
    bottom = min(0.0, float(np.nanmin(np.concatenate([low, estimate]))))
    kind = "bar" if chart.kind == "bars" else "point"
    axes = _Axes(GAMEPLAY_SIZE, (-0.6, len(rows) - 0.4), (bottom, top), _nice_ticks(bottom, top, bins=6),
                 legend=[(kind, "estimate"), ("thin", "95% interval")])
    if chart.kind == "bars":
        for position, value in zip(x, estimate):
            left, right = axes.x(position - 0.35), axes.x(position + 0.35)
            axes.data(f"M{left:.2f} {axes.y(0):.2f}H{right:.2f}V{axes.y(value):.2f}H{left:.2f}Z", f'fill="{BAND_COLOUR}"'
                      f' stroke="{POINT_COLOUR}"')
    else:
        axes.data("M" + "L".join(f"{axes.x(p):.2f} {axes.y(v):.2f}" for p, v in zip(x, estimate)),
                  f'fill="none" stroke="{POINT_COLOUR}" stroke-width="1"')
        axes.data("".join(_circle(axes.x(p), axes.y(v), 3.0) for p, v in zip(x, estimate)),
                  f'fill="white" stroke="{POINT_COLOUR}" stroke-width="1"')
    finite = np.isfinite(low) & np.isfinite(high)
    axes.data("".join(f"M{axes.x(p):.2f} {axes.y(a):.2f}V{axes.y(b):.2f}" for p, a, b in zip(x[finite], low[finite], high[finite])),
              f'fill="none" stroke="{POINT_COLOUR}" stroke-width="1.5"')
    axes.x_ticks(x, [chart.tick(row) for row in rows.to_dict("records")])
    axes.labels(chart.title, "", chart.value_label)
    return axes.svg()


def _forest(chart, rows: pd.DataFrame) -> str:
    """A row per item, top to bottom in the rows' order: estimate and interval across, zero and
    the ±margin band (the rows' `margin` column) behind them."""
    estimate, low, high = _interval_values(chart, rows)
    margin = float(rows["margin"].iloc[0]) if "margin" in rows else 0.0
    finite = np.isfinite(low) & np.isfinite(high)
    reach = max(float(np.nanmax(np.abs(np.concatenate([low[finite], high[finite], estimate])))), margin) * 1.1 or 1.0
    count = len(rows)
    y = count - 1 - np.arange(count, dtype=float)  # the first row on top
    labels = [chart.tick(row) for row in rows.to_dict("records")]
    axes = _Axes((MAX_WIDTH_INCHES * 0.62, 0.9 + FOREST_ROW_INCHES * count), (-reach, reach), (-0.7, count - 0.3),
                 list(y), legend=[("point", "estimate"), ("across", "95% interval"),
                                  ("band", f"margin ±{margin:g}")], y_labels=labels)
    axes.column_band(-margin, margin)
    axes.zero_line(0.0)
    axes.data("".join(f"M{axes.x(a):.2f} {axes.y(r):.2f}H{axes.x(b):.2f}" for r, a, b in zip(y[finite], low[finite], high[finite])),
              f'fill="none" stroke="{POINT_COLOUR}" stroke-width="1.5"')
    axes.data("".join(_circle(axes.x(v), axes.y(r), 3.0) for r, v in zip(y, estimate)),
              f'fill="white" stroke="{POINT_COLOUR}" stroke-width="1"')
    ticks = [tick for tick in _nice_ticks(-reach, reach, bins=6) if -reach <= tick <= reach]
    axes.x_ticks(ticks, [_number(tick, ticks) for tick in ticks])
    axes.labels(chart.title, chart.value_label, "")
    return axes.svg()
