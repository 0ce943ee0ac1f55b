"""Incorporating PCs and merging PCs into railroads (rule 4.1).

The terms (stock, opening price, merger bonus) are in companies.toml and
computed by `turnproc.families.continental_rails.engine.pcs`.
"""

from typing import ClassVar, Literal

from turnproc.core.ledger import BANK, railroad_account
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.network import (
    prohibited_reason,
    regions_linked,
    route_owners,
    touches,
)
from turnproc.families.continental_rails.engine.orders import IncorporatePC, MergePC
from turnproc.families.continental_rails.engine.pcs import (
    CompaniesParams,
    incorporator_shares,
    opening_price,
    pc_value,
)
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps.operations import (
    at_war,
    civil_war_params,
    is_western,
)
from turnproc.scenario.model import Scenario


def max_presidencies(scenario: Scenario) -> int:
    """4.14 How many railroads one tycoon may preside over (companies.toml)."""
    return scenario.section("companies", CompaniesParams).presidency.max_presidencies


class RailroadIncorporated(Event):
    """4.1 `position` incorporated his PC as the new railroad `railroad`."""

    kind: Literal["railroad_incorporated"] = "railroad_incorporated"
    number: int
    issued: int
    price: int
    shares: int  # the incorporator's shares
    capital: int  # cash the public paid for the rest of the issued stock
    news_order: ClassVar[int] = 30


class PCMerged(Event):
    """4.1 `position` merged PC `pc` into `railroad` for `bonus_shares` of its stock."""

    kind: Literal["pc_merged"] = "pc_merged"
    pc: str
    bonus_shares: int
    news_order: ClassVar[int] = 20


def _owned_pc_or_reject(ctx: TurnContext, pos: int, order: IncorporatePC | MergePC) -> bool:
    """The PC is his, and not a western PC during the Civil War (8 [original]:
    the war suspended westward expansion; "western" as `operations.is_western`)."""
    pc = ctx.state.pcs.get(order.pc)
    if pc is None or order.pc not in ctx.scenario.routes:
        ctx.reject(pos, order, reasons.UNKNOWN_PC, f"there is no PC {order.pc!r}")
        return False
    if pc.status != "owned" or pc.owner != pos:
        ctx.reject(pos, order, reasons.NOT_OWNER, f"you do not own {order.pc}")
        return False
    if at_war(ctx) and is_western(ctx.scenario, order.pc):
        ctx.reject(
            pos,
            order,
            reasons.NOT_ALLOWED_NOW,
            f"No westward expansion during the Civil War; {order.pc} is a western PC: "
            f"incorporate or merge it after turn {max(civil_war_params(ctx.scenario).turns)}.",
        )
        return False
    return True


def incorporate_pcs(ctx: TurnContext) -> None:
    """4.1 An owned PC becomes a new railroad; its owner becomes president.

    [designed] The railroad takes the PC's code and route number, authorizes
    and issues the stock in companies.toml at the opening price
    (`pcs.opening_price`); the incorporator receives 20% of the issued stock
    free [original, playing tips]; the public buys the rest at the opening
    price and that money is the railroad's capital. It starts with the best
    locomotive available and every technology available except Grand Station
    [original], and the starting efficiency. A tycoon already presiding over
    two railroads cannot incorporate.
    """
    params = ctx.params("companies", CompaniesParams).incorporation
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        for order in ctx.orders_of(pos, "incorporate_pc"):
            if not isinstance(order, IncorporatePC) or not _owned_pc_or_reject(ctx, pos, order):
                continue
            presiding = sum(1 for rr in ctx.state.railroads.values() if rr.president == pos)
            if presiding >= max_presidencies(ctx.scenario):
                ctx.reject(
                    pos,
                    order,
                    reasons.TOO_MANY_PRESIDENCIES,
                    f"you already preside over {presiding} railroads; merge the PC instead",
                )
                continue
            if order.pc in ctx.state.railroads:
                ctx.reject(pos, order, reasons.ALREADY_DONE, f"{order.pc} is already a railroad")
                continue
            _incorporate(ctx, pos, order.pc, params.authorized, params.issued, params.efficiency)


def _incorporate(
    ctx: TurnContext, pos: int, code: str, authorized: int, issued: int, efficiency: int
) -> None:
    route = ctx.scenario.routes[code]
    price = opening_price(ctx.scenario, code)
    shares = incorporator_shares(ctx.scenario)
    state = ctx.state
    state.railroads[code] = Railroad(
        code=code,
        number=route.number,
        name=route.name or code,
        founded_turn=ctx.turn,
        lines=[code],
        authorized=authorized,
        issued=issued,
        price=price,
        efficiency=efficiency,
        locomotive=state.best_locomotive,
        technologies=[t for t in state.technologies_available if t != "A"],
        president=pos,
        chairman=pos,
        directors=[pos],
        regions=sorted(regions_linked(ctx.scenario, [code])),
    )
    capital = (issued - shares) * price
    ctx.transfer(BANK, railroad_account(code), capital, "stock sold at incorporation", ref=code)
    tycoon = state.tycoon(pos)
    tycoon.holdings[code] = tycoon.holdings.get(code, 0) + shares
    tycoon.pcs.remove(code)
    pc = state.pcs[code]
    pc.status = "incorporated"
    pc.owner = None
    pc.for_sale = False
    ctx.emit(
        RailroadIncorporated(
            position=pos,
            railroad=code,
            number=route.number,
            issued=issued,
            price=price,
            shares=shares,
            capital=capital,
        )
    )


def merge_pcs(ctx: TurnContext) -> None:
    """4.1 An owned PC merges into a railroad: the route becomes one of its lines.

    The PC's route must touch one of the railroad's lines and must not make a
    prohibited set with its lines and RoWs [original 4.8]; the owner need not
    be a director. He receives bonus stock worth `bonus_percent` of the PC's
    value (`pcs.pc_value`) at the railroad's current price, rounded down, at
    least one share [designed]; it comes from treasury stock, and the railroad
    authorizes new stock for any shortfall. Mergers are applied in position
    order, so a later merger that an earlier one makes prohibited is refused.
    """
    bonus_percent = ctx.params("companies", CompaniesParams).merger.bonus_percent
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        for order in ctx.orders_of(pos, "merge_pc"):
            if not isinstance(order, MergePC) or not _owned_pc_or_reject(ctx, pos, order):
                continue
            rr = ctx.state.railroads.get(order.railroad)
            if rr is None:
                ctx.reject(
                    pos, order, reasons.UNKNOWN_RAILROAD, f"there is no railroad {order.railroad!r}"
                )
                continue
            if not touches(ctx.scenario, rr.lines, order.pc):
                ctx.reject(
                    pos,
                    order,
                    reasons.NOT_CONNECTED,
                    f"{order.pc} does not touch any line of {rr.code}",
                )
                continue
            owner = route_owners(ctx.state).get(order.pc)
            why = prohibited_reason(ctx.scenario, [*rr.lines, *rr.rows, order.pc])
            if owner is not None or why is not None:
                ctx.reject(
                    pos,
                    order,
                    reasons.PROHIBITED_ROUTE,
                    f"{rr.code} may not take {order.pc}: {why or 'route already owned'}",
                )
                continue
            _merge(ctx, pos, order.pc, rr, bonus_percent)


def _merge(ctx: TurnContext, pos: int, code: str, rr: Railroad, bonus_percent: int) -> None:
    price = max(1, rr.price)
    bonus = max(1, pc_value(ctx.scenario, code) * bonus_percent // 100 // price)
    if rr.treasury < bonus:
        rr.authorized += bonus - rr.treasury
    rr.issued += bonus
    rr.lines.append(code)
    tycoon = ctx.state.tycoon(pos)
    tycoon.holdings[rr.code] = tycoon.holdings.get(rr.code, 0) + bonus
    tycoon.pcs.remove(code)
    pc = ctx.state.pcs[code]
    pc.status = "merged"
    pc.owner = None
    pc.for_sale = False
    ctx.emit(PCMerged(position=pos, pc=code, railroad=rr.code, bonus_shares=bonus))
