"""The stock market (rule 6): order checking, simultaneous trading, prices,
short sales, cornered stocks and splits.

The design (docs/rules/06-stock-market.md) in one paragraph: the price moves
once in the market, after all trading, by the public's mood (the climate),
the players' net demand less the new shares the railroad created (dilution is
supply), cornering and seeded noise, within per-turn bounds (market.toml); and
once after operations (`revaluation`), by the yield of the dividend the
railroad earned and toward its value (earnings and book value per share).
Every trade of the turn is made at one price per railroad, the lower of the
quoted (start) and the market's end price.
So order checking (6.1) can use true worst cases: a buy costs at most the
quote, a sale brings at least the quote less the largest fall of one turn.
Buyers are filled from the shares sold and sold short this turn and from the
public's holding; a shortage cuts every buy pro rata. A short sale deposits a
margin and leaves the sale proceeds with the broker (the bank) as collateral
until covered.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, NamedTuple, Self

from pydantic import BaseModel, model_validator

from turnproc.core.ledger import BANK, tycoon_account
from turnproc.core.models import maker
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import (
    STOCK_KINDS,
    BuyStock,
    CoverShort,
    Order,
    SellStock,
    ShortSell,
    StockOrder,
)
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps.railroad_finance import track_miles
from turnproc.scenario.model import Scenario

# --- parameters (turnproc/scenarios/continental-rails/market.toml) ----------


class PriceParams(BaseModel):
    """6.3 How the price moves once a turn, after trading [designed]."""

    mood_percent: list[int]  # by climate level (0 Boom ... 8 Panic): the public's demand
    demand_percent: int  # change for a net player demand of 100% of issued stock
    target_yield_percent: int  # dividend yield at which dividends push neither way
    fundamental_weight_percent: int  # % of the yield gap added to the change
    fundamental_limit_percent: int  # the yield term never exceeds this either way
    earnings_yield_percent: int  # earnings per share are worth 100/this times themselves
    track_value_per_mile: int  # book value of a mile of track
    value_weight_percent: int  # % of the gap between value and price added to the change
    value_limit_percent: int  # the value term never exceeds this either way
    new_railroad_turns: int  # railroads this young are not marked down for no dividend
    cornered_percent: int  # change for a cornered stock (6.4; negative: drifts down)
    noise_percent: int  # seeded noise, uniform in +-this
    max_rise_percent: int  # bounds of one turn's change
    max_fall_percent: int
    min_move_percent: int  # a change at least this big moves the price at least $1
    min_price: int = 1


class ShortParams(BaseModel):
    """6.2 Short sales [designed]."""

    margin_percent: int  # cash deposited per short sale, % of its value at the checked price
    maintenance_percent: int  # covered by force when buying back costs more than this % of
    # the collateral


class MarketParams(BaseModel):
    """market.toml: the stock market (6) and the director threshold elections use (4.14)."""

    bid_limit_percent: int  # 6.1B [original]: of the issued shares you don't own
    director_percent: int  # 4.14 [designed]: a director holds at least this % of issued stock
    cornered_percent: int  # 6.4 [original]: directors owning more than this % corner a stock
    split_above: int  # 6.5 [original]: an end price above this splits
    prices: PriceParams
    shorts: ShortParams

    @model_validator(mode="after")
    def _cornered_blocks_directorships(self) -> Self:
        """6.4 When directors own more than `cornered_percent`, the bid limit (whose
        base excludes directors' shares) must stay below `director_percent`."""
        if self.bid_limit_percent * (100 - self.cornered_percent) > 100 * self.director_percent:
            raise ValueError("bid limit lets a bidder reach a directorship in a cornered stock")
        return self


def market_params(scenario: Scenario) -> MarketParams:
    return scenario.section("market", MarketParams)


# --- events --------------------------------------------------------------------

TradeAction = Literal["buy", "sell", "short", "cover"]


class TycoonTrade(Event):
    """6.1, 6.2 One executed stock trade (private: the tycoon's cash flow).

    `amount` is the cash the tycoon paid (buy, short margin; negative for a
    cover that returned cash) or received (sell) — always the size of the cash
    movement, with `action` telling its direction; `forced` marks a cover the
    market made because the collateral ran short.
    """

    kind: Literal["tycoon_trade"] = "tycoon_trade"
    visibility: Literal["public", "private"] = "private"
    position: int
    railroad: str
    action: TradeAction
    shares: int
    price: int
    amount: int
    forced: bool = False
    news_order: ClassVar[int] = 910


_tycoon_trade = maker(TycoonTrade)


class StockTradeSummary(Event):
    """9.5 The market activity of one railroad this turn (the stock report's left columns)."""

    kind: Literal["stock_trade_summary"] = "stock_trade_summary"
    railroad: str
    start_price: int
    high: int
    low: int
    end_price: int
    trade_price: int  # every trade of the turn was made at this price (6.3)
    bought: int  # shares bought by players (buys and covers)
    sold: int  # shares sold by players (sales and short sales)
    news_order: ClassVar[int] = 800


_stock_trade_summary = maker(StockTradeSummary)
# Stock orders cut in checking or by a shortage on the market, made by their validators.
_buy_stock = maker(BuyStock)
_short_sell = maker(ShortSell)


class StockSplit(Event):
    """6.5 A stock split (Wall Street report)."""

    kind: Literal["stock_split"] = "stock_split"
    railroad: str
    ratio: int
    old_price: int
    new_price: int
    news_order: ClassVar[int] = 160


# --- bid limit, directors, cornering -----------------------------------------


def is_director_holding(params: MarketParams, shares: int, issued: int) -> bool:
    """4.14 A holding big enough for a directorship [designed: director_percent]."""
    return issued > 0 and shares > 0 and shares * 100 >= issued * params.director_percent


def directors_shares(state: GameState, code: str) -> int:
    """Shares held by the railroad's directors (as elected at the last turn's end)."""
    rr = state.railroads[code]
    return sum(state.tycoon(pos).holdings.get(code, 0) for pos in set(rr.directors))


def is_cornered(state: GameState, params: MarketParams, code: str) -> bool:
    """6.4 Directors own more than half (cornered_percent) of the issued stock."""
    rr = state.railroads[code]
    return rr.issued > 0 and directors_shares(state, code) * 100 > rr.issued * (
        params.cornered_percent
    )


def max_bid(state: GameState, position: int, code: str, params: MarketParams) -> int:
    """6.1B The most shares of `code` that `position` may bid for this turn.

    20% [original] of the issued shares the bidder doesn't own — and that the
    railroad's directors don't own either [designed: the base is the float, so
    that when directors own more than 50% (6.4, cornered) no bid can reach 10%
    of the issued stock, the directorship threshold]. Without directors other
    than the bidder this is exactly the rules' "20% of the issued shares you
    don't own".
    """
    rr = state.railroads[code]
    excluded = state.tycoon(position).holdings.get(code, 0)
    for pos in set(rr.directors):
        if pos != position:
            excluded += state.tycoon(pos).holdings.get(code, 0)
    base = max(0, rr.issued - excluded)
    return base * params.bid_limit_percent // 100


# --- 6.1 order checking --------------------------------------------------------


class CheckedOrder(NamedTuple):
    """One stock order after order checking (6.1).

    `checked` is the order as it will trade (None if refused), `cash_after` the
    cash (and credit) left after it, `amount` its checked cash effect (+ credit,
    - debit); `code`/`hint` say why it was cut or refused. A named tuple: every
    position's stock orders are checked every turn.
    """

    order: Order
    checked: StockOrder | None
    cash_after: int
    amount: int = 0
    code: str | None = None
    hint: str = ""


def _cover_net(collateral: int, owed: int, shares: int, price: int) -> int:
    """6.2 Cash to the tycoon when covering `shares` of `owed`: his share of the
    collateral less the cost of buying the shares back (negative: he pays)."""
    return collateral * shares // owed - shares * price


def check_stock_orders_detailed(
    state: GameState,
    scenario: Scenario,
    position: int,
    orders: Sequence[Order],
    cash: int,
    merged_into: Mapping[str, str] | None = None,
) -> list[CheckedOrder]:
    """6.1 Walk a tycoon's stock orders in his own sequence, before any trading.

    Each order is checked against the cash left at that point with its worst
    case: a buy or a cover costs the quoted price, a sale brings the quote less
    the largest fall of one turn, a short sale takes its margin. Sales add
    credit. A buy or short sale that cannot be paid in full is cut to what the
    cash pays for, and every later buy or short sale is aborted unless a later
    sale (or a cover returning cash) adds credit. Sales are limited to the
    shares held before trading, covers to the shares owed; buys and short
    sales, with earlier ones of the same railroad, to the bid limit (6.1B).
    `merged_into` (absorbed -> survivor): the railroads merged away this turn
    (4.13), whose orders are refused saying where they went.
    """
    params = market_params(scenario)
    tycoon = state.tycoon(position)
    sold: dict[str, int] = {}
    bought: dict[str, int] = {}
    shorted: dict[str, int] = {}
    owed = dict(tycoon.shorts)
    collateral = dict(tycoon.short_proceeds)
    covered: set[str] = set()
    aborting = False
    result: list[CheckedOrder] = []

    for order in orders:
        kind = order.kind
        if kind not in STOCK_KINDS:
            continue
        assert isinstance(order, (BuyStock, SellStock, ShortSell, CoverShort))
        code = order.railroad
        rr = state.railroads.get(code)
        # Checked before the state: the receipt's preview checks a sheet that
        # merges a railroad against the turn's start, where it still trades.
        survivor = (merged_into or {}).get(code)
        if survivor is not None:
            result.append(
                CheckedOrder(
                    order,
                    None,
                    cash,
                    code=reasons.MERGED_AWAY,
                    hint=f"{code} merged into {survivor} this turn, before the stock "
                    f"market; this order was not carried out (give it for {survivor} "
                    "next turn).",
                )
            )
            continue
        if rr is None:
            earlier = state.absorbed_by(code)  # merged in an earlier turn
            result.append(
                CheckedOrder(
                    order,
                    None,
                    cash,
                    code=reasons.UNKNOWN_RAILROAD if earlier is None else reasons.MERGED_AWAY,
                    hint=f"{code} is not an active railroad; check the stock report."
                    if earlier is None
                    else f"{code} has merged into {earlier}; this order was not carried out "
                    f"(give it for {earlier}).",
                )
            )
            continue
        price = rr.price
        # The kind is tested before the class: a pydantic model's class is
        # looked up through its attribute hook when `isinstance` fails.
        if kind == "sell" and isinstance(order, SellStock):
            free = tycoon.holdings.get(code, 0) - sold.get(code, 0)
            shares = min(order.shares, max(0, free))
            if shares == 0:
                result.append(
                    CheckedOrder(
                        order,
                        None,
                        cash,
                        code=reasons.SHARES_NOT_HELD,
                        hint=f"You hold no {code} shares to sell (shares bought this turn "
                        "cannot be sold until next turn).",
                    )
                )
                continue
            sold[code] = sold.get(code, 0) + shares
            amount = lowest_sale_income(price, shares, params)
            cash += amount
            aborting = aborting and amount == 0
            checked: StockOrder = (
                order if shares == order.shares else SellStock(railroad=code, shares=shares)
            )
            result.append(
                CheckedOrder(
                    order,
                    checked,
                    cash,
                    amount,
                    None if checked is order else reasons.SHARES_NOT_HELD,
                    "" if checked is order else f"You hold only {free} {code} shares to sell.",
                )
            )
            continue
        if kind == "cover" and isinstance(order, CoverShort):
            if code in shorted:
                result.append(
                    CheckedOrder(
                        order,
                        None,
                        cash,
                        code=reasons.NOT_ALLOWED_NOW,
                        hint=f"You cannot both sell {code} short and cover it in one turn.",
                    )
                )
                continue
            have = owed.get(code, 0)
            shares = min(order.shares, have)
            if shares == 0:
                result.append(
                    CheckedOrder(
                        order,
                        None,
                        cash,
                        code=reasons.NO_SHORT_POSITION,
                        hint=f"You have no open short sale of {code} to cover.",
                    )
                )
                continue
            held = collateral.get(code, 0)
            net = _cover_net(held, have, shares, price)
            reason: str | None = None
            hint = ""
            if shares < order.shares:
                reason = reasons.NO_SHORT_POSITION
                hint = f"You owe only {have} {code} shares."
            if net < 0:
                if aborting:
                    result.append(
                        CheckedOrder(
                            order,
                            None,
                            cash,
                            code=reasons.ABORTED_AFTER_CUT,
                            hint="An earlier order was cut for lack of cash; sell stock before "
                            "this order to pay for it.",
                        )
                    )
                    continue
                affordable = _affordable_cover(held, have, shares, price, cash)
                if affordable < shares:
                    aborting = True
                    shares = affordable
                    reason = reasons.CUT_TO_AFFORDABLE if shares else reasons.INSUFFICIENT_CASH
                    hint = f"Covering costs more than your {money(cash)} in cash and credit."
                    if shares == 0:
                        result.append(CheckedOrder(order, None, cash, code=reason, hint=hint))
                        continue
                net = _cover_net(held, have, shares, price)
            else:
                aborting = False
            covered.add(code)
            owed[code] = have - shares
            collateral[code] = held - held * shares // have
            cash += net
            checked = order if shares == order.shares else CoverShort(railroad=code, shares=shares)
            result.append(CheckedOrder(order, checked, cash, net, reason, hint))
            continue

        # BuyStock and ShortSell: debits limited by the bid limit and the cash.
        is_short = kind == "short" and isinstance(order, ShortSell)
        if is_short and code in covered:
            result.append(
                CheckedOrder(
                    order,
                    None,
                    cash,
                    code=reasons.NOT_ALLOWED_NOW,
                    hint=f"You cannot both cover {code} and sell it short in one turn.",
                )
            )
            continue
        limit = max_bid(state, position, code, params) - bought.get(code, 0) - shorted.get(code, 0)
        shares = min(order.shares, max(0, limit))
        reason = None
        hint = ""
        if shares < order.shares:
            reason = reasons.BID_LIMIT
            hint = (
                f"You may bid for at most {max(0, limit)} more {code} shares this turn "
                f"({params.bid_limit_percent}% of the issued shares held by neither you nor "
                "its directors)."
            )
        if shares and aborting:
            result.append(
                CheckedOrder(
                    order,
                    None,
                    cash,
                    code=reasons.ABORTED_AFTER_CUT,
                    hint="An earlier order was cut for lack of cash; sell stock before this "
                    "order to pay for it.",
                )
            )
            continue
        if shares and _debit(price, shares, is_short, params) > cash:
            shares = min(shares, _affordable(cash, price, is_short, params))
            aborting = True
            reason = reasons.CUT_TO_AFFORDABLE if shares else reasons.INSUFFICIENT_CASH
            hint = f"You had {money(cash)} in cash and credit left for this order."
        if shares == 0:
            result.append(CheckedOrder(order, None, cash, code=reason, hint=hint))
            continue
        amount = _debit(price, shares, is_short, params)
        if is_short:
            shorted[code] = shorted.get(code, 0) + shares
            checked = order if shares == order.shares else ShortSell(railroad=code, shares=shares)
        else:
            bought[code] = bought.get(code, 0) + shares
            checked = (
                order
                if shares == order.shares
                else _buy_stock({"railroad": code, "shares": shares})
            )
        cash -= amount
        result.append(CheckedOrder(order, checked, cash, -amount, reason, hint))
    return result


def check_stock_orders(
    state: GameState,
    scenario: Scenario,
    position: int,
    orders: Sequence[Order],
    cash: int,
) -> list[tuple[Order, Order | None, int]]:
    """6.1 Order checking as the turnsheet receipt shows it: for each stock order
    (in the tycoon's sequence) the order, the order as checked (None if refused)
    and the cash and credit left after it."""
    return [
        (c.order, c.checked, c.cash_after)
        for c in check_stock_orders_detailed(state, scenario, position, orders, cash)
    ]


def lowest_sale_income(price: int, shares: int, params: MarketParams) -> int:
    """6.1 The least a sale can bring: the quoted price less the largest fall of
    one turn (the rules' example credits 20 NYC quoted at $20 with $200)."""
    return shares * price * (100 - params.prices.max_fall_percent) // 100


def _margin(price: int, shares: int, params: MarketParams) -> int:
    """6.2 Cash deposited for a short sale [designed: margin_percent of its value]."""
    return shares * price * params.shorts.margin_percent // 100


def _debit(price: int, shares: int, short: bool, params: MarketParams) -> int:
    """Cash a buy (its cost) or a short sale (its margin) takes."""
    return _margin(price, shares, params) if short else shares * price


def _affordable(cash: int, price: int, short: bool, params: MarketParams) -> int:
    """The most shares `cash` pays for: a buy at `price`, or a short sale's margin."""
    per_hundred = price * (params.shorts.margin_percent if short else 100)
    return cash * 100 // per_hundred if per_hundred > 0 else cash


def _affordable_cover(collateral: int, owed: int, shares: int, price: int, cash: int) -> int:
    """The most shares (up to `shares`) a tycoon can cover with `cash`: the net
    cost of covering grows with the number of shares, so bisect."""
    low, high = 0, shares
    while low < high:
        mid = (low + high + 1) // 2
        if -_cover_net(collateral, owed, mid, price) <= cash:
            low = mid
        else:
            high = mid - 1
    return low


# --- 6.3 prices ------------------------------------------------------------------


def end_price(price: int, percent: int, params: MarketParams) -> int:
    """6.3 The price after a change of `percent`, rounded to the nearest dollar
    [designed]; a change of at least min_move_percent moves it at least $1 so
    cheap stocks are not stuck; never below min_price."""
    prices = params.prices
    new = (price * (100 + percent) + 50) // 100
    if new == price and abs(percent) >= prices.min_move_percent:
        new = price + (1 if percent > 0 else -1)
    return max(prices.min_price, new)


def _trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero, so ups and downs are symmetric."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def demand_percent(params: MarketParams, net: int, issued: int) -> int:
    """6.3 The players' pressure: net shares bought as a share of the issued stock."""
    if issued <= 0:
        return 0
    return _trunc_div(net * params.prices.demand_percent, issued)


def covered_dividend(rr: Railroad) -> int:
    """6.3 The part of the dividend per share the last operations earned: a
    dividend paid out of capital (cash raised or saved, not earned) is seen for
    what it is and does not count as yield."""
    return max(0, min(rr.dividend, rr.earnings))


def fundamental_percent(params: MarketParams, rr: Railroad, turn: int) -> int:
    """6.3 Dividends: a yield (of the earned dividend) above the target pushes
    the price up, below it down; a young railroad is not marked down for
    paying nothing yet."""
    prices = params.prices
    if rr.price <= 0:
        return 0
    gap = covered_dividend(rr) * 100 // rr.price - prices.target_yield_percent
    change = _trunc_div(gap * prices.fundamental_weight_percent, 100)
    change = max(-prices.fundamental_limit_percent, min(prices.fundamental_limit_percent, change))
    if change < 0 and turn - rr.founded_turn <= prices.new_railroad_turns:
        return 0
    return change


def book_value(scenario: Scenario, rr: Railroad) -> int:
    """6.3 Net assets per share: cash less debts plus the track at its book value."""
    params = market_params(scenario).prices
    net = rr.cash - rr.bonds - rr.loan - rr.owed_to_president
    net += track_miles(scenario, rr) * params.track_value_per_mile
    return max(0, net) // max(1, rr.issued)


def share_value(scenario: Scenario, rr: Railroad) -> int:
    """6.3 What a share is worth to the public: its book value, or its earnings
    capitalised at `earnings_yield_percent` if more."""
    params = market_params(scenario).prices
    earned = max(0, rr.earnings) * 100 // params.earnings_yield_percent
    return max(book_value(scenario, rr), earned)


def value_percent(params: MarketParams, rr: Railroad, turn: int, value: int) -> int:
    """6.3 Earnings and book value: the price moves a share of the way toward
    the share's value (`share_value`). A young railroad is not marked down,
    and rises to its full value at once."""
    prices = params.prices
    if rr.price <= 0:
        return 0
    if turn - rr.founded_turn <= prices.new_railroad_turns:
        return max(0, _trunc_div((value - rr.price) * 100, rr.price))
    change = _trunc_div((value - rr.price) * prices.value_weight_percent, rr.price)
    return max(-prices.value_limit_percent, min(prices.value_limit_percent, change))


def price_change_percent(
    params: MarketParams,
    climate: int,
    rr: Railroad,
    turn: int,
    net_demand: int,
    cornered: bool,
    noise: int,
) -> int:
    """6.3 One turn's market move in percent, inside the per-turn bounds: the
    public's mood, the players' net demand (counting the new shares the
    railroad put on the market this turn, issues and PC merger bonuses, as
    supply), cornering and noise. What the railroad earned and paid moves the
    price after operations (`revaluation`), when no one can trade on it."""
    prices = params.prices
    mood = prices.mood_percent[min(climate, len(prices.mood_percent) - 1)]
    total = (
        mood
        + demand_percent(params, net_demand, rr.issued)
        + (prices.cornered_percent if cornered else 0)
        + noise
    )
    return max(-prices.max_fall_percent, min(prices.max_rise_percent, total))


def revaluation_percent(params: MarketParams, rr: Railroad, turn: int, value: int) -> int:
    """6.3 The turn's report moves the price: the earned dividend's yield and
    the share's value (`share_value`), inside the per-turn bounds — except a
    young railroad's rise to its value, which no trade can take in between."""
    prices = params.prices
    total = fundamental_percent(params, rr, turn) + value_percent(params, rr, turn, value)
    if turn - rr.founded_turn <= prices.new_railroad_turns:
        return max(-prices.max_fall_percent, total)
    return max(-prices.max_fall_percent, min(prices.max_rise_percent, total))


# --- 6.1-6.4 the step ------------------------------------------------------------


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


# --- 6.3 the report moves prices ----------------------------------------------------


class StockRevalued(Event):
    """6.3 The public read the railroad's results: its price moved after operations."""

    kind: Literal["stock_revalued"] = "stock_revalued"
    railroad: str
    old_price: int
    new_price: int
    value: int  # what a share is worth (`share_value`)
    news_order: ClassVar[int] = 161


_stock_revalued = maker(StockRevalued)


def revaluation(ctx: TurnContext) -> None:
    """6.3 After operations the public reads each railroad's results and its
    price moves by the yield of the dividend it earned and toward the share's
    value (earnings, book value) [designed, issue 12: moved into the market
    step, these were known before trading and every buyer, paying the quote,
    took a predictable rise]. No one trades at this price move; it counts for
    loan recalls, splits, net worth and next turn's quote."""
    params = market_params(ctx.scenario)
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        value = share_value(ctx.scenario, rr)
        percent = revaluation_percent(params, rr, ctx.turn, value)
        old = rr.price
        rr.price = end_price(old, percent, params)
        if rr.price != old:
            ctx.emit(
                _stock_revalued(
                    {"railroad": code, "old_price": old, "new_price": rr.price, "value": value}
                )
            )


# --- 6.5 splits -------------------------------------------------------------------


def split_ratio(price: int, split_above: int) -> int:
    """6.5 The smallest integer ratio bringing the price to the split price or below."""
    ratio = 2
    while price // ratio > split_above:
        ratio += 1
    return ratio


def splits(ctx: TurnContext) -> None:
    """6.5 Splits: an end price above $100 splits 2:1, 3:1 ... (the smallest ratio
    bringing it to $100 or less); holdings, shares owed, issued and authorized
    stock are multiplied by the ratio, the price divided (rounded down)
    [original]. The turn's dividend and earnings per share are restated per
    new share (divided by the ratio, rounded toward zero) [designed: next
    turn's price reads the yield of the shares that now exist, not of the old
    ones]."""
    params = market_params(ctx.scenario)
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        if rr.price <= params.split_above:
            continue
        ratio = split_ratio(rr.price, params.split_above)
        old = rr.price
        rr.price = old // ratio
        rr.dividend //= ratio
        rr.earnings = -(-rr.earnings // ratio) if rr.earnings < 0 else rr.earnings // ratio
        rr.issued *= ratio
        rr.authorized *= ratio
        for tycoon in ctx.state.tycoons:
            if code in tycoon.holdings:
                tycoon.holdings[code] *= ratio
            if code in tycoon.shorts:
                tycoon.shorts[code] *= ratio
        ctx.emit(StockSplit(railroad=code, ratio=ratio, old_price=old, new_price=rr.price))
