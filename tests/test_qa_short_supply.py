"""6.2, 6.3 Short sales borrow the public's certificates, so the same shares are
never lent twice and players never hold more than is issued; covers settle in
cash against the lender. (Found by the random-order games: a stock lent twice
made covers and buys fail.)"""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import (
    BuyStock,
    CoverShort,
    PlayerOrders,
    ShortSell,
)
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.stockmarket import physical_public_shares
from turnproc.scenario.model import Scenario


def _sold_out(scenario: Scenario) -> GameState:
    """SCL: 600 issued; tycoon 2 holds every certificate the others do not, and
    tycoon 1 owes 72 shares from an earlier short sale (the public holds no
    certificate but is owed 72)."""
    state = new_game(scenario, 5, [PlayerSetup(position=p) for p in range(1, 16)])
    scl = state.railroads["SCL"]
    others = sum(t.holdings.get("SCL", 0) for t in state.tycoons if t.position != 2)
    state.tycoon(2).holdings["SCL"] = scl.issued - others
    state.tycoon(1).shorts["SCL"] = 72
    state.tycoon(1).short_proceeds["SCL"] = 72 * scl.price * 3 // 2
    state.tycoon(1).cash = 5000
    state.tycoon(3).cash = 5000
    assert physical_public_shares(state, "SCL") == 0
    assert share_problems(state) == []
    return state


def _play(
    scenario: Scenario, state: GameState, orders: dict[int, PlayerOrders]
) -> tuple[GameState, list[str]]:
    problems: list[str] = []

    def check(name: str, ctx: TurnContext) -> None:
        found = money_problems(ctx.start, ctx.state, ctx.ledger) + share_problems(ctx.state)
        problems.extend(f"{name}: {p}" for p in found)

    result = resolve_turn(scenario, state, orders, check)
    return result.state, problems


def test_a_cover_and_a_buy_of_a_sold_out_stock(scenario: Scenario) -> None:
    state = _sold_out(scenario)
    orders = {
        1: PlayerOrders(position=1, orders=[CoverShort(railroad="SCL", shares=72)]),
        3: PlayerOrders(position=3, orders=[BuyStock(railroad="SCL", shares=10)]),
    }
    end, problems = _play(scenario, state, orders)
    assert problems == []
    assert end.tycoon(1).shorts.get("SCL", 0) == 0  # the cover settled in cash
    # nothing was on offer
    assert end.tycoon(3).holdings.get("SCL", 0) == state.tycoon(3).holdings.get("SCL", 0)


def test_shares_cannot_be_lent_twice(scenario: Scenario) -> None:
    state = _sold_out(scenario)
    orders = {
        4: PlayerOrders(position=4, orders=[ShortSell(railroad="SCL", shares=50)]),
        3: PlayerOrders(position=3, orders=[BuyStock(railroad="SCL", shares=50)]),
    }
    state.tycoon(4).cash = 5000
    end, problems = _play(scenario, state, orders)
    assert problems == []
    assert end.tycoon(4).shorts.get("SCL", 0) == 0
    held = sum(t.holdings.get("SCL", 0) for t in end.tycoons)
    assert held <= end.railroads["SCL"].issued


def test_a_short_sale_goes_to_a_buyer_within_the_public_holding(scenario: Scenario) -> None:
    state = new_game(scenario, 5, [PlayerSetup(position=p) for p in range(1, 16)])
    state.tycoon(1).cash = state.tycoon(3).cash = 5000
    public = physical_public_shares(state, "SCL")
    orders = {
        1: PlayerOrders(position=1, orders=[ShortSell(railroad="SCL", shares=60)]),
        3: PlayerOrders(position=3, orders=[BuyStock(railroad="SCL", shares=100)]),
    }
    end, problems = _play(scenario, state, orders)
    assert problems == []
    assert end.tycoon(1).shorts["SCL"] == 60
    assert physical_public_shares(end, "SCL") == public - (end.tycoon(3).holdings["SCL"] - 20)
