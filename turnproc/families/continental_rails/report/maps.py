"""The reader's map pages in the turn report (rules 2 and 9).

Landscape pages drawn with `mapdraw`: the continent fitted to where the
railroads' lines and the PCs for sale are (in the eastern phase the east fills
the page), the crowded north-east at a larger scale, the south-east below it
when lines or PCs for sale reach there, and for a reader who directs railroads
a page zoomed to their lines (drawn for him alone, so not shared).
Every railroad's lines are in its own colour (double track drawn double, owned
unbuilt RoWs dashed), PCs that may be bid for are marked, and the reader's
railroads are emphasised: a pale band under his lines and "(yours)" at the
top of the legend.

Speed: the map is the same for every reader of a turn except for that band
and the legend. So the geography (per scenario) and the railroad layer (per
turn: routes, towns, labels) are each drawn once, on a scratch canvas, as PDF
operators, and replayed into every report. The railroad layer names its fonts
by the scratch document's resource names (/F1, /F2 ...); replaying maps them
to the report document's names for the same fonts.
"""

import re
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfdoc import (
    PDFArray,
    PDFDictionary,
    PDFName,
    PDFObjectReference,
    PDFStream,
    xObjectName,
)
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Frame, PageBreak, PageTemplate

from turnproc.core.palette import PALETTE
from turnproc.families.continental_rails.report import internals, mapdraw
from turnproc.families.continental_rails.report.flowables import Plain
from turnproc.families.continental_rails.report.geography import as_color, draw_geography
from turnproc.families.continental_rails.report.model import PCLine, PlayerReport, RailroadLine
from turnproc.families.continental_rails.report.typeface import SANS_BOLD, register_fonts
from turnproc.scenario.model import Scenario, Town


class MapFacts(Protocol):
    """What a map page shows of a turn: every railroad's lines (the reader's marked
    by `reader_role`) and the PCs for sale. A player's report has them, and so has
    the public part of a turn's report (the web's game page)."""

    @property
    def railroads(self) -> list[RailroadLine]: ...

    @property
    def pcs(self) -> list[PCLine]: ...


PAGE = (792.0, 595.27)  # landscape: Letter height x A4 width, fits both papers
MARGIN = 24.0
TITLE_H = 20.0

# Railroad colours (turnproc/core/palette.py), given out in railroad-number order.
PC_FOR_SALE = mapdraw.RouteStyle(color="#e6007e", width=1.8, dash=(1.2, 1.4))
HALO = "#ffe27a"  # the band under the reader's own lines
UNBUILT = mapdraw.RouteStyle(color="#555555", width=1.0, dash=(3, 2))
DOUBLE = mapdraw.RouteStyle(color="#555555", width=1.6, double_track=True)

# A graphics-state resource (transparency) would need the report document's own names.
_GSTATE_OP = re.compile(r"/\S+\s+gs\b")
BBox = tuple[float, float, float, float]

# A shared map page: the continent (False), the north-east (True), the south-east.
Page = bool | Literal["se"]

# Key of the railroad layer: every railroad's (code, lines) and the PCs for sale.
LayerKey = tuple[tuple[tuple[str, tuple[tuple[str, bool, bool], ...]], ...], tuple[str, ...]]


@dataclass(frozen=True)
class _Look:
    colour: str
    ticks: bool = False
    stripe: str | None = None


# From the fifteenth railroad on the colours come round again, with cross
# ticks on every line; from the twenty-ninth, with a white line down the middle.
LOOKS = (_Look(""), _Look("", ticks=True), _Look("", stripe="#ffffff"))


def _colours(report: MapFacts) -> dict[str, _Look]:
    ordered = sorted(report.railroads, key=lambda rr: rr.number)
    looks = {}
    for i, rr in enumerate(ordered):
        cycle = LOOKS[(i // len(PALETTE)) % len(LOOKS)]
        looks[rr.code] = _Look(PALETTE[i % len(PALETTE)], cycle.ticks, cycle.stripe)
    return looks


def shared_overlay(report: MapFacts, zoom: bool) -> mapdraw.Overlay:
    """Every railroad in its colour and the PCs for sale: the same for every reader."""
    routes: dict[str, mapdraw.RouteStyle] = {}
    colours = _colours(report)
    width = 2.2 if zoom else 1.6
    for rr in report.railroads:
        for line in rr.lines:
            look = colours[rr.code]
            if line.built:
                routes[line.code] = mapdraw.RouteStyle(
                    color=look.colour,
                    width=width,
                    double_track=line.double,
                    ticks=look.ticks,
                    stripe=look.stripe,
                )
            else:
                routes[line.code] = mapdraw.RouteStyle(
                    color=look.colour, width=width * 0.6, dash=(3, 2)
                )
    for pc in report.pcs:
        routes.setdefault(pc.code, PC_FOR_SALE)
    return mapdraw.Overlay(routes=routes)


def legend_for(report: MapFacts, railroads: bool = True) -> list[tuple[str, mapdraw.RouteStyle]]:
    """The reader's legend: his railroads first. Without `railroads` (the crowded
    north-east page, whose every corner has lines) only the line styles."""
    colours = _colours(report)
    entries = []
    if railroads:
        for rr in sorted(report.railroads, key=lambda rr: (not rr.reader_role, rr.number)):
            name = f"{rr.code} {rr.name}"[:24] + (" (yours)" if rr.reader_role else "")
            look = colours[rr.code]
            width = 2.6 if look.stripe else 2.0
            style = mapdraw.RouteStyle(
                color=look.colour, width=width, ticks=look.ticks, stripe=look.stripe
            )
            entries.append((name, style))
    if report.pcs:
        entries.append(("PC you may bid for", PC_FOR_SALE))
    entries += [("Owned RoW, not built", UNBUILT), ("Double-tracked line", DOUBLE)]
    return entries


def _layer_key(report: MapFacts) -> LayerKey:
    railroads = tuple(
        (rr.code, tuple((line.code, line.double, line.built) for line in rr.lines))
        for rr in sorted(report.railroads, key=lambda rr: rr.number)
    )
    return railroads, tuple(pc.code for pc in report.pcs)


class Drawn:
    """Map drawing done once on a scratch canvas, compressed once, and placed in
    every report as the same Form XObject.

    Its operators name fonts by the scratch document's resource names (/F1 ...);
    the form's own resources map those names to the report document's objects
    for the same fonts, so the compressed bytes never change between reports."""

    def __init__(self, name: str, ops: str, fonts: dict[str, str], box: BBox):
        self.name = name
        # Encoded as ReportLab encodes a page's own stream.
        self.data = zlib.compress(ops.encode("utf8"))
        self.fonts = {internal.lstrip("/"): psname for psname, internal in fonts.items()}
        self.box = box

    def replay(self, canvas: Canvas) -> None:
        doc = canvas._doc
        if not doc.hasForm(self.name):
            fonts = {
                local: PDFObjectReference(str(doc.getInternalFontName(psname)).lstrip("/"))
                for local, psname in self.fonts.items()
            }
            form = PDFStream(content=self.data)
            form.dictionary.dict.update(
                Type=PDFName("XObject"),
                Subtype=PDFName("Form"),
                FormType=1,
                BBox=PDFArray(list(self.box)),
                Matrix=PDFArray([1, 0, 0, 1, 0, 0]),
                Resources=PDFDictionary({"Font": PDFDictionary(fonts)}),
                Filter=PDFArray([PDFName("FlateDecode")]),
            )
            doc.Reference(form, xObjectName(self.name))
        canvas.doForm(self.name)


def _scratch() -> Canvas:
    canvas = Canvas(None, pagesize=PAGE)
    canvas._code.clear()  # drop the initial font selection; keep only what is drawn
    return canvas


def _line_points(
    scenario: Scenario, frame: mapdraw.Frame, rr: RailroadLine
) -> Iterator[tuple[float, float]]:
    """Four points along each of a railroad's lines, to tell how much a box hides."""
    at = mapdraw.town_points(frame, scenario)
    for line in rr.lines:
        route = scenario.routes.get(line.code)
        if route is None or route.a not in at or route.b not in at:
            continue
        x0, y0 = at[route.a]
        x1, y1 = at[route.b]
        for t in (0.125, 0.375, 0.625, 0.875):
            yield x0 + (x1 - x0) * t, y0 + (y1 - y0) * t


class _MapFlowable(Flowable):
    """One map filling the frame: geography, the reader's band, railroads, legend."""

    def __init__(self, pages: "MapPages", report: PlayerReport, zoom: bool):
        super().__init__()
        self.pages = pages
        self.report = report
        self.zoom = zoom

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.width, self.height = avail_width, avail_height
        return avail_width, avail_height

    def draw(self) -> None:
        # The shared layers are recorded and replayed through ReportLab's
        # internals: with another release each report draws its own (internals.py).
        draw_page(self.canv, self.pages, self.report, self.zoom, shared=internals.PRIVATE)


def draw_page(
    canvas: Canvas,
    pages: "MapPages",
    report: MapFacts,
    zoom: bool,
    shared: bool = False,
    geography: bool = True,
) -> None:
    """One map page's layout, drawn on `canvas`: geography, the reader's band,
    railroads, legend. The PDF report draws it on ReportLab's canvas with
    `shared` (geography and railroad layer replayed from the once-drawn forms);
    the web draws the same layout on an SVG canvas (render/svgcanvas.py), with
    `geography=False` when it has put the page's geography there already."""
    frame, style = pages.frame(zoom, report)
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(frame.x, frame.y, frame.width, frame.height)
    canvas.clipPath(clip, stroke=0, fill=0)
    if shared:
        pages.geography(zoom, report).replay(canvas)
    elif geography:
        draw_geography(canvas, frame, style)
    _band(canvas, pages.scenario, frame, report, zoom)
    canvas.restoreState()
    layer = pages.layer(report, zoom) if shared else None
    if layer is not None:
        layer.replay(canvas)
    else:
        overlay = shared_overlay(report, zoom)
        mapdraw.draw_map(canvas, pages.scenario, frame, overlay, style, geography=False)
    entries = legend_for(report, railroads=not zoom)
    x, top, columns = _legend_place(canvas, pages, report, zoom, entries)
    mapdraw.draw_legend(canvas, x, top, entries, style, columns=columns)


def _legend_place(
    canvas: Canvas,
    pages: "MapPages",
    report: MapFacts,
    zoom: bool,
    entries: list[tuple[str, mapdraw.RouteStyle]],
    frame: mapdraw.Frame | None = None,
) -> tuple[float, float, int]:
    """Where the legend hides least of the map: the corner and the number of
    columns (one to three) whose box covers the fewest towns and railroad lines,
    the reader's own counting most. Returns the box's top-left corner and columns.
    `frame` is a page of the reader's own (its crowding is worked out here)."""
    style = pages.frame(zoom)[1]
    if frame is None:
        frame = pages.frame(zoom, report)[0]
    xs, points = pages.crowding(report, frame)
    # The reader's own lines weigh 6 in all: 2 as any railroad's, 4 more here.
    mine = [
        (x, y, 4.0)
        for rr in report.railroads
        if rr.reader_role
        for x, y in _line_points(pages.scenario, frame, rr)
    ]

    def hidden(x: float, top: float, width: float, height: float) -> float:
        low, high = bisect_left(xs, x), bisect_right(xs, x + width)
        shown = points[low:high] + [p for p in mine if x <= p[0] <= x + width]
        return sum(w for _, py, w in shown if top - height <= py <= top)

    rows = mapdraw.legend_rows(entries, style)
    pad = 6.0
    best: tuple[float, float, float, int] | None = None
    for columns in (1, 2, 3):
        width, height = mapdraw.legend_size(canvas, rows, style, columns)
        if height > frame.height - 2 * pad or width > frame.width / 2:
            continue
        left, right = frame.x + pad, frame.x + frame.width - pad - width
        low, high = frame.y + pad + height, frame.y + frame.height - pad
        for x, top in ((left, low), (left, high), (right, low), (right, high)):
            # Of boxes hiding equally little, the smaller one.
            score = hidden(x, top, width, height) + width * height / 10_000
            if best is None or score < best[0]:
                best = (score, x, top, columns)
    if best is None:
        width, height = mapdraw.legend_size(canvas, rows, style, 3)
        return frame.x + pad, frame.y + pad + height, 3
    return best[1], best[2], best[3]


def _band(
    canvas: Canvas, scenario: Scenario, frame: mapdraw.Frame, report: MapFacts, zoom: bool
) -> None:
    """The pale band under the reader's own lines."""
    canvas.setStrokeColor(as_color(HALO))
    canvas.setLineWidth(9.0 if zoom else 6.5)
    canvas.setLineCap(1)
    at = mapdraw.town_points(frame, scenario)
    for rr in report.railroads:
        if not rr.reader_role:
            continue
        for line in rr.lines:
            route = scenario.routes.get(line.code)
            if route is None or route.a not in at or route.b not in at:
                continue
            x0, y0 = at[route.a]
            x1, y1 = at[route.b]
            canvas.line(x0, y0, x1, y1)


def _crowding(
    scenario: Scenario, frame: mapdraw.Frame, report: MapFacts
) -> tuple[list[float], list[tuple[float, float, float]]]:
    """Towns (weighing 2 + size) and points along every railroad's lines (2) on
    the page of `frame`, sorted by x, with their x alone for bisecting."""
    at = mapdraw.town_points(frame, scenario)
    points = [(*at[t.id], 2.0 + t.size) for t in scenario.towns.values()]
    for rr in report.railroads:
        points += [(x, y, 2.0) for x, y in _line_points(scenario, frame, rr)]
    points.sort()
    return [p[0] for p in points], points


class _OwnMapFlowable(_MapFlowable):
    """A page of a frame of its own: the reader's railroads zoomed to their
    lines (drawn for him alone), or the south-east (its geography shared)."""

    def __init__(
        self,
        pages: "MapPages",
        report: PlayerReport,
        frame: mapdraw.Frame,
        geography: Drawn | None = None,
    ):
        super().__init__(pages, report, zoom=True)
        self.frame = frame
        self.drawn = geography  # the page's geography drawn once, if it is a fixed page

    def draw(self) -> None:
        draw_framed_page(self.canv, self.pages, self.report, self.frame, self.drawn)


def draw_framed_page(
    canvas: Canvas,
    pages: "MapPages",
    report: MapFacts,
    frame: mapdraw.Frame,
    drawn: Drawn | None = None,
    geography: bool = True,
) -> None:
    """A page of a frame of its own (the south-east, the reader's railroads) in
    the north-east page's style, drawn on `canvas`: geography, the reader's
    band, railroads, the legend of line styles. `drawn` is the page's geography
    drawn once (a fixed page in the PDF, whose railroad layer is then drawn once
    per turn too); the web's SVG passes `geography=False` when it has put the
    geography there already."""
    style = pages.frame(True)[1]
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(frame.x, frame.y, frame.width, frame.height)
    canvas.clipPath(clip, stroke=0, fill=0)
    if drawn is not None:
        drawn.replay(canvas)
    elif geography:
        draw_geography(canvas, frame, style)
    _band(canvas, pages.scenario, frame, report, zoom=True)
    canvas.restoreState()
    layer = pages.fixed_layer(report, frame) if drawn is not None else None
    if layer is not None:
        layer.replay(canvas)
    else:
        overlay = shared_overlay(report, zoom=True)
        mapdraw.draw_map(canvas, pages.scenario, frame, overlay, style, geography=False)
    entries = legend_for(report, railroads=False)
    x, top, columns = _legend_place(canvas, pages, report, True, entries, frame=frame)
    mapdraw.draw_legend(canvas, x, top, entries, style, columns=columns)


# The own-lines page shows at least this much of the map (degrees of longitude,
# latitude), so a railroad of one short line still has its surroundings.
OWN_MIN_SPAN = (7.0, 4.5)
OWN_PAD = 0.8  # degrees around the reader's towns


# The continent page shows at least this much around the lines and PCs for sale
# (degrees of longitude, latitude): a few lines near one town still show the
# region they are in.
CONTINENT_MIN_SPAN = (16.0, 10.0)
CONTINENT_PAD = 1.0
# Below the north-east page (which stops at Richmond): the south to the Gulf.
SOUTH_EAST: BBox = (-93.0, 24.3, -74.8, 38.0)


def _route_towns(scenario: Scenario, codes: Iterable[str]) -> list[Town]:
    return [
        scenario.towns[t]
        for code in codes
        if code in scenario.routes
        for t in scenario.routes[code].towns
        if t in scenario.towns
    ]


def _shown_codes(report: MapFacts) -> Iterator[str]:
    """Every route a map page draws in colour: railroads' lines, PCs for sale."""
    for rr in report.railroads:
        yield from (line.code for line in rr.lines)
    yield from (pc.code for pc in report.pcs)


def continent_bbox(scenario: Scenario, report: MapFacts) -> BBox | None:
    """The part of the continent the first map page shows: where the railroads'
    lines are (before there are any: the PCs for sale), padded; None (the whole
    map) when they span nearly all of it or there are none. A PC for sale outside
    it is on the north-east or south-east page (in the eastern phase all are)."""
    lines = (line.code for rr in report.railroads for line in rr.lines)
    towns = _route_towns(scenario, lines) or _route_towns(scenario, _shown_codes(report))
    if not towns:
        return None
    west, east = min(t.lon for t in towns), max(t.lon for t in towns)
    south, north = min(t.lat for t in towns), max(t.lat for t in towns)
    grow_x = max(0.0, CONTINENT_MIN_SPAN[0] - (east - west)) / 2 + CONTINENT_PAD
    grow_y = max(0.0, CONTINENT_MIN_SPAN[1] - (north - south)) / 2 + CONTINENT_PAD
    box = (west - grow_x, south - grow_y, east + grow_x, north + grow_y)
    every = scenario.towns.values()
    whole = (
        min(t.lon for t in every),
        min(t.lat for t in every),
        max(t.lon for t in every),
        max(t.lat for t in every),
    )
    if (box[2] - box[0]) >= 0.8 * (whole[2] - whole[0]):
        return None
    return box


def continent_title(scenario: Scenario, report: MapFacts) -> str:
    """What the continent page shows, for its title: all of North America, or
    the part fitted to the railroads' lines (before there are any: to the PCs
    for sale), as `continent_bbox` fits it."""
    if continent_bbox(scenario, report) is None:
        return "North America"
    if _route_towns(scenario, (line.code for rr in report.railroads for line in rr.lines)):
        return "where the railroads run"
    return "where the PCs for sale are"


def reaches_south_east(scenario: Scenario, report: MapFacts) -> bool:
    """Whether a line or PC for sale has a town south of the north-east page
    and inside the south-east page."""
    west, south, east, _ = SOUTH_EAST
    return any(
        west <= t.lon <= east and south <= t.lat < mapdraw.NORTH_EAST[1]
        for t in _route_towns(scenario, _shown_codes(report))
    )


def own_bbox(scenario: Scenario, report: PlayerReport) -> BBox | None:
    """The part of the map holding the reader's railroads' lines, or None if he
    directs none."""
    towns = [
        scenario.towns[t]
        for rr in report.railroads
        if rr.reader_role
        for line in rr.lines
        if line.code in scenario.routes
        for t in scenario.routes[line.code].towns
        if t in scenario.towns
    ]
    if not towns:
        return None
    west, east = min(t.lon for t in towns), max(t.lon for t in towns)
    south, north = min(t.lat for t in towns), max(t.lat for t in towns)
    grow_x = max(0.0, OWN_MIN_SPAN[0] - (east - west)) / 2 + OWN_PAD
    grow_y = max(0.0, OWN_MIN_SPAN[1] - (north - south)) / 2 + OWN_PAD
    return (west - grow_x, south - grow_y, east + grow_x, north + grow_y)


# Each page's geography by its frame, style and box (see MapPages.geography); the
# continent page's frame follows the lines, so a long-lived process keeps only
# the latest GEOGRAPHY_KEPT of them.
_GEOGRAPHY: dict[str, Drawn] = {}
GEOGRAPHY_KEPT = 8


def _frame_key(frame: mapdraw.Frame) -> str:
    """A frame told by its numbers (its projection's too), never by an object's
    address, which a later frame may reuse."""
    projection = sorted(vars(frame.projection).items())
    fields = (frame.x, frame.y, frame.width, frame.height, frame.scale)
    return repr((fields, frame.origin_x, frame.origin_y, projection))


def _keep(cache: dict[str, Drawn], key: str, drawn: Drawn) -> None:
    cache[key] = drawn
    while len(cache) > GEOGRAPHY_KEPT:
        del cache[next(iter(cache))]


class MapPages:
    """The two map pages of the reports of one scenario."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        register_fonts()
        self.width = PAGE[0] - 2 * MARGIN
        self.height = PAGE[1] - 2 * MARGIN - TITLE_H
        self._frames = {
            False: (
                mapdraw.Frame.fit(scenario, 0, 0, self.width, self.height),
                # The continent page labels only railroads' routes and PCs for sale;
                # every code is on the north-east page and the reference map.
                mapdraw.MapStyle(
                    pc=mapdraw.RouteStyle(color="#3b3b3b", width=1.3, label=False),
                    row=mapdraw.RouteStyle(color="#8c8c8c", width=0.7, label=False),
                ),
            ),
            True: (
                mapdraw.Frame.fit(scenario, 0, 0, self.width, self.height, bbox=mapdraw.NORTH_EAST),
                mapdraw.MapStyle(
                    code_size=7.0,
                    town_label_size=8.0,
                    town_radius=2.6,
                    town_radius_step=1.1,
                    double_gap=3.2,
                    pc=mapdraw.RouteStyle(color="#3b3b3b", width=2.0),
                    row=mapdraw.RouteStyle(color="#8c8c8c", width=1.1),
                ),
            ),
        }
        self._layers: dict[tuple[LayerKey, bool], Drawn | None] = {}
        self._geography: dict[str, Drawn] = {}
        self._fitted: dict[BBox | None, mapdraw.Frame] = {}
        self._fixed_layers: dict[tuple[LayerKey, str], Drawn | None] = {}
        self._bboxes: dict[LayerKey, BBox | None] = {}
        self._crowding: dict[
            tuple[LayerKey, str], tuple[list[float], list[tuple[float, float, float]]]
        ] = {}

    def frame(
        self, zoom: bool, report: MapFacts | None = None
    ) -> tuple[mapdraw.Frame, mapdraw.MapStyle]:
        """A page's frame and style; the continent page's frame is fitted to
        `report`'s lines (without a report: the whole continent)."""
        if zoom or report is None:
            return self._frames[zoom]
        key = _layer_key(report)
        if key not in self._bboxes:
            self._bboxes.clear()  # one turn at a time
            self._bboxes[key] = continent_bbox(self.scenario, report)
        return self.fitted(self._bboxes[key])

    def fitted(self, bbox: BBox | None) -> tuple[mapdraw.Frame, mapdraw.MapStyle]:
        """The continent page's frame showing `bbox` (None: the whole continent)."""
        if bbox is None:
            return self._frames[False]
        if bbox not in self._fitted:
            if len(self._fitted) >= GEOGRAPHY_KEPT:
                del self._fitted[next(iter(self._fitted))]
            self._fitted[bbox] = mapdraw.Frame.fit(
                self.scenario, 0, 0, self.width, self.height, bbox=bbox
            )
        return self._fitted[bbox], self._frames[False][1]

    def south_east_frame(self) -> tuple[mapdraw.Frame, mapdraw.MapStyle]:
        """The south-east page's frame, in the north-east page's style."""
        return self.fitted(SOUTH_EAST)[0], self._frames[True][1]

    def _box(self) -> BBox:
        # The frame border is stroked half outside the frame.
        return (-2.0, -2.0, self.width + 2.0, self.height + 2.0)

    def geography(self, zoom: bool, report: MapFacts | None = None) -> Drawn:
        """Coasts, lakes and borders of one page: the same for every turn of the
        scenario whose lines fit the same frame, so drawn once per process (and
        inherited by forked workers)."""
        frame, style = self.frame(zoom, report)
        return self._drawn_geography(f"MapGeography{int(zoom)}", frame, style)

    def _drawn_geography(self, name: str, frame: mapdraw.Frame, style: mapdraw.MapStyle) -> Drawn:
        key = repr((name, _frame_key(frame), style, self._box()))
        if key not in self._geography:
            if key not in _GEOGRAPHY:
                scratch = _scratch()
                draw_geography(scratch, frame, style)
                ops = "\n".join(scratch._code)
                _keep(_GEOGRAPHY, key, Drawn(name, ops, {}, self._box()))
            _keep(self._geography, key, _GEOGRAPHY[key])
        return self._geography[key]

    def fixed_layer(self, report: MapFacts, frame: mapdraw.Frame) -> "Drawn | None":
        """The railroad layer of a page of a fixed frame (the south-east), drawn
        once per turn like the two shared pages' (see `layer`)."""
        key = (_layer_key(report), _frame_key(frame))
        if key not in self._fixed_layers:
            self._fixed_layers.clear()  # one turn at a time
            self._fixed_layers[key] = self._draw_layer(
                report, "MapRailroadsSE", frame, self._frames[True][1], True
            )
        return self._fixed_layers[key]

    def _draw_layer(
        self,
        report: MapFacts,
        name: str,
        frame: mapdraw.Frame,
        style: mapdraw.MapStyle,
        zoom: bool,
    ) -> "Drawn | None":
        scratch = _scratch()
        mapdraw.draw_map(
            scratch, self.scenario, frame, shared_overlay(report, zoom), style, geography=False
        )
        fonts = dict(scratch._doc.fontMapping)
        ops = "\n".join(scratch._code)
        shareable = all(pdfmetrics.getFont(name).face.builtIn for name in fonts)
        if shareable and not _GSTATE_OP.search(ops):
            return Drawn(name, ops, fonts, self._box())
        return None

    def layer(self, report: MapFacts, zoom: bool) -> "Drawn | None":
        """The railroad layer of the turn `report` shows (drawn once per turn); None
        if it uses an embedded font, whose glyph codes belong to one document only,
        or transparency."""
        key = (_layer_key(report), zoom)
        if key not in self._layers:
            frame, style = self.frame(zoom, report)
            self._layers[key] = self._draw_layer(
                report, f"MapRailroads{int(zoom)}", frame, style, zoom
            )
        return self._layers[key]

    def crowding(
        self, report: MapFacts, frame: mapdraw.Frame
    ) -> tuple[list[float], list[tuple[float, float, float]]]:
        """Towns (weighing 2 + size) and points along every railroad's lines (2) on
        the page of `frame`, sorted by x, with their x alone for bisecting: the
        same for every reader of a turn, so worked out once a page."""
        key = (_layer_key(report), _frame_key(frame))
        if key not in self._crowding:
            if len(self._crowding) >= GEOGRAPHY_KEPT:
                del self._crowding[next(iter(self._crowding))]
            self._crowding[key] = _crowding(self.scenario, frame, report)
        return self._crowding[key]

    def south_east(self, report: MapFacts) -> "tuple[mapdraw.Frame, Drawn] | None":
        """The south-east page's frame and geography (drawn once per process),
        if `report`'s lines or PCs for sale reach there."""
        if not reaches_south_east(self.scenario, report):
            return None
        frame, style = self.south_east_frame()
        return frame, self._drawn_geography("MapGeographySE", frame, style)

    def draw_shared(self, report: PlayerReport, page: Page) -> "tuple[Drawn, Drawn | None]":
        """One page's geography and this turn's railroad layer on it, to be
        drawn in one process and `install`ed in others."""
        if page == "se":
            south_east = self.south_east(report)
            assert south_east is not None
            frame, geography = south_east
            return geography, self.fixed_layer(report, frame)
        return self.geography(page, report), self.layer(report, page)

    def install(
        self, report: PlayerReport, page: Page, geography: Drawn, layer: "Drawn | None"
    ) -> None:
        """Take a page's geography and railroad layer drawn by `draw_shared`
        in another process for the same turn."""
        if page == "se":
            frame = self.fitted(SOUTH_EAST)[0]
            style = self._frames[True][1]
            self._fixed_layers.clear()
            self._fixed_layers[(_layer_key(report), _frame_key(frame))] = layer
        else:
            frame, style = self.frame(page, report)
            self._layers[(_layer_key(report), page)] = layer
        key = repr((geography.name, _frame_key(frame), style, self._box()))
        _keep(self._geography, key, geography)

    def shared_pages(self, report: MapFacts) -> "list[Page]":
        """The pages every reader of `report`'s turn has: the continent, the
        north-east and, if lines reach there, the south-east."""
        pages: list[Page] = [False, True]
        if reaches_south_east(self.scenario, report):
            pages.append("se")
        return pages

    def prepare(self, report: PlayerReport) -> None:
        """Draw the shared parts of every page now."""
        for page in self.shared_pages(report):
            self.draw_shared(report, page)

    def page_template(self, **kwargs: object) -> PageTemplate:
        frame = Frame(
            MARGIN,
            MARGIN,
            PAGE[0] - 2 * MARGIN,
            PAGE[1] - 2 * MARGIN,
            id="map",
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
        )
        return PageTemplate(id="map", pagesize=PAGE, frames=[frame], **kwargs)

    def flowables(self, report: PlayerReport) -> list[Flowable]:
        style = ParagraphStyle("maptitle", fontName=SANS_BOLD, fontSize=12, leading=TITLE_H)

        def title(text: str) -> Flowable:
            return Plain(text, style)

        when = "the start of the game" if report.turn == 0 else f"the end of turn {report.turn}"
        note = f"railroads at {when}; your lines on a yellow band"
        return [
            title(f"Map: {continent_title(self.scenario, report)} – {note}"),
            _MapFlowable(self, report, zoom=False),
            PageBreak(),
            # One line, like the first page's: the map below fills the rest of the page.
            title(f"Map: the north-east – {when}, colours as on the previous page"),
            _MapFlowable(self, report, zoom=True),
            *self._south_east_page(report, when, title),
            *self._own_page(report, when, title),
        ]

    def _south_east_page(
        self, report: PlayerReport, when: str, title: Callable[[str], Flowable]
    ) -> list[Flowable]:
        geography: Drawn | None = None
        if internals.PRIVATE:
            south_east = self.south_east(report)
            if south_east is None:
                return []
            frame, geography = south_east
        elif reaches_south_east(self.scenario, report):
            frame = self.south_east_frame()[0]  # its geography drawn in each report
        else:
            return []
        return [
            PageBreak(),
            title(f"Map: the south-east – {when}, colours as before"),
            _OwnMapFlowable(self, report, frame, geography),
        ]

    def _own_page(
        self, report: PlayerReport, when: str, title: Callable[[str], Flowable]
    ) -> list[Flowable]:
        # Drawn for one reader alone, so only for those who read it: human players.
        reader = next((p for p in report.players if p.position == report.reader), None)
        bbox = own_bbox(self.scenario, report)
        if bbox is None or reader is None or not reader.human:
            return []
        frame = mapdraw.Frame.fit(self.scenario, 0, 0, self.width, self.height, bbox=bbox)
        return [
            PageBreak(),
            title(f"Map: your railroads – {when}, colours as before"),
            _OwnMapFlowable(self, report, frame),
        ]
