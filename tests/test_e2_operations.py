"""4.10-4.12, 4.15, 8: revenue, expense, climate, dividends."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import improvements
from turnproc.families.continental_rails.engine.steps import operations as ops
from turnproc.scenario.model import Scenario


def _game(scenario: Scenario) -> GameState:
    return new_game(scenario, 3, [PlayerSetup(position=p) for p in range(1, 16)])


def _ctx(scenario: Scenario, state: GameState) -> TurnContext:
    return TurnContext(scenario=scenario, state=state.model_copy(deep=True), start=state, orders={})


def test_double_track_adds_the_two_town_values_percent(scenario: Scenario) -> None:
    state = _game(scenario)
    rr = state.railroads["PENN"].model_copy(update={"lines": ["PENN", "PA8"]})
    single = ops.line_revenues(scenario, state, rr, 4, 1)
    rr.double_tracked = ["PA8"]
    double = ops.line_revenues(scenario, state, rr, 4, 1)
    pa8_single = next(line for line in single if line.line == "PA8")
    pa8_double = next(line for line in double if line.line == "PA8")
    # Philadelphia (size 5) + Baltimore (size 4): 25 + 16 = +41%.
    assert pa8_double.gross == pa8_single.gross * 141 // 100
    # the bonus carries no operating cost
    assert pa8_double.traffic == pa8_single.traffic
    assert [line.gross for line in single if line.line == "PENN"] == [
        line.gross for line in double if line.line == "PENN"
    ]


def test_expense_follows_the_efficiency_bands(scenario: Scenario) -> None:
    permille = {e: ops.expense_permille(scenario, e) for e in range(30, 100)}
    assert all(permille[e] > permille[e + 1] for e in range(30, 99))
    # excellent railroads keep more than half of their revenue
    assert permille[90] < 500
    # under 50 is very unprofitable: expenses exceed revenue well before 40
    assert permille[45] > 1000 - 100
    assert permille[40] > 1000


def test_revenue_uses_the_starting_climate(scenario: Scenario) -> None:
    state = _game(scenario)
    ctx = _ctx(scenario, state)
    ctx.state.climate = 8  # the market crashed during this turn's trading
    ops.operations(ctx)
    boom = state.model_copy(deep=True)
    boom.climate = 0
    ctx_boom = _ctx(scenario, boom)
    ops.operations(ctx_boom)

    def revenue(c: TurnContext) -> int:
        return next(
            e.revenue
            for e in c.events
            if isinstance(e, ops.OperationsResult) and e.railroad == "PENN"
        )

    params = ops.operations_params(scenario).revenue
    normal = revenue(ctx)
    assert normal == 104 * (10 + 25 + 4) * params.rate_percent // 100
    assert revenue(ctx_boom) == 104 * 39 * params.rate_percent * params.climate_percent[0] // 10_000


def test_starting_railroads_earn_a_modest_profit(scenario: Scenario) -> None:
    """Balance target: a starting railroad of 80-160 miles earns a modest profit,
    a few dollars a share on its 600 shares."""
    state = _game(scenario)
    per_share = {}
    for code, rr in state.railroads.items():
        lines = ops.line_revenues(scenario, state, rr, state.climate, 1)
        traffic = sum(line.traffic for line in lines)
        revenue = sum(line.net for line in lines)
        profit = revenue - ops.operating_expense(scenario, rr, traffic, rr.efficiency)
        per_share[code] = profit / rr.issued
    assert all(0.5 <= p <= 6 for p in per_share.values()), per_share
    assert sum(per_share.values()) / len(per_share) >= 2


def test_war_hits_southern_lines_only_in_war_turns(scenario: Scenario) -> None:
    war = ops.civil_war_params(scenario)
    assert ops.war_percent(scenario, "SCL", 10) == 100
    assert ops.war_percent(scenario, "SCL", 11) == war.southern_revenue_percent
    assert ops.war_percent(scenario, "NYC", 12) == war.northern_revenue_percent
    assert ops.war_percent(scenario, "SCL", 13) == 100


def test_reasonable_dividend_keeps_a_reserve(scenario: Scenario) -> None:
    state = _game(scenario)
    rr = state.railroads["NYC"].model_copy(update={"cash": 1000})
    # profit would pay $3, but only cash above the reserve ($5 x 148 miles) may go
    assert ops.reasonable_dividend(scenario, rr, 3000) == (1000 - 5 * 148) // rr.issued
    assert ops.reasonable_dividend(scenario, rr, -10) == 0


def test_president_salary_is_a_fifth_of_a_profit_within_the_cash(scenario: Scenario) -> None:
    state = _game(scenario)
    percent = ops.operations_params(scenario).salary.profit_percent
    assert percent == 20
    led = state.railroads["NYC"].model_copy(update={"president": 4, "cash": 5000})
    assert ops.president_salary(scenario, led, 2043) == 2043 * percent // 100
    # no president, no profit or no cash: no salary
    assert ops.president_salary(scenario, led.model_copy(update={"president": None}), 2043) == 0
    assert ops.president_salary(scenario, led, -500) == 0
    assert ops.president_salary(scenario, led.model_copy(update={"cash": -10}), 2043) == 0
    # never more than the cash the railroad has
    assert ops.president_salary(scenario, led.model_copy(update={"cash": 100}), 2043) == 100


def test_several_efficiency_points_cost_the_sum_of_each_point(scenario: Scenario) -> None:
    state = _game(scenario)
    rr = state.railroads["PENN"].model_copy(update={"lines": ["PENN", "PA8"]})
    for efficiency in (40, 55, 69, 70, 85):
        for points in (0, 1, 7, 20):
            each = sum(improvements.point_cost(scenario, rr, efficiency + i) for i in range(points))
            assert improvements.points_cost(scenario, rr, efficiency, points) == each
