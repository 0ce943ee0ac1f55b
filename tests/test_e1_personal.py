"""3.1, 3.2, 4.2, 4.5, 1.2 Personal actions: names, treasury stock, loans to
railroads, Prodigal spending and spying."""

from tests.e1_support import assert_conserved, codes, context, kinds, start
from turnproc.families.continental_rails.engine.orders import (
    Borrow,
    BuyTreasuryStock,
    CollectFromRailroad,
    LendToRailroad,
    ProdigalSpending,
    SetCharacterName,
    SpyOnPlayer,
    SpyOnRailroad,
)
from turnproc.families.continental_rails.engine.setup import CharacterParams
from turnproc.families.continental_rails.engine.steps import finance, personal
from turnproc.scenario.model import Scenario


def test_names_are_unique_on_the_first_turn(scenario: Scenario) -> None:
    state = start(scenario)
    taken = state.tycoon(9).character
    ctx = context(
        scenario,
        state,
        {
            1: [SetCharacterName(name="Commodore")],
            2: [SetCharacterName(name="commodore")],
            3: [SetCharacterName(name=taken)],
        },
    )
    personal.character_names(ctx)
    names = [t.character for t in ctx.state.tycoons]
    assert len({n.casefold() for n in names}) == 15
    assert [n.casefold() for n in names[:2]].count("commodore") == 1
    assert names[2] != taken
    historical = ctx.params("characters", CharacterParams).names
    assert names[2] in historical
    assert codes(ctx) == ["NAME_TAKEN", "NAME_TAKEN"]


def test_names_only_on_turn_one_or_after_bankruptcy(scenario: Scenario) -> None:
    state = start(scenario)
    state.turn = 4
    state.tycoon(2).bankrupt_turn = 3
    ctx = context(
        scenario,
        state,
        {1: [SetCharacterName(name="Uncle Dan")], 2: [SetCharacterName(name="Phoenix")]},
    )
    personal.character_names(ctx)
    assert codes(ctx) == ["NOT_ALLOWED_NOW"]
    assert ctx.state.tycoon(2).character == "Phoenix"


def test_treasury_stock_at_market_price(scenario: Scenario) -> None:
    state = start(scenario)
    state.railroads["NYC"].president = 1
    ctx = context(
        scenario,
        state,
        {
            1: [
                BuyTreasuryStock(railroad="NYC", shares=10),
                BuyTreasuryStock(railroad="NYC", shares=500),
            ],
            2: [BuyTreasuryStock(railroad="NYC", shares=10)],
        },
    )
    personal.treasury_stock(ctx)
    rr = ctx.state.railroads["NYC"]
    # 10 at $20, then the cash left ($1,300) buys 65 of the 390 left
    assert ctx.state.tycoon(1).holdings["NYC"] == 20 + 10 + 65
    assert rr.issued == 675 and rr.cash == 2000 + 1500
    assert ctx.rejections[0].cut_to == {"kind": "buy_treasury", "railroad": "NYC", "shares": 65}
    assert ctx.rejections[1].code == "NOT_PRESIDENT"
    assert_conserved(ctx)


def test_loans_to_a_railroad_and_repayment(scenario: Scenario) -> None:
    state = start(scenario)
    state.railroads["SCL"].president = 1
    ctx = context(
        scenario,
        state,
        {
            1: [
                LendToRailroad(railroad="SCL", amount=500),
                CollectFromRailroad(railroad="SCL", amount=200),
            ],
            2: [LendToRailroad(railroad="SCL", amount=100)],
        },
    )
    personal.railroad_loans(ctx)
    rr = ctx.state.railroads["SCL"]
    assert rr.owed_to_president == 300 and rr.lender == 1
    assert ctx.state.tycoon(1).cash == 1500 - 300
    assert codes(ctx) == ["NOT_PRESIDENT"]
    assert [e["amount"] for e in kinds(ctx, "railroad_loan")] == [500]
    assert_conserved(ctx)


def test_new_president_cannot_lend_while_the_old_one_is_owed(scenario: Scenario) -> None:
    state = start(scenario)
    rr = state.railroads["SCL"]
    rr.president = 2
    rr.owed_to_president = 400
    rr.lender = 3
    ctx = context(
        scenario,
        state,
        {
            2: [LendToRailroad(railroad="SCL", amount=100)],
            3: [CollectFromRailroad(railroad="SCL", amount=1000)],
        },
    )
    personal.railroad_loans(ctx)
    assert ctx.state.tycoon(3).cash == 1900  # the former president collects
    assert ctx.state.railroads["SCL"].lender is None
    assert ctx.rejections[0].code == "NOT_ALLOWED_NOW"
    assert ctx.rejections[1].cut_to == {
        "kind": "collect_from_railroad",
        "railroad": "SCL",
        "amount": 400,
    }


def test_prodigal_spending_is_spent_even_below_1000(scenario: Scenario) -> None:
    state = start(scenario)
    ctx = context(
        scenario,
        state,
        {
            1: [ProdigalSpending(amount=600), ProdigalSpending(amount=600)],
            2: [ProdigalSpending(amount=500)],
        },
    )
    personal.prodigal_spending(ctx)
    spent = {e["position"]: e["amount"] for e in kinds(ctx, "prodigal_spent")}
    assert spent == {1: 1200, 2: 500}
    assert ctx.state.tycoon(2).cash == 1000
    assert ctx.state.tycoon(1).prodigal_spent == 1200
    assert_conserved(ctx)


def test_spying_costs_and_limits(scenario: Scenario) -> None:
    state = start(scenario)
    ctx = context(
        scenario,
        state,
        {
            1: [
                SpyOnPlayer(target=7),
                SpyOnPlayer(target=8),
                SpyOnPlayer(target=1),
                SpyOnRailroad(railroad="NYC"),
                SpyOnRailroad(railroad="NYC"),
                SpyOnRailroad(railroad="ZZ"),
            ]
        },
    )
    personal.spying(ctx)
    assert [e["target"] for e in kinds(ctx, "spied_player")] == [7]
    assert [e["railroad"] for e in kinds(ctx, "spied_railroad")] == ["NYC"]
    assert all(e.visibility == "private" for e in ctx.events)
    assert codes(ctx) == ["ABOVE_MAXIMUM", "UNKNOWN_PLAYER", "DUPLICATE_ORDER", "UNKNOWN_RAILROAD"]
    assert ctx.state.tycoon(1).cash == 1500 - 100 - 50
    assert_conserved(ctx)


def test_zero_amounts_are_passed_over(scenario: Scenario) -> None:
    state = start(scenario)
    state.railroads["SCL"].president = 1
    ctx = context(
        scenario,
        state,
        {
            1: [
                Borrow(amount=0),
                LendToRailroad(railroad="SCL", amount=0),
                ProdigalSpending(amount=0),
            ]
        },
    )
    finance.bank_loans(ctx)
    personal.railroad_loans(ctx)
    personal.prodigal_spending(ctx)
    assert ctx.rejections == [] and ctx.events == [] and ctx.ledger == []
