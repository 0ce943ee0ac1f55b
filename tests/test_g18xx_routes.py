"""The engine's own best routes, checked at every run of the recorded games:
never worse than what the players ran (by our count), and legal by the same
checks a player's routes go through."""

import pytest

from tests.g18xx_fixtures import RECORDED, load_recorded
from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.replay import RECORDED_OPTIONS, standing_actions
from turnproc.families.g18xx.titles.load import new_game


@pytest.mark.parametrize("name", [r[0] for r in RECORDED])
def test_best_routes_beat_or_match_every_recorded_run(name: str) -> None:
    data = load_recorded(name)
    game = new_game(
        data["title"], [p["id"] for p in data["players"]], RECORDED_OPTIONS.get(data["title"], {})
    )
    game.recorded_revenue_stands = True
    runs = matched = 0
    for raw in standing_actions(data["actions"]):
        action = parse_action(raw)
        if isinstance(action, act.RunRoutes):
            game.step_for(action)
            company = game.acting_company(action)
            assert company is not None
            best, picked = game.best_routes(company)
            ours = sum(game.route_revenue(company, r) for r in action.routes)
            assert best >= ours, (raw["id"], best, ours)
            used: set[int] = set()
            total = 0
            for train, route in picked.items():
                assert not route.paths & used
                used |= route.paths
                total += game.route_revenue(
                    company,
                    act.Route(train=train, connections=tuple(link.chain for link in route.links)),
                )
            assert total == best
            runs += 1
            matched += best == ours
        game.apply_unchecked(action)
    assert runs > 20
    # most recorded runs are already the best ones
    assert matched >= runs // 2
