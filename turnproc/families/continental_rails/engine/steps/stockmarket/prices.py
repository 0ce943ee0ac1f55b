"""6.3 Prices: how a price moves once in the market, after all trading, and
once after operations (`revaluation`)."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps.railroad_finance import track_miles
from turnproc.families.continental_rails.engine.steps.stockmarket.events import _stock_revalued
from turnproc.families.continental_rails.engine.steps.stockmarket.params import (
    MarketParams,
    market_params,
)
from turnproc.scenario.model import Scenario


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
