"""The PDF report read back: figures, names, escaping, maps, reproducibility, size."""

import io

import pytest
from pypdf import PdfReader

from turnproc.core.money import money
from turnproc.families.continental_rails.engine.state import RecordHolder
from turnproc.families.continental_rails.report.maps import MapPages
from turnproc.families.continental_rails.report.meta import Announcement
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.scenario.model import Scenario


@pytest.fixture(scope="module")
def rendered(scenario: Scenario) -> tuple[bytes, bytes, object, object]:
    start, result, meta = sample_turn(scenario)
    maps = MapPages(scenario)
    report = build_report(scenario, start, result, meta, 1, turnsheet="TURNSHEET <b>x</b>\nEND")
    first = render_pdf(report, maps)
    again = render_pdf(
        build_report(scenario, start, result, meta, 1, turnsheet="TURNSHEET <b>x</b>\nEND"),
        MapPages(scenario),
    )
    return first, again, report, result


def _text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def test_pdf_is_reproducible_and_small(rendered: tuple) -> None:
    first, again, _, _ = rendered
    assert first == again
    assert len(first) < 1_000_000


def test_pdf_figures_match_the_state(rendered: tuple) -> None:
    pdf, _, report, result = rendered
    text = "\n".join(_text(pdf))
    end = result.state
    assert money(end.tycoon(1).cash) in text
    assert money(report.private.balance.credit_limit) in text
    for code, rr in end.railroads.items():
        assert f"{rr.issued:,}" in text, code
    for pc in report.pcs:
        assert money(pc.asking_price) in text
    for heading in (
        "9.1 Headlines",
        "9.2 Player Summary",
        "9.3 Railroad Summary",
        "9.4 Stock Report",
        "9.5 PCs Available",
        "9.6 Private Report",
    ):
        assert heading in text
    for line in report.headlines[report.years[0]]:
        assert line.split()[0] in text


def test_names_print_literally_in_any_script(rendered: tuple) -> None:
    pdf, _, _, _ = rendered
    text = "\n".join(_text(pdf))
    assert "José Martínez-Núñez" in text
    assert "Jürgen Groß" in text
    assert "Παπαδόπουλος" in text
    assert "<i>Vanderbilt</i> & Sons" in text  # markup in a name is not obeyed
    assert "The <b>Erie</b> is not for sale & never will be." in text
    assert "[U+6771][U+4EAC] Rail" in text  # no CJK glyphs in DejaVu: a visible code point
    assert "TURNSHEET <b>x</b>" in text


def test_map_pages_show_towns_and_the_legend(rendered: tuple) -> None:
    pdf, _, report, _ = rendered
    pages = _text(pdf)
    maps = [t for t in pages if t.startswith(report.game) and "Map: " in t]
    # The continent, the north-east, the south-east (lines reach there), and (he
    # directs railroads) his own lines zoomed.
    assert any(rr.reader_role for rr in report.railroads)
    assert len(maps) == 4
    assert "Chicago" in maps[0] and "(yours)" in maps[0]
    assert "Boston" in maps[1]
    assert "Map: the south-east" in maps[2] and "New Orleans" in maps[2]
    assert "Map: your railroads" in maps[3]
    own = [line.code for rr in report.railroads if rr.reader_role for line in rr.lines]
    assert own and all(code in maps[3] for code in own[:3])
    sizes = {tuple(float(v) for v in p.mediabox[2:]) for p in PdfReader(io.BytesIO(pdf)).pages}
    assert (792.0, 595.27) in sizes and (595.27, 792.0) in sizes


def test_final_turn_shows_winners_and_records_not_a_turnsheet(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    end = result.state.model_copy(deep=True)
    end.ended = True
    end.records = [
        RecordHolder(category="rail_baron", score=500, character="Hetty Green", game="g7")
    ]
    final = result.model_copy(update={"state": end})
    report = build_report(scenario, start, final, meta, 5, turnsheet="TURNSHEET")
    assert report.final is not None and report.turnsheet is None
    best = max(t.vp["rail_mogul"] for t in end.tycoons)
    mogul = next(w for w in report.final.winners if w.category == "rail_mogul")
    assert mogul.points == best
    text = "\n".join(_text(render_pdf(report)))
    assert "Final Results" in text and "Hetty Green" in text and "Turnsheet" not in text


def test_hostile_input_renders_within_the_page(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    end = result.state.model_copy(deep=True)
    end.tycoon(7).character = "W" * 40
    long_note = Announcement(position=7, text=("A" * 300 + " <para> &amp; </b> ") * 20)
    report = build_report(
        scenario,
        start,
        result.model_copy(update={"state": end}),
        meta.model_copy(update={"announcements": [long_note]}),
        7,
    )
    pdf = render_pdf(report)
    text = "".join(_text(pdf))
    assert "<para> &amp; </b>" in text
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) < 20
