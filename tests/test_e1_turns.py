"""Whole turns with tycoons borrowing, bidding, incorporating, merging and
spending: money and shares stay conserved after every step, and the result does
not depend on the order positions wrote their bids in."""

from tests.e1_support import start
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import (
    BidForPC,
    Borrow,
    IncorporatePC,
    MergePC,
    Order,
    PlayerOrders,
    ProdigalSpending,
)
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario


def _orders(state: GameState, reverse: bool = False) -> dict[int, PlayerOrders]:
    available = sorted(
        (code for code, pc in state.pcs.items() if pc.status == "available"),
        key=lambda c: state.pcs[c].asking_price,
    )
    orders: dict[int, PlayerOrders] = {}
    for tycoon in state.tycoons:
        pos = tycoon.position
        given: list[Order] = [Borrow(amount=800)]
        for i, code in enumerate(available[pos % 5 : pos % 5 + 3]):
            given.append(BidForPC(pc=code, amount=state.pcs[code].asking_price + 50 * (pos + i)))
        for code in tycoon.pcs:
            if pos % 2:
                given.append(IncorporatePC(pc=code))
            else:
                given.extend(MergePC(pc=code, railroad=rr) for rr in state.railroads)
        given.append(ProdigalSpending(amount=100 * pos))
        orders[pos] = PlayerOrders(position=pos, orders=given[::-1] if reverse else given)
    return orders


def test_busy_turns_conserve_money_and_shares(scenario: Scenario) -> None:
    state = start(scenario, seed=21)

    def check(name: str, ctx: TurnContext) -> None:
        assert money_problems(ctx.start, ctx.state, ctx.ledger) == [], name
        assert share_problems(ctx.state) == [], name

    kinds: set[str] = set()
    for _ in range(4):
        result = resolve_turn(scenario, state, _orders(state), after_step=check)
        kinds |= {e.kind for e in result.events}
        state = result.state
    assert {"pc_bought", "railroad_incorporated", "prodigal_spent", "loan_taken"} <= kinds


def test_auction_ignores_the_order_bids_were_written_in(scenario: Scenario) -> None:
    state = start(scenario, seed=8)
    forward = resolve_turn(scenario, state, _orders(state))
    backward = resolve_turn(scenario, state, _orders(state, reverse=True))
    owners = {c: pc.owner for c, pc in forward.state.pcs.items()}
    assert owners == {c: pc.owner for c, pc in backward.state.pcs.items()}
