"""Railroad mergers (rule 4.13)."""

from typing import Literal

from turnproc.core.ledger import BANK, railroad_account, tycoon_account
from turnproc.families.continental_rails.engine import network, reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import MergeRailroads
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    president_orders,
    track_miles,
)


class RailroadsMerged(Event):
    """4.13 `absorbed` merged into `railroad`, which keeps its code."""

    kind: Literal["railroads_merged"] = "railroads_merged"
    absorbed: str
    president: int
    survivor_price: int
    absorbed_price: int
    new_shares: int  # shares of the survivor issued for the absorbed railroad's
    news_order = 90


class MergerShortClosed(Event):
    """4.13 A short sale of the absorbed railroad that converted to no survivor
    share is closed: its collateral comes back to `position` (private cash flow)."""

    kind: Literal["merger_short_closed"] = "merger_short_closed"
    visibility: Literal["public", "private"] = "private"
    absorbed: str
    shares: int  # shares of the absorbed railroad that were owed
    amount: int  # collateral returned
    news_order = 903


class MergerShortConverted(Event):
    """4.13, 6.2 A short sale of the absorbed railroad became a short sale of
    the survivor `railroad`: `shares` of `absorbed` owed became `new_shares`
    of the survivor at the ratio of the prices; the collateral stays with the
    broker (private: the short seller's own position)."""

    kind: Literal["merger_short_converted"] = "merger_short_converted"
    visibility: Literal["public", "private"] = "private"
    absorbed: str
    shares: int
    new_shares: int
    absorbed_price: int
    survivor_price: int
    collateral: int
    news_order = 904


def conversion(shares: int, absorbed_price: int, survivor_price: int) -> int:
    """4.13 [designed] Survivor shares for `shares` of the absorbed railroad, at the
    ratio of their market prices, rounded down."""
    return shares * absorbed_price // survivor_price


def merge_railroads(ctx: TurnContext) -> None:
    """4.13 Mergers of two railroads with the same president whose lines connect
    and whose routes together are not prohibited (4.8)."""
    for position, order, rr in president_orders(ctx, "merge_railroads"):
        assert isinstance(order, MergeRailroads)
        other = ctx.state.railroads.get(order.other)
        if other is None or other.code == rr.code:
            ctx.reject(
                position,
                order,
                reasons.UNKNOWN_RAILROAD,
                f"{order.other} is not another railroad that {rr.code} could absorb.",
            )
            continue
        if other.president != position:
            ctx.reject(
                position,
                order,
                reasons.NOT_PRESIDENT,
                f"You must preside over both {rr.code} and {other.code} to merge them.",
            )
            continue
        if not network.is_connected(ctx.scenario, rr.lines + other.lines):
            ctx.reject(
                position,
                order,
                reasons.NOT_CONNECTED,
                f"The lines of {rr.code} and {other.code} do not connect.",
            )
            continue
        why = network.prohibited_reason(ctx.scenario, rr.lines + rr.rows + other.lines + other.rows)
        if why is not None:
            ctx.reject(
                position,
                order,
                reasons.PROHIBITED_ROUTE,
                f"{rr.code} and {other.code} may not merge: {why}.",
            )
            continue
        if (
            rr.owed_to_president
            and other.owed_to_president
            and rr.lender is not None
            and other.lender is not None
            and rr.lender != other.lender
        ):
            ctx.reject(
                position,
                order,
                reasons.NOT_ALLOWED_NOW,
                f"{rr.code} and {other.code} owe loans to different tycoons; repay one first.",
            )
            continue
        _merge(ctx, position, rr, other)


def _merge(ctx: TurnContext, position: int, rr: Railroad, other: Railroad) -> None:
    """The survivor absorbs lines, RoWs, cash and debts; every holding, short and
    the public's shares of the absorbed railroad become survivor shares; its
    treasury stock becomes survivor treasury stock."""
    survivor_price = max(1, rr.price)
    absorbed_price = max(1, other.price)
    public = ctx.state.public_shares(other.code)
    added = conversion(public, absorbed_price, survivor_price)
    for tycoon in ctx.state.tycoons:
        held = tycoon.holdings.pop(other.code, 0)
        if held > 0:
            new = conversion(held, absorbed_price, survivor_price)
            added += new
            if new > 0:
                tycoon.holdings[rr.code] = tycoon.holdings.get(rr.code, 0) + new
        owed = tycoon.shorts.pop(other.code, 0)
        proceeds = tycoon.short_proceeds.pop(other.code, 0)
        if owed > 0:
            new = conversion(owed, absorbed_price, survivor_price)
            added -= new
            if new > 0:
                tycoon.shorts[rr.code] = tycoon.shorts.get(rr.code, 0) + new
                tycoon.short_proceeds[rr.code] = tycoon.short_proceeds.get(rr.code, 0) + proceeds
                ctx.emit(
                    MergerShortConverted(
                        position=tycoon.position,
                        railroad=rr.code,
                        absorbed=other.code,
                        shares=owed,
                        new_shares=new,
                        absorbed_price=absorbed_price,
                        survivor_price=survivor_price,
                        collateral=proceeds,
                    )
                )
            else:
                # Rounded down to nothing, like a holding's fraction: he owes no
                # share, so the broker returns the collateral it held.
                _close_short(ctx, tycoon.position, rr.code, other.code, owed, proceeds)
        if other.code in tycoon.wants_presidency:
            tycoon.wants_presidency.remove(other.code)
            if rr.code not in tycoon.wants_presidency:
                tycoon.wants_presidency.append(rr.code)
    added = max(0, added)
    treasury = conversion(other.treasury, absorbed_price, survivor_price)
    rr.issued += added
    rr.authorized += added + treasury

    ctx.transfer(
        railroad_account(other.code), railroad_account(rr.code), other.cash, "merger", other.code
    )
    miles, other_miles = track_miles(ctx.scenario, rr), track_miles(ctx.scenario, other)
    if miles + other_miles > 0:
        rr.efficiency = (rr.efficiency * miles + other.efficiency * other_miles) // (
            miles + other_miles
        )
    rr.lines += other.lines
    rr.rows += other.rows
    rr.double_tracked += other.double_tracked
    rr.bonds += other.bonds
    rr.loan += other.loan
    if other.owed_to_president:
        rr.owed_to_president += other.owed_to_president
        rr.lender = rr.lender if rr.lender is not None else other.lender
    rr.land += other.land
    rr.political += other.political
    # The survivor's equipment standard applies; only a Grand Station (a
    # building, one per railroad) carries over.
    if rr.grand_station is None and other.grand_station is not None:
        rr.grand_station = other.grand_station
        if "A" not in rr.technologies:
            rr.technologies.append("A")
    for third in ctx.state.railroads.values():
        third.rate_wars.pop(other.code, None)
    del ctx.state.railroads[other.code]
    if other.code in ctx.state.pcs:
        ctx.state.pcs[other.code].status = "merged"
    ctx.emit(
        RailroadsMerged(
            railroad=rr.code,
            absorbed=other.code,
            president=position,
            survivor_price=survivor_price,
            absorbed_price=absorbed_price,
            new_shares=added,
        )
    )


def _close_short(
    ctx: TurnContext, position: int, survivor: str, absorbed: str, owed: int, collateral: int
) -> None:
    ctx.transfer(
        BANK, tycoon_account(position), collateral, "short sale closed in a merger", absorbed
    )
    ctx.emit(
        MergerShortClosed(
            position=position,
            railroad=survivor,
            absorbed=absorbed,
            shares=owed,
            amount=collateral,
        )
    )
