"""The economic climate (rule 5)."""

from turnproc.cr.context import TurnContext


def change_climate(ctx: TurnContext) -> None:
    """5 The climate changes during the stock market phase."""
