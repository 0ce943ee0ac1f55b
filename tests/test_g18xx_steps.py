"""The contract of the engine's steps: each round is a sequence of steps, each
step names the actions it takes and who may take them now, and the frame
refuses an action of anyone else; a title's step replaces the engine's."""

import typing
from typing import Any

import pytest

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import ActionRefused, Game
from turnproc.families.g18xx.engine.state import Holder
from turnproc.families.g18xx.engine.steps.shares import ParShares
from turnproc.families.g18xx.titles.load import new_game, rules_for


def _action(**fields: Any) -> act.Action:
    return act.parse_action(fields)


def _player_action(player: int, kind: str, **fields: Any) -> act.Action:
    return _action(type=kind, entity=player, entity_type="player", **fields)


def _draft(game: Game) -> None:
    """Each player buys the cheapest private left (3.1)."""
    while game.round == "draft":
        player = game.to_move()
        assert player is not None
        private = next(p for p in game.privates.values() if p.owner is None and not p.closed)
        game.apply(_player_action(player, "bid", company=private.data.id, price=private.data.value))


def _every_action_type() -> set[str]:
    """The `type` of every action the action format knows."""
    members = typing.get_args(typing.get_args(act.Action)[0])
    return {k for m in members for k in typing.get_args(m.model_fields["type"].annotation)}


@pytest.mark.parametrize("title", ["18MS", "18GA"])
def test_every_action_has_a_step(title: str) -> None:
    table = rules_for(title, {}).rounds
    # undo and redo take back moves of the log before the engine sees it
    assert _every_action_type() - {"undo", "redo"} <= table.actions
    for name, round_ in table.rounds.items():
        assert round_.name == name
        assert round_.steps, name
        for step in round_.steps:
            assert step.actions, step.name


def test_the_operating_turn_is_the_steps_of_4_2_in_order() -> None:
    operating = rules_for("18MS", {}).rounds.rounds["operating"]
    assert [s.name for s in operating.steps] == [
        "lay track",
        "place token",
        "run routes",
        "dividend",
        "buy trains",
        "buy privates",
        "sell shares for a train",
        "bankruptcy",
        "end turn",
    ]


def test_only_the_player_to_move_acts_in_a_stock_turn() -> None:
    game = new_game("18MS", [1, 2, 3])
    _draft(game)
    assert game.round == "stock"
    due = game.to_move()
    other = next(p for p in game.players if p != due)
    cash = dict(game.cash)
    par = {"corporation": "IC", "share_price": "70,1,2"}
    with pytest.raises(ActionRefused, match=f"it is player {due}'s turn, not {other}'s"):
        game.apply(_player_action(other, "par", **par))
    assert game.cash == cash and game.companies["IC"].par is None
    game.apply(_player_action(int(str(due)), "par", **par))
    assert game.companies["IC"].president == due


def test_a_player_not_to_move_makes_a_standing_offer() -> None:
    """3.2b: offers are made at any time, by players who are not to move."""
    game = new_game("18MS", [1, 2, 3])
    _draft(game)
    due = game.to_move()
    other = next(p for p in game.players if p != due)
    mine = next(p for p in game.privates.values() if p.owner == other)
    assert due in game.rules.rounds.standing[1].actors(game)
    game.apply(_player_action(other, "offer_company", company=mine.data.id, price=10, to=due))
    assert [o.buyer for o in game.offers_to(int(str(due)))] == [due]
    assert game.to_move() == due  # the offer is no move of the stock turn


def test_a_player_of_another_game_may_not_act() -> None:
    game = new_game("18MS", [1, 2, 3])
    with pytest.raises(ActionRefused, match="9 is not a player"):
        game.apply(_player_action(9, "bid", company="AGS", price=30))


def test_a_company_acts_only_in_its_own_turn() -> None:
    game = new_game("18MS", [1, 2, 3])
    _draft(game)
    with pytest.raises(ActionRefused, match="the stock round goes on"):
        game.apply(_action(type="pass", entity="IC", entity_type="corporation"))


def test_a_titles_step_replaces_the_engines() -> None:
    """A title's step of the same name takes the engine's place, actors and all."""

    class NoNewCompanies(ParShares):
        def actors(self, game: Game) -> frozenset[Holder]:
            return frozenset()

        def refusal(self, game: Game, actor: Holder) -> str:
            return "no new companies in this title"

    rules = rules_for("18MS", {})
    rules.step_overrides = lambda: (NoNewCompanies(),)  # type: ignore[method-assign]
    game = Game(rules.title, rules, [1, 2, 3])
    _draft(game)
    due = game.to_move()
    assert due is not None
    with pytest.raises(ActionRefused, match="no new companies"):
        game.apply(_player_action(due, "par", corporation="IC", share_price="70,1,2"))
    stock = rules.rounds.rounds["stock"]
    assert isinstance(stock.steps[0], NoNewCompanies)


def test_a_discard_comes_before_anything_else() -> None:
    game = new_game("18MS", [1, 2, 3])
    _draft(game)
    with pytest.raises(ActionRefused, match="none discards at will"):
        game.apply(
            _action(type="discard_train", entity="IC", entity_type="corporation", train="2+-0")
        )
    game.discards = ["IC"]
    game.companies["IC"].president = 1
    with pytest.raises(ActionRefused, match="first discards one"):
        game.apply(_player_action(1, "pass"))
