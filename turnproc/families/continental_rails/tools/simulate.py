"""Whole games of computer players through the rules engine, with statistics.

`play_game` plays one game (new_game, then computer orders and resolve_turn
until the game ends or the turn limit), checking money and shares after every
step of every turn, and returns what the balance targets are measured on.
`simulate` plays many games (optionally on several processes) and `aggregate`
sums them up. Same seed, same games, same numbers.
"""

import statistics
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any

from pydantic import BaseModel, Field

from turnproc.core.collection import few_collections
from turnproc.families.continental_rails import ai
from turnproc.families.continental_rails.engine import invariants, valuation
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES, GameState
from turnproc.families.continental_rails.engine.steps import operations
from turnproc.families.continental_rails.tools import strategies
from turnproc.families.continental_rails.turnsheet.check import check_orders, lines_of
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario

POSITIONS = 15


def western_regions(scenario: Scenario) -> frozenset[str]:
    """Regions of the western phase (8): every starred town west of the
    Mississippi (`operations.is_western_town`, the game's one definition)."""
    towns: dict[str, list[str]] = {}
    for town in scenario.towns.values():
        if town.region:
            towns.setdefault(town.region, []).append(town.id)
    return frozenset(
        region
        for region, ids in towns.items()
        if all(operations.is_western_town(scenario, t) for t in ids)
    )


class Winner(BaseModel):
    position: int
    personality: str
    vp: int


class TurnRecord(BaseModel):
    """What one turn of one game left behind."""

    turn: int
    climate_start: int = 0  # the climate the turn was played in
    climate: int  # at the end of the turn (the next turn's climate)
    pc_prices: list[int] = Field(default_factory=list)
    stock_prices: list[int] = Field(default_factory=list)  # end prices of every railroad
    railroads: int = 0
    splits: int = 0
    loan_recalls: int = 0
    bankruptcies: int = 0
    regions_east: int = 0  # regions first linked this turn
    regions_west: int = 0
    rows_built_east: int = 0
    rows_built_west: int = 0
    events: dict[str, int] = Field(default_factory=dict)
    rejections: dict[str, int] = Field(default_factory=dict)


class GameStats(BaseModel):
    game: int
    seed: int
    turns: int = 0
    ended: bool = False  # by the rules' random end, not the turn limit
    crashed: str | None = None  # the engine failed: exception and place
    problems: list[str] = Field(default_factory=list)  # conservation failures
    personalities: dict[int, str] = Field(default_factory=dict)
    strategies: dict[int, str] = Field(default_factory=dict)  # scripted seats (cr.strategies)
    strategy_refused: int = 0  # strategy orders the intake's order check refused
    winners: dict[str, list[Winner]] = Field(default_factory=dict)
    net_worth: dict[int, int] = Field(default_factory=dict)
    vp: dict[int, dict[str, int]] = Field(default_factory=dict)
    bankruptcies: dict[int, int] = Field(default_factory=dict)  # by position (3.6)
    history: list[TurnRecord] = Field(default_factory=list)


def _turn_record(
    scenario: Scenario,
    before: GameState,
    after: GameState,
    events: Iterable[Any],
    rejections: Any,
    west: frozenset[str],
) -> TurnRecord:
    """What the turn left behind; `west` is `western_regions(scenario)`."""
    events = list(events)
    each_kind = [event.kind for event in events]
    kinds = Counter(each_kind)
    record = TurnRecord(turn=before.turn, climate_start=before.climate, climate=after.climate)
    # The kinds counted on their own; the events of the two kinds read further
    # are walked only in a turn that has them, each event's kind read once.
    record.splits = sum(count for kind, count in kinds.items() if "split" in kind)
    record.loan_recalls = kinds["loan_recalled"]
    record.bankruptcies = kinds["bankruptcy"]
    if kinds["pc_bought"] or kinds["row_built"]:
        for event, kind in zip(events, each_kind, strict=True):
            if kind == "pc_bought":
                record.pc_prices.append(int(event.price))
            elif kind == "row_built":
                if ai.is_western_route(scenario, str(event.row)):
                    record.rows_built_west += 1
                else:
                    record.rows_built_east += 1
    record.events = dict(sorted(kinds.items()))
    record.rejections = dict(sorted(Counter([r.code for r in rejections]).items()))
    record.stock_prices = sorted(rr.price for rr in after.railroads.values())
    record.railroads = len(after.railroads)
    for region in set(after.first_region_links) - set(before.first_region_links):
        if region in west:
            record.regions_west += 1
        else:
            record.regions_east += 1
    return record


def _winners(
    scenario: Scenario, state: GameState, labels: dict[int, str]
) -> dict[str, list[Winner]]:
    """1.3 The winner of each category: the most VP (all tied leaders)."""
    winners: dict[str, list[Winner]] = {}
    for category in VP_CATEGORIES:
        best = max(t.vp.get(category, 0) for t in state.tycoons)
        if best <= 0:
            winners[category] = []
            continue
        winners[category] = [
            Winner(
                position=t.position,
                personality=labels[t.position],
                vp=best,
            )
            for t in state.tycoons
            if t.vp.get(category, 0) == best
        ]
    return winners


def parse_strategy_seats(specs: Iterable[str]) -> dict[int, str]:
    """`NAME@POSITION` flags (`--strategy looter@3`) as {position: name}."""
    seats: dict[int, str] = {}
    for spec in specs:
        name, _, where = spec.partition("@")
        if name not in strategies.STRATEGIES:
            known = ", ".join(sorted(strategies.STRATEGIES))
            raise ValueError(f"unknown strategy {name!r} (known: {known})")
        if not where.isdigit() or not 1 <= int(where) <= POSITIONS:
            raise ValueError(f"{spec!r}: write NAME@POSITION with a position 1-{POSITIONS}")
        if int(where) in seats:
            raise ValueError(f"position {where} is given two strategies")
        seats[int(where)] = name
    return seats


def strategy_player_orders(
    scenario: Scenario,
    state: GameState,
    position: int,
    name: str,
    facts: ai.TurnFacts | None = None,
) -> tuple[PlayerOrders, int]:
    """A scripted strategy's orders as the intake would put them in force: each
    order is checked against the live game as a mailed turnsheet's lines are
    (`intake.check.check_orders`); lines it refuses are struck, as a player
    correcting his sheet would. Returns the orders and how many were struck."""
    written = PlayerOrders(
        position=position,
        orders=strategies.strategy_orders(name, scenario, state, position, facts),
        source="player",
    )
    lines = lines_of(written)
    refused = {e.line_no for e in check_orders(state, scenario, position, lines).errors}
    kept = [line.order for line in lines if line.line_no not in refused]
    return PlayerOrders(position=position, orders=kept, source="player"), len(refused)


def play_game(
    scenario: Scenario,
    seed: int,
    turns: int = 40,
    game: int = 0,
    check: bool = True,
    keep_state: Callable[[GameState], None] | None = None,
    seats: dict[int, str] | None = None,
) -> GameStats:
    """Play one game of 15 computer players, or scripted strategies in the
    `seats` given ({position: strategy}); never raises for an engine failure
    (the failure is recorded in `crashed`)."""
    stats = GameStats(game=game, seed=seed)
    state = new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, POSITIONS + 1)])
    stats.personalities = {t.position: ai.personality_name(scenario, t) for t in state.tycoons}
    stats.strategies = dict(seats or {})
    stats.personalities.update(stats.strategies)  # a scripted seat is reported by its strategy
    where = "setup"
    west = western_regions(scenario)

    def after_step(name: str, ctx: TurnContext) -> None:
        nonlocal where
        where = f"turn {ctx.state.turn} after step {name}"
        problems = invariants.money_problems(ctx.start, ctx.state, ctx.ledger)
        problems += invariants.share_problems(ctx.state)
        stats.problems.extend(f"{where}: {p}" for p in problems)

    try:
        with few_collections():
            while not state.ended and stats.turns < turns:
                where = f"turn {state.turn} computer orders"
                orders = {}
                facts = ai.TurnFacts(scenario, state)  # what every seat may know, worked out once
                for t in state.tycoons:
                    if t.position in stats.strategies:
                        orders[t.position], struck = strategy_player_orders(
                            scenario, state, t.position, stats.strategies[t.position], facts
                        )
                        stats.strategy_refused += struck
                    else:
                        orders[t.position] = ai.computer_orders(scenario, state, t.position, facts)
                where = f"turn {state.turn}"
                result = resolve_turn(scenario, state, orders, after_step if check else None)
                stats.history.append(
                    _turn_record(
                        scenario, state, result.state, result.events, result.rejections, west
                    )
                )
                for event in result.events:
                    if event.kind == "bankruptcy" and event.position is not None:
                        pos = event.position
                        stats.bankruptcies[pos] = stats.bankruptcies.get(pos, 0) + 1
                state = result.state
                stats.turns += 1
                if keep_state is not None:
                    keep_state(state)
    except Exception as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        ours = [f for f in frames if "/turnproc/" in f.filename] or frames
        last = ours[-1]
        place = last.filename.split("/turnproc/")[-1]
        message = str(exc).splitlines()[0] if str(exc) else ""
        stats.crashed = f"{where}: {type(exc).__name__}: {message} ({place}:{last.lineno})"
    stats.ended = state.ended
    stats.winners = _winners(scenario, state, stats.personalities)
    stats.net_worth = {
        t.position: valuation.net_worth(state, scenario, t.position) for t in state.tycoons
    }
    stats.vp = {t.position: dict(t.vp) for t in state.tycoons}
    return stats


def game_seed(seed: int, game: int) -> int:
    """The seed of game `game` of a simulation seeded `seed`."""
    return seed * 10007 + game


@cache
def _scenario(name: str) -> Scenario:
    """One load per worker process: every game of a run plays the same data."""
    return load_scenario(name)


_Job = tuple[str, int, int, int, dict[int, str]]


def _play_by_name(args: _Job) -> GameStats:
    name, seed, turns, game, seats = args
    return play_game(_scenario(name), seed, turns, game, seats=seats)


def simulate(
    scenario_name: str,
    games: int,
    turns: int = 40,
    seed: int = 1,
    workers: int = 1,
    on_game: Callable[[GameStats], None] | None = None,
    seats: dict[int, str] | None = None,
) -> list[GameStats]:
    """Play `games` games (scripted strategies in `seats`, computer players in
    the other positions); results in game order whatever the number of workers."""
    jobs: list[_Job] = [
        (scenario_name, game_seed(seed, g), turns, g, dict(seats or {}))
        for g in range(1, games + 1)
    ]
    return play_jobs(jobs, workers, on_game)


def play_jobs(
    jobs: list[_Job], workers: int = 1, on_game: Callable[[GameStats], None] | None = None
) -> list[GameStats]:
    """Play games given as (scenario, game seed, turns, game number, seats);
    results in the jobs' order."""
    results: list[GameStats] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            stats = _play_by_name(job)
            results.append(stats)
            if on_game is not None:
                on_game(stats)
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for stats in pool.map(_play_by_name, jobs):
            results.append(stats)
            if on_game is not None:
                on_game(stats)
    return results


# --- aggregate statistics ---------------------------------------------------------


def _percentiles(values: list[int]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "min": None, "p10": None, "median": None, "p90": None, "max": None}
    ordered = sorted(values)

    def at(q: float) -> int:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {
        "n": len(ordered),
        "min": ordered[0],
        "p10": at(0.10),
        "median": at(0.50),
        "p90": at(0.90),
        "max": ordered[-1],
    }


def _share(values: list[int], low: int, high: int) -> float | None:
    if not values:
        return None
    return round(sum(1 for v in values if low <= v <= high) / len(values), 3)


def _share_of(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _recalls_by_fall(played: list[GameStats]) -> dict[str, dict[str, float]]:
    """Recalls per turn by how many climate levels the turn fell (0: no fall)."""
    turns: dict[int, list[int]] = {}
    for g in played:
        for r in g.history:
            turns.setdefault(max(0, r.climate - r.climate_start), []).append(r.loan_recalls)
    return {
        str(fall): {
            "turns": len(v),
            "recalls": sum(v),
            "recalls_per_turn": round(sum(v) / len(v), 2),
        }
        for fall, v in sorted(turns.items())
    }


def aggregate(results: list[GameStats]) -> dict[str, Any]:
    """The figures docs/balance.md compares with the real games."""
    played = [g for g in results if g.history]
    end_turns = [g.history[-1].turn for g in played if g.ended]
    pc_mid = [p for g in played for r in g.history if r.turn in (7, 8) for p in r.pc_prices]
    pc_all = [p for g in played for r in g.history for p in r.pc_prices]
    prices = [p for g in played for r in g.history for p in r.stock_prices]
    pairs = [(a, b) for g in played for a, b in zip(g.history, g.history[1:], strict=False)]
    moves = [abs(b.climate - a.climate) for a, b in pairs]
    panics_after_good = sum(1 for a, b in pairs if a.climate <= 2 and b.climate == 8)
    recalls = [r.loan_recalls for g in played for r in g.history]
    # A bad turn: the climate fell during it (the recall uses the new, lower margin).
    falls = [r.loan_recalls for g in played for r in g.history if r.climate > r.climate_start]
    others = [r.loan_recalls for g in played for r in g.history if r.climate <= r.climate_start]
    bankrupt = [sum(r.bankruptcies for r in g.history) for g in played]
    reorganized = [sum(r.events.get("railroad_reorganized", 0) for r in g.history) for g in played]
    by_turn: dict[int, dict[str, float]] = {}
    for turn in range(1, max((r.turn for g in played for r in g.history), default=0) + 1):
        records = [r for g in played for r in g.history if r.turn == turn]
        if not records:
            continue
        n = len(records)
        by_turn[turn] = {
            "games": n,
            "climate_mean": round(sum(r.climate for r in records) / n, 2),
            "pc_bought": round(sum(len(r.pc_prices) for r in records) / n, 2),
            "pc_price_median": statistics.median([p for r in records for p in r.pc_prices])
            if any(r.pc_prices for r in records)
            else 0,
            "railroads": round(sum(r.railroads for r in records) / n, 2),
            "stock_price_median": statistics.median([p for r in records for p in r.stock_prices])
            if any(r.stock_prices for r in records)
            else 0,
            "rows_built_east": round(sum(r.rows_built_east for r in records) / n, 2),
            "rows_built_west": round(sum(r.rows_built_west for r in records) / n, 2),
            "regions_east": round(sum(r.regions_east for r in records) / n, 2),
            "regions_west": round(sum(r.regions_west for r in records) / n, 2),
            "loan_recalls": round(sum(r.loan_recalls for r in records) / n, 2),
            "splits": round(sum(r.splits for r in records) / n, 2),
        }
    winners: dict[str, Counter[str]] = {c: Counter() for c in VP_CATEGORIES}
    for g in played:
        for category, leaders in g.winners.items():
            for w in leaders:
                winners[category][w.personality] += 1
    vp: dict[str, dict[str, list[int]]] = {}
    for g in played:
        for position, scores in g.vp.items():
            mine = vp.setdefault(g.personalities[position], {})
            for category, points in scores.items():
                mine.setdefault(category, []).append(points)
    worth: dict[str, list[int]] = {}
    for g in played:
        for position, value in g.net_worth.items():
            worth.setdefault(g.personalities[position], []).append(value)
    rejections: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for g in played:
        for r in g.history:
            rejections.update(r.rejections)
            events.update(r.events)
    return {
        "games": len(results),
        "crashed": sum(1 for g in results if g.crashed),
        "crashes": sorted({g.crashed for g in results if g.crashed}),
        "conservation_failures": sum(len(g.problems) for g in results),
        "games_with_conservation_failures": sum(1 for g in results if g.problems),
        "turns": _percentiles([g.turns for g in played]),
        "ended_by_rules": len(end_turns),
        "end_turn_mean": round(sum(end_turns) / len(end_turns), 2) if end_turns else None,
        "end_turn_min": min(end_turns) if end_turns else None,
        "pc_price_turns_7_8": _percentiles(pc_mid),
        "pc_price_turns_7_8_in_1400_11000": _share(pc_mid, 1400, 11000),
        "pc_price_all": _percentiles(pc_all),
        "stock_price": _percentiles(prices),
        "stock_price_in_10_100": _share(prices, 10, 100),
        "splits_per_game": round(sum(r.splits for g in played for r in g.history) / len(played), 2)
        if played
        else None,
        "climate_mean_move": round(sum(moves) / len(moves), 2) if moves else None,
        "climate_moves_of_one_or_less": _share(moves, 0, 1),
        "panics_after_good": panics_after_good,
        "loan_recalls_per_game": round(sum(recalls) / len(played), 2) if played else None,
        "loan_recalls_max_in_a_turn": max(recalls, default=0),
        "loan_recalls_share_in_falls": _share_of(sum(falls), sum(recalls)),
        "loan_recalls_per_fall_turn": round(sum(falls) / len(falls), 2) if falls else None,
        "loan_recalls_per_other_turn": round(sum(others) / len(others), 2) if others else None,
        "fall_turns_with_3_recalls": _share(falls, 3, 10**6),
        "fall_turns_with_a_recall": _share(falls, 1, 10**6),
        "loan_recalls_by_climate_fall": _recalls_by_fall(played),
        "bankruptcies_per_game": round(sum(bankrupt) / len(played), 2) if played else None,
        "games_with_bankruptcy": sum(1 for b in bankrupt if b),
        "reorganizations_per_game": round(sum(reorganized) / len(played), 2) if played else None,
        "games_with_reorganization": sum(1 for n in reorganized if n),
        "winners_by_personality": {c: dict(sorted(v.items())) for c, v in winners.items()},
        "vp_mean_by_personality": {
            p: {c: round(sum(v) / len(v), 1) for c, v in sorted(cats.items())}
            for p, cats in sorted(vp.items())
        },
        "net_worth_median_by_personality": {
            p: statistics.median(v) for p, v in sorted(worth.items())
        },
        "by_turn": by_turn,
        "events": dict(sorted(events.items())),
        "rejections": dict(sorted(rejections.items())),
    }
