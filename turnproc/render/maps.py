"""The reader's map pages in the turn report (rules 2 and 9).

Two landscape pages drawn with `mapdraw`: the whole continent and the crowded
north-east at a larger scale. Every railroad's lines are in its own colour
(double track drawn double, owned unbuilt RoWs dashed), PCs that may be bid
for are marked, and the reader's railroads are emphasised: a pale band under
his lines and "(yours)" at the top of the legend.

Speed: the map is the same for every reader of a turn except for that band
and the legend. So the geography (per scenario) and the railroad layer (per
turn: routes, towns, labels) are each drawn once, on a scratch canvas, as PDF
operators, and replayed into every report. The railroad layer names its fonts
by the scratch document's resource names (/F1, /F2 ...); replaying maps them
to the report document's names for the same fonts.
"""

import re
from functools import cached_property

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Frame, PageBreak, PageTemplate, Paragraph

from turnproc.render import mapdraw
from turnproc.render.report import PlayerReport
from turnproc.render.typeface import SANS_BOLD, para, register_fonts
from turnproc.scenario.model import Scenario

PAGE = (792.0, 595.27)  # landscape: Letter height x A4 width, fits both papers
MARGIN = 24.0
TITLE_H = 20.0

# Railroad colours, well apart from each other, from the base map's greys and
# from the magenta of PCs for sale; given out in railroad-number order.
PALETTE = (
    "#d62728",
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#ff7f0e",
    "#17becf",
    "#7f7f00",
    "#000080",
    "#800000",
    "#008080",
    "#6a3d9a",
    "#b15928",
    "#a6761d",
)
PC_FOR_SALE = mapdraw.RouteStyle(color="#e6007e", width=1.8, dash=(1.2, 1.4))
HALO = "#ffe27a"  # the band under the reader's own lines
UNBUILT = mapdraw.RouteStyle(color="#555555", width=1.0, dash=(3, 2))
DOUBLE = mapdraw.RouteStyle(color="#555555", width=1.6, double_track=True)

_FONT_OP = re.compile(r"(/F\d+)(\s+[-\d.]+\s+Tf)")

# Key of the railroad layer: every railroad's (code, lines) and the PCs for sale.
LayerKey = tuple[tuple[tuple[str, tuple[tuple[str, bool, bool], ...]], ...], tuple[str, ...]]


def _colours(report: PlayerReport) -> dict[str, str]:
    ordered = sorted(report.railroads, key=lambda rr: rr.number)
    return {rr.code: PALETTE[i % len(PALETTE)] for i, rr in enumerate(ordered)}


def shared_overlay(report: PlayerReport, zoom: bool) -> mapdraw.Overlay:
    """Every railroad in its colour and the PCs for sale: the same for every reader."""
    routes: dict[str, mapdraw.RouteStyle] = {}
    colours = _colours(report)
    width = 2.2 if zoom else 1.6
    for rr in report.railroads:
        for line in rr.lines:
            if line.built:
                routes[line.code] = mapdraw.RouteStyle(
                    color=colours[rr.code], width=width, double_track=line.double
                )
            else:
                routes[line.code] = mapdraw.RouteStyle(
                    color=colours[rr.code], width=width * 0.6, dash=(3, 2)
                )
    for pc in report.pcs:
        routes.setdefault(pc.code, PC_FOR_SALE)
    return mapdraw.Overlay(routes=routes)


def legend_for(report: PlayerReport) -> list[tuple[str, mapdraw.RouteStyle]]:
    """The reader's legend: his railroads first."""
    colours = _colours(report)
    entries = []
    for rr in sorted(report.railroads, key=lambda rr: (not rr.reader_role, rr.number)):
        name = f"{rr.code} {rr.name}"[:24] + (" (yours)" if rr.reader_role else "")
        entries.append((name, mapdraw.RouteStyle(color=colours[rr.code], width=2.0)))
    if report.pcs:
        entries.append(("PC you may bid for", PC_FOR_SALE))
    entries += [("Owned RoW, not built", UNBUILT), ("Double-tracked line", DOUBLE)]
    return entries


def _layer_key(report: PlayerReport) -> LayerKey:
    railroads = tuple(
        (rr.code, tuple((line.code, line.double, line.built) for line in rr.lines))
        for rr in sorted(report.railroads, key=lambda rr: rr.number)
    )
    return railroads, tuple(pc.code for pc in report.pcs)


class Drawn:
    """PDF operators drawn on a scratch canvas, with the fonts they name."""

    def __init__(self, ops: str, fonts: dict[str, str]):
        self.ops = ops
        self.fonts = fonts  # PostScript font name -> scratch resource name

    def replay(self, canvas: Canvas) -> None:
        rename: dict[str, str] = {
            internal: str(canvas._doc.getInternalFontName(psname))
            for psname, internal in self.fonts.items()
        }

        def swap(match: re.Match[str]) -> str:
            return rename.get(match.group(1), match.group(1)) + match.group(2)

        canvas.saveState()
        canvas.addLiteral(_FONT_OP.sub(swap, self.ops))
        canvas.restoreState()


def _scratch() -> Canvas:
    canvas = Canvas(None, pagesize=PAGE)
    canvas._code.clear()  # drop the initial font selection; keep only what is drawn
    return canvas


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
        canvas: Canvas = self.canv
        frame, style = self.pages.frame(self.zoom)
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(frame.x, frame.y, frame.width, frame.height)
        canvas.clipPath(clip, stroke=0, fill=0)
        self.pages.geography(self.zoom).replay(canvas)
        self._band(canvas, frame)
        canvas.restoreState()
        layer = self.pages.layer(self.report, self.zoom)
        if layer is not None:
            layer.replay(canvas)
        else:
            overlay = shared_overlay(self.report, self.zoom)
            mapdraw.draw_map(canvas, self.pages.scenario, frame, overlay, style, geography=False)
        entries = legend_for(self.report)
        height = 11.0 * (len(entries) + 5) + 8
        mapdraw.draw_legend(canvas, frame.x + 6, frame.y + 6 + height, entries, style)

    def _band(self, canvas: Canvas, frame: mapdraw.Frame) -> None:
        scenario = self.pages.scenario
        canvas.setStrokeColor(mapdraw._color(HALO))
        canvas.setLineWidth(9.0 if self.zoom else 6.5)
        canvas.setLineCap(1)
        for rr in self.report.railroads:
            if not rr.reader_role:
                continue
            for line in rr.lines:
                route = scenario.routes.get(line.code)
                if route is None or route.a not in scenario.towns or route.b not in scenario.towns:
                    continue
                x0, y0 = frame.town(scenario.towns[route.a])
                x1, y1 = frame.town(scenario.towns[route.b])
                canvas.line(x0, y0, x1, y1)


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

    def frame(self, zoom: bool) -> tuple[mapdraw.Frame, mapdraw.MapStyle]:
        return self._frames[zoom]

    @cached_property
    def _geography(self) -> dict[bool, Drawn]:
        drawn = {}
        for zoom, (frame, style) in self._frames.items():
            scratch = _scratch()
            mapdraw.draw_geography(scratch, frame, style)
            drawn[zoom] = Drawn("\n".join(scratch._code), {})
        return drawn

    def geography(self, zoom: bool) -> Drawn:
        return self._geography[zoom]

    def layer(self, report: PlayerReport, zoom: bool) -> "Drawn | None":
        """The railroad layer of the turn `report` shows (drawn once per turn); None
        if it uses an embedded font, whose glyph codes belong to one document only."""
        key = (_layer_key(report), zoom)
        if key not in self._layers:
            frame, style = self._frames[zoom]
            scratch = _scratch()
            mapdraw.draw_map(
                scratch, self.scenario, frame, shared_overlay(report, zoom), style, geography=False
            )
            fonts = dict(scratch._doc.fontMapping)
            builtin = all(pdfmetrics.getFont(name).face.builtIn for name in fonts)
            self._layers[key] = Drawn("\n".join(scratch._code), fonts) if builtin else None
        return self._layers[key]

    def install(self, report: PlayerReport, zoom: bool, drawn: "Drawn | None") -> None:
        """Take a layer drawn by `layer` in another process for the same turn."""
        self._layers[(_layer_key(report), zoom)] = drawn

    def prepare(self, report: PlayerReport | None = None) -> None:
        """Draw the shared layers now, e.g. before worker processes fork."""
        _ = self._geography
        if report is not None:
            self.layer(report, False)
            self.layer(report, True)

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
        title = ParagraphStyle("maptitle", fontName=SANS_BOLD, fontSize=12, leading=TITLE_H)
        when = "the start of the game" if report.turn == 0 else f"the end of turn {report.turn}"
        note = f"railroads at {when}; your lines on a yellow band"
        return [
            Paragraph(para(f"Map: North America – {note}"), title),
            _MapFlowable(self, report, zoom=False),
            PageBreak(),
            Paragraph(para(f"Map: the north-east – {note}"), title),
            _MapFlowable(self, report, zoom=True),
        ]
