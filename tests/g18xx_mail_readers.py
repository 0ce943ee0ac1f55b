"""Players who know an 18xx game only from the mails they receive: each picks
his order among the legal moves a mail lists ("Your legal moves now:"), never
asking the engine. Shared by the end-to-end tests that play whole games so.

A reader's plan, in order of preference: in the privates' sale the first
private offered; in a stock round, a share of a company he presides until it
floats, else a share offered from the initial offering, else a par of his
own company while he has none, else PASS; in an operating round a tile lay,
a station, the run, the payout, a train from the bank, DONE, and BANKRUPT
when nothing else is left. A seeded chooser breaks ties among the lays and
the shares, so the games differ from seat to seat but replay the same.
"""

import random
import re
from dataclasses import dataclass, field

MOVES_HEADING = "Your legal moves now:"
_SHEET = re.compile(r"^TURNSHEET game: (\S+) turn: (\d+) player: (\d+) secret: _+$", re.M)
_ROUND = re.compile(r"^(Private company \w+|Stock round \d+|Operating round \d+)", re.M)
_ORDER_END = re.compile(r" \(|  \[")


@dataclass
class Listing:
    """What a mail tells its reader: the move number of his blank sheet, the
    round, and the legal moves by section."""

    move: int
    round: str
    sections: list[tuple[str, list[str]]] = field(default_factory=list)

    def orders(self) -> list[str]:
        return [order for _, orders in self.sections for order in orders]


def listing(body: str, seat: int) -> Listing | None:
    """The legal moves a mail lists for `seat`, or None (no move for him)."""
    if MOVES_HEADING not in body:
        return None
    sheet = _SHEET.search(body)
    if sheet is None or int(sheet.group(3)) != seat:
        return None
    found = _ROUND.search(body)
    out = Listing(int(sheet.group(2)), found.group(1) if found else "")
    part = body.split(MOVES_HEADING, 1)[1].split("TURNSHEET", 1)[0]
    for line in part.splitlines():
        if not line.strip():
            continue
        if line.startswith("  ") and out.sections:
            out.sections[-1][1].append(_ORDER_END.split(line.strip(), maxsplit=1)[0])
        elif not line.startswith(" "):
            out.sections.append((line.strip(), []))
    return out


def choose(moves: Listing, seat: int, rng: random.Random, presides: set[str]) -> str:
    """The reader's order among the listed ones (see the module docstring)."""
    orders = moves.orders()
    assert orders, f"no legal move listed for player {seat}"

    def first(prefix: str, pool: list[str] | None = None) -> str | None:
        found = [o for o in (orders if pool is None else pool) if o.startswith(prefix)]
        return found[0] if found else None

    if moves.round.startswith("Private"):
        return first("BID") or orders[0]
    if orders[0].startswith("DISCARD"):
        return orders[0]
    if moves.round.startswith("Stock"):
        buys = [o for o in orders if o.startswith("BUY ") and o.endswith(" IPO")]
        own = [o for o in buys if o.split()[1] in presides]
        if own:
            return own[0]
        pars = [o for o in orders if o.startswith("PAR ")]
        if pars and not presides:
            choice = rng.choice(pars)
            presides.add(choice.split()[1])
            return choice
        if buys and rng.random() < 0.7:
            return rng.choice(buys)
        return "PASS" if "PASS" in orders else orders[0]
    lays = [o for o in orders if o.startswith("LAY ")]
    if lays:
        return rng.choice(lays)
    for prefix in ("TOKEN", "RUN BEST", "PAYOUT"):
        found = first(prefix)
        if found:
            return found
    bank = [o for o in orders if o.startswith("BUY TRAIN") and " FROM " not in o]
    if bank:
        return bank[0]
    return first("DONE") or first("BANKRUPT") or first("PASS") or orders[0]


def illegal_order(moves: Listing) -> str:
    """An order the mail did not list, as a player learning the game writes
    one: a price off by a dollar, a hex that is not on the map."""
    orders = moves.orders()
    bid = next((o for o in orders if o.startswith("BID ")), None)
    if bid is not None:
        name, price = bid.split()[1:3]
        return f"BID {name} {int(price) + 1}" if moves.round.endswith("draft") else f"BID {name} 1"
    if moves.round.startswith("Stock"):
        return "PAR XYZ 71"
    return "LAY 9 Z99 0"
