"""The map page drawn as SVG by the PDF's own layout (maps.draw_page on SvgCanvas)."""

import xml.etree.ElementTree as ET

from turnproc.families.continental_rails.report.maps import PALETTE, MapPages, draw_page, legend_for
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.families.continental_rails.report.svgcanvas import SvgCanvas
from turnproc.scenario.model import Scenario

SVG = "{http://www.w3.org/2000/svg}"


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
        assert {PALETTE[i % len(PALETTE)] for i in range(len(ordered))} <= strokes
        # The reader's lines lie on the yellow band, as on the PDF.
        assert "#ffe27a" in strokes
        for element in root.iter(f"{SVG}text"):
            assert 0 <= float(element.get("y", "0")) <= pages.height + 1
