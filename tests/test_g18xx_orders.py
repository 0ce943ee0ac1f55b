"""The 18xx order language: orders become the same actions a recorded game
holds, several a mail up to the first refusal, every refusal with its reason."""

from typing import Any

import pytest

from tests.g18xx_fixtures import load_recorded
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.engine.rounds.operating import advance_to
from turnproc.families.g18xx.orders import MAX_ORDERS, apply_orders
from turnproc.families.g18xx.replay import RECORDED_OPTIONS, standing_actions
from turnproc.families.g18xx.titles.load import new_game


def _order_for(game: Game, raw: dict[str, Any]) -> str | None:
    """The order a player would mail for a recorded action, when the order
    language picks the same share or tile copy the log names."""
    kind = raw["type"]
    if kind == "pass" and raw["entity_type"] in ("player", "corporation"):
        return "PASS"
    if kind == "par":
        return f"PAR {raw['corporation']} {raw['share_price'].split(',')[0]}"
    if kind == "dividend":
        return raw["kind"].upper()
    if kind == "lay_tile" and raw["entity_type"] == "corporation":
        name, _, copy = raw["tile"].rpartition("-")
        first = next(i for i in range(99) if f"{name}-{i}" not in game.tiles_on_map)
        if int(copy) == first:
            return f"LAY {name} {raw['hex']} {raw['rotation']}"
    if kind == "buy_shares" and len(raw["shares"]) == 1:
        company = raw["shares"][0].rpartition("_")[0]
        cert = game.certs[raw["shares"][0]]
        source = "IPO" if cert.owner == "ipo" else "MARKET"
        pool = [c.id for c in game.shares_of(cert.owner, company) if not c.president]
        if pool and pool[0] == cert.id:
            return f"BUY {company} {source}"
    if kind == "buy_train" and raw["entity_type"] == "corporation":
        train = next(t for t in game.trains if t.id == raw["train"])
        if train.owner is not None:
            return f"BUY TRAIN {train.name} FROM {train.owner} {raw['price']}"
        first = next((t for t in game.available_trains() if t.type is train.type), None)
        if first is train:
            return f"BUY TRAIN {raw.get('variant') or train.type.name}"
    return None


@pytest.mark.parametrize("name", ["18MS/67889.json", "18GA/18GA_game_end_stock_market.json"])
def test_a_recorded_game_played_through_orders_ends_the_same(name: str) -> None:
    data = load_recorded(name)
    game = new_game(
        data["title"], [p["id"] for p in data["players"]], RECORDED_OPTIONS.get(data["title"], {})
    )
    game.recorded_revenue_stands = True
    by_order = 0
    actions = standing_actions(data["actions"])
    for raw in actions:
        order = _order_for(game, raw)
        player = raw["entity"]
        if raw["entity_type"] != "player":
            owner = game.acting_company(parse_action(raw))
            assert owner is not None
            player = game.companies[owner].president
            if owner != (game.turn.company if game.turn else None) and order is not None:
                order = None  # the order language acts for the company already operating
        if order is None:
            game.apply_unchecked(parse_action(raw))
            continue
        receipt = apply_orders(game, player, order)
        assert receipt.refused is None, (raw, receipt.refused)
        for follow in raw.get("auto_actions", []):
            game.apply_unchecked(parse_action(follow))
        by_order += 1
    game.finish()
    assert by_order > len(actions) // 3
    assert {str(p): s for p, s in game.scores().items()} == {
        str(k): v for k, v in data["result"].items()
    }


def _game_at(name: str, stop: int) -> tuple[Game, list[dict[str, Any]]]:
    data = load_recorded(name)
    game = new_game(
        data["title"], [p["id"] for p in data["players"]], RECORDED_OPTIONS.get(data["title"], {})
    )
    actions = standing_actions(data["actions"])
    for raw in actions[:stop]:
        game.apply_unchecked(parse_action(raw))
    return game, actions[stop:]


def test_orders_apply_up_to_the_first_refusal_and_say_why() -> None:
    game, rest = _game_at("18MS/67889.json", 3)  # the privates are bought
    player = rest[0]["entity"]
    receipt = apply_orders(game, player, "# my moves\nPAR L&N 75\nPAR WRA 12\nPASS\n")
    assert [line for line, _ in receipt.applied] == ["PAR L&N 75"]
    assert receipt.refused is not None and receipt.refused.line == 3
    assert "par values: $70, $75, $80, $90" in receipt.refused.reason
    assert game.companies["L&N"].par == 75 and game.companies["L&N"].president == player


def test_run_best_spells_out_the_routes() -> None:
    game, rest = _game_at("18MS/67889.json", 0)
    for raw in list(rest):
        if raw["type"] == "run_routes":
            break
        game.apply_unchecked(parse_action(raw))
        rest.pop(0)
    company = rest[0]["entity"]
    advance_to(game, company)
    president = game.companies[company].president
    assert president is not None
    best, _ = game.best_routes(company)
    receipt = apply_orders(game, president, "RUN BEST\nPAYOUT")
    assert receipt.refused is None
    assert receipt.applied[0][1].startswith(f"{company} runs for ${best}: ")
    assert "E11" in receipt.applied[0][1]


def test_hostile_mail_is_bounded() -> None:
    game, rest = _game_at("18MS/67889.json", 3)
    player = rest[0]["entity"]
    flood = apply_orders(game, player, "PASS\n" * (MAX_ORDERS + 1))
    assert flood.refused is not None and not flood.applied
    long_line = apply_orders(game, player, "PAR " + "9" * 500)
    assert long_line.refused is not None and "at most" in long_line.refused.reason
    nonsense = apply_orders(game, player, "SELL ALL THE THINGS")
    assert nonsense.refused is not None and "docs/18xx.md" in nonsense.refused.reason
    big = apply_orders(game, player, "x" * 20_000)
    assert big.refused is not None


def test_a_new_18ms_game_played_by_orders_follows_whose_move_it_is() -> None:
    """Rules 1.0 (the default edition): the draft counter-clockwise, a stock
    round in turn, then each company's president in market order, DONE ending
    a turn."""
    game = new_game("18MS", [11, 22, 33])
    assert game.total_cash == 12_000

    def move(player: int, text: str) -> None:
        assert game.to_move() == player
        receipt = apply_orders(game, player, text)
        assert receipt.refused is None, receipt.refused

    refused = apply_orders(game, 11, "BID AGS 30")
    assert refused.refused is not None and "player 33's turn" in refused.refused.reason
    move(33, "BID AGS 30")
    move(22, "BID BS 40")
    move(11, "BID M&M 50")
    assert game.round == "stock" and game.to_move() == 11  # the last to buy has priority
    move(11, "PAR WRA 80")
    move(22, "PAR GMO 75")
    move(33, "PASS")
    for _ in range(4):
        move(11, "BUY WRA")
        move(22, "BUY GMO")
        move(33, "PASS")
    assert game.companies["WRA"].floated and game.companies["GMO"].floated
    move(11, "PASS")
    move(22, "PASS")  # 33, 11 and 22 passed in a row: the stock round is over
    assert game.round == "operating" and game.operating_company() == "WRA"  # $80 before $75
    early = apply_orders(game, 11, "BUY PRIVATE M&M 50")
    assert early.refused is not None and "from OR3" in early.refused.reason
    green = apply_orders(game, 11, "LAY 619 E11 0")
    assert green.refused is not None and "green tiles are not available" in green.refused.reason
    move(11, "LAY 57 E11 1\nBUY TRAIN 2+\nDONE")
    assert game.operating_company() == "GMO"
    wrong = apply_orders(game, 11, "LAY 57 H6 0")
    assert wrong.refused is not None and "GMO operates now" in wrong.refused.reason
    move(22, "LAY 57 H6 1\nBUY TRAIN 2+\nDONE")
    assert game.round == "operating" and game.round_in_set == 2
    move(11, "RUN BEST\nPAYOUT\nDONE")
    assert game.money_is_conserved()


def test_one_tile_and_one_station_a_turn() -> None:
    game, rest = _game_at("18MS/67889.json", 0)
    # L&N's first turn (OR1): two yellow tiles, then no third
    for raw in list(rest):
        if raw["entity"] == "L&N":
            break
        game.apply_unchecked(parse_action(raw))
        rest.pop(0)
    before = game.companies["WRA"].president
    assert before is not None and apply_orders(game, before, "DONE").refused is None
    president = game.companies["L&N"].president
    assert president is not None
    receipt = apply_orders(game, president, "LAY 6 C9 5\nLAY 6 C7 2\nLAY 9 B8 0")
    assert len(receipt.applied) == 2
    assert receipt.refused is not None and "one tile a turn" in receipt.refused.reason
