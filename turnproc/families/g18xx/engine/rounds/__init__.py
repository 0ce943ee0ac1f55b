"""The rounds of an 18xx game, each a sequence of steps (engine/steps)."""

from dataclasses import dataclass, field

from turnproc.families.g18xx.engine.rounds.auction import auction_round, draft_round
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.rounds.operating import operating_round
from turnproc.families.g18xx.engine.rounds.stock import stock_round
from turnproc.families.g18xx.engine.steps.base import Notes, Step
from turnproc.families.g18xx.engine.steps.discard import DiscardTrain
from turnproc.families.g18xx.engine.steps.privates import OfferPrivates
from turnproc.families.g18xx.engine.steps.token import ChooseHome


@dataclass(frozen=True)
class Rounds:
    """A title's rounds by name, and the steps outside any round: `standing`
    steps take their actions at any time from their actors (notes, offers),
    `blocking` steps, while they block, take their actions before anything
    else (a home city to choose, a train to discard)."""

    rounds: dict[str, Round]
    standing: tuple[Step, ...] = ()
    blocking: tuple[Step, ...] = ()
    actions: frozenset[str] = field(init=False)
    round_actions: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        steps = [
            *self.standing,
            *self.blocking,
            *(s for r in self.rounds.values() for s in r.steps),
        ]
        object.__setattr__(self, "actions", frozenset(a for s in steps for a in s.actions))
        in_rounds = frozenset(a for r in self.rounds.values() for s in r.steps for a in s.actions)
        object.__setattr__(self, "round_actions", in_rounds)


def default_rounds() -> Rounds:
    """The general 18xx rounds (3, 4) and their steps."""
    return Rounds(
        rounds={
            "draft": draft_round(),
            "auction": auction_round(),
            "stock": stock_round(),
            "operating": operating_round(),
        },
        standing=(Notes(), OfferPrivates()),
        blocking=(ChooseHome(), DiscardTrain()),
    )
