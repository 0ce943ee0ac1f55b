"""Rights-of-way: bids, political influence, building, land (rules 4.6, 4.7, 4.9, 7)."""

import re
from typing import Literal, NamedTuple

from pydantic import BaseModel

from turnproc.core.ledger import BANK, railroad_account
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import network, reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import BidForRoW, BuildRoW, SellLand
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps.operations import (
    at_war,
    civil_war_params,
    is_western,
)
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    finance_shortfall,
    president_orders,
)
from turnproc.scenario.model import Scenario

# --- parameters (building.toml) -----------------------------------------------


class BuildCostParams(BaseModel):
    cost_per_mile: int
    town_cost_per_value: int
    climate_percent: list[int]  # by climate index, Boom ... Panic
    default_terrain_percent: int
    terrain_percent: dict[str, int]  # by state code


class DoubleTrackParams(BaseModel):
    cost_percent: int  # 4.15 [original] 25


class AuctionParams(BaseModel):
    min_bid_per_mile: int
    max_unbuilt_rows: int
    influence_bid_percent: int


class LandParams(BaseModel):
    grant_states: list[str]
    acres_per_mile: int
    price_per_acre: list[int]  # by climate index


class BuildingParams(BaseModel):
    """building.toml"""

    building: BuildCostParams
    double_track: DoubleTrackParams
    auction: AuctionParams
    land: LandParams


def building_params(scenario: Scenario) -> BuildingParams:
    return scenario.section("building", BuildingParams)


# --- events -------------------------------------------------------------------


class RoWAcquired(Event):
    """4.7 A railroad won a RoW at auction."""

    kind: Literal["row_acquired"] = "row_acquired"
    row: str
    price: int
    influence_used: int = 0
    bidders: int = 1
    news_order = 80


class RoWBuilt(Event):
    """4.6 Track laid on an owned RoW: it becomes a line of the railroad."""

    kind: Literal["row_built"] = "row_built"
    row: str
    cost: int
    bonds: int = 0  # part of the cost financed by new bonds
    loan: int = 0  # part financed by a short loan
    land_granted: int = 0  # acres (7)
    # What the cost was made of (`building_terms`); 0: not recorded.
    miles: int = 0
    per_mile: int = 0
    terrain_percent: int = 0
    climate_percent: int = 0
    towns_cost: int = 0
    news_order = 60


class LandSold(Event):
    """7 Land-grant land sold."""

    kind: Literal["land_sold"] = "land_sold"
    visibility: Literal["public", "private"] = "private"
    acres: int
    price_per_acre: int
    amount: int
    news_order = 910


# --- pure calculations --------------------------------------------------------


def route_state(scenario: Scenario, code: str) -> str:
    """The state a route lies in: a RoW's code prefix (NY1 -> NY, C7 -> C), or
    for a PC the state of its first town."""
    route = scenario.routes[code]
    if route.kind == "RoW":
        match = re.match(r"[A-Z]+", route.code)
        if match:
            return match.group(0)
    town = scenario.towns.get(route.a)
    return town.state if town is not None else ""


def _track_cost(scenario: Scenario, code: str, climate: int) -> int:
    """Length x cost per mile x terrain% x climate% (no town part), in dollars x 10^4."""
    params = building_params(scenario).building
    route = scenario.routes[code]
    terrain = params.terrain_percent.get(
        route_state(scenario, code), params.default_terrain_percent
    )
    return route.length * params.cost_per_mile * terrain * params.climate_percent[climate]


class BuildingTerms(NamedTuple):
    """4.6 What building a RoW costs is made of: miles x per mile x terrain% x
    climate%, plus the towns' part."""

    miles: int
    per_mile: int
    terrain_percent: int
    climate_percent: int
    towns_cost: int

    def words(self) -> str:
        """The terms as the turnsheet, the receipt and the report write them."""
        return (
            f"{self.miles:,} miles × {money(self.per_mile)} × {self.terrain_percent}% terrain "
            f"× {self.climate_percent}% climate + {money(self.towns_cost)} for the towns"
        )


def building_terms(scenario: Scenario, code: str, climate: int) -> BuildingTerms:
    """4.6 The terms `building_cost` multiplies out, for saying why a RoW costs
    what it costs (terrain by state, the starting climate, the towns)."""
    params = building_params(scenario).building
    route = scenario.routes[code]
    value = sum(scenario.towns[t].value for t in route.towns if t in scenario.towns)
    return BuildingTerms(
        miles=route.length,
        per_mile=params.cost_per_mile,
        terrain_percent=params.terrain_percent.get(
            route_state(scenario, code), params.default_terrain_percent
        ),
        climate_percent=params.climate_percent[climate],
        towns_cost=value * params.town_cost_per_value,
    )


def building_cost(scenario: Scenario, code: str, climate: int) -> int:
    """4.6 [designed] Cost of laying track on RoW `code` in the given climate."""
    params = building_params(scenario).building
    route = scenario.routes[code]
    value = sum(scenario.towns[t].value for t in route.towns if t in scenario.towns)
    return _track_cost(scenario, code, climate) // 10_000 + value * params.town_cost_per_value


def double_track_cost(scenario: Scenario, code: str, climate: int) -> int:
    """4.15 Double tracking costs 25% of the normal per-mile building cost
    [original]; town size does not count [original]."""
    percent = building_params(scenario).double_track.cost_percent
    return _track_cost(scenario, code, climate) * percent // 1_000_000


def land_grant(scenario: Scenario, code: str) -> int:
    """7 [designed] Acres granted for building RoW `code` (0 outside the grant states)."""
    params = building_params(scenario).land
    route = scenario.routes[code]
    if route.kind != "RoW" or route_state(scenario, code) not in params.grant_states:
        return 0
    return route.length * params.acres_per_mile


def potential_grant(scenario: Scenario, rr: Railroad) -> int:
    """9.3 The "Grant" column: land the railroad would get by building its RoWs."""
    return sum(land_grant(scenario, code) for code in rr.rows if code in scenario.routes)


def min_bid(scenario: Scenario, code: str) -> int:
    """4.7 [designed] Smallest acceptable bid for a RoW."""
    return scenario.routes[code].length * building_params(scenario).auction.min_bid_per_mile


# --- 4.7 RoW auction ----------------------------------------------------------


class _Bid(BaseModel):
    position: int
    order: BidForRoW
    railroad: str
    amount: int
    touching: bool  # the railroad's built lines touch the RoW (4.9)
    influence: int = 0  # political influence counted toward this bid when settled

    @property
    def effective(self) -> int:
        return self.amount + self.influence


def row_auction(ctx: TurnContext) -> None:
    """4.7 Railroads bid for unowned RoWs; the highest bid wins, political
    influence (4.9) counting for railroads whose lines touch the RoW. RoWs are
    settled in route-number order, so a RoW won earlier this turn may connect a
    later one."""
    owners = network.route_owners(ctx.state)
    bids: dict[str, list[_Bid]] = {}
    seen: set[tuple[str, str]] = set()
    for position, order, rr in president_orders(ctx, "bid_row"):
        assert isinstance(order, BidForRoW)
        route = ctx.scenario.routes.get(order.row)
        if route is None or route.kind != "RoW":
            ctx.reject(
                position,
                order,
                reasons.UNKNOWN_ROUTE,
                f"{order.row} is not a RoW; check the RoW list (appendix E).",
            )
            continue
        if (rr.code, route.code) in seen:
            ctx.reject(
                position,
                order,
                reasons.DUPLICATE_ORDER,
                f"{rr.code} already bids for {route.code}.",
            )
            continue
        seen.add((rr.code, route.code))
        if route.code in owners:
            ctx.reject(
                position,
                order,
                reasons.NOT_AVAILABLE,
                f"{route.code} already belongs to {owners[route.code]}.",
            )
            continue
        if at_war(ctx) and is_western(ctx.scenario, route.code):
            ctx.reject(
                position,
                order,
                reasons.NOT_ALLOWED_NOW,
                f"No western RoWs during the Civil War; bid for {route.code} after turn "
                f"{max(civil_war_params(ctx.scenario).turns)}.",
            )
            continue
        minimum = min_bid(ctx.scenario, route.code)
        if order.amount < minimum:
            ctx.reject(
                position,
                order,
                reasons.BELOW_MINIMUM,
                f"The smallest bid for {route.code} is {money(minimum)}.",
            )
            continue
        bids.setdefault(route.code, []).append(
            _Bid(
                position=position,
                order=order,
                railroad=rr.code,
                amount=order.amount,
                touching=network.touches(ctx.scenario, rr.lines, route.code),
            )
        )
    chooser = ctx.rng("row-auction")
    for code in sorted(bids, key=lambda c: ctx.scenario.routes[c].number):
        _settle(ctx, code, bids[code], chooser.random())


def _settle(ctx: TurnContext, code: str, bids: list[_Bid], draw: float) -> None:
    """One RoW: walk the bids from best to worst; the first the railroad can
    still take (connected, not prohibited, room, cash) wins."""
    params = building_params(ctx.scenario).auction
    # 4.9 Influence only decides contests: an uncontested RoW goes for the cash
    # bid. It is read now, as an earlier contest this turn may have spent some.
    if len({bid.railroad for bid in bids}) > 1:
        bids = [
            bid.model_copy(
                update={"influence": _influence(ctx, bid.railroad, params.influence_bid_percent)}
            )
            if bid.touching
            else bid
            for bid in bids
        ]
    ordered = sorted(bids, key=lambda b: (-b.effective, -b.amount))
    # Ties go to the larger cash bid, then by a seeded draw (rotating the tied bids).
    top = [
        b for b in ordered if (b.effective, b.amount) == (ordered[0].effective, ordered[0].amount)
    ]
    if len(top) > 1:
        shift = int(draw * len(top))
        ordered = top[shift:] + top[:shift] + ordered[len(top) :]
    winner: _Bid | None = None
    for bid in ordered:
        rr = ctx.state.railroads.get(bid.railroad)
        if rr is None:
            continue
        problem = _cannot_take(ctx, rr, code, bid.amount, params.max_unbuilt_rows)
        if winner is not None:
            ctx.reject(
                bid.position,
                bid.order,
                reasons.OUTBID,
                f"{winner.railroad} won {code} with {money(winner.amount)}"
                + (
                    f" and {money(winner.influence)} political influence."
                    if winner.influence
                    else "."
                ),
            )
        elif problem is not None:
            ctx.reject(bid.position, bid.order, problem[0], problem[1])
        else:
            winner = bid
            influence = bid.influence
            ctx.transfer(railroad_account(rr.code), BANK, bid.amount, "RoW bought", ref=code)
            rr.rows.append(code)
            rr.political -= influence * 100 // max(1, params.influence_bid_percent)
            rr.political = max(0, rr.political)
            ctx.emit(
                RoWAcquired(
                    railroad=rr.code,
                    row=code,
                    price=bid.amount,
                    influence_used=influence,
                    bidders=len(bids),
                )
            )


def _influence(ctx: TurnContext, code: str, percent: int) -> int:
    rr = ctx.state.railroads.get(code)
    return rr.political * percent // 100 if rr is not None else 0


def _cannot_take(
    ctx: TurnContext, rr: Railroad, code: str, amount: int, max_rows: int
) -> tuple[str, str] | None:
    network_routes = rr.lines + rr.rows
    if not network.touches(ctx.scenario, network_routes, code):
        return (
            reasons.NOT_CONNECTED,
            f"{code} does not touch a line or RoW of {rr.code}.",
        )
    why = network.prohibited_reason(ctx.scenario, [*network_routes, code])
    if why is not None:
        return (reasons.PROHIBITED_ROUTE, f"{rr.code} may not own {code}: {why}.")
    if len(rr.rows) >= max_rows:
        return (
            reasons.ABOVE_MAXIMUM,
            f"{rr.code} already holds {len(rr.rows)} unbuilt RoWs; build one first.",
        )
    if rr.cash < amount:
        return (
            reasons.INSUFFICIENT_CASH,
            f"{rr.code} had {money(rr.cash)} when RoWs were settled; bids are paid in cash.",
        )
    return None


# --- 4.6 building -------------------------------------------------------------


def build_rows(ctx: TurnContext) -> None:
    """4.6 Building track on owned RoWs, in each president's order. The cost is
    paid from cash; any shortfall is financed automatically by bonds, then a short
    loan, within the railroad's limits [designed]. 7 Land grants."""
    climate = ctx.start.climate
    for position, order, rr in president_orders(ctx, "build_row"):
        assert isinstance(order, BuildRoW)
        code = order.row
        if code not in rr.rows:
            owned = ", ".join(rr.rows) or "none"
            ctx.reject(
                position,
                order,
                reasons.NOT_OWNER,
                f"{rr.code} does not own the unbuilt RoW {code} (its RoWs: {owned}).",
            )
            continue
        if at_war(ctx) and is_western(ctx.scenario, code):
            ctx.reject(
                position,
                order,
                reasons.NOT_ALLOWED_NOW,
                f"No western building during the Civil War; build {code} after the war.",
            )
            continue
        if not network.touches(ctx.scenario, rr.lines, code):
            ctx.reject(
                position,
                order,
                reasons.NOT_CONNECTED,
                f"{code} does not touch a line of {rr.code} yet; build the RoW between first.",
            )
            continue
        cost = building_cost(ctx.scenario, code, climate)
        before = (rr.bonds, rr.loan)
        uncovered = finance_shortfall(ctx, rr, cost - rr.cash)
        if uncovered > 0:
            ctx.reject(
                position,
                order,
                reasons.INSUFFICIENT_CASH,
                f"Building {code} costs {money(cost)} "
                f"({building_terms(ctx.scenario, code, climate).words()}); {rr.code} has "
                f"{money(rr.cash)} and can borrow only {money(cost - rr.cash - uncovered)} more.",
            )
            continue
        ctx.transfer(railroad_account(rr.code), BANK, cost, "track built", ref=code)
        rr.rows.remove(code)
        rr.lines.append(code)
        grant = land_grant(ctx.scenario, code)
        rr.land += grant
        ctx.emit(
            RoWBuilt(
                railroad=rr.code,
                row=code,
                cost=cost,
                bonds=rr.bonds - before[0],
                loan=rr.loan - before[1],
                land_granted=grant,
                **building_terms(ctx.scenario, code, climate)._asdict(),
            )
        )


# --- 7 land sales -------------------------------------------------------------


def land_sales(ctx: TurnContext) -> None:
    """7 Selling land-grant land at the starting climate's price per acre [designed]."""
    price = building_params(ctx.scenario).land.price_per_acre[ctx.start.climate]
    for position, order, rr in president_orders(ctx, "sell_land"):
        assert isinstance(order, SellLand)
        acres = min(order.acres, rr.land)
        if acres <= 0:
            ctx.reject(
                position,
                order,
                reasons.NOT_OWNER,
                f"{rr.code} has no land; land comes from building RoWs with a grant.",
            )
            continue
        if acres < order.acres:
            ctx.reject(
                position,
                order,
                reasons.ABOVE_MAXIMUM,
                f"{rr.code} has only {rr.land} acres.",
                cut_to=SellLand(railroad=rr.code, acres=acres),
            )
        amount = acres * price
        ctx.transfer(BANK, railroad_account(rr.code), amount, "land sold", ref=rr.code)
        rr.land -= acres
        ctx.emit(
            LandSold(
                railroad=rr.code,
                position=rr.president,
                acres=acres,
                price_per_acre=price,
                amount=amount,
            )
        )
