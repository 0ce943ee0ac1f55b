"""A step: one unit of a round that says which actions it takes and from whom.

The frame (`engine/game.py`) hands an action to the step of the current round
that accepts its type, after the step's `actors` say the acting player or
company may take it now. Steps keep no state of their own: everything lives in
the game, so a game copies, and a title swaps a step for its own subclass
(`TitleRules.step_overrides`). A step whose actors are not the player to move
(a standing offer, a price protection, a merger's consent) fits the same shape:
its actors are whoever the rules let act.
"""

from typing import TYPE_CHECKING, ClassVar

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import Holder

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


class Step:
    """The default step takes nothing; subclasses name their actions."""

    name: ClassVar[str] = "step"
    actions: ClassVar[frozenset[str]] = frozenset()
    # in an operating turn (4.2): a step done once a turn ends when done; a
    # step open at any time of the turn does not move the turn on
    once_a_turn: ClassVar[bool] = False
    any_time: ClassVar[bool] = False

    def actors(self, game: "Game") -> frozenset[Holder]:
        """The players (by id) and companies (by id) who may take this step's
        actions now."""
        return frozenset()

    def refusal(self, game: "Game", actor: Holder) -> str:
        """Why the actor may not act in this step now."""
        allowed = ", ".join(str(a) for a in sorted(self.actors(game), key=str)) or "no one"
        return f"{actor} may not act in {self.name} now (it is for {allowed})"

    def blocks(self, game: "Game") -> bool:
        """Whether this step, outside any round, must be done before anything else."""
        return False

    def admit(self, game: "Game", action: act.Action) -> None:
        """While the step blocks: refuse what may not come before it."""

    def process(self, game: "Game", action: act.Action) -> None:
        """Apply the action; raise ActionRefused and the frame restores the game."""

    def is_open(self, game: "Game") -> bool:
        """Whether the step still asks something of its actors (an operating
        turn skips the steps with nothing to do, 4.2)."""
        return bool(self.actors(game))


def everyone(game: "Game") -> frozenset[Holder]:
    """Every player and company of the game."""
    return frozenset([*game.players, *game.companies])


class Notes(Step):
    """Standing orders and messages: any player or company, at any time; they
    change nothing in the game."""

    name = "notes"
    actions = frozenset(
        (
            "program_share_pass",
            "program_buy_shares",
            "program_disable",
            "program_close_pass",
            "log",
            "message",
        )
    )

    def actors(self, game: "Game") -> frozenset[Holder]:
        return everyone(game)
