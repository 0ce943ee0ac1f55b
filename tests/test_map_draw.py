"""Drawing the Continental Rails map (rules section 2) with ReportLab."""

import io
import json
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report.geography import GEODATA
from turnproc.families.continental_rails.report.mapdraw import (
    NORTH_EAST,
    Frame,
    MapStyle,
    Overlay,
    RouteStyle,
    _ends,
    _offset,
    draw_geography,
    draw_legend,
    draw_map,
    draw_scenario_map,
)
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return load_scenario("continental-rails")


@pytest.fixture(scope="module")
def map_pdf(scenario: Scenario, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    out = tmp_path_factory.mktemp("map") / "map.pdf"
    unlabelled = draw_scenario_map(scenario, out)
    return out, unlabelled


def test_two_landscape_pages_under_a_megabyte(map_pdf: tuple[Path, list[str]]) -> None:
    path, _ = map_pdf
    reader = PdfReader(path)
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert float(page.mediabox.width) > float(page.mediabox.height)
    assert path.stat().st_size < 1_000_000


def test_every_route_code_labelled(map_pdf: tuple[Path, list[str]], scenario: Scenario) -> None:
    path, unlabelled = map_pdf
    assert unlabelled == []
    text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    for code in ("B&M", "NYC", "PA10", "SD1", "C7", "C8", "M4", "WA2"):
        assert code in text
    assert "Philadelphia" in text
    assert "Sault Ste. Marie" in text


def test_zoom_page_shows_north_east_only(map_pdf: tuple[Path, list[str]]) -> None:
    path, _ = map_pdf
    zoom = PdfReader(path).pages[1].extract_text()
    assert "Boston" in zoom and "Pittsburgh" in zoom and "Washington" in zoom
    assert "San Francisco" not in zoom


def test_reproducible(map_pdf: tuple[Path, list[str]], scenario: Scenario, tmp_path: Path) -> None:
    path, _ = map_pdf
    again = tmp_path / "again.pdf"
    draw_scenario_map(scenario, again)
    assert again.read_bytes() == path.read_bytes()


def test_frame_keeps_towns_inside_and_north_up(scenario: Scenario) -> None:
    frame = Frame.fit(scenario, 10, 20, 700, 450)
    for town in scenario.towns.values():
        assert frame.contains(*frame.town(town)), town.id
    nyc = frame.town(scenario.towns["new_york"])
    chicago = frame.town(scenario.towns["chicago"])
    winnipeg = frame.town(scenario.towns["winnipeg"])
    houston = frame.town(scenario.towns["houston"])
    assert nyc[0] > chicago[0]
    assert winnipeg[1] > houston[1]


def test_zoom_frame(scenario: Scenario) -> None:
    frame = Frame.fit(scenario, 0, 0, 800, 500, bbox=NORTH_EAST)
    assert frame.contains(*frame.town(scenario.towns["boston"]))
    assert frame.contains(*frame.town(scenario.towns["washington"]))
    assert not frame.contains(*frame.town(scenario.towns["denver"]))
    boston = frame.town(scenario.towns["boston"])
    portland = frame.town(scenario.towns["portland_me"])
    assert portland[1] > boston[1]


def _page_content(canvas_bytes: bytes) -> str:
    page = PdfReader(io.BytesIO(canvas_bytes)).pages[0]
    contents = page.get_contents()
    assert contents is not None
    return contents.get_data().decode("latin-1")


def test_overlay_colours_widths_and_dashes(scenario: Scenario) -> None:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(800, 600), invariant=1)
    frame = Frame.fit(scenario, 20, 20, 760, 560, bbox=NORTH_EAST)
    mine = RouteStyle(color="#b22222", width=2.6)
    overlay = Overlay(
        routes={
            "NYC": mine,
            "PA1": RouteStyle(color="#b22222", width=2.6, double_track=True),
            "NY3": RouteStyle(color="#1e90ff", width=1.4, dash=(3, 2)),
        },
        towns={"albany": "#b22222"},
        legend=[("New York Central", mine)],
        fade_others=True,
        title="Turn 7",
    )
    result = draw_map(canvas, scenario, frame, overlay, MapStyle())
    draw_legend(canvas, 30, 580, overlay.legend)
    canvas.showPage()
    canvas.save()
    content = _page_content(buffer.getvalue())
    assert ".698039 .133333 .133333 RG" in content  # #b22222 lines
    assert "[3 2] 0 d" in content  # the unbuilt RoW is dashed
    assert "2.6 w" in content
    assert "(Turn 7) Tj" in content
    assert {"NYC", "PA1", "NY3"} <= result.labelled
    # Faded routes lose their labels: only the overlay's codes are written.
    assert "B&M" not in result.labelled


def test_double_routes_drawn_apart(scenario: Scenario) -> None:
    frame = Frame.fit(scenario, 0, 0, 800, 500, bbox=NORTH_EAST)
    pa1, pa2 = scenario.routes["PA1"], scenario.routes["PA2"]
    gap = 3.0
    e1 = _ends(frame, scenario, pa1, _offset(pa1, scenario, gap))
    e2 = _ends(frame, scenario, pa2, _offset(pa2, scenario, gap))
    distance = ((e1[0] - e2[0]) ** 2 + (e1[1] - e2[1]) ** 2) ** 0.5
    assert distance == pytest.approx(gap, abs=0.01)
    nyc = scenario.routes["NYC"]
    assert _offset(nyc, scenario, gap) == 0.0


def test_geodata_shipped_small_and_complete() -> None:
    assert GEODATA.stat().st_size < 1_000_000
    data = json.loads(GEODATA.read_text(encoding="utf-8"))
    assert set(data) == {"land", "lakes", "states", "countries"}
    assert len(data["states"]) > 100
    readme = GEODATA.parent / "README.md"
    assert "LGPL" in readme.read_text(encoding="utf-8")


def test_geography_outside_the_frame_is_cut_away_not_drawn_hidden(scenario: Scenario) -> None:
    """A zoomed page carries only the coasts and borders near it: a fraction of
    the continent's points, yet the same coasts where the page shows them."""
    from turnproc.families.continental_rails.report.geography import _cut_line, _cut_polygon

    def points_drawn(frame: Frame) -> int:
        canvas = Canvas(io.BytesIO())
        draw_geography(canvas, frame, MapStyle())
        return sum(op.count(" l") + op.count(" m") for op in canvas._code)

    whole = Frame.fit(scenario, 0, 0, 700, 500)
    zoom = Frame.fit(scenario, 0, 0, 700, 500, bbox=NORTH_EAST)
    assert points_drawn(zoom) < points_drawn(whole) / 4
    # A square half outside the box keeps exactly its inside half.
    square = [(-10.0, 0.0), (10.0, 0.0), (10.0, 10.0), (-10.0, 10.0)]
    assert sorted(_cut_polygon(square, (0.0, -5.0, 20.0, 20.0))) == [
        (0.0, 0.0),
        (0.0, 10.0),
        (10.0, 0.0),
        (10.0, 10.0),
    ]
    # A line in and out of the box: the runs that reach it, with the length before each.
    line = [(-30.0, 5.0), (-20.0, 5.0), (5.0, 5.0), (40.0, 5.0), (50.0, 5.0), (15.0, 5.0)]
    assert _cut_line(line, (0.0, 0.0, 20.0, 20.0)) == [
        (10.0, [(-20.0, 5.0), (5.0, 5.0), (40.0, 5.0)]),
        (80.0, [(50.0, 5.0), (15.0, 5.0)]),
    ]


def _crosses(a: tuple[float, float], b: tuple[float, float], box: tuple[float, ...]) -> bool:
    """Whether the straight line from a to b has a point inside box (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 <= t1


def test_geography_far_from_the_page_is_passed_over_in_degrees(scenario: Scenario) -> None:
    """Runs of points beyond a side of the page's window are cut to their ends
    before projecting: every line of the outline that reaches the page is kept,
    and every line put in place of a run stays off the page."""
    import random
    from itertools import pairwise

    from turnproc.families.continental_rails.report.geography import (
        CLIP_PAD,
        _near,
        _outlines,
        _window,
    )

    rng = random.Random(7)
    boxes: list[tuple[float, float, float, float] | None] = [
        None,
        NORTH_EAST,
        (-93.0, 24.3, -74.8, 38.0),
    ]
    for _ in range(12):
        west, south = rng.uniform(-125, -75), rng.uniform(25, 45)
        boxes.append((west, south, west + rng.uniform(5, 25), south + rng.uniform(3, 12)))
    projected = kept = 0
    for bbox in boxes:
        frame = Frame.fit(scenario, 30, 40, 700, 500, bbox=bbox)
        box = (30 - CLIP_PAD, 40 - CLIP_PAD, 730 + CLIP_PAD, 540 + CLIP_PAD)
        window = _window(frame, box)
        assert window is not None
        for kind, lines in _outlines().items():
            closed = kind in ("land", "lakes")
            for outline in lines:
                near = _near(outline, window, closed)
                whole = [frame.point(lat, lon) for lon, lat in outline.points]
                cut = [frame.point(lat, lon) for lon, lat in near]
                projected += len(whole)
                kept += len(cut)
                pairs = list(pairwise(whole + whole[:1] if closed else whole))
                new = set(pairwise(cut + cut[:1] if closed else cut))
                for a, b in pairs:
                    if _crosses(a, b, box):
                        assert (a, b) in new, (kind, bbox)
                old = set(pairs)
                for a, b in new - old:
                    assert not _crosses(a, b, box), (kind, bbox)
    assert kept < projected / 3
