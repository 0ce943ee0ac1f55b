"""6 The stock market: order checking, trading, prices, short sales, splits."""

import os
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import (
    BuyStock,
    CoverShort,
    IssueStock,
    Order,
    PlayerOrders,
    SellStock,
    ShortSell,
)
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.elections import directors_of
from turnproc.families.continental_rails.engine.steps.railroad_finance import railroad_finance
from turnproc.families.continental_rails.engine.steps.stockmarket import (
    check_stock_orders,
    check_stock_orders_detailed,
    end_price,
    force_covers,
    is_cornered,
    market_params,
    max_bid,
    split_ratio,
    splits,
    stock_market,
)
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario

CODES = ["NYC", "PENN", "B&O", "N&W", "SCL", "C&H"]


@cache
def _scenario() -> Scenario:
    """The scenario for hypothesis tests (not a fixture: keeps failure reports short)."""
    return load_scenario("continental-rails")


def _start(scenario: Scenario, seed: int = 3) -> GameState:
    return new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])


def _ctx(scenario: Scenario, state: GameState, orders: dict[int, list[Order]]) -> TurnContext:
    return TurnContext(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state.model_copy(deep=True),
        orders={pos: PlayerOrders(position=pos, orders=list(o)) for pos, o in orders.items()},
    )


def _example_state(scenario: Scenario) -> GameState:
    state = _start(scenario)
    state.railroads["B&O"].price = 10
    state.railroads["N&W"].price = 20
    state.railroads["SCL"].price = 10
    return state


EXAMPLE: list[Order] = [
    SellStock(railroad="NYC", shares=20),
    BuyStock(railroad="B&O", shares=100),
    ShortSell(railroad="N&W", shares=50),
    BuyStock(railroad="SCL", shares=100),
    BuyStock(railroad="PENN", shares=5),
    SellStock(railroad="C&H", shares=20),
    BuyStock(railroad="C&H", shares=10),
]


def test_the_rules_worked_example_comes_out_exactly(scenario: Scenario) -> None:
    rows = check_stock_orders(_example_state(scenario), scenario, 1, EXAMPLE, 1800)
    cash = [cash for _, _, cash in rows]
    assert cash == [2000, 1000, 500, 0, 0, 110, 0]
    assert rows[3][1] == BuyStock(railroad="SCL", shares=50)
    assert rows[4][1] is None  # aborted after the cut
    assert rows[6][1] == BuyStock(railroad="C&H", shares=10)  # new credit from a sale
    detailed = check_stock_orders_detailed(_example_state(scenario), scenario, 1, EXAMPLE, 1800)
    assert [d.code for d in detailed] == [
        None,
        None,
        None,
        reasons.CUT_TO_AFFORDABLE,
        reasons.ABORTED_AFTER_CUT,
        None,
        None,
    ]


def test_the_example_trades_never_worse_than_checked(scenario: Scenario) -> None:
    state = _example_state(scenario)
    state.tycoon(1).cash = 1800
    ctx = _ctx(scenario, state, {1: EXAMPLE})
    stock_market(ctx)
    assert ctx.state.tycoon(1).cash >= 0
    assert ctx.state.tycoon(1).holdings["SCL"] == 20 + 50
    assert money_problems(ctx.start, ctx.state, ctx.ledger) == []
    assert share_problems(ctx.state) == []
    cut = [r for r in ctx.rejections if r.code == reasons.CUT_TO_AFFORDABLE]
    assert cut[0].cut_to == {"kind": "buy", "railroad": "SCL", "shares": 50}


def test_sales_are_limited_to_shares_held_before_trading(scenario: Scenario) -> None:
    state = _start(scenario)
    rows = check_stock_orders_detailed(
        state,
        scenario,
        1,
        [BuyStock(railroad="NYC", shares=10), SellStock(railroad="NYC", shares=30)],
        1000,
    )
    assert rows[1].checked == SellStock(railroad="NYC", shares=20)
    assert rows[1].code == reasons.SHARES_NOT_HELD


def test_bid_limit_is_twenty_percent_of_shares_not_owned(scenario: Scenario) -> None:
    state = _start(scenario)  # 600 issued, each tycoon holds 20, no directors yet
    params = market_params(scenario)
    assert max_bid(state, 1, "NYC", params) == (600 - 20) * 20 // 100
    rows = check_stock_orders_detailed(
        state, scenario, 1, [BuyStock(railroad="NYC", shares=200)], 100_000
    )
    assert rows[0].code == reasons.BID_LIMIT
    assert rows[0].checked == BuyStock(railroad="NYC", shares=116)


def test_bid_limit_excludes_directors_shares(scenario: Scenario) -> None:
    state = _start(scenario)
    state.railroads["NYC"].directors = [2, 3]
    state.tycoon(2).holdings["NYC"] = 200
    state.tycoon(3).holdings["NYC"] = 120
    params = market_params(scenario)
    assert max_bid(state, 1, "NYC", params) == (600 - 200 - 120 - 20) * 20 // 100
    assert max_bid(state, 2, "NYC", params) == (600 - 200 - 120) * 20 // 100


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    issued=st.integers(10, 5000),
    stakes=st.lists(st.integers(0, 1000), min_size=15, max_size=15),
)
def test_when_cornered_no_bid_reaches_ten_percent(issued: int, stakes: list[int]) -> None:
    """6.4: directors owning more than 50% means no one can buy 10% in one turn."""
    scenario = _scenario()
    state = _start(scenario)
    params = market_params(scenario)
    rr = state.railroads["NYC"]
    total = sum(stakes) or 1
    rr.issued = issued
    rr.authorized = issued
    for tycoon, stake in zip(state.tycoons, stakes, strict=True):
        tycoon.holdings["NYC"] = stake * issued // total
    rr.directors = directors_of(state, params, "NYC")
    if not is_cornered(state, params, "NYC"):
        return
    for tycoon in state.tycoons:
        assert max_bid(state, tycoon.position, "NYC", params) * 100 < issued * 10


ORDER = st.one_of(
    st.builds(SellStock, railroad=st.sampled_from(CODES), shares=st.integers(1, 60)),
    st.builds(BuyStock, railroad=st.sampled_from(CODES), shares=st.integers(1, 200)),
    st.builds(ShortSell, railroad=st.sampled_from(CODES), shares=st.integers(1, 80)),
    st.builds(CoverShort, railroad=st.sampled_from(CODES), shares=st.integers(1, 80)),
)


@settings(
    max_examples=int(os.environ.get("E3_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    orders=st.dictionaries(st.integers(1, 15), st.lists(ORDER, max_size=8), max_size=8),
    cash=st.lists(st.integers(0, 4000), min_size=15, max_size=15),
    climate=st.integers(0, 8),
    seed=st.integers(0, 10_000),
    open_shorts=st.lists(st.integers(0, 40), min_size=15, max_size=15),
)
def test_trading_is_never_worse_than_checked_and_conserves_everything(
    orders: dict[int, list[Order]],
    cash: list[int],
    climate: int,
    seed: int,
    open_shorts: list[int],
) -> None:
    """6.1: actual results are never worse than the checked amounts; cash never
    goes negative; money and shares are conserved; prices stay in their bounds."""
    scenario = _scenario()
    state = _start(scenario, seed)
    state.climate = climate
    params = market_params(scenario)
    for tycoon, money, short in zip(state.tycoons, cash, open_shorts, strict=True):
        tycoon.cash = money
        if short:
            code = CODES[tycoon.position % len(CODES)]
            price = state.railroads[code].price
            tycoon.shorts[code] = short
            tycoon.short_proceeds[code] = short * price * 3 // 2
    checked_cash = {
        t.position: (
            rows[-1].cash_after
            if (
                rows := check_stock_orders_detailed(
                    state, scenario, t.position, orders.get(t.position, []), t.cash
                )
            )
            else t.cash
        )
        for t in state.tycoons
    }
    ctx = _ctx(scenario, state, orders)
    stock_market(ctx)
    assert money_problems(ctx.start, ctx.state, ctx.ledger) == []
    assert share_problems(ctx.state) == []
    for tycoon in ctx.state.tycoons:
        assert tycoon.cash >= 0
        assert tycoon.loan == ctx.start.tycoon(tycoon.position).loan
        # Forced covers only add cash, so the checked amount is a floor.
        assert tycoon.cash >= checked_cash[tycoon.position]
    for code, rr in ctx.state.railroads.items():
        before = ctx.start.railroads[code]
        assert rr.issued == before.issued
        assert 1 <= rr.price <= end_price(before.price, params.prices.max_rise_percent, params)
        assert rr.price >= end_price(before.price, -params.prices.max_fall_percent, params)
        held_before = sum(t.holdings.get(code, 0) for t in ctx.start.tycoons)
        held_after = sum(t.holdings.get(code, 0) for t in ctx.state.tycoons)
        trades = [e for e in ctx.events if e.kind == "tycoon_trade" and e.railroad == code]
        bought = sum(e.shares for e in trades if e.action == "buy")  # type: ignore[attr-defined]
        sold = sum(e.shares for e in trades if e.action == "sell")  # type: ignore[attr-defined]
        assert held_after - held_before == bought - sold


def test_buys_beyond_the_public_holding_are_cut_pro_rata(scenario: Scenario) -> None:
    state = _start(scenario)
    rr = state.railroads["SCL"]
    rr.issued = 400  # players hold 300, the public 100
    rr.authorized = 1000
    for tycoon in state.tycoons:
        tycoon.cash = 10_000
    orders: dict[int, list[Order]] = {
        1: [BuyStock(railroad="SCL", shares=60)],
        2: [BuyStock(railroad="SCL", shares=60)],
        3: [BuyStock(railroad="SCL", shares=30)],
    }
    ctx = _ctx(scenario, state, orders)
    stock_market(ctx)
    got = [ctx.state.tycoon(p).holdings["SCL"] - 20 for p in (1, 2, 3)]
    assert sum(got) == 100
    assert got[0] == got[1] and got[2] in (19, 20, 21)
    assert ctx.state.public_shares("SCL") == 0
    assert {r.code for r in ctx.rejections} == {reasons.MARKET_SHORTAGE}


def test_submission_order_does_not_change_prices(scenario: Scenario) -> None:
    state = _start(scenario)
    a: dict[int, list[Order]] = {
        1: [BuyStock(railroad="NYC", shares=50)],
        2: [SellStock(railroad="NYC", shares=20)],
    }
    b: dict[int, list[Order]] = {2: a[2], 1: a[1]}
    first, second = _ctx(scenario, state, a), _ctx(scenario, state, b)
    stock_market(first)
    stock_market(second)
    assert first.state.model_dump() == second.state.model_dump()


def test_buying_pressure_raises_the_price(scenario: Scenario) -> None:
    state = _start(scenario)
    quiet = _ctx(scenario, state, {})
    stock_market(quiet)
    for tycoon in state.tycoons:
        tycoon.cash = 5000
    busy = _ctx(scenario, state, {p: [BuyStock(railroad="PENN", shares=100)] for p in range(1, 16)})
    stock_market(busy)
    assert busy.state.railroads["PENN"].price > quiet.state.railroads["PENN"].price


def test_a_short_sale_is_covered_with_its_collateral(scenario: Scenario) -> None:
    state = _start(scenario)
    state.railroads["N&W"].price = 20
    state.tycoon(1).cash = 500
    ctx = _ctx(scenario, state, {1: [ShortSell(railroad="N&W", shares=50)]})
    stock_market(ctx)
    tycoon = ctx.state.tycoon(1)
    trade_price = min(20, ctx.state.railroads["N&W"].price)
    if "N&W" in tycoon.shorts:
        assert tycoon.cash == 0
        assert tycoon.short_proceeds["N&W"] == 50 * trade_price + 500
    # Next turn he covers at the new quote: collateral back less the cost.
    state2 = ctx.state.model_copy(deep=True)
    if "N&W" not in state2.tycoon(1).shorts:
        return
    quote = state2.railroads["N&W"].price
    ctx2 = _ctx(scenario, state2, {1: [CoverShort(railroad="N&W", shares=50)]})
    stock_market(ctx2)
    back = ctx2.state.tycoon(1).cash
    assert back >= 50 * trade_price + 500 - 50 * quote
    assert "N&W" not in ctx2.state.tycoon(1).shorts
    assert money_problems(ctx2.start, ctx2.state, ctx2.ledger) == []


def test_a_short_whose_collateral_runs_short_is_forced_to_cover(scenario: Scenario) -> None:
    state = _start(scenario)
    params = market_params(scenario)
    price = state.railroads["NYC"].price
    # Buying 10 back costs 10 x price: covered once that exceeds 80% of the collateral.
    state.tycoon(4).shorts["NYC"] = 10
    state.tycoon(4).short_proceeds["NYC"] = 10 * price * 100 // 80 - 1
    state.tycoon(5).shorts["NYC"] = 10
    state.tycoon(5).short_proceeds["NYC"] = 10 * price * 100 // 80
    ctx = _ctx(scenario, state, {})
    force_covers(ctx, params)
    assert "NYC" not in ctx.state.tycoon(4).shorts
    assert ctx.state.tycoon(5).shorts == {"NYC": 10}
    trade = next(e for e in ctx.events if e.kind == "tycoon_trade")
    assert trade.forced  # type: ignore[attr-defined]
    assert (
        ctx.state.tycoon(4).cash == state.tycoon(4).cash + 10 * price * 100 // 80 - 1 - 10 * price
    )


def test_a_loss_beyond_the_collateral_is_paid_from_cash_then_the_loan(scenario: Scenario) -> None:
    state = _start(scenario)
    params = market_params(scenario)
    price = state.railroads["NYC"].price  # $20: buying 10 back costs $200
    state.tycoon(4).shorts["NYC"] = 10
    state.tycoon(4).short_proceeds["NYC"] = 50
    state.tycoon(4).cash = 100
    ctx = _ctx(scenario, state, {})
    force_covers(ctx, params)
    assert ctx.state.tycoon(4).cash == 0
    assert ctx.state.tycoon(4).loan == 10 * price - 50 - 100
    assert money_problems(ctx.start, ctx.state, ctx.ledger) == []


def test_price_steps_are_bounded_and_cheap_stocks_move(scenario: Scenario) -> None:
    params = market_params(scenario)
    assert end_price(1, 10, params) == 2
    assert end_price(1, -50, params) == 1
    assert end_price(20, -50, params) == 10
    assert end_price(50, 40, params) == 70


def test_split_ratio_is_the_smallest_that_brings_the_price_to_100() -> None:
    assert split_ratio(101, 100) == 2
    assert split_ratio(200, 100) == 2
    assert split_ratio(201, 100) == 2  # 201 // 2 = 100
    assert split_ratio(302, 100) == 3  # 302 // 3 = 100
    assert split_ratio(303, 100) == 4  # 303 // 3 = 101
    assert split_ratio(250, 100) == 3


def test_splits_multiply_stock_and_divide_the_price(scenario: Scenario) -> None:
    state = _start(scenario)
    state.railroads["NYC"].price = 250
    state.railroads["PENN"].price = 100
    state.tycoon(2).shorts["NYC"] = 5
    state.tycoon(2).short_proceeds["NYC"] = 5000
    ctx = _ctx(scenario, state, {})
    splits(ctx)
    nyc = ctx.state.railroads["NYC"]
    assert (nyc.price, nyc.issued, nyc.authorized) == (83, 1800, 3000)
    assert ctx.state.tycoon(1).holdings["NYC"] == 60
    assert ctx.state.tycoon(2).shorts["NYC"] == 15
    assert ctx.state.railroads["PENN"].price == 100
    assert [e.model_dump()["ratio"] for e in ctx.events if e.kind == "stock_split"] == [3]
    assert share_problems(ctx.state) == []


def test_unknown_railroads_and_uncovered_shorts_are_refused(scenario: Scenario) -> None:
    state = _start(scenario)
    rows = check_stock_orders_detailed(
        state,
        scenario,
        1,
        [BuyStock(railroad="ERIE", shares=5), CoverShort(railroad="NYC", shares=5)],
        1000,
    )
    assert [(r.checked, r.code) for r in rows] == [
        (None, reasons.UNKNOWN_RAILROAD),
        (None, reasons.NO_SHORT_POSITION),
    ]


def test_a_cover_costing_more_than_the_collateral_is_cut_to_the_cash(scenario: Scenario) -> None:
    state = _start(scenario)  # NYC quoted at $20
    tycoon = state.tycoon(1)
    tycoon.shorts["NYC"] = 100
    tycoon.short_proceeds["NYC"] = 1000  # $10 a share: each share covered costs $10 net
    rows = check_stock_orders_detailed(
        state,
        scenario,
        1,
        [
            CoverShort(railroad="NYC", shares=100),
            BuyStock(railroad="PENN", shares=1),
            SellStock(railroad="B&O", shares=20),
            BuyStock(railroad="SCL", shares=1),
        ],
        300,
    )
    assert rows[0].checked == CoverShort(railroad="NYC", shares=30)
    assert rows[0].code == reasons.CUT_TO_AFFORDABLE
    assert rows[1].code == reasons.ABORTED_AFTER_CUT
    assert rows[2].cash_after == 0 + 20 * 15 // 2  # a sale adds credit again ...
    assert rows[3].checked == BuyStock(railroad="SCL", shares=1)  # ... so buying resumes


def test_a_short_sale_needs_half_its_value_in_cash(scenario: Scenario) -> None:
    state = _start(scenario)  # N&W quoted at $12
    rows = check_stock_orders(state, scenario, 1, [ShortSell(railroad="N&W", shares=100)], 300)
    assert rows == [
        (ShortSell(railroad="N&W", shares=100), ShortSell(railroad="N&W", shares=50), 0)
    ]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(price=st.integers(1, 2000), short=st.integers(0, 50))
def test_splits_keep_every_holding_proportional(price: int, short: int) -> None:
    """6.5: a split multiplies every holding, short, issued and authorized stock
    by the same ratio, so shares stay conserved and the price ends <= $100."""
    scenario = _scenario()
    state = _start(scenario)
    state.railroads["PENN"].price = price
    if short:
        state.tycoon(3).shorts["PENN"] = short
        state.tycoon(3).short_proceeds["PENN"] = short * price * 2
    ctx = _ctx(scenario, state, {})
    splits(ctx)
    before, after = ctx.start.railroads["PENN"], ctx.state.railroads["PENN"]
    ratio = after.issued // before.issued
    assert after.price <= 100
    assert (ratio == 1) == (price <= 100)
    assert after.price == price // ratio
    assert after.authorized == before.authorized * ratio
    assert ctx.state.public_shares("PENN") == ctx.start.public_shares("PENN") * ratio
    assert share_problems(ctx.state) == []


def test_new_shares_are_supply_in_the_price(scenario: Scenario) -> None:
    """6.3 A new issue (4.3) counts as shares sold: the same turn, seed and
    orders with PENN issuing 60 new shares (10%) end at a lower price, by the
    dilution (60 of 660 shares: -9% of the $50 quote, $4.50 before rounding)."""

    def penn_after(issue: bool) -> tuple[int, int]:
        state = _start(scenario)
        state.railroads["PENN"].president = 1
        state.railroads["PENN"].price = 50
        orders = [IssueStock(railroad="PENN", shares=60)] if issue else []
        ctx = TurnContext(
            scenario=scenario,
            state=state.model_copy(deep=True),
            start=state,
            orders={1: PlayerOrders(position=1, orders=orders)},
        )
        railroad_finance(ctx)
        stock_market(ctx)
        return ctx.state.railroads["PENN"].price, ctx.state.railroads["PENN"].issued

    plain, issued = penn_after(False)
    diluted, more = penn_after(True)
    assert more == issued + 60
    assert 4 <= plain - diluted <= 5
