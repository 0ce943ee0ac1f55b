"""The stock market (rule 6)."""

from turnproc.cr.context import TurnContext


def stock_market(ctx: TurnContext) -> None:
    """6.1-6.4 Order checking, simultaneous trading, prices, short sales, cornered stocks."""


def splits(ctx: TurnContext) -> None:
    """6.5 Stock splits above the split price."""
