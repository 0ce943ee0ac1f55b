"""The receipt's foresight: the engine's own steps before the market run on the
sheet's orders; certain refusals are errors, likely cuts warnings (issue: the
player's side). Also the mail forms a reply takes and the words players use."""

import re

import pytest

from tests import intake_world as world
from turnproc.core.sheet_errors import TurnsheetError
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.improvements import (
    technology_cost,
    upgrade_cost,
)
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    bond_room,
    max_new_shares,
)
from turnproc.families.continental_rails.engine.steps.rights_of_way import (
    building_cost,
    building_terms,
    min_bid,
)
from turnproc.families.continental_rails.turnsheet import foresee
from turnproc.families.continental_rails.turnsheet.check import Evaluation, evaluate
from turnproc.families.continental_rails.turnsheet.language import format_order, parse_turnsheet
from turnproc.families.continental_rails.turnsheet.receipt import SHOWN, ReceiptFacts, build_receipt
from turnproc.families.continental_rails.turnsheet.render import render_turnsheet
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.intake.extract import text_from_message

SCENARIO = world.scenario()


def run(body: str, state: GameState | None = None) -> Evaluation:
    state = state or world.state()
    return evaluate(f"{world.HEADER}\n{body}\nEND\n", state, SCENARIO)


def errors(evaluation: Evaluation) -> dict[int, TurnsheetError]:
    return {e.line_no: e for e in evaluation.errors}


def notes(evaluation: Evaluation) -> dict[int, str]:
    return {n.line_no: n.message for n in evaluation.notes}


def receipt(evaluation: Evaluation) -> str:
    check = evaluation.check
    assert check is not None
    facts = ReceiptFacts(
        verdict="errors" if evaluation.errors else "accepted",
        game="test-game",
        turn=7,
        position=3,
        sheet=evaluation.sheet,
        errors=evaluation.errors,
        notes=evaluation.notes,
        preview=check.preview,
        railroads=check.railroads,
    )
    return build_receipt(facts).text


def test_a_row_bid_below_the_minimum_is_an_error_and_its_build_says_nothing_more() -> None:
    minimum = min_bid(SCENARIO, "NY2")
    result = run(f"RAILROAD NYC\nBID NY2 {minimum - 1}\nBUILD NY2")
    found = errors(result)
    assert list(found) == [3]
    assert found[3].code == reasons.BELOW_MINIMUM
    assert found[3].message == f"The smallest bid for NY2 is ${minimum}."
    assert not [e for e in result.errors if e.line_no == 4]


def test_a_technology_the_railroad_cannot_pay_is_an_error_with_its_cash() -> None:
    state = world.state()
    cash = state.railroads["NYC"].cash
    cost = technology_cost(SCENARIO, state.railroads["NYC"], "A")
    assert cash < cost
    found = errors(run("RAILROAD NYC\nTECHNOLOGY A New York", state))
    assert found[3].code == reasons.INSUFFICIENT_CASH
    assert f"${cost:,}" in found[3].message and f"${cash:,}" in found[3].message
    # With the cash it needs, the same order is fine.
    state.railroads["NYC"].cash = cost
    assert run("RAILROAD NYC\nTECHNOLOGY A New York", state).errors == []


def test_a_cash_refusal_is_only_likely_while_a_bid_may_be_lost() -> None:
    """A won RoW bid is counted as paid; a lost one leaves its cash, so the
    technology after it may yet be paid for: a warning, not an error."""
    state = world.state()
    rr = state.railroads["NYC"]
    rr.cash = technology_cost(SCENARIO, rr, "A") + min_bid(SCENARIO, "NY2") - 1
    result = run(f"RAILROAD NYC\nBID NY2 {min_bid(SCENARIO, 'NY2')}\nTECHNOLOGY A New York", state)
    assert result.errors == []
    assert "may be refused if your bids win" in notes(result)[4]


def test_bonds_and_stock_above_the_limits_are_cut_with_a_warning() -> None:
    """ISSUE BONDS 99999 and ISSUE STOCK 400 are cut to the limits of 4.3-4.4."""
    state = world.state()
    rr = state.railroads["NYC"]
    rr.founded_turn = state.turn  # a young railroad: the public takes new stock (4.3)
    room = bond_room(SCENARIO, rr)
    shares = max_new_shares(SCENARIO, rr, state.climate, state.turn)
    assert 0 < shares < 400
    result = run("RAILROAD NYC\nISSUE BONDS 99999\nISSUE STOCK 400", state)
    assert result.errors == []
    said = notes(result)
    assert said[3].startswith(f"would be cut to ISSUE BONDS {room}")
    assert f"${room:,}" in said[3]
    assert said[4].startswith(f"would be cut to ISSUE STOCK {shares}")
    text = receipt(result)
    assert "RAILROAD NYC: CASH PREVIEW" in text
    rr.founded_turn = 1  # an old railroad that earned nothing: the public buys none
    refused = errors(run("RAILROAD NYC\nISSUE STOCK 400", state))
    assert (
        refused[3].code == reasons.ABOVE_MAXIMUM and "buys no new NYC stock" in refused[3].message
    )
    assert f"bonds issued NYC                        +${room:,}" in text


def test_the_personal_preview_counts_spying() -> None:
    result = run("SPY 7\nSPY RAILROAD B&O\nBUY 50 B&O")
    assert result.check is not None and result.check.preview is not None
    preview = result.check.preview
    assert [amount for label, amount in preview.steps if label == "spying"] == [-100, -50]
    assert preview.cash_at_market == world.state().tycoon(3).cash - 150


def test_a_third_presidency_by_incorporation_is_foreseen() -> None:
    found = errors(run("INCORPORATE B&H"))
    assert found[2].code == reasons.TOO_MANY_PRESIDENCIES


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----\nFrom: Moderator\nSent: Monday\nBUY 99 NYC",
        "________________________________\nFrom: Moderator <m@x>\nSent: Monday\nBUY 99 NYC",
        "On Mon, Nov 30, 2026 at 10:00 AM Moderator <\nm@x> wrote:\nBUY 99 NYC",
        "On 30 Nov 2026, at 10:00, Moderator <m@x> wrote:\n\nBUY 99 NYC",
        "On 11/30/26 10:00, Moderator wrote:\nBUY 99 NYC",
        "-------- Original Message --------\nSubject: report\nBUY 99 NYC",
        "Thanks,\nAnn\nBUY 99 NYC",
        "Regards\n\nBUY 99 NYC",
        "Sent from my iPhone\nBUY 99 NYC",
    ],
)
def test_the_orders_end_where_a_mail_program_starts_the_original(separator: str) -> None:
    vocab = Vocabulary.from_scenario(SCENARIO, world.state())
    sheet = parse_turnsheet(f"{world.HEADER}\nBORROW 500\n\n{separator}\nEND\n", vocab)
    assert sheet.errors == []
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 500"]


def test_a_flood_of_errors_is_summarised() -> None:
    body = "\n".join(f"nonsense line {i}" for i in range(300))
    result = run(body)
    assert len(result.errors) == 300
    text = receipt(result)
    assert text.count("[UNKNOWN_ACTION]") == SHOWN
    assert f"... and {300 - SHOWN} more from line" in text
    assert "ERRORS (300)" in text
    assert len(text) < 8000, len(text)


def test_html_mail_keeps_the_line_numbers_the_player_typed() -> None:
    typed = [world.HEADER, "BORROW 500", "", "BUY 10 NYC", "BUY 5 XYZ", "END"]
    html = "".join(f"<div>{line}</div>" if line else "<div><br></div>" for line in typed)
    raw = f"From: a@b.c\r\nContent-Type: text/html\r\n\r\n{html}".encode()
    text = text_from_message(raw)
    assert text.splitlines() == typed
    vocab = Vocabulary.from_scenario(SCENARIO, world.state())
    [error] = parse_turnsheet(text, vocab).errors
    assert error.line_no == typed.index("BUY 5 XYZ") + 1


def test_outlook_html_paragraphs_and_a_typed_blank_line() -> None:
    html = (
        "<html><head><style>p {margin:0}</style></head><body>"
        "<p class=MsoNormal>one</p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
        "<p class=MsoNormal>two&nbsp;words</p><blockquote>quoted</blockquote></body></html>"
    )
    raw = f"From: a@b.c\r\nContent-Type: text/html\r\n\r\n{html}".encode()
    assert text_from_message(raw).splitlines() == ["one", "", "two words", "> quoted"]


@pytest.mark.parametrize(
    ("written", "number"),
    [("LOCOMOTIVE NORRIS", 2), ("LOCOMOTIVE Norris (2)", 2), ("LOCO american", 3)],
)
def test_a_locomotive_by_its_name(written: str, number: int) -> None:
    vocab = Vocabulary.from_scenario(SCENARIO, world.state())
    sheet = parse_turnsheet(f"{world.HEADER}\nRAILROAD NYC\n{written}\nEND\n", vocab)
    assert sheet.errors == []
    assert format_order(sheet.lines[0].order) == f"NYC: LOCOMOTIVE {number}"


def test_a_misspelt_locomotive_and_a_railroad_by_name_get_suggestions() -> None:
    vocab = Vocabulary.from_scenario(SCENARIO, world.state())
    sheet = parse_turnsheet(
        f"{world.HEADER}\nBUY 50 shares of Pennsylvania\nRAILROAD NYC\nLOCOMOTIVE Noris\nEND\n",
        vocab,
    )
    hints = {e.line_no: e.hint for e in sheet.errors}
    assert hints == {
        2: "did you mean PENN (Pennsylvania)?",
        4: "did you mean LOCOMOTIVE NORRIS (2)?",
    }


def test_you_wrote_only_when_the_line_says_something_else() -> None:
    result = run("RAILROAD NYC\nBID NY2 450\nBUILD NY2\nLOCOMOTIVE NORRIS")
    text = receipt(result)
    assert "NYC: BUILD NY2\n" in text and "(you wrote: BUILD NY2)" not in text
    assert "(you wrote: LOCOMOTIVE NORRIS)" in text


def test_the_turnsheet_shows_what_a_railroad_may_bid_build_and_buy() -> None:
    """The RoWs with lengths and minimum bids, build, double-track, locomotive and
    technology costs, bond and loan limits, all from the engine's own rules; a
    BUILD line as soon as a bid could make one possible; no empty hints."""
    state = world.state()
    rr = state.railroads["NYC"]
    rr.rows = []
    state.best_locomotive = 3
    sheet = render_turnsheet(state, SCENARIO, 3, game="test-game")
    section = sheet.split("RAILROAD 5 NYC")[1].split("RAILROAD")[0]
    row = re.search(
        r"^#\s+NY2\s+(\d+) miles .* min\. bid (\$[\d,]+)\s+build (\$[\d,]+) \((\d+)% terrain\)$",
        section,
        re.M,
    )
    assert row is not None, section
    assert int(row.group(1)) == SCENARIO.routes["NY2"].length
    assert row.group(2) == f"${min_bid(SCENARIO, 'NY2'):,}"
    assert row.group(3) == f"${building_cost(SCENARIO, 'NY2', state.climate):,}"
    assert int(row.group(4)) == building_terms(SCENARIO, "NY2", state.climate).terrain_percent
    assert "BUILD ____              # a RoW it wins this turn" in section
    assert f"up to ${bond_room(SCENARIO, rr):,} (the bond limit)" in section
    assert f"2 Norris ${upgrade_cost(SCENARIO, rr, 2):,}, 3 American" in section
    assert f"A ${technology_cost(SCENARIO, rr, 'A'):,}" in section
    rr.double_tracked = list(rr.lines)
    section = render_turnsheet(state, SCENARIO, 3).split("RAILROAD 5 NYC")[1]
    assert "DOUBLE TRACK" not in section.split("RAILROAD")[0]


def test_a_failing_engine_leaves_the_receipt_without_foresight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(ctx: object) -> None:
        raise KeyError("a defect")

    monkeypatch.setattr(foresee, "SEQUENCE", (("3.2 character names", broken),))
    result = run("BORROW 100\nBUY 5 NYC")
    assert result.errors == [] and result.check is not None
    assert result.check.railroads == {}
    assert result.check.preview is not None and result.check.preview.rows
