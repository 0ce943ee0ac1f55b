"""10.1 The PC auction and offers; 2.3 new PCs."""

from tests.e1_support import assert_conserved, codes, context, kinds, start
from turnproc.families.continental_rails.engine.orders import BidForPC, OfferPC
from turnproc.families.continental_rails.engine.pcs import list_price
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import auctions
from turnproc.families.continental_rails.engine.steps.operations import is_western
from turnproc.scenario.model import Scenario


def _own(state: GameState, pos: int, *pcs: str, asking: int = 0) -> None:
    for code in pcs:
        state.pcs[code].status = "owned"
        state.pcs[code].owner = pos
        state.pcs[code].asking_price = asking or state.pcs[code].asking_price
        state.tycoon(pos).pcs.append(code)


def test_highest_bid_wins_and_pays_the_bank(scenario: Scenario) -> None:
    state = start(scenario)
    asking = state.pcs["B&M"].asking_price
    ctx = context(
        scenario,
        state,
        {
            1: [BidForPC(pc="B&M", amount=asking + 100)],
            2: [BidForPC(pc="B&M", amount=asking + 200)],
            3: [BidForPC(pc="B&M", amount=asking - 10)],
        },
    )
    auctions.pc_auction(ctx)
    assert ctx.state.pcs["B&M"].owner == 2
    assert ctx.state.tycoon(2).pcs == ["B&M"]
    assert ctx.state.tycoon(2).cash == 1500 - asking - 200
    assert kinds(ctx, "pc_bought") == [
        {
            "kind": "pc_bought",
            "visibility": "public",
            "position": 2,
            "railroad": None,
            "pc": "B&M",
            "price": asking + 200,
            "previous_owner": None,
        }
    ]
    assert sorted(codes(ctx)) == ["BELOW_MINIMUM", "OUTBID"]
    assert_conserved(ctx)


def test_ties_go_to_fewer_pcs_then_lower_net_worth(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 1, "GT")
    state.tycoon(3).cash = 1400  # poorer than 2
    bid = BidForPC(pc="B&H", amount=1000)
    ctx = context(scenario, state, {1: [bid], 2: [bid], 3: [bid]})
    auctions.pc_auction(ctx)
    assert ctx.state.pcs["B&H"].owner == 3


def test_a_tycoon_with_two_pcs_may_not_bid(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 1, "GT", "B&H")
    ctx = context(scenario, state, {1: [BidForPC(pc="B&M", amount=1000)]})
    auctions.pc_auction(ctx)
    assert codes(ctx) == ["TOO_MANY_PCS"]
    assert ctx.state.pcs["B&M"].status == "available"


def test_no_more_wins_than_bring_a_tycoon_to_two(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 1, "GT")
    for first, second in ((990, 1000), (1000, 990)):
        orders = [BidForPC(pc="B&H", amount=first), BidForPC(pc="NER", amount=second)]
        ctx = context(scenario, state, {1: orders, 2: [BidForPC(pc="B&H", amount=890)]})
        auctions.pc_auction(ctx)
        # his higher bid wins; his other PC goes to the next bid, if any
        won = "NER" if second > first else "B&H"
        assert ctx.state.pcs[won].owner == 1
        if won == "NER":
            assert ctx.state.pcs["B&H"].owner == 2
        assert "TOO_MANY_PCS" in codes(ctx)
        assert_conserved(ctx)


def test_a_bidder_who_cannot_pay_loses_the_bid(scenario: Scenario) -> None:
    state = start(scenario)
    ctx = context(
        scenario,
        state,
        {1: [BidForPC(pc="B&M", amount=5000)], 2: [BidForPC(pc="B&M", amount=1200)]},
    )
    auctions.pc_auction(ctx)
    assert ctx.state.pcs["B&M"].owner == 2
    assert ctx.rejections[0].position == 1 and ctx.rejections[0].code == "INSUFFICIENT_CASH"


def test_offered_pc_is_paid_to_its_owner_at_the_raised_price(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 4, "B&M", asking=1000)
    state.pcs["B&M"].for_sale = True
    ctx = context(
        scenario,
        state,
        {
            4: [OfferPC(pc="B&M", price=1500)],  # cut to +20%: 1,200
            5: [BidForPC(pc="B&M", amount=1100)],
            6: [BidForPC(pc="B&M", amount=1200)],
        },
    )
    auctions.pc_auction(ctx)
    auctions.pc_offers(ctx)
    assert ctx.state.pcs["B&M"].owner == 6
    assert ctx.state.tycoon(4).cash == 1500 + 1200
    assert ctx.state.tycoon(4).pcs == []
    assert kinds(ctx, "pc_bought")[0]["previous_owner"] == 4
    assert "BELOW_MINIMUM" in codes(ctx)  # 1,100 < 1,200
    assert "NOT_OWNER" in codes(ctx)  # the offer came after the sale
    assert_conserved(ctx)


def test_offers_rise_at_most_20_percent_and_lapse_unless_repeated(scenario: Scenario) -> None:
    state = start(scenario)
    _own(state, 4, "B&M", asking=1500)  # paid $1,500; list price $1,160
    _own(state, 5, "GT", asking=300)
    state.pcs["GT"].for_sale = True
    ctx = context(scenario, state, {4: [OfferPC(pc="B&M", price=5000)]})
    auctions.pc_offers(ctx)
    assert ctx.state.pcs["B&M"].for_sale
    assert ctx.state.pcs["B&M"].asking_price == 1800
    assert ctx.rejections[0].cut_to == {"kind": "offer_pc", "pc": "B&M", "price": 1800}
    assert not ctx.state.pcs["GT"].for_sale  # not offered again: withdrawn


def test_new_pcs_come_in_appendix_order_east_before_west(scenario: Scenario) -> None:
    state = start(scenario)
    ctx = context(scenario, state)
    auctions.release_pcs(ctx)
    released = kinds(ctx, "pcs_released")[0]["pcs"]
    assert released == ["COG", "LS", "P&LE", "MRLE", "P&FW"]  # entries 27-31 for turn 2
    assert all(ctx.state.pcs[c].released_turn == 2 for c in released)
    # turn 2: list price + 10%, rounded down to $10
    assert [ctx.state.pcs[c].asking_price for c in released] == [
        list_price(scenario, c) * 110 // 100 // 10 * 10 for c in released
    ]
    for turn in range(2, 12):
        state = ctx.state
        state.turn = turn
        ctx = context(scenario, state)
        auctions.release_pcs(ctx)
        for code in kinds(ctx, "pcs_released")[0]["pcs"] if ctx.events else []:
            assert not is_western(scenario, code)
    released_codes = {c for c, pc in ctx.state.pcs.items() if pc.status != "unreleased"}
    # Every eastern PC (no town west of the Mississippi) before the war, no western one.
    assert released_codes == {c for c in ctx.state.pcs if not is_western(scenario, c)}
    assert {"SL&A", "SL"} <= released_codes  # St. Louis-Springfield IL; Sault-Marquette
    assert not {"CB&Q", "MP", "M&LR", "V&T"} & released_codes
    state = ctx.state
    state.turn = 12
    ctx = context(scenario, state)
    auctions.release_pcs(ctx)
    assert kinds(ctx, "pcs_released")[0]["pcs"] == ["CB&Q", "M&SP", "MP", "M&LR", "V&T", "L&A"]


def test_unsold_pcs_get_cheaper_down_to_half_list(scenario: Scenario) -> None:
    state = start(scenario)
    full = list_price(scenario, "ERIE")
    for _ in range(12):
        ctx = context(scenario, state)
        auctions.release_pcs(ctx)
        state = ctx.state
    assert state.pcs["ERIE"].asking_price == full // 2
