"""1.2 Victory points, 1.3 game end, 11.3 records."""

from typing import Any

from turnproc.core import rng
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.state import (
    GameState,
    Railroad,
    RecordHolder,
    Tycoon,
)
from turnproc.families.continental_rails.engine.steps.victory import (
    VPAwarded,
    game_end,
    game_ends,
    prodigal_allocation,
    rail_baron_scores,
    robber_baron_points,
    victory_params,
    victory_points,
)
from turnproc.scenario.model import Route, Scenario, Town


class _Happened(Event):
    """Stand-ins for other steps' events, with the fields victory reads."""

    kind: str = "test_happened"
    absorbed: str | None = None
    president: int | None = None
    amount: int = 0


def _happened(kind: str, **fields: Any) -> Event:
    return _Happened.model_construct(kind=kind, **fields)


def _map(real: Scenario) -> Scenario:
    """A line of towns A-B-C-D-E: A ATLANTIC, C OHIO, D GREAT_LAKES, E CENTRAL,
    F PACIFIC (joined to E); routes R1 A-B, R2 B-C, R3 C-D, R4 D-E, R5 E-F."""
    regions = {"A": "ATLANTIC", "C": "OHIO", "D": "GREAT_LAKES", "E": "CENTRAL", "F": "PACIFIC"}
    towns = {
        t: Town(id=t, name=t, state="NY", size=3, region=regions.get(t), lat=0.0, lon=0.0)
        for t in "ABCDEF"
    }
    pairs = ["AB", "BC", "CD", "DE", "EF"]
    routes = {
        f"R{i}": Route(number=i, code=f"R{i}", kind="PC", length=100, a=p[0], b=p[1])
        for i, p in enumerate(pairs, start=1)
    }
    return Scenario(name="test", title="test", towns=towns, routes=routes, params=real.params)


def _state(railroads: dict[str, list[str]], presidents: dict[str, int]) -> GameState:
    tycoons = [Tycoon(position=p, character=f"T{p}", cash=1000) for p in range(1, 16)]
    rrs = {
        code: Railroad(
            code=code,
            number=i,
            name=code,
            lines=lines,
            authorized=100,
            issued=100,
            price=10,
            president=presidents.get(code),
            directors=[presidents[code]] if code in presidents else [],
            chairman=presidents.get(code),
        )
        for i, (code, lines) in enumerate(railroads.items(), start=1)
    }
    for code, pos in presidents.items():
        tycoons[pos - 1].holdings[code] = 30
    return GameState(scenario="test", seed=9, turn=5, tycoons=tycoons, railroads=rrs)


def _ctx(scenario: Scenario, start: GameState, end: GameState) -> TurnContext:
    return TurnContext(scenario=scenario, state=end, start=start, orders={})


def _awards(ctx: TurnContext, category: str) -> list[tuple[int, int, str, str, bool]]:
    return [
        (e.position, e.points, e.reason, e.detail, e.first)
        for e in ctx.events
        if isinstance(e, VPAwarded) and e.category == category
    ]


def test_the_rules_prodigal_example(scenario: Scenario) -> None:
    params = victory_params(scenario).rail_prodigal
    spent = {1: 15_000, 2: 10_000, 3: 4_000, 4: 1_000, 5: 999}
    assert prodigal_allocation(params, spent) == {1: 13, 2: 9, 3: 5, 4: 3}


def test_prodigal_points_always_add_up_to_thirty(scenario: Scenario) -> None:
    params = victory_params(scenario).rail_prodigal
    for spent in ({7: 1000}, {1: 1000, 2: 1000, 3: 1000}, dict.fromkeys(range(1, 16), 1500)):
        assert sum(prodigal_allocation(params, spent).values()) == 30
    assert prodigal_allocation(params, {1: 500}) == {}


def test_robber_baron_bands_and_the_first_millionaire(scenario: Scenario) -> None:
    params = victory_params(scenario).robber_baron
    assert robber_baron_points(params, 2_499) == 0
    assert robber_baron_points(params, 3_200) == 1
    assert robber_baron_points(params, 10_000) == 3
    small = _map(scenario)
    start = _state({}, {})
    end = start.model_copy(deep=True)
    end.tycoon(3).cash = 12_000
    end.tycoon(8).cash = 10_001
    ctx = _ctx(small, start, end)
    victory_points(ctx)
    assert (3, 5, "millionaire", "", False) in _awards(ctx, "robber_baron")
    assert (8, 5, "millionaire", "", False) in _awards(ctx, "robber_baron")
    assert ctx.state.first_millionaires == [3, 8]
    later = ctx.state.model_copy(deep=True)
    later.tycoon(4).cash = 20_000
    ctx2 = _ctx(small, later.model_copy(deep=True), later)
    victory_points(ctx2)
    assert not [a for a in _awards(ctx2, "robber_baron") if a[2] == "millionaire"]


def test_mogul_points_go_to_start_of_turn_officers(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1"], "R3": ["R3"]}, {"R1": 1, "R3": 2})
    start.railroads["R1"].directors = [1, 4, 5]
    start.railroads["R1"].chairman = 4
    end = start.model_copy(deep=True)
    end.railroads["R1"].president = 9  # elected for next turn: no points yet
    end.railroads["R1"].earnings = 1  # a profit this turn: its seats score
    end.railroads["R3"].owed_to_president = 100
    end.railroads["R3"].lender = 2
    ctx = _ctx(small, start, end)
    ctx.events.append(_happened("railroad_reorganized", railroad="R1", president=1))
    victory_points(ctx)
    awards = sorted(_awards(ctx, "rail_mogul"))
    assert awards == [
        (1, -5, "reorganized", "", False),
        (1, 3, "president", "", False),
        (4, 2, "chairman", "", False),
        (5, 1, "director", "", False),
    ]


def test_builder_points_for_new_regions_doubled_when_first(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1"], "R4": ["R4"]}, {"R1": 1, "R4": 2})
    end = start.model_copy(deep=True)
    end.railroads["R1"].lines = ["R1", "R2", "R3"]  # reaches OHIO and GREAT_LAKES
    ctx = _ctx(small, start, end)
    victory_points(ctx)
    builder = sorted(_awards(ctx, "rail_builder"))
    # OHIO is new to everyone: 2 x 2; GREAT_LAKES was linked by R4 already: 2.
    # Bonuses ATLANTIC+OHIO (3) and ATLANTIC+GREAT_LAKES (3), both first: doubled.
    assert builder == [
        (1, 2, "new_region", "GREAT_LAKES", False),
        (1, 4, "new_region", "OHIO", True),
        (1, 6, "region_bonus", "ATLANTIC+GREAT_LAKES", True),
        (1, 6, "region_bonus", "ATLANTIC+OHIO", True),
    ]
    assert ctx.state.first_region_links["OHIO"] == "R1"
    assert ctx.state.tycoon(1).builder_bonuses == ["ATLANTIC+GREAT_LAKES", "ATLANTIC+OHIO"]
    assert ctx.state.railroads["R1"].regions == ["ATLANTIC", "GREAT_LAKES", "OHIO"]


def test_the_same_bonus_never_twice_per_tycoon(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1"]}, {"R1": 1})
    start.tycoon(1).builder_bonuses = ["ATLANTIC+OHIO"]
    start.first_bonus_pairs = ["ATLANTIC+OHIO"]
    start.first_region_links = {"ATLANTIC": "R1", "OHIO": "X"}
    end = start.model_copy(deep=True)
    end.railroads["R1"].lines = ["R1", "R2"]
    ctx = _ctx(small, start, end)
    victory_points(ctx)
    assert _awards(ctx, "rail_builder") == [(1, 2, "new_region", "OHIO", False)]


def test_a_merger_scores_only_regions_new_to_both(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1"], "R3": ["R3", "R4"]}, {"R1": 1, "R3": 1})
    end = start.model_copy(deep=True)
    del end.railroads["R3"]
    end.railroads["R1"].lines = ["R1", "R2", "R3", "R4"]  # merged through the new R2
    ctx = _ctx(small, start, end)
    ctx.events.append(_happened("railroads_merged", railroad="R1", absorbed="R3", president=1))
    victory_points(ctx)
    regions = [a for a in _awards(ctx, "rail_builder") if a[2] == "new_region"]
    assert regions == []  # OHIO, GREAT_LAKES, CENTRAL were R3's already


def test_magnate_counts_the_best_connected_system(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1", "R2"], "R3": ["R3", "R4", "R5"]}, {"R1": 6, "R3": 6})
    ctx = _ctx(small, start, start.model_copy(deep=True))
    victory_points(ctx)
    # R1+R3 connect at C: ATLANTIC OHIO GREAT_LAKES CENTRAL PACIFIC = 5, plus the
    # EAST+RIVER (2), RIVER+PACIFIC (4) and COAST+COAST (10) bonuses.
    assert _awards(ctx, "rail_magnate") == [(6, 5 + 2 + 4 + 10, "system", "R1+R3", False)]


def test_magnate_takes_the_better_of_two_unconnected_railroads(scenario: Scenario) -> None:
    small = _map(scenario)
    start = _state({"R1": ["R1"], "R4": ["R4", "R5"]}, {"R1": 6, "R4": 6})
    ctx = _ctx(small, start, start.model_copy(deep=True))
    victory_points(ctx)
    # R4+R5: GREAT_LAKES CENTRAL PACIFIC = 3 + RIVER+PACIFIC 4.
    assert _awards(ctx, "rail_magnate") == [(6, 7, "system", "R4", False)]


def test_rail_baron_is_the_sum_of_shares_of_the_best(scenario: Scenario) -> None:
    params = victory_params(scenario).rail_baron
    state = _state({}, {})
    state.tycoon(1).vp.update(robber_baron=30, rail_mogul=10, rail_builder=0)
    state.tycoon(2).vp.update(robber_baron=20, rail_mogul=30, rail_prodigal=7)
    state.tycoon(3).vp.update(rail_magnate=-5)
    scores = rail_baron_scores(params, state)
    assert scores[1] == 100 + 10 * 100 // 30
    assert scores[2] == 20 * 100 // 30 + 100 + 100
    assert scores[3] == 0
    solo = _state({}, {})
    for category in ("robber_baron", "rail_mogul", "rail_builder", "rail_magnate"):
        solo.tycoon(1).vp[category] = 5
    solo.tycoon(1).vp["rail_prodigal"] = 1
    assert rail_baron_scores(params, solo)[1] == 500


def test_game_end_never_before_turn_21_then_by_the_seeded_draw(scenario: Scenario) -> None:
    params = victory_params(scenario).game_end
    state = _state({}, {})
    for turn in range(1, 21):
        state.turn = turn
        assert not game_ends(state, params)
    ended = 0
    for seed in range(200):
        state.seed, state.turn = seed, 21
        expect = rng.stream(seed, 21, "game-end").randrange(100) < 25
        assert game_ends(state, params) == expect
        ended += expect
    assert 30 <= ended <= 70  # about a quarter


def test_game_end_names_winners_and_keeps_records(scenario: Scenario) -> None:
    small = _map(scenario)
    state = _state({}, {})
    state.turn = 21
    state.seed = next(s for s in range(1000) if rng.stream(s, 21, "game-end").randrange(100) < 25)
    state.tycoon(2).vp.update(rail_baron=500, robber_baron=40)
    state.tycoon(5).vp.update(robber_baron=40)
    state.records = [
        RecordHolder(category="rail_baron", score=500, character="Old", game="g0"),
        RecordHolder(category="robber_baron", score=41, character="Old", game="g0"),
    ]
    ctx = _ctx(small, state.model_copy(deep=True), state)
    game_end(ctx)
    assert ctx.state.ended
    won = {e.category: e.positions for e in ctx.events if e.kind == "game_won"}  # type: ignore[attr-defined]
    assert won["robber_baron"] == [2, 5]
    records = {(r.category, r.character) for r in ctx.state.records}
    assert ("rail_baron", "T2") in records  # a 500 Rail Baron replaces the holder
    assert ("robber_baron", "Old") in records  # 40 does not beat 41
