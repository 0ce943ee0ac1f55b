"""Private companies: the auction, offers for sale and releases (rules 2.3, 10.1)."""

from turnproc.cr.context import TurnContext


def pc_auction(ctx: TurnContext) -> None:
    """10.1 Bids for PCs available or offered for sale."""


def pc_offers(ctx: TurnContext) -> None:
    """10.1 Owners offer PCs for sale and set asking prices."""


def release_pcs(ctx: TurnContext) -> None:
    """2.3 New PCs become available for next turn."""
