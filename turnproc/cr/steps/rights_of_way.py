"""Rights-of-way: bids, political influence, building, land (rules 4.6, 4.7, 4.9, 7)."""

from turnproc.cr.context import TurnContext


def row_auction(ctx: TurnContext) -> None:
    """4.7 Railroads bid for RoWs; political influence settles contests."""


def build_rows(ctx: TurnContext) -> None:
    """4.6 Building track on owned RoWs; land grants."""


def land_sales(ctx: TurnContext) -> None:
    """7 Selling land-grant land."""
