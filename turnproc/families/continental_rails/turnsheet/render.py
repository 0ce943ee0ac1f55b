"""10 The turnsheet sent with every report: blank, or pre-filled with the orders in force.

`render_turnsheet` builds it from the state at the start of the turn with
the hints the rules ask for (9.7, 10): credit available, PCs for sale with
their asking prices, the most shares each railroad may be bid for, a
dividend's range and what the railroad's cash can pay... It writes exactly
the syntax `parse_turnsheet` reads, so a sheet returned untouched (with the
secret filled in) parses to the orders it showed.
"""

from dataclasses import dataclass
from typing import Any

from jinja2 import Template

from turnproc.core.money import money
from turnproc.families.continental_rails.engine.network import (
    prohibited_reason,
    route_owners,
    touches,
    towns_of,
)
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.improvements import (
    grand_station_towns,
    per_mile_basis,
    technology_cost,
    upgrade_cost,
)
from turnproc.families.continental_rails.engine.steps.operations import technology_params
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    bond_room,
    issue_price,
    loan_room,
    max_new_shares,
    track_miles,
)
from turnproc.families.continental_rails.engine.steps.rights_of_way import (
    building_cost,
    building_params,
    building_terms,
    double_track_cost,
    min_bid,
)
from turnproc.families.continental_rails.engine.valuation import credit_limit
from turnproc.families.continental_rails.turnsheet.check import bid_limits, may_rename
from turnproc.families.continental_rails.turnsheet.language import format_order
from turnproc.families.continental_rails.turnsheet.templating import template
from turnproc.scenario.model import Route, Scenario

SECRET_PLACEHOLDER = "____________"


@dataclass(frozen=True)
class _PCForSale:
    code: str
    number: int
    name: str
    price: int
    offered: bool


def turnsheet_template() -> Template:
    """The compiled turnsheet template, once per process (the report renderer
    compiles it before forking its workers)."""
    return template("turnsheet.txt.j2")


def render_turnsheet(
    state: GameState,
    scenario: Scenario,
    position: int,
    *,
    game: str | None = None,
    orders: PlayerOrders | None = None,
    secret: str | None = None,
    deadline: str | None = None,
) -> str:
    """The turnsheet of `position` for `state.turn`; pre-filled when `orders` is given.

    `secret` is printed only when asked (e.g. a sheet sent privately on
    request); normally the player writes it in. `deadline` is printed as given.
    """
    me = state.tycoon(position)
    credit = max(0, credit_limit(state, scenario, position, state.climate) - me.loan)
    limits = bid_limits(state, scenario, position)
    presides = sorted(code for code, rr in state.railroads.items() if rr.president == position)
    max_pcs = int(scenario.params.get("auctions", {}).get("auction", {}).get("max_pcs", 2))
    owners = route_owners(state)
    personal_orders: list[str] = []
    railroad_orders: dict[str, list[str]] = {code: [] for code in presides}
    for order in orders.orders if orders else []:
        rr = getattr(order, "railroad", None)
        if order.kind in _RAILROAD_KINDS and rr in railroad_orders:
            railroad_orders[rr].append(format_order(order, with_railroad=False))
        else:
            personal_orders.append(format_order(order))
    context: dict[str, Any] = {
        "game": game or state.game or "GAME",
        "turn": state.turn,
        "position": position,
        "secret": secret or SECRET_PLACEHOLDER,
        "character": me.character,
        "deadline": deadline,
        "prefilled": orders is not None,
        "cash": me.cash,
        "loan": me.loan,
        "credit": credit,
        "personal_orders": personal_orders,
        "can_bid": len(me.pcs) < max_pcs,
        "pcs_owned": len(me.pcs),
        "max_pcs": max_pcs,
        "pcs_for_sale": _pcs_for_sale(state, scenario, position),
        "my_pcs": sorted(me.pcs),
        "my_pcs_codes": ", ".join(sorted(me.pcs)),
        "my_pcs_offer": ", ".join(
            f"{code} at most {money(_max_asking(state, code))}" for code in sorted(me.pcs)
        ),
        "presides": presides,
        "lent_to": ", ".join(
            f"{rr.code} owes you {money(rr.owed_to_president)}"
            for rr in state.railroads.values()
            if rr.lender == position and rr.owed_to_president > 0
        ),
        "name_allowed": may_rename(state, position),
        "stocks": [
            {
                "code": code,
                "number": rr.number,
                "price": rr.price,
                "held": me.holdings.get(code, 0),
                "short": me.shorts.get(code, 0),
                "max_bid": limits.get(code, 0),
            }
            for code, rr in sorted(state.railroads.items(), key=lambda item: item[1].number)
        ],
        "best_locomotive": state.best_locomotive,
        "railroads": [
            _railroad_view(state, scenario, code, owners, railroad_orders[code])
            for code in presides
        ],
    }
    return turnsheet_template().render(context)


_RAILROAD_KINDS = frozenset(
    {
        "dividend",
        "issue_stock",
        "issue_bonds",
        "redeem_bonds",
        "short_loan",
        "repay_short_loan",
        "bid_row",
        "build_row",
        "sell_land",
        "double_track",
        "upgrade_locomotive",
        "buy_technology",
        "political_donation",
        "rate_war",
        "capital_improvement",
        "merge_railroads",
    }
)


def _pcs_for_sale(state: GameState, scenario: Scenario, position: int) -> list[_PCForSale]:
    """9.5 PCs available and offered for sale, with their asking prices."""
    result = []
    for code, pc in state.pcs.items():
        offered = pc.status == "owned" and pc.for_sale and pc.owner != position
        if pc.status != "available" and not offered:
            continue
        route = scenario.routes.get(code)
        result.append(
            _PCForSale(
                code=code,
                number=route.number if route else 0,
                name=route.name if route else "",
                price=pc.asking_price,
                offered=offered,
            )
        )
    return sorted(result, key=lambda pc: pc.number)


def _max_asking(state: GameState, code: str) -> int:
    """9.5 An owner may raise the asking price at most 20% a turn."""
    pc = state.pcs.get(code)
    return (pc.asking_price * 120 // 100) if pc else 0


_ROWS_LISTED = 8
_LINES_LISTED = 12  # a hint line stays well under the parser's line limit


def _listed(items: list[str]) -> str:
    more = len(items) - _LINES_LISTED
    return ", ".join(items[:_LINES_LISTED]) + (f" and {more} more" if more > 0 else "")


def _row_view(scenario: Scenario, code: str, climate: int) -> dict[str, Any]:
    return {
        "code": code,
        "length": scenario.routes[code].length,
        "towns": " - ".join(
            scenario.towns[t].name for t in scenario.routes[code].towns if t in scenario.towns
        ),
        "min_bid": min_bid(scenario, code),
        "build": building_cost(scenario, code, climate),
        "terrain": building_terms(scenario, code, climate).terrain_percent,
    }


def _rights_of_way(scenario: Scenario) -> list[Route]:
    """4.6 The routes a railroad may bid for, by number (once a scenario)."""
    return sorted(
        (route for route in scenario.routes.values() if route.kind == "RoW"),
        key=lambda r: r.number,
    )


def _railroad_view(
    state: GameState, scenario: Scenario, code: str, owners: dict[str, str], orders: list[str]
) -> dict[str, Any]:
    rr = state.railroads[code]
    mine = [*rr.lines, *rr.rows]
    reached = towns_of(scenario, mine)  # what `touches` asks of each route
    nearby = [
        route.code
        for route in scenario.derived("turnsheet rights of way", _rights_of_way)
        if route.code not in owners
        and (route.a in reached or route.b in reached)
        and prohibited_reason(scenario, [*mine, route.code]) is None
    ]
    others = [
        other
        for other, road in sorted(state.railroads.items())
        if other != code
        and road.president == rr.president
        and any(touches(scenario, rr.lines, x) for x in road.lines if x in scenario.routes)
        and prohibited_reason(scenario, [*rr.lines, *road.lines]) is None
    ]
    my_pairs = {frozenset(scenario.routes[x].towns) for x in rr.lines if x in scenario.routes}
    rivals = [
        other
        for other, road in sorted(state.railroads.items())
        if other != code
        and my_pairs
        & {frozenset(scenario.routes[x].towns) for x in road.lines if x in scenario.routes}
    ]
    open_techs = [
        t
        for t in state.technologies_available
        if t not in rr.technologies and not (t == "A" and rr.grand_station)
    ]
    climate = state.climate
    tech = technology_params(scenario)
    building = building_params(scenario).building
    locomotives = {loco.type: loco.name for loco in tech.locomotives}
    miles = track_miles(scenario, rr)
    stations = [scenario.towns[t].name for t in grand_station_towns(scenario, rr)]
    return {
        "code": code,
        "number": rr.number,
        "name": rr.name,
        "cash": rr.cash,
        "bonds": rr.bonds,
        "loan": rr.loan,
        "treasury": rr.treasury,
        "issued": rr.issued,
        "land": rr.land,
        "locomotive": rr.locomotive,
        "technologies": ", ".join(rr.technologies),
        "technologies_open": ", ".join(open_techs),
        "max_dividend": min(99, rr.cash // rr.issued) if rr.issued else 0,
        "rows": ", ".join(rr.rows),
        # 4.6, 4.7 What a bid and a build would cost, from the engine's own rules.
        "rows_owned": [_row_view(scenario, x, climate) for x in rr.rows if x in scenario.routes],
        "rows_nearby": [_row_view(scenario, x, climate) for x in nearby[:_ROWS_LISTED]],
        "rows_more": max(0, len(nearby) - _ROWS_LISTED),
        "building_basis": f"miles × {money(building.cost_per_mile)} × terrain % × "
        f"{building.climate_percent[climate]}% climate + {money(building.town_cost_per_value)} "
        "a point of town value (4.6)",
        "double": _listed(
            [
                f"{x} {money(double_track_cost(scenario, x, climate))}"
                for x in rr.lines
                if x not in rr.double_tracked and x in scenario.routes
            ]
        ),
        # 4.17, 4.18 By the mile of track: the same words as the receipt and the report.
        "locomotives": ", ".join(
            f"{n} {locomotives.get(n, '?')} {money(upgrade_cost(scenario, rr, n))}"
            for n in range(rr.locomotive + 1, state.best_locomotive + 1)
        ),
        "locomotives_basis": f"{money(tech.upgrade_cost_per_mile)} a mile a type up × "
        f"{miles:,} miles of track",
        "technologies_costs": ", ".join(
            f"{t} {money(technology_cost(scenario, rr, t))}" for t in open_techs
        ),
        "technologies_basis": per_mile_basis(tech.technology_cost_per_mile, miles),
        "stations": " or ".join(stations),
        "bond_room": bond_room(scenario, rr),
        "loan_room": loan_room(scenario, rr),
        "new_shares": max_new_shares(scenario, rr, state.climate, state.turn),
        "issue_price": issue_price(scenario, rr),
        "rivals": ", ".join(rivals),
        "mergeable": ", ".join(others),
        "orders": orders,
    }
