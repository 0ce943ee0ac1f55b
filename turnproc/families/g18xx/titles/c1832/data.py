"""1832: The South — the title's data (docs/rules-1832.md), loaded from
title.json, tiles.json and extras.json beside this module and checked for
consistency. The numbers live in those files; this module holds their shape.

The rules text (the seed) gives trains, phases, cash, certificate limits,
privates, pars, companies and the yellow and green tile counts; the map, the
market grid and the brown tile counts are facts of the published game
(marked [map/charts] in the rules reference).
"""

import json
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from turnproc.core.errors import TurnprocError

Colour = Literal["yellow", "green", "brown", "gray"]
Endpoint = int | str  # an edge 0-5 or a node "n<index>"
FILES = ("title.json", "tiles.json", "extras.json")


class TitleDataError(TurnprocError):
    """The 1832 data files are malformed or contradict each other."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Node(_Data):
    """A city, town, off-board area or the West Virginia Coal Fields. Values
    that change with the game are keyed by the first phase of their range
    (8.3: first value in phases 2-4, second in 5-6, last from 8)."""

    kind: Literal["city", "town", "offboard", "coal_fields"]
    revenue: int | dict[str, int] = 0
    slots: int = 1


class Tile(_Data):
    """A tile of the manifest (23): colour, count and legal upgrades."""

    colour: Colour = Field(alias="color")
    count: int
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...]
    label: str | None = None
    upgrades: tuple[str, ...] = ()
    only_in: tuple[str, ...] = ()  # 6.4.4: the only hexes this tile may be laid in


class Hex(_Data):
    """A hex of the map: empty, town, double town, medium city (6.4.2) or
    city, or a printed (yellow, gray, red) hex with its own track."""

    hex: str
    name: str | None = None
    colour: Literal["white", "yellow", "gray", "red"] = Field(default="white", alias="color")
    kind: Literal["plain", "town", "double_town", "medium_city", "city"] = "plain"
    cost: int = 0
    terrain: Literal["mountain", "water"] | None = None
    port: bool = False  # an anchor: the Port token may go here (16.2, P3)
    brown_tile: str | None = None  # 6.4.4: the only brown tile this city takes
    label: str | None = None
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...] = ()


class Seats(_Data):
    cash: int
    cash_southern_bank: int


class CertificateLimits(_Data):
    """Table 2 (21): a row per number of players, a column per number of
    companies active or available to be started (10, 9, 8, 7, 6 or fewer)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    companies: tuple[int, ...]

    def row(self, players: int) -> tuple[int, ...]:
        extra = self.model_extra or {}
        value = extra.get(str(players))
        if value is None:
            raise KeyError(f"no certificate limits for {players} players")
        return tuple(int(v) for v in value)


class Phase(_Data):
    """Table 1 (21) and 4.2: one row per phase."""

    name: str
    tiles: tuple[Colour, ...]
    train_limit: int
    operating_rounds: int
    offboard: str  # the phase whose off-board column applies (8.3)
    mergers: Literal["none", "yes", "last chance"]
    privates: str
    key_west: bool = False  # 7.5: the Key West token may be on the map


class Train(_Data):
    name: str
    count: int | None  # None: unlimited (2.5, 12-trains)
    price: int
    distance: int
    rusts: str | None = None  # the first one bought scraps trains of this name
    closes_privates: bool = False
    removes_private_tokens: bool = False
    removes_key_west: bool = False


class Private(_Data):
    id: str
    name: str
    value: int
    revenue: int
    company_may_buy: bool
    token: Literal["cotton", "port"] | None = None
    blocks: tuple[str, ...] = ()
    variant: str | None = None
    survives_phase_5: bool = False
    president_share_of: str | None = None


class Company(_Data):
    id: str
    name: str
    home: str
    home_city: int | None = None  # the city of a multi-city home (Atlanta)
    tokens: tuple[int, ...]
    key_west: bool = False
    started: int


class Title(_Data):
    """title.json: the rules text's numbers plus the published map and market."""

    title: Literal["1832"]
    layout: Literal["pointy"]
    bank: int
    starting_capital: dict[Literal["standard", "southern_bank"], int]
    players: dict[str, Seats]
    certificate_limits: CertificateLimits
    shares_per_company: int
    president_shares: int
    shares_to_operate: int
    holding_limit_percent: int
    market_pool_limit_percent: int
    par_prices: tuple[int, ...]
    market: tuple[tuple[str, ...], ...]
    phases: tuple[Phase, ...]
    trains: tuple[Train, ...]
    privates: tuple[Private, ...]
    companies: tuple[Company, ...]
    hexes: tuple[Hex, ...]


class Systems(_Data):
    names: tuple[str, ...]
    shares: int
    president_shares: int
    exchange_percent: int
    token_cost: int
    par_cap: int
    redemptions_per_stock_round: int
    extra_yellow_tiles: int


class Redemption(_Data):
    most_held_percent: int
    least_outside_percent: int
    per_stock_round: int


class Reissue(_Data):
    percent_of_price: int
    pars: tuple[int, ...]


class PrivateSale(_Data):
    least_percent: int
    most_percent: int
    phase_2_most_percent: int
    phase_2_privates: tuple[str, ...]


class CoalFields(_Data):
    hex: str
    tokens: int
    price: int
    owner_share: int


class Miami(_Data):
    hex: str
    first_run_zero_before_phase: str
    key_west_bonus: int
    key_west_cost: int
    key_west_from_phase: str


class Cotton(_Data):
    private: str
    bonus: int
    cities: tuple[str, ...]


class Port(_Data):
    private: str
    owner_bonus: int
    other_bonus: int


class Track(_Data):
    yellow_tiles: int
    upgrades: int


class InitialRound(_Data):
    bid_increment: int
    p1_discount: int


class SouthernBank(_Data):
    interest_percent: int
    least_percent: int
    most_percent: int
    repay_least_percent: int
    repay_most_percent: int


class CivilWar(_Data):
    cash_percent: int
    left_moves: int
    train_limit: int


class Extras(_Data):
    """extras.json: 1832's own machinery (systems, redemption, reissue, the
    coal fields, Miami and Key West, cotton and port, variants)."""

    systems: Systems
    redemption: Redemption
    reissue: Reissue
    private_sale: PrivateSale
    coal_fields: CoalFields
    miami: Miami
    cotton: Cotton
    port: Port
    track: Track
    initial_round: InitialRound
    least_private_or_train_price: int
    southern_bank: SouthernBank
    civil_war: CivilWar
    medium_city_upgrades: dict[str, str]
    brown_only: dict[str, tuple[str, ...]]
    token_recost: int
    historical_order: tuple[str, ...]
    variants: tuple[str, ...]
    finish_400_price: int
    diesel_trade_in: int


class Data1832(_Data):
    """Everything the 1832 rules read, checked by `check`."""

    title: Title
    tiles: dict[str, Tile]
    extras: Extras

    def phase(self, name: str) -> Phase:
        for phase in self.title.phases:
            if phase.name == name:
                return phase
        raise KeyError(f"no phase {name!r}")

    def private(self, pid: str) -> Private:
        for private in self.title.privates:
            if private.id == pid:
                return private
        raise KeyError(f"no private company {pid!r}")

    def company(self, cid: str) -> Company:
        for company in self.title.companies:
            if company.id == cid:
                return company
        raise KeyError(f"no company {cid!r}")

    def hex(self, hid: str) -> Hex:
        for hx in self.title.hexes:
            if hx.hex == hid:
                return hx
        raise KeyError(f"no hex {hid!r}")


def parse(raw: dict[str, object]) -> Data1832:
    """Validate the three files' contents ({"title": …, "tiles": …, "extras": …})
    and their consistency; raises TitleDataError naming the first problem."""
    try:
        data = Data1832.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise TitleDataError(f"1832 data: {where}: {err['msg']}") from None
    problems = check(data)
    if problems:
        raise TitleDataError("1832 data: " + "; ".join(problems))
    return data


def load() -> Data1832:
    """The title's data files, read from this package."""
    files = resources.files(__package__)
    raw = {
        name.removesuffix(".json"): json.loads(files.joinpath(name).read_text(encoding="utf-8"))
        for name in FILES
    }
    return parse(raw)


def _revenue_keys_ok(node: Node, phases: set[str]) -> bool:
    return isinstance(node.revenue, int) or set(node.revenue) <= phases


def check(data: Data1832) -> list[str]:
    """Cross-checks of the three files; an empty list when they agree."""
    t, tiles, x = data.title, data.tiles, data.extras
    problems: list[str] = []
    hex_ids = [h.hex for h in t.hexes]
    if len(set(hex_ids)) != len(hex_ids):
        problems.append("a hex is listed twice")
    hexes = set(hex_ids)
    phases = [p.name for p in t.phases]
    trains = [tr.name for tr in t.trains]
    if phases != trains:
        problems.append(f"phases {phases} are not named after the trains {trains} (4.2)")
    offboard_columns = {p.offboard for p in t.phases}
    for hx in t.hexes:
        for node in hx.nodes:
            if not _revenue_keys_ok(node, offboard_columns):
                problems.append(f"{hx.hex}: revenue keyed by an unknown phase range")
        if hx.brown_tile is not None and hx.brown_tile not in tiles:
            problems.append(f"{hx.hex}: unknown brown tile {hx.brown_tile}")
    for tid, tile in tiles.items():
        for up in tile.upgrades:
            if up not in tiles:
                problems.append(f"tile {tid} upgrades to unknown tile {up}")
        problems += [f"tile {tid}: unknown hex {h}" for h in tile.only_in if h not in hexes]
    for company in t.companies:
        if company.home not in hexes:
            problems.append(f"{company.id}: home {company.home} is not on the map")
        if not company.tokens or company.tokens[0] != 0:
            problems.append(f"{company.id}: the home token is free (7.1)")
    for tr in t.trains:
        if tr.rusts is not None and tr.rusts not in trains:
            problems.append(f"train {tr.name} scraps unknown train {tr.rusts}")
    for n, seats in t.players.items():
        pairs = (
            (t.starting_capital["standard"], seats.cash, "standard"),
            (t.starting_capital["southern_bank"], seats.cash_southern_bank, "southern_bank"),
        )
        for capital, cash, kind in pairs:
            if cash != (2 * capital + int(n)) // (2 * int(n)):
                problems.append(f"{n} players: {kind} cash {cash} is not the capital shared (3.3)")
        if len(t.certificate_limits.row(int(n))) != len(t.certificate_limits.companies):
            problems.append(f"{n} players: certificate limits need one value per column")
    widths = {len(row) for row in t.market}
    if max(widths) != 21 or len(t.market) != 11:
        problems.append("the market is 11 rows by 21 columns")
    par_cells = sorted(
        int(cell.split()[0]) for row in t.market for cell in row if cell.endswith(" par")
    )
    if tuple(par_cells) != tuple(sorted(t.par_prices)):
        problems.append(f"par boxes {par_cells} are not the par prices {t.par_prices} (5.6)")
    prices = {int(cell.split()[0]) for row in t.market for cell in row}
    problems += [
        f"reissue par {p} is not a market value" for p in x.reissue.pars if p not in prices
    ]
    for base, city in x.medium_city_upgrades.items():
        if base not in tiles or city not in tiles:
            problems.append(f"medium city upgrade {base}->{city} names an unknown tile")
    companies = {c.id for c in t.companies}
    if set(x.historical_order) != companies:
        problems.append("the historical order must list every company once")
    if x.miami.hex not in hexes or x.coal_fields.hex not in hexes:
        problems.append("Miami and the coal fields must be on the map")
    problems += [f"cotton city {h} is not on the map" for h in x.cotton.cities if h not in hexes]
    return problems
