"""The map page drawn as SVG by the PDF's own layout (maps.draw_page on SvgCanvas)."""

import xml.etree.ElementTree as ET

from turnproc.core.palette import PALETTE
from turnproc.families.continental_rails.report.mapdraw import Frame
from turnproc.families.continental_rails.report.maps import MapPages, draw_page, legend_for
from turnproc.families.continental_rails.report.model import RailroadLine, build_report
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.families.continental_rails.report.svgcanvas import SvgCanvas
from turnproc.scenario.model import Scenario

SVG = "{http://www.w3.org/2000/svg}"


def _off_page(scenario: Scenario, frame: Frame, rr: RailroadLine, pad: float) -> bool:
    """Whether every line of `rr` lies more than `pad` points off the frame."""
    for line in rr.lines:
        route = scenario.routes[line.code]
        (x0, y0), (x1, y1) = (frame.town(scenario.towns[t]) for t in route.towns)
        if not (
            max(x0, x1) < frame.x - pad
            or min(x0, x1) > frame.x + frame.width + pad
            or max(y0, y1) < frame.y - pad
            or min(y0, y1) > frame.y + frame.height + pad
        ):
            return False
    return True


def test_the_svg_map_is_the_pdf_layout_with_names_escaped(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    hostile = "<script>alert(1)</script> & Sons"
    first = min(report.railroads, key=lambda rr: rr.number)
    first.name = hostile
    pages = MapPages(scenario)
    for zoom in (False, True):
        canvas = SvgCanvas(pages.width, pages.height)
        draw_page(canvas, pages, report, zoom)
        root = ET.fromstring(canvas.svg("map"))  # well-formed: every group closed
        assert not list(root.iter(f"{SVG}script"))
        texts = [t.text or "" for t in root.iter(f"{SVG}text")]
        # Every legend line of the PDF's legend is on the SVG page, in the same words.
        for name, _ in legend_for(report, railroads=not zoom):
            assert name in texts, name
        if not zoom:
            assert any("<script>alert(1)" in t for t in texts)  # as text, not an element
        strokes = {e.get("stroke") for e in root.iter() if e.get("stroke")}
        ordered = sorted(report.railroads, key=lambda rr: rr.number)
        # Every railroad with a line on the page is there in its colour; one
        # whose lines all lie well off the (zoomed) page is not drawn hidden.
        frame = pages.frame(zoom, report)[0]
        colour = {rr.code: PALETTE[i % len(PALETTE)] for i, rr in enumerate(ordered)}
        shown = {colour[rr.code] for rr in ordered if not _off_page(scenario, frame, rr, 0)}
        assert shown <= strokes
        gone = {colour[rr.code] for rr in ordered if _off_page(scenario, frame, rr, 30)} - shown
        assert not gone & strokes
        assert gone or not zoom  # the sample's south-eastern railroads are off the north-east
        # The reader's lines lie on the yellow band, as on the PDF.
        assert "#ffe27a" in strokes
        for element in root.iter(f"{SVG}text"):
            assert 0 <= float(element.get("y", "0")) <= pages.height + 1
