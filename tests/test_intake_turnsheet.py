"""The turnsheet parser: every action, the forgiveness rules, every error kind."""

import pytest

from tests import intake_world as world
from turnproc.core.sheet_errors import (
    AmbiguousAction,
    BadAmount,
    HeaderError,
    SheetSyntaxError,
    SheetTooLarge,
    UnknownAction,
    UnknownName,
)
from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.language import (
    MAX_SHEET_CHARS,
    format_order,
    parse_turnsheet,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary

VOCAB = Vocabulary.from_scenario(world.scenario(), world.state())
HEADER = world.HEADER


def parse(body: str, header: str = HEADER, end: str = "END"):
    return parse_turnsheet(f"{header}\n{body}\n{end}\n", VOCAB)


def only_order(body: str) -> o.Order:
    sheet = parse(body)
    assert sheet.errors == [], [str(e) for e in sheet.errors]
    assert len(sheet.lines) == 1
    return sheet.lines[0].order


def test_header_is_read() -> None:
    sheet = parse("")
    assert sheet.header is not None
    assert (sheet.header.game, sheet.header.turn, sheet.header.position) == ("test-game", 7, 3)
    assert sheet.header.secret == "river-maple-42"
    assert sheet.ok and sheet.ended


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("BORROW 1000", o.Borrow(amount=1000)),
        ("borrow $1,500", o.Borrow(amount=1500)),
        ("LOAN 10", o.Borrow(amount=10)),
        ("REPAY 200", o.RepayLoan(amount=200)),
        ("REPAY LOAN 200", o.RepayLoan(amount=200)),
        ("BID B&M 700", o.BidForPC(pc="B&M", amount=700)),
        ("bid 700 b&m", o.BidForPC(pc="B&M", amount=700)),
        ("BID PC 1 700", o.BidForPC(pc="B&M", amount=700)),
        ("OFFER B&H 450", o.OfferPC(pc="B&H", price=450)),
        ("INCORPORATE B&H", o.IncorporatePC(pc="B&H")),
        ("MERGE B&H INTO NYC", o.MergePC(pc="B&H", railroad="NYC")),
        ("MERGE 4 5", o.MergePC(pc="B&H", railroad="NYC")),
        ("TREASURY 20 NYC", o.BuyTreasuryStock(railroad="NYC", shares=20)),
        ("BUY TREASURY NYC 20", o.BuyTreasuryStock(railroad="NYC", shares=20)),
        ("LEND NYC 300", o.LendToRailroad(railroad="NYC", amount=300)),
        ("COLLECT 5 100", o.CollectFromRailroad(railroad="NYC", amount=100)),
        ("PRODIGAL 1000", o.ProdigalSpending(amount=1000)),
        ("SPY 7", o.SpyOnPlayer(target=7)),
        ("SPY PLAYER 7", o.SpyOnPlayer(target=7)),
        ("SPY NYC", o.SpyOnRailroad(railroad="NYC")),
        ("SPY RAILROAD 5", o.SpyOnRailroad(railroad="NYC")),
        ("PRESIDENT 12", o.RequestPresidency(railroad="PENN")),
        ("NAME Cornelius  Vanderbilt", o.SetCharacterName(name="Cornelius Vanderbilt")),
        ("BUY 100 NYC", o.BuyStock(railroad="NYC", shares=100)),
        ("Buy 100 shares of NYC @ $20/share", o.BuyStock(railroad="NYC", shares=100)),
        ("buy nyc 100", o.BuyStock(railroad="NYC", shares=100)),
        ("BUY 100 5", o.BuyStock(railroad="NYC", shares=100)),
        ("SELL 20 PENN", o.SellStock(railroad="PENN", shares=20)),
        ("SHORT 50 PENN", o.ShortSell(railroad="PENN", shares=50)),
        ("COVER 10 PENN", o.CoverShort(railroad="PENN", shares=10)),
        ("DIVIDEND NYC 3", o.SetDividend(railroad="NYC", per_share=3)),
        ("NYC: DIVIDEND 3", o.SetDividend(railroad="NYC", per_share=3)),
        ("BID NY2 300", None),  # a RoW bid needs its railroad: see the error test
    ],
)
def test_personal_section_orders(line: str, expected: o.Order | None) -> None:
    if expected is None:
        sheet = parse(line)
        assert isinstance(sheet.errors[0], SheetSyntaxError)
        assert "railroad action" in sheet.errors[0].message
        return
    assert only_order(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("DIVIDEND 5", o.SetDividend(railroad="NYC", per_share=5)),
        ("div $5 per share", o.SetDividend(railroad="NYC", per_share=5)),
        ("ISSUE STOCK 100", o.IssueStock(railroad="NYC", shares=100)),
        ("ISSUE SHARES 100", o.IssueStock(railroad="NYC", shares=100)),
        ("ISSUE BONDS 1000", o.IssueBonds(railroad="NYC", amount=1000)),
        ("REDEEM BONDS 200", o.RedeemBonds(railroad="NYC", amount=200)),
        ("LOAN 300", o.TakeShortLoan(railroad="NYC", amount=300)),
        ("BORROW 300", o.TakeShortLoan(railroad="NYC", amount=300)),
        ("REPAY LOAN 100", o.RepayShortLoan(railroad="NYC", amount=100)),
        ("BID NY2 300", o.BidForRoW(railroad="NYC", row="NY2", amount=300)),
        ("BID 104 300", o.BidForRoW(railroad="NYC", row="NY2", amount=300)),
        ("BID B&M 700", o.BidForPC(pc="B&M", amount=700)),
        ("BUILD NY1", o.BuildRoW(railroad="NYC", row="NY1")),
        ("SELL LAND 20", o.SellLand(railroad="NYC", acres=20)),
        ("DOUBLE TRACK NYC", o.DoubleTrack(railroad="NYC", line="NYC")),
        ("LOCOMOTIVE 3", o.UpgradeLocomotive(railroad="NYC", locomotive=3)),
        ("loco 3", o.UpgradeLocomotive(railroad="NYC", locomotive=3)),
        ("TECHNOLOGY B", o.BuyTechnology(railroad="NYC", technology="B")),
        ("tech a new york", o.BuyTechnology(railroad="NYC", technology="A", town="new_york")),
        ("DONATE 200", o.PoliticalDonation(railroad="NYC", amount=200)),
        ("RATE WAR HRL 25%", o.DeclareRateWar(railroad="NYC", rival="HRL", percent=25)),
        ("RATE WAR 6 25", o.DeclareRateWar(railroad="NYC", rival="HRL", percent=25)),
        ("IMPROVE 500", o.CapitalImprovement(railroad="NYC", amount=500)),
        ("MERGE PENN", o.MergeRailroads(railroad="NYC", other="PENN")),
        ("BUY 100 PENN", o.BuyStock(railroad="PENN", shares=100)),
        ("SELL 20 PENN", o.SellStock(railroad="PENN", shares=20)),
    ],
)
def test_railroad_section_orders(line: str, expected: o.Order) -> None:
    for section in ("RAILROAD NYC", "=== RAILROAD 5 NYC (New York Central) ===", "[RR 5]"):
        assert only_order(f"{section}\n{line}") == expected


def test_every_order_round_trips_through_format_order() -> None:
    lines = [
        "BORROW 1000",
        "REPAY 200",
        "BID B&M 700",
        "OFFER B&H 450",
        "INCORPORATE B&H",
        "MERGE B&H INTO NYC",
        "TREASURY 20 NYC",
        "LEND NYC 300",
        "COLLECT NYC 100",
        "PRODIGAL 1000",
        "SPY PLAYER 7",
        "SPY RAILROAD NYC",
        "PRESIDENT PENN",
        "NAME Jay Gould",
        "BUY 100 NYC",
        "SELL 20 NYC",
        "SHORT 50 PENN",
        "COVER 10 PENN",
        "NYC: DIVIDEND 3",
        "NYC: ISSUE STOCK 100",
        "NYC: ISSUE BONDS 1000",
        "NYC: REDEEM BONDS 200",
        "NYC: LOAN 300",
        "NYC: REPAY LOAN 100",
        "NYC: BID NY2 300",
        "NYC: BUILD NY1",
        "NYC: SELL LAND 20",
        "NYC: DOUBLE TRACK NYC",
        "NYC: LOCOMOTIVE 3",
        "NYC: TECHNOLOGY A boston",
        "NYC: DONATE 200",
        "NYC: RATE WAR HRL 25%",
        "NYC: IMPROVE 500",
        "NYC: MERGE PENN",
    ]
    sheet = parse("\n".join(lines))
    assert sheet.errors == []
    assert [format_order(line.order) for line in sheet.lines] == lines
    kinds = {line.order.kind for line in sheet.lines}
    every_kind = {cls.model_fields["kind"].default for cls in _order_classes()}
    assert kinds == every_kind


def _order_classes() -> list[type]:
    return [
        value
        for value in vars(o).values()
        if isinstance(value, type)
        and issubclass(value, o._Order)
        and value is not o._Order
        and value is not o._RailroadOrder
    ]


def test_misspellings_and_abbreviations_are_guessed_with_a_note() -> None:
    sheet = parse("Borow 1000\nRAILROAD NYC\ndividned 2\nincorp B&H\nprod 1000")
    assert sheet.errors == []
    assert [format_order(line.order) for line in sheet.lines] == [
        "BORROW 1000",
        "NYC: DIVIDEND 2",
        "INCORPORATE B&H",
        "PRODIGAL 1000",
    ]
    notes = {n.line_no: n.message for n in sheet.notes}
    assert notes[2] == "assuming you meant BORROW"
    assert notes[4] == "assuming you meant DIVIDEND"


def test_errors_are_typed_and_all_reported_with_line_and_hint() -> None:
    body = "\n".join(
        [
            "FLY 3",  # 2 unknown action
            "BUY 100 XYZ",  # 3 unknown railroad
            "BORROW lots",  # 4 not a number
            "RAILROAD NYC",  # 5
            "DIVIDEND 120",  # 6 out of range
            "ISSUE 100",  # 7 ambiguous
            "RE 100",  # 8 too short to guess
            "BUY 100",  # 9 missing railroad
            "BORROW 100",  # 10 good
        ]
    )
    sheet = parse(body)
    kinds = {e.line_no: type(e) for e in sheet.errors}
    assert kinds == {
        2: UnknownAction,
        3: UnknownName,
        4: BadAmount,
        6: BadAmount,
        7: AmbiguousAction,
        8: UnknownAction,
        9: SheetSyntaxError,
    }
    for error in sheet.errors:
        assert isinstance(error, ValueError)
        assert error.line and error.message
    assert [line.line_no for line in sheet.lines] == [10]
    assert not sheet.ok


def test_ambiguous_guesses_are_errors_not_guesses() -> None:
    sheet = parse("RAILROAD NYC\nLAON 100\nBIULD NY1\nIMP 5")
    assert [type(e) for e in sheet.errors] == [AmbiguousAction, AmbiguousAction]
    assert "LAND or LOAN" in sheet.errors[0].message
    assert format_order(sheet.lines[0].order) == "NYC: IMPROVE 5"


def test_unknown_code_suggests_close_codes() -> None:
    sheet = parse("BUY 10 NYCC")
    assert isinstance(sheet.errors[0], UnknownName)
    assert "NYC" in sheet.errors[0].hint


def test_pc_and_row_kinds_are_checked() -> None:
    sheet = parse("RAILROAD NYC\nBUILD NYC\nINCORPORATE NY1")
    assert [type(e) for e in sheet.errors] == [SheetSyntaxError, SheetSyntaxError]


def test_blank_form_lines_are_ignored_half_filled_ones_are_errors() -> None:
    sheet = parse("BORROW ____\nBID ____ ____   # PC and amount\nBID B&M ____\nNAME ____")
    assert sheet.lines == []
    assert [e.line_no for e in sheet.errors] == [4]


def test_comments_and_decoration_are_ignored() -> None:
    sheet = parse("# a comment\n=====\nBORROW 10 # why not\n(hint) \n---")
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 10"]
    assert sheet.errors == []


def test_only_lines_between_header_and_end_are_read() -> None:
    text = f"BUY 1 NYC\n{HEADER}\nBORROW 10\nEND\nBUY 2 NYC\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 10"]


def test_signature_ends_a_sheet_without_end_line() -> None:
    text = f"{HEADER}\nBORROW 10\n-- \nJay Gould\nBuy low, sell high\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 10"]
    assert sheet.errors == []
    assert not sheet.ended


def test_windows_line_endings_tabs_and_capitals() -> None:
    text = f"{HEADER}\r\n\tbOrRoW\t\t$1,000  \r\n  rAiLrOaD   nyc\r\n\tDiViDeNd\t4\r\nEnd\r\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert sheet.errors == []
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 1000", "NYC: DIVIDEND 4"]


def test_quoted_sheet_filled_in_a_reply_is_read() -> None:
    text = (
        "Here are my orders.\n\nOn Mon, 30 Nov 2026, Moderator wrote:\n"
        f"> {HEADER}\n> PERSONAL\n> BORROW 500\nBUY 10 NYC\n>> an older quote\n> END\n"
    )
    sheet = parse_turnsheet(text, VOCAB)
    assert sheet.errors == []
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 500", "BUY 10 NYC"]


def test_unquoted_sheet_wins_over_the_quoted_original() -> None:
    blank = HEADER.replace("river-maple-42", "____")
    text = (
        f"{HEADER}\nBORROW 500\nEND\n\nOn Mon, Moderator wrote:\n> {blank}\n> BORROW ____\n"
        "> BUY 99 NYC\n> END\n"
    )
    sheet = parse_turnsheet(text, VOCAB)
    assert sheet.ok
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 500"]


def test_missing_or_incomplete_header() -> None:
    sheet = parse_turnsheet("BORROW 10\n", VOCAB)
    assert sheet.header is None and isinstance(sheet.errors[0], HeaderError)
    sheet = parse("BORROW 10", header="TURNSHEET game: g turn: 7 player: 3 secret: ____")
    assert sheet.header is None
    assert "secret" in sheet.errors[0].message
    sheet = parse("", header="Turnsheet Game g, Turn seven, Player 3, Secret x")
    assert "turn" in sheet.errors[0].message


def test_a_chatty_line_mentioning_the_turnsheet_is_not_a_header() -> None:
    text = f"Turnsheet attached, thanks!\n\n{HEADER}\nBORROW 10\nEND\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert sheet.ok and sheet.header is not None and sheet.header.line_no == 3


def test_huge_sheet_is_refused_quickly() -> None:
    with pytest.raises(SheetTooLarge):
        parse_turnsheet("BORROW 1\n" * (MAX_SHEET_CHARS // 9 + 10), VOCAB)


def test_long_lines_are_errors_not_work() -> None:
    sheet = parse("BUY " + "9" * 5000 + " NYC")
    assert isinstance(sheet.errors[0], SheetSyntaxError)


def test_unknown_railroad_section_reports_its_lines() -> None:
    sheet = parse("RAILROAD XYZ\nDIVIDEND 3\nRAILROAD NYC\nDIVIDEND 4")
    assert [e.line_no for e in sheet.errors] == [2, 3]
    assert [format_order(line.order) for line in sheet.lines] == ["NYC: DIVIDEND 4"]


@pytest.mark.parametrize(
    "after",
    [
        "Sent from Outlook",
        "Get Outlook for iOS",
        "Get Outlook for Android<https://aka.ms/ghei36>",
        "Sent from Mail for Windows",
        "Sent from Yahoo Mail on Android",
        "Sent with Proton Mail secure email.",
        "Thanks, Hetty",
        "Thanks,\nHetty",
        "Cheers Bob",
        "Best regards,\nHetty Green\n\nGet Outlook for iOS",
        "Thanks - H.",
        "Many thanks, Hetty!",
    ],
)
def test_sign_offs_and_mail_program_signatures_end_the_orders(after: str) -> None:
    text = f"{HEADER}\nBORROW 10\nBUY 2 NYC\n\n{after}\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert sheet.errors == [], [e.message for e in sheet.errors]
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 10", "BUY 2 NYC"]


def test_a_name_line_before_more_orders_is_an_error_not_a_signature() -> None:
    # Nothing that reads as an order is taken for a signature: an order
    # after a name line is an error the player sees, not dropped.
    text = f"{HEADER}\nBORROW 10\nHetty\nBUY 2 NYC\nEND\n"
    sheet = parse_turnsheet(text, VOCAB)
    assert [format_order(line.order) for line in sheet.lines] == ["BORROW 10", "BUY 2 NYC"]
    assert [e.line for e in sheet.errors] == ["Hetty"]
