"""The turnsheet as sent (blank and pre-filled) and the receipt's wording."""

from datetime import UTC, datetime, timedelta

from tests import intake_world as world
from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.check import evaluate, lines_of
from turnproc.families.continental_rails.turnsheet.language import parse_turnsheet
from turnproc.families.continental_rails.turnsheet.receipt import (
    InForce,
    ReceiptFacts,
    build_receipt,
    time_left,
)
from turnproc.families.continental_rails.turnsheet.render import (
    SECRET_PLACEHOLDER,
    render_turnsheet,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary

SCENARIO = world.scenario()
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _fill(sheet: str) -> str:
    return sheet.replace(SECRET_PLACEHOLDER, "river-maple-42")


def test_blank_sheet_shows_hints_and_reads_as_no_orders() -> None:
    state = world.state()
    text = render_turnsheet(state, SCENARIO, 3, deadline="2026-12-07 12:00 UTC")
    assert text.startswith("TURNSHEET game: test-game turn: 7 player: 3 secret: ____")
    for hint in ("credit available $", "B&M   no. 1", "asking $650", "max bid", "RAILROAD 5 NYC"):
        assert hint in text
    assert "RAILROAD 12 PENN" in text and "RAILROAD 14 B&O" not in text
    sheet = parse_turnsheet(_fill(text), Vocabulary.from_scenario(SCENARIO, state))
    assert sheet.ok and sheet.lines == [] and sheet.ended
    unfilled = parse_turnsheet(text, Vocabulary.from_scenario(SCENARIO, state))
    assert unfilled.header is None and "secret" in unfilled.errors[0].message


def test_sheet_says_what_per_mile_costs_are_made_of() -> None:
    """4.17, 4.18 Locomotives and technologies cost so much a mile of track: the
    sheet gives the rate and the miles, in the receipt's and the report's words."""
    text = render_turnsheet(world.state(), SCENARIO, 3)
    assert "4 Mogul $4,440" in text
    assert "#   $10 a mile a type up × 148 miles of track; more once it builds" in text
    assert "#   $10 a mile × 148 miles of track (A: a flat price); more once it builds" in text
    # 4.6 building: by the RoW's miles, its state's terrain and the climate.
    assert "build $13,680 (100% terrain)" in text
    assert "#   building costs miles × $60 × terrain % × 100% climate + $30 a point" in text


def test_prefilled_sheet_reads_back_as_the_orders_in_force() -> None:
    state = world.state()
    orders = o.PlayerOrders(
        position=3,
        orders=[
            o.Borrow(amount=1000),
            o.SellStock(railroad="PENN", shares=20),
            o.BuyStock(railroad="B&O", shares=50),
            o.SetDividend(railroad="NYC", per_share=3),
            o.BuildRoW(railroad="NYC", row="NY1"),
            o.SetDividend(railroad="PENN", per_share=1),
        ],
    )
    text = render_turnsheet(state, SCENARIO, 3, orders=orders)
    sheet = parse_turnsheet(_fill(text), Vocabulary.from_scenario(SCENARIO, state))
    assert sheet.ok
    assert sheet.orders.orders == orders.orders


def test_a_tycoon_with_two_pcs_is_told_he_cannot_bid() -> None:
    state = world.state()
    state.tycoon(3).pcs.append("HRL")
    text = render_turnsheet(state, SCENARIO, 3)
    assert "no bids this turn" in text and "BID ____ ____           # PC" not in text


def test_time_left() -> None:
    assert time_left(NOW + timedelta(days=2, hours=3, minutes=5), NOW) == "2 days 3 hours left"
    assert time_left(NOW + timedelta(minutes=35), NOW) == "35 minutes left"
    assert time_left(NOW - timedelta(seconds=1), NOW) == "the deadline has passed"


def test_receipt_lists_orders_errors_notes_preview_and_deadline() -> None:
    state = world.state()
    body = "BORROW 1000\nSELL 20 PENN\nBUY 500 B&O\nBUY 5 XYZ\nRAILROAD NYC\ndividned 2"
    evaluation = evaluate(f"{world.HEADER}\n{body}\nEND\n", state, SCENARIO)
    facts = ReceiptFacts(
        verdict="errors",
        game="test-game",
        turn=7,
        position=3,
        character="Jay Gould",
        received_at=NOW,
        message_id="<m@x>",
        sheet=evaluation.sheet,
        errors=evaluation.errors,
        notes=evaluation.notes,
        in_force=InForce(["BORROW 10"], "submission #4, received 2026-11-29 09:00 UTC"),
        preview=evaluation.check.preview if evaluation.check else None,
        deadline=NOW + timedelta(days=1),
        now=NOW,
    )
    receipt = build_receipt(facts)
    lines = receipt.text.splitlines()
    assert lines[0] == "ERRORS: 1 error in your turnsheet for test-game turn 7 player 3"
    assert receipt.subject == f"[test-game] {lines[0]}"
    text = receipt.text
    assert "line   5  BUY 5 XYZ" in text and "no railroad 'XYZ'" in text
    assert "line   7  NYC: DIVIDEND 2      (you wrote: dividned 2)" in text
    assert "assuming you meant DIVIDEND" in text
    assert "still those of submission #4" in text
    assert "Cash and credit at the stock market: $2,500" in text
    assert "CUT TO BUY" in text
    assert "Deadline: 2026-12-01 12:00 UTC (1 day left)." in text
    assert "\n\n\n" not in text


def test_refusal_receipt() -> None:
    receipt = build_receipt(
        ReceiptFacts(
            verdict="refused", game="g", refusal="wrong secret for player 3", hint="copy it"
        )
    )
    assert receipt.text.startswith("REFUSED: wrong secret for player 3\n")
    assert "Nothing has changed" in receipt.text


def test_lines_of_orders_in_force() -> None:
    lines = lines_of(o.PlayerOrders(position=3, orders=[o.Borrow(amount=5)]))
    assert [(line.line_no, line.line) for line in lines] == [(1, "BORROW 5")]
