"""The 1841 start of a game (rules 3.3 starting assets, 4.1 starting railroads).

`new_game` builds the turn-1 state from the scenario's start.toml and
characters.toml; every number comes from there.
"""

from pydantic import BaseModel

from turnproc.core import rng
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.state import (
    GameState,
    PrivateCompany,
    Railroad,
    Tycoon,
)
from turnproc.scenario.model import Scenario


class StartTycoon(BaseModel):
    cash: int
    shares_each: int


class StartRailroad(BaseModel):
    code: str
    authorized: int
    issued: int
    price: int
    cash: int
    efficiency: int


class StartPCs(BaseModel):
    available: list[str]
    price_factor: int


class StartClimate(BaseModel):
    start: str = "Normal"


class StartParams(BaseModel):
    """start.toml"""

    tycoon: StartTycoon
    climate: StartClimate = StartClimate()
    railroads: list[StartRailroad]
    pcs: StartPCs


class CharacterParams(BaseModel):
    """characters.toml"""

    names: list[str]


class PlayerSetup(BaseModel):
    """Who holds a position at the start: a human (with a chosen name) or the computer."""

    position: int
    character: str | None = None
    human: bool = False
    personality: str = ""


def pc_asking_price(scenario: Scenario, code: str) -> int:
    """2.3 Asking price of a newly released PC [designed]: longer routes between
    bigger towns ask more; rounded down to $10. Worked out once per PC."""
    prices: dict[str, int] = scenario.derived("pc_asking_prices", lambda _: {})
    price = prices.get(code)
    if price is None:
        price = prices[code] = _asking_price(scenario, code)
    return price


def _asking_price(scenario: Scenario, code: str) -> int:
    """`pc_asking_price` worked out."""
    params = scenario.section("start", StartParams)
    route = scenario.routes[code]
    value = scenario.towns[route.a].value + scenario.towns[route.b].value
    price = route.length * value * params.pcs.price_factor // 100
    return max(10, price // 10 * 10)


def assign_names(
    wanted: dict[int, str | None], taken: set[str], pool: list[str], seed: int
) -> dict[int, str]:
    """3.2 Unique character names: a wanted name if free, else a random historical one."""
    chooser = rng.stream(seed, 0, "character-names")
    free = [name for name in pool if name not in taken]
    chooser.shuffle(free)
    names: dict[int, str] = {}
    used = {name.casefold() for name in taken}
    for position in sorted(wanted):
        name = (wanted[position] or "").strip()
        if not name or name.casefold() in used:
            name = next((n for n in free if n.casefold() not in used), f"Tycoon {position}")
        used.add(name.casefold())
        names[position] = name
    return names


def new_game(
    scenario: Scenario, seed: int, players: list[PlayerSetup], game: str = ""
) -> GameState:
    """Turn 1 of a new game: 15 positions, the starting railroads and PCs for sale."""
    params = scenario.section("start", StartParams)
    pool = scenario.section("characters", CharacterParams).names
    positions = int(scenario.params.get("scenario", {}).get("positions", 15))
    setups = {p.position: p for p in players}
    names = assign_names(
        {pos: setups[pos].character if pos in setups else None for pos in range(1, positions + 1)},
        set(),
        pool,
        seed,
    )
    railroads: dict[str, Railroad] = {}
    pcs: dict[str, PrivateCompany] = {}
    for start in params.railroads:
        route = scenario.routes[start.code]
        railroads[start.code] = Railroad(
            code=start.code,
            number=route.number,
            name=route.name,
            founded_turn=0,
            lines=[start.code],
            cash=start.cash,
            authorized=start.authorized,
            issued=start.issued,
            price=start.price,
            efficiency=start.efficiency,
            locomotive=1,
        )
        pcs[start.code] = PrivateCompany(code=start.code, status="incorporated")
    for route in sorted(scenario.routes.values(), key=lambda r: r.number):
        if route.kind != "PC" or route.code in pcs:
            continue
        available = route.code in params.pcs.available
        pcs[route.code] = PrivateCompany(
            code=route.code,
            status="available" if available else "unreleased",
            asking_price=pc_asking_price(scenario, route.code) if available else 0,
            released_turn=1 if available else None,
        )
    tycoons = [
        Tycoon(
            position=pos,
            character=names[pos],
            human=setups[pos].human if pos in setups else False,
            personality=setups[pos].personality if pos in setups else "",
            cash=params.tycoon.cash,
            holdings={code: params.tycoon.shares_each for code in railroads},
        )
        for pos in range(1, positions + 1)
    ]
    return GameState(
        scenario=scenario.name,
        game=game,
        seed=seed,
        turn=1,
        climate=scenario.section("climate", ClimateTable).index(params.climate.start),
        tycoons=tycoons,
        railroads=railroads,
        pcs=pcs,
        technologies_available=["A"],
    )
