"""The registry of the game families: family name -> `GameFamily`, and the
sequential families by the titles they play. Importing it loads every family's
engine; `turnproc/families/__init__.py` stays empty so that a module of one
family (its events, its turnsheet language) loads without the others.
"""

from typing import Any

from turnproc.core.errors import TurnprocError
from turnproc.families.boundary import GameFamily, SequentialFamily
from turnproc.families.continental_rails.family import CONTINENTAL_RAILS
from turnproc.families.g18xx.family import G18XX
from turnproc.scenario.model import Scenario

FAMILIES: dict[str, GameFamily[Any, Any, Any]] = {CONTINENTAL_RAILS.name: CONTINENTAL_RAILS}


SEQUENTIAL: dict[str, SequentialFamily] = {G18XX.name: G18XX}


def sequential_family(scenario: str) -> SequentialFamily | None:
    """The sequential family playing a `game new --scenario` name, if any."""
    for family in SEQUENTIAL.values():
        if scenario.lower() in family.titles:
            return family
    return None


def family_of(scenario: Scenario) -> GameFamily[Any, Any, Any]:
    """The family a scenario belongs to (scenario.toml `family`)."""
    name = str(scenario.params.get("scenario", {}).get("family", "continental-rails"))
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        raise TurnprocError(
            f"scenario {scenario.name!r} is of the game family {name!r}, which this "
            f"program does not play (it plays: {known})"
        ) from None
