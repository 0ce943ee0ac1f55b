"""The SCL/ICG merger: price, the presidents' exchange, pairs and odd
shares, tokens and trains (5.4)."""

from dataclasses import dataclass

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle, Merger
from turnproc.families.g18xx.titles.dixie18.refusals import Refused

SHARE = 10


def merger_for(title: DixieTitle, train: str) -> Merger:
    """5.4: the first 4D may form the SCL, the first 5D the ICG."""
    for merger in title.mergers:
        if merger.trigger == train:
            return merger
    raise Refused("NO_MERGER", "5.4", f"the first {train} forms no system")


def check_may_merge(
    operated: tuple[bool, bool], consents: tuple[bool, bool], other_formed: bool
) -> None:
    """5.4: at most one merger; both predecessors floated and completed an
    operating round; both presidents agree (one vote if one player presides
    over both: pass the same answer twice)."""
    if other_formed:
        raise Refused("ONE_MERGER", "5.4", "the other system has already formed")
    if not all(operated):
        raise Refused("NOT_OPERATED", "5.4", "both companies must have floated and operated")
    if not all(consents):
        raise Refused("NO_CONSENT", "5.4", "both presidents must agree")


def _top_row(title: DixieTitle) -> list[int]:
    return [int(cell.split()[0]) for cell in title.market[0]]


def merger_price(title: DixieTitle, prices: tuple[int, int]) -> int:
    """5.4a: the highest value on the top row not above the sum of the two
    prices, at least $90 and at most $160."""
    terms = title.merger_terms
    target = min(max(sum(prices), terms.price_floor), terms.price_cap)
    return max(p for p in _top_row(title) if p <= target)


@dataclass(frozen=True)
class PresidentExchange:
    """5.4b: what a predecessor's president gives for a 20% certificate."""

    surrendered_percent: int
    penalty: int  # paid to the bank, by emergency sales if need be
    kept_percent: int  # held for the pair exchange that follows


def president_exchange(held_percent: int, price: int, certificates: int = 1) -> PresidentExchange:
    """5.4b: 40% of either predecessor for each 20% certificate (80% when one
    player presides over both); each missing 10% costs the system's price."""
    need = 40 * certificates
    surrendered = min(held_percent, need)
    shortfall = (need - surrendered) // SHARE
    return PresidentExchange(
        surrendered_percent=surrendered,
        penalty=shortfall * price,
        kept_percent=held_percent - surrendered,
    )


@dataclass(frozen=True)
class PairExchange:
    new_shares: int  # 10% system shares for pairs of predecessor shares (5.4c)
    odd: bool  # one predecessor share left over (5.4d)


def pair_exchange(predecessor_percent: int) -> PairExchange:
    """5.4c: pairs of predecessor shares, of either company and either kind,
    for one 10% share of the system (ambiguity 16)."""
    shares = predecessor_percent // SHARE
    return PairExchange(new_shares=shares // 2, odd=bool(shares % 2))


def odd_share_terms(price: int) -> tuple[int, int]:
    """5.4d: an odd predecessor share sells for half the system's price
    rounded down, or buys a system share for half rounded up (cash on hand
    only). Returns (sale, top-up)."""
    return price // 2, price - price // 2


def check_odd_share_top_up(price: int, cash: int, system_shares_left: int) -> None:
    """5.4d: the top-up needs a system share left and cash on hand."""
    if system_shares_left < 1:
        raise Refused("NO_SYSTEM_SHARE", "5.4d", "no system share is left")
    if cash < price - price // 2:
        raise Refused("CASH_ON_HAND", "5.4d", "the top-up is paid from cash on hand only")


def check_tokens_kept(
    title: DixieTitle, on_board: list[str], kept: list[str], atlanta_private_token: bool
) -> None:
    """5.4h: the system keeps up to six of the predecessors' stations (seven
    with P3's Atlanta station, one of them in Atlanta), never two in one
    city, and must keep six if it can."""
    terms = title.merger_terms
    if any(k not in on_board for k in kept):
        raise Refused("NOT_ON_BOARD", "5.4h", "only stations on the board are exchanged")
    if len(set(kept)) != len(kept):
        raise Refused("TWO_IN_ONE_CITY", "5.4h", "the system keeps one station per city")
    limit = terms.tokens_kept + (1 if atlanta_private_token else 0)
    seventh = len(kept) > terms.tokens_kept
    if atlanta_private_token and seventh and terms.atlanta_extra_token not in kept:
        raise Refused("ATLANTA", "5.4h", "the seventh station must be the one in Atlanta")
    if len(kept) > limit:
        raise Refused("TOO_MANY_STATIONS", "5.4h", f"at most {limit} stations are kept")
    if len(kept) < min(limit, len(set(on_board))):
        raise Refused("MUST_KEEP", "5.4h", "stations must be exchanged while six are not kept")


def trains_to_discard(title: DixieTitle, trains: int) -> int:
    """5.4i: the system's train limit is three; the excess goes to the open
    market without compensation."""
    return max(0, trains - title.merger_terms.train_limit)


def may_operate_this_round(predecessor_operated: bool) -> bool:
    """5.4j: the system waits for the next operating round if either
    predecessor has operated in this one."""
    return not predecessor_operated
