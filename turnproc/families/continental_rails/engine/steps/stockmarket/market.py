"""6.1-6.4 The stock market step: simultaneous trading at one price per
railroad, short sales and their covers."""

from dataclasses import dataclass

from turnproc.core.ledger import BANK, tycoon_account
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.orders import (
    STOCK_KINDS,
    BuyStock,
    SellStock,
    ShortSell,
    StockOrder,
)
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.stockmarket.checking import (
    CheckedOrder,
    _buy_stock,
    _cover_net,
    _margin,
    _short_sell,
    check_stock_orders_detailed,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.events import (
    _stock_trade_summary,
    _tycoon_trade,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.params import (
    MarketParams,
    market_params,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.prices import (
    demand_percent,
    end_price,
    price_change_percent,
)


@dataclass
class _Fill:
    position: int
    item: CheckedOrder
    shares: int  # as checked; the fill may be smaller


def _pro_rata(fills: list[_Fill], available: int, ctx: TurnContext, stream: str) -> list[int]:
    """6.3 Shares each order receives when demand exceeds `available`: pro rata,
    rounded down, the leftover shares one each by the largest remainder (ties by
    a seeded draw, never by submission order)."""
    wanted = sum(f.shares for f in fills)
    if wanted <= available:
        return [f.shares for f in fills]
    got = [f.shares * available // wanted for f in fills]
    left = available - sum(got)
    draw = ctx.rng(stream)
    keys = [(-(f.shares * available % wanted), draw.random(), i) for i, f in enumerate(fills)]
    for _, _, i in sorted(keys)[:left]:
        got[i] += 1
    return got


@dataclass
class _Market:
    """One railroad's trading this turn."""

    start: int  # the quoted price: order checking's price
    bought: int = 0  # shares bought by players (buys and covers)
    sold: int = 0  # shares sold by players (sales and short sales)
    new_shares: int = 0  # shares the railroad created this turn (issues, PC mergers)
    trade_price: int = 0


def new_shares_this_turn(ctx: TurnContext) -> dict[str, int]:
    """6.3 Shares each railroad created this turn before the market: new stock
    issued (4.3) and PC merger bonuses (4.1). They are supply like any sale."""
    created: dict[str, int] = {}
    # The two kinds' events from the turn's index by kind: each railroad's
    # total is the same whichever order they are added in.
    for kind, field in (("stock_issued", "shares"), ("pc_merged", "bonus_shares")):
        for event in ctx.events_of(kind):
            shares = getattr(event, field, 0)
            if shares and event.railroad is not None:
                created[event.railroad] = created.get(event.railroad, 0) + int(shares)
    return created


def physical_public_shares(state: GameState, code: str) -> int:
    """6.2 Certificates of `code` in the public's hands: issued less every
    player's holding. Shares lent to short sellers are not among them, so they
    can be lent only once."""
    return state.railroads[code].issued - sum(t.holdings.get(code, 0) for t in state.tycoons)


def stock_market(ctx: TurnContext) -> None:
    """6.1-6.4 Order checking, simultaneous trading, the price movement, forced
    covers of short sales, and the market summary of every railroad.

    Every trade of the turn is made at one price per railroad, the lower of the
    quoted (start) and the end price [designed]: a buyer never pays more than
    the quote his order was checked at, a seller never gets less than the
    quote less the largest fall of one turn, and buyer and seller always trade
    at the same price, so the market creates no money.
    """
    params = market_params(ctx.scenario)
    state = ctx.state

    checked: dict[int, list[CheckedOrder]] = {}
    merged_into = ctx.merged_into()
    for tycoon in state.tycoons:
        pos = tycoon.position
        items = check_stock_orders_detailed(
            state, ctx.scenario, pos, ctx.orders_of(pos, *STOCK_KINDS), tycoon.cash, merged_into
        )
        checked[pos] = items
        for item in items:
            if item.code is not None:
                ctx.reject(pos, item.order, item.code, item.hint, cut_to=item.checked)

    # What each order actually trades: sales and covers in full; short sales
    # limited by the shares the public physically holds, which they borrow;
    # buys by the shares on offer. Shares sold short are the public's own lent
    # shares, so they add no supply beyond the public's physical holding; a
    # cover is settled in cash against the lender and needs no shares on offer.
    created = new_shares_this_turn(ctx)
    filled: dict[int, int] = {}
    markets: dict[str, _Market] = {}
    after: dict[str, dict[int, int]] = {}  # holdings after trading, for cornering
    # Each railroad's checked orders by kind, in position order and then as written.
    fills: dict[str, dict[str, list[_Fill]]] = {}
    for pos in sorted(checked):
        for item in checked[pos]:
            order = item.checked
            if order is not None:
                kinds = fills.get(order.railroad)
                if kinds is None:
                    kinds = fills[order.railroad] = {
                        "buy": [],
                        "sell": [],
                        "short": [],
                        "cover": [],
                    }
                kinds[order.kind].append(_Fill(pos, item, order.shares))
    # Each tycoon's holdings before trading, read once for every railroad.
    books = [(t.position, t.holdings) for t in state.tycoons]
    for code in sorted(state.railroads):
        # `physical_public_shares`, from the holdings read above.
        public = state.railroads[code].issued - sum([held.get(code, 0) for _, held in books])
        by_kind = fills.get(code) or {"buy": [], "sell": [], "short": [], "cover": []}
        shorts = _pro_rata(by_kind["short"], public, ctx, f"stock-short-fill:{code}")
        sold = sum(f.shares for f in by_kind["sell"])
        covers = sum(f.shares for f in by_kind["cover"])
        available = public + sold
        buys = _pro_rata(by_kind["buy"], available, ctx, f"stock-buy-fill:{code}")
        for kind, got, offered in (("short", shorts, public), ("buy", buys, available)):
            for fill, shares in zip(by_kind[kind], got, strict=True):
                filled[id(fill.item)] = shares
                if shares < fill.shares:
                    cut: StockOrder | None = None
                    if shares and kind == "buy":
                        cut = _buy_stock({"railroad": code, "shares": shares})
                    elif shares:
                        cut = _short_sell({"railroad": code, "shares": shares})
                    ctx.reject(
                        fill.position,
                        fill.item.order,
                        reasons.MARKET_SHORTAGE,
                        f"Only {offered} {code} shares were on offer; every order was cut "
                        "in proportion.",
                        cut_to=cut,
                    )
        holdings = {position: held.get(code, 0) for position, held in books}
        for fill, shares in zip(by_kind["buy"], buys, strict=True):
            holdings[fill.position] += shares
        for fill in by_kind["sell"]:
            holdings[fill.position] -= fill.shares
        after[code] = holdings
        markets[code] = _Market(
            start=state.railroads[code].price,
            bought=sum(buys) + covers,
            sold=sold + sum(shorts),
            new_shares=created.get(code, 0),
        )

    _move_prices(ctx, params, markets, after)

    # Settlement in each tycoon's own sequence: credits are never below the
    # checked amounts and debits never above, so cash never falls below what
    # order checking left.
    for pos in sorted(checked):
        for item in checked[pos]:
            order = item.checked
            if order is None:
                continue
            shares = filled.get(id(item), order.shares)
            if shares:
                _settle(ctx, pos, order, shares, markets[order.railroad], params)

    force_covers(ctx, params)


def _settle(
    ctx: TurnContext,
    pos: int,
    order: StockOrder,
    shares: int,
    market: _Market,
    params: MarketParams,
) -> None:
    """Carry out one checked order for `shares` at the turn's trade price."""
    tycoon = ctx.state.tycoon(pos)
    code = order.railroad
    price = market.trade_price
    account = tycoon_account(pos)
    kind = order.kind  # tested before the class, as in order checking
    if kind == "sell" and isinstance(order, SellStock):
        amount = shares * price
        ctx.transfer(BANK, account, amount, "stock sale", ref=code)
        _add(tycoon.holdings, code, -shares)
    elif kind == "buy" and isinstance(order, BuyStock):
        amount = shares * price
        ctx.transfer(account, BANK, amount, "stock purchase", ref=code)
        _add(tycoon.holdings, code, shares)
    elif kind == "short" and isinstance(order, ShortSell):
        # The margin is a deposit fixed at the quote, exactly as checked; the
        # sale itself brings the trade price, kept by the broker as collateral.
        amount = _margin(market.start, shares, params)
        ctx.transfer(account, BANK, amount, "short sale margin", ref=code)
        _add(tycoon.shorts, code, shares)
        _add(tycoon.short_proceeds, code, shares * price + amount)
    else:
        amount = _cover(ctx, pos, code, shares, price)
    ctx.emit(
        _tycoon_trade(
            {
                "position": pos,
                "railroad": code,
                "action": kind,
                "shares": shares,
                "price": price,
                "amount": amount,
            }
        )
    )


def _cover(ctx: TurnContext, pos: int, code: str, shares: int, price: int) -> int:
    """6.2 Buy back `shares` owed at `price`, releasing their share of the
    collateral; returns the net cash the tycoon received (negative: paid). A
    shortfall beyond his cash is added to his bank loan [designed: the broker
    lends it, as with any margin account]."""
    tycoon = ctx.state.tycoon(pos)
    owed = tycoon.shorts[code]
    held = tycoon.short_proceeds.get(code, 0)
    net = _cover_net(held, owed, shares, price)
    release = held * shares // owed
    _add(tycoon.shorts, code, -shares)
    _add(tycoon.short_proceeds, code, -release)
    if code not in tycoon.shorts:
        tycoon.short_proceeds.pop(code, None)
    account = tycoon_account(pos)
    if net > 0:
        ctx.transfer(BANK, account, net, "short sale covered", ref=code)
    elif net < 0:
        paid = min(-net, tycoon.cash)
        ctx.transfer(account, BANK, paid, "short sale covered", ref=code)
        tycoon.loan += -net - paid
    return net


def _add(book: dict[str, int], code: str, delta: int) -> None:
    value = book.get(code, 0) + delta
    if value:
        book[code] = value
    else:
        book.pop(code, None)


def _move_prices(
    ctx: TurnContext,
    params: MarketParams,
    markets: dict[str, _Market],
    after: dict[str, dict[int, int]],
) -> None:
    """6.3 The one price movement of the turn, after all trading; sets each
    railroad's end price and the turn's trade price."""
    state = ctx.state
    noise_draw = ctx.rng("stock-prices")
    spread = params.prices.noise_percent
    for code in sorted(state.railroads):
        rr = state.railroads[code]
        market = markets[code]
        noise = noise_draw.randint(-spread, spread)
        net = market.bought - market.sold - market.new_shares
        directors = sum(after[code].get(pos, 0) for pos in set(rr.directors))
        cornered = rr.issued > 0 and directors * 100 > rr.issued * params.cornered_percent
        percent = price_change_percent(params, state.climate, rr, state.turn, net, cornered, noise)
        mid = end_price(market.start, demand_clamped(params, net, rr.issued), params)
        rr.price = end_price(market.start, percent, params)
        market.trade_price = min(market.start, rr.price)
        ctx.emit(
            _stock_trade_summary(
                {
                    "railroad": code,
                    "start_price": market.start,
                    "high": max(market.start, mid, rr.price),
                    "low": min(market.start, mid, rr.price),
                    "end_price": rr.price,
                    "trade_price": market.trade_price,
                    "bought": market.bought,
                    "sold": market.sold,
                }
            )
        )


def demand_clamped(params: MarketParams, net: int, issued: int) -> int:
    """The players' pressure alone, inside the per-turn bounds (the turn's
    intermediate price, for the report's high and low)."""
    prices = params.prices
    change = demand_percent(params, net, issued)
    return max(-prices.max_fall_percent, min(prices.max_rise_percent, change))


def force_covers(ctx: TurnContext, params: MarketParams) -> None:
    """6.2 Forced cover [designed]: a short sale whose buying back at the current
    price would cost more than `maintenance_percent` of its collateral is
    covered now, at the current price; any loss beyond the collateral is paid
    from cash, then added to the bank loan."""
    state = ctx.state
    for tycoon in state.tycoons:
        for code in sorted(tycoon.shorts):
            rr = state.railroads.get(code)
            if rr is None:
                continue
            owed = tycoon.shorts[code]
            held = tycoon.short_proceeds.get(code, 0)
            if owed * rr.price * 100 > held * params.shorts.maintenance_percent:
                _force_cover(ctx, tycoon.position, code)


def cover_all_shorts(ctx: TurnContext) -> None:
    """1.3 At the end of the game every open short sale is covered at the final price."""
    for tycoon in ctx.state.tycoons:
        for code in sorted(tycoon.shorts):
            if code in ctx.state.railroads:
                _force_cover(ctx, tycoon.position, code)


def _force_cover(ctx: TurnContext, pos: int, code: str) -> None:
    """Cover all of `pos`'s short of `code` at the current price, settled in
    cash with the lender (6.2) [designed]."""
    price = ctx.state.railroads[code].price
    shares = ctx.state.tycoon(pos).shorts[code]
    amount = _cover(ctx, pos, code, shares, price)
    ctx.emit(
        _tycoon_trade(
            {
                "position": pos,
                "railroad": code,
                "action": "cover",
                "shares": shares,
                "price": price,
                "amount": amount,
                "forced": True,
            }
        )
    )
