"""Recorded 18xx.games games replayed through our engine: the stored result and
end reason exactly, money conserved after every action, no action refused."""

import pytest

from tests.g18xx_fixtures import RECORDED, load_recorded
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import ActionRefused
from turnproc.families.g18xx.replay import (
    RECORDED_OPTIONS,
    replay,
    replay_options,
    standing_actions,
)
from turnproc.families.g18xx.titles.load import new_game


@pytest.mark.parametrize(("name", "standing"), RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_game_replays_to_its_stored_result(name: str, standing: int) -> None:
    data = load_recorded(name)
    assert len(standing_actions(data["actions"])) == standing
    outcome = replay(data, check_money=True)
    assert outcome.applied == standing
    assert outcome.result == {str(k): v for k, v in data["result"].items()}
    assert outcome.end_reason == data["game_end_reason"]
    assert outcome.game.money_is_conserved()


def test_replay_is_deterministic() -> None:
    data = load_recorded("18MS/17510.json")
    first, second = replay(data), replay(data)
    assert first.result == second.result
    assert first.game.cash == second.game.cash
    assert first.game.market.where == second.game.market.where


def test_undo_and_redo_are_resolved_like_the_site() -> None:
    log = [
        {"id": 1, "type": "pass"},
        {"id": 2, "type": "pass"},
        {"id": 3, "type": "undo"},
        {"id": 4, "type": "redo"},
        {"id": 5, "type": "pass"},
        {"id": 6, "type": "undo", "action_id": 1},
        {"id": 7, "type": "message"},
        {"id": 8, "type": "pass"},
    ]
    assert [a["id"] for a in standing_actions(log)] == [1, 8]


def test_a_refused_action_leaves_the_game_untouched() -> None:
    data = load_recorded("18MS/67889.json")
    game = new_game("18MS", [p["id"] for p in data["players"]], RECORDED_OPTIONS["18MS"])
    actions = standing_actions(data["actions"])
    for raw in actions[:40]:
        game.apply(parse_action(raw))
    before = (
        dict(game.cash),
        dict(game.market.where),
        {h: s.tile_id for h, s in game.hexes.items()},
    )
    lay = next(a for a in actions[40:] if a["type"] == "lay_tile")
    bad = dict(lay, hex="A1")  # a red off-board area takes no tile
    with pytest.raises(ActionRefused):
        game.apply(parse_action(bad))
    assert before == (
        dict(game.cash),
        dict(game.market.where),
        {h: s.tile_id for h, s in game.hexes.items()},
    )
    game.apply(parse_action(lay))


def test_18ms_edition_is_an_option_defaulting_to_the_rules_text() -> None:
    seed = new_game("18MS", [1, 2, 3])
    later = new_game("18MS", [1, 2, 3], {"edition": "18xx.games"})
    assert seed.total_cash == 12_000 and later.total_cash == 10_000
    ags = seed.privates["AGS"].data
    assert seed.rules.private_revenue(ags) == 10 and later.rules.private_revenue(ags) == 15
    assert seed.rules.loan_fee(75) == 37
    with pytest.raises(ValueError):
        new_game("18MS", [1, 2, 3], {"edition": "2.0"})


def test_bench_measures_every_recorded_game() -> None:
    from turnproc.bench import Unavailable, bench_replay_18xx

    try:
        per_game = bench_replay_18xx(1)
    except Unavailable as exc:
        pytest.skip(str(exc))
    assert len(per_game) == len(RECORDED)
    assert all(seconds > 0 for seconds in per_game.values())


def test_an_illegal_tile_lay_is_refused_with_the_legal_rotations() -> None:
    data = load_recorded("18MS/67889.json")
    game = new_game("18MS", [p["id"] for p in data["players"]], RECORDED_OPTIONS["18MS"])
    actions = standing_actions(data["actions"])
    second_lay = [i for i, a in enumerate(actions) if a["type"] == "lay_tile"][1]
    for raw in actions[:second_lay]:
        game.apply(parse_action(raw))
    lay = actions[second_lay]  # WRA lays tile 8 in D10, next to its home
    assert (lay["hex"], lay["tile"]) == ("D10", "8-0")
    legal = game.legal_rotations("WRA", lay["hex"], "8")
    assert lay["rotation"] in legal and len(legal) < 6
    wrong = next(r for r in range(6) if r not in legal)
    with pytest.raises(ActionRefused, match=r"legal rotations of 8 on D10: \[") as refused:
        game.apply(parse_action(dict(lay, rotation=wrong)))
    assert str(legal) in str(refused.value)
    far = dict(lay, hex="G5", tile="8-0", rotation=0)  # nowhere near WRA's station
    with pytest.raises(ActionRefused, match="does not connect"):
        game.apply(parse_action(far))
    game.apply(parse_action(lay))


def test_stock_round_moves_out_of_turn_are_refused() -> None:
    data = load_recorded("18MS/67889.json")
    game = new_game("18MS", [p["id"] for p in data["players"]], RECORDED_OPTIONS["18MS"])
    actions = standing_actions(data["actions"])
    first_par = next(i for i, a in enumerate(actions) if a["type"] == "par")
    for raw in actions[:first_par]:
        game.apply(parse_action(raw))
    mover = game.to_move()
    assert mover == actions[first_par]["entity"]
    other = next(p for p in game.players if p != mover)
    with pytest.raises(ActionRefused, match="turn"):
        game.apply(parse_action(dict(actions[first_par], entity=other)))
    corp_action = next(a for a in actions if a["entity_type"] == "corporation")
    with pytest.raises(ActionRefused, match="stock round goes on"):
        game.apply(parse_action(corp_action))


def test_bankruptcy_only_when_the_president_cannot_raise_the_price() -> None:
    data = load_recorded("18GA/18GA_game_end_bankrupt.json")
    # the site's log, played by the site's edition
    game = new_game("18GA", [p["id"] for p in data["players"]], replay_options(data))
    actions = standing_actions(data["actions"])
    first_run = next(i for i, a in enumerate(actions) if a["type"] == "run_routes")
    for raw in actions[:first_run]:
        game.apply(parse_action(raw))
    company = actions[first_run]["entity"]  # it has a train: no bankruptcy
    with pytest.raises(ActionRefused, match="can raise"):
        game.apply(
            parse_action({"type": "bankrupt", "entity": company, "entity_type": "corporation"})
        )
    for raw in actions[first_run:-1]:
        game.apply_unchecked(parse_action(raw))
    last = actions[-1]
    president = game.companies[last["entity"]].president
    assert president is not None
    cheapest = min(t.price for t in game.available_trains())
    assert game.emergency_power(president, last["entity"]) < cheapest
    game.apply(parse_action(last))
    assert game.ended and game.end_reason == "bankrupt"
