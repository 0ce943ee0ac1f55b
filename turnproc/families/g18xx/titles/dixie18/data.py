"""The shape of 18Dixie's data (title.json, tiles.json), validated when it is
read. The engine reads no files; this module is the edge that does."""

import json
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Colour = Literal["yellow", "green", "brown", "gray"]
Endpoint = int | str  # an edge 0-5 or a node "n<index>"


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Node(_Data):
    """A city, town or off-board area; some printed values change with the
    phase (keyed by the colour whose value applies, 4.4.1)."""

    kind: Literal["city", "town", "offboard"]
    revenue: int | dict[str, int] = 0
    slots: int = 1


class Tile(_Data):
    colour: Colour = Field(alias="color")
    count: int
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...]
    label: str | None = None


class Hex(_Data):
    hex: str
    name: str | None = None
    colour: Literal["white", "yellow", "red", "gray"] = Field(default="white", alias="color")
    cost: int = 0
    terrain: str | None = None
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...] = ()
    label: str | None = None


class Seats(_Data):
    """Table 2: cash and the two certificate limits (the second after the
    SCL or ICG forms, 5.4i)."""

    cash: int
    certificates: int
    certificates_after_merger: int


class StationCosts(_Data):
    """4.3: the first station other than the home, then each later one."""

    first: int
    later: int


class TileLays(_Data):
    """4.2: tiles a company lays in a turn, and the extra yellow one on its
    first turn."""

    major: int
    minor: int
    first_turn_extra_yellow: int


class Phase(_Data):
    name: str
    tiles: tuple[Colour, ...]
    train_limit: int
    several_bank_trains: bool = False  # 4.7f: the one-train-a-turn limit is gone
    closes_privates: bool = False
    revenue_colour: Literal["yellow", "brown"] = "yellow"  # 4.4.1


class TrainVariant(_Data):
    name: str
    price: int
    cities: int
    multiplier: int = 1
    counts_towns: bool = False


class TrainType(_Data):
    """Table 1 and the train cards. `towns` is the "+m" of an n+m train (4.4h);
    `towns_free` marks trains whose towns do not count (4.4i); D trains count
    every stop (`counts_towns`) and double it."""

    name: str
    count: int
    price: int
    cities: int
    towns: int = 0
    towns_free: bool = False
    counts_towns: bool = False
    multiplier: int = 1
    salvage: int = 0
    spare_parts: int = 0
    phase: str | None = None
    after_phase: str | None = None
    rusted_by: str | None = None
    variants: tuple[TrainVariant, ...] = ()


class MinorTrain(_Data):
    name: str
    cities: int
    towns_free: bool


class SpecialTrain(_Data):
    name: str
    cities: int
    towns: int
    multiplier: int
    private: str


class Ability(_Data):
    kind: str
    extra_lay: bool = False
    bonus: int = 0
    bonus_for: dict[str, int] = {}
    near: str | None = None
    distance: int = 0
    hex: str | None = None
    payment: int = 0
    percent: int = 0
    company: str | None = None
    to_open_market: int = 0
    count: int = 0
    train: str | None = None


class Private(_Data):
    id: str
    name: str
    value: int
    revenue: int
    stock_round: int  # the stock round it is first offered in (3.3.1, 3.3.2)
    ability: Ability


class Company(_Data):
    id: str
    name: str
    home: str
    tokens: tuple[int, ...]
    preferred_shares: int


class Minor(_Data):
    id: str
    name: str
    price: int
    homes: tuple[str, ...]
    tokens: tuple[int, ...]
    successors: tuple[str, ...] | Literal["any"]
    closes_after_or: int
    stock_round: int = 1


class Supply(_Data):
    initial_privates: tuple[str, ...]
    unsold_trains_to_open_market_at_stock_round: int
    unsold_leave_after_stock_round: int


class Merger(_Data):
    id: str
    name: str
    first: str  # its president takes the president's certificate (5.4b)
    second: str
    trigger: str
    subsidy: int


class MergerTerms(_Data):
    price_floor: int
    price_cap: int
    tokens_kept: int
    atlanta_extra_token: str
    new_tokens: tuple[int, ...]
    train_limit: int
    certificates: tuple[int, ...]


class GameEnd(_Data):
    bank_broken: str
    bank_broken_in_stock_round: str
    price: int
    price_reached: str
    bankruptcy: str


class DixieTitle(_Data):
    """18Dixie's published facts in turnproc's own format."""

    title: str
    layout: Literal["pointy"]
    players: dict[str, Seats]
    bank: int
    shares_per_company: int
    float_percent: int
    holding_limit_percent: int
    market_pool_limit_percent: int
    par_prices: tuple[int, ...]
    tile_lays: TileLays
    station_costs: StationCosts
    market: tuple[tuple[str, ...], ...]
    operating_rounds_per_set: int
    phases: tuple[Phase, ...]
    trains: tuple[TrainType, ...]
    minor_train: MinorTrain
    special_train: SpecialTrain
    privates: tuple[Private, ...]
    companies: tuple[Company, ...]
    minors: tuple[Minor, ...]
    supply: Supply
    mergers: tuple[Merger, ...]
    merger_terms: MergerTerms
    end: GameEnd
    hexes: tuple[Hex, ...]
    only_upgrades: dict[str, dict[Colour, tuple[str, ...]]]
    tiles: dict[str, Tile] = {}

    def company(self, company_id: str) -> Company:
        for company in self.companies:
            if company.id == company_id:
                return company
        raise KeyError(f"no 18Dixie company {company_id!r}")

    def minor(self, minor_id: str) -> Minor:
        for minor in self.minors:
            if minor.id == minor_id:
                return minor
        raise KeyError(f"no 18Dixie minor {minor_id!r}")

    def private(self, private_id: str) -> Private:
        for private in self.privates:
            if private.id == private_id:
                return private
        raise KeyError(f"no 18Dixie private {private_id!r}")


@cache
def load_dixie() -> DixieTitle:
    """Read and validate title.json and tiles.json of this folder."""
    files = resources.files(__package__)
    data = json.loads(files.joinpath("title.json").read_text(encoding="utf-8"))
    data["tiles"] = json.loads(files.joinpath("tiles.json").read_text(encoding="utf-8"))
    return DixieTitle.model_validate(data)
