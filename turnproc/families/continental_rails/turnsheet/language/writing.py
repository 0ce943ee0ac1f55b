"""10 Orders written back in the canonical form the parser reads, so receipts
and pre-filled sheets echo exactly what will be carried out."""

from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.language.grammar import _CANONICAL


def format_order(order: o.Order, *, with_railroad: bool = True) -> str:
    """The canonical turnsheet line for `order`; railroad actions carry a
    `CODE:` prefix unless `with_railroad` is false (inside its own section)."""
    words = _CANONICAL[order.kind]
    match order:
        case o.SetCharacterName(name=name):
            return f"NAME {name}"
        case o.Borrow(amount=a) | o.RepayLoan(amount=a) | o.ProdigalSpending(amount=a):
            return f"{words} {a}"
        case o.BidForPC(pc=pc, amount=a):
            return f"BID {pc} {a}"
        case o.OfferPC(pc=pc, price=price):
            return f"OFFER {pc} {price}"
        case o.IncorporatePC(pc=pc):
            return f"INCORPORATE {pc}"
        case o.MergePC(pc=pc, railroad=rr):
            return f"MERGE {pc} INTO {rr}"
        case o.BuyTreasuryStock(railroad=rr, shares=n):
            return f"TREASURY {n} {rr}"
        case o.LendToRailroad(railroad=rr, amount=a) | o.CollectFromRailroad(railroad=rr, amount=a):
            return f"{words} {rr} {a}"
        case o.SpyOnPlayer(target=p):
            return f"SPY PLAYER {p}"
        case o.SpyOnRailroad(railroad=rr):
            return f"SPY RAILROAD {rr}"
        case o.RequestPresidency(railroad=rr):
            return f"PRESIDENT {rr}"
        case o.BuyStock() | o.SellStock() | o.ShortSell() | o.CoverShort():
            return f"{words} {order.shares} {order.railroad}"
    text = _railroad_words(order)
    railroad = getattr(order, "railroad", "")
    return f"{railroad}: {text}" if with_railroad else text


def _railroad_words(order: o.Order) -> str:
    words = _CANONICAL[order.kind]
    match order:
        case (
            o.SetDividend(per_share=n)
            | o.IssueStock(shares=n)
            | o.SellLand(acres=n)
            | o.UpgradeLocomotive(locomotive=n)
        ):
            return f"{words} {n}"
        case o.BidForRoW(row=row, amount=a):
            return f"{words} {row} {a}"
        case o.BuildRoW(row=code) | o.DoubleTrack(line=code) | o.MergeRailroads(other=code):
            return f"{words} {code}"
        case o.BuyTechnology(technology=t, town=town):
            return f"{words} {t}" + (f" {town}" if town else "")
        case o.DeclareRateWar(rival=rival, percent=p):
            return f"{words} {rival} {p}%"
    amount = getattr(order, "amount", 0)
    return f"{words} {amount}"
