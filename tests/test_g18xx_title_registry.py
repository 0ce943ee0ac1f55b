"""A third 18xx title needs only its folder: a title of a few hexes, written
here into a folder of its own, is found by the registry and plays a whole game
with computer players, its own step and its own round included."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from turnproc.families.g18xx import ai
from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import ActionRefused
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.titles import load

TITLE = {
    "title": "18Test",
    "layout": "pointy",
    "players": {"2": {"cash": 600, "certificates": 12}, "3": {"cash": 420, "certificates": 10}},
    "bank": 6000,
    "shares_per_company": 10,
    "float_percent": 60,
    "holding_limit_percent": 60,
    "market_pool_limit_percent": 50,
    "par_prices": [70, 80],
    "market": [
        ["60 yellow", "70 par", "80 par", "90", "100", "110", "130", "150", "170", "200"],
        ["50 yellow", "60 yellow", "70", "80", "90", "100", "110", "130"],
        ["40 yellow", "50 yellow", "60 yellow", "70", "80"],
    ],
    "operating_rounds_per_set": 2,
    "last_operating_round": 6,
    "end_reason": "fixed_round",
    "phases": [
        {"name": "2", "tiles": ["yellow"], "train_limit": 3},
        {"name": "3", "tiles": ["yellow", "green"], "train_limit": 3},
        {"name": "4", "tiles": ["yellow", "green"], "train_limit": 2},
    ],
    "trains": [
        {"name": "2", "count": 4, "price": 80, "cities": 2},
        {"name": "3", "count": 3, "price": 180, "cities": 3, "phase": "3"},
        {"name": "4", "count": 4, "price": 300, "cities": 4, "phase": "4", "rusts": "2"},
    ],
    "privates": [
        {"id": "SW", "name": "Switchback", "value": 20, "revenue": 5},
        {"id": "CT", "name": "Cut", "value": 40, "revenue": 10},
        {"id": "YD", "name": "Yard", "value": 60, "revenue": 15},
    ],
    "companies": [
        {"id": "AX", "name": "Axle Line", "home": "B4", "tokens": [0, 40]},
        {"id": "BR", "name": "Brake Road", "home": "D4", "tokens": [0, 40]},
    ],
    "hexes": [
        {"hex": "B2"},
        {"hex": "B4", "name": "Ashton", "nodes": [{"kind": "city", "revenue": 0}]},
        {"hex": "B6"},
        {"hex": "C1"},
        {"hex": "C3", "name": "Cole", "nodes": [{"kind": "city", "revenue": 0}]},
        {"hex": "C5", "cost": 40, "terrain": "hill"},
        {"hex": "C7", "name": "Dunmore", "nodes": [{"kind": "city", "revenue": 0}]},
        {"hex": "D2"},
        {"hex": "D4", "name": "Elmwood", "nodes": [{"kind": "city", "revenue": 0}]},
        {"hex": "D6", "name": "Fenby", "nodes": [{"kind": "town", "revenue": 0}]},
    ],
}
TILES = {
    "3": {
        "color": "yellow",
        "count": 2,
        "nodes": [{"kind": "town", "revenue": 10}],
        "track": [[0, "n0"], ["n0", 1]],
    },
    "7": {"color": "yellow", "count": 3, "track": [[0, 1]]},
    "8": {"color": "yellow", "count": 4, "track": [[0, 2]]},
    "9": {"color": "yellow", "count": 4, "track": [[0, 3]]},
    "57": {
        "color": "yellow",
        "count": 4,
        "nodes": [{"kind": "city", "revenue": 20}],
        "track": [[0, "n0"], [3, "n0"]],
    },
    "14": {
        "color": "green",
        "count": 3,
        "nodes": [{"kind": "city", "revenue": 30, "slots": 2}],
        "track": [[0, "n0"], [1, "n0"], [3, "n0"], [4, "n0"]],
    },
    "15": {
        "color": "green",
        "count": 3,
        "nodes": [{"kind": "city", "revenue": 30, "slots": 2}],
        "track": [[0, "n0"], [1, "n0"], [2, "n0"], [3, "n0"]],
    },
}
# The title's own module: a dividend step of its own (every run pays at least
# $10 more, from the bank, withheld into the treasury) and a round of its own,
# a "review" before each stock round but the first in which every player, in
# no order, says he has seen the map (a pass): the shape of a merger round's
# consent.
RULES = """
from turnproc.families.g18xx.engine.game import BANK
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.rules import TitleRules
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.steps.dividend import Dividend


class GrantedDividend(Dividend):
    def process(self, game, action):
        company = game.turn.company
        super().process(game, action)
        game.pay(BANK, company, 10)
        game.flags["grants"] = game.flags.get("grants", 0) + 1


class Review(Step):
    name = "review"
    actions = frozenset(("pass",))

    def actors(self, game):
        return frozenset(p for p in game.players if not game.flags.get(f"seen {p}"))

    def process(self, game, action):
        game.flags[f"seen {game.player_of(action)}"] = True
        if not self.actors(game):
            game.flags["reviews"] = game.flags.get("reviews", 0) + 1
            game.start_stock_round(after_interlude=True)


class ReviewRound(Round):
    name = "review"

    def start(self, game):
        game.round = self.name
        for player in game.players:
            game.flags.pop(f"seen {player}", None)

    def to_move(self, game):
        return min(self.steps[0].actors(game), default=None)


class Rules(TitleRules):
    def step_overrides(self):
        return (GrantedDividend(),)

    def extra_rounds(self):
        return {"review": ReviewRound((Review(),))}

    def round_before_stock(self, game):
        return "review" if game.set_number else None
"""


def write_title(root: Path) -> Path:
    folder = root / "t18"
    folder.mkdir()
    (folder / "title.json").write_text(json.dumps(TITLE), encoding="utf-8")
    (folder / "tiles.json").write_text(json.dumps(TILES), encoding="utf-8")
    (folder / "rules.py").write_text(RULES, encoding="utf-8")
    return folder


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Path]:
    roots = list(load._ROOTS)
    write_title(tmp_path)
    load.add_titles_from(tmp_path)
    yield tmp_path
    load._ROOTS[:] = roots


def _pass(player: int) -> act.Action:
    return act.parse_action({"type": "pass", "entity": player, "entity_type": "player"})


@pytest.mark.usefixtures("registry")
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2)])
def test_a_title_added_as_a_folder_plays_to_its_end(players: int, seed: int) -> None:
    assert "18Test" in load.titles()
    game = load.new_game("18Test", list(range(1, players + 1)))
    moves = 0
    while not game.ended and moves < 3000:
        player = game.to_move()
        assert player is not None
        if game.round == "review":
            # any player who has not yet reviewed may go, not only the one asked
            last = max(game.rules.rounds.rounds["review"].steps[0].actors(game), key=int)
            game.apply(_pass(int(last)))
        else:
            receipt = apply_orders(game, player, ai.next_order(game, player, seed, moves))
            assert receipt.refused is None, receipt.refused
        assert game.money_is_conserved()
        moves += 1
    assert game.ended and game.end_reason == "fixed_round"
    assert game.operating_round == TITLE["last_operating_round"]
    assert game.flags.get("reviews") == 2  # before the stock rounds after OR2 and OR4
    assert game.flags.get("grants", 0) >= 1


@pytest.mark.usefixtures("registry")
def test_a_player_who_has_reviewed_may_not_review_again() -> None:
    game = load.new_game("18Test", [1, 2])
    while game.round != "review":
        player = game.to_move()
        assert player is not None
        moves = len(game.done) + game.operating_round * 100
        receipt = apply_orders(game, player, ai.next_order(game, player, 5, moves))
        assert receipt.refused is None, receipt.refused
    game.apply(_pass(2))
    with pytest.raises(ActionRefused, match="may not act in review"):
        game.apply(_pass(2))
    game.apply(_pass(1))
    assert game.round == "stock"


def test_an_unknown_title_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="18GA, 18MS"):
        load.load_title("18XX")
