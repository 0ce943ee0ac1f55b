"""Graph questions about railroads' lines (rules 2.1-2.6, 4.8).

Pure functions over the scenario map and lists of route codes.
"""

from collections.abc import Iterable

from pydantic import BaseModel

from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Route, Scenario


class MapParams(BaseModel):
    """map.toml: towns no railroad may run through (4.8 prohibited routes, rule 2)."""

    no_through: list[str] = []


def towns_of(scenario: Scenario, routes: Iterable[str]) -> set[str]:
    towns: set[str] = set()
    add = towns.add
    by_code = scenario.routes
    for code in routes:
        route = by_code[code]
        add(route.a)
        add(route.b)
    return towns


def is_connected(scenario: Scenario, routes: Iterable[str]) -> bool:
    """2.5 All lines of a railroad form one connected network."""
    codes = list(routes)
    if len(codes) <= 1:
        return True
    adjacency: dict[str, set[str]] = {}
    for code in codes:
        route = scenario.routes[code]
        adjacency.setdefault(route.a, set()).add(route.b)
        adjacency.setdefault(route.b, set()).add(route.a)
    start = next(iter(adjacency))
    seen = {start}
    frontier = [start]
    while frontier:
        town = frontier.pop()
        for other in adjacency[town]:
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return len(seen) == len(adjacency)


def touches(scenario: Scenario, routes: Iterable[str], code: str) -> bool:
    """Whether route `code` shares a town with any of `routes`."""
    route = scenario.routes[code]
    towns = towns_of(scenario, routes)
    return route.a in towns or route.b in towns


def prohibited_reason(scenario: Scenario, routes: Iterable[str]) -> str | None:
    """4.8 Why this set of routes may not belong to one railroad, or None.

    Rule 1: not both routes of a double route. Rule 2: at most one route
    touching each no-through town.
    """
    codes = set(routes)
    by_code = scenario.routes
    # Each rule is tested in one pass over the routes; the first offence in
    # the order the rules name them (codes, then no-through towns) is told.
    doubled = [code for code in codes if (other := by_code[code].double_with) and other in codes]
    if doubled:
        code = min(doubled)
        return f"both routes of the double route {code}/{by_code[code].double_with}"
    no_through = scenario.section("map", MapParams).no_through
    if not no_through:
        return None
    watched = set(no_through)
    into: dict[str, list[str]] = {}
    for code in codes:
        route = by_code[code]
        if route.a in watched:
            into.setdefault(route.a, []).append(code)
        if route.b in watched and route.b != route.a:
            into.setdefault(route.b, []).append(code)
    for town in no_through:
        at = into.get(town, [])
        if len(at) > 1:
            name = scenario.towns[town].name if town in scenario.towns else town
            return f"more than one route into {name} ({', '.join(sorted(at))})"
    return None


def regions_linked(scenario: Scenario, routes: Iterable[str]) -> set[str]:
    """1.2 Regions whose starred towns the routes reach."""
    by_route = scenario.derived("route_regions", _route_regions)
    regions: set[str] = set()
    for code in routes:
        found = by_route.get(code)
        if found is None:  # a route into a town missing from the map, or no route
            found = _regions_of(scenario, scenario.routes[code])
        regions |= found
    return regions


def _regions_of(scenario: Scenario, route: Route) -> frozenset[str]:
    """The regions of a route's starred towns."""
    regions = (scenario.towns[route.a].region, scenario.towns[route.b].region)
    return frozenset(region for region in regions if region)


def _route_regions(scenario: Scenario) -> dict[str, frozenset[str]]:
    """`_regions_of` each route whose towns are on the map, worked out once
    per scenario: the regions of railroads' lines are asked for by the hundred
    every turn."""
    towns = scenario.towns
    return {
        code: _regions_of(scenario, route)
        for code, route in scenario.routes.items()
        if route.a in towns and route.b in towns
    }


def parallel_routes(
    scenario: Scenario, routes: Iterable[str], rival_routes: Iterable[str]
) -> list[tuple[str, str]]:
    """4.16 Pairs of routes (ours, theirs) joining the same two towns."""
    by_towns: dict[frozenset[str], list[str]] = {}
    for code in rival_routes:
        by_towns.setdefault(frozenset(scenario.routes[code].towns), []).append(code)
    pairs = []
    for code in routes:
        for rival in by_towns.get(frozenset(scenario.routes[code].towns), []):
            pairs.append((code, rival))
    return pairs


def route_owners(state: GameState) -> dict[str, str]:
    """Route code -> railroad code owning it (built line or unbuilt RoW)."""
    owners: dict[str, str] = {}
    for rr in state.railroads.values():
        owner = rr.code
        for code in rr.lines:
            owners[code] = owner
        for code in rr.rows:
            owners[code] = owner
    return owners
