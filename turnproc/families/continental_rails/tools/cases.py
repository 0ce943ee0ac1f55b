"""Rule case files: small TOML descriptions of a game position, the orders, and
the expected outcome, checked against the engine (docs/cases.md).

Like the Diplomacy world's DATC, every worked example of the rules and every
fixed bug gets a case; `turnproc case run` and the test suite run them all.
"""

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from turnproc.core.errors import TurnprocError
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders
from turnproc.families.continental_rails.engine.resolve import SEQUENCE, TurnResult, resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.scenario.model import Scenario

_ORDER = TypeAdapter(Order)
_MISSING = object()


class CaseError(TurnprocError):
    """A case file that cannot be read or set up."""


class StateExpectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    equals: Any


class CaseSetup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int | None = None
    climate: int | None = None
    best_locomotive: int | None = None
    technologies_available: list[str] | None = None
    tycoons: list[dict[str, Any]] = Field(default_factory=list)
    railroads: list[dict[str, Any]] = Field(default_factory=list)
    pcs: list[dict[str, Any]] = Field(default_factory=list)
    remove_railroads: list[str] = Field(default_factory=list)


class CaseExpect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: list[StateExpectation] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)
    no_events: list[dict[str, Any]] = Field(default_factory=list)
    rejections: list[dict[str, Any]] = Field(default_factory=list)
    no_rejections: list[dict[str, Any]] = Field(default_factory=list)


class Case(BaseModel):
    """One case file."""

    model_config = ConfigDict(extra="forbid")

    title: str
    rules: str
    seed: int = 1
    scenario: str = "continental-rails"
    steps: list[str] | None = None
    setup: CaseSetup = Field(default_factory=CaseSetup)
    orders: list[dict[str, Any]] = Field(default_factory=list)
    expect: CaseExpect = Field(default_factory=CaseExpect)


@dataclass
class CaseVerdict:
    path: Path
    title: str
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def load_case(path: Path) -> Case:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CaseError(f"{path}: no such case file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CaseError(f"{path}: invalid TOML ({exc})") from None
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise CaseError(f"{path}: {where}: {err['msg']}") from None


def build_state(case: Case, scenario: Scenario) -> GameState:
    """new_game for 15 computer positions, then the case's setup merged in."""
    state = new_game(scenario, case.seed, [PlayerSetup(position=p) for p in range(1, 16)])
    data = state.model_dump()
    setup = case.setup
    for key in ("turn", "climate", "best_locomotive", "technologies_available"):
        value = getattr(setup, key)
        if value is not None:
            data[key] = value
    for code in setup.remove_railroads:
        data["railroads"].pop(code, None)
        for tycoon in data["tycoons"]:
            tycoon["holdings"].pop(code, None)
    for patch in setup.tycoons:
        position = int(patch["position"])
        data["tycoons"][position - 1].update(patch)
    for patch in setup.railroads:
        code = str(patch["code"])
        if code in data["railroads"]:
            data["railroads"][code].update(patch)
        else:
            route = scenario.routes.get(code)
            base = {"number": route.number if route else 0, "name": route.name if route else code}
            base.update({"lines": [code]} if route else {})
            base.update(patch)
            data["railroads"][code] = Railroad.model_validate(base).model_dump()
    for patch in setup.pcs:
        code = str(patch["code"])
        data["pcs"].setdefault(code, {"code": code}).update(patch)
    try:
        return GameState.model_validate(data)
    except ValidationError as exc:
        raise CaseError(f"setup does not make a valid state: {exc.errors()[0]['msg']}") from None


def build_orders(case: Case) -> dict[int, PlayerOrders]:
    by_position: dict[int, list[Order]] = {}
    for raw in case.orders:
        fields = dict(raw)
        position = int(fields.pop("position"))
        try:
            order = _ORDER.validate_python(fields)
        except ValidationError as exc:
            raise CaseError(f"invalid order {raw}: {exc.errors()[0]['msg']}") from None
        by_position.setdefault(position, []).append(order)
    return {pos: PlayerOrders(position=pos, orders=orders) for pos, orders in by_position.items()}


def run_steps(
    scenario: Scenario, state: GameState, orders: dict[int, PlayerOrders], steps: list[str]
) -> TurnResult:
    """Run only the named steps of the turn sequence, in sequence order."""
    known = {name for name, _ in SEQUENCE}
    unknown = [name for name in steps if name not in known]
    if unknown:
        raise CaseError(f"unknown step(s) {unknown}; steps are: {sorted(known)}")
    ctx = TurnContext(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state.model_copy(deep=True),
        orders=orders,
    )
    for name, step in SEQUENCE:
        if name in steps:
            step(ctx)
    return TurnResult(
        state=ctx.state, events=ctx.events, rejections=ctx.rejections, ledger=ctx.ledger
    )


def _lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part, _MISSING)
        elif isinstance(data, list) and part.lstrip("-").isdigit():
            index = int(part)
            data = data[index] if -len(data) <= index < len(data) else _MISSING
        else:
            return _MISSING
        if data is _MISSING:
            return _MISSING
    return data


def _matches(actual: Any, wanted: Any) -> bool:
    """`wanted` is a subset of `actual` (tables compare key by key)."""
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(
            key in actual and _matches(actual[key], value) for key, value in wanted.items()
        )
    return bool(actual == wanted)


def _any_match(items: Iterable[dict[str, Any]], wanted: dict[str, Any]) -> bool:
    return any(_matches(item, wanted) for item in items)


def check_result(case: Case, result: TurnResult) -> list[str]:
    failures = []
    end = result.state.model_dump()
    for expectation in case.expect.state:
        actual = _lookup(end, expectation.path)
        if actual is _MISSING:
            failures.append(f"state {expectation.path}: no such path")
        elif actual != expectation.equals:
            failures.append(
                f"state {expectation.path}: {actual!r}, expected {expectation.equals!r}"
            )
    events = [event.model_dump() for event in result.events]
    for wanted in case.expect.events:
        if not _any_match(events, wanted):
            kinds = sorted({e["kind"] for e in events if e["kind"] == wanted.get("kind")})
            seen = [e for e in events if e["kind"] in kinds][:3]
            failures.append(f"no event matching {wanted}; same kind seen: {seen}")
    for unwanted in case.expect.no_events:
        hits = [e for e in events if _matches(e, unwanted)]
        if hits:
            failures.append(f"unexpected event {hits[0]}")
    rejections = [rejection.model_dump() for rejection in result.rejections]
    for wanted in case.expect.rejections:
        if not _any_match(rejections, wanted):
            failures.append(f"no rejection matching {wanted}; rejections: {rejections[:3]}")
    for unwanted in case.expect.no_rejections:
        hits = [r for r in rejections if _matches(r, unwanted)]
        if hits:
            failures.append(f"unexpected rejection {hits[0]}")
    return failures


def run_case(path: Path, scenarios: dict[str, Scenario]) -> CaseVerdict:
    """Load, set up, resolve and check one case file."""
    case = load_case(path)
    verdict = CaseVerdict(path=path, title=case.title)
    scenario = scenarios[case.scenario]
    state = build_state(case, scenario)
    orders = build_orders(case)
    if case.steps is None:
        result = resolve_turn(scenario, state, orders)
    else:
        result = run_steps(scenario, state, orders, case.steps)
    verdict.failures = check_result(case, result)
    if not (case.expect.state or case.expect.events or case.expect.rejections):
        verdict.failures.append("the case expects nothing: add [[expect.state]] or events")
    return verdict
