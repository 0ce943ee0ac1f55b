"""4.2.5g: a company over its train limit discards."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    ActionRefused,
    Holder,
)
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def check_discard(game: "Game", action: act.Action) -> None:
    """4.2.5g: only the company over its limit acts, and only to discard."""
    company = game.discards[0]
    if action.type == "discard_train" and game.acting_company(action) == company:
        return
    trains = ", ".join(t.name for t in game.trains_of(company))
    raise ActionRefused(
        f"{company} has {len(game.trains_of(company))} trains ({trains}) and the limit is now"
        f" {game.train_limit()}: its president, player {game.companies[company].president},"
        f" first discards one (DISCARD <train>, 4.2.5g)"
    )


def discard_train(game: "Game", action: act.DiscardTrain) -> None:
    """4.2.5g: the train goes to the open market without compensation."""
    company = game.discards[0]
    train = next((t for t in game.trains_of(company) if t.id == action.train), None)
    if train is None:
        trains = ", ".join(t.id for t in game.trains_of(company))
        raise ActionRefused(f"{company} has no train {action.train}; its trains: {trains}")
    train.owner = None
    train.discarded = True
    if game.trains_counted(company) <= game.train_limit():
        game.discards.pop(0)


class DiscardTrain(Step):
    """4.2.5g: after a phase change each company over the new limit discards,
    in operating order, before anyone else acts."""

    name = "discard trains"
    actions = frozenset(("discard_train",))

    def blocks(self, game: "Game") -> bool:
        return bool(game.discards)

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset(game.discards[:1])

    def admit(self, game: "Game", action: act.Action) -> None:
        check_discard(game, action)

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.DiscardTrain)
        discard_train(game, action)
