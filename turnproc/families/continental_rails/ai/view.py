"""What a position may see (rule 3.1): the state with other tycoons' private
figures hidden."""

from typing import Any, TypeVar

from pydantic import BaseModel

from turnproc.families.continental_rails.engine.state import GameState, Tycoon
from turnproc.families.continental_rails.engine.steps import operations
from turnproc.scenario.model import Scenario


def is_western_route(scenario: Scenario, code: str) -> bool:
    """8 A route of the western phase (closed to building during the Civil War)."""
    return code in scenario.routes and operations.is_western(scenario, code)


def public_view(state: GameState, position: int) -> GameState:
    """The state as `position` sees it: other tycoons' cash, loans, holdings,
    shorts and presidency requests are hidden (3.1: only spying shows holdings)."""
    tycoons = [t if t.position == position else _hidden(t) for t in state.tycoons]
    return _changed(state, {"tycoons": tycoons})


def _hidden(tycoon: Tycoon) -> Tycoon:
    """A tycoon as the other positions see him (`public_view`)."""
    return _changed(
        tycoon,
        {
            "cash": 0,
            "loan": 0,
            "holdings": {},
            "shorts": {},
            "short_proceeds": {},
            "wants_presidency": [],
        },
    )


_M = TypeVar("_M", bound=BaseModel)
_set = object.__setattr__


def _changed(model: _M, update: dict[str, Any]) -> _M:
    """`model.model_copy(update=update)` of a state model (no extra or private
    attributes): the same shallow copy, without pydantic's generic copying,
    which cost a planner more than the copied fields (a view is made per seat,
    a hidden tycoon per seat and turn, a built railroad per president)."""
    cls = type(model)
    copy = cls.__new__(cls)
    values = model.__dict__.copy()
    values.update(update)
    _set(copy, "__dict__", values)
    _set(copy, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set(copy, "__pydantic_extra__", None)
    _set(copy, "__pydantic_private__", None)
    return copy
