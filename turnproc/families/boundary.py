"""The boundary between the game-independent pipeline and a game family.

The pipeline reaches a game's rules only through the `GameFamily` of its
scenario (the `family` key of scenario.toml): the start of a game, the rules
engine, the computer players, the conservation checks, the records carried
from game to game, and the reports. The boundary knows no family's types: a
`GameFamily` is generic in the family's state, orders and turn result, and
each family fills them with its own (families/*/family.py).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from turnproc.core.ledger import LedgerEntry
from turnproc.scenario.model import Scenario

StateT = TypeVar("StateT")
OrdersT = TypeVar("OrdersT")
ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class Seat:
    """Who holds a position: a human or the computer, under a character's name
    (None, when a game starts: the scenario's own)."""

    position: int
    character: str | None = None
    human: bool = False


@dataclass(frozen=True)
class Adjustment:
    """A moderator's correction between turns (`turnproc game adjust`): `cash`
    dollars (negative: taken) between the bank and `position`'s or `railroad`'s
    account, `shares` of `railroad` given to (or taken from) `position`,
    `issued` shares more (or fewer) of `railroad` in the market."""

    position: int | None
    railroad: str | None
    cash: int
    shares: int
    issued: int
    reason: str


class OrderNote(Protocol):
    """One of a player's orders refused or cut, as his receipt and the
    moderator's preview word it."""

    @property
    def text(self) -> str: ...

    @property
    def hint(self) -> str: ...


@dataclass(frozen=True)
class GameFamily(Generic[StateT, OrdersT, ResultT]):
    """What the pipeline needs from one family of games."""

    name: str
    new_game: Callable[[Scenario, int, list[Seat], str], StateT]
    resolve_turn: Callable[[Scenario, StateT, Mapping[int, OrdersT]], ResultT]
    computer_orders: Callable[[Scenario, StateT, int], OrdersT]
    turn_problems: Callable[[StateT, StateT, list[LedgerEntry]], list[str]]
    # Who holds each position of a state, in position order: the position,
    # its character's name, whether a human plays it.
    holders: Callable[[StateT], list[Seat]]
    # The state (changed in place) with `position` held by a human or the
    # computer, under a new character name (None: unchanged).
    seat: Callable[[StateT, int, str | None, bool | None], StateT]
    # 11.3 A new game starts with the records of the games that ended before
    # it, kept as rows (category, score, character, game): `carry_records`
    # puts them in a new game's state, `add_records` folds a final state in.
    carry_records: Callable[[StateT, list[dict[str, Any]]], StateT]
    add_records: Callable[[Scenario, list[dict[str, Any]], StateT], list[dict[str, Any]]]
    # A turn's refusals (the result's rejections) for one position, one note
    # per cause, in the order of his turnsheet.
    order_notes: Callable[[Sequence[Any], int], Sequence[OrderNote]]
    # A moderator's adjustment applied to a copy of the state (game name for
    # the messages): (the new state, its ledger entries, the event the next
    # report's news shows). Raises UsageError when it does not fit the game.
    adjust: Callable[[StateT, str, Adjustment], tuple[StateT, list[LedgerEntry], Any]]
    # The orders of a position left idle by the missed-turn policy `idle`
    # ("civil disorder"): none at all, as the computer's.
    idle_orders: Callable[[int], OrdersT]
    # The adjustment an event of the family records (None: the event is none),
    # so that a turn run again makes the later adjustments again.
    adjustment_of: Callable[[Any], Adjustment | None]
    # A player's announcement (PRESS, 9.1) for the next report's news, as the
    # family's event: (author's position, None when anonymous; text; anonymous).
    announcement: Callable[[int | None, str, bool], Any]
    # Starts rendering a turn's reports and returns at once (an object whose
    # result() waits for them). Imported on first use: rendering pulls in
    # ReportLab, which intake and the engine's users do not need.
    report_renderer: Callable[[], Callable[..., Any]]
    # The rules PDF a welcome mail carries, as (file name, bytes), given the
    # name the mail's row keeps for its PDF (None: none); None when the name
    # is another family's. Renders with ReportLab: imported on first use.
    rules_pdf: Callable[[str | None], tuple[str, bytes] | None]


@dataclass(frozen=True)
class SequentialFamily:
    """A family played move by move: what the sequential pipeline needs."""

    name: str
    titles: Mapping[str, str]  # `game new --scenario` name -> the engine's title
    options: Mapping[str, Mapping[str, tuple[str, ...]]]  # title -> option -> allowed values
    # The family's computer player, imported on first use: (game, player, seed,
    # move number) -> one order line; raises RuntimeError when it finds none.
    # None for a family that has no computer player.
    computer_move: Callable[[], Callable[[Any, int, int, int], str] | None]
    # The position as one player sees it, with the log in words since his
    # last move, as (PDF bytes, JSON text), attached to "your move" mails.
    # Imported on first use (ReportLab).
    move_report: Callable[[], Callable[[Any, int, tuple[str, ...]], tuple[bytes, str]] | None]
    # The rules PDF of the title whose rules PDF is named so, as (file name,
    # bytes); None when the name is none of the family's. Renders with
    # ReportLab: imported on first use.
    rules_pdf: Callable[[str | None], tuple[str, bytes] | None]
