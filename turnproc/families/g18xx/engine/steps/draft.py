"""3.1 (the draft): in turn each player buys one private at its list price."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import BANK, ActionRefused, Holder
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def next_buyer(game: "Game") -> int:
    """3.1: counter-clockwise from the player to the right of the priority holder."""
    bought = sum(1 for p in game.privates.values() if p.owner is not None)
    return game.players[len(game.players) - 1 - bought]


def buy(game: "Game", action: act.Bid) -> None:
    """3.1: each player buys one private at its list price."""
    player = game.player_of(action)
    private = game.privates.get(action.company)
    if private is None or private.owner is not None:
        raise ActionRefused(f"{action.company} is not for sale")
    if any(p.owner == player for p in game.privates.values()):
        raise ActionRefused("each player buys exactly one private company")
    due = next_buyer(game)
    if player != due:
        raise ActionRefused(f"it is player {due}'s turn to buy a private")
    if action.price != private.data.value:
        raise ActionRefused(f"{action.company} costs ${private.data.value}")
    game.check_cash(player, action.price)
    game.pay(player, BANK, action.price)
    private.owner = player
    game.priority = player  # the last to buy holds the priority deal (3.1)
    if all(any(p.owner == pl for p in game.privates.values()) for pl in game.players):
        for other in game.privates.values():
            if other.owner is None:
                other.closed = True
        game.start_stock_round()


class DraftPrivate(Step):
    """3.1: the player due buys his private."""

    name = "draft"
    actions = frozenset(("bid",))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((next_buyer(game),))

    def refusal(self, game: "Game", actor: Holder) -> str:
        return f"it is player {next_buyer(game)}'s turn to buy a private"

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.Bid)
        buy(game, action)
