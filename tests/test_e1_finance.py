"""3.4-3.6, 11.1 Bank loans, income, bank failures, loan recalls and bankruptcy."""

from tests.e1_support import assert_conserved, codes, context, kinds, start
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.orders import Borrow, RepayLoan
from turnproc.families.continental_rails.engine.pcs import pc_income
from turnproc.families.continental_rails.engine.steps import finance
from turnproc.scenario.model import Scenario


def test_borrow_within_the_credit_limit(scenario: Scenario) -> None:
    state = start(scenario)
    limit = valuation.credit_limit(state, scenario, 1, state.climate)  # 2,254 at Normal
    ctx = context(scenario, state, {1: [Borrow(amount=1000)], 2: [Borrow(amount=5000)]})
    finance.bank_loans(ctx)
    assert ctx.state.tycoon(1).cash == 2500
    assert ctx.state.tycoon(1).loan == 1000
    assert ctx.state.tycoon(2).loan == limit
    assert ctx.rejections[0].code == "OVER_CREDIT_LIMIT"
    assert ctx.rejections[0].cut_to == {"kind": "borrow", "amount": limit}
    assert_conserved(ctx)


def test_borrowed_cash_does_not_raise_the_limit_within_the_turn(scenario: Scenario) -> None:
    state = start(scenario)
    limit = valuation.credit_limit(state, scenario, 1, state.climate)
    orders = [Borrow(amount=limit), Borrow(amount=500)]
    ctx = context(scenario, state, {1: orders})
    finance.bank_loans(ctx)
    assert ctx.state.tycoon(1).loan == limit
    assert codes(ctx) == ["OVER_CREDIT_LIMIT"]
    assert ctx.rejections[0].cut_to is None


def test_repay_is_cut_to_the_loan(scenario: Scenario) -> None:
    state = start(scenario)
    state.tycoon(1).loan = 300
    ctx = context(scenario, state, {1: [RepayLoan(amount=1000)], 2: [RepayLoan(amount=10)]})
    finance.bank_loans(ctx)
    assert ctx.state.tycoon(1).loan == 0
    assert ctx.state.tycoon(1).cash == 1200
    assert ctx.rejections[0].cut_to == {"kind": "repay_loan", "amount": 300}
    assert ctx.rejections[1].position == 2 and ctx.rejections[1].code == "ABOVE_MAXIMUM"
    assert_conserved(ctx)


def test_income_uses_the_starting_climate_and_rounds_as_the_rules_say(
    scenario: Scenario,
) -> None:
    state = start(scenario)
    state.climate = 5  # Recession at the start: loan rate 13%, cash 6.5%
    state.tycoon(1).cash = 1001
    state.tycoon(1).loan = 1001
    state.tycoon(1).pcs = ["B&M"]
    state.pcs["B&M"].status = "owned"
    state.pcs["B&M"].owner = 1
    ctx = context(scenario, state)
    ctx.state.climate = 0  # the stock market phase moved it to Boom: rates do not change
    finance.tycoon_income(ctx)
    cash_interest = 1001 * 13 // 200  # 65.065 -> 65, rounded down
    loan_interest = 131  # 1001 x 13% = 130.13 -> 131, rounded up
    income = pc_income(scenario, "B&M")
    assert ctx.state.tycoon(1).cash == 1001 + cash_interest + income - loan_interest
    assert kinds(ctx, "loan_interest")[0]["amount"] == loan_interest
    assert kinds(ctx, "pc_income")[0]["amount"] == income
    assert_conserved(ctx)


def test_leverage_surcharge_on_the_loan_above_half_the_credit_limit(scenario: Scenario) -> None:
    """3.4 [designed, issue 24] finance.toml [leverage]: 8% more on the part of
    the loan above 50% of the credit limit the turn started with."""
    state = start(scenario)
    state.tycoon(4).cash = 0
    state.tycoon(4).loan = 1000  # assets: the starting $1,720 of stock; limit 70%: $1,204
    ctx = context(scenario, state)
    finance.tycoon_income(ctx)
    event = kinds(ctx, "loan_interest")[0]
    # 12% of $1,000 = $120; 8% of the $398 above $602 = $31.84, rounded up
    assert event["surcharge"] == 32
    assert event["amount"] == 152
    assert ctx.state.tycoon(4).loan == 1152
    assert_conserved(ctx)


def test_unpaid_interest_is_added_to_the_loan(scenario: Scenario) -> None:
    state = start(scenario)
    state.tycoon(4).cash = 10
    state.tycoon(4).loan = 2000  # 12% at Normal: $240 due
    # Stock enough that the loan stays within half the credit limit: no leverage surcharge.
    state.tycoon(4).holdings["PENN"] = 320  # all of PENN the public held
    ctx = context(scenario, state)
    finance.tycoon_income(ctx)
    # $10 earns $0 interest (6% of 10 = 0.6, rounded down); all $10 pays interest
    assert ctx.state.tycoon(4).cash == 0
    assert ctx.state.tycoon(4).loan == 2000 + 230
    assert kinds(ctx, "loan_interest")[0]["added_to_loan"] == 230
    assert_conserved(ctx)


def test_no_bank_failures_at_normal_or_better(scenario: Scenario) -> None:
    for climate in range(5):
        state = start(scenario)
        state.climate = climate
        ctx = context(scenario, state)
        finance.bank_failures(ctx)
        assert ctx.events == []


def test_bank_failures_in_a_panic_take_at_most_a_third(scenario: Scenario) -> None:
    failures = 0
    for seed in range(20):
        state = start(scenario, seed=seed)
        state.climate = 8
        ctx = context(scenario, state)
        finance.bank_failures(ctx)
        assert_conserved(ctx)
        for loss in kinds(ctx, "bank_failure_loss"):
            assert 1500 * 5 // 100 <= int(loss["amount"]) <= 1500 * 33 // 100
            failures += 1
        again = context(scenario, state)
        finance.bank_failures(again)
        assert again.events == ctx.events
    # 25% of 300 tycoon-turns
    assert 45 <= failures <= 105


def test_loan_within_the_new_limit_is_not_recalled(scenario: Scenario) -> None:
    state = start(scenario)
    state.tycoon(1).loan = 2000
    ctx = context(scenario, state)
    finance.loan_recalls(ctx)
    assert ctx.events == []


def test_recall_paid_from_cash_then_stock(scenario: Scenario) -> None:
    state = start(scenario)
    tycoon = state.tycoon(1)
    tycoon.cash = 100
    tycoon.loan = 2000
    state.railroads["NYC"].president = 1
    ctx = context(scenario, state)
    # The climate fell one level, Depression to Panic: margin 60% (a fall of two
    # or more would also squeeze the limit to 70%: cases/03-5-credit-squeeze.toml).
    ctx.start.climate = 7
    ctx.state.climate = 8
    limit = valuation.credit_limit(ctx.state, scenario, 1, 8)  # 0.6 x 1,820 = 1,092
    finance.loan_recalls(ctx)
    excess = 2000 - limit
    recalled = kinds(ctx, "loan_recalled")
    assert recalled[0]["amount"] == excess and recalled[0]["credit_limit"] == limit
    sales = kinds(ctx, "forced_stock_sale")
    # stock of railroads he does not preside is sold first, dearest first: PENN at $18
    assert sales[0]["railroad"] == "PENN"
    assert all(s["railroad"] != "NYC" for s in sales)
    after = ctx.state.tycoon(1)
    assert after.loan == limit
    assert after.cash < max(s["price"] for s in sales)  # only the shares needed
    assert not kinds(ctx, "bankruptcy")
    assert_conserved(ctx)


def test_bankruptcy_takes_everything_and_restarts(scenario: Scenario) -> None:
    state = start(scenario)
    tycoon = state.tycoon(3)
    tycoon.loan = 9000
    tycoon.pcs = ["B&M"]
    state.pcs["B&M"].status = "owned"
    state.pcs["B&M"].owner = 3
    state.railroads["SCL"].owed_to_president = 200
    state.railroads["SCL"].lender = 3
    ctx = context(scenario, state)
    finance.loan_recalls(ctx)
    after = ctx.state.tycoon(3)
    assert kinds(ctx, "loan_recalled") and kinds(ctx, "forced_pc_sale")
    assert kinds(ctx, "bankruptcy")[0]["position"] == 3
    assert after.loan == 0 and after.holdings == {} and after.pcs == []
    assert after.cash == finance.FinanceParams().bankruptcy.grubstake
    assert after.bankruptcies == 1 and after.bankrupt_turn == 1
    assert ctx.state.pcs["B&M"].status == "available"
    assert ctx.state.railroads["SCL"].owed_to_president == 0
    assert ctx.state.railroads["SCL"].loan == 200
    assert_conserved(ctx)


def test_bankrupt_shorts_are_covered(scenario: Scenario) -> None:
    state = start(scenario)
    rr = state.railroads["N&W"]
    # every issued share is held by players; tycoon 5 owes 50 more sold short
    state.tycoon(6).holdings["N&W"] = 20 + rr.issued - 15 * 20 + 50
    state.tycoon(5).shorts = {"N&W": 50}
    state.tycoon(5).loan = 20000
    assert state.public_shares("N&W") == 0
    ctx = context(scenario, state)
    finance.loan_recalls(ctx)
    assert kinds(ctx, "bankruptcy")
    assert ctx.state.tycoon(5).shorts == {}
    assert_conserved(ctx)
