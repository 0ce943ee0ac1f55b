"""Tycoons' bank finance: loans, credit, income, recalls, bankruptcy (rules 3.4-3.6, 11.1)."""

from turnproc.cr.context import TurnContext


def bank_loans(ctx: TurnContext) -> None:
    """3.4 Borrowing and repaying bank loans within the credit limit."""


def tycoon_income(ctx: TurnContext) -> None:
    """3.4 PC income, interest on cash, interest charged on loans."""


def bank_failures(ctx: TurnContext) -> None:
    """11.1 Bank failures below a Normal climate."""


def loan_recalls(ctx: TurnContext) -> None:
    """3.5 Loan recalls and bankruptcy."""
