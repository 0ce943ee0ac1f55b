"""Engine bugs found by the random-order games in modules still being written,
kept as failing tests (xfail, strict) until fixed: each one states the rule it
breaks. When a fix lands, the strict xfail turns into a failure and the marker
is removed."""

import pytest

from turnproc.cr.context import TurnContext
from turnproc.cr.invariants import money_problems, share_problems
from turnproc.cr.orders import BuyStock, CoverShort, PlayerOrders
from turnproc.cr.resolve import resolve_turn
from turnproc.cr.setup import PlayerSetup, new_game
from turnproc.cr.state import GameState
from turnproc.scenario.model import Scenario


def _sold_out_short(scenario: Scenario) -> GameState:
    """SCL: 600 issued; the players hold 672 because tycoon 1 sold 72 short and
    tycoon 2 bought them. The public holds nothing: 600 - 672 + 72 = 0."""
    state = new_game(scenario, 5, [PlayerSetup(position=p) for p in range(1, 16)])
    scl = state.railroads["SCL"]
    held_by_others = sum(t.holdings.get("SCL", 0) for t in state.tycoons if t.position != 2)
    state.tycoon(2).holdings["SCL"] = scl.issued + 72 - held_by_others
    state.tycoon(1).shorts["SCL"] = 72
    state.tycoon(1).short_proceeds["SCL"] = 72 * scl.price * 3 // 2
    assert state.public_shares("SCL") == 0
    return state


def _play(scenario: Scenario, state: GameState, orders: dict[int, PlayerOrders]) -> list[str]:
    problems: list[str] = []

    def check(name: str, ctx: TurnContext) -> None:
        found = money_problems(ctx.start, ctx.state, ctx.ledger) + share_problems(ctx.state)
        problems.extend(f"{name}: {p}" for p in found)

    resolve_turn(scenario, state, orders, check)
    return problems


@pytest.mark.xfail(
    strict=True,
    reason="stockmarket.stock_market: covers are filled in full even when the public "
    "holds fewer shares than are owed (players hold more than is issued after short "
    "sales), so `available` goes negative and a cut BuyStock gets negative shares "
    "(pydantic ValidationError)",
)
def test_cover_and_buy_when_the_public_is_sold_out(scenario: Scenario) -> None:
    """6.2, 6.3 A cover and a buy of a stock the public no longer holds must not
    crash the turn; neither may create shares."""
    state = _sold_out_short(scenario)
    orders = {
        1: PlayerOrders(position=1, orders=[CoverShort(railroad="SCL", shares=72)]),
        3: PlayerOrders(position=3, orders=[BuyStock(railroad="SCL", shares=10)]),
    }
    assert _play(scenario, state, orders) == []


@pytest.mark.xfail(
    strict=True,
    reason="stockmarket.stock_market: a cover is filled in full from a public that "
    "holds no shares, leaving the public's holding negative (players hold more "
    "than is issued: invariants.share_problems)",
)
def test_cover_when_the_public_is_sold_out_keeps_the_share_register(
    scenario: Scenario,
) -> None:
    """6.2 Covering buys shares back from the public; shares the public does not
    hold cannot be bought, so the share register must stay consistent."""
    state = _sold_out_short(scenario)
    orders = {1: PlayerOrders(position=1, orders=[CoverShort(railroad="SCL", shares=72)])}
    assert _play(scenario, state, orders) == []
