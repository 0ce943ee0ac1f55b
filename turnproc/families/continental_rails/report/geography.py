"""The base geography of every map (coasts, lakes, US state and national
borders, from geodata/north_america.json) cut to a page, and the page
geometry and colours every map drawing shares.

`draw_geography` draws it for a `mapdraw.Frame` in a `mapdraw.MapStyle`;
`mapdraw.draw_map` draws it under the routes and towns unless asked not to
(the report draws it once per page and shares it, maps.py).
"""

import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from reportlab.lib.colors import Color, HexColor
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.pathobject import PDFPathObject

from turnproc.families.continental_rails.report import internals

if TYPE_CHECKING:
    from turnproc.families.continental_rails.report.mapdraw import Frame, MapStyle

GEODATA = Path(__file__).resolve().parent / "geodata" / "north_america.json"

# (west, south, east, north) in degrees.
BBox = tuple[float, float, float, float]
Point = tuple[float, float]  # on the page, in points
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1

ColorLike: TypeAlias = str | Color


@cache
def _hex(value: str) -> Color:
    return HexColor(value)


def as_color(value: ColorLike) -> Color:
    """`value` as a ReportLab colour."""
    # A map sets a colour some thirty times per route drawn; each hex string is read once.
    return _hex(value) if isinstance(value, str) else value


@cache
def _geodata() -> dict[str, list[list[list[float]]]]:
    with GEODATA.open(encoding="utf-8") as handle:
        data: dict[str, list[list[list[float]]]] = json.load(handle)
    return data


# Geography is cut this far outside the frame: the cut edges are never seen.
CLIP_PAD = 4.0
_DASH = (4.0, 1.5)  # national borders


def _path(canvas: Canvas, points: Sequence[Point], close: bool) -> object:
    path = canvas.beginPath()
    path.moveTo(*points[0])
    if internals.PRIVATE and isinstance(path, PDFPathObject) and len(points) > 1:
        # An outline has hundreds of points: their numbers are formatted in one
        # call, each as `lineTo` formats it, and written as its operators.
        numbers = fp_str(*itertools.chain.from_iterable(points[1:])).split(" ")
        path._code.extend([f"{x} {y} l" for x, y in zip(numbers[::2], numbers[1::2], strict=True)])
    else:
        for x, y in points[1:]:
            path.lineTo(x, y)
    if close:
        path.close()
    return path


def _projected(frame: "Frame", line: Sequence[Sequence[float]]) -> list[Point]:
    return frame.points(line)


def _cut_polygon(points: list[Point], box: Rect) -> list[Point]:
    """The part of a closed polygon inside `box` (Sutherland-Hodgman): the
    same area inside the box, no vertices far outside it."""
    x0, y0, x1, y1 = box
    if all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in points):
        return points
    for axis, limit, keep_above in ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False)):
        if not points:
            break
        out: list[Point] = []
        previous = points[-1]
        previous_in = (previous[axis] >= limit) == keep_above
        for point in points:
            inside = (point[axis] >= limit) == keep_above
            if inside != previous_in:
                t = (limit - previous[axis]) / (point[axis] - previous[axis])
                cut = (
                    previous[0] + (point[0] - previous[0]) * t,
                    previous[1] + (point[1] - previous[1]) * t,
                )
                out.append((limit, cut[1]) if axis == 0 else (cut[0], limit))
            if inside:
                out.append(point)
            previous, previous_in = point, inside
        points = out
    return points


def _cut_line(points: list[Point], box: Rect) -> list[tuple[float, list[Point]]]:
    """The runs of an open line whose segments reach into `box`, each with the
    line's length before it (for the dash pattern to carry on where it was)."""
    x0, y0, x1, y1 = box
    runs: list[tuple[float, list[Point]]] = []
    run: list[Point] = []
    start = length = 0.0
    for a, b in itertools.pairwise(points):
        seen = not (
            max(a[0], b[0]) < x0
            or min(a[0], b[0]) > x1
            or max(a[1], b[1]) < y0
            or min(a[1], b[1]) > y1
        )
        if seen:
            if not run:
                run, start = [a], length
            run.append(b)
        elif run:
            runs.append((start, run))
            run = []
        length += math.hypot(b[0] - a[0], b[1] - a[1])
    if run:
        runs.append((start, run))
    return runs


LonLat = Sequence[float]  # [lon, lat], as the geodata has them
# An outline is walked in pieces of this many points, each with its bounds, so
# that a stretch far from the page is passed over without looking at its points.
PIECE = 32
# A run of points south of a page is replaced by a straight line only where it
# spans at most this many degrees of longitude (see `_Window`).
SOUTH_SPAN = 15.0
# Window sides, as bits: the side of the page a point lies beyond.
_WEST, _EAST, _NORTH, _SOUTH = 1, 2, 4, 8


@dataclass(frozen=True)
class _Outline:
    """A coast, lake shore or border as the geodata has it (lon, lat), with the
    bounds of the whole and of each piece of PIECE points."""

    points: Sequence[LonLat]
    bounds: BBox
    pieces: tuple[tuple[int, int, float, float, float, float], ...]

    @classmethod
    def of(cls, points: Sequence[LonLat]) -> "_Outline":
        pieces = []
        for start in range(0, len(points), PIECE):
            part = points[start : start + PIECE]
            lons, lats = [p[0] for p in part], [p[1] for p in part]
            pieces.append((start, start + len(part), min(lons), min(lats), max(lons), max(lats)))
        bounds = (
            min(p[2] for p in pieces),
            min(p[3] for p in pieces),
            max(p[4] for p in pieces),
            max(p[5] for p in pieces),
        )
        return cls(points, bounds, tuple(pieces))


@cache
def _outlines() -> dict[str, list[_Outline]]:
    return {kind: [_Outline.of(line) for line in lines] for kind, lines in _geodata().items()}


@cache
def _longitudes() -> tuple[float, float]:
    """The westernmost and easternmost longitude of the geography."""
    bounds = [line.bounds for lines in _outlines().values() for line in lines]
    return min(b[0] for b in bounds), max(b[2] for b in bounds)


@dataclass(frozen=True)
class _Window:
    """Longitudes and latitudes beyond which geography cannot be seen on a page.

    In the Albers projection meridians are straight lines through the cone's
    apex and parallels are circles around it. So the points west of `west`
    project into a wedge from the apex, those east of `east` into another, and
    those north of `north` into a disk: each convex, and none reaching the page
    box. A straight line between two points of one of them stays in it, so a run
    of an outline's points all beyond one of these sides can be replaced by its
    first and last point: the outline changes only off the page. South of
    `south` the points lie outside a circle, which is not convex; there a run
    spanning at most SOUTH_SPAN degrees of longitude keeps its straight lines
    (and the run's replacement) outside the circle the page's farthest corner
    is on, because `south` is set that much farther off."""

    west: float
    south: float
    east: float
    north: float

    def side(self, west: float, south: float, east: float, north: float) -> int:
        """The sides (bits) a box of points lies wholly beyond."""
        bits = 0
        if east < self.west:
            bits |= _WEST
        if west > self.east:
            bits |= _EAST
        if south > self.north:
            bits |= _NORTH
        if north < self.south and east - west <= SOUTH_SPAN:
            bits |= _SOUTH
        return bits


def _window(frame: "Frame", box: Rect) -> "_Window | None":
    """The window of a page box (page points) of `frame`; None where the page
    is too large for the sides to be worked out (then nothing is cut early)."""
    albers = frame.projection
    n, c = albers.n, albers.c
    if n <= 0:
        return None
    cx, cy = frame.x + frame.width / 2, frame.y + frame.height / 2
    # The box in the projection's own units, measured from the apex: u east, v south.
    us = [(frame.origin_x + (x - cx) / frame.scale) / 6371.0 for x in (box[0], box[2])]
    vs = [
        albers.rho0 - (frame.origin_y + (y - cy) / frame.scale) / 6371.0 for y in (box[1], box[3])
    ]
    u0, u1 = min(us), max(us)
    v0, v1 = min(vs), max(vs)
    if v0 <= 0:  # the apex is level with the box or beyond it
        return None
    corners = [(u, v) for u in (u0, u1) for v in (v0, v1)]
    thetas = [math.atan2(u, v) for u, v in corners]
    rho_far = max(math.hypot(u, v) for u, v in corners)
    rho_near = math.hypot(max(u0, 0.0, -u1), v0)

    def lat(rho: float) -> float:
        sine = (c - (rho * n) ** 2) / (2 * n)
        return math.degrees(math.asin(max(-1.0, min(1.0, sine))))

    span = n * math.radians(SOUTH_SPAN)
    if span >= math.pi:
        return None
    west = albers.lon0 + math.degrees(min(thetas)) / n
    east = albers.lon0 + math.degrees(max(thetas)) / n
    farthest_west, farthest_east = _longitudes()
    # A wedge wider than half a turn would not be convex.
    if n * math.radians(max(west - farthest_west, farthest_east - east)) >= math.pi:
        return None
    # A margin for rounding, far below what a page can show.
    eps = 1e-6
    return _Window(
        west=west - eps,
        south=lat(rho_far / math.cos(span / 2)) - eps,
        east=east + eps,
        north=lat(rho_near) + eps,
    )


def _near(outline: _Outline, window: _Window, closed: bool) -> Sequence[LonLat]:
    """The outline's points with every run beyond one side of `window` (see
    there) cut down to its first and last point (an open line's leading run to
    its last, its trailing run to its first): the same wherever the page can
    show it. Empty if all of it lies beyond one side."""
    if window.side(*outline.bounds):
        return []
    points = outline.points
    side = window.side
    out: list[LonLat] = []
    # The run being walked: its first and last point, length, sides, longitudes.
    first = last = points[0]
    count = mask = 0
    lo = hi = 0.0
    for start, end, west, south, east, north in outline.pieces:
        bits = side(west, south, east, north)
        if bits:
            units: Iterable[tuple[int, float, float, LonLat, LonLat, int]] = (
                (bits, west, east, points[start], points[end - 1], end - start),
            )
        elif (
            west >= window.west
            and east <= window.east
            and south >= window.south
            and north <= window.north
        ):
            # Wholly inside the window: the run before it ends here.
            if count:
                if out or closed:
                    out.append(first)
                    if count > 1:
                        out.append(last)
                else:
                    out.append(last)
                count = 0
            out.extend(points[start:end])
            continue
        else:
            units = ((side(p[0], p[1], p[0], p[1]), p[0], p[0], p, p, 1) for p in points[start:end])
        for bits, west, east, head, tail, length in units:
            if count:
                both = mask & bits
                if both:
                    low, high = min(lo, west), max(hi, east)
                    if both != _SOUTH or high - low <= SOUTH_SPAN:
                        mask, lo, hi, last, count = both, low, high, tail, count + length
                        continue
                if out or closed:
                    out.append(first)
                    if count > 1:
                        out.append(last)
                else:
                    out.append(last)
                count = 0
            if bits:
                first, last, count, mask, lo, hi = head, tail, length, bits, west, east
            else:
                out.append(head)
    if count:
        out.append(first)
        if count > 1 and closed:
            out.append(last)
    return out if len(out) >= (3 if closed else 2) else []


def draw_geography(canvas: Canvas, frame: "Frame", style: "MapStyle") -> None:
    """Water, land, lakes and borders, clipped to the frame; what lies outside
    it (most of the continent on a zoomed page) is cut away, not drawn hidden.

    Only the points near the page are projected: what lies beyond its window
    (`_Window`) is passed over in longitude and latitude first."""
    geo = _outlines()
    box = (
        frame.x - CLIP_PAD,
        frame.y - CLIP_PAD,
        frame.x + frame.width + CLIP_PAD,
        frame.y + frame.height + CLIP_PAD,
    )
    window = _window(frame, box)

    def near(outline: _Outline, closed: bool) -> Sequence[LonLat]:
        return outline.points if window is None else _near(outline, window, closed)

    canvas.setFillColor(as_color(style.water))
    canvas.rect(frame.x, frame.y, frame.width, frame.height, stroke=0, fill=1)
    canvas.setLineJoin(1)
    canvas.setStrokeColor(as_color(style.coast))
    canvas.setLineWidth(0.4)
    for kind, colour in (("land", style.land), ("lakes", style.water)):
        canvas.setFillColor(as_color(colour))
        for outline in geo[kind]:
            shape = near(outline, True)
            if len(shape) < 3:
                continue
            points = _cut_polygon(_projected(frame, shape), box)
            if len(points) >= 3:
                canvas.drawPath(_path(canvas, points, True), stroke=1, fill=1)
    canvas.setStrokeColor(as_color(style.state_border))
    canvas.setLineWidth(0.35)
    for outline in geo["states"]:
        for _, run in _cut_line(_projected(frame, near(outline, False)), box):
            canvas.drawPath(_path(canvas, run, False), stroke=1, fill=0)
    canvas.setStrokeColor(as_color(style.country_border))
    canvas.setLineWidth(0.7)
    period = sum(_DASH)
    for outline in geo["countries"]:
        # Dashed: the dash pattern runs on from the line's start, so a line is
        # left whole (only one wholly beyond a side is passed over).
        if window is not None and window.side(*outline.bounds):
            continue
        for start, run in _cut_line(_projected(frame, outline.points), box):
            canvas.setDash(list(_DASH), round(start % period, 2))
            canvas.drawPath(_path(canvas, run, False), stroke=1, fill=0)
    canvas.setDash()
