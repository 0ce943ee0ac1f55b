"""18GA special rules (the 18Dixie rulebook's 18GA chapter, with the published
map and charts)."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine.game import PrivateState, TitleRules

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game

FREE_TRAIN = "2"


class Rules(TitleRules):
    def setup(self, game: "Game") -> None:
        """The last 2-train is marked Free and kept for the Ocilla Southern."""
        reserved = [t for t in game.trains if t.type.name == FREE_TRAIN][-1]
        reserved.sellable = False

    def after_private_bought(self, game: "Game", company: str, private: PrivateState) -> None:
        """Ocilla Southern: the buying company gets the free 2-train unless a
        4-train has been bought or it has no room; the train cannot be sold."""
        if private.data.id != "OSR":
            return
        train = next(
            (
                t
                for t in game.trains
                if t.type.name == FREE_TRAIN and not t.sellable and t.owner is None
            ),
            None,
        )
        if train is None or train.rusted:
            return
        limit = game.title.phases[game.phase_index].train_limit
        if "4" in game.types_bought or len(game.trains_of(company)) >= limit:
            train.rusted = True
            return
        train.owner = company
