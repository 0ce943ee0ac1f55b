"""The pieces of an 18xx game's position: certificates, trains, charters,
privates, offers, the operating turn and the privates' auction."""

from dataclasses import dataclass, field

from turnproc.families.g18xx.engine.title import Hex, Private, TrainType
from turnproc.families.g18xx.engine.track import HexState

BANK = "bank"
IPO = "ipo"
POOL = "market"
Holder = int | str
BID_STEP = 5  # bids rise by at least $5 (3.1b, 3.1.1)
# the steps of an operating turn (4.2), in order; a pass ends the step the
# company is at, and a step with nothing the company could do is skipped
TRACK, TOKEN, ROUTE, DIVIDEND, TRAINS, PRIVATES, END = range(7)
TILE_ABILITIES = frozenset(("extra_yellow_tiles", "free_tile_lay"))


def printed_hex(h: Hex) -> HexState:
    """A hex as the map prints it, before any tile."""
    return HexState(
        name=h.hex,
        tile=None,
        tile_id=f"{h.hex}-0",
        colour=h.colour,
        rotation=0,
        nodes=h.nodes,
        track=h.track,
        tokens=[["neutral"] if h.neutral_token else [] for _ in h.nodes],
        cost=h.cost,
    )


class ActionRefused(ValueError):
    """An action the rules do not allow now; the game is unchanged."""


@dataclass
class Cert:
    id: str
    company: str
    percent: int
    president: bool
    owner: Holder = IPO


@dataclass
class Train:
    id: str
    type: TrainType
    name: str
    price: int
    cities: int
    multiplier: int
    owner: str | None = None  # company id; None while in the bank
    rusted: bool = False
    sellable: bool = True
    discarded: bool = False  # in the bank's open market (4.2.5g)
    obsolete: bool = False  # runs once more, then leaves play (18GA 4.2.5.2)


@dataclass
class CompanyState:
    """A major company's charter."""

    id: str
    home: str
    token_costs: tuple[int, ...]
    par: int | None = None
    floated: bool = False
    president: int | None = None
    tokens_used: int = 0
    home_placed: bool = False
    route_bonus: dict[str, int] = field(default_factory=dict)  # hex -> extra revenue per run
    operated: bool = False
    home_city_chosen: bool = False


@dataclass
class PrivateState:
    data: Private
    owner: Holder | None = None
    closed: bool = False
    uses: int = 0


@dataclass
class Offer:
    """A standing offer for a private between its owner (`seller`) and a
    player or company (`buyer`), made by one of them (3.2b, 3.2c4, 4.2.6)."""

    private: str
    seller: Holder
    buyer: Holder
    price: int
    by: Holder


@dataclass
class Turn:
    """Where the operating company is in its turn."""

    company: str
    first: bool = False  # the company's first operating turn
    ran: bool = False
    revenue: int | None = None
    bank_trains: int = 0
    lays: list[bool] = field(default_factory=list)  # each normal tile lay: an upgrade?
    tokens: int = 0
    step: int = 0  # the step of 4.2 the turn has reached (TRACK ... PRIVATES, END)


@dataclass
class Auction:
    """A waterfall auction of the privates (3.1): the cheapest is bought at its
    price, the others take bids and are settled in order as the cheaper ones
    go; a private with several bids is auctioned among its bidders (3.1.1)."""

    unsold: list[str]
    price: dict[str, int]
    bids: dict[str, dict[int, int]] = field(default_factory=dict)
    contest: str | None = None
    passes: int = 0  # players in a row who passed in the stock round's turns
    next: int | None = None  # the player whose stock turn it is
    bidder: int | None = None  # the bidder to move in a contest
    contest_passes: int = 0  # bidders in a row who passed in the contest
