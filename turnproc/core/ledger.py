"""The money ledger: every dollar that moves is one entry.

Accounts are strings: ``bank`` (the world outside the players and railroads:
the bank, the public buying stock, builders, politicians), ``tycoon:<position>``
and ``railroad:<code>``. The ledger is double-entry by construction: each entry
takes `amount` from `src` and gives it to `dst`.
"""

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

BANK = "bank"


def tycoon_account(position: int) -> str:
    return f"tycoon:{position}"


def railroad_account(code: str) -> str:
    return f"railroad:{code}"


class LedgerEntry(BaseModel):
    """One movement of money: `amount` whole dollars from `src` to `dst`."""

    src: str
    dst: str
    amount: int
    reason: str
    ref: str = ""  # what it concerns: a PC, railroad, route or order, for reports


def net_flows(entries: Iterable[LedgerEntry]) -> dict[str, int]:
    """Net money received by each account over the entries."""
    flows: dict[str, int] = defaultdict(int)
    for entry in entries:
        flows[entry.src] -= entry.amount
        flows[entry.dst] += entry.amount
    return dict(flows)
