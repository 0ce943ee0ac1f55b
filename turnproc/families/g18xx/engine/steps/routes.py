"""4.2.3: run trains on routes and what they earn."""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.routes import (
    Link,
    Route,
    Stop,
    best_runs,
    build_links,
    enumerate_routes,
)
from turnproc.families.g18xx.engine.state import (
    ActionRefused,
    Holder,
    Train,
)
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.track import chain_stops

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def links(game: "Game") -> dict[Stop, list[Link]]:
    """The map's links, rebuilt only when a tile is laid."""
    if game.links_cache is None or game.links_cache[0] != game.map_version:
        game.links_cache = (game.map_version, build_links(game.hexes, game.title.layout))
    return game.links_cache[1]


def stop_value(game: "Game", company: str, stops: Iterable[Stop], train: Train) -> int | None:
    """A train's earnings on these stops (4.2.3i, 4.2.3.1), None if too long."""
    stops = list(stops)
    towns = sum(1 for h, i in stops if game.hexes[h].nodes[i].kind == "town")
    cities = len(stops) - towns
    if train.type.towns_free:
        fits = cities <= train.cities
    elif train.type.towns:
        # an n+m train: n cities at most, n+m stops at most (18Dixie 4.4h)
        fits = cities <= train.cities and len(stops) <= train.cities + train.type.towns
    else:
        fits = len(stops) <= train.cities
    if not fits:
        return None
    revenue = sum(game.node_revenue(h, i) for h, i in stops) * train.multiplier
    bonus = game.companies[company].route_bonus
    return revenue + sum(bonus.get(h, 0) for h in {h for h, _ in stops})


def best_routes(game: "Game", company: str) -> tuple[int, dict[str, Route]]:
    """The routes earning most for the company's trains (4.2.3.1)."""
    trains = {t.id: t for t in game.trains_of(company)}
    if not trains:
        return 0, {}
    widest = max(t.cities for t in trains.values())
    longest = max(
        (t.cities + t.type.towns for t in trains.values() if not t.type.towns_free), default=0
    )
    most_stops = 99 if any(t.type.towns_free for t in trains.values()) else longest
    routes = enumerate_routes(game.hexes, links(game), company, widest, most_stops)
    return best_runs(
        routes,
        sorted(trains),
        lambda route, train: stop_value(game, company, route.stops, trains[train]),
    )


def route_revenue(game: "Game", company: str, route: act.Route) -> int:
    """4.2.3: the stops a route joins, their values, the train's limit."""
    train = next((t for t in game.trains_of(company) if t.id == route.train), None)
    if train is None:
        raise ActionRefused(f"{company} has no train {route.train}")
    stops: list[tuple[str, int]] = []
    try:
        for chain in route.connections:
            for stop in chain_stops(game.hexes, game.title.layout, chain):
                if stop not in stops:
                    stops.append(stop)
    except ValueError as exc:
        raise ActionRefused(f"route of {route.train}: {exc}") from None
    if len(stops) < 2:
        raise ActionRefused(f"route of {route.train} needs two stops (4.2.3j)")
    if not any(
        company in game.hexes[h].tokens[i] for h, i in stops if i < len(game.hexes[h].tokens)
    ):
        raise ActionRefused(f"route of {route.train} has no station of {company} (4.2.3f)")
    revenue = stop_value(game, company, stops, train)
    if revenue is None:
        raise ActionRefused(f"a {train.name} train reaches at most {train.cities} stops (4.2.3i)")
    return revenue


def run_routes(game: "Game", action: act.RunRoutes) -> None:
    """4.2.3: each train runs once; the revenue waits for the dividend step."""
    company = game.current_company(action)
    assert game.turn is not None
    if game.turn.ran:
        raise ActionRefused(f"{company} has already run its trains")
    used = [r.train for r in action.routes]
    if len(set(used)) != len(used):
        raise ActionRefused("each train runs once")
    total = 0
    for route in action.routes:
        revenue = route_revenue(game, company, route)
        if route.revenue is not None and route.revenue != revenue:
            if not game.recorded_revenue_stands:
                raise ActionRefused(
                    f"route of {route.train} earns ${revenue}, not ${route.revenue}"
                )
            # A recorded game's stored revenue is what its players were paid.
            game.revenue_differences.append((action.id, route.train, revenue, route.revenue))
            revenue = route.revenue
        total += revenue
    game.turn.revenue = total
    game.rules.after_run(game, company)


def has_route(game: "Game", company: str) -> bool:
    """Whether track links one of the company's stations to another stop."""
    found = links(game)
    return any(
        found.get((h, i))
        for h, hex_state in game.hexes.items()
        for i, held in enumerate(hex_state.tokens)
        if company in held
    )


class RunRoutes(Step):
    """4.2.3: the operating company runs its trains."""

    name = "run routes"
    actions = frozenset(("run_routes",))
    once_a_turn = True

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.RunRoutes)
        run_routes(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open until the company has run, if it has a train and a route."""
        turn = game.turn
        assert turn is not None
        company = turn.company
        if turn.revenue is not None or turn.ran or not game.trains_of(company):
            return False
        return has_route(game, company)
