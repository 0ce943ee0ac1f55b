"""The private auctions and the staged supply of privates, minors and trains
(3.2a, 3.3.1-3.3.3)."""

from dataclasses import dataclass

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused

BID_STEP = 5  # 3.2a: bids rise in whole dollars, at least $5 at a time


def check_opening_bid(list_price: int, bid: int, cash: int) -> None:
    """3.2a: the nominating bid is the list price or more by multiples of $5."""
    if bid < list_price or (bid - list_price) % BID_STEP:
        raise Refused(
            "OPENING_BID", "3.2a", f"the first bid must be ${list_price} plus a multiple of $5"
        )
    if bid > cash:
        raise Refused("BID_OVER_CASH", "3.2a", "players cannot bid more money than they have")


def check_raise(previous_bid: int, bid: int, cash: int) -> None:
    """3.2a: each later bid is a whole number of dollars at least $5 more."""
    if bid < previous_bid + BID_STEP:
        raise Refused("BID_TOO_LOW", "3.2a", f"a bid must be at least ${previous_bid + BID_STEP}")
    if bid > cash:
        raise Refused("BID_OVER_CASH", "3.2a", "players cannot bid more money than they have")


def _number(private_id: str) -> int:
    return int(private_id.lstrip("PM"))


@dataclass(frozen=True)
class InitialRoundEnd:
    """3.3.1: what happens when every player owns one of P1-P7."""

    priority: int  # the seat of the buyer of the lowest numbered private
    removed: str  # the highest numbered unsold private leaves the game
    to_open_market: tuple[str, ...]  # the others, at their printed price


def initial_round_end(title: DixieTitle, bought: dict[str, int]) -> InitialRoundEnd:
    """3.3.1: `bought` maps each private sold in the initial auctions to its
    buyer's seat. P6 counts as bought by its buyer although it is discarded
    (docs/rules-18dixie.md, ambiguity 7)."""
    offered = title.supply.initial_privates
    unknown = sorted(set(bought) - set(offered))
    if unknown:
        raise Refused("NOT_INITIAL", "3.3.1", f"not auctioned in the initial round: {unknown}")
    unsold = sorted((p for p in offered if p not in bought), key=_number)
    if not unsold:
        raise Refused("NONE_UNSOLD", "3.3.1", "more players than privates P1-P7")
    lowest = min(bought, key=_number)
    return InitialRoundEnd(
        priority=bought[lowest], removed=unsold[-1], to_open_market=tuple(unsold[:-1])
    )


def must_pass_in_initial_auctions(owns_initial_private: bool, all_own_one: bool) -> bool:
    """3.3.1: until each player owns one of P1-P7, a player who owns one
    passes (P6's buyer counts as owning one, ambiguity 7)."""
    return owns_initial_private and not all_own_one


@dataclass(frozen=True)
class StockRoundSupply:
    """3.3: what a stock round adds to, or takes from, the supply."""

    auctions: tuple[str, ...]  # privates nominated and auctioned
    minors: tuple[str, ...]  # minors that may be bought at list price from now on
    unsold_trains_to_open_market: tuple[str, ...]
    unsold_leave_after: bool  # unsold privates and minors leave at the round's end


def stock_round_supply(title: DixieTitle, stock_round: int) -> StockRoundSupply:
    """3.3.1-3.3.3: SR1 auctions P1-P7 and offers minors 1-12; SR2 moves the
    unsold 2-trains to the open market, auctions P8-P10 (unsold ones go to
    the open market at its end) and offers minor 13; after SR3 whatever is
    unsold leaves the game."""
    if stock_round < 1:
        raise Refused("NO_SUCH_ROUND", "3.3", "stock rounds are numbered from 1")
    auctions = tuple(p.id for p in title.privates if p.stock_round == stock_round)
    minors = tuple(m.id for m in title.minors if m.stock_round == stock_round)
    trains: tuple[str, ...] = ()
    if stock_round == title.supply.unsold_trains_to_open_market_at_stock_round:
        trains = (title.trains[0].name,)
    return StockRoundSupply(
        auctions=auctions,
        minors=minors,
        unsold_trains_to_open_market=trains,
        unsold_leave_after=stock_round == title.supply.unsold_leave_after_stock_round,
    )


def open_market_price(title: DixieTitle, company_id: str) -> int:
    """3.2c3 and 3.3.3: an unsold private or minor in the open market costs
    its printed price (ambiguity 5)."""
    for private in title.privates:
        if private.id == company_id:
            return private.value
    return title.minor(company_id).price


@dataclass(frozen=True)
class PriorityTaken:
    priority: int  # the seat now holding the priority deal
    payment: int  # from the bank to P4's owner


def take_priority(title: DixieTitle, owner: int) -> PriorityTaken:
    """12.3 P4: its owner takes the priority deal (even from himself) and
    $10 from the bank; P4 closes."""
    return PriorityTaken(priority=owner, payment=title.private("P4").ability.payment)
