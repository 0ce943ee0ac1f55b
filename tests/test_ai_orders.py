"""Computer players write valid typed orders, deterministically, from what
their position may see (rule 3.1; docs/computer-players.md)."""

import pytest

from turnproc.families.continental_rails import ai
from turnproc.families.continental_rails.engine import network, valuation
from turnproc.families.continental_rails.engine.orders import (
    BidForPC,
    BuyStock,
    PlayerOrders,
    RequestPresidency,
)
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import operations
from turnproc.families.continental_rails.engine.steps.stockmarket import market_params, max_bid
from turnproc.scenario.model import Scenario

RAILROAD_KINDS = {
    "dividend",
    "issue_stock",
    "issue_bonds",
    "redeem_bonds",
    "short_loan",
    "repay_short_loan",
    "bid_row",
    "build_row",
    "sell_land",
    "double_track",
    "upgrade_locomotive",
    "buy_technology",
    "political_donation",
    "rate_war",
    "capital_improvement",
    "merge_railroads",
}


def _start(scenario: Scenario, seed: int = 5) -> GameState:
    return new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])


def _orders(scenario: Scenario, state: GameState) -> dict[int, PlayerOrders]:
    return {t.position: ai.computer_orders(scenario, state, t.position) for t in state.tycoons}


@pytest.fixture(scope="module")
def states(scenario: Scenario) -> list[GameState]:
    """The start and the next few turns of a game played by the computer."""
    state = _start(scenario)
    found = [state]
    for _ in range(4):
        state = resolve_turn(scenario, state, _orders(scenario, state)).state
        found.append(state)
    return found


def test_orders_are_valid_typed_orders(scenario: Scenario, states: list[GameState]) -> None:
    params = market_params(scenario)
    kinds_seen: set[str] = set()
    for state in states:
        for tycoon in state.tycoons:
            mine = ai.computer_orders(scenario, state, tycoon.position)
            assert mine.source == "computer"
            assert mine.position == tycoon.position
            # A round trip through the order schema gives the same orders back.
            again = PlayerOrders.model_validate_json(mine.model_dump_json())
            assert again == mine
            presides = {c for c, rr in state.railroads.items() if rr.president == tycoon.position}
            requests = [o for o in mine.orders if isinstance(o, RequestPresidency)]
            assert len(requests) <= 2
            for order in mine.orders:
                kinds_seen.add(order.kind)
                if order.kind in RAILROAD_KINDS:
                    assert getattr(order, "railroad", None) in presides, order
                if isinstance(order, BuyStock):
                    assert order.shares <= max_bid(state, tycoon.position, order.railroad, params)
                if isinstance(order, BidForPC):
                    pc = state.pcs[order.pc]
                    assert pc.status in ("available", "owned")
                    assert order.amount >= pc.asking_price
    # Over five turns the fifteen computer players use the main actions.
    assert {"borrow", "bid_pc", "buy", "incorporate_pc", "dividend", "bid_row"} <= kinds_seen


def test_orders_are_deterministic_per_game_turn_and_position(
    scenario: Scenario, states: list[GameState]
) -> None:
    state = states[2]
    first = [o.model_dump_json() for o in _orders(scenario, state).values()]
    second = [o.model_dump_json() for o in _orders(scenario, state).values()]
    assert first == second
    # Another seed is another game: its players choose differently somewhere.
    other = state.model_copy(update={"seed": state.seed + 1})
    assert [o.model_dump_json() for o in _orders(scenario, other).values()] != first


def test_orders_use_only_what_the_position_may_see(
    scenario: Scenario, states: list[GameState]
) -> None:
    state = states[3]
    position = 4
    before = ai.computer_orders(scenario, state, position)
    hidden = state.model_copy(deep=True)
    for tycoon in hidden.tycoons:
        if tycoon.position != position:
            tycoon.cash += 123_456
            tycoon.loan = 777
            tycoon.wants_presidency = ["NYC"]
    assert ai.computer_orders(scenario, hidden, position) == before
    view = ai.public_view(state, position)
    assert view.tycoon(position) == state.tycoon(position)
    assert all(t.cash == 0 and not t.holdings for t in view.tycoons if t.position != position)


def test_shared_turn_facts_leave_the_orders_unchanged(
    scenario: Scenario, states: list[GameState]
) -> None:
    """The facts every position may know, worked out once for the turn, give
    each position the orders it writes alone; each sees the same view."""
    for state in states[1:]:
        facts = ai.TurnFacts(scenario, state)
        for tycoon in state.tycoons:
            shared = ai.computer_orders(scenario, state, tycoon.position, facts)
            alone = ai.computer_orders(scenario, state, tycoon.position)
            assert shared == alone
            assert facts.view(tycoon.position) == ai.public_view(state, tycoon.position)


def test_views_are_the_copies_pydantic_makes(scenario: Scenario, states: list[GameState]) -> None:
    """A position's view is `model_copy(update=...)` of the state and its
    tycoons, made without pydantic's copying: the same fields and fields set."""
    state = states[3]
    view = ai.public_view(state, 2)
    for tycoon, seen in zip(state.tycoons, view.tycoons, strict=True):
        if tycoon.position == 2:
            assert seen is tycoon
            continue
        expected = tycoon.model_copy(
            update={
                "cash": 0,
                "loan": 0,
                "holdings": {},
                "shorts": {},
                "short_proceeds": {},
                "wants_presidency": [],
            }
        )
        assert seen == expected
        assert seen.model_fields_set == expected.model_fields_set
    expected_view = state.model_copy(update={"tycoons": view.tycoons})
    assert view == expected_view
    assert view.model_fields_set == expected_view.model_fields_set
    assert view.model_dump_json() == expected_view.model_dump_json()


def test_turn_facts_agree_with_the_rules_they_shortcut(
    scenario: Scenario, states: list[GameState]
) -> None:
    """The bid limits and prohibited-set checks worked out once a turn give
    what the engine's own functions give, for every position, railroad and route."""
    params = market_params(scenario)
    state = states[-1]
    assert len(state.railroads) >= 2
    facts = ai.TurnFacts(scenario, state)
    for tycoon in state.tycoons:
        assert facts.bid_limits(tycoon.position) == {
            code: max_bid(state, tycoon.position, code, params) for code in state.railroads
        }
    # Each railroad as it is, and with a route into each no-through town (4.8 rule 2).
    no_through = scenario.section("map", network.MapParams).no_through
    assert no_through
    cases = [(facts, rr) for rr in state.railroads.values()]
    for rr in state.railroads.values():
        for town in no_through:
            entering = rr.model_copy(update={"rows": [*rr.rows, scenario.routes_at[town][0]]})
            cases.append((ai.TurnFacts(scenario, state), entering))
    reasons = set()
    for case_facts, rr in cases:
        for code in scenario.routes:
            reason = network.prohibited_reason(scenario, [*rr.lines, *rr.rows, code])
            assert case_facts.allowed_with(code, rr) == (reason is None), (rr.code, code)
            reasons.add(reason.split()[0] if reason else None)
    assert reasons == {None, "both", "more"}  # both rules bite
    # A route joins a railroad when it touches its lines and makes no prohibited set.
    for code in scenario.routes:
        joinable = facts.joinable(code)
        for rr in state.railroads.values():
            touches = network.touches(scenario, rr.lines, code)
            allowed = network.prohibited_reason(scenario, [*rr.lines, *rr.rows, code]) is None
            assert (rr.code in joinable) == (touches and allowed), (rr.code, code)
            assert facts.can_join(code, rr) == (touches and allowed)
    assert any(facts.joinable(code) for code in scenario.routes)
    # The search for new regions walks only the RoWs open this turn.
    closed = facts.closed_rows()
    adjacency = facts.open_adjacency()
    walked = {link[0] for town in scenario.towns for link in adjacency[town]}
    rows = {code for code, route in scenario.routes.items() if route.kind == "RoW"}
    assert walked == rows - closed


def test_personalities_come_from_the_tycoon_or_the_position(scenario: Scenario) -> None:
    params = ai.ai_params(scenario)
    state = _start(scenario)
    names = [ai.personality_name(scenario, t) for t in state.tycoons]
    assert names[: len(params.order)] == params.order
    assert set(names) == set(params.personalities)
    chosen = state.tycoon(1).model_copy(update={"personality": "prodigal"})
    assert ai.personality_name(scenario, chosen) == "prodigal"


def test_a_rich_prodigal_spends_and_a_poor_one_does_not(scenario: Scenario) -> None:
    state = _start(scenario)
    position = next(
        t.position for t in state.tycoons if ai.personality_name(scenario, t) == "prodigal"
    )
    rich = state.model_copy(deep=True)
    rich.tycoon(position).cash = 50_000
    spent = [o for o in ai.computer_orders(scenario, rich, position).orders if o.kind == "prodigal"]
    assert spent and spent[0].amount >= 1000
    poor = state.model_copy(deep=True)
    poor.tycoon(position).cash = 500
    orders = ai.computer_orders(scenario, poor, position).orders
    assert not [o for o in orders if o.kind == "prodigal"]


def test_prodigal_spending_from_turn_1_and_only_from_money_beyond_the_loan(
    scenario: Scenario,
) -> None:
    """Issue 24: the prodigal contests Rail Prodigal from turn 1, so no lone
    spender takes the turn's points for the minimum; borrowed money buys no
    Prodigal points (1.2), so a prodigal whose cash is the bank's spends none."""
    state = _start(scenario)
    position = next(
        t.position for t in state.tycoons if ai.personality_name(scenario, t) == "prodigal"
    )
    first = [
        o for o in ai.computer_orders(scenario, state, position).orders if o.kind == "prodigal"
    ]
    assert [o.amount for o in first] == [1000]
    indebted = state.model_copy(deep=True)
    indebted.tycoon(position).cash = 5_000
    indebted.tycoon(position).loan = 5_000
    orders = ai.computer_orders(scenario, indebted, position).orders
    assert not [o for o in orders if o.kind == "prodigal"]


def test_no_borrowing_while_the_bank_lends_a_bankrupt_nothing(scenario: Scenario) -> None:
    """3.6 [designed, issue 24] No credit for 5 turns after a bankruptcy: the
    computer player does not ask for it."""
    state = _start(scenario).model_copy(deep=True)
    state.climate = 1  # Great: the leveraged personalities borrow whenever they may
    state.turn = 6
    for tycoon in state.tycoons:
        tycoon.bankrupt_turn = 2
    for tycoon in state.tycoons:
        kinds = [o.kind for o in ai.computer_orders(scenario, state, tycoon.position).orders]
        assert "borrow" not in kinds


def test_no_borrowing_in_a_panic_and_loans_are_repaid(scenario: Scenario) -> None:
    state = _start(scenario).model_copy(deep=True)
    state.climate = 8  # Panic
    for tycoon in state.tycoons:
        tycoon.loan = 1000
        tycoon.cash = 3000
    for tycoon in state.tycoons:
        kinds = [o.kind for o in ai.computer_orders(scenario, state, tycoon.position).orders]
        assert "borrow" not in kinds
        assert "repay_loan" in kinds


def test_leveraged_personalities_carry_their_loan_in_good_times_only(scenario: Scenario) -> None:
    """A personality that stays leveraged borrows its whole headroom in good
    times even with nothing to buy; the others borrow only what plans need;
    in bad times nobody borrows (the margin falls, 5, and the bank recalls, 3.5)."""
    params = ai.ai_params(scenario)
    state = _start(scenario).model_copy(deep=True)
    state.climate = 1  # Great
    leveraged = {n for n, p in params.personalities.items() if p.stays_leveraged}
    assert leveraged and leveraged != set(params.personalities)
    for tycoon in state.tycoons:
        name = ai.personality_name(scenario, tycoon)
        persona = params.personalities[name]
        credit = valuation.credit_limit(state, scenario, tycoon.position, state.climate)
        willing = credit * persona.borrow_percent * persona.climate_borrow_percent[1] // 10000
        orders = ai.computer_orders(scenario, state, tycoon.position).orders
        borrowed = sum(o.amount for o in orders if o.kind == "borrow")
        if name in leveraged:
            assert borrowed == willing // 10 * 10
        else:
            assert borrowed <= willing + 10
    # Rich enough to pay for every plan: in bad times it borrows nothing more.
    state.climate = params.general.bad_climate_from
    for tycoon in state.tycoons:
        tycoon.cash = 1_000_000
    for tycoon in state.tycoons:
        if ai.personality_name(scenario, tycoon) in leveraged:
            kinds = [o.kind for o in ai.computer_orders(scenario, state, tycoon.position).orders]
            assert "borrow" not in kinds


def test_pc_worths_kept_for_the_scenario_are_those_of_the_turn(
    scenario: Scenario, states: list[GameState]
) -> None:
    """A PC's worth kept from earlier turns (by climate, war turn and best
    locomotive) is the one worked out afresh from the turn's own state, in
    peace and in a Civil War turn (8), in every climate."""
    war = operations.civil_war_params(scenario).turns
    assert war
    cases = [
        state.model_copy(update={"turn": turn, "climate": climate})
        for state in states
        for turn in (state.turn, min(war))
        for climate in (state.climate, 0, 8)
    ]
    kept = [ai.TurnFacts(scenario, state) for state in cases]
    worths = [{code: facts.pc_worth(code) for code in facts.state.pcs} for facts in kept]
    for state, found in zip(cases, worths, strict=True):
        cache = scenario.__dict__.get("_derived_cache", {})
        cache.pop("ai_pc_worths", None)  # nothing kept: worked out from this turn
        fresh = ai.TurnFacts(scenario, state)
        assert found == {code: fresh.pc_worth(code) for code in state.pcs}
    assert len({worth for found in worths for worth in found.values()}) > 1
