"""The shape of a title's data (map, tiles, market, trains, phases, privates,
companies), validated when a title is loaded."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Colour = Literal["yellow", "green", "brown", "gray"]
Endpoint = int | str  # an edge 0-5 or a node "n<index>"


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def __deepcopy__(self, memo: dict[int, object] | None = None) -> "_Data":
        """Title data never changes: a game's copy shares it."""
        return self


class Node(_Data):
    """A city, town or off-board area on a hex or tile; off-board and some
    printed values change with the phase (keyed by tile colour)."""

    kind: Literal["city", "town", "offboard"]
    revenue: int | dict[str, int] = 0
    slots: int = 1
    terminal: bool = False  # a city that ends a route, like an off-board area


class Tile(_Data):
    colour: Colour = Field(alias="color")
    count: int
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...]
    label: str | None = None


class Hex(_Data):
    hex: str
    name: str | None = None
    colour: Literal["white", "yellow", "red", "gray", "none"] = Field(
        default="white", alias="color"
    )
    cost: int = 0
    terrain: str | None = None
    nodes: tuple[Node, ...] = ()
    track: tuple[tuple[Endpoint, Endpoint], ...] = ()
    neutral_token: bool = False  # a printed station no company may pass through


class TrainVariant(_Data):
    name: str
    price: int
    cities: int
    multiplier: int = 1


class TrainType(_Data):
    name: str
    count: int
    price: int
    cities: int
    towns_free: bool = False
    # the +m of an n+m train: at most n cities and off-board areas, at most
    # n+m stops in all, towns counted (18Dixie 4.4h)
    towns: int = 0
    multiplier: int = 1
    phase: str | None = None  # the first one bought starts this phase
    after_phase: str | None = None  # on sale only from this phase
    rusts: str | None = None  # the first one bought rusts trains of this name
    salvage: int = 0  # paid by the bank to the company whose train of this type is removed
    closes_privates: bool = False
    variants: tuple[TrainVariant, ...] = ()


class Phase(_Data):
    name: str
    tiles: tuple[Colour, ...]
    train_limit: int
    operating_rounds: int | None = None
    one_bank_train: bool = False
    companies_buy_privates: bool = False
    players_trade_privates: bool = False


class Obsolescence(_Data):
    round: int
    train: str
    salvage: int


class Ability(_Data):
    kind: str
    count: int = 1
    free: bool = False
    percent: int = 0
    discount: int = 0
    train: str | None = None
    trains: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    tiles: tuple[str, ...] = ()
    share: str | None = None
    any_time: bool = False  # usable at any time of the owning company's turn


class Private(_Data):
    id: str
    name: str
    value: int
    revenue: int
    ability: Ability | None = None
    home: str | None = None  # the hex no tile may be laid in while a player owns it


class Company(_Data):
    id: str
    name: str
    home: str
    home_city_chosen: bool = False  # the president picks the city of a multi-city home
    tokens: tuple[int, ...]


class Variant(_Data):
    """An optional rule's changes to the map and the companies: hexes printed
    differently, extra home stations, other station costs."""

    hexes: tuple[Hex, ...] = ()
    extra_homes: dict[str, tuple[str, ...]] = {}
    tokens: dict[str, tuple[int, ...]] = {}


class Seats(_Data):
    cash: int
    certificates: int


class Title(_Data):
    """One title's published facts in our own format."""

    title: str
    layout: Literal["pointy", "flat"]
    players: dict[str, Seats]
    bank: int
    shares_per_company: int
    float_percent: int
    holding_limit_percent: int
    market_pool_limit_percent: int
    par_prices: tuple[int, ...]
    private_sale: Literal["draft", "waterfall"] = "draft"
    market: tuple[tuple[str, ...], ...]
    operating_rounds_per_set: int
    last_operating_round: int | None = None
    end_reason: str
    phases: tuple[Phase, ...]
    trains: tuple[TrainType, ...]
    obsolete_after_operating_round: tuple[Obsolescence, ...] = ()
    privates: tuple[Private, ...]
    companies: tuple[Company, ...]
    hexes: tuple[Hex, ...]
    only_upgrades: dict[str, dict[str, tuple[str, ...]]] = {}
    variants: dict[str, Variant] = {}
    tiles: dict[str, Tile] = {}
