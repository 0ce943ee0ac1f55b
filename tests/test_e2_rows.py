"""4.7 RoW auctions, 4.6 building costs, 7 land grants."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.orders import BidForRoW, PlayerOrders
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import rights_of_way as rows
from turnproc.families.continental_rails.engine.steps.operations import civil_war_params, is_western
from turnproc.scenario.model import Scenario


def _state(scenario: Scenario) -> GameState:
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    state.railroads["PENN"].president = 1
    state.railroads["B&O"].president = 2
    return state


def _auction(scenario: Scenario, state: GameState, bids: dict[int, BidForRoW]) -> TurnContext:
    orders = {p: PlayerOrders(position=p, orders=[bid]) for p, bid in bids.items()}
    ctx = TurnContext(
        scenario=scenario, state=state.model_copy(deep=True), start=state, orders=orders
    )
    rows.row_auction(ctx)
    return ctx


def test_uncontested_bid_keeps_influence(scenario: Scenario) -> None:
    state = _state(scenario)
    state.railroads["PENN"].political = 300
    ctx = _auction(scenario, state, {1: BidForRoW(railroad="PENN", row="PA8", amount=150)})
    assert ctx.state.railroads["PENN"].rows == ["PA8"]
    assert ctx.state.railroads["PENN"].political == 300


def test_highest_bidder_short_of_cash_gives_way(scenario: Scenario) -> None:
    state = _state(scenario)
    ctx = _auction(
        scenario,
        state,
        {
            1: BidForRoW(railroad="PENN", row="PA8", amount=5000),
            2: BidForRoW(railroad="B&O", row="PA8", amount=300),
        },
    )
    assert ctx.state.railroads["B&O"].rows == ["PA8"]
    assert [r.code for r in ctx.rejections] == ["INSUFFICIENT_CASH"]


def test_ties_are_settled_by_lot_the_same_way_every_time(scenario: Scenario) -> None:
    state = _state(scenario)
    bids = {
        1: BidForRoW(railroad="PENN", row="PA8", amount=300),
        2: BidForRoW(railroad="B&O", row="PA8", amount=300),
    }
    first = _auction(scenario, state, bids)
    second = _auction(scenario, state, bids)
    owners = [c for c, rr in first.state.railroads.items() if "PA8" in rr.rows]
    assert len(owners) == 1
    assert owners == [c for c, rr in second.state.railroads.items() if "PA8" in rr.rows]
    assert [r.code for r in first.rejections] == ["OUTBID"]


def test_influence_counts_only_where_the_lines_touch(scenario: Scenario) -> None:
    state = _state(scenario)
    # Both built lines touch PA8 (Philadelphia, Baltimore): 300 + 0 loses to 250 + 100.
    state.railroads["B&O"].political = 100
    ctx = _auction(
        scenario,
        state,
        {
            1: BidForRoW(railroad="PENN", row="PA8", amount=300),
            2: BidForRoW(railroad="B&O", row="PA8", amount=250),
        },
    )
    assert ctx.state.railroads["B&O"].rows == ["PA8"]
    assert ctx.state.railroads["B&O"].political == 0
    # NYC reaches PA8 only through an unbuilt RoW (PA10): its influence does not count.
    state = _state(scenario)
    state.railroads["NYC"].president = 3
    state.railroads["NYC"].rows = ["PA10"]
    state.railroads["NYC"].political = 1000
    ctx = _auction(
        scenario,
        state,
        {
            1: BidForRoW(railroad="PENN", row="PA8", amount=300),
            3: BidForRoW(railroad="NYC", row="PA8", amount=250),
        },
    )
    assert ctx.state.railroads["PENN"].rows == ["PA8"]
    assert ctx.state.railroads["NYC"].political == 1000


def test_costs_grow_with_terrain_and_climate(scenario: Scenario) -> None:
    flat = rows.building_cost(scenario, "IL4", 4)
    assert rows.building_cost(scenario, "IL4", 0) > flat > rows.building_cost(scenario, "IL4", 8)
    mountain = next(c for c, r in scenario.routes.items() if c.startswith("CO") and r.kind == "RoW")
    per_mile_flat = rows.double_track_cost(scenario, "IL4", 4) / scenario.routes["IL4"].length
    per_mile_mountain = (
        rows.double_track_cost(scenario, mountain, 4) / scenario.routes[mountain].length
    )
    assert per_mile_mountain > per_mile_flat


def test_grants_in_the_west_not_the_east(scenario: Scenario) -> None:
    assert rows.land_grant(scenario, "PA8") == 0
    assert rows.land_grant(scenario, "IL4") == 10 * scenario.routes["IL4"].length
    assert rows.land_grant(scenario, "UP") == 0  # a PC is never granted land
    assert all(
        rows.land_grant(scenario, c) > 0
        for c, r in scenario.routes.items()
        if r.kind == "RoW"
        and is_western(scenario, c)
        and rows.route_state(scenario, c) in civil_war_params(scenario).western_states
    )


def test_influence_spent_in_one_contest_is_gone_for_the_next(scenario: Scenario) -> None:
    state = _state(scenario)
    state.railroads["PENN"].political = 300
    read = state.railroads["PENN"].model_copy(
        deep=True, update={"code": "READ", "lines": ["READ"], "president": 2, "political": 0}
    )
    state.railroads["READ"] = read
    orders = {
        1: PlayerOrders(
            position=1,
            orders=[
                BidForRoW(railroad="PENN", row="PA1", amount=200),
                BidForRoW(railroad="PENN", row="PA8", amount=200),
            ],
        ),
        2: PlayerOrders(
            position=2,
            orders=[
                BidForRoW(railroad="READ", row="PA1", amount=400),
                BidForRoW(railroad="READ", row="PA8", amount=400),
            ],
        ),
    }
    ctx = TurnContext(
        scenario=scenario, state=state.model_copy(deep=True), start=state, orders=orders
    )
    rows.row_auction(ctx)
    # PA1 (route 106) is settled first: 200 + 300 influence beats 400.
    assert ctx.state.railroads["PENN"].rows == ["PA1"]
    assert ctx.state.railroads["PENN"].political == 0
    # PA8 (route 113): the influence is spent, 200 loses to 400.
    assert ctx.state.railroads["READ"].rows == ["PA8"]
