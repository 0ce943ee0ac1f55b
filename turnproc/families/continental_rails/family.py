"""Continental Rails as the pipeline sees it: its `GameFamily`."""

from collections.abc import Callable, Sequence
from typing import Any

from turnproc.core.ledger import LedgerEntry
from turnproc.families.boundary import Adjustment, GameFamily, OrderNote, Seat
from turnproc.families.continental_rails import adjustment, ai
from turnproc.families.continental_rails.engine import invariants, resolve, setup
from turnproc.families.continental_rails.engine.events import Announcement, ModeratorAdjustment
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import GameState, RecordHolder
from turnproc.families.continental_rails.engine.steps import victory
from turnproc.scenario.model import Scenario


def _cr_new_game(scenario: Scenario, seed: int, seats: list[Seat], name: str) -> GameState:
    players = [
        setup.PlayerSetup(position=s.position, character=s.character, human=s.human) for s in seats
    ]
    return setup.new_game(scenario, seed, players, game=name)


def _cr_turn_problems(start: GameState, end: GameState, ledger: list[LedgerEntry]) -> list[str]:
    return invariants.money_problems(start, end, ledger) + invariants.share_problems(end)


def _cr_holders(state: GameState) -> list[Seat]:
    return [Seat(position=t.position, character=t.character, human=t.human) for t in state.tycoons]


def _cr_seat(
    state: GameState, position: int, character: str | None, human: bool | None
) -> GameState:
    tycoon = state.tycoon(position)
    if character is not None:
        tycoon.character = character
    if human is not None:
        tycoon.human = human
    return state


def _cr_carry_records(state: GameState, records: list[dict[str, Any]]) -> GameState:
    return state.model_copy(update={"records": [RecordHolder(**r) for r in records]})


def _cr_add_records(
    scenario: Scenario, records: list[dict[str, Any]], final: GameState
) -> list[dict[str, Any]]:
    params = victory.victory_params(scenario).game_end
    merged = victory.merge_records([RecordHolder(**r) for r in records], final.records, params)
    return [r.model_dump() for r in merged]


def _cr_order_notes(rejections: Sequence[Any], position: int) -> Sequence[OrderNote]:
    # The report's model loads the turnsheet's wording: imported on first use.
    from turnproc.families.continental_rails.report.model import order_notes

    return order_notes(list(rejections), position)


def _cr_idle_orders(position: int) -> PlayerOrders:
    return PlayerOrders(position=position, orders=[], source="computer")


def _cr_adjustment_of(event: Any) -> Adjustment | None:
    if not isinstance(event, ModeratorAdjustment):
        return None
    return Adjustment(
        position=event.position,
        railroad=event.railroad,
        cash=event.cash,
        shares=event.shares,
        issued=event.issued,
        reason=event.reason,
    )


def _cr_announcement(position: int | None, text: str, anonymous: bool) -> Announcement:
    return Announcement(position=position, text=text, anonymous=anonymous)


def _cr_report_renderer() -> Callable[..., Any]:
    from turnproc.families.continental_rails.report.render import start_turn_reports

    return start_turn_reports


def _cr_rules_pdf(pdf_name: str | None) -> tuple[str, bytes]:
    # The one rules PDF of the family, whatever the mail's PDF is named.
    from turnproc.families.continental_rails.report.rules_pdf import (
        RULES_PDF_NAME,
        game_rules_pdf,
    )

    return RULES_PDF_NAME, game_rules_pdf()


CONTINENTAL_RAILS: GameFamily[GameState, PlayerOrders, TurnResult] = GameFamily(
    name="continental-rails",
    new_game=_cr_new_game,
    resolve_turn=resolve.resolve_turn,
    computer_orders=ai.computer_orders,
    turn_problems=_cr_turn_problems,
    holders=_cr_holders,
    seat=_cr_seat,
    carry_records=_cr_carry_records,
    add_records=_cr_add_records,
    order_notes=_cr_order_notes,
    adjust=adjustment.adjust,
    idle_orders=_cr_idle_orders,
    adjustment_of=_cr_adjustment_of,
    announcement=_cr_announcement,
    report_renderer=_cr_report_renderer,
    rules_pdf=_cr_rules_pdf,
)
