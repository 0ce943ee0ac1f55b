"""Station tokens go only where the company's track reaches (4.2.2a), after its
home station; a private's free station need not connect (18GA W&SR, 12.III).
A president may sell shares for a forced train as the first thing of his
company's turn (4.2.5.1d)."""

from typing import Any

from tests.g18xx_fixtures import load_recorded
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.replay import standing_actions
from turnproc.families.g18xx.titles.load import new_game

BANKRUPT = "18GA/18GA_game_end_bankrupt.json"


def _game_before(name: str, found: Any) -> tuple[Game, list[dict[str, Any]]]:
    """The recorded game up to the first action `found` accepts."""
    data = load_recorded(name)
    game = new_game(data["title"], [p["id"] for p in data["players"]])
    actions = standing_actions(data["actions"])
    stop = next(i for i, raw in enumerate(actions) if found(raw))
    for raw in actions[:stop]:
        game.apply_unchecked(parse_action(raw))
    return game, actions[stop:]


def _w_and_a_first_turn() -> tuple[Game, int]:
    game, _ = _game_before(BANKRUPT, lambda raw: raw["type"] == "lay_tile")
    assert game.operating_company() == "W&A"
    president = game.companies["W&A"].president
    assert president is not None
    return game, president


def test_a_station_only_where_the_track_reaches() -> None:
    game, president = _w_and_a_first_turn()
    receipt = apply_orders(game, president, "LAY 451a D4 0\nTOKEN D4 1\nTOKEN C3")
    assert [line for line, _ in receipt.applied] == ["LAY 451a D4 0", "TOKEN D4 1"]
    assert receipt.refused is not None and receipt.refused.line == 3
    assert "W&A's track does not reach the city on C3 (4.2.2a)" in receipt.refused.reason
    assert game.hexes["C3"].tokens == [[]]


def test_the_home_station_comes_first() -> None:
    game, president = _w_and_a_first_turn()
    receipt = apply_orders(game, president, "LAY 451a D4 0\nTOKEN C3")
    assert receipt.refused is not None
    assert "W&A places its home station in D4 first (4.2a)" in receipt.refused.reason


def test_the_waycross_and_southern_station_need_not_connect() -> None:
    game, president = _w_and_a_first_turn()
    assert apply_orders(game, president, "LAY 451a D4 0\nTOKEN D4 1").refused is None
    game.privates["W&SR"].owner = "W&A"  # as if W&A had bought it
    cash = game.cash["W&A"]
    receipt = apply_orders(game, president, "USE W&SR TOKEN I9")
    assert receipt.refused is None, receipt.refused
    assert game.hexes["I9"].tokens == [["W&A"]]
    assert game.cash["W&A"] == cash


def test_a_president_sells_for_a_train_first_thing_in_his_turn() -> None:
    # CoG has bought its last train; W&A, next to operate, has none and too
    # little cash for an 8: its president sells W&A shares before anything else
    game, rest = _game_before(BANKRUPT, lambda raw: raw.get("id") == 358)
    assert rest[0]["type"] == "pass" and rest[0]["entity"] == "W&A"
    assert rest[1]["type"] == "sell_shares"
    cog = game.companies["CoG"].president
    president = game.companies["W&A"].president
    assert cog is not None and president == rest[1]["entity"]
    assert apply_orders(game, cog, "DONE").refused is None
    assert game.operating_company() == "W&A" and not game.trains_of("W&A")
    receipt = apply_orders(game, president, "SELL 3 W&A\nBUY TRAIN 8")
    assert receipt.refused is None, receipt.refused
    assert [t.name for t in game.trains_of("W&A")] == ["8"]
    assert game.money_is_conserved()
