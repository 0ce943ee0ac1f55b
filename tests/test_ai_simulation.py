"""Whole games of computer players through the engine: money and shares are
conserved after every step, and the games are lively (issue 4)."""

from collections import Counter

from turnproc.families.continental_rails.tools.simulate import aggregate, game_seed, play_game
from turnproc.scenario.model import Scenario

GAMES = 3
TURNS = 15  # past the Civil War; the balance run plays whole games


def test_short_simulation_conserves_money_and_shares_and_has_activity(
    scenario: Scenario,
) -> None:
    events: Counter[str] = Counter()
    for game in range(1, GAMES + 1):
        stats = play_game(scenario, game_seed(11, game), turns=TURNS, game=game, check=True)
        assert stats.crashed is None, stats.crashed
        assert stats.problems == [], stats.problems[:5]
        assert stats.turns == TURNS
        for record in stats.history:
            events.update(record.events)
    assert events["pc_bought"] > 0
    assert events["railroad_incorporated"] > 0
    assert events["row_built"] > 0
    assert events["stock_trade_summary"] > 0


def test_simulation_is_reproducible(scenario: Scenario) -> None:
    first = play_game(scenario, 4242, turns=6)
    second = play_game(scenario, 4242, turns=6)
    assert first.model_dump_json() == second.model_dump_json()
    summary = aggregate([first])
    assert summary["games"] == 1
    assert summary["turns"]["max"] == first.turns
