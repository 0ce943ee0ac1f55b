"""Typed 18xx actions, in the action format of recorded 18xx.games logs so that
a recorded game and a game played by mail go through the same door."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

EntityId = int | str


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    entity: EntityId
    entity_type: Literal["player", "corporation", "company", "minor"]
    id: int | None = None
    auto_actions: tuple["Action", ...] = ()


class Bid(_Action):
    type: Literal["bid"]
    company: str
    price: int


class Par(_Action):
    type: Literal["par"]
    corporation: str
    share_price: str


class BuyShares(_Action):
    type: Literal["buy_shares"]
    shares: tuple[str, ...]
    percent: int


class SellShares(_Action):
    type: Literal["sell_shares"]
    shares: tuple[str, ...]
    percent: int


class Pass(_Action):
    type: Literal["pass"]


class Program(_Action):
    """A standing order (buy until floated, pass in stock rounds); what it did
    is recorded as the auto-actions of later moves."""

    type: Literal[
        "program_share_pass", "program_buy_shares", "program_disable", "program_close_pass"
    ]


class Note(_Action):
    type: Literal["log", "message"]


class BuyCompany(_Action):
    type: Literal["buy_company"]
    company: str
    price: int


class OfferCompany(_Action):
    """A player's standing offer (turnproc's own action): the owner of a
    private offers it to a player or company (`to`) at a price, or a player
    offers to buy it from its owner; price 0 withdraws his offers on it."""

    type: Literal["offer_company"]
    company: str
    price: int = Field(ge=0)
    to: EntityId | None = None


class SellCompany(_Action):
    """The owner of a private sells it to a player who offered to buy it
    (turnproc's own action)."""

    type: Literal["sell_company"]
    company: str
    price: int
    to: int


class LayTile(_Action):
    type: Literal["lay_tile"]
    hex: str
    tile: str
    rotation: int = Field(ge=0, le=5)


class PlaceToken(_Action):
    type: Literal["place_token"]
    city: str
    slot: int = 0
    tokener: str | None = None


class Route(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    train: str
    connections: tuple[tuple[str, ...], ...]
    hexes: tuple[str, ...] | None = None
    revenue: int | None = None


class RunRoutes(_Action):
    type: Literal["run_routes"]
    routes: tuple[Route, ...]
    extra_revenue: int = 0


class Dividend(_Action):
    type: Literal["dividend"]
    kind: Literal["payout", "withhold", "half"]


class BuyTrain(_Action):
    type: Literal["buy_train"]
    train: str
    price: int
    variant: str | None = None


class DiscardTrain(_Action):
    """A company over its train limit after a phase change puts one of its
    trains into the open market."""

    type: Literal["discard_train"]
    train: str


class EndTurn(_Action):
    """The president ends the company's operating turn (turnproc's own action;
    recorded games end turns implicitly)."""

    type: Literal["end_turn"]


class Bankrupt(_Action):
    type: Literal["bankrupt"]


class Undo(_Action):
    type: Literal["undo"]
    action_id: int | None = None


class Redo(_Action):
    type: Literal["redo"]


Action = Annotated[
    Bid
    | Par
    | BuyShares
    | SellShares
    | Pass
    | Program
    | Note
    | BuyCompany
    | OfferCompany
    | SellCompany
    | LayTile
    | PlaceToken
    | RunRoutes
    | Dividend
    | BuyTrain
    | DiscardTrain
    | EndTurn
    | Bankrupt
    | Undo
    | Redo,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> Action:
    """One action from its JSON form; raises pydantic.ValidationError."""
    return _ADAPTER.validate_python(data)


_MODELS: tuple[type[_Action], ...] = (
    _Action,
    Bid,
    Par,
    BuyShares,
    SellShares,
    Pass,
    Program,
    Note,
    BuyCompany,
    OfferCompany,
    SellCompany,
    LayTile,
    PlaceToken,
    RunRoutes,
    Dividend,
    BuyTrain,
    DiscardTrain,
    EndTurn,
    Bankrupt,
    Undo,
    Redo,
)
for _model in _MODELS:
    _model.model_rebuild()
