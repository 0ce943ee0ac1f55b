"""The stock market's events (rules 6, 9.5): trades, the turn's summary,
revaluations and splits."""

from typing import ClassVar, Literal

from turnproc.core.models import maker
from turnproc.families.continental_rails.engine.events import Event

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


class StockSplit(Event):
    """6.5 A stock split (Wall Street report)."""

    kind: Literal["stock_split"] = "stock_split"
    railroad: str
    ratio: int
    old_price: int
    new_price: int
    news_order: ClassVar[int] = 160


class StockRevalued(Event):
    """6.3 The public read the railroad's results: its price moved after operations."""

    kind: Literal["stock_revalued"] = "stock_revalued"
    railroad: str
    old_price: int
    new_price: int
    value: int  # what a share is worth (`share_value`)
    news_order: ClassVar[int] = 161


_stock_revalued = maker(StockRevalued)
