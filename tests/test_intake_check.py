"""Checking a turnsheet against the live game, and the 6.1 order-checking preview."""

from tests import intake_world as world
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.turnsheet.check import check_orders, evaluate
from turnproc.families.continental_rails.turnsheet.language import parse_turnsheet
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary

SCENARIO = world.scenario()


def codes(body: str, state: GameState | None = None) -> dict[int, str]:
    """Error code by line number for a sheet of player 3."""
    state = state or world.state()
    vocab = Vocabulary.from_scenario(SCENARIO, state)
    sheet = parse_turnsheet(f"{world.HEADER}\n{body}\nEND\n", vocab)
    assert sheet.errors == [], [str(e) for e in sheet.errors]
    result = check_orders(state, SCENARIO, 3, sheet.lines)
    return {e.line_no: e.code for e in result.errors}


def warnings(body: str) -> dict[int, str]:
    state = world.state()
    sheet = parse_turnsheet(
        f"{world.HEADER}\n{body}\nEND\n", Vocabulary.from_scenario(SCENARIO, state)
    )
    return {n.line_no: n.message for n in check_orders(state, SCENARIO, 3, sheet.lines).warnings}


def test_a_good_sheet_has_no_errors() -> None:
    body = "\n".join(
        [
            "BORROW 1000",
            "BID B&M 700",
            "OFFER B&H 450",
            "PRESIDENT NYC",
            "PRESIDENT PENN",
            "SPY 7",
            "BUY 50 B&O",
            "RAILROAD NYC",
            "DIVIDEND 3",
            "BUILD NY1",
            "DOUBLE TRACK NYC",
            "LOCOMOTIVE 4",
            "TECHNOLOGY A New York",
            "BID NY2 450",
        ]
    )
    # The engine's own run of the steps before the market (the receipt's
    # preview) refuses what NYC cannot pay for: give it the cash.
    state = world.state()
    state.railroads["NYC"].cash = 40_000
    assert codes(body, state) == {}


def test_not_president_unknown_railroad_and_pc() -> None:
    body = "RAILROAD B&O\nDIVIDEND 3\nBUY 10 ERIE\nBID LS 500\nSPY RAILROAD HRL"
    assert codes(body) == {
        3: reasons.NOT_PRESIDENT,
        4: reasons.UNKNOWN_RAILROAD,
        5: reasons.NOT_AVAILABLE,
        6: reasons.UNKNOWN_RAILROAD,
    }


def test_pc_bids() -> None:
    assert codes("BID B&M 100") == {2: reasons.BELOW_MINIMUM}
    assert codes("BID B&H 900") == {2: reasons.NOT_ALLOWED_NOW}
    assert codes("BID B&M 700\nBID B&M 800") == {3: reasons.DUPLICATE_ORDER}
    state = world.state()
    state.tycoon(3).pcs.append("HRL")
    assert codes("BID B&M 700", state) == {2: reasons.TOO_MANY_PCS}


def test_ownership_of_pcs_rows_and_lines() -> None:
    assert codes("OFFER ERIE 100\nINCORPORATE ERIE") == {2: reasons.NOT_OWNER, 3: reasons.NOT_OWNER}
    assert codes("RAILROAD NYC\nBUILD NY2\nDOUBLE TRACK PENN") == {
        3: reasons.NOT_OWNER,
        4: reasons.NOT_OWNER,
    }
    assert codes("COLLECT NYC 100") == {2: reasons.NOT_OWNER}


def test_a_bid_then_build_is_allowed_with_a_warning() -> None:
    assert codes("RAILROAD NYC\nBID NY2 450\nBUILD NY2") == {}
    assert "only if the bid for NY2 wins" in warnings("RAILROAD NYC\nBID NY2 450\nBUILD NY2")[4]


def test_prohibited_routes() -> None:
    # Rule 2: one route into Chicago; rule 1: never both routes of a double route.
    state = world.state()
    state.railroads["NYC"].lines.append("ERIE")
    assert codes("RAILROAD NYC\nBID MI2 1000", state) == {}
    state.railroads["NYC"].rows.append("MI2")
    assert codes("RAILROAD NYC\nBID MI1 100", state) == {3: reasons.PROHIBITED_ROUTE}
    state = world.state()
    state.tycoon(3).pcs.append("HRL")
    state.pcs["HRL"] = state.pcs["HRL"].model_copy(update={"status": "owned", "owner": 3})
    assert codes("MERGE HRL INTO NYC", state) == {2: reasons.PROHIBITED_ROUTE}
    assert codes("MERGE B&H INTO PENN") == {2: reasons.NOT_CONNECTED}


def test_presidencies_dividends_technology_locomotive() -> None:
    assert codes("PRESIDENT NYC\nPRESIDENT PENN\nPRESIDENT B&O") == {
        4: reasons.TOO_MANY_PRESIDENCIES
    }
    assert codes("RAILROAD NYC\nDIVIDEND 3\nDIVIDEND 4") == {4: reasons.DUPLICATE_ORDER}
    assert codes("RAILROAD NYC\nTECHNOLOGY D") == {3: reasons.NOT_YET_AVAILABLE}
    assert codes("RAILROAD NYC\nTECHNOLOGY A") == {3: reasons.BELOW_MINIMUM}
    assert codes("RAILROAD NYC\nTECHNOLOGY A Boston") == {3: reasons.NOT_CONNECTED}
    assert codes("RAILROAD NYC\nLOCOMOTIVE 5") == {3: reasons.NOT_YET_AVAILABLE}
    state = world.state()
    state.railroads["NYC"].locomotive = 3
    assert codes("RAILROAD NYC\nLOCOMOTIVE 3", state) == {3: reasons.ALREADY_DONE}


def test_railroad_mergers_and_rate_wars() -> None:
    assert codes("RAILROAD NYC\nMERGE B&O") == {3: reasons.NOT_PRESIDENT}
    assert codes("RAILROAD NYC\nRATE WAR PENN 20") == {3: reasons.NOT_CONNECTED}
    state = world.state()
    state.railroads["B&O"].lines.append("HRL")
    assert codes("RAILROAD NYC\nRATE WAR B&O 20", state) == {}


def test_incorporating_a_pc_lets_its_railroad_orders_wait() -> None:
    body = "INCORPORATE B&H\nRAILROAD NYC\nDIVIDEND 1\nB&H: DIVIDEND 2"
    # Player 3 presides NYC and PENN: a third presidency is refused (4.14).
    assert codes(body) == {2: reasons.TOO_MANY_PRESIDENCIES}
    state = world.state()
    state.railroads["PENN"].president = 7
    assert codes(body, state) == {}
    assert "becomes a railroad" in warnings(body)[5]


def test_amount_warnings() -> None:
    notes = warnings("BORROW 999999\nREPAY 5000\nPRODIGAL 10\nRAILROAD NYC\nREDEEM BONDS 9000")
    assert "credit available" in notes[2]
    assert "you owe $200" in notes[3]
    assert "no Prodigal points" in notes[4]
    assert "$500 of bonds" in notes[6]


def test_preview_follows_the_rules_worked_example() -> None:
    """6.1: begin with $1500, borrow $1000, spend $500 on a PC and $200 on treasury
    stock: $1800 at the start of order checking."""
    state = world.state()
    state.tycoon(3).loan = 0
    state.pcs["B&M"] = state.pcs["B&M"].model_copy(update={"asking_price": 500})
    state.railroads["NYC"].price = 10
    body = "BORROW 1000\nBID B&M 500\nTREASURY 20 NYC\nSELL 20 PENN\nBUY 100 B&O\nBUY 300 PENN"
    evaluation = evaluate(f"{world.HEADER}\n{body}\nEND\n", state, SCENARIO)
    assert evaluation.errors == []
    preview = evaluation.check.preview if evaluation.check else None
    assert preview is not None
    assert preview.cash_at_market == 1800
    # The bid is counted as won, and the receipt says so.
    assert ("PC purchase B&M (if won)", -500) in preview.steps
    rows = {row.line_no: row for row in preview.rows}
    assert rows[5].checked == "SELL 20 PENN" and rows[5].amount > 0
    assert rows[6].amount == -1500 and rows[6].cash_after == rows[5].cash_after - 1500
    assert rows[7].checked == f"BUY {rows[6].cash_after // 18} PENN"
    assert rows[7].code == reasons.CUT_TO_AFFORDABLE


def test_a_name_only_on_the_first_turn_or_after_a_bankruptcy() -> None:
    assert codes("NAME Jim Fisk") == {2: reasons.NOT_ALLOWED_NOW}
    state = world.state()
    state.tycoon(3).bankrupt_turn = 6
    assert codes("NAME Jim Fisk", state) == {}
    state.turn = 1
    assert "another tycoon's name" in warnings_for("NAME Tycoon 4", state)[2]


def test_no_credit_after_a_bankruptcy_and_no_prodigal_on_credit() -> None:
    """3.6, 1.2 [designed, issue 24] The bank lends a bankrupt nothing for 5
    turns; Prodigal spending comes out of cash beyond the loan."""
    state = world.state()
    state.tycoon(3).bankrupt_turn = state.turn - 1
    assert codes("BORROW 500", state) == {2: reasons.NOT_ALLOWED_NOW}
    state.tycoon(3).bankrupt_turn = state.turn - 6
    assert codes("BORROW 500", state) == {}
    state = world.state()
    state.tycoon(3).loan = 700
    assert "only cash beyond" in warnings_for("PRODIGAL 1000", state)[2]


def warnings_for(body: str, state: GameState) -> dict[int, str]:
    vocab = Vocabulary.from_scenario(SCENARIO, state)
    sheet = parse_turnsheet(f"{world.HEADER}\n{body}\nEND\n", vocab)
    return {n.line_no: n.message for n in check_orders(state, SCENARIO, 3, sheet.lines).warnings}


def test_a_presidency_request_without_the_directorship_is_noted() -> None:
    """4.14 Only a director (10% of the issued shares) can be elected president:
    the receipt says so when the sheet leaves him short of it."""
    notes = warnings("PRESIDENT B&O")
    assert "director" in notes[2] and "0 of 600 B&O" in notes[2] and "60" in notes[2]
    notes = warnings("SELL 80 NYC\nPRESIDENT NYC")
    assert "40 of 600 NYC" in notes[3]
    assert "director" not in warnings("BUY 60 B&O\nPRESIDENT B&O").get(3, "")
    assert 2 not in warnings("PRESIDENT NYC")


def _merging_state() -> GameState:
    state = world.state()
    state.railroads["NYC"].lines = ["NYC", "NY2"]  # New York - Philadelphia: meets PENN
    return state


def test_orders_for_a_railroad_the_sheet_merges_away_are_noted() -> None:
    """4.13 A railroad merged into another this turn is gone by the stock market
    and the elections: the receipt says what becomes of its orders."""
    state = _merging_state()
    body = "BUY 10 PENN\nPRESIDENT PENN\nRAILROAD NYC\nMERGE PENN\nRAILROAD PENN\nDIVIDEND 2"
    assert codes(body, state) == {}
    notes = warnings_for(body, state)
    assert "PENN merges into NYC this turn (line 5)" in notes[2]
    assert "not be carried out" in notes[2]
    assert "counts for NYC" in notes[3]
    assert "not be carried out" in notes[7]
    evaluation = evaluate(f"{world.HEADER}\n{body}\nEND\n", state, SCENARIO)
    assert evaluation.check is not None and evaluation.check.preview is not None
    row = evaluation.check.preview.rows[0]
    assert row.checked is None and row.code == reasons.MERGED_AWAY
    assert "merged into NYC" in row.hint


def test_incorporating_a_pc_offered_for_sale_is_noted() -> None:
    """10.1, Appendix C: the PC auction comes before incorporation, so a PC
    offered for sale may be sold first; an offer made this turn lapses when the
    PC is incorporated."""
    state = world.state()
    state.railroads["PENN"].president = 7  # he may preside one more railroad
    assert codes("OFFER B&H 450\nINCORPORATE B&H", state) == {}
    notes = warnings_for("OFFER B&H 450\nINCORPORATE B&H", state)
    assert "offer" in notes[3] and "line 2" in notes[3]
    assert 2 not in warnings_for("INCORPORATE B&H", state)
    state.pcs["B&H"].for_sale = True
    notes = warnings_for("INCORPORATE B&H", state)
    assert "offered for sale at $400" in notes[2] and "auction" in notes[2]


def test_a_per_mile_cost_that_grows_with_the_sheets_building_says_why() -> None:
    """4.17, 4.18 A locomotive costs $10 a mile a type up: NYC (148 miles) that
    builds NY1 (210 miles) first pays for 358 miles, and the receipt says so."""
    state = world.state()
    state.railroads["NYC"].cash = 40_000
    body = "RAILROAD NYC\nBUILD NY1\nLOCOMOTIVE 4\nTECHNOLOGY B"
    assert codes(body, state) == {}
    notes = warnings_for(body, state)
    assert notes[4] == (
        "costs $10,740 ($10 a mile × 3 types × 358 miles of track), not the $4,440 your "
        "sheet showed for 148 miles: NYC builds first this turn"
    )
    assert notes[5].startswith("costs $3,580 ($10 a mile × 358 miles of track), not the $1,480")
    assert 3 not in warnings_for("RAILROAD NYC\nLOCOMOTIVE 4", state)


def test_a_build_refused_for_want_of_cash_says_what_it_costs_and_why() -> None:
    """4.6 The receipt gives a building cost with its terms, as the sheet does."""
    state = world.state()
    state.railroads["NYC"].cash = 0
    state.railroads["NYC"].bonds = 50_000
    state.railroads["NYC"].loan = 50_000
    evaluation = evaluate(f"{world.HEADER}\nRAILROAD NYC\nBUILD NY1\nEND\n", state, SCENARIO)
    assert [str(e) for e in evaluation.errors] == [
        "line 3: Building NY1 costs $13,350 (210 miles × $60 × 100% terrain × 100% climate "
        "+ $750 for the towns); NYC has $0 and can borrow only $0 more."
    ]


def test_an_order_for_a_railroad_merged_in_an_earlier_turn_names_the_survivor() -> None:
    """4.13 A railroad merged away is no railroad now: the receipt says where it went."""
    state = world.state()
    state.railroads["NYC"].lines.append("LS")  # LS merged into NYC earlier
    sheet = parse_turnsheet(
        f"{world.HEADER}\nBUY 10 LS\nEND\n", Vocabulary.from_scenario(SCENARIO, state)
    )
    errors = check_orders(state, SCENARIO, 3, sheet.lines).errors
    assert [(e.code, e.message, e.hint) for e in errors] == [
        (reasons.MERGED_AWAY, "LS has merged into NYC", "use NYC")
    ]
