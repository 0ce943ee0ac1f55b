"""Personal actions of tycoons (rules 3, 10.1)."""

from turnproc.cr.context import TurnContext


def character_names(ctx: TurnContext) -> None:
    """3.2 Character names chosen this turn."""


def treasury_stock(ctx: TurnContext) -> None:
    """4.2 Presidents buy treasury stock from their railroads."""


def railroad_loans(ctx: TurnContext) -> None:
    """4.5 Loans from presidents to railroads and their repayment."""


def prodigal_spending(ctx: TurnContext) -> None:
    """1.2 Rail Prodigal spending."""


def spying(ctx: TurnContext) -> None:
    """3.1, 9.6 Spying on players and railroads."""
