"""How every amount of game money is written, in reports, receipts, mails and
the engine's reasons (pure): whole dollars with thousands separators."""

import re

_DOLLARS = re.compile(r"\$(\d{4,})")


def money(amount: int) -> str:
    """Whole game dollars with thousands separators: -$1,234."""
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,}"


def plain_amounts(text: str) -> str:
    """Thousands separators in the dollar amounts of a text written without
    them (a reason stored by an earlier version): $12345 -> $12,345."""
    return _DOLLARS.sub(lambda m: money(int(m.group(1))), text)
