"""Properties of the bank's finance steps over many random positions (3.4, 3.5, 11.1)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.e1_support import assert_conserved, context, kinds, start
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.orders import BidForPC, Borrow, Order
from turnproc.families.continental_rails.engine.steps import auctions, finance
from turnproc.scenario.loader import load_scenario

SCENARIO = load_scenario("continental-rails")
BASE = start(SCENARIO)


@settings(max_examples=30, deadline=None)
@given(
    cash=st.integers(0, 20_000),
    loan=st.integers(0, 40_000),
    shares=st.integers(0, 300),  # the other 14 tycoons hold 280 of 600 issued
    climate=st.integers(0, 8),
    price=st.integers(1, 90),
)
def test_recall_leaves_the_loan_at_the_limit_or_bankrupts(
    cash: int, loan: int, shares: int, climate: int, price: int
) -> None:
    state = BASE.model_copy(deep=True)
    tycoon = state.tycoon(1)
    tycoon.cash, tycoon.loan = cash, loan
    tycoon.holdings = {"NYC": shares, "SCL": 20}
    state.railroads["NYC"].price = price
    state.climate = climate
    limit = valuation.credit_limit(state, SCENARIO, 1, climate)
    ctx = context(SCENARIO, state)
    finance.loan_recalls(ctx)
    assert_conserved(ctx)
    after = ctx.state.tycoon(1)
    if loan <= limit:
        assert ctx.events == [] and after.loan == loan
    elif kinds(ctx, "bankruptcy"):
        assert after.loan == 0 and after.holdings == {} and after.cash == 1000
    else:
        assert after.loan == limit
        assert after.cash >= 0


@settings(max_examples=40, deadline=None)
@given(asks=st.lists(st.integers(0, 5000), min_size=1, max_size=4), loan=st.integers(0, 3000))
def test_borrowing_never_passes_the_start_limit(asks: list[int], loan: int) -> None:
    state = BASE.model_copy(deep=True)
    state.tycoon(2).loan = loan
    limit = valuation.credit_limit(state, SCENARIO, 2, state.climate)
    ctx = context(SCENARIO, state, {2: [Borrow(amount=a) for a in asks]})
    finance.bank_loans(ctx)
    assert_conserved(ctx)
    assert ctx.state.tycoon(2).loan <= max(loan, limit)
    assert ctx.state.tycoon(2).loan - loan == ctx.state.tycoon(2).cash - 1500


@settings(max_examples=30, deadline=None)
@given(cash=st.integers(0, 100_000), seed=st.integers(0, 10_000))
def test_bank_failures_never_take_more_than_a_third(cash: int, seed: int) -> None:
    state = BASE.model_copy(deep=True)
    state.seed = seed
    state.climate = 8
    for tycoon in state.tycoons:
        tycoon.cash = cash
    ctx = context(SCENARIO, state)
    finance.bank_failures(ctx)
    assert_conserved(ctx)
    for tycoon in ctx.state.tycoons:
        assert tycoon.cash >= cash - cash * 33 // 100


PCS_FOR_SALE = ["GT", "B&H", "LV", "NER", "W&W", "W&M"]


@settings(max_examples=30, deadline=None)
@given(
    bids=st.lists(
        st.tuples(st.integers(1, 15), st.sampled_from(PCS_FOR_SALE), st.integers(0, 2500)),
        max_size=25,
    ),
    owned=st.sets(st.integers(1, 15), max_size=5),
)
def test_auction_rules_hold_for_any_bids(bids: list[tuple[int, str, int]], owned: set[int]) -> None:
    state = BASE.model_copy(deep=True)
    for pos in owned:  # each of these already owns one PC
        code = ["B&M", "B&A", "HRL", "NYNH", "ERIE"][pos % 5]
        if state.pcs[code].status == "available":
            state.pcs[code].status = "owned"
            state.pcs[code].owner = pos
            state.tycoon(pos).pcs.append(code)
    orders: dict[int, list[Order]] = {}
    for pos, code, amount in bids:
        orders.setdefault(pos, []).append(BidForPC(pc=code, amount=amount))
    ctx = context(SCENARIO, state, orders)
    auctions.pc_auction(ctx)
    assert_conserved(ctx)
    for tycoon in ctx.state.tycoons:
        assert len(tycoon.pcs) <= 2
    sold = kinds(ctx, "pc_bought")
    assert len({sale["pc"] for sale in sold}) == len(sold)
    excused = {
        (r.position, r.order["pc"], r.order["amount"])
        for r in ctx.rejections
        if r.code in ("INSUFFICIENT_CASH", "TOO_MANY_PCS", "DUPLICATE_ORDER")
    }
    for sale in sold:
        pc, buyer, price = str(sale["pc"]), int(str(sale["position"])), int(str(sale["price"]))
        assert price >= state.pcs[pc].asking_price
        assert ctx.state.pcs[pc].owner == buyer
        # every higher bid for it lost for a reason of its own bidder (or was a repeat)
        for pos, code, amount in bids:
            if code == pc and amount > price:
                assert (pos, code, amount) in excused
    for pos, code, amount in bids:
        won = any(sale["pc"] == code and sale["position"] == pos for sale in sold)
        if amount >= state.pcs[code].asking_price and not won and pos not in owned:
            # a valid bid that lost was outbid, or its bidder was full or short of cash
            assert any(r.position == pos and r.order.get("pc") == code for r in ctx.rejections)
