"""Whole turns through the engine: determinism, conservation after every step,
inputs untouched."""

from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import SEQUENCE, resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario


def _start(scenario: Scenario, seed: int = 11):
    return new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])


def test_new_game_has_the_1841_start(scenario: Scenario) -> None:
    state = _start(scenario)
    assert len(state.tycoons) == 15
    assert sorted(state.railroads) == sorted(["NYC", "PENN", "B&O", "N&W", "SCL", "C&H"])
    assert len({t.character for t in state.tycoons}) == 15
    available = [pc for pc in state.pcs.values() if pc.status == "available"]
    assert len(available) == 20
    assert all(pc.asking_price > 0 for pc in available)
    assert share_problems(state) == []


def test_a_turn_is_deterministic_and_leaves_its_input_alone(scenario: Scenario) -> None:
    state = _start(scenario)
    before = state.model_dump_json()
    first = resolve_turn(scenario, state, {})
    second = resolve_turn(scenario, state, {})
    assert state.model_dump_json() == before
    assert first.model_dump_json() == second.model_dump_json()
    assert first.state.turn == state.turn + 1


def test_money_and_shares_are_conserved_after_every_step(scenario: Scenario) -> None:
    state = _start(scenario)
    seen: list[str] = []

    def check(name: str, ctx: TurnContext) -> None:
        seen.append(name)
        assert money_problems(ctx.start, ctx.state, ctx.ledger) == [], name
        assert share_problems(ctx.state) == [], name

    for _ in range(3):
        state = resolve_turn(scenario, state, {}, after_step=check).state
    assert seen == [name for name, _ in SEQUENCE] * 3


def test_a_mid_game_turn_leaves_its_input_alone(scenario: Scenario) -> None:
    """The working copy shares what cannot change (numbers, strings) with the
    state it copies; a busy turn of computer orders must still leave that
    state as it was, and give the same result twice."""
    from turnproc.families.continental_rails import ai

    state = _start(scenario, seed=3)

    def computer(state: GameState) -> dict[int, PlayerOrders]:
        return {t.position: ai.computer_orders(scenario, state, t.position) for t in state.tycoons}

    for _ in range(9):
        state = resolve_turn(scenario, state, computer(state)).state
    orders = computer(state)
    before = state.model_dump_json()
    first = resolve_turn(scenario, state, orders)
    assert state.model_dump_json() == before
    second = resolve_turn(scenario, state, orders)
    assert first.model_dump_json() == second.model_dump_json()
    assert first.state.model_dump_json() != before  # the turn did change things


def test_the_working_copy_refuses_a_model_it_cannot_copy_safely() -> None:
    import pytest
    from pydantic import BaseModel

    from turnproc.families.continental_rails.engine.state import _containers

    class Nested(BaseModel):
        routes: dict[str, list[str]] = {}

    class Flat(BaseModel):
        lines: list[str] = []
        cash: int = 0

    with pytest.raises(TypeError, match="nests mutable"):
        _containers(Nested)
    assert _containers(Flat) == (("lines", list),)
