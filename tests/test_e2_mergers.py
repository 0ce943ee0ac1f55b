"""4.13 Mergers keep the share register whole, shorts included."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import MergeRailroads, PlayerOrders
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps import mergers
from turnproc.scenario.model import Scenario


def test_merger_converts_holdings_shorts_and_public(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    state.railroads["PENN"].president = 4
    state.railroads["PENN"].price = 30
    state.railroads["C&A"] = Railroad(
        code="C&A",
        number=10,
        name="Camden & Amboy",
        lines=["C&A"],
        issued=400,
        authorized=700,
        price=17,
        cash=900,
        president=4,
        grand_station="new_york",
        technologies=["A"],
    )
    state.tycoons[0].holdings["C&A"] = 33
    state.tycoons[1].holdings["C&A"] = 7
    state.tycoons[2].shorts["C&A"] = 11
    state.tycoons[2].short_proceeds["C&A"] = 187
    state.tycoons[2].wants_presidency = ["C&A"]
    assert share_problems(state) == []
    orders = {4: PlayerOrders(position=4, orders=[MergeRailroads(railroad="PENN", other="C&A")])}
    ctx = TurnContext(
        scenario=scenario, state=state.model_copy(deep=True), start=state, orders=orders
    )
    mergers.merge_railroads(ctx)

    end = ctx.state
    assert "C&A" not in end.railroads
    assert share_problems(end) == []
    assert money_problems(state, end, ctx.ledger) == []
    penn = end.railroads["PENN"]
    assert penn.lines == ["PENN", "C&A"]
    assert penn.grand_station == "new_york" and "A" in penn.technologies
    assert end.tycoons[0].holdings["PENN"] == 20 + 33 * 17 // 30
    assert end.tycoons[2].shorts == {"PENN": 11 * 17 // 30}
    assert end.tycoons[2].short_proceeds == {"PENN": 187}
    assert end.tycoons[2].wants_presidency == ["PENN"]
    public_before = state.public_shares("C&A")
    assert end.public_shares("PENN") == state.public_shares("PENN") + public_before * 17 // 30
    assert penn.treasury == 400 + 300 * 17 // 30
