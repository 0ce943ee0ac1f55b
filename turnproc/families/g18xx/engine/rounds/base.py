"""A round: an ordered sequence of steps, and what an action does to the round
before its step takes it (an action of the next company begins its turn; a
stock move after the last operating round begins the stock round)."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


class Round:
    """The default round takes its steps' actions as they come."""

    name: ClassVar[str] = "round"

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = tuple(steps)

    def with_steps(self, overrides: Mapping[str, Step]) -> "Round":
        """The same round with a title's steps in place of those of the same name."""
        return type(self)([overrides.get(s.name, s) for s in self.steps])

    def start(self, game: "Game") -> None:
        """Begin the round."""
        game.round = self.name

    def enter(self, game: "Game", action: act.Action) -> None:
        """Move the game on as the action requires before its step takes it,
        or refuse an action this round does not take now."""

    def step_for(self, action: act.Action) -> Step | None:
        return next((s for s in self.steps if action.type in s.actions), None)

    def after(self, game: "Game", action: act.Action) -> None:
        """Follow the action's consequences for the round."""

    def to_move(self, game: "Game") -> int | None:
        """The player asked to move in this round."""
        return None
