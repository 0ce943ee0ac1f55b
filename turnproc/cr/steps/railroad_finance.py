"""Railroad finance: new stock, bonds, short loans (rules 4.3-4.4)."""

from turnproc.cr.context import TurnContext


def railroad_finance(ctx: TurnContext) -> None:
    """4.3-4.4 New stock issues, bonds and short loans."""
