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

The modules: `params` (market.toml), `events`, `checking` (6.1, with the bid
limit, directors and cornering), `prices` (6.3, in the market and after
operations), `market` (the step: 6.1-6.4) and `stock_splits` (6.5).
"""

from turnproc.families.continental_rails.engine.steps.stockmarket.checking import (
    CheckedOrder,
    check_stock_orders,
    check_stock_orders_detailed,
    directors_shares,
    is_cornered,
    is_director_holding,
    lowest_sale_income,
    max_bid,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.events import (
    StockRevalued,
    StockSplit,
    StockTradeSummary,
    TradeAction,
    TycoonTrade,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.market import (
    cover_all_shorts,
    demand_clamped,
    force_covers,
    new_shares_this_turn,
    physical_public_shares,
    stock_market,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.params import (
    MarketParams,
    PriceParams,
    ShortParams,
    market_params,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.prices import (
    book_value,
    covered_dividend,
    demand_percent,
    end_price,
    fundamental_percent,
    price_change_percent,
    revaluation,
    revaluation_percent,
    share_value,
    value_percent,
)
from turnproc.families.continental_rails.engine.steps.stockmarket.stock_splits import (
    split_ratio,
    splits,
)

__all__ = [
    "CheckedOrder",
    "MarketParams",
    "PriceParams",
    "ShortParams",
    "StockRevalued",
    "StockSplit",
    "StockTradeSummary",
    "TradeAction",
    "TycoonTrade",
    "book_value",
    "check_stock_orders",
    "check_stock_orders_detailed",
    "cover_all_shorts",
    "covered_dividend",
    "demand_clamped",
    "demand_percent",
    "directors_shares",
    "end_price",
    "force_covers",
    "fundamental_percent",
    "is_cornered",
    "is_director_holding",
    "lowest_sale_income",
    "market_params",
    "max_bid",
    "new_shares_this_turn",
    "physical_public_shares",
    "price_change_percent",
    "revaluation",
    "revaluation_percent",
    "share_value",
    "split_ratio",
    "splits",
    "stock_market",
    "value_percent",
]
