"""The game state as plain typed objects, serialisable to JSON.

Every field a later turn needs is here; everything derivable from these fields
(treasury stock, public shares, a town's value) is computed, not stored.
"""

from types import UnionType
from typing import Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, Field

VP_CATEGORIES = (
    "robber_baron",
    "rail_mogul",
    "rail_builder",
    "rail_magnate",
    "rail_prodigal",
    "rail_baron",
)

PCStatus = Literal["unreleased", "available", "owned", "incorporated", "merged"]


def _zero_vp() -> dict[str, int]:
    return dict.fromkeys(VP_CATEGORIES, 0)


class Tycoon(BaseModel):
    """3 A player position (1-15), human or computer-played."""

    position: int
    character: str
    human: bool = False
    personality: str = ""  # computer players' style; see docs/computer-players.md
    cash: int = 0
    loan: int = 0  # bank loan outstanding
    holdings: dict[str, int] = Field(default_factory=dict)  # railroad code -> shares owned
    shorts: dict[str, int] = Field(default_factory=dict)  # railroad code -> shares owed
    short_proceeds: dict[str, int] = Field(default_factory=dict)  # code -> cash received
    pcs: list[str] = Field(default_factory=list)  # PC codes owned
    wants_presidency: list[str] = Field(default_factory=list)  # railroads asked for (10.1)
    vp: dict[str, int] = Field(default_factory=_zero_vp)
    builder_bonuses: list[str] = Field(default_factory=list)  # region pairs already rewarded
    prodigal_spent: int = 0  # total over the game, for records
    bankruptcies: int = 0
    bankrupt_turn: int | None = None  # last turn he went bankrupt (3.2: may rename next turn)


class Railroad(BaseModel):
    """4.1 A railroad: an incorporated PC plus the lines and RoWs it has gained."""

    code: str  # the abbreviation of the PC it was incorporated from
    number: int  # railroad number usable on turnsheets instead of the code (10)
    name: str
    founded_turn: int = 0
    lines: list[str] = Field(default_factory=list)  # built route codes, original PC first
    rows: list[str] = Field(default_factory=list)  # owned RoWs not yet built
    double_tracked: list[str] = Field(default_factory=list)
    cash: int = 0
    bonds: int = 0
    loan: int = 0  # short-term bank loan
    owed_to_president: int = 0  # loans from the president (4.5)
    lender: int | None = None  # position of the tycoon owed `owed_to_president`
    authorized: int = 0
    issued: int = 0
    price: int = 0
    dividend: int = 0  # per share, paid this turn
    earnings: int = 0  # 9.3 Pft/sh: the last operations' profit per issued share (may be < 0)
    efficiency: int = 70
    locomotive: int = 1
    technologies: list[str] = Field(default_factory=list)
    grand_station: str | None = None  # town id
    land: int = 0  # acres (in the scenario's land units) available to sell
    political: int = 0  # political influence accumulated by donations
    president: int | None = None
    chairman: int | None = None
    directors: list[int] = Field(default_factory=list)
    rate_wars: dict[str, int] = Field(default_factory=dict)  # rival code -> % cut
    regions: list[str] = Field(default_factory=list)  # regions linked (end of last turn)

    @property
    def treasury(self) -> int:
        """4.2 Treasury (unissued) stock = authorized - issued."""
        return self.authorized - self.issued

    @property
    def track(self) -> list[str]:
        return self.lines


class PrivateCompany(BaseModel):
    """2.3 A private company: one route a tycoon may own, incorporate or merge."""

    code: str
    status: PCStatus = "unreleased"
    owner: int | None = None  # position of the owner while "owned"
    asking_price: int = 0
    for_sale: bool = False  # offered for sale by its owner (10.1)
    released_turn: int | None = None


class RecordHolder(BaseModel):
    """11.3 A record score and who set it."""

    category: str
    score: int
    character: str
    game: str


class GameState(BaseModel):
    """The whole game between two turns: `turn` is the turn about to be played."""

    scenario: str
    game: str = ""  # the game's name, for reports and records
    seed: int
    turn: int = 1
    climate: int = 4  # index into the climate table: 0 Boom ... 8 Panic
    tycoons: list[Tycoon]
    railroads: dict[str, Railroad] = Field(default_factory=dict)
    pcs: dict[str, PrivateCompany] = Field(default_factory=dict)
    best_locomotive: int = 1
    technologies_available: list[str] = Field(default_factory=list)
    first_region_links: dict[str, str] = Field(default_factory=dict)  # region -> railroad
    first_bonus_pairs: list[str] = Field(default_factory=list)  # "ATLANTIC+OHIO", paid once first
    first_millionaires: list[int] = Field(default_factory=list)  # 1.2 Robber Baron bonus paid
    ended: bool = False
    records: list[RecordHolder] = Field(default_factory=list)

    def tycoon(self, position: int) -> Tycoon:
        return self.tycoons[position - 1]

    def working_copy(self) -> "GameState":
        """An independent copy to change (nothing shared with this state).

        The state is plain data by design (it is stored as its JSON and read
        back): models whose fields are numbers, strings and lists or dicts of
        them. So each model is copied with a fresh copy of each list and dict
        and the rest shared, as they cannot change: the same state as a round
        trip through its JSON (`model_validate(model_dump())`) at half its
        instructions, a fifth of `model_copy(deep=True)`'s."""
        copy = _fresh(self)
        values = copy.__dict__
        values["tycoons"] = [_fresh(t) for t in self.tycoons]
        values["railroads"] = {code: _fresh(rr) for code, rr in self.railroads.items()}
        values["pcs"] = {code: _fresh(pc) for code, pc in self.pcs.items()}
        values["records"] = [_fresh(r) for r in self.records]
        return copy

    def absorbed_by(self, code: str) -> str | None:
        """4.13, 4.1a The railroad that took over `code`'s line, when `code` is
        no railroad now: a railroad or PC merged into it (its line stays one
        of the survivor's lines); None for any other code."""
        if code in self.railroads:
            return None
        return next((rr.code for rr in self.railroads.values() if code in rr.lines), None)

    def public_shares(self, code: str) -> int:
        """6 Shares of `code` held by the public: issued less players' net holdings."""
        rr = self.railroads[code]
        held = sum(t.holdings.get(code, 0) for t in self.tycoons)
        owed = sum(t.shorts.get(code, 0) for t in self.tycoons)
        return rr.issued - held + owed


# The values a state model may hold outside its lists and dicts, and in them:
# immutable, so a copy may share them.
_SCALARS = (int, str, float, bool, type(None))
# GameState's fields of state models, which `working_copy` copies one by one.
_MODEL_FIELDS = {"tycoons", "railroads", "pcs", "records"}


def _scalar(annotation: object) -> bool:
    """Whether a value of this annotation is immutable (a number, a string, a
    Literal of them, or a union of those)."""
    if annotation in _SCALARS:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (Union, UnionType):
        return all(_scalar(arg) for arg in get_args(annotation))
    return False


def _containers(model: type[BaseModel]) -> tuple[tuple[str, type], ...]:
    """The fields of `model` holding a list or a dict, with that type. Refuses a
    model `_fresh` cannot copy safely: one with more than its fields, with a
    validator on assignment, or with a field holding anything mutable other
    than a flat list or dict of immutable values."""
    config = model.model_config
    if model.__private_attributes__ or config.get("extra") == "allow":
        raise TypeError(f"{model.__name__} holds more than its fields; `_fresh` cannot copy it")
    if config.get("validate_assignment"):
        # TurnContext.transfer writes cash straight into the fields.
        raise TypeError(f"{model.__name__} validates assignments; the engine assumes it does not")
    found = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        origin = get_origin(annotation)
        if model is GameState and name in _MODEL_FIELDS:
            continue  # copied model by model in `working_copy`
        if origin is list or origin is dict:
            if not all(_scalar(arg) for arg in get_args(annotation)):
                raise TypeError(
                    f"{model.__name__}.{name} nests mutable values; `_fresh` would share them"
                )
            found.append((name, origin))
        elif not _scalar(annotation):
            raise TypeError(f"{model.__name__}.{name} is mutable; `_fresh` would share it")
    return tuple(found)


_CONTAINERS: dict[type[BaseModel], tuple[tuple[str, type], ...]] = {
    model: _containers(model)
    for model in (GameState, Tycoon, Railroad, PrivateCompany, RecordHolder)
}

_set = object.__setattr__

M = TypeVar("M", bound=BaseModel)


def _fresh(model: M) -> M:
    """A copy of a state model with its own lists and dicts (their items
    shared); what pydantic's shallow copy does, without its generic copying."""
    cls = type(model)
    copy = cls.__new__(cls)
    values = model.__dict__.copy()
    for name, container in _CONTAINERS[cls]:
        values[name] = container(values[name])
    _set(copy, "__dict__", values)
    _set(copy, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    _set(copy, "__pydantic_extra__", None)
    _set(copy, "__pydantic_private__", None)
    return copy
