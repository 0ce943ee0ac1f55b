"""Railroad operations: revenues, expenses, events, insolvency, dividends (rules 4.10-4.12, 8, 11.2)."""

from turnproc.cr.context import TurnContext


def operations(ctx: TurnContext) -> None:
    """4.10-4.12 Operations, random events, interest, insolvency and dividends."""
