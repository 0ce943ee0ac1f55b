"""5 The economic climate changes."""

from collections import Counter

from tests.e1_support import context, kinds, start
from turnproc.families.continental_rails.engine.steps import climate
from turnproc.scenario.model import Scenario


def test_moves_table_is_complete_and_panic_only_from_good_or_better(scenario: Scenario) -> None:
    table = scenario.section("climate", climate.ClimateMoves)
    good = table.index("Good")
    for index, level in enumerate(table.levels):
        assert (table.moves[level.name].panic > 0) == (index <= good)


def test_climate_usually_moves_one_level(scenario: Scenario) -> None:
    table = scenario.section("climate", climate.ClimateMoves)
    steps: Counter[int] = Counter()
    for level in range(9):
        for roll in range(100):
            steps[abs(climate.next_climate(table, level, roll) - level)] += 1
    assert steps[1] > steps[0] + steps[2]
    # Boom never gets better; Panic never gets worse
    assert all(climate.next_climate(table, 0, r) >= 0 for r in range(100))
    assert all(climate.next_climate(table, 8, r) <= 8 for r in range(100))


def test_change_is_seeded_and_reported(scenario: Scenario) -> None:
    moved = 0
    for seed in range(30):
        state = start(scenario, seed=seed)
        ctx = context(scenario, state)
        climate.change_climate(ctx)
        again = context(scenario, state)
        climate.change_climate(again)
        assert ctx.state.climate == again.state.climate
        events = kinds(ctx, "climate_changed")
        if ctx.state.climate != state.climate:
            moved += 1
            assert events == [
                {
                    "kind": "climate_changed",
                    "visibility": "public",
                    "position": None,
                    "railroad": None,
                    "old": state.climate,
                    "new": ctx.state.climate,
                }
            ]
        else:
            assert events == []
    assert moved >= 15
