"""Best routes (4.2.3): every legal route a company can run, and the set of
routes for its trains that earns most.

The track is first reduced to links — walks of track between two adjacent
stops — built once per map version. Routes are simple paths over links that
never reuse a piece of track or a hex side, pass through no full city of other
companies and no off-board area, and include one of the company's stations.
The trains then share out routes that use no common track, searched branch and
bound, best routes first.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from turnproc.families.g18xx.engine.track import HexState, neighbour

Stop = tuple[str, int]  # (hex, node index)


@dataclass(frozen=True)
class Link:
    """Track between two stops with no stop in between."""

    start: Stop
    end: Stop
    paths: frozenset[int]  # ids of the pieces of track used
    sides: frozenset[tuple[str, int]]  # hex sides crossed, named from one side
    chain: tuple[str, ...]  # hexes from start to end


@dataclass(frozen=True)
class Route:
    stops: tuple[Stop, ...]
    paths: frozenset[int]
    links: tuple[Link, ...]
    cities: int  # cities and off-board areas
    towns: int


def build_links(hexes: dict[str, HexState], layout: str) -> dict[Stop, list[Link]]:
    """All links of the map, from each of their two ends."""
    path_ids: dict[tuple[str, int], int] = {}
    for name, state in hexes.items():
        for index in range(len(state.track)):
            path_ids[(name, index)] = len(path_ids)
    links: dict[Stop, list[Link]] = {}

    def side(hex_name: str, edge: int) -> tuple[str, int]:
        other = neighbour(hex_name, edge, layout)
        return min((hex_name, edge), (other, (edge + 3) % 6))

    for name, state in hexes.items():
        for node in range(len(state.nodes)):
            start = (name, node)
            here = f"n{node}"
            for index, (a, b) in enumerate(state.track):
                if here not in (a, b):
                    continue
                far = b if a == here else a
                used = frozenset({path_ids[(name, index)]})
                if isinstance(far, str):
                    end = (name, int(far[1:]))
                    links.setdefault(start, []).append(Link(start, end, used, frozenset(), (name,)))
                    continue
                # walk on across hex sides until the track reaches a stop
                todo: list[
                    tuple[str, int, frozenset[int], frozenset[tuple[str, int]], tuple[str, ...]]
                ]
                todo = [(name, far, used, frozenset(), (name,))]
                while todo:
                    at, edge, paths, sides, chain = todo.pop()
                    crossing = side(at, edge)
                    if crossing in sides:
                        continue
                    nxt = neighbour(at, edge, layout)
                    there = hexes.get(nxt)
                    entry = (edge + 3) % 6
                    if there is None:
                        continue
                    for j, (c, d) in enumerate(there.track):
                        if entry not in (c, d):
                            continue
                        out = d if c == entry else c
                        pid = path_ids[(nxt, j)]
                        if pid in paths:
                            continue
                        more = paths | {pid}
                        crossed = sides | {crossing}
                        if isinstance(out, str):
                            end = (nxt, int(out[1:]))
                            links.setdefault(start, []).append(
                                Link(start, end, more, crossed, (*chain, nxt))
                            )
                        else:
                            todo.append((nxt, out, more, crossed, (*chain, nxt)))
    return links


def enumerate_routes(
    hexes: dict[str, HexState],
    links: dict[Stop, list[Link]],
    company: str,
    max_cities: int,
    max_stops: int,
) -> list[Route]:
    """Every legal route with at most `max_cities` cities and off-board areas
    and at most `max_stops` stops in all."""
    stations = {
        (name, i) for name, h in hexes.items() for i, held in enumerate(h.tokens) if company in held
    }
    if not stations:
        return []

    def is_city(stop: Stop) -> bool:
        return hexes[stop[0]].nodes[stop[1]].kind != "town"

    def passable(stop: Stop) -> bool:
        node = hexes[stop[0]].nodes[stop[1]]
        return (
            node.kind != "offboard"
            and not node.terminal
            and not hexes[stop[0]].blocked_for(stop[1], company)
        )

    # stops the company can reach: through passable stops from its stations
    reach = set(stations)
    todo = list(stations)
    while todo:
        stop = todo.pop()
        if stop not in stations and not passable(stop):
            continue
        for link in links.get(stop, ()):
            if link.end not in reach:
                reach.add(link.end)
                todo.append(link.end)

    found: dict[frozenset[int], Route] = {}

    def walk(
        stops: list[Stop],
        paths: frozenset[int],
        sides: frozenset[tuple[str, int]],
        used: list[Link],
        cities: int,
    ) -> None:
        here = stops[-1]
        if len(stops) >= 2 and any(s in stations for s in stops) and paths not in found:
            found[paths] = Route(tuple(stops), paths, tuple(used), cities, len(stops) - cities)
        if len(stops) >= 2 and not passable(here):
            return
        for link in links.get(here, ()):
            if link.end in stops or link.paths & paths or link.sides & sides:
                continue
            more = cities + (1 if is_city(link.end) else 0)
            if more > max_cities or len(stops) + 1 > max_stops:
                continue
            stops.append(link.end)
            used.append(link)
            walk(stops, paths | link.paths, sides | link.sides, used, more)
            stops.pop()
            used.pop()

    for stop in sorted(reach):
        walk([stop], frozenset(), frozenset(), [], 1 if is_city(stop) else 0)
    return list(found.values())


def best_runs(
    routes: Iterable[Route],
    trains: list[str],
    revenue: Callable[[Route, str], int | None],
) -> tuple[int, dict[str, Route]]:
    """The most the trains earn on routes sharing no track; `revenue` gives a
    route's earnings for a train, or None when the train cannot run it."""
    routes = list(routes)
    options: list[list[tuple[int, Route]]] = []
    for train in trains:
        fits = [(earned, r) for r in routes if (earned := revenue(r, train) or 0) > 0]
        fits.sort(key=lambda item: -item[0])
        options.append(fits)
    order = sorted(range(len(trains)), key=lambda i: -(options[i][0][0] if options[i] else 0))
    ceilings = [options[i][0][0] if options[i] else 0 for i in order]
    rest = [sum(ceilings[k:]) for k in range(len(order) + 1)]
    best_total = 0
    best_pick: dict[str, Route] = {}
    pick: dict[str, Route] = {}

    def search(k: int, used: frozenset[int], total: int) -> None:
        nonlocal best_total, best_pick
        if total > best_total:
            best_total, best_pick = total, dict(pick)
        if k == len(order) or total + rest[k] <= best_total:
            return
        index = order[k]
        for earned, route in options[index]:
            if total + earned + rest[k + 1] <= best_total:
                break
            if route.paths & used:
                continue
            pick[trains[index]] = route
            search(k + 1, used | route.paths, total + earned)
            del pick[trains[index]]
        search(k + 1, used, total)

    search(0, frozenset(), 0)
    return best_total, best_pick
