"""4.1 Incorporating a PC and merging a PC into a railroad."""

from tests.e1_support import assert_conserved, codes, context, kinds, start
from turnproc.families.continental_rails.engine import pcs
from turnproc.families.continental_rails.engine.orders import IncorporatePC, MergePC
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import companies
from turnproc.scenario.model import Scenario


def _own(state: GameState, pos: int, *codes_: str) -> None:
    for code in codes_:
        state.pcs[code].status = "owned"
        state.pcs[code].owner = pos
        state.tycoon(pos).pcs.append(code)


def test_incorporation_creates_the_railroad(scenario: Scenario) -> None:
    state = start(scenario)
    state.pcs["MS"].status = "available"
    _own(state, 2, "MS")
    state.best_locomotive = 3
    state.technologies_available = ["A", "B", "C"]
    ctx = context(scenario, state, {2: [IncorporatePC(pc="MS")]})
    companies.incorporate_pcs(ctx)
    rr = ctx.state.railroads["MS"]
    price = pcs.opening_price(scenario, "MS")  # 204 x (4 + 25) / 250 = 23
    assert price == 23
    assert (rr.number, rr.name, rr.lines) == (49, "Michigan Southern", ["MS"])
    assert (rr.authorized, rr.issued, rr.price) == (1000, 500, 23)
    assert rr.cash == 400 * 23
    assert ctx.state.tycoon(2).holdings["MS"] == 100  # 20% of the issued stock
    assert ctx.state.public_shares("MS") == 400
    assert rr.locomotive == 3 and rr.technologies == ["B", "C"]
    assert rr.president == 2 and rr.efficiency == 70 and rr.founded_turn == 1
    assert ctx.state.pcs["MS"].status == "incorporated"
    assert ctx.state.tycoon(2).pcs == []
    event = kinds(ctx, "railroad_incorporated")[0]
    assert event["position"] == 2 and event["railroad"] == "MS" and event["capital"] == 9200
    assert_conserved(ctx)


def test_incorporation_refused_for_non_owners_and_busy_presidents(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 2, "B&M")
    _own(state, 3, "GT")
    state.railroads["NYC"].president = 3
    state.railroads["PENN"].president = 3
    ctx = context(
        scenario,
        state,
        {1: [IncorporatePC(pc="B&M"), IncorporatePC(pc="XYZ")], 3: [IncorporatePC(pc="GT")]},
    )
    companies.incorporate_pcs(ctx)
    assert codes(ctx) == ["NOT_OWNER", "UNKNOWN_PC", "TOO_MANY_PRESIDENCIES"]
    assert set(ctx.state.railroads) == set(state.railroads)


def test_merging_a_pc_pays_a_stock_bonus(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 5, "HRL")  # New York - Albany touches NYC (Albany - Syracuse)
    ctx = context(scenario, state, {5: [MergePC(pc="HRL", railroad="NYC")]})
    companies.merge_pcs(ctx)
    rr = ctx.state.railroads["NYC"]
    bonus = pcs.pc_value(scenario, "HRL") // 20
    assert rr.lines == ["NYC", "HRL"]
    assert rr.issued == 600 + bonus and rr.authorized == 1000
    assert ctx.state.tycoon(5).holdings["NYC"] == 20 + bonus
    assert kinds(ctx, "pc_merged")[0]["bonus_shares"] == bonus
    assert ctx.state.pcs["HRL"].status == "merged"
    assert_conserved(ctx)


def test_merger_bonus_beyond_the_treasury_authorizes_stock(scenario: Scenario) -> None:
    state = start(scenario)
    state.railroads["NYC"].authorized = 610
    _own(state, 5, "HRL")
    ctx = context(scenario, state, {5: [MergePC(pc="HRL", railroad="NYC")]})
    companies.merge_pcs(ctx)
    rr = ctx.state.railroads["NYC"]
    assert rr.treasury == 0 and rr.issued > 610
    assert_conserved(ctx)


def test_merger_must_touch_and_not_be_prohibited(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 5, "B&M", "READ")
    ctx = context(
        scenario,
        state,
        {
            5: [
                MergePC(pc="B&M", railroad="SCL"),  # Boston is nowhere near Savannah
                MergePC(pc="READ", railroad="PENN"),  # double route Philadelphia-Harrisburg
                MergePC(pc="B&M", railroad="XX"),
            ]
        },
    )
    companies.merge_pcs(ctx)
    assert codes(ctx) == ["NOT_CONNECTED", "PROHIBITED_ROUTE", "UNKNOWN_RAILROAD"]
    assert ctx.state.tycoon(5).pcs == ["B&M", "READ"]


def test_no_second_route_into_chicago(scenario: Scenario) -> None:
    state = start(scenario)
    for code in ("MS", "C&NW"):
        state.pcs[code].status = "available"
    _own(state, 2, "MS")
    _own(state, 3, "C&NW")
    ctx = context(
        scenario,
        state,
        {2: [IncorporatePC(pc="MS")], 3: [MergePC(pc="C&NW", railroad="MS")]},
    )
    companies.incorporate_pcs(ctx)
    companies.merge_pcs(ctx)
    assert codes(ctx) == ["PROHIBITED_ROUTE"]
    assert "Chicago" in ctx.rejections[0].hint
