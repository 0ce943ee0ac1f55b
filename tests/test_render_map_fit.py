"""Item 7 of the player's side: the continent page fitted to where the lines and
PCs for sale are, and a south-east page below the north-east one."""

import io

from pypdf import PdfReader

from turnproc.families.continental_rails.report import mapdraw
from turnproc.families.continental_rails.report.maps import (
    MapPages,
    continent_bbox,
    continent_title,
    reaches_south_east,
)
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.scenario.model import Scenario


def test_eastern_lines_fill_the_continent_page_and_get_a_south_east_page(
    scenario: Scenario,
) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    bbox = continent_bbox(scenario, report)
    assert bbox is not None
    west, _, east, _ = bbox
    towns = scenario.towns.values()
    assert east - west < 0.8 * (max(t.lon for t in towns) - min(t.lon for t in towns))
    pages = MapPages(scenario)

    def middle(frame: mapdraw.Frame) -> float:
        """Where across the page (0: left edge, 1: right) the lines' towns are centred."""
        xs = [
            frame.town(scenario.towns[t])[0]
            for rr in report.railroads
            for line in rr.lines
            for t in scenario.routes[line.code].towns
        ]
        return (max(xs) + min(xs)) / 2 / frame.width

    # Lines from Florida to Montreal fill the page's height either way; fitted,
    # they are drawn larger and in the middle instead of at the right-hand edge.
    fitted, whole = pages.frame(False, report)[0], pages.frame(False)[0]
    assert middle(whole) > 0.75 and abs(middle(fitted) - 0.5) < 0.1
    assert fitted.scale > 1.15 * whole.scale
    assert reaches_south_east(scenario, report)
    pdf = render_pdf(report, MapPages(scenario))
    titles = [
        line
        for page in PdfReader(io.BytesIO(pdf)).pages
        for line in page.extract_text().splitlines()
        if line.startswith("Map:")
    ]
    # Fitted to the lines, the first page is not all of North America: its
    # title says what it shows.
    assert continent_title(scenario, report) == "where the railroads run"
    assert [t.split(" –")[0] for t in titles] == [
        "Map: where the railroads run",
        "Map: the north-east",
        "Map: the south-east",
        "Map: your railroads",
    ]
    assert render_pdf(report, MapPages(scenario)) == pdf


def test_lines_across_the_continent_show_all_of_it(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    western = [
        r for r in scenario.routes.values() if min(scenario.towns[t].lon for t in r.towns) < -118
    ]
    assert western
    first = report.railroads[0]
    west_line = first.lines[0].model_copy(update={"code": western[0].code})
    reaching = first.model_copy(update={"lines": [*first.lines, west_line]})
    far = report.model_copy(update={"railroads": [reaching, *report.railroads[1:]]})
    assert continent_bbox(scenario, far) is None
    assert continent_title(scenario, far) == "North America"
    # Before any railroad has lines the page fits the PCs for sale.
    before_lines = report.model_copy(update={"railroads": []})
    assert continent_bbox(scenario, before_lines) is not None
    assert continent_title(scenario, before_lines) == "where the PCs for sale are"
    nothing = report.model_copy(update={"pcs": [], "railroads": []})
    assert continent_bbox(scenario, nothing) is None
    assert continent_title(scenario, nothing) == "North America"
    assert not reaches_south_east(scenario, nothing)
