"""1832's rules on holding shares (docs/rules-1832.md 5.4, 5.5, 5.11, 17.3):
certificates counted toward the limit, the change of presidency, whether a
president may sell into his last 20%, and when a company may reissue.
Pure functions of the title data.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from turnproc.families.g18xx.titles.c1832.data import Data1832
from turnproc.families.g18xx.titles.c1832.market import Zone, counts_toward_limit


@dataclass(frozen=True)
class Holding:
    """A player's certificates of one company (a president's or
    vice-president's certificate is one certificate) and its market zone."""

    certificates: int
    zone: Zone


def certificate_count(
    holdings: Mapping[str, Holding], privates: int, mortgaged_southern_bank: bool = False
) -> int:
    """5.4.1: certificates of companies in the white area, plus one for each
    private; 17.3: the Southern Bank does not count while mortgaged."""
    shares = sum(h.certificates for h in holdings.values() if counts_toward_limit(h.zone))
    return shares + privates - (1 if mortgaged_southern_bank else 0)


def new_president(seats: list[str], president: str, holdings: Mapping[str, int]) -> str:
    """5.5: a player with more shares than the president takes over; of
    several with the most, the nearest to the old president's left."""
    if president not in seats:
        raise ValueError(f"{president} is not at the table")
    start = seats.index(president)
    others = seats[start + 1 :] + seats[:start]
    most = max((holdings.get(p, 0) for p in others), default=0)
    if most <= holdings.get(president, 0):
        return president
    return next(p for p in others if holdings.get(p, 0) == most)


def may_sell_presidents_share(
    data: Data1832, president: str, holdings: Mapping[str, int], open_market: int, shares: int
) -> bool:
    """5.5: the president sells into his last 20% only when another player
    holds 20% or more and the open market has room for a share."""
    needed = data.title.president_shares * shares // data.title.shares_per_company
    other_can_take = any(n >= needed for p, n in holdings.items() if p != president)
    room = data.title.market_pool_limit_percent * shares // 100 - open_market
    return other_can_take and room >= 1


@dataclass(frozen=True)
class ReissueState:
    """What 5.11 asks of a company that wants to reissue."""

    redeemed: int
    initial_offering: int  # unsold original shares still on the display
    reissued_this_round: bool = False
    operating: bool = True


def reissue_refusal(state: ReissueState) -> str | None:
    """5.11: None when the company may reissue (all its redeemed shares at
    once), else the reason's code."""
    if not state.operating:
        return "NOT_OPERATING"
    if state.redeemed == 0:
        return "NOTHING_TO_REISSUE"
    if state.initial_offering > 0:
        return "INITIAL_OFFERING_NOT_SOLD_OUT"
    if state.reissued_this_round:
        return "REISSUED_THIS_ROUND"
    return None
