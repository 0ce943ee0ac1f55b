"""Line charts of the standings by turn, drawn as SVG on the server.

Every text is escaped; colours are the maps' palette (turnproc/core/palette.py), given out to
players in position order, so a player keeps his colour on every chart.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from markupsafe import Markup

from turnproc.core.palette import PALETTE

PLAYER_COLOURS = (*PALETTE, "#444444", "#e377c2")
WIDTH, HEIGHT = 520.0, 210.0
LEFT, RIGHT, TOP, BOTTOM = 52.0, 12.0, 26.0, 26.0


def player_colour(position: int) -> str:
    return PLAYER_COLOURS[(position - 1) % len(PLAYER_COLOURS)]


@dataclass(frozen=True)
class Series:
    label: str
    colour: str
    values: Sequence[int | None]  # one per turn of the chart; None: no figure


def _nice_step(span: float) -> float:
    raw = span / 4 or 1.0
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _label(value: float) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def line_chart(
    title: str, turns: Sequence[int], series: Sequence[Series], *, ranks: int = 0
) -> Markup:
    """An SVG line chart: one line per series over `turns`. With `ranks` the y
    axis runs from rank 1 at the top to rank `ranks` at the bottom."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    values = [v for s in series for v in s.values if v is not None]
    if ranks:
        low, high = 1.0, float(max(ranks, 2))
        ticks = [1.0, *(float(r) for r in range(5, ranks + 1, 5))]
    else:
        low, high = min([0, *values]), max([1, *values])
        step = _nice_step(high - low)
        low, high = math.floor(low / step) * step, math.ceil(high / step) * step
        ticks = [low + step * i for i in range(round((high - low) / step) + 1)]

    first, last = (turns[0], turns[-1]) if turns else (0, 1)
    span_x = (last - first) or 1

    def x_of(turn: float) -> float:
        return LEFT + (turn - first) / span_x * plot_w

    def y_of(value: float) -> float:
        share = (value - low) / ((high - low) or 1)
        return TOP + share * plot_h if ranks else TOP + plot_h - share * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH:g} {HEIGHT:g}" '
        f'class="chart" role="img" aria-label="{escape(title, {chr(34): "&quot;"})}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT:g}" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for tick in ticks:
        y = y_of(tick)
        parts.append(
            f'<line x1="{LEFT:g}" x2="{WIDTH - RIGHT:g}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 4:g}" y="{y + 3:.1f}" class="tick" text-anchor="end">'
            f"{escape(_label(tick))}</text>"
        )
    parts.append(
        f'<text x="{WIDTH - RIGHT:g}" y="{HEIGHT - 8:g}" class="tick" text-anchor="end">turn</text>'
    )
    every = max(1, math.ceil(len(turns) / 12))
    for i, turn in enumerate(turns):
        if (i % every == 0 or i == len(turns) - 1) and x_of(turn) < WIDTH - RIGHT - 20:
            parts.append(
                f'<text x="{x_of(turn):.1f}" y="{HEIGHT - 8:g}" class="tick" '
                f'text-anchor="middle">{turn}</text>'
            )
    for one in series:
        points = [
            f"{x_of(turn):.1f},{y_of(value):.1f}"
            for turn, value in zip(turns, one.values, strict=False)
            if value is not None
        ]
        if not points:
            continue
        label = escape(one.label)
        if len(points) == 1:
            cx, cy = points[0].split(",")
            parts.append(
                f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{one.colour}">'
                f"<title>{label}</title></circle>"
            )
        else:
            parts.append(
                f'<polyline points="{" ".join(points)}" fill="none" stroke="{one.colour}" '
                f'stroke-width="1.8" stroke-linejoin="round"><title>{label}</title></polyline>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))  # every text in it escaped above
