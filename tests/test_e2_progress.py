"""4.17-4.18 Availability schedule of locomotives and technologies."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.steps import improvements
from turnproc.scenario.model import Scenario


def test_schedule_matches_the_real_games(scenario: Scenario) -> None:
    state = new_game(scenario, 1, [PlayerSetup(position=1)])
    best: dict[int, int] = {}
    techs: dict[int, list[str]] = {}
    for turn in range(1, 26):
        state.turn = turn
        best[turn] = state.best_locomotive
        techs[turn] = list(state.technologies_available)
        ctx = TurnContext(scenario=scenario, state=state, start=state.model_copy(), orders={})
        improvements.progress(ctx)
    assert best[1] == 1 and techs[1] == ["A"]
    # real games: best locomotive Norris (2) .. Atlantic (5) around turns 7-8
    assert 2 <= best[7] <= 5 and 2 <= best[8] <= 5
    # Grand Station, switch yards and steel rails by turn 8
    assert {"A", "B", "C"} <= set(techs[8])
    # slowly before the war, faster after: more arrive in turns 13-22 than 1-10
    before = (best[10] - best[1]) + len(techs[10]) - len(techs[1])
    after = (best[22] - best[12]) + len(techs[22]) - len(techs[12])
    assert after > before
    assert best[25] == 9 and techs[25] == list("ABCDEFGHIJ")
    # technologies arrive in their fixed order
    assert techs[25] == sorted(techs[25])
