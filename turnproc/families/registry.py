"""The registry of the game families: family name -> `GameFamily`, and the
sequential families by the titles they play.

A family is imported when first asked for, not when this module is: a
command that needs one family (or none: mail of commands) does not load every
family's engine. `turnproc/families/__init__.py` stays empty so that a module
of one family (its events, its turnsheet language) loads without the others.
"""

from collections.abc import Callable
from typing import Any

from turnproc.core.errors import TurnprocError
from turnproc.families.boundary import GameFamily, SequentialFamily
from turnproc.scenario.model import Scenario

# The family of a scenario whose scenario.toml names none.
DEFAULT_FAMILY = "continental-rails"


def _continental_rails() -> GameFamily[Any, Any, Any]:
    from turnproc.families.continental_rails.family import CONTINENTAL_RAILS

    return CONTINENTAL_RAILS


def _g18xx() -> SequentialFamily:
    from turnproc.families.g18xx.family import G18XX

    return G18XX


# Family name -> the function that imports it (its engine with it).
_LOAD: dict[str, Callable[[], GameFamily[Any, Any, Any]]] = {DEFAULT_FAMILY: _continental_rails}
_LOAD_SEQUENTIAL: dict[str, Callable[[], SequentialFamily]] = {"18xx": _g18xx}

# The families imported so far, by name (a bench or a test may replace one).
FAMILIES: dict[str, GameFamily[Any, Any, Any]] = {}
SEQUENTIAL: dict[str, SequentialFamily] = {}


def family_named(name: str) -> GameFamily[Any, Any, Any]:
    """The family called `name` (scenario.toml `family`), imported on first use."""
    if name not in FAMILIES:
        try:
            load = _LOAD[name]
        except KeyError:
            known = ", ".join(sorted(_LOAD))
            raise TurnprocError(
                f"no game family {name!r} in this program (it plays: {known})"
            ) from None
        FAMILIES[name] = load()
    return FAMILIES[name]


def sequential_families() -> dict[str, SequentialFamily]:
    """Every sequential family by name (each imported on first use)."""
    for name, load in _LOAD_SEQUENTIAL.items():
        if name not in SEQUENTIAL:
            SEQUENTIAL[name] = load()
    return SEQUENTIAL


def sequential_family(scenario: str) -> SequentialFamily | None:
    """The sequential family playing a `game new --scenario` name, if any."""
    for family in sequential_families().values():
        if scenario.lower() in family.titles:
            return family
    return None


def family_of(scenario: Scenario) -> GameFamily[Any, Any, Any]:
    """The family a scenario belongs to (scenario.toml `family`)."""
    name = str(scenario.params.get("scenario", {}).get("family", DEFAULT_FAMILY))
    if name not in _LOAD:
        known = ", ".join(sorted(_LOAD))
        raise TurnprocError(
            f"scenario {scenario.name!r} is of the game family {name!r}, which this "
            f"program does not play (it plays: {known})"
        )
    return family_named(name)


def rules_pdf(pdf_name: str | None) -> tuple[str, bytes]:
    """The rules PDF a welcome mail carries, as (file name, bytes): the rules
    of the sequential title whose rules PDF is named `pdf_name`, else those of
    the default family. Renders with ReportLab."""
    for family in sequential_families().values():
        found = family.rules_pdf(pdf_name)
        if found is not None:
            return found
    found = family_named(DEFAULT_FAMILY).rules_pdf(pdf_name)
    if found is None:
        raise TurnprocError(f"no family has the rules PDF {pdf_name!r}")
    return found
