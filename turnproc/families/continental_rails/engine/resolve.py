"""Resolve one whole turn (Appendix C, the sequence of game actions).

`resolve_turn` is the rules engine's single entry point for a turn: it takes
the state at the start of the turn and every position's orders and returns the
state at the end, the typed events, the orders refused or cut, and the ledger.
It never changes its inputs, and the same inputs always give the same result.
"""

from collections.abc import Callable, Mapping

from pydantic import BaseModel, SerializeAsAny

from turnproc.core.ledger import LedgerEntry
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import (
    auctions,
    climate,
    companies,
    elections,
    finance,
    improvements,
    mergers,
    operations,
    personal,
    railroad_finance,
    rights_of_way,
    stockmarket,
    victory,
)
from turnproc.scenario.model import Scenario

Step = Callable[[TurnContext], None]

# Appendix C: the sequence of game actions. docs/rules/appendix-c-sequence.md
# describes the same sequence for players; keep them in step.
SEQUENCE: tuple[tuple[str, Step], ...] = (
    ("3.2 character names", personal.character_names),
    ("3.4 bank loans", finance.bank_loans),
    ("10.1 PC auction", auctions.pc_auction),
    ("10.1 PC offers", auctions.pc_offers),
    ("4.1 incorporation", companies.incorporate_pcs),
    ("4.1 PC mergers", companies.merge_pcs),
    ("4.2 treasury stock", personal.treasury_stock),
    ("4.5 loans to railroads", personal.railroad_loans),
    ("1.2 prodigal spending", personal.prodigal_spending),
    ("3.1 spying", personal.spying),
    ("4.3 railroad finance", railroad_finance.railroad_finance),
    ("4.7 RoW auction", rights_of_way.row_auction),
    ("4.6 building", rights_of_way.build_rows),
    ("7 land sales", rights_of_way.land_sales),
    ("4.15 improvements", improvements.improvements),
    ("4.13 railroad mergers", mergers.merge_railroads),
    ("6 stock market", stockmarket.stock_market),
    ("5 climate", climate.change_climate),
    ("4.10 operations", operations.operations),
    ("6.3 revaluation", stockmarket.revaluation),
    ("3.4 tycoon income", finance.tycoon_income),
    ("11.1 bank failures", finance.bank_failures),
    ("3.5 loan recalls", finance.loan_recalls),
    ("6.5 splits", stockmarket.splits),
    ("4.14 elections", elections.elections),
    ("1.2 victory points", victory.victory_points),
    ("2.3 new PCs", auctions.release_pcs),
    ("4.17 new locomotives and technologies", improvements.progress),
    ("1.3 game end", victory.game_end),
)


class TurnResult(BaseModel):
    """What a turn produced: the next state and the record of what happened."""

    state: GameState
    events: list[SerializeAsAny[Event]]
    rejections: list[Rejection]
    ledger: list[LedgerEntry]


def resolve_turn(
    scenario: Scenario,
    state: GameState,
    orders: Mapping[int, PlayerOrders],
    after_step: Callable[[str, TurnContext], None] | None = None,
) -> TurnResult:
    """Resolve the turn `state.turn`. `after_step` lets tests check invariants
    between steps; it must not change the context."""
    # `start` is the caller's state itself: the steps only read it (the
    # purity tests check that resolving leaves its input as it was).
    ctx = TurnContext(scenario=scenario, state=state.working_copy(), start=state, orders=orders)
    for name, step in SEQUENCE:
        step(ctx)
        if after_step is not None:
            after_step(name, ctx)
    ctx.state.turn += 1
    # Every value is of its field's type by construction (the steps make the
    # events, rejections and ledger entries through their validators): the
    # result is not validated again, a walk over a thousand items a turn.
    return TurnResult.model_construct(
        state=ctx.state, events=ctx.events, rejections=ctx.rejections, ledger=ctx.ledger
    )
