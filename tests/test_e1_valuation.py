"""3.4 Assets, net worth and credit limit
(turnproc.families.continental_rails.engine.valuation,
turnproc.families.continental_rails.engine.pcs)."""

from tests.e1_support import start
from turnproc.families.continental_rails.engine import pcs, valuation
from turnproc.scenario.model import Scenario


def test_start_balance_sheet(scenario: Scenario) -> None:
    state = start(scenario)
    sheet = valuation.balance_sheet(state, scenario, 1, state.climate)
    # $1,500 cash and 20 shares each of NYC 20, PENN 18, B&O 15, N&W 12, SCL 10, C&H 11
    assert sheet.cash == 1500
    assert sheet.stock == 20 * (20 + 18 + 15 + 12 + 10 + 11)
    assert sheet.assets == 1500 + 1720
    assert sheet.net_worth == sheet.assets
    # Normal climate: margin 70.0%
    assert sheet.credit_limit == 3220 * 700 // 1000


def test_loan_shorts_pcs_and_railroad_loans_count(scenario: Scenario) -> None:
    state = start(scenario)
    tycoon = state.tycoon(2)
    tycoon.loan = 1000
    tycoon.shorts = {"NYC": 10}
    tycoon.short_proceeds = {"NYC": 300}  # sold 10 at $20 plus $100 margin, held by the broker
    tycoon.pcs = ["B&M"]
    state.pcs["B&M"].status = "owned"
    state.pcs["B&M"].owner = 2
    state.railroads["SCL"].owed_to_president = 300
    state.railroads["SCL"].lender = 2
    b_and_m = pcs.pc_value(scenario, "B&M")
    assert b_and_m == 100 * pcs.opening_price(scenario, "B&M")
    expected_assets = 1500 + 1720 + b_and_m + 300 + 300 - 10 * 20
    assert valuation.assets(state, scenario, 2) == expected_assets
    assert valuation.net_worth(state, scenario, 2) == expected_assets - 1000
    # Panic margin 60%, Boom 80%
    assert valuation.credit_limit(state, scenario, 2, 8) == expected_assets * 600 // 1000
    assert valuation.credit_limit(state, scenario, 2, 0) == expected_assets * 800 // 1000


def test_credit_limit_never_negative(scenario: Scenario) -> None:
    state = start(scenario)
    state.tycoon(3).shorts = {"NYC": 1000}
    assert valuation.assets(state, scenario, 3) < 0
    assert valuation.credit_limit(state, scenario, 3, 4) == 0


def test_pc_terms_follow_traffic(scenario: Scenario) -> None:
    # Boston & Maine: 145 miles, Boston (4) - Portland (2): traffic 145 x 20 = 2,900
    assert pcs.traffic(scenario, "B&M") == 2900
    assert pcs.opening_price(scenario, "B&M") == 11
    assert pcs.pc_income(scenario, "B&M") == 116
    prices = [pcs.opening_price(scenario, c) for c, r in scenario.routes.items() if r.kind == "PC"]
    assert min(prices) == 5 and max(prices) == 30
