"""Railroad operations: revenues, expenses, events, insolvency, dividends
(rules 4.10-4.12, 8, 11.2).

Revenues, interest rates and costs use the climate at the START of the turn
(5 [original]); dividends go to the holders at the end of trading.
"""

from collections.abc import Collection
from typing import Literal, NamedTuple

from pydantic import BaseModel

from turnproc.core.ledger import BANK, railroad_account, tycoon_account
from turnproc.core.models import maker
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import network, reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import SetDividend
from turnproc.families.continental_rails.engine.state import GameState, Railroad, Tycoon
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    RailroadDebtChanged,
    bond_room,
    interest_up,
    issue_bonds,
    loan_rate,
    loan_room,
    max_efficiency,
    railroad_params,
    take_loan,
    track_miles,
)
from turnproc.scenario.model import Scenario

# A tycoon with his position, holdings and short sales (`operations`).
_Book = tuple[Tycoon, int, dict[str, int], dict[str, int]]

# --- parameters ---------------------------------------------------------------


class RevenueParams(BaseModel):
    line_base: int
    rate_percent: int
    climate_percent: list[int]  # by climate index, Boom ... Panic
    grand_station_percent: int


class ExpenseParams(BaseModel):
    base_permille: int
    slope_permille: int
    poor_below: int
    poor_slope_permille: int


class InsolvencyParams(BaseModel):
    writedown_percent: int
    price_percent: int
    min_price: int
    call_fall: int  # a turn whose climate falls this many levels calls in short loans


class SalaryParams(BaseModel):
    profit_percent: int  # share of a profitable turn's profit paid to the president


class OperationsParams(BaseModel):
    """operations.toml"""

    revenue: RevenueParams
    expense: ExpenseParams
    insolvency: InsolvencyParams
    salary: SalaryParams


class Locomotive(BaseModel):
    type: int
    name: str
    wheels: str
    available_turn: int


class Technology(BaseModel):
    letter: str
    name: str
    available_turn: int
    revenue_percent: int = 0
    expense_percent: int = 0


class TechnologyParams(BaseModel):
    """technology.toml"""

    upgrade_cost_per_mile: int
    technology_cost_per_mile: int
    grand_station_cost: int
    grand_station_min_size: int
    locomotives: list[Locomotive]
    technologies: list[Technology]

    def technology(self, letter: str) -> Technology | None:
        return next((t for t in self.technologies if t.letter == letter), None)


class EventOdds(BaseModel):
    pivot: int
    percent_per_point: int
    min_percent: int
    influence_per_percent: int
    max_influence_cut: int
    technology_cut_percent: int


class RandomEventType(BaseModel):
    name: str
    permille: int
    cost_per_mile: int = 0
    cost_revenue_percent: int = 0
    technologies: list[str] = []


class EventParams(BaseModel):
    """events.toml"""

    odds: EventOdds
    events: list[RandomEventType]


class CivilWarParams(BaseModel):
    """civil_war.toml"""

    turns: list[int]
    western_states: list[str]
    river_towns: list[str]
    southern_states: list[str]
    northern_states: list[str]
    southern_revenue_percent: int
    northern_revenue_percent: int
    southern_efficiency_loss: int


def operations_params(scenario: Scenario) -> OperationsParams:
    return scenario.section("operations", OperationsParams)


def technology_params(scenario: Scenario) -> TechnologyParams:
    return scenario.section("technology", TechnologyParams)


def civil_war_params(scenario: Scenario) -> CivilWarParams:
    return scenario.section("civil_war", CivilWarParams)


def is_western_town(scenario: Scenario, town: str) -> bool:
    """8 A town west of the Mississippi: in a state of `western_states`, unless
    it is one of the `river_towns` on the river itself (civil_war.toml)."""
    params = civil_war_params(scenario)
    where = scenario.towns.get(town)
    if where is None or town in params.river_towns:
        return False
    return where.state in params.western_states


def is_western(scenario: Scenario, code: str) -> bool:
    """8 A western route, PC or RoW: one with a town west of the Mississippi
    [designed]. The one definition of "western" the whole game uses: the
    Civil War's suspended westward expansion (no western RoW bid, building,
    double track, incorporation or PC merger on turns 11-12), the release of
    the western PCs after the war (2.3), and the computer players."""
    return code in western_routes(scenario)


def western_routes(scenario: Scenario) -> frozenset[str]:
    """8 The codes of every western route (`is_western`), worked out once per scenario."""
    return scenario.derived("western_routes", _western_routes)


def _western_routes(scenario: Scenario) -> frozenset[str]:
    return frozenset(
        code
        for code, route in scenario.routes.items()
        if is_western_town(scenario, route.a) or is_western_town(scenario, route.b)
    )


def at_war(ctx: TurnContext) -> bool:
    """8 Whether this is a Civil War turn (11 and 12 [original])."""
    return ctx.turn in civil_war_params(ctx.scenario).turns


# --- events -------------------------------------------------------------------


class OperationsResult(Event):
    """4.10-4.12 A railroad's operations for the turn (railroad summary, Pft/sh)."""

    kind: Literal["operations_result"] = "operations_result"
    revenue: int
    expense: int
    interest: int
    event_costs: int = 0
    salary: int = 0  # paid to the president (4.10)
    profit: int  # revenue - expense - interest - event costs - salary
    dividend_per_share: int
    dividends_paid: int
    efficiency: int = 0
    track: int = 0
    president: int | None = None
    news_order = 160


_operations_result = maker(OperationsResult)


class RandomEventOccurred(Event):
    """11.2 A disaster or other extraordinary cost."""

    kind: Literal["random_event"] = "random_event"
    event: str  # name from events.toml
    cost: int
    news_order = 160


class RailroadReorganized(Event):
    """4.11 Insolvency beyond the debt limits: reorganization (president -5 VP)."""

    kind: Literal["railroad_reorganized"] = "railroad_reorganized"
    president: int | None
    deficit: int
    new_shares: int
    price: int
    debt_written_off: int
    news_order = 100


class DividendReceived(Event):
    """4.12 Dividends paid to a tycoon (private cash flow)."""

    kind: Literal["dividend_received"] = "dividend_received"
    visibility: Literal["public", "private"] = "private"
    shares: int
    per_share: int
    amount: int
    news_order = 900


_dividend_received = maker(DividendReceived)


class ShortDividendCharged(Event):
    """4.12 A short seller pays the dividend on the shares he owes (private cash flow)."""

    kind: Literal["short_dividend_charged"] = "short_dividend_charged"
    visibility: Literal["public", "private"] = "private"
    shares: int
    per_share: int
    amount: int
    news_order = 901


# --- revenue and expense ------------------------------------------------------


class LineRevenue(NamedTuple):
    """One line's revenue. `traffic`: before double track, Grand Station,
    technology bonuses and rate-war cuts (operating expense is figured on it);
    `gross`: with the bonuses; `net`: after rate-war cuts (what is earned).
    A named tuple: a railroad's lines are worked out several times a turn
    (operations, and its president's and the bidders' foresight)."""

    line: str
    traffic: int
    gross: int
    net: int


def _town_value(scenario: Scenario, town: str) -> int:
    return scenario.towns[town].value if town in scenario.towns else 1


def _route_values(scenario: Scenario) -> dict[str, int]:
    """Each route's value a + value b (a town missing from the map counts 1)."""
    return {
        code: _town_value(scenario, route.a) + _town_value(scenario, route.b)
        for code, route in scenario.routes.items()
    }


def _line_weights(scenario: Scenario) -> dict[str, tuple[int, int, str, str]]:
    """Each route's length x (line base + its value), its value and its towns:
    the part of a line's revenue (4.10) that is the same every turn."""
    base = operations_params(scenario).revenue.line_base
    values = _route_values(scenario)
    return {
        code: (route.length * (base + values[code]), values[code], route.a, route.b)
        for code, route in scenario.routes.items()
    }


def _town_state(scenario: Scenario, town: str) -> str:
    return scenario.towns[town].state if town in scenario.towns else ""


def war_percent(scenario: Scenario, code: str, turn: int) -> int:
    """8 [designed] A line's revenue % in a Civil War turn: Confederate lines
    lose, Union lines gain war traffic, others unchanged."""
    params = civil_war_params(scenario)
    if turn not in params.turns:
        return 100
    states = [_town_state(scenario, t) for t in scenario.routes[code].towns]
    if any(s in params.southern_states for s in states):
        return params.southern_revenue_percent
    if all(s in params.northern_states for s in states):
        return params.northern_revenue_percent
    return 100


def rate_war_cut(scenario: Scenario, state: GameState, rr: Railroad, code: str) -> int:
    """4.16 The largest rate-war cut (%) on a line parallel to a rival's line."""
    cut = 0
    for rival_code, percent in rr.rate_wars.items():
        rival = state.railroads.get(rival_code)
        if rival is not None and network.parallel_routes(scenario, [code], rival.lines):
            cut = max(cut, percent)
    return cut


# The most railroads' line revenues `line_revenues` keeps for a scenario
# before it forgets them all and starts again.
_KEPT_REVENUES = 4096

_LinesKey = tuple[tuple[str, ...], tuple[str, ...], str | None, tuple[str, ...], int, bool]


def _no_revenues(scenario: Scenario) -> dict[_LinesKey, list[LineRevenue]]:
    """An empty table of line revenues, filled as they are asked (`line_revenues`)."""
    return {}


def line_revenues(
    scenario: Scenario, state: GameState, rr: Railroad, climate: int, turn: int
) -> list[LineRevenue]:
    """4.10 [designed] Revenue of each line: length x (base + value a + value b)
    x the climate and war percentages; then x (100 + value a + value b)% if
    double-tracked [original], x the Grand Station and technology percentages,
    x (100 - rate war cut)%.

    Without a rate war the revenues depend only on the railroad's lines,
    double track, Grand Station and technologies, the climate and whether it
    is a war turn: they are kept for the scenario under those, so a railroad
    foreseen by its president and then operated, or unchanged from one turn
    to the next, is worked out once."""
    at_war = turn in civil_war_params(scenario).turns
    if rr.rate_wars:
        return _line_revenues(scenario, state, rr, climate, turn, at_war)
    kept = scenario.derived("line_revenues", _no_revenues)
    key = (
        tuple(rr.lines),
        tuple(rr.double_tracked),
        rr.grand_station,
        tuple(rr.technologies),
        climate,
        at_war,
    )
    found = kept.get(key)
    if found is None:
        if len(kept) >= _KEPT_REVENUES:
            kept.clear()
        found = kept[key] = _line_revenues(scenario, state, rr, climate, turn, at_war)
    return list(found)


def _line_revenues(
    scenario: Scenario, state: GameState, rr: Railroad, climate: int, turn: int, at_war: bool
) -> list[LineRevenue]:
    """`line_revenues` worked out."""
    params = operations_params(scenario).revenue
    gains = scenario.derived("technology_revenue_gains", _revenue_gains)
    tech_percent = 100 + _owned_percent(rr.technologies, gains)
    weights = scenario.derived("line_weights", _line_weights)
    rate = params.rate_percent * params.climate_percent[climate]
    double_tracked = rr.double_tracked
    station = rr.grand_station
    station_percent = 100 + params.grand_station_percent
    result = []
    for code in rr.lines:
        weight, value, a, b = weights[code]
        amount = weight * rate * (war_percent(scenario, code, turn) if at_war else 100)
        divisor = 1_000_000
        traffic = amount // divisor
        if code in double_tracked:
            amount *= 100 + value
            divisor *= 100
        if station is not None and station in (a, b):
            amount *= station_percent
            divisor *= 100
        amount *= tech_percent
        divisor *= 100
        cut = rate_war_cut(scenario, state, rr, code) if rr.rate_wars else 0
        result.append(
            LineRevenue(code, traffic, amount // divisor, amount * (100 - cut) // (divisor * 100))
        )
    return result


def expense_permille(scenario: Scenario, efficiency: int) -> int:
    """4.6 [designed] Operating expense per thousand dollars of traffic revenue."""
    base, slope, poor_below, poor_slope = scenario.derived("expense_rates", _expense_rates)
    poor = max(0, poor_below - efficiency)
    return base + (100 - efficiency) * slope + poor * poor_slope


def _expense_rates(scenario: Scenario) -> tuple[int, int, int, int]:
    """operations.toml [expense] as `expense_permille` reads it."""
    params = operations_params(scenario).expense
    return (
        params.base_permille,
        params.slope_permille,
        params.poor_below,
        params.poor_slope_permille,
    )


def operating_expense(scenario: Scenario, rr: Railroad, traffic: int, efficiency: int) -> int:
    """4.6, 4.18 [designed] Operating expense: the lines' traffic revenue (before
    double track, Grand Station and technology bonuses, which carry no extra
    cost, and before rate-war cuts, 4.16 [original]) x the efficiency's expense
    rate, less the cost technologies' cuts."""
    cuts = scenario.derived("technology_expense_cuts", _expense_cuts)
    cut = _owned_percent(rr.technologies, cuts)
    return traffic * expense_permille(scenario, efficiency) * max(0, 100 - cut) // 100_000


def _owned_percent(owned: Collection[str], percents: tuple[tuple[str, int], ...]) -> int:
    """The percentages of the technologies `owned`, added up (4.17)."""
    if not owned:
        return 0
    return sum(percent for letter, percent in percents if letter in owned)


def _revenue_gains(scenario: Scenario) -> tuple[tuple[str, int], ...]:
    """Each technology's letter and the revenue it adds (%), in
    technology.toml's order, for `line_revenues`."""
    return tuple((t.letter, t.revenue_percent) for t in technology_params(scenario).technologies)


def _expense_cuts(scenario: Scenario) -> tuple[tuple[str, int], ...]:
    """Each technology's letter and the operating expense it cuts (%), in
    technology.toml's order, for `operating_expense`."""
    return tuple((t.letter, t.expense_percent) for t in technology_params(scenario).technologies)


def effective_efficiency(scenario: Scenario, state: GameState, rr: Railroad) -> int:
    """4.6, 4.17 Efficiency as it works: never above the locomotive's maximum."""
    return min(rr.efficiency, max_efficiency(scenario, rr, state.best_locomotive))


# --- random events ------------------------------------------------------------


def event_permille(scenario: Scenario, rr: Railroad, event: RandomEventType, eff: int) -> int:
    """11.2 [designed] Chance (per thousand) of `event` for this railroad this turn."""
    return _event_permille(scenario.section("events", EventParams).odds, rr, event, eff)


def _event_permille(odds: EventOdds, rr: Railroad, event: RandomEventType, eff: int) -> int:
    eff_percent = max(odds.min_percent, 100 - (eff - odds.pivot) * odds.percent_per_point)
    influence_cut = min(odds.max_influence_cut, rr.political // max(1, odds.influence_per_percent))
    chance = event.permille * eff_percent * (100 - influence_cut)
    divisor = 10_000
    for letter in event.technologies:
        if letter in rr.technologies:
            chance *= 100 - odds.technology_cut_percent
            divisor *= 100
    return chance // divisor


def _random_events(
    ctx: TurnContext, rr: Railroad, eff: int, revenue: int, draws: list[float]
) -> int:
    """11.2 The railroad's random events this turn, each paid for as it happens;
    returns their total cost. Each event's chance is `_event_permille`'s, the
    efficiency and influence parts worked out once for all the events."""
    pivot, per_point, least, per_influence, most_cut, tech_cut = ctx.scenario.derived(
        "event_odds", _event_odds
    )
    eff_percent = max(least, 100 - (eff - pivot) * per_point)
    influence_cut = min(most_cut, rr.political // max(1, per_influence))
    odds_part = eff_percent * (100 - influence_cut)
    technologies = rr.technologies
    miles: int | None = None
    total = 0
    events = ctx.scenario.derived("random_events", _event_table)
    for (name, permille, letters, per_mile, revenue_percent), draw in zip(
        events, draws, strict=True
    ):
        chance = permille * odds_part
        divisor = 10_000
        for letter in letters:
            if letter in technologies:
                chance *= 100 - tech_cut
                divisor *= 100
        if draw * 1000 >= chance // divisor:
            continue
        if miles is None:
            miles = track_miles(ctx.scenario, rr)
        cost = per_mile * miles + revenue * revenue_percent // 100
        ctx.transfer(railroad_account(rr.code), BANK, cost, name, rr.code, overdraft=True)
        ctx.emit(RandomEventOccurred(railroad=rr.code, event=name, cost=cost))
        total += cost
    return total


def _event_odds(scenario: Scenario) -> tuple[int, int, int, int, int, int]:
    """events.toml [odds] as `_random_events` reads it."""
    odds = scenario.section("events", EventParams).odds
    return (
        odds.pivot,
        odds.percent_per_point,
        odds.min_percent,
        odds.influence_per_percent,
        odds.max_influence_cut,
        odds.technology_cut_percent,
    )


def _event_table(scenario: Scenario) -> tuple[tuple[str, int, tuple[str, ...], int, int], ...]:
    """events.toml's events in order, each as (name, permille, technologies
    that cut its chance, cost per mile, cost as % of revenue)."""
    return tuple(
        (e.name, e.permille, tuple(e.technologies), e.cost_per_mile, e.cost_revenue_percent)
        for e in scenario.section("events", EventParams).events
    )


# --- 4.11 insolvency ----------------------------------------------------------


def _loan_called(ctx: TurnContext, rr: Railroad) -> bool:
    """4.11 [designed, issue 12: railroads never failed] In a turn the climate
    fell `call_fall` levels or more the bank calls in every railroad's short
    loan after operations: it is repaid from cash, and what cash cannot pay is
    a deficit the railroad must cover with bonds or be reorganized (the bank
    lends it nothing new this turn). Returns True if a loan was called."""
    params = operations_params(ctx.scenario).insolvency
    if rr.loan <= 0 or ctx.state.climate - ctx.start.climate < params.call_fall:
        return False
    amount = rr.loan
    ctx.transfer(
        railroad_account(rr.code), BANK, amount, "short loan called", rr.code, overdraft=True
    )
    rr.loan = 0
    ctx.emit(
        RailroadDebtChanged(
            railroad=rr.code,
            position=rr.president,
            action="loan_called",
            amount=amount,
            bonds=rr.bonds,
            loan=rr.loan,
        )
    )
    return True


def _settle_insolvency(ctx: TurnContext, rr: Railroad, short_loan: bool = True) -> bool:
    """4.11 [designed] Cash below zero after operations: a forced short loan
    (unless the bank called the loan in this turn), then forced bonds, within
    the limits; beyond them the railroad is reorganized. Returns True if it
    was reorganized."""
    deficit = -rr.cash
    loan = min(deficit, loan_room(ctx.scenario, rr)) if short_loan else 0
    if loan > 0:
        take_loan(ctx, rr, loan, "loan_forced")
        deficit -= loan
    bonds = min(deficit, bond_room(ctx.scenario, rr))
    if bonds > 0:
        issue_bonds(ctx, rr, bonds, "bonds_forced")
        deficit -= bonds
    if deficit <= 0:
        return False
    params = operations_params(ctx.scenario).insolvency
    price = max(params.min_price, rr.price * params.price_percent // 100)
    new_shares = -(-deficit // price)
    ctx.transfer(BANK, railroad_account(rr.code), new_shares * price, "reorganization", rr.code)
    written_bonds = rr.bonds * params.writedown_percent // 100
    written_loan = rr.loan * params.writedown_percent // 100
    rr.bonds -= written_bonds
    rr.loan -= written_loan
    rr.issued += new_shares
    rr.authorized += new_shares
    rr.price = price
    ctx.emit(
        RailroadReorganized(
            railroad=rr.code,
            president=rr.president,
            deficit=deficit,
            new_shares=new_shares,
            price=price,
            debt_written_off=written_bonds + written_loan,
        )
    )
    return True


# --- 4.12 dividends -----------------------------------------------------------


def _dividend_orders(ctx: TurnContext) -> dict[str, tuple[int, SetDividend]]:
    """The president's dividend order per railroad; a later order replaces an earlier."""
    chosen: dict[str, tuple[int, SetDividend]] = {}
    for position, order in ctx.orders_of_kind("dividend"):
        assert isinstance(order, SetDividend)
        rr = ctx.state.railroads.get(order.railroad)
        if rr is None:
            ctx.reject(
                position,
                order,
                reasons.UNKNOWN_RAILROAD,
                f"There is no railroad {order.railroad} (merged away or misspelt).",
            )
        elif rr.president != position:
            ctx.reject(
                position,
                order,
                reasons.NOT_PRESIDENT,
                f"Only the president of {order.railroad} sets its dividend.",
            )
        else:
            if order.railroad in chosen:
                earlier = chosen[order.railroad]
                ctx.reject(
                    earlier[0],
                    earlier[1],
                    reasons.DUPLICATE_ORDER,
                    f"A later dividend order for {order.railroad} replaced this one.",
                )
            chosen[order.railroad] = (position, order)
    return chosen


def reasonable_dividend(scenario: Scenario, rr: Railroad, profit: int) -> int:
    """4.12 [designed] The rate a railroad without a player's dividend order sets:
    a share of the turn's profit, keeping a cash reserve."""
    if rr.issued <= 0 or profit <= 0:
        return 0
    params = railroad_params(scenario).dividends
    reserve = params.reserve_per_mile * track_miles(scenario, rr)
    by_profit = profit * params.payout_percent // 100 // rr.issued
    by_cash = max(0, rr.cash - reserve) // rr.issued
    return min(99, by_profit, by_cash)


def _pay_dividends(ctx: TurnContext, rr: Railroad, per_share: int, books: list[_Book]) -> int:
    """4.12 Pay `per_share` to the holders at the end of trading and the public;
    short sellers pay it on the shares they owe. Returns what the railroad paid."""
    if per_share <= 0:
        return 0
    paid = 0
    held = 0
    code = rr.code
    account = railroad_account(code)
    for _, position, holdings, _ in books:
        shares = holdings.get(code, 0)
        if shares <= 0:
            continue
        held += shares
        amount = shares * per_share
        ctx.transfer(account, tycoon_account(position), amount, "dividend", code)
        paid += amount
        ctx.emit(
            _dividend_received(
                {
                    "position": position,
                    "railroad": code,
                    "shares": shares,
                    "per_share": per_share,
                    "amount": amount,
                }
            )
        )
    public = max(0, rr.issued - held) * per_share
    ctx.transfer(account, BANK, public, "dividend to the public", code)
    paid += public
    for tycoon, _, _, shorts in books:
        owed = shorts.get(code, 0)
        if owed <= 0:
            continue
        # A short seller with too little cash pays what he has; the lender's
        # claim on the rest lapses rather than creating debt outside the rules.
        amount = min(owed * per_share, tycoon.cash)
        ctx.transfer(tycoon_account(tycoon.position), BANK, amount, "dividend on short", rr.code)
        ctx.emit(
            ShortDividendCharged(
                position=tycoon.position,
                railroad=rr.code,
                shares=owed,
                per_share=per_share,
                amount=amount,
            )
        )
    return paid


# --- the step -----------------------------------------------------------------


def operations(ctx: TurnContext) -> None:
    """4.10-4.12 Operations, random events, interest, insolvency and dividends,
    railroad by railroad in code order."""
    orders = _dividend_orders(ctx)
    war = civil_war_params(ctx.scenario)
    # Each tycoon with his position, holdings and short sales, read once for
    # every railroad's dividend (operations change no holdings).
    books = [(t, t.position, t.holdings, t.shorts) for t in ctx.state.tycoons]
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        if ctx.turn in war.turns and any(
            war_percent(ctx.scenario, line, ctx.turn) == war.southern_revenue_percent
            for line in rr.lines
        ):
            floor = railroad_params(ctx.scenario).efficiency.floor
            rr.efficiency = max(floor, rr.efficiency - war.southern_efficiency_loss)
        _operate(ctx, rr, orders.get(code), books)


def _operate(
    ctx: TurnContext, rr: Railroad, order: tuple[int, SetDividend] | None, books: list[_Book]
) -> None:
    account = railroad_account(rr.code)
    event_params = ctx.params("events", EventParams)
    stream = ctx.rng(f"random-events/{rr.code}")
    draws = [stream.random() for _ in event_params.events]
    lines = line_revenues(ctx.scenario, ctx.state, rr, ctx.start.climate, ctx.turn)
    traffic = sum(line.traffic for line in lines)
    revenue = sum(line.net for line in lines)
    eff = effective_efficiency(ctx.scenario, ctx.state, rr)
    expense = operating_expense(ctx.scenario, rr, traffic, eff)
    ctx.transfer(BANK, account, revenue, "revenue", rr.code)
    ctx.transfer(account, BANK, expense, "operating expense", rr.code, overdraft=True)
    bond_rate = railroad_params(ctx.scenario).debt.bond_rate_percent
    interest = interest_up(rr.bonds, bond_rate) + interest_up(rr.loan, loan_rate(ctx))
    ctx.transfer(account, BANK, interest, "interest", rr.code, overdraft=True)
    event_costs = _random_events(ctx, rr, eff, revenue, draws)
    salary = _pay_salary(ctx, rr, revenue - expense - interest - event_costs)
    profit = revenue - expense - interest - event_costs - salary
    called = _loan_called(ctx, rr)
    reorganized = rr.cash < 0 and _settle_insolvency(ctx, rr, short_loan=not called)
    per_share = 0
    if not reorganized and rr.issued > 0:
        per_share = _dividend_rate(ctx, rr, order, profit, books)
    elif reorganized and order is not None and order[1].per_share > 0:
        ctx.reject(
            order[0],
            order[1],
            reasons.NOT_ALLOWED_NOW,
            f"{rr.code} was reorganized this turn and pays no dividend.",
        )
    paid = _pay_dividends(ctx, rr, per_share, books)
    rr.dividend = per_share
    rr.earnings = _per_share(profit, rr.issued)
    ctx.emit(
        _operations_result(
            {
                "railroad": rr.code,
                "revenue": revenue,
                "expense": expense,
                "interest": interest,
                "event_costs": event_costs,
                "salary": salary,
                "profit": profit,
                "dividend_per_share": per_share,
                "dividends_paid": paid,
                "efficiency": eff,
                "track": track_miles(ctx.scenario, rr),
                "president": rr.president,
            }
        )
    )


def president_salary(scenario: Scenario, rr: Railroad, earned: int) -> int:
    """4.10 [designed] The president's salary: a share of the turn's profit
    before it, rounded down; nothing without a president, a profit or cash."""
    if rr.president is None or earned <= 0 or rr.cash <= 0:
        return 0
    percent = operations_params(scenario).salary.profit_percent
    return min(rr.cash, earned * percent // 100)


def _pay_salary(ctx: TurnContext, rr: Railroad, earned: int) -> int:
    """4.10 Pay the president his salary from the railroad's cash; returns it."""
    salary = president_salary(ctx.scenario, rr, earned)
    if salary > 0 and rr.president is not None:
        ctx.transfer(
            railroad_account(rr.code), tycoon_account(rr.president), salary, "salary", rr.code
        )
    return salary


def _per_share(amount: int, shares: int) -> int:
    """9.3 Pft/sh: rounded toward zero, so a loss reads as large as a profit."""
    if shares <= 0:
        return 0
    per = abs(amount) // shares
    return per if amount >= 0 else -per


def paying_shares(state: GameState, rr: Railroad) -> int:
    """Shares a dividend is paid on: the issued shares, or the players' holdings
    if short sales have pushed them above the shares issued."""
    code = rr.code
    held = sum([t.holdings.get(code, 0) for t in state.tycoons])
    return max(rr.issued, held)


def _dividend_rate(
    ctx: TurnContext,
    rr: Railroad,
    order: tuple[int, SetDividend] | None,
    profit: int,
    books: list[_Book],
) -> int:
    """4.12 The president's rate, cut to what the cash allows; without an order,
    the reasonable rate [designed]."""
    code = rr.code
    # `paying_shares`, from the holdings read once for the step.
    shares = max(rr.issued, sum([holdings.get(code, 0) for _, _, holdings, _ in books]))
    affordable = min(99, max(0, rr.cash) // shares)
    if order is None:
        return min(affordable, reasonable_dividend(ctx.scenario, rr, profit))
    position, wanted = order
    if wanted.per_share <= affordable:
        return wanted.per_share
    ctx.reject(
        position,
        wanted,
        reasons.CUT_TO_AFFORDABLE,
        f"{rr.code} had {money(rr.cash)} after operations: at most {money(affordable)} a share.",
        cut_to=SetDividend(railroad=rr.code, per_share=affordable),
    )
    return affordable
