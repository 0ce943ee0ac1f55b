"""The sections a game family adds to the game page and to a player's page.

The pages are built from the common parts (standings, railroads, PCs, map,
news) and then the family's own sections, each a template under
`web/templates/sections/` and a function giving its context. A sequential
family (the 18xx games) adds "whose move it is" here, with one entry in
`FAMILY_SECTIONS`; Continental Rails, played in simultaneous turns, adds none.
The 18xx games, stored apart (turnproc/store/g18xx.py), have their own page
(web/g18xx.py) that opens with whose move it is.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from turnproc.families.registry import family_of
from turnproc.store.models import Game, Player
from turnproc.web.pages import scenario_for


@dataclass(frozen=True)
class Section:
    title: str
    template: str  # under web/templates/sections/
    context: Callable[[Session, Game, Player | None], dict[str, Any]]


# Family name -> its sections, shown after the common ones.
FAMILY_SECTIONS: dict[str, list[Section]] = {"continental-rails": []}


def sections_for(
    session: Session, game: Game, player: Player | None = None
) -> list[tuple[Section, dict[str, Any]]]:
    """The family's sections of `game` with their contexts (`player`: his page)."""
    family = family_of(scenario_for(game.scenario)).name
    return [
        (section, section.context(session, game, player))
        for section in FAMILY_SECTIONS.get(family, [])
    ]
