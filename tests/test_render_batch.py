"""Rendering a whole turn: worker processes, the shared map drawing, the label
placer's grid index, the map legend's place, news items and the JSON export."""

import io
import json
import multiprocessing
import os
import random
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate

from turnproc.core.ledger import LedgerEntry
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.report import geography, mapdraw
from turnproc.families.continental_rails.report.export import FORMAT_VERSION, render_json
from turnproc.families.continental_rails.report.flowables import STYLES, Dated, Item, Runs, runs
from turnproc.families.continental_rails.report.maps import MapPages, _legend_place, legend_for
from turnproc.families.continental_rails.report.meta import GameMeta
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.render import (
    RenderedReport,
    render_turn_reports,
    start_turn_reports,
)
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.scenario.model import Scenario


@dataclass(frozen=True)
class _Player:
    real_name: str
    email: str | None
    phone: str


@dataclass(frozen=True)
class _Turn:
    scenario: Scenario
    game: str
    turn: int
    before: GameState
    after: GameState
    events: Sequence[Event]
    rejections: Sequence[Rejection]
    ledger: Sequence[LedgerEntry]
    players: Mapping[int, _Player] = field(default_factory=dict)
    anonymous: bool = False


@pytest.fixture(scope="module")
def turn(scenario: Scenario) -> tuple[_Turn, GameMeta]:
    start, result, meta = sample_turn(scenario)
    data = _Turn(
        scenario=scenario,
        game=meta.name,
        turn=start.turn,
        before=start,
        after=result.state,
        events=result.events,
        rejections=result.rejections,
        ledger=result.ledger,
    )
    return data, meta


@pytest.fixture(scope="module")
def rendered(turn: tuple[_Turn, GameMeta]) -> dict[int, dict[int, RenderedReport]]:
    data, meta = turn
    positions = [1, 2, 5]
    return {
        workers: render_turn_reports(data, positions=positions, workers=workers, meta=meta)
        for workers in (1, 2)
    }


def test_workers_render_the_same_files_as_one_process(
    rendered: dict[int, dict[int, RenderedReport]],
) -> None:
    one, two = rendered[1], rendered[2]
    assert list(one) == list(two) == [1, 2, 5]
    for pos in one:
        assert one[pos].pdf == two[pos].pdf
        assert one[pos].text == two[pos].text
        assert one[pos].json == two[pos].json


def test_started_reports_arrive_while_the_caller_works(
    turn: tuple[_Turn, GameMeta], rendered: dict[int, dict[int, RenderedReport]]
) -> None:
    data, meta = turn
    with start_turn_reports(data, positions=[1, 2, 5], workers=2, meta=meta) as pending:
        workers = multiprocessing.active_children()
        assert len(workers) == 2  # rendering in the background; this process is free
        reports = pending.result()
    assert {pos: r.pdf for pos, r in reports.items()} == {
        pos: r.pdf for pos, r in rendered[1].items()
    }
    assert not any(worker.is_alive() for worker in workers)


def test_abandoned_reports_stop_their_workers(turn: tuple[_Turn, GameMeta]) -> None:
    data, meta = turn
    pending = start_turn_reports(data, positions=[1, 2, 5], workers=2, meta=meta)
    workers = multiprocessing.active_children()
    pending.close()  # the batch gave up (a database error) before the reports came
    assert workers and not any(worker.is_alive() for worker in workers)


def test_a_renderer_process_that_dies_is_an_error_not_a_hang(
    turn: tuple[_Turn, GameMeta],
) -> None:
    data, meta = turn
    pending = start_turn_reports(data, positions=[1, 2, 5], workers=2, meta=meta)
    for worker in multiprocessing.active_children():
        os.kill(worker.pid or 0, signal.SIGKILL)  # as the kernel's OOM killer would
    with pytest.raises(RuntimeError, match="report renderer process died"):
        pending.result()
    assert not any(worker.is_alive() for worker in multiprocessing.active_children())


def _forms(pdf: bytes) -> dict[str, bytes]:
    """The map pages' form XObjects: name -> compressed stream bytes."""
    forms: dict[str, bytes] = {}
    for page in PdfReader(io.BytesIO(pdf)).pages:
        resources = page["/Resources"].get_object()
        assert isinstance(resources, DictionaryObject)
        xobjects = resources.get("/XObject", DictionaryObject()).get_object()
        for name, ref in xobjects.items():
            forms[str(name)] = ref.get_object()._data
    return forms


def test_map_drawing_is_shared_between_readers(
    rendered: dict[int, dict[int, RenderedReport]],
) -> None:
    reports = rendered[2]
    forms = {pos: _forms(r.pdf or b"") for pos, r in reports.items()}
    names = {"/FormXob.MapGeography0", "/FormXob.MapGeography1"}
    names |= {"/FormXob.MapRailroads0", "/FormXob.MapRailroads1"}
    # The south-east page's, drawn once too (this turn's lines reach there).
    names |= {"/FormXob.MapGeographySE", "/FormXob.MapRailroadsSE"}
    for pos in reports:
        assert set(forms[pos]) == names
        # Every reader gets the very same compressed bytes: drawn and compressed once.
        assert forms[pos] == forms[1]
        assert len(reports[pos].pdf or b"") < 1_000_000
    pages = PdfReader(io.BytesIO(reports[1].pdf or b"")).pages
    maps = [p for p in pages if float(p.mediabox.width) > float(p.mediabox.height)]
    # The three shared pages, then the reader's own railroads, drawn for him alone.
    assert len(maps) == 4
    assert all("Philadelphia" in page.extract_text() for page in maps[:2])
    assert "Map: the south-east" in maps[2].extract_text()
    assert "Map: your railroads" in maps[3].extract_text()


def _brute_free(frame: mapdraw.Frame, taken: list[geography.Rect], rect: geography.Rect) -> bool:
    x0, y0, x1, y1 = rect
    if not (frame.contains(x0, y0, 1) and frame.contains(x1, y1, 1)):
        return False
    return all(x1 <= a0 or x0 >= a1 or y1 <= b0 or y0 >= b1 for a0, b0, a1, b1 in taken)


def test_label_grid_agrees_with_checking_every_label(scenario: Scenario) -> None:
    frame = mapdraw.Frame.fit(scenario, 0, 0, 700, 500)
    rand = random.Random(3)
    placer = mapdraw._Placer(frame)
    taken: list[geography.Rect] = []
    checked = placed = 0
    for _ in range(3000):
        # Labels of route-code size, some exactly on cell borders, some touching others.
        x = rand.choice([rand.uniform(-5, 705), 16.0 * rand.randint(0, 44)])
        y = rand.choice([rand.uniform(-5, 505), 16.0 * rand.randint(0, 31)])
        rect = (x, y, x + rand.uniform(0.5, 40), y + rand.uniform(0.5, 9))
        expected = _brute_free(frame, taken, rect)
        assert placer.free(rect) == expected, rect
        checked += 1
        if expected:
            placer.take(rect)
            taken.append(rect)
            placed += 1
        elif taken and rand.random() < 0.2:
            # Touching a placed label along an edge is not overlapping it.
            _, b0, a1, b1 = rand.choice(taken)
            edge = (a1, b0, a1 + 5, b1)
            assert placer.free(edge) == _brute_free(frame, taken, edge)
    assert placed > 300 and checked == 3000


def test_json_export_is_json_dumps_of_the_model(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    expected = {"format": "turnproc-report", "format_version": FORMAT_VERSION}
    expected.update(report.model_dump(mode="json"))
    assert render_json(report) == json.dumps(expected, ensure_ascii=False, indent=1) + "\n"


def test_north_east_legend_hides_none_of_the_readers_lines(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 1)
    pages = MapPages(scenario)
    frame, style = pages.frame(True)
    canvas = Canvas(io.BytesIO())
    entries = legend_for(report, railroads=False)
    x, top, columns = _legend_place(canvas, pages, report, True, entries)
    rows = mapdraw.legend_rows(entries, style)
    width, height = mapdraw.legend_size(canvas, rows, style, columns)
    assert frame.contains(x, top - height) and frame.contains(x + width, top)
    mine = [rr for rr in report.railroads if rr.reader_role]
    assert mine
    for rr in mine:
        for line in rr.lines:
            route = scenario.routes[line.code]
            for town in (scenario.towns[route.a], scenario.towns[route.b]):
                px, py = frame.town(town)
                assert not (x <= px <= x + width and top - height <= py <= top), town.id
    assert all(not name.startswith(rr.code + " ") for name, _ in entries for rr in mine)


def test_news_item_breaks_like_a_paragraph_and_splits_across_pages() -> None:
    words = [f"word{i}" for i in range(400)]
    story: list[Flowable] = [Item("• " + " ".join(words))]
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=(300, 200), invariant=1)
    doc.build(story)
    pages = PdfReader(buffer).pages
    assert len(pages) > 2
    printed = " ".join(page.extract_text() for page in pages).split()
    assert printed == ["•", *words]
    # The same text as a Paragraph of the same style breaks into the same lines.
    item = Item("• " + " ".join(words[:60]))
    para = Paragraph("• " + " ".join(words[:60]), STYLES["item"])
    assert item.wrap(250, 1000) == para.wrap(250, 1000)


def test_bold_and_plain_runs_break_like_a_paragraph_and_split() -> None:
    """A refused order ("• <b>order</b> hint") and an announcement ("<b>who:</b>
    text") break into the lines a Paragraph of the same markup breaks into."""
    rng = random.Random(3)
    vocab = [
        "a",
        "the",
        "BID",
        "$1,200",
        "refused.",
        "cut",
        "to",
        "12",
        "shares:",
        "NYC",
        "(#3)",
        "Chicago–St.",
        "Louis",
        "ß",
        "Ωmega",
    ]

    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(low, high)))

    for _ in range(150):
        for pieces in (
            [(False, "• "), (True, words(1, 10)), (False, " " + words(0, 40))],
            [(True, words(1, 4) + ":"), (False, " " + words(1, 50))],
        ):
            for width in (527.27, 300.0, 180.0):
                mine = runs(pieces)
                markup = "".join(f"<b>{t}</b>" if bold else t for bold, t in pieces)
                para = Paragraph(markup.replace("&", "&amp;"), STYLES["item"])
                assert mine.wrap(width, 1000) == para.wrap(width, 1000)
                if isinstance(mine, Runs) and mine.fallback is None:
                    ours = [" ".join(text.split()) for _, text in mine.lines]
                    theirs = [
                        " ".join("".join(w.text for w in line.words).split())
                        for line in para.blPara.lines
                    ]
                    assert ours == theirs
    long = runs([(False, "• "), (True, "BID X 1: refused."), (False, " " + "word " * 300)])
    long.wrap(300, 1000)
    top, rest = long.split(300, 50)
    assert isinstance(top, Runs) and isinstance(rest, Runs)
    assert (top.start, top.stop, rest.start, rest.stop) == (0, 4, 4, None)
    dated = Dated("1850", "word " * 300)
    dated.wrap(300, 1000)
    assert [type(part) for part in dated.split(300, 50)] == [Dated, Dated]


def test_every_railroad_has_a_look_of_its_own_past_the_palette() -> None:
    """Fourteen colours; the fifteenth railroad on gets cross ticks, the
    twenty-ninth on a white middle line, so 42 railroads never share a look."""
    from types import SimpleNamespace

    from turnproc.core.palette import PALETTE
    from turnproc.families.continental_rails.report.maps import _colours

    railroads = [SimpleNamespace(code=f"R{n}", number=n) for n in range(1, 43)]
    looks = _colours(SimpleNamespace(railroads=railroads))  # type: ignore[arg-type]
    assert len(set(looks.values())) == 42
    assert looks["R1"].colour == looks["R15"].colour == looks["R29"].colour == PALETTE[0]
    assert (looks["R1"].ticks, looks["R15"].ticks, looks["R29"].stripe) == (False, True, "#ffffff")


def test_the_reports_are_the_pdfs_reportlabs_own_calls_write(scenario: Scenario) -> None:
    """Map labels are written as operators made once per process, not through
    ReportLab's text objects each time; the bench's floor records every
    drawing call through ReportLab. Both must write the same PDF, byte for
    byte, for human players (who have a page of their own lines) too."""
    from turnproc.families.continental_rails.report import floor
    from turnproc.pipeline.reports import ReportInput

    start, result, _ = sample_turn(scenario)
    data = ReportInput.of_resolved(scenario, "Sample game", start, result)
    assert any(t.human for t in start.tycoons)
    rendered = render_turn_reports(data, workers=1)
    recorded = floor.record_turn(data)
    positions = [t.position for t in data.after.tycoons]
    assert len(recorded) == len(positions)
    for position, (pdf, _ops) in zip(positions, recorded, strict=True):
        assert rendered[position].pdf == pdf, f"position {position}"
