"""Computer players: orders for every position no human plays (rule 3.1).

"Computer-played positions can take any action a human player can, except
negotiate with other players." `computer_orders` writes the same typed orders
a turnsheet gives, so the engine checks them exactly as it checks a human's.

It looks only at what the position is entitled to see (`public_view`): prices,
railroads' public data, PCs for sale, the victory points, and its own cash,
loan, holdings and PCs; never another tycoon's cash, loan or holdings. Its
choices are random only through the stream ``ai-<position>`` of the game's seed
and turn. Personalities and every number come from ai.toml; the engine's own
costs (building, debt limits, efficiency) are read from the sections that
define them. docs/computer-players.md describes the play.

`params` reads ai.toml, `view` is what a position may see, `facts` what every
computer player may know of the turn, `planner` plans one tycoon's turn and
`presidency` the railroads he presides.
"""

from turnproc.families.continental_rails.ai.facts import TurnFacts
from turnproc.families.continental_rails.ai.params import (
    AIParams,
    GeneralParams,
    Personality,
    ai_params,
    personality_name,
)
from turnproc.families.continental_rails.ai.planner import computer_orders
from turnproc.families.continental_rails.ai.view import is_western_route, public_view

__all__ = [
    "AIParams",
    "GeneralParams",
    "Personality",
    "TurnFacts",
    "ai_params",
    "computer_orders",
    "is_western_route",
    "personality_name",
    "public_view",
]
