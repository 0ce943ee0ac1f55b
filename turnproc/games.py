"""The boundary between the game-independent pipeline and a game family.

The batch reaches a game's rules only through the `GameFamily` of its
scenario (the `family` key of scenario.toml): the start of a game, the rules
engine, the computer players, the conservation checks, the records carried
from game to game, and the reports.
Continental Rails is the first family; its code lives in `turnproc/cr` (the
pure engine), `turnproc/intake` (its turnsheet language) and
`turnproc/render` (its report). A later family (the 18xx games) adds its own
three packages and one entry in `FAMILIES`; the store, the mail layer, the
deadlines and the command line stay as they are.

A family may instead be *sequential* (`SequentialFamily`, the 18xx games):
there is no turn to resolve at a deadline; each submission carries actions
of the player who is to move, applied at once (turnproc/sequential.py).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from turnproc.core.errors import TurnprocError
from turnproc.core.ledger import LedgerEntry
from turnproc.cr import ai, invariants, resolve, setup
from turnproc.cr.orders import PlayerOrders
from turnproc.cr.resolve import TurnResult
from turnproc.cr.state import GameState, RecordHolder
from turnproc.cr.steps import victory
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


def _cr_new_game(
    scenario: Scenario, seed: int, players: list[setup.PlayerSetup], name: str
) -> GameState:
    return setup.new_game(scenario, seed, players, game=name)


def _cr_turn_problems(start: GameState, end: GameState, ledger: list[LedgerEntry]) -> list[str]:
    return invariants.money_problems(start, end, ledger) + invariants.share_problems(end)


def _cr_carry_records(state: GameState, records: list[dict[str, Any]]) -> GameState:
    return state.model_copy(update={"records": [RecordHolder(**r) for r in records]})


def _cr_add_records(
    scenario: Scenario, records: list[dict[str, Any]], final: GameState
) -> list[dict[str, Any]]:
    params = victory.victory_params(scenario).game_end
    merged = victory.merge_records([RecordHolder(**r) for r in records], final.records, params)
    return [r.model_dump() for r in merged]


def _cr_report_renderer() -> Callable[..., Any]:
    from turnproc.render.batch import start_turn_reports

    return start_turn_reports


CONTINENTAL_RAILS = GameFamily(
    name="continental-rails",
    new_game=_cr_new_game,
    resolve_turn=resolve.resolve_turn,
    computer_orders=ai.computer_orders,
    turn_problems=_cr_turn_problems,
    carry_records=_cr_carry_records,
    add_records=_cr_add_records,
    report_renderer=_cr_report_renderer,
)

FAMILIES: dict[str, GameFamily] = {CONTINENTAL_RAILS.name: CONTINENTAL_RAILS}


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
    # The position as one player sees it, as (PDF bytes, JSON text), attached
    # to "your move" mails. Imported on first use (ReportLab).
    move_report: Callable[[], Callable[[Any, int], tuple[bytes, str]] | None]


def _g18xx_computer() -> Callable[[Any, int, int, int], str]:
    from turnproc.families.g18xx import ai

    return ai.next_order


def _g18xx_report() -> Callable[[Any, int], tuple[bytes, str]]:
    from turnproc.families.g18xx.report import build_report, render_json, render_pdf

    def render(game: Any, player: int) -> tuple[bytes, str]:
        report = build_report(game, player)
        return render_pdf(report), render_json(report)

    return render


G18XX = SequentialFamily(
    name="18xx",
    titles={"18ms": "18MS", "18ga": "18GA"},
    options={"18MS": {"edition": ("1.0", "18xx.games")}},
    computer_move=_g18xx_computer,
    move_report=_g18xx_report,
)

SEQUENTIAL: dict[str, SequentialFamily] = {G18XX.name: G18XX}


def sequential_family(scenario: str) -> SequentialFamily | None:
    """The sequential family playing a `game new --scenario` name, if any."""
    for family in SEQUENTIAL.values():
        if scenario.lower() in family.titles:
            return family
    return None


def family_of(scenario: Scenario) -> GameFamily:
    """The family a scenario belongs to (scenario.toml `family`)."""
    name = str(scenario.params.get("scenario", {}).get("family", "continental-rails"))
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        raise TurnprocError(
            f"scenario {scenario.name!r} is of the game family {name!r}, which this "
            f"program does not play (it plays: {known})"
        ) from None
