"""6.5 Stock splits."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.steps.stockmarket.events import StockSplit
from turnproc.families.continental_rails.engine.steps.stockmarket.params import market_params


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
