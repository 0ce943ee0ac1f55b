"""The boundary between the game-independent pipeline and a game family.

The pipeline reaches a game's rules only through the `GameFamily` of its
scenario (the `family` key of scenario.toml): the start of a game, the rules
engine, the computer players, the conservation checks, the records carried
from game to game, and the reports. Until a second family plays, the
family's types are Continental Rails' own.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from turnproc.core.ledger import LedgerEntry
from turnproc.families.continental_rails.engine import setup
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario


@dataclass(frozen=True)
class GameFamily:
    """What the pipeline needs from one family of games."""

    name: str
    new_game: Callable[[Scenario, int, list[setup.PlayerSetup], str], GameState]
    resolve_turn: Callable[[Scenario, GameState, Mapping[int, PlayerOrders]], TurnResult]
    computer_orders: Callable[[Scenario, GameState, int], PlayerOrders]
    turn_problems: Callable[[GameState, GameState, list[LedgerEntry]], list[str]]
    # 11.3 A new game starts with the records of the games that ended before
    # it, kept as rows (category, score, character, game): `carry_records`
    # puts them in a new game's state, `add_records` folds a final state in.
    carry_records: Callable[[GameState, list[dict[str, Any]]], GameState]
    add_records: Callable[[Scenario, list[dict[str, Any]], GameState], list[dict[str, Any]]]
    # Starts rendering a turn's reports and returns at once (an object whose
    # result() waits for them). Imported on first use: rendering pulls in
    # ReportLab, which intake and the engine's users do not need.
    report_renderer: Callable[[], Callable[..., Any]]


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
