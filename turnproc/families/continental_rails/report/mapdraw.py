"""Draw the Continental Rails map with ReportLab (rules section 2: routes, towns, regions).

The module draws on any ReportLab canvas, so the turn report can reuse it:

    from turnproc.families.continental_rails.report.mapdraw import (
        Frame, MapStyle, Overlay, RouteStyle, draw_map,
    )

    frame = Frame.fit(scenario, x=36, y=36, width=720, height=500)           # whole map
    frame = Frame.fit(scenario, 36, 36, 720, 500, bbox=NORTH_EAST)           # or a zoom
    overlay = Overlay(
        routes={"NYC": RouteStyle(color="#b22222", width=2.0),               # a railroad
                "PA1": RouteStyle(color="#b22222", width=2.0, double_track=True),
                "NY3": RouteStyle(color="#b22222", width=1.2, dash=(3, 2))},  # unbuilt RoW
        towns={"albany": "#b22222"},                                          # highlighted
        legend=[("New York Central (yours)", RouteStyle(color="#b22222", width=2.0))],
        title="Turn 7",
    )
    draw_map(canvas, scenario, frame, overlay, MapStyle())

- `draw_map` returns a `DrawResult`: the codes labelled and those without room.
  `draw_geography` alone draws the base geography (to cache it, then pass
  `geography=False` to `draw_map`).
- `Frame` maps latitude/longitude to page points with an Albers equal-area conic
  projection (standard parallels 29.5 and 45.5 degrees N, centred on 96 degrees W),
  fitted into a page rectangle; `bbox` = (west, south, east, north) zooms.
- `MapStyle` holds the colours, widths and font sizes of the base map: land, water,
  borders, PCs (solid, darker) and RoWs (thin, grey), towns and labels.
- `Overlay` restyles single routes (`RouteStyle`: colour, width, dash, double_track,
  label) and highlights towns; routes not named keep the base style, or are faded
  when `fade_others` is set. Its `legend` entries are drawn by `draw_legend`.
- Double routes (2.2, two routes between the same towns) are always drawn as two
  parallel lines, each in its own style; a `RouteStyle(double_track=True)` line is
  drawn as a pair of thin rails.
- Towns: circles sized by size (value = size squared, the number written inside for
  size 2 and more), starred region towns as stars; codes and town names are placed
  so that they do not overlap, skipping a label rather than covering another.

`draw_scenario_map(scenario, out_path)` writes the two-page reference map: the whole
map on a landscape tabloid page and a zoom on the crowded north-east.

Geography (coasts, lakes, US state and national borders) comes from
`geodata/north_america.json`, shipped with the package (see geodata/README.md).
"""

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import PDFTextObject

from turnproc.families.continental_rails.report import internals
from turnproc.families.continental_rails.report.geography import (
    BBox,
    ColorLike,
    Point,
    Rect,
    as_color,
    draw_geography,
)
from turnproc.families.continental_rails.report.strings import ascii_as_itself, strings
from turnproc.files import write_whole
from turnproc.scenario.model import Route, Scenario, Town

NORTH_EAST: BBox = (-84.2, 37.2, -69.6, 46.2)
TABLOID_LANDSCAPE = (17 * 72.0, 11 * 72.0)


class Albers:
    """Albers equal-area conic projection on a sphere; output in km."""

    def __init__(
        self,
        lon0: float = -96.0,
        lat0: float = 37.5,
        parallel1: float = 29.5,
        parallel2: float = 45.5,
    ) -> None:
        p1, p2 = math.radians(parallel1), math.radians(parallel2)
        self.n = (math.sin(p1) + math.sin(p2)) / 2
        self.c = math.cos(p1) ** 2 + 2 * self.n * math.sin(p1)
        self.rho0 = math.sqrt(self.c - 2 * self.n * math.sin(math.radians(lat0))) / self.n
        self.lon0 = lon0

    def __call__(self, lat: float, lon: float) -> tuple[float, float]:
        rho = math.sqrt(self.c - 2 * self.n * math.sin(math.radians(lat))) / self.n
        theta = self.n * math.radians(lon - self.lon0)
        return 6371.0 * rho * math.sin(theta), 6371.0 * (self.rho0 - rho * math.cos(theta))


PROJECTION = Albers()


@dataclass(frozen=True)
class Frame:
    """A page rectangle showing a part of the map; `point` turns lat/lon into page points."""

    x: float
    y: float
    width: float
    height: float
    scale: float  # page points per projected km
    origin_x: float  # projected km at the frame's centre
    origin_y: float
    projection: Albers = field(default=PROJECTION)

    @classmethod
    def fit(
        cls,
        scenario: Scenario,
        x: float,
        y: float,
        width: float,
        height: float,
        bbox: BBox | None = None,
        margin: float = 0.03,
    ) -> "Frame":
        """A frame showing `bbox`, or all the towns of the scenario when None.

        A zoom gets its own projection centred on `bbox`, so that north stays up.
        """
        projection = PROJECTION
        if bbox is None:
            points = [projection(t.lat, t.lon) for t in scenario.towns.values()]
        else:
            west, south, east, north = bbox
            projection = Albers(
                lon0=(west + east) / 2,
                lat0=(south + north) / 2,
                parallel1=south + (north - south) / 6,
                parallel2=north - (north - south) / 6,
            )
            steps = [i / 8 for i in range(9)]
            points = [
                projection(south + (north - south) * f, west + (east - west) * g)
                for f in steps
                for g in steps
            ]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        span_x = (max(xs) - min(xs)) * (1 + 2 * margin) or 1.0
        span_y = (max(ys) - min(ys)) * (1 + 2 * margin) or 1.0
        scale = min(width / span_x, height / span_y)
        return cls(
            x=x,
            y=y,
            width=width,
            height=height,
            scale=scale,
            origin_x=(max(xs) + min(xs)) / 2,
            origin_y=(max(ys) + min(ys)) / 2,
            projection=projection,
        )

    def point(self, lat: float, lon: float) -> tuple[float, float]:
        px, py = self.projection(lat, lon)
        return (
            self.x + self.width / 2 + (px - self.origin_x) * self.scale,
            self.y + self.height / 2 + (py - self.origin_y) * self.scale,
        )

    def points(self, line: Iterable[Sequence[float]]) -> list[Point]:
        """`point` of every (lon, lat) of `line` (the geodata's order), the same
        numbers worked out in one loop: a page projects thousands of them."""
        albers = self.projection
        n, c, rho0, lon0 = albers.n, albers.c, albers.rho0, albers.lon0
        twice_n = 2 * n
        centre_x, centre_y = self.x + self.width / 2, self.y + self.height / 2
        origin_x, origin_y, scale = self.origin_x, self.origin_y, self.scale
        sin, cos, sqrt, radians = math.sin, math.cos, math.sqrt, math.radians
        out = []
        for lon, lat in line:
            rho = sqrt(c - twice_n * sin(radians(lat))) / n
            theta = n * radians(lon - lon0)
            px, py = 6371.0 * rho * sin(theta), 6371.0 * (rho0 - rho * cos(theta))
            out.append((centre_x + (px - origin_x) * scale, centre_y + (py - origin_y) * scale))
        return out

    def town(self, town: Town) -> tuple[float, float]:
        return self.point(town.lat, town.lon)

    def contains(self, px: float, py: float, pad: float = 0.0) -> bool:
        return (
            self.x + pad <= px <= self.x + self.width - pad
            and self.y + pad <= py <= self.y + self.height - pad
        )


# The towns' page points of the last few frames: a page asks for them several
# times (its lines, the reader's band, the legend's placement).
_TOWN_POINTS: dict[Frame, tuple[Scenario, dict[str, Point]]] = {}
TOWN_POINTS_KEPT = 8


def town_points(frame: Frame, scenario: Scenario) -> dict[str, Point]:
    """Every town's `Frame.town` point in `frame`, worked out once per frame.
    The dict is shared: callers only read it."""
    kept = _TOWN_POINTS.get(frame)
    if kept is not None and kept[0] is scenario:
        return kept[1]
    towns = list(scenario.towns.values())
    at = dict(
        zip((t.id for t in towns), frame.points([(t.lon, t.lat) for t in towns]), strict=True)
    )
    if len(_TOWN_POINTS) >= TOWN_POINTS_KEPT:
        del _TOWN_POINTS[next(iter(_TOWN_POINTS))]
    _TOWN_POINTS[frame] = (scenario, at)
    return at


@dataclass(frozen=True)
class RouteStyle:
    """How one route is drawn; `None` fields fall back to the base style."""

    color: ColorLike | None = None
    width: float | None = None
    dash: tuple[float, ...] | None = None
    double_track: bool = False
    label: bool = True
    # Tell apart two railroads that share a colour: cross ticks (the old map
    # sign of a railroad), or a thin line of another colour along the middle.
    ticks: bool = False
    stripe: ColorLike | None = None


@dataclass(frozen=True)
class MapStyle:
    """Colours, widths and fonts of the base map."""

    water: ColorLike = "#dcebf5"
    land: ColorLike = "#f7f3e6"
    state_border: ColorLike = "#b9b09a"
    country_border: ColorLike = "#8a7f66"
    coast: ColorLike = "#7fa6bf"
    pc: RouteStyle = RouteStyle(color="#3b3b3b", width=1.3)
    row: RouteStyle = RouteStyle(color="#8c8c8c", width=0.7)
    faded: RouteStyle = RouteStyle(color="#cfcfcf", width=0.5, label=False)
    double_gap: float = 2.0  # points between the two lines of a double route
    town_fill: ColorLike = "#ffffff"
    town_line: ColorLike = "#222222"
    star_fill: ColorLike = "#e8b923"
    highlight: ColorLike = "#c0392b"
    font: str = "Helvetica"
    font_bold: str = "Helvetica-Bold"
    code_size: float = 4.2
    code_color: ColorLike = "#1f3a5f"
    pc_code_color: ColorLike = "#7a1f1f"
    town_label_size: float = 5.0
    town_radius: float = 1.6  # radius of a size-1 town; grows with size
    town_radius_step: float = 0.7
    show_route_codes: bool = True
    show_town_names: bool = True


@dataclass
class Overlay:
    """Per-route and per-town emphasis laid over the base map (e.g. for one reader)."""

    routes: dict[str, RouteStyle] = field(default_factory=dict)
    towns: dict[str, ColorLike] = field(default_factory=dict)
    legend: list[tuple[str, RouteStyle]] = field(default_factory=list)
    fade_others: bool = False
    title: str | None = None


class _Placer:
    """Greedy label placement: a label is placed only where it overlaps nothing.

    Taken rectangles are filed in a grid of square cells, so a candidate is
    tested only against the few rectangles in the cells it covers rather than
    against every label on the map (a map has some 1,500 of them). A cell's key
    is one integer, `column * ROWS + row`: cheaper to hash than a pair, and
    unique while a page is under ROWS cells high."""

    CELL = 16.0  # points: about one route code wide
    ROWS = 1 << 20

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.cells: dict[int, list[Rect]] = {}
        # A label must stay a point inside the frame (as `Frame.contains` with pad 1).
        self.left, self.right = frame.x + 1, frame.x + frame.width - 1
        self.bottom, self.top = frame.y + 1, frame.y + frame.height - 1

    def _keys(self, rect: Rect) -> Iterator[int]:
        x0, y0, x1, y1 = rect
        size, rows = self.CELL, self.ROWS
        for i in range(math.floor(x0 / size), math.floor(x1 / size) + 1):
            for j in range(math.floor(y0 / size), math.floor(y1 / size) + 1):
                yield i * rows + j

    def free(self, rect: Rect) -> bool:
        # Tried some 2,000 times a map: the cells are walked here, not by `_keys`.
        # A rectangle's corners are in order (x0 <= x1, y0 <= y1), so it is
        # inside the frame when its lower left and upper right corners are.
        x0, y0, x1, y1 = rect
        if not (self.left <= x0 and x1 <= self.right and self.bottom <= y0 and y1 <= self.top):
            return False
        cells = self.cells
        size, rows = self.CELL, self.ROWS
        floor = math.floor
        j0, j1 = floor(y0 / size), floor(y1 / size)
        for i in range(floor(x0 / size), floor(x1 / size) + 1):
            column = i * rows
            for key in range(column + j0, column + j1 + 1):
                taken = cells.get(key)
                if taken is not None:
                    for a0, b0, a1, b1 in taken:
                        if not (x1 <= a0 or x0 >= a1 or y1 <= b0 or y0 >= b1):
                            return False
        return True

    def take(self, rect: Rect) -> None:
        cells = self.cells
        for key in self._keys(rect):
            taken = cells.get(key)
            if taken is None:
                cells[key] = [rect]
            else:
                taken.append(rect)


def _route_style(route: Route, overlay: Overlay, style: MapStyle) -> RouteStyle:
    base = style.pc if route.kind == "PC" else style.row
    special = overlay.routes.get(route.code)
    if special is None:
        return style.faded if overlay.fade_others else base
    return RouteStyle(
        color=special.color if special.color is not None else base.color,
        width=special.width if special.width is not None else base.width,
        dash=special.dash,
        double_track=special.double_track,
        label=special.label,
        ticks=special.ticks,
        stripe=special.stripe,
    )


def _offset(route: Route, scenario: Scenario, gap: float) -> float:
    """Sideways shift of a route that shares its towns with its double."""
    if route.double_with is None or route.double_with not in scenario.routes:
        return 0.0
    other = scenario.routes[route.double_with]
    first = min((route.number, route.code), (other.number, other.code))
    sign = 1.0 if (route.number, route.code) == first else -1.0
    # The sign must not depend on which end is `a`: orient along the sorted town ids.
    if route.a > route.b:
        sign = -sign
    return sign * gap / 2


def _ends(
    frame: Frame,
    scenario: Scenario,
    route: Route,
    shift: float,
    at: dict[str, Point] | None = None,
) -> tuple[float, float, float, float]:
    """The route's two ends on the page, `shift` points to its left; `at`: the
    towns' page points, if worked out already."""
    if at is None:
        at = {t: frame.town(scenario.towns[t]) for t in (route.a, route.b)}
    x0, y0 = at[route.a]
    x1, y1 = at[route.b]
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length
    return x0 + nx * shift, y0 + ny * shift, x1 + nx * shift, y1 + ny * shift


def _stroke_line(canvas: Canvas, ends: tuple[float, float, float, float], look: RouteStyle) -> None:
    x0, y0, x1, y1 = ends
    width = look.width or 1.0
    canvas.setStrokeColor(as_color(look.color or "#000000"))
    if look.dash:
        canvas.setDash(list(look.dash))
    else:
        canvas.setDash()
    if look.double_track:
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        nx, ny = -(y1 - y0) / length, (x1 - x0) / length
        rail = max(width * 0.35, 0.3)
        canvas.setLineWidth(rail)
        for side in (-1, 1):
            d = side * (width / 2)
            canvas.line(x0 + nx * d, y0 + ny * d, x1 + nx * d, y1 + ny * d)
        if look.stripe is not None:  # the stripe runs between the rails
            canvas.setStrokeColor(as_color(look.stripe))
            canvas.setLineWidth(max(width * 0.3, 0.3))
            canvas.line(x0, y0, x1, y1)
    else:
        canvas.setLineWidth(width)
        canvas.line(x0, y0, x1, y1)
        if look.stripe is not None:
            canvas.setStrokeColor(as_color(look.stripe))
            canvas.setLineWidth(max(width * 0.35, 0.3))
            canvas.line(x0, y0, x1, y1)
    if look.ticks:
        _ticks(canvas, ends, width)
    if look.dash:  # an undashed line left the dash unset (above)
        canvas.setDash()


def _ticks(canvas: Canvas, ends: tuple[float, float, float, float], width: float) -> None:
    """Short strokes across the line, every few points, from end to end."""
    x0, y0, x1, y1 = ends
    length = math.hypot(x1 - x0, y1 - y0)
    if length <= 0:
        return
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    half = width * 1.1
    step = max(width * 3.5, 5.0)
    count = max(1, int(length / step))
    first = (length - (count - 1) * step) / 2
    canvas.setDash()
    canvas.setLineWidth(max(width * 0.45, 0.4))
    path = canvas.beginPath()
    for i in range(count):
        cx, cy = x0 + ux * (first + i * step), y0 + uy * (first + i * step)
        path.moveTo(cx - uy * half, cy + ux * half)
        path.lineTo(cx + uy * half, cy - ux * half)
    canvas.drawPath(path, stroke=1, fill=0)


def _town_radius(town: Town, style: MapStyle) -> float:
    return style.town_radius + style.town_radius_step * (town.size - 1)


def _star(canvas: Canvas, cx: float, cy: float, r: float) -> None:
    path = canvas.beginPath()
    for i in range(10):
        angle = math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        px, py = cx + rr * math.cos(angle), cy + rr * math.sin(angle)
        if i == 0:
            path.moveTo(px, py)
        else:
            path.lineTo(px, py)
    path.close()
    canvas.drawPath(path, stroke=1, fill=1)


def _draw_towns(
    canvas: Canvas,
    scenario: Scenario,
    frame: Frame,
    overlay: Overlay,
    style: MapStyle,
    placer: _Placer,
    at: dict[str, Point],
) -> list[Town]:
    shown: list[Town] = []
    for town in sorted(scenario.towns.values(), key=lambda t: (t.size, t.id)):
        cx, cy = at[town.id]
        if not frame.contains(cx, cy):
            continue
        if not shown:
            # Nothing drawn here strokes in another colour or width: set once.
            canvas.setStrokeColor(as_color(style.town_line))
            canvas.setLineWidth(0.5)
        shown.append(town)
        r = _town_radius(town, style)
        highlight = overlay.towns.get(town.id)
        if highlight is not None:
            canvas.setFillColor(as_color(highlight))
            canvas.setFillAlpha(0.35)
            canvas.circle(cx, cy, r + 2.5, stroke=0, fill=1)
            canvas.setFillAlpha(1)
        if town.region is not None:
            canvas.setFillColor(as_color(style.star_fill))
            _star(canvas, cx, cy, r * 1.6)
            placer.take((cx - r, cy - r, cx + r, cy + r))
            continue
        canvas.setFillColor(as_color(style.town_fill))
        canvas.circle(cx, cy, r, stroke=1, fill=1)
        if town.size >= 2:
            canvas.setFillColor(as_color(style.town_line))
            canvas.setFont(style.font_bold, r * 1.3)
            strings(canvas).centred(cx, cy - r * 0.45, str(town.value))
        placer.take((cx - r, cy - r, cx + r, cy + r))
    return shown


# A label's text operators, from BT to ET, in the pieces between its text
# origins (one, or two with a halo): the same wherever the label goes, for the
# fonts a PDF names alone (the base 14; an embedded font's glyph codes belong
# to one document). Key: the text, the font's PDF name, its size, the fill and
# the halo colour.
_LabelKey = tuple[str, str, str, float, str, str | None]
_LABEL_OPS: dict[_LabelKey, list[str]] = {}
LABEL_OPS_KEPT = 20_000
_ORIGIN = "\0"  # marks a text origin in a label's operators being made


class _Labels:
    """Draws a map's town names and route codes, one after another.

    Between two labels nothing else is drawn, so the halo's stroke colour,
    width and line join, once set, hold for the next label: they are set again
    only when they change (a map has some 300 labels in a few sizes). A label in
    a base font has its operators made once per process (`_LABEL_OPS`); only
    its origin is written each time, as ReportLab writes it."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.halo: tuple[ColorLike, float] | None = None

    def __call__(
        self,
        text: str,
        x: float,
        y: float,
        font: str,
        size: float,
        color: ColorLike,
        halo: ColorLike | None,
    ) -> None:
        canvas = self.canvas
        if halo is not None:
            # A stroked copy under the text keeps it readable over lines.
            width = size * 0.28
            if self.halo != (halo, width):
                canvas.setStrokeColor(as_color(halo))
                canvas.setLineWidth(width)
                if self.halo is None:
                    canvas.setLineJoin(1)
                self.halo = (halo, width)
        if (
            internals.PRIVATE
            and type(canvas) is Canvas  # not a subclass that notes its calls (the bench floor)
            and isinstance(color, str)
            and (halo is None or isinstance(halo, str))
            and canvas.bottomup
            and not pdfmetrics.getFont(font)._dynamicFont
        ):
            key = (text, canvas._doc.getInternalFontName(font), font, size, color, halo)
            pieces = _LABEL_OPS.get(key)
            if pieces is None:
                pieces = self._ops(text, font, size, color, halo)
                if len(_LABEL_OPS) >= LABEL_OPS_KEPT:
                    _LABEL_OPS.clear()
                _LABEL_OPS[key] = pieces
            canvas._code.append(f"1 0 0 1 {fp_str(x, y)} Tm".join(pieces))
            return
        text_obj = canvas.beginText(x, y)
        self._text(text_obj, text, x, y, font, size, color, halo)
        canvas.drawText(text_obj)

    def _ops(self, text: str, font: str, size: float, color: str, halo: str | None) -> list[str]:
        """The label's operators as ReportLab writes them, in the pieces
        between its text origins. Printable ASCII in a base font that writes
        it as itself is written as ReportLab's text object writes it, without
        one; other text goes through one."""
        if text.isascii() and text.isprintable() and ascii_as_itself(font):
            name = self.canvas._doc.getInternalFontName(font)
            select = f"{name} {fp_str(size)} Tf {fp_str(size * 1.2)} TL"
            shown = f"({escapePDF(text.encode('ascii'))}) Tj"
            fill = as_color(color)
            filled = f"{fp_str(fill.red, fill.green, fill.blue)} rg {shown}"
            if halo is None:
                return ["BT ", f" {select} {filled} ET"]
            return ["BT ", f" {select} 1 Tr {shown} ", f" 0 Tr {filled} ET"]
        text_obj = self.canvas.beginText(0, 0)
        text_obj._code[-1] = _ORIGIN
        origins: list[int] = []
        self._text(text_obj, text, 0, 0, font, size, color, halo, origins)
        for at in origins:
            text_obj._code[at] = _ORIGIN
        text_obj._code.append("ET")
        return " ".join(text_obj._code).split(_ORIGIN)

    @staticmethod
    def _text(
        text_obj: PDFTextObject,
        text: str,
        x: float,
        y: float,
        font: str,
        size: float,
        color: ColorLike,
        halo: ColorLike | None,
        origins: list[int] | None = None,
    ) -> None:
        text_obj.setFont(font, size)
        if halo is not None:
            text_obj.setTextRenderMode(1)
            text_obj.textOut(text)
            text_obj.setTextOrigin(x, y)
            if origins is not None:
                origins.append(len(text_obj._code) - 1)
            text_obj.setTextRenderMode(0)
        text_obj.setFillColor(as_color(color))
        text_obj.textOut(text)


def _place_town_names(
    canvas: Canvas,
    towns: list[Town],
    style: MapStyle,
    placer: _Placer,
    at: dict[str, Point],
    label: _Labels,
) -> None:
    size = style.town_label_size
    for town in sorted(towns, key=lambda t: (-(t.region is not None), -t.size, t.id)):
        cx, cy = at[town.id]
        r = _town_radius(town, style) * (1.6 if town.region else 1.0)
        font = style.font_bold if town.region or town.size >= 3 else style.font
        label_size = size * (1.15 if town.size >= 4 else 1.0)
        w = canvas.stringWidth(town.name, font, label_size)
        h = label_size * 0.8
        candidates = [
            (cx + r + 1, cy - h / 2),
            (cx - r - 1 - w, cy - h / 2),
            (cx - w / 2, cy + r + 1),
            (cx - w / 2, cy - r - 1 - h),
            (cx + r * 0.7, cy + r * 0.7),
            (cx - r * 0.7 - w, cy + r * 0.7),
            (cx + r * 0.7, cy - r * 0.7 - h),
            (cx - r * 0.7 - w, cy - r * 0.7 - h),
        ]
        for lx, ly in candidates:
            rect = (lx, ly - 0.3, lx + w, ly + h + 0.3)
            if placer.free(rect):
                placer.take(rect)
                label(town.name, lx, ly, font, label_size, "#111111", style.land)
                break


def _place_code(
    canvas: Canvas,
    route: Route,
    ends: tuple[float, float, float, float],
    look: RouteStyle,
    style: MapStyle,
    placer: _Placer,
    label: _Labels,
) -> bool:
    x0, y0, x1, y1 = ends
    font = style.font_bold if route.kind == "PC" else style.font
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    # The sides' unit offsets and the spots along the line, the same for every size.
    sides = [(nx * side, ny * side) for side in (0.0, 1.0, -1.0, 2.0, -2.0)]
    spots = [
        (x0 + dx * t, y0 + dy * t) for t in (0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75, 0.18, 0.82)
    ]
    free = placer.free
    # Where a full-size code finds no room, a smaller one often does.
    for size in (style.code_size, style.code_size * 0.8):
        w = canvas.stringWidth(route.code, font, size)
        h = size * 0.72
        away = h * 0.9 + 0.5
        half_w, half_h = w / 2, h / 2
        for mx, my in spots:
            for sx, sy in sides:
                cx = mx + sx * away
                cy = my + sy * away
                rect = (cx - half_w - 0.3, cy - half_h - 0.3, cx + half_w + 0.3, cy + half_h + 0.3)
                if free(rect):
                    placer.take(rect)
                    label(
                        route.code,
                        cx - half_w,
                        cy - half_h,
                        font,
                        size,
                        _code_color(route, look, style),
                        "#ffffff",
                    )
                    return True
    return False


def _code_color(route: Route, look: RouteStyle, style: MapStyle) -> ColorLike:
    """An overlay colour shows in the code too; base routes keep the code colours."""
    base = style.pc if route.kind == "PC" else style.row
    if look.color is not None and look.color not in (base.color, style.faded.color):
        return look.color
    return style.pc_code_color if route.kind == "PC" else style.code_color


@dataclass
class DrawResult:
    """Route codes labelled on a drawn map, and those whose label found no room."""

    labelled: set[str] = field(default_factory=set)
    unlabelled: list[str] = field(default_factory=list)


def draw_map(
    canvas: Canvas,
    scenario: Scenario,
    frame: Frame,
    overlay: Overlay | None = None,
    style: MapStyle | None = None,
    geography: bool = True,
) -> "DrawResult":
    """Draw the map into `frame`; says which route codes got a label and which found no room.

    `geography=False` leaves out coasts, lakes and borders, for a caller that has
    drawn them already (the turn report replays them from a cache)."""
    overlay = overlay or Overlay()
    style = style or MapStyle()
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(frame.x, frame.y, frame.width, frame.height)
    canvas.clipPath(clip, stroke=0, fill=0)
    if geography:
        draw_geography(canvas, frame, style)

    at = town_points(frame, scenario)
    routes = sorted(scenario.routes.values(), key=lambda r: (r.code in overlay.routes, r.number))
    drawn: list[tuple[Route, tuple[float, float, float, float], RouteStyle]] = []
    canvas.setLineCap(0)
    left, right = frame.x, frame.x + frame.width
    bottom, top = frame.y, frame.y + frame.height
    for route in routes:
        if route.a not in at or route.b not in at:
            continue
        look = _route_style(route, overlay, style)
        ends = _ends(frame, scenario, route, _offset(route, scenario, style.double_gap), at)
        x0, y0, x1, y1 = ends
        # A line whose ink (rails, ticks, stripe) stays off the frame would be
        # clipped away whole: on a zoomed page most of them. It is not drawn.
        reach = 3 * (look.width or 1.0) + 1
        if (
            max(x0, x1) < left - reach
            or min(x0, x1) > right + reach
            or max(y0, y1) < bottom - reach
            or min(y0, y1) > top + reach
        ):
            continue
        _stroke_line(canvas, ends, look)
        drawn.append((route, ends, look))

    placer = _Placer(frame)
    towns = _draw_towns(canvas, scenario, frame, overlay, style, placer, at)
    label = _Labels(canvas)
    if style.show_town_names:
        _place_town_names(canvas, towns, style, placer, at, label)
    result = DrawResult()
    if style.show_route_codes:
        # Emphasised and long routes first: they matter most and have the most room.
        def priority(
            item: tuple[Route, tuple[float, float, float, float], RouteStyle],
        ) -> tuple[int, float]:
            route, (x0, y0, x1, y1), _ = item
            return (0 if route.code in overlay.routes else 1, -math.hypot(x1 - x0, y1 - y0))

        for route, ends, look in sorted(drawn, key=priority):
            x0, y0, x1, y1 = ends
            if not (frame.contains(x0, y0) or frame.contains(x1, y1)):
                mid = ((x0 + x1) / 2, (y0 + y1) / 2)
                if not frame.contains(*mid):
                    continue
            if not look.label:
                continue
            if _place_code(canvas, route, ends, look, style, placer, label):
                result.labelled.add(route.code)
            else:
                result.unlabelled.append(route.code)
    if overlay.title:
        size = style.town_label_size * 2
        width = canvas.stringWidth(overlay.title, style.font_bold, size)
        canvas.setFillColor(as_color("#ffffff"))
        top = frame.y + frame.height
        canvas.rect(frame.x, top - size * 1.6, width + size, size * 1.6, stroke=0, fill=1)
        canvas.setFillColor(as_color("#111111"))
        canvas.setFont(style.font_bold, size)
        canvas.drawString(frame.x + size / 2, top - size * 1.15, overlay.title)
    canvas.restoreState()
    canvas.setStrokeColor(as_color("#444444"))
    canvas.setLineWidth(0.8)
    canvas.rect(frame.x, frame.y, frame.width, frame.height, stroke=1, fill=0)
    return result


LegendRow = tuple[str, RouteStyle | str]
LEGEND_ROW = 11.0  # points per legend line
LEGEND_FONT_SIZE = 7.0


def legend_rows(
    entries: Iterable[tuple[str, RouteStyle]],
    style: MapStyle | None = None,
    towns: bool = True,
    base_routes: bool = True,
) -> list[LegendRow]:
    """The lines of a legend: the base map's PC, RoW and double-route entries when
    `base_routes`, then `entries`, then the star and town circle when `towns`."""
    style = style or MapStyle()
    rows: list[LegendRow] = []
    if base_routes:
        rows += [
            ("Private Company (PC)", style.pc),
            ("Right-of-Way (RoW)", style.row),
            ("Double route", "double"),
        ]
    rows += list(entries)
    if towns:
        rows += [("Starred town (region)", "star"), ("Town, value = size squared", "town")]
    return rows


def legend_size(
    canvas: Canvas, rows: Sequence[LegendRow], style: MapStyle | None = None, columns: int = 1
) -> tuple[float, float]:
    """Width and height of the legend box of `rows` in `columns` columns; a column is
    as wide as its longest text needs (at least 150 points)."""
    style = style or MapStyle()
    text = max((canvas.stringWidth(t, style.font, LEGEND_FONT_SIZE) for t, _ in rows), default=0)
    column = max(150.0, 40 + text + 6)
    per_column = math.ceil(len(rows) / columns)
    return column * columns, LEGEND_ROW * per_column + 8


def draw_legend(
    canvas: Canvas,
    x: float,
    y: float,
    entries: Iterable[tuple[str, RouteStyle]],
    style: MapStyle | None = None,
    towns: bool = True,
    base_routes: bool = True,
    columns: int = 1,
) -> float:
    """A legend box with its top-left corner at (x, y); returns its height.

    `base_routes` adds the base map's PC, RoW and double-route entries before
    `entries`; `towns` adds the star and town circle after them. The lines run
    down the first of `columns` columns, then the next.
    """
    style = style or MapStyle()
    rows = legend_rows(entries, style, towns, base_routes)
    width, height = legend_size(canvas, rows, style, columns)
    column = width / columns
    per_column = math.ceil(len(rows) / columns)
    canvas.saveState()
    canvas.setFillColor(as_color("#ffffff"))
    canvas.setStrokeColor(as_color("#444444"))
    canvas.setLineWidth(0.6)
    canvas.rect(x, y - height, width, height, stroke=1, fill=1)
    for i, (text, kind) in enumerate(rows):
        left = x + column * (i // per_column)
        cy = y - 8 - (i % per_column) * LEGEND_ROW
        if isinstance(kind, RouteStyle):
            _stroke_line(canvas, (left + 6, cy, left + 34, cy), kind)
        elif kind == "double":
            for d in (-style.double_gap / 2, style.double_gap / 2):
                _stroke_line(canvas, (left + 6, cy + d, left + 34, cy + d), style.row)
        elif kind == "star":
            canvas.setFillColor(as_color(style.star_fill))
            canvas.setStrokeColor(as_color(style.town_line))
            canvas.setLineWidth(0.5)
            _star(canvas, left + 20, cy, 4.0)
        elif kind == "town":
            canvas.setFillColor(as_color(style.town_fill))
            canvas.setStrokeColor(as_color(style.town_line))
            canvas.setLineWidth(0.5)
            canvas.circle(left + 12, cy, 1.6, stroke=1, fill=1)
            canvas.circle(left + 24, cy, 3.7, stroke=1, fill=1)
            canvas.setFillColor(as_color(style.town_line))
            canvas.setFont(style.font_bold, 4.8)
            canvas.drawCentredString(left + 24, cy - 1.7, "16")
        canvas.setFillColor(as_color("#111111"))
        canvas.setFont(style.font, LEGEND_FONT_SIZE)
        strings(canvas).left(left + 40, cy - 2.5, text)
    canvas.restoreState()
    return height


def _page(
    canvas: Canvas,
    scenario: Scenario,
    title: str,
    bbox: BBox | None,
    style: MapStyle,
) -> DrawResult:
    page_w, page_h = TABLOID_LANDSCAPE
    margin = 24.0
    frame = Frame.fit(
        scenario, margin, margin, page_w - 2 * margin, page_h - 2 * margin - 18, bbox=bbox
    )
    canvas.setFont(style.font_bold, 13)
    canvas.setFillColor(as_color("#111111"))
    canvas.drawString(margin, page_h - margin - 10, title)
    result = draw_map(canvas, scenario, frame, None, style)
    draw_legend(canvas, frame.x + frame.width - 156, frame.y + 6 + 5 * 11 + 8, [], style)
    return result


def draw_scenario_map(scenario: Scenario, out_path: str | Path) -> list[str]:
    """2.1 The reference map as a two-page PDF; returns route codes left unlabelled.

    Page 1 shows the whole map, page 2 the north-east (Washington - Boston - Buffalo -
    Pittsburgh, Detroit to Richmond) at a larger scale, where codes crowded out of
    page 1 find room. The codes labelled on neither page are returned.
    The file is written whole or not at all (`files.write_whole`): a write
    that fails leaves the map that was there.
    """
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=TABLOID_LANDSCAPE, invariant=1)
    canvas.setTitle(f"{scenario.title}: map")
    canvas.setAuthor("turnproc")
    style = MapStyle()
    first = _page(
        canvas, scenario, f"{scenario.title} - {len(scenario.routes)} routes", None, style
    )
    canvas.showPage()
    zoom_style = MapStyle(
        code_size=7.0,
        town_label_size=8.0,
        town_radius=2.6,
        town_radius_step=1.1,
        double_gap=3.2,
        pc=RouteStyle(color="#3b3b3b", width=2.0),
        row=RouteStyle(color="#8c8c8c", width=1.1),
    )
    second = _page(canvas, scenario, f"{scenario.title} - the north-east", NORTH_EAST, zoom_style)
    canvas.showPage()
    canvas.save()
    write_whole(Path(out_path), buffer.getvalue())
    labelled = first.labelled | second.labelled
    return [
        r.code
        for r in sorted(scenario.routes.values(), key=lambda r: r.number)
        if r.code not in labelled
    ]
