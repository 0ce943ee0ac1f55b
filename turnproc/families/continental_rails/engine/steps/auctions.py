"""Private companies: the auction, offers for sale and releases (rules 2.3, 10.1).

Numbers come from auctions.toml; a PC's list price and value from
`turnproc.families.continental_rails.engine.pcs`.
"""

from typing import ClassVar, Literal

from pydantic import BaseModel

from turnproc.core.ledger import BANK, tycoon_account
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import BidForPC, OfferPC
from turnproc.families.continental_rails.engine.pcs import list_price
from turnproc.families.continental_rails.engine.state import PrivateCompany
from turnproc.families.continental_rails.engine.steps.operations import is_western
from turnproc.families.continental_rails.engine.valuation import loans_by_lender, net_worth
from turnproc.scenario.model import Scenario

# --- parameters (auctions.toml) ------------------------------------------------


class AuctionParams(BaseModel):
    """auctions.toml [auction]"""

    max_pcs: int = 2  # [original] a tycoon may own at most two PCs


class OfferParams(BaseModel):
    """auctions.toml [offers]"""

    max_raise_percent: int = 20  # [original] an asking price rises at most 20% a turn
    min_price: int = 10


class AskingPriceParams(BaseModel):
    """auctions.toml [asking_price]"""

    growth_percent: int = 10  # a PC released on turn t asks its list price + (t - 1) x this %
    decay_percent: int = 10  # an unsold new PC's asking price falls this % a turn
    floor_percent: int = 50  # ... down to this % of its list price
    min_price: int = 10


class ReleaseParams(BaseModel):
    """auctions.toml [release]"""

    counts: dict[int, int] = {}  # turn -> PCs first available that turn
    west_first_turn: int = 13  # western PCs (8) never appear before this turn


class AuctionsParams(BaseModel):
    """auctions.toml"""

    auction: AuctionParams = AuctionParams()
    offers: OfferParams = OfferParams()
    asking_price: AskingPriceParams = AskingPriceParams()
    release: ReleaseParams = ReleaseParams()


# --- events --------------------------------------------------------------------


class PCBought(Event):
    """10.1 `position` bought PC `pc` for `price` (from the bank if `previous_owner` is None)."""

    kind: Literal["pc_bought"] = "pc_bought"
    pc: str
    price: int
    previous_owner: int | None = None
    news_order: ClassVar[int] = 10


class PCOffered(Event):
    """10.1 `position` offers PC `pc` for sale at `price` (listed from next turn)."""

    kind: Literal["pc_offered"] = "pc_offered"
    pc: str
    price: int
    news_order: ClassVar[int] = 121


class PCsReleased(Event):
    """2.3 New PCs available from next turn, at their asking prices."""

    kind: Literal["pcs_released"] = "pcs_released"
    pcs: list[str]
    prices: list[int]
    news_order: ClassVar[int] = 120


# --- 10.1 the auction ----------------------------------------------------------


def _asking_this_turn(ctx: TurnContext, params: OfferParams) -> dict[str, int]:
    """Asking prices for this turn's bids: new PCs at their asking price; PCs
    offered for sale at the listed price, or at the owner's new price this
    turn if he repeats the offer (at most +20%, 9.5 [original])."""
    asking: dict[str, int] = {}
    for code, pc in ctx.state.pcs.items():
        if pc.status == "available":
            asking[code] = pc.asking_price or release_price(ctx.scenario, code, ctx.turn)
        elif pc.status == "owned" and pc.for_sale and pc.owner is not None:
            asking[code] = pc.asking_price
            for order in ctx.orders_of(pc.owner, "offer_pc"):
                if isinstance(order, OfferPC) and order.pc == code:
                    cap = pc.asking_price * (100 + params.max_raise_percent) // 100
                    asking[code] = max(params.min_price, min(order.price, cap))
                    break
    return asking


def pc_auction(ctx: TurnContext) -> None:
    """10.1 Sealed bids for PCs available or offered for sale, all at once.

    A bid must reach the asking price. Only a tycoon owning fewer than two PCs
    may bid, and he wins no more than brings him to two [original]. Bids are
    settled from the highest amount down, so the order of submission never
    matters [designed]: each PC goes to its highest bid whose bidder still has
    room for a PC and the cash to pay; a bidder who cannot pay loses that bid
    and the next bid takes the PC. Ties go to the bidder owning fewer PCs, then
    the one with the lower net worth at the start of the turn, then a seeded
    draw [designed: the weaker tycoon gets the chance]. The price goes to the
    bank for a new PC, to the owner for an offered one.
    """
    params = ctx.params("auctions", AuctionsParams)
    asking = _asking_this_turn(ctx, params.offers)
    owned_at_start = {t.position: len(t.pcs) for t in ctx.state.tycoons}
    bids: list[tuple[BidForPC, int]] = []
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        seen: set[str] = set()
        for order in ctx.orders_of(pos, "bid_pc"):
            if isinstance(order, BidForPC) and _valid_bid(
                ctx, pos, order, asking, seen, owned_at_start[pos], params.auction.max_pcs
            ):
                seen.add(order.pc)
                bids.append((order, pos))
    if not bids:
        return
    draw = list(range(1, len(ctx.state.tycoons) + 1))
    ctx.rng("pc-auction").shuffle(draw)
    lottery = {pos: rank for rank, pos in enumerate(draw)}
    lent = loans_by_lender(ctx.start)
    worth = {pos: net_worth(ctx.start, ctx.scenario, pos, lent) for pos in owned_at_start}
    number = {code: ctx.scenario.routes[code].number for code in asking}
    bids.sort(
        key=lambda b: (
            -b[0].amount,
            owned_at_start[b[1]],
            worth[b[1]],
            lottery[b[1]],
            number[b[0].pc],
        )
    )
    won: dict[int, int] = dict.fromkeys(owned_at_start, 0)
    sold: dict[str, int] = {}
    for order, pos in bids:
        tycoon = ctx.state.tycoon(pos)
        if order.pc in sold:
            ctx.reject(
                pos,
                order,
                reasons.OUTBID,
                f"{order.pc} went to a bid of {money(sold[order.pc])}",
            )
        elif owned_at_start[pos] + won[pos] >= params.auction.max_pcs:
            ctx.reject(
                pos,
                order,
                reasons.TOO_MANY_PCS,
                f"your higher bids already brought you to {params.auction.max_pcs} PCs",
            )
        elif tycoon.cash < order.amount:
            ctx.reject(
                pos,
                order,
                reasons.INSUFFICIENT_CASH,
                f"you had {money(tycoon.cash)} when the bids were opened; the bid was lost",
            )
        else:
            _sell_pc(ctx, pos, order.pc, order.amount)
            won[pos] += 1
            sold[order.pc] = order.amount


def _valid_bid(
    ctx: TurnContext,
    pos: int,
    order: BidForPC,
    asking: dict[str, int],
    seen: set[str],
    owned: int,
    max_pcs: int,
) -> bool:
    pc = ctx.state.pcs.get(order.pc)
    if pc is None or order.pc not in ctx.scenario.routes:
        ctx.reject(pos, order, reasons.UNKNOWN_PC, f"there is no PC {order.pc!r}")
        return False
    if owned >= max_pcs:
        ctx.reject(
            pos,
            order,
            reasons.TOO_MANY_PCS,
            f"you own {owned} PCs; only a tycoon with fewer than {max_pcs} may bid",
        )
        return False
    if pc.status == "owned" and pc.owner == pos:
        ctx.reject(pos, order, reasons.NOT_ALLOWED_NOW, f"{order.pc} is already yours")
        return False
    if order.pc not in asking:
        ctx.reject(pos, order, reasons.NOT_AVAILABLE, f"{order.pc} is not for sale this turn")
        return False
    if order.pc in seen:
        ctx.reject(
            pos, order, reasons.DUPLICATE_ORDER, f"only your first bid for {order.pc} counts"
        )
        return False
    if order.amount < asking[order.pc]:
        ctx.reject(
            pos,
            order,
            reasons.BELOW_MINIMUM,
            f"the asking price of {order.pc} is {money(asking[order.pc])}",
        )
        return False
    return True


def _sell_pc(ctx: TurnContext, buyer: int, code: str, price: int) -> None:
    pc = ctx.state.pcs[code]
    previous = pc.owner if pc.status == "owned" else None
    seller = BANK if previous is None else tycoon_account(previous)
    ctx.transfer(tycoon_account(buyer), seller, price, "PC purchase", ref=code)
    if previous is not None:
        ctx.state.tycoon(previous).pcs.remove(code)
    pc.status = "owned"
    pc.owner = buyer
    pc.for_sale = False
    # The price paid is the base for the owner's first asking price (+20%).
    pc.asking_price = price
    ctx.state.tycoon(buyer).pcs.append(code)
    ctx.emit(PCBought(position=buyer, pc=code, price=price, previous_owner=previous))


# --- 10.1 offers ---------------------------------------------------------------


def pc_offers(ctx: TurnContext) -> None:
    """10.1 Owners offer PCs for sale; the offer is listed from next turn.

    The asking price may be at most 20% above the current asking price
    [original]: the listed price for a PC already for sale, otherwise the
    higher of the price paid for it and its list price [designed]. A higher
    price is cut to that. An owner withdraws a PC by not offering it again:
    a PC for sale that is not offered this turn leaves the list [designed].
    """
    params = ctx.params("auctions", AuctionsParams).offers
    offered: set[str] = set()
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        for order in ctx.orders_of(pos, "offer_pc"):
            if not isinstance(order, OfferPC):
                continue
            pc = ctx.state.pcs.get(order.pc)
            if pc is None:
                ctx.reject(pos, order, reasons.UNKNOWN_PC, f"there is no PC {order.pc!r}")
                continue
            if pc.status != "owned" or pc.owner != pos:
                ctx.reject(pos, order, reasons.NOT_OWNER, f"you do not own {order.pc}")
                continue
            if order.pc in offered:
                ctx.reject(
                    pos,
                    order,
                    reasons.DUPLICATE_ORDER,
                    f"only your first offer of {order.pc} counts",
                )
                continue
            cap = _max_asking(ctx, pc, pos, params)
            if order.price < params.min_price:
                ctx.reject(
                    pos, order, reasons.BELOW_MINIMUM, f"ask at least {money(params.min_price)}"
                )
                continue
            price = order.price
            if price > cap:
                price = cap
                ctx.reject(
                    pos,
                    order,
                    reasons.ABOVE_MAXIMUM,
                    f"an asking price may rise at most {params.max_raise_percent}% a turn: "
                    f"{money(cap)} for {order.pc}",
                    cut_to=OfferPC(pc=order.pc, price=cap),
                )
            pc.for_sale = True
            pc.asking_price = price
            offered.add(order.pc)
            ctx.emit(PCOffered(position=pos, pc=order.pc, price=price))
    for code, pc in ctx.state.pcs.items():
        if pc.status == "owned" and pc.for_sale and code not in offered:
            pc.for_sale = False


def _max_asking(ctx: TurnContext, pc: PrivateCompany, pos: int, params: OfferParams) -> int:
    before = ctx.start.pcs.get(pc.code)
    listed = before is not None and before.for_sale and before.owner == pos
    if listed and before is not None:
        base = before.asking_price
    else:
        base = max(pc.asking_price, list_price(ctx.scenario, pc.code))
    return base * (100 + params.max_raise_percent) // 100


# --- 2.3 new PCs ---------------------------------------------------------------


def release_pcs(ctx: TurnContext) -> None:
    """2.3 New PCs become available for next turn; unsold PCs get cheaper.

    The number released for each turn is in auctions.toml [release] counts;
    they come in Appendix D order, western PCs (`operations.is_western`: a
    town west of the Mississippi) only from `west_first_turn`, after the Civil
    War [designed schedule]. A new PC asks its list price (`pcs.list_price`) raised
    with the turn (`release_price`) [designed: as the network grows a PC is
    worth more to buyers]. A PC the bank still holds from an earlier turn asks
    `decay_percent` less each turn, never under `floor_percent` of its list
    price, rounded down to $10 [designed: every PC finds a buyer in the end].
    """
    params = ctx.params("auctions", AuctionsParams)
    _cheapen_unsold(ctx, params.asking_price)
    next_turn = ctx.turn + 1
    count = params.release.counts.get(next_turn, 0)
    if count <= 0:
        return
    waiting = sorted(
        (pc for pc in ctx.state.pcs.values() if pc.status == "unreleased"),
        key=lambda pc: ctx.scenario.routes[pc.code].number,
    )
    if next_turn < params.release.west_first_turn:
        waiting = [pc for pc in waiting if not is_western(ctx.scenario, pc.code)]
    released = waiting[:count]
    for pc in released:
        pc.status = "available"
        pc.asking_price = release_price(ctx.scenario, pc.code, next_turn)
        pc.released_turn = next_turn
    if released:
        ctx.emit(
            PCsReleased(
                pcs=[pc.code for pc in released], prices=[pc.asking_price for pc in released]
            )
        )


def release_price(scenario: Scenario, code: str, turn: int) -> int:
    """2.3 Asking price of PC `code` first offered on `turn` [designed]: its list
    price raised `growth_percent` for each turn after the first, rounded down
    to $10 (turn-1 PCs ask exactly their list price)."""
    growth = scenario.section("auctions", AuctionsParams).asking_price.growth_percent
    price = list_price(scenario, code) * (100 + growth * (turn - 1)) // 100
    return max(10, price // 10 * 10)


def _cheapen_unsold(ctx: TurnContext, params: AskingPriceParams) -> None:
    for code, pc in ctx.state.pcs.items():
        # A PC listed this turn for next turn (taken back in a loan recall or
        # a bankruptcy) has not been offered yet, so it is not unsold.
        if pc.status != "available" or pc.released_turn == ctx.turn + 1:
            continue
        floor = max(params.min_price, list_price(ctx.scenario, code) * params.floor_percent // 100)
        if pc.asking_price > floor:
            lowered = pc.asking_price * (100 - params.decay_percent) // 100 // 10 * 10
            pc.asking_price = max(floor, lowered)
