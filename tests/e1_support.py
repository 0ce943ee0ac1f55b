"""Helpers for the tycoon/PC/finance/climate engine tests (tests/test_e1_*.py)."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario


def start(scenario: Scenario, seed: int = 5) -> GameState:
    return new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])


def context(
    scenario: Scenario, state: GameState, orders: dict[int, list[Order]] | None = None
) -> TurnContext:
    """A turn context at the start of `state`'s turn with these orders."""
    return TurnContext(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state.model_copy(deep=True),
        orders={
            pos: PlayerOrders(position=pos, orders=list(given))
            for pos, given in (orders or {}).items()
        },
    )


def assert_conserved(ctx: TurnContext) -> None:
    assert money_problems(ctx.start, ctx.state, ctx.ledger) == []
    assert share_problems(ctx.state) == []


def kinds(ctx: TurnContext, kind: str) -> list[dict[str, object]]:
    return [e.model_dump() for e in ctx.events if e.kind == kind]


def codes(ctx: TurnContext) -> list[str]:
    return [r.code for r in ctx.rejections]
