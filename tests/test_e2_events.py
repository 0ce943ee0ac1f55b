"""11.2 Random events: odds fall with efficiency, donations and technology."""

from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.steps import operations as ops
from turnproc.scenario.model import Scenario


def test_prevention_lowers_the_odds(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=1)])
    rr = state.railroads["NYC"]
    events = scenario.section("events", ops.EventParams).events
    derailment = next(e for e in events if e.name == "derailment")
    base = ops.event_permille(scenario, rr, derailment, 60)
    assert ops.event_permille(scenario, rr, derailment, 90) < base
    assert ops.event_permille(scenario, rr, derailment, 40) > base
    donor = rr.model_copy(update={"political": 1000})
    assert ops.event_permille(scenario, donor, derailment, 60) < base
    modern = rr.model_copy(update={"technologies": ["E", "H"]})
    assert ops.event_permille(scenario, modern, derailment, 60) <= base // 4 + 1
    best = rr.model_copy(update={"technologies": ["E", "H"], "political": 10_000})
    assert ops.event_permille(scenario, best, derailment, 99) < 10


def test_every_event_is_preventable_by_some_technology(scenario: Scenario) -> None:
    events = scenario.section("events", ops.EventParams).events
    letters = {t.letter for t in ops.technology_params(scenario).technologies}
    assert events
    for event in events:
        assert event.technologies, event.name
        assert set(event.technologies) <= letters
