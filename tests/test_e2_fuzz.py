"""Railroad orders, good and bad, never crash the engine, never create or lose a
dollar or a share, and resolve the same way every time."""

import random

from pydantic import TypeAdapter

from turnproc.families.continental_rails.engine import network
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult, resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario

ORDER = TypeAdapter(Order)


def _random_orders(scenario: Scenario, state: GameState, chooser: random.Random) -> dict:
    codes = sorted(state.railroads)
    by_position: dict[int, list] = {}
    for code in codes:
        rr = state.railroads[code]
        position = rr.president or chooser.randint(1, 15)
        near = sorted(
            r
            for t in network.towns_of(scenario, rr.lines + rr.rows)
            for r in scenario.routes_at.get(t, ())
            if scenario.routes[r].kind == "RoW"
        )
        row = chooser.choice(near) if near and chooser.random() < 0.8 else "PA8"
        line = chooser.choice(rr.lines)
        candidates = [
            {"kind": "issue_stock", "shares": chooser.randint(1, 300)},
            {"kind": "issue_bonds", "amount": chooser.randint(0, 6000)},
            {"kind": "redeem_bonds", "amount": chooser.randint(0, 3000)},
            {"kind": "short_loan", "amount": chooser.randint(0, 3000)},
            {"kind": "repay_short_loan", "amount": chooser.randint(0, 3000)},
            {"kind": "bid_row", "row": row, "amount": chooser.randint(0, 2000)},
            {"kind": "build_row", "row": chooser.choice(rr.rows or [row])},
            {"kind": "sell_land", "acres": chooser.randint(1, 3000)},
            {"kind": "double_track", "line": line},
            {"kind": "upgrade_locomotive", "locomotive": chooser.randint(2, 9)},
            {"kind": "buy_technology", "technology": chooser.choice("ABCDEFGHIJ")},
            {"kind": "capital_improvement", "amount": chooser.randint(0, 3000)},
            {"kind": "political_donation", "amount": chooser.randint(0, 500)},
            {"kind": "rate_war", "rival": chooser.choice(codes), "percent": chooser.randint(0, 90)},
            {"kind": "merge_railroads", "other": chooser.choice(codes)},
            {"kind": "dividend", "per_share": chooser.randint(0, 99)},
        ]
        for fields in chooser.sample(candidates, chooser.randint(2, 8)):
            fields["railroad"] = code if chooser.random() < 0.9 else "NOPE"
            by_position.setdefault(position, []).append(ORDER.validate_python(fields))
    return {p: PlayerOrders(position=p, orders=o) for p, o in by_position.items()}


def _play(scenario: Scenario, seed: int, turns: int) -> list[TurnResult]:
    state = new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])
    chooser = random.Random(seed)
    results = []
    problems: list[str] = []

    def check(name: str, ctx: TurnContext) -> None:
        found = money_problems(ctx.start, ctx.state, ctx.ledger) + share_problems(ctx.state)
        problems.extend(f"turn {ctx.turn} {name}: {p}" for p in found)

    for _ in range(turns):
        # presidents fixed by the test, whatever the elections decided
        for i, code in enumerate(sorted(state.railroads)):
            state.railroads[code].president = 1 + i % 4
        result = resolve_turn(scenario, state, _random_orders(scenario, state, chooser), check)
        assert problems == []
        results.append(result)
        state = result.state
    return results


def test_random_railroad_orders_keep_money_and_shares(scenario: Scenario) -> None:
    results = _play(scenario, 11, 13)
    kinds = {e.kind for r in results for e in r.events}
    assert {"operations_result", "row_acquired", "row_built", "railroad_debt"} <= kinds
    assert any(r.rejections for r in results)


def test_same_orders_same_result(scenario: Scenario) -> None:
    first = _play(scenario, 5, 3)
    second = _play(scenario, 5, 3)
    assert [r.model_dump_json() for r in first] == [r.model_dump_json() for r in second]
