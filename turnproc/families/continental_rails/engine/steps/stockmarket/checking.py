"""6.1 Order checking, with the bid limit, directors and cornering (4.14, 6.4)
the market shares."""

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from turnproc.core.models import maker
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.orders import (
    STOCK_KINDS,
    BuyStock,
    CoverShort,
    Order,
    SellStock,
    ShortSell,
    StockOrder,
)
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.stockmarket.params import (
    MarketParams,
    market_params,
)
from turnproc.scenario.model import Scenario

# Stock orders cut in checking or by a shortage on the market, made by their validators.
_buy_stock = maker(BuyStock)
_short_sell = maker(ShortSell)


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


# Why a buy, short sale or cover is aborted after an earlier one was cut (6.1).
_ABORTED_HINT = (
    "An earlier order was cut for lack of cash; sell stock before this order to pay for it."
)


def _refused(order: Order, cash: int, code: str, hint: str) -> CheckedOrder:
    """6.1 An order refused in checking: nothing of it trades, the cash is unchanged."""
    return CheckedOrder(order, None, cash, code=code, hint=hint)


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
                _refused(
                    order,
                    cash,
                    reasons.MERGED_AWAY,
                    f"{code} merged into {survivor} this turn, before the stock "
                    f"market; this order was not carried out (give it for {survivor} "
                    "next turn).",
                )
            )
            continue
        if rr is None:
            earlier = state.absorbed_by(code)  # merged in an earlier turn
            result.append(
                _refused(
                    order,
                    cash,
                    reasons.UNKNOWN_RAILROAD if earlier is None else reasons.MERGED_AWAY,
                    f"{code} is not an active railroad; check the stock report."
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
                    _refused(
                        order,
                        cash,
                        reasons.SHARES_NOT_HELD,
                        f"You hold no {code} shares to sell (shares bought this turn "
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
                    _refused(
                        order,
                        cash,
                        reasons.NOT_ALLOWED_NOW,
                        f"You cannot both sell {code} short and cover it in one turn.",
                    )
                )
                continue
            have = owed.get(code, 0)
            shares = min(order.shares, have)
            if shares == 0:
                result.append(
                    _refused(
                        order,
                        cash,
                        reasons.NO_SHORT_POSITION,
                        f"You have no open short sale of {code} to cover.",
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
                    result.append(_refused(order, cash, reasons.ABORTED_AFTER_CUT, _ABORTED_HINT))
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
                _refused(
                    order,
                    cash,
                    reasons.NOT_ALLOWED_NOW,
                    f"You cannot both cover {code} and sell it short in one turn.",
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
            result.append(_refused(order, cash, reasons.ABORTED_AFTER_CUT, _ABORTED_HINT))
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
