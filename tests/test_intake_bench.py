"""The benchmark's full turnsheet uses every action and reads without parse errors
on the real map; the timing function returns a time (speed is watched by
`turnproc bench`, not asserted here)."""

from turnproc.families.continental_rails.engine.orders import Order
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.turnsheet.bench import (
    full_turnsheet,
    parse_turnsheet_seconds,
)
from turnproc.families.continental_rails.turnsheet.check import evaluate
from turnproc.scenario.model import Scenario


def _kinds() -> set[str]:
    union = Order.__origin__  # type: ignore[attr-defined]
    return {cls.model_fields["kind"].default for cls in union.__args__}


def test_full_turnsheet_uses_every_action(scenario: Scenario) -> None:
    state = new_game(scenario, 7, [PlayerSetup(position=3, human=True)], game="bench")
    checked_state, text = full_turnsheet(state, scenario)
    evaluation = evaluate(text, checked_state, scenario)
    assert evaluation.sheet.errors == []
    assert {line.order.kind for line in evaluation.sheet.lines} == _kinds()
    assert evaluation.check is not None and evaluation.check.preview is not None
    assert parse_turnsheet_seconds(state, scenario, repeat=3) > 0
