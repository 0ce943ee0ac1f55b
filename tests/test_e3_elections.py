"""4.14 Elections of directors, chairman and presidents; 6.4 cornered stocks."""

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders, RequestPresidency
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.elections import elections
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario

CODES = ["NYC", "PENN", "B&O", "N&W", "SCL", "C&H"]


@cache
def _scenario() -> Scenario:
    return load_scenario("continental-rails")


def _state(scenario: Scenario, stakes: dict[int, int]) -> GameState:
    """NYC with 600 issued; every tycoon 20 shares except those in `stakes`."""
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    for pos, shares in stakes.items():
        state.tycoon(pos).holdings["NYC"] = shares
    return state


def _run(scenario: Scenario, state: GameState, orders: dict[int, list[Order]]) -> TurnContext:
    ctx = TurnContext(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state.model_copy(deep=True),
        orders={pos: PlayerOrders(position=pos, orders=o) for pos, o in orders.items()},
    )
    elections(ctx)
    return ctx


def _ask(*codes: str) -> list[Order]:
    return [RequestPresidency(railroad=code) for code in codes]


def test_directors_hold_ten_percent_and_the_chairman_most(scenario: Scenario) -> None:
    ctx = _run(scenario, _state(scenario, {3: 60, 5: 59, 7: 90}), {})
    nyc = ctx.state.railroads["NYC"]
    assert nyc.directors == [7, 3]  # 60 of 600 is 10%; 59 is not
    assert nyc.chairman == 7
    assert nyc.president is None  # nobody asked


def test_the_asking_director_with_most_shares_wins(scenario: Scenario) -> None:
    state = _state(scenario, {3: 100, 4: 80, 5: 150})
    ctx = _run(scenario, state, {3: _ask("NYC"), 4: _ask("NYC"), 1: _ask("NYC")})
    nyc = ctx.state.railroads["NYC"]
    assert nyc.president == 3  # 5 holds more but did not ask
    assert nyc.chairman == 5
    by_pos = {r.position: r.code for r in ctx.rejections}
    assert by_pos == {4: reasons.OUTVOTED, 1: reasons.NOT_DIRECTOR}
    events = [e.model_dump() for e in ctx.events if e.kind == "president_elected"]
    assert events == [
        {
            "kind": "president_elected",
            "visibility": "public",
            "position": 3,
            "railroad": "NYC",
            "previous": None,
        }
    ]


def test_a_sitting_president_keeps_his_railroad_unless_a_bigger_director_asks(
    scenario: Scenario,
) -> None:
    state = _state(scenario, {3: 100, 4: 80})
    state.railroads["NYC"].president = 4
    kept = _run(scenario, state, {})
    assert kept.state.railroads["NYC"].president == 4
    assert not [e for e in kept.events if e.kind == "president_elected"]
    taken = _run(scenario, state, {3: _ask("NYC")})
    assert taken.state.railroads["NYC"].president == 3


def test_a_president_who_falls_below_ten_percent_loses_the_chair(scenario: Scenario) -> None:
    state = _state(scenario, {4: 30})
    state.railroads["NYC"].president = 4
    ctx = _run(scenario, state, {4: _ask("NYC")})
    assert ctx.state.railroads["NYC"].president is None
    assert [r.code for r in ctx.rejections] == [reasons.NOT_DIRECTOR]


def test_nobody_presides_over_more_than_two(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    for code in ("NYC", "PENN", "B&O"):
        state.tycoon(2).holdings[code] = 300
    ctx = _run(scenario, state, {2: _ask("NYC", "PENN", "B&O")})
    won = sorted(c for c, rr in ctx.state.railroads.items() if rr.president == 2)
    assert won == ["NYC", "PENN"]
    assert [r.code for r in ctx.rejections] == [reasons.TOO_MANY_PRESIDENCIES]


def test_named_railroads_come_before_sitting_presidencies(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    for code in ("NYC", "PENN", "B&O"):
        state.tycoon(2).holdings[code] = 300
    state.railroads["NYC"].president = 2
    state.railroads["PENN"].president = 2
    ctx = _run(scenario, state, {2: _ask("B&O")})
    won = sorted(c for c, rr in ctx.state.railroads.items() if rr.president == 2)
    # The sitting presidencies follow the named one, most shares first (a tie
    # goes by code), so with two at most PENN is given up.
    assert won == ["B&O", "NYC"]
    assert ctx.state.railroads["PENN"].president is None


def test_a_fallback_presidency_is_kept_when_the_wish_fails(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    state.tycoon(2).holdings["NYC"] = 100
    state.tycoon(2).holdings["PENN"] = 100
    state.tycoon(2).holdings["B&O"] = 100
    state.tycoon(9).holdings["B&O"] = 200
    state.railroads["NYC"].president = 2
    state.railroads["PENN"].president = 2
    ctx = _run(scenario, state, {2: _ask("B&O"), 9: _ask("B&O")})
    won = sorted(c for c, rr in ctx.state.railroads.items() if rr.president == 2)
    assert won == ["NYC", "PENN"]
    assert ctx.state.railroads["B&O"].president == 9


def test_standing_wishes_count_for_a_position_without_orders(scenario: Scenario) -> None:
    state = _state(scenario, {6: 100})
    state.tycoon(6).wants_presidency = ["NYC"]
    ctx = _run(scenario, state, {})
    assert ctx.state.railroads["NYC"].president == 6


def test_cornered_stocks_are_announced(scenario: Scenario) -> None:
    state = _state(scenario, {1: 160, 2: 150})  # 310 of 600 issued: over half
    ctx = _run(scenario, state, {})
    cornered = [e.model_dump() for e in ctx.events if e.kind == "stock_cornered"]
    assert [(e["railroad"], e["directors_shares"]) for e in cornered] == [("NYC", 310)]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    stakes=st.lists(
        st.lists(st.integers(0, 200), min_size=6, max_size=6), min_size=15, max_size=15
    ),
    asks=st.lists(st.lists(st.sampled_from(CODES), max_size=3), min_size=15, max_size=15),
    sitting=st.lists(st.one_of(st.none(), st.integers(1, 15)), min_size=6, max_size=6),
)
def test_elections_respect_directors_and_the_two_railroad_limit(
    stakes: list[list[int]], asks: list[list[str]], sitting: list[int | None]
) -> None:
    """4.14: every president is a director who asked (or sat and stayed a
    director); nobody presides over more than two; no asking director with
    more shares was passed over unless he already has two."""
    scenario = _scenario()
    state = new_game(scenario, 1, [PlayerSetup(position=p) for p in range(1, 16)])
    for tycoon, row in zip(state.tycoons, stakes, strict=True):
        tycoon.holdings = dict(zip(CODES, row, strict=True))
    for code, president in zip(CODES, sitting, strict=True):
        state.railroads[code].president = president
    orders = {pos: _ask(*codes) for pos, codes in enumerate(asks, start=1)}
    named = {pos: list(dict.fromkeys(codes))[:2] for pos, codes in enumerate(asks, start=1)}
    ctx = _run(scenario, state, orders)
    won: dict[int, int] = {}
    for code, rr in ctx.state.railroads.items():
        if rr.president is None:
            continue
        won[rr.president] = won.get(rr.president, 0) + 1
        assert rr.president in rr.directors
        wanted = code in named[rr.president] or state.railroads[code].president == (rr.president)
        assert wanted
        mine = ctx.state.tycoon(rr.president).holdings[code]
        for pos in rr.directors:
            if code in named[pos] and ctx.state.tycoon(pos).holdings[code] > mine:
                assert sum(1 for r in ctx.state.railroads.values() if r.president == pos) == 2
    assert all(n <= 2 for n in won.values())
