"""Random orders of every kind, sensible and absurd, for every position: the
engine must resolve any of them without a crash, a lost dollar or a lost share
(tests/test_qa_*.py)."""

import random
from collections.abc import Callable

from pydantic import TypeAdapter

from turnproc.families.continental_rails import ai
from turnproc.families.continental_rails.engine import network
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.invariants import money_problems, share_problems
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult, resolve_turn
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.auctions import AuctionsParams
from turnproc.families.continental_rails.engine.steps.railroad_finance import railroad_params
from turnproc.scenario.model import Scenario

ORDER: TypeAdapter[Order] = TypeAdapter(Order)

# Every order kind of turnproc/families/continental_rails/engine/orders.py; a
# test checks none is missing.
KINDS = (
    "character_name",
    "borrow",
    "repay_loan",
    "bid_pc",
    "offer_pc",
    "incorporate_pc",
    "merge_pc",
    "buy_treasury",
    "lend_to_railroad",
    "collect_from_railroad",
    "prodigal",
    "spy_player",
    "spy_railroad",
    "request_presidency",
    "buy",
    "sell",
    "short",
    "cover",
    "dividend",
    "issue_stock",
    "issue_bonds",
    "redeem_bonds",
    "short_loan",
    "repay_short_loan",
    "bid_row",
    "build_row",
    "sell_land",
    "double_track",
    "upgrade_locomotive",
    "buy_technology",
    "political_donation",
    "rate_war",
    "capital_improvement",
    "merge_railroads",
)


def _amount(chooser: random.Random, scale: int) -> int:
    roll = chooser.random()
    if roll < 0.05:
        return 0
    if roll < 0.1:
        return 10**9
    if roll < 0.15:
        return 1
    return chooser.randint(0, scale)


def _shares(chooser: random.Random, scale: int) -> int:
    roll = chooser.random()
    if roll < 0.05:
        return 10**6
    if roll < 0.1:
        return 1
    return chooser.randint(1, scale)


def random_order(
    scenario: Scenario, state: GameState, position: int, chooser: random.Random, kind: str
) -> Order:
    """An order of `kind` for `position`: usually about its own PCs, railroads
    and nearby RoWs, sometimes about anyone's, sometimes about nothing that exists."""
    tycoon = state.tycoon(position)
    codes = sorted(state.railroads) or ["NYC"]
    mine = sorted(c for c, rr in state.railroads.items() if rr.president == position)
    if chooser.random() < 0.7:
        code = chooser.choice(mine or codes)
    else:
        code = chooser.choice([*codes, "XX", "B&O"])
    pcs = sorted(state.pcs)
    pc = chooser.choice((tycoon.pcs or pcs) if chooser.random() < 0.7 else [*pcs, "ZZZ"])
    rr = state.railroads.get(code)
    routes = sorted(scenario.routes)
    near = []
    if rr is not None:
        near = sorted(
            route
            for town in network.towns_of(scenario, rr.lines + rr.rows)
            for route in scenario.routes_at.get(town, ())
            if scenario.routes[route].kind == "RoW"
        )
    row = chooser.choice(near) if near and chooser.random() < 0.7 else chooser.choice(routes)
    line = chooser.choice(rr.lines) if rr and rr.lines and chooser.random() < 0.8 else row
    unbuilt = chooser.choice(rr.rows) if rr and rr.rows and chooser.random() < 0.8 else row
    rival = chooser.choice([*codes, "XX"])
    if rr is not None and chooser.random() < 0.6:
        # A rival a rate war or a merger can actually be about: a railroad of
        # the same president, or one with a line parallel to this one's.
        related = sorted(
            other.code
            for other in state.railroads.values()
            if other.code != code
            and (
                other.president == rr.president
                or network.parallel_routes(scenario, rr.lines, other.lines)
            )
        )
        rival = chooser.choice(related) if related else rival
    every: dict[str, dict[str, object]] = {
        "character_name": {"name": chooser.choice(["Vanderbilt", "Gould", "X" * 40])},
        "borrow": {"amount": _amount(chooser, 5000)},
        "repay_loan": {"amount": _amount(chooser, 5000)},
        "bid_pc": {"pc": pc, "amount": _amount(chooser, 4000)},
        "offer_pc": {"pc": pc, "price": _amount(chooser, 4000)},
        "incorporate_pc": {"pc": pc},
        "merge_pc": {"pc": pc, "railroad": code},
        "buy_treasury": {"railroad": code, "shares": _shares(chooser, 200)},
        "lend_to_railroad": {"railroad": code, "amount": _amount(chooser, 3000)},
        "collect_from_railroad": {"railroad": code, "amount": _amount(chooser, 3000)},
        "prodigal": {"amount": _amount(chooser, 3000)},
        "spy_player": {"target": chooser.randint(1, 15)},
        "spy_railroad": {"railroad": code},
        "request_presidency": {"railroad": code},
        "buy": {"railroad": code, "shares": _shares(chooser, 200)},
        "sell": {"railroad": code, "shares": _shares(chooser, 200)},
        "short": {"railroad": code, "shares": _shares(chooser, 200)},
        "cover": {"railroad": code, "shares": _shares(chooser, 200)},
        "dividend": {"railroad": code, "per_share": chooser.randint(0, 99)},
        "issue_stock": {"railroad": code, "shares": _shares(chooser, 300)},
        "issue_bonds": {"railroad": code, "amount": _amount(chooser, 6000)},
        "redeem_bonds": {"railroad": code, "amount": _amount(chooser, 6000)},
        "short_loan": {"railroad": code, "amount": _amount(chooser, 6000)},
        "repay_short_loan": {"railroad": code, "amount": _amount(chooser, 6000)},
        "bid_row": {"railroad": code, "row": row, "amount": _amount(chooser, 3000)},
        "build_row": {"railroad": code, "row": unbuilt},
        "sell_land": {"railroad": code, "acres": _shares(chooser, 3000)},
        "double_track": {"railroad": code, "line": line},
        "upgrade_locomotive": {"railroad": code, "locomotive": chooser.randint(2, 9)},
        "buy_technology": {
            "railroad": code,
            "technology": chooser.choice("ABCDEFGHIJ"),
            "town": chooser.choice([None, chooser.choice(sorted(scenario.towns)), "Nowhere"]),
        },
        "political_donation": {"railroad": code, "amount": _amount(chooser, 1000)},
        "rate_war": {"railroad": code, "rival": rival, "percent": chooser.randint(0, 90)},
        "capital_improvement": {"railroad": code, "amount": _amount(chooser, 4000)},
        "merge_railroads": {"railroad": code, "other": rival},
    }
    return ORDER.validate_python({"kind": kind, **every[kind]})


def random_orders(
    scenario: Scenario,
    state: GameState,
    chooser: random.Random,
    computer_share: float = 0.5,
    most: int = 12,
) -> dict[int, PlayerOrders]:
    """Every position's orders for a turn: some positions start from the
    computer's plan (so the game moves on), and random orders of random kinds
    are slipped in anywhere in the list."""
    orders = {}
    for tycoon in state.tycoons:
        position = tycoon.position
        given: list[Order] = []
        if chooser.random() < computer_share:
            given = list(ai.computer_orders(scenario, state, position).orders)
        for _ in range(chooser.randint(0, most)):
            order = random_order(scenario, state, position, chooser, chooser.choice(KINDS))
            given.insert(chooser.randint(0, len(given)), order)
        orders[position] = PlayerOrders(position=position, orders=given)
    return orders


def state_problems(scenario: Scenario, state: GameState) -> list[str]:
    """Facts the rules keep true between any two steps, beyond money and shares:
    PC ownership, route ownership, connected and lawful networks (2.5, 4.8),
    debts never negative, the one lender of a railroad (4.5)."""
    problems = []
    efficiency = railroad_params(scenario).efficiency
    max_pcs = scenario.section("auctions", AuctionsParams).auction.max_pcs
    owners: dict[str, int] = {}
    for tycoon in state.tycoons:
        if tycoon.loan < 0:
            problems.append(f"tycoon {tycoon.position}: loan {tycoon.loan}")
        if len(tycoon.pcs) > max_pcs:
            problems.append(f"tycoon {tycoon.position} owns {len(tycoon.pcs)} PCs")
        for code in tycoon.pcs:
            pc = state.pcs.get(code)
            if pc is None or pc.status != "owned" or pc.owner != tycoon.position:
                problems.append(f"tycoon {tycoon.position} lists PC {code}: {pc}")
            if code in owners:
                problems.append(f"PC {code} owned by {owners[code]} and {tycoon.position}")
            owners[code] = tycoon.position
        if set(tycoon.short_proceeds) - set(tycoon.shorts):
            problems.append(f"tycoon {tycoon.position}: collateral without a short sale")
    for code, pc in state.pcs.items():
        if pc.status == "owned" and owners.get(code) != pc.owner:
            problems.append(f"PC {code} owned by {pc.owner}, not in his list")
        if pc.status in ("incorporated", "merged", "unreleased") and pc.owner is not None:
            problems.append(f"PC {code} {pc.status} but owned by {pc.owner}")
    seen: dict[str, str] = {}
    for code, rr in state.railroads.items():
        for route in rr.lines + rr.rows:
            if route in seen:
                problems.append(f"route {route} belongs to {seen[route]} and {code}")
            seen[route] = code
        if not rr.lines or not network.is_connected(scenario, rr.lines):
            problems.append(f"{code}: lines not one network: {rr.lines}")
        why = network.prohibited_reason(scenario, rr.lines + rr.rows)
        if why is not None:
            problems.append(f"{code}: {why}")
        if min(rr.bonds, rr.loan, rr.owed_to_president, rr.land, rr.political) < 0:
            problems.append(f"{code}: negative debt, land or influence")
        if (rr.owed_to_president > 0) != (rr.lender is not None):
            problems.append(f"{code}: owes {rr.owed_to_president} to lender {rr.lender}")
        if not set(rr.double_tracked) <= set(rr.lines):
            problems.append(f"{code}: double track off its lines")
        if rr.locomotive > state.best_locomotive:
            problems.append(f"{code}: locomotive {rr.locomotive} not yet invented")
        if not efficiency.floor <= rr.efficiency <= efficiency.max:
            problems.append(f"{code}: efficiency {rr.efficiency}")
        if rr.price < 1 or rr.issued <= 0:
            problems.append(f"{code}: price {rr.price}, issued {rr.issued}")
    return problems


def checked_turn(
    scenario: Scenario, state: GameState, orders: dict[int, PlayerOrders]
) -> TurnResult:
    """Resolve a turn, failing at the first step that loses money or shares."""

    def check(name: str, ctx: TurnContext) -> None:
        problems = money_problems(ctx.start, ctx.state, ctx.ledger) + share_problems(ctx.state)
        problems += state_problems(scenario, ctx.state)
        assert problems == [], f"turn {ctx.turn}, after step {name}: {problems[:5]}"

    return resolve_turn(scenario, state, orders, check)


def play(
    scenario: Scenario,
    state: GameState,
    seed: int,
    turns: int,
    on_turn: Callable[[TurnResult], None] | None = None,
) -> GameState:
    chooser = random.Random(seed)
    for _ in range(turns):
        if state.ended:
            break
        result = checked_turn(scenario, state, random_orders(scenario, state, chooser))
        if on_turn is not None:
            on_turn(result)
        state = result.state
    return state
