"""Improvements: double track, locomotives, technologies, efficiency, political
donations and rate wars (rules 4.6, 4.9, 4.15-4.18)."""

from typing import Literal

from turnproc.core.ledger import BANK, railroad_account
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import network, reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import (
    BuyTechnology,
    CapitalImprovement,
    DeclareRateWar,
    DoubleTrack,
    Order,
    PoliticalDonation,
    UpgradeLocomotive,
)
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.families.continental_rails.engine.steps.operations import (
    at_war,
    is_western,
    technology_params,
)
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    max_efficiency,
    president_orders,
    railroad_params,
    track_miles,
)
from turnproc.families.continental_rails.engine.steps.rights_of_way import double_track_cost
from turnproc.scenario.model import Scenario

# --- events -------------------------------------------------------------------


class LocomotiveUpgraded(Event):
    """4.17 A railroad bought better locomotives ("new engines")."""

    kind: Literal["locomotive_upgraded"] = "locomotive_upgraded"
    locomotive: int
    previous: int
    cost: int
    # What the cost was worked out from: per mile and type up, and the track
    # miles when bought (after this turn's building). 0: not recorded.
    per_mile: int = 0
    miles: int = 0
    news_order = 40


class TechnologyBought(Event):
    """4.18 A railroad bought a technology."""

    kind: Literal["technology_bought"] = "technology_bought"
    technology: str
    cost: int
    town: str | None = None  # a Grand Station's town
    # As for locomotives; 0 for a Grand Station, whose price is flat.
    per_mile: int = 0
    miles: int = 0
    news_order = 50


class LineDoubleTracked(Event):
    """4.15 A line double-tracked."""

    kind: Literal["line_double_tracked"] = "line_double_tracked"
    line: str
    cost: int
    news_order = 70


class CapitalImprovementMade(Event):
    """4.6 Capital improvements: money spent and efficiency reached."""

    kind: Literal["capital_improvement"] = "capital_improvement"
    visibility: Literal["public", "private"] = "private"
    amount: int
    points: int
    efficiency: int
    news_order = 910


class PoliticalDonationMade(Event):
    """4.9 A political donation and the influence it leaves."""

    kind: Literal["political_donation"] = "political_donation"
    visibility: Literal["public", "private"] = "private"
    amount: int
    influence: int
    news_order = 910


class RateWarDeclared(Event):
    """4.16 A rate war: both railroads cut rates on their parallel lines."""

    kind: Literal["rate_war"] = "rate_war"
    rival: str
    percent: int
    lines: list[str]  # the declaring railroad's parallel lines
    news_order = 160


class EfficiencyChanged(Event):
    """4.6, 4.17 Wear, or a cap from lagging locomotives, lowered efficiency."""

    kind: Literal["efficiency_changed"] = "efficiency_changed"
    visibility: Literal["public", "private"] = "private"
    before: int
    after: int
    cause: str  # "wear" or "locomotive_lag"
    news_order = 910


class LocomotiveAvailable(Event):
    """4.17 A new locomotive type can be bought from next turn."""

    kind: Literal["locomotive_available"] = "locomotive_available"
    locomotive: int
    news_order = 170


class TechnologyAvailable(Event):
    """4.18 A new technology can be bought from next turn."""

    kind: Literal["technology_available"] = "technology_available"
    technology: str
    news_order = 170


# --- pure calculations --------------------------------------------------------


def upgrade_cost(scenario: Scenario, rr: Railroad, locomotive: int) -> int:
    """4.17 $10 x (new type - old type) per mile of track [original]."""
    per_mile = technology_params(scenario).upgrade_cost_per_mile
    return per_mile * (locomotive - rr.locomotive) * track_miles(scenario, rr)


def technology_cost(scenario: Scenario, rr: Railroad, letter: str) -> int:
    """4.18 $10 per mile of track; a Grand Station a flat $10,000 [original]."""
    params = technology_params(scenario)
    if letter == "A":
        return params.grand_station_cost
    return params.technology_cost_per_mile * track_miles(scenario, rr)


def per_mile_basis(per_mile: int, miles: int, types: int = 1) -> str:
    """4.17, 4.18 What a cost by the mile of track is made of, in the words the
    turnsheet, the receipt and the report all use: it grows with the track a
    railroad builds before it buys (building comes first, Appendix C)."""
    by_type = f" × {types} types" if types > 1 else ""
    return f"{money(per_mile)} a mile{by_type} × {miles:,} miles of track"


def cost_basis(scenario: Scenario, rr: Railroad, order: Order) -> str:
    """The `per_mile_basis` of a LOCOMOTIVE or TECHNOLOGY order for `rr` as it
    stands ("" for a flat price or another order)."""
    params = technology_params(scenario)
    miles = track_miles(scenario, rr)
    if isinstance(order, UpgradeLocomotive) and order.locomotive > rr.locomotive:
        types = order.locomotive - rr.locomotive
        return per_mile_basis(params.upgrade_cost_per_mile, miles, types)
    if isinstance(order, BuyTechnology) and order.technology != "A":
        return per_mile_basis(params.technology_cost_per_mile, miles)
    return ""


def grand_station_towns(scenario: Scenario, rr: Railroad | None) -> list[str]:
    """4.18 Towns of size 4 or 5 on the railroad's lines, biggest first."""
    if rr is None:
        return []
    size = technology_params(scenario).grand_station_min_size
    towns = [
        t
        for t in network.towns_of(scenario, rr.lines)
        if t in scenario.towns and scenario.towns[t].size >= size
    ]
    return sorted(towns, key=lambda t: (-scenario.towns[t].size, t))


def point_cost(scenario: Scenario, rr: Railroad, efficiency: int, miles: int | None = None) -> int:
    """4.6 [designed] Cost of raising efficiency one point from `efficiency`;
    `miles`, when given, is the railroad's `track_miles` (worked out once for
    many points)."""
    params = railroad_params(scenario).efficiency
    multiplier = 1
    for threshold, factor in params.cost_steps:
        if efficiency >= threshold:
            multiplier = factor
    if miles is None:
        miles = track_miles(scenario, rr)
    return max(1, miles * params.point_cost_per_mile * multiplier)


def points_cost(
    scenario: Scenario, rr: Railroad, efficiency: int, points: int, miles: int | None = None
) -> int:
    """4.6 [designed] Cost of raising efficiency `points` points from
    `efficiency`, one point at a time: the sum of each point's `point_cost`,
    the parameters read once for all of them."""
    params = railroad_params(scenario).efficiency
    steps = params.cost_steps
    per_mile = params.point_cost_per_mile
    if miles is None:
        miles = track_miles(scenario, rr)
    total = 0
    for level in range(efficiency, efficiency + points):
        multiplier = 1
        for threshold, factor in steps:
            if level >= threshold:
                multiplier = factor
        total += max(1, miles * per_mile * multiplier)
    return total


# --- the step -----------------------------------------------------------------


def improvements(ctx: TurnContext) -> None:
    """4.6, 4.9, 4.15-4.18 Double tracking, locomotive upgrades, technologies,
    capital improvements, political donations and rate wars, each president's
    orders in the order written (all cash only [original])."""
    decay = railroad_params(ctx.scenario).political.decay_percent
    for rr in ctx.state.railroads.values():
        rr.political = rr.political * (100 - decay) // 100
        # 4.16 [designed] a rate war lasts the turn it is declared in.
        rr.rate_wars = {}
    improved: set[str] = set()
    upgraded: set[str] = set()
    teched: set[str] = set()
    kinds = (
        "double_track",
        "upgrade_locomotive",
        "buy_technology",
        "capital_improvement",
        "political_donation",
        "rate_war",
    )
    for position, order, rr in president_orders(ctx, *kinds):
        # An amount of $0 asks for nothing and is passed over (as bank loans, 3.4).
        if getattr(order, "amount", None) == 0:
            continue
        if isinstance(order, DoubleTrack):
            _double_track(ctx, position, order, rr)
        elif isinstance(order, UpgradeLocomotive):
            _upgrade(ctx, position, order, rr, upgraded)
        elif isinstance(order, BuyTechnology):
            _technology(ctx, position, order, rr, teched)
        elif isinstance(order, CapitalImprovement):
            if _capital_improvement(ctx, position, order, rr):
                improved.add(rr.code)
        elif isinstance(order, PoliticalDonation):
            _donation(ctx, position, order, rr)
        elif isinstance(order, DeclareRateWar):
            _rate_war(ctx, position, order, rr)
    _upkeep_without_president(ctx, improved)
    _wear(ctx, improved)
    _cap(ctx)


def _afford(ctx: TurnContext, position: int, order: Order, rr: Railroad, cost: int) -> bool:
    if rr.cash >= cost:
        return True
    basis = cost_basis(ctx.scenario, rr, order)
    ctx.reject(
        position,
        order,
        reasons.INSUFFICIENT_CASH,
        f"This costs {money(cost)}{f' ({basis})' if basis else ''}, paid from cash only; "
        f"{rr.code} has {money(rr.cash)}.",
    )
    return False


def _double_track(ctx: TurnContext, position: int, order: DoubleTrack, rr: Railroad) -> None:
    """4.15 Double tracking a line: cash only, 25% of the per-mile building cost."""
    line = order.line
    if line not in rr.lines:
        ctx.reject(position, order, reasons.NOT_OWNER, f"{line} is not a line of {rr.code}.")
        return
    if line in rr.double_tracked:
        ctx.reject(position, order, reasons.ALREADY_DONE, f"{line} is already double-tracked.")
        return
    if at_war(ctx) and is_western(ctx.scenario, line):
        ctx.reject(
            position,
            order,
            reasons.NOT_ALLOWED_NOW,
            f"No western building during the Civil War; double-track {line} after the war.",
        )
        return
    cost = double_track_cost(ctx.scenario, line, ctx.start.climate)
    if not _afford(ctx, position, order, rr, cost):
        return
    ctx.transfer(railroad_account(rr.code), BANK, cost, "double track", ref=line)
    rr.double_tracked.append(line)
    ctx.emit(LineDoubleTracked(railroad=rr.code, line=line, cost=cost))


def _upgrade(
    ctx: TurnContext, position: int, order: UpgradeLocomotive, rr: Railroad, upgraded: set[str]
) -> None:
    """4.17 One locomotive upgrade a turn, to any type up to the best available."""
    if rr.code in upgraded:
        ctx.reject(position, order, reasons.ALREADY_DONE, f"{rr.code} may upgrade once a turn.")
        return
    best = ctx.state.best_locomotive
    if order.locomotive > best:
        ctx.reject(
            position,
            order,
            reasons.NOT_YET_AVAILABLE,
            f"The best locomotive available is type {best}.",
        )
        return
    if order.locomotive <= rr.locomotive:
        ctx.reject(
            position,
            order,
            reasons.ALREADY_DONE,
            f"{rr.code} already runs type {rr.locomotive}; choose a better type.",
        )
        return
    cost = upgrade_cost(ctx.scenario, rr, order.locomotive)
    if not _afford(ctx, position, order, rr, cost):
        return
    ctx.transfer(railroad_account(rr.code), BANK, cost, "locomotives", ref=rr.code)
    previous = rr.locomotive
    rr.locomotive = order.locomotive
    upgraded.add(rr.code)
    ctx.emit(
        LocomotiveUpgraded(
            railroad=rr.code,
            locomotive=order.locomotive,
            previous=previous,
            cost=cost,
            per_mile=technology_params(ctx.scenario).upgrade_cost_per_mile,
            miles=track_miles(ctx.scenario, rr),
        )
    )


def _technology(
    ctx: TurnContext, position: int, order: BuyTechnology, rr: Railroad, teched: set[str]
) -> None:
    """4.18 One new technology a turn from those available; a Grand Station
    needs a size 4/5 town on the railroad at the start of the turn."""
    letter = order.technology
    if rr.code in teched:
        ctx.reject(
            position, order, reasons.ALREADY_DONE, f"{rr.code} may buy one technology a turn."
        )
        return
    if letter not in ctx.state.technologies_available:
        available = ", ".join(ctx.state.technologies_available)
        ctx.reject(
            position,
            order,
            reasons.NOT_YET_AVAILABLE,
            f"Technology {letter} is not available yet (available: {available}).",
        )
        return
    if letter in rr.technologies:
        ctx.reject(position, order, reasons.ALREADY_DONE, f"{rr.code} already has {letter}.")
        return
    town: str | None = None
    if letter == "A":
        towns = grand_station_towns(ctx.scenario, ctx.start.railroads.get(rr.code))
        if not towns:
            ctx.reject(
                position,
                order,
                reasons.NOT_ALLOWED_NOW,
                f"A Grand Station needs a size 4 or 5 town on {rr.code} at the start of the turn.",
            )
            return
        if order.town is None:
            town = towns[0]
        else:
            wanted = order.town.casefold()
            town = next(
                (
                    t
                    for t in towns
                    if wanted in (t.casefold(), ctx.scenario.towns[t].name.casefold())
                ),
                None,
            )
            if town is None:
                names = ", ".join(ctx.scenario.towns[t].name for t in towns)
                ctx.reject(
                    position,
                    order,
                    reasons.NOT_ALLOWED_NOW,
                    f"{order.town} cannot take {rr.code}'s Grand Station; choose one of {names}.",
                )
                return
    cost = technology_cost(ctx.scenario, rr, letter)
    if not _afford(ctx, position, order, rr, cost):
        return
    ctx.transfer(railroad_account(rr.code), BANK, cost, "technology", ref=letter)
    rr.technologies.append(letter)
    if town is not None:
        rr.grand_station = town
    teched.add(rr.code)
    per_mile = 0 if letter == "A" else technology_params(ctx.scenario).technology_cost_per_mile
    ctx.emit(
        TechnologyBought(
            railroad=rr.code,
            technology=letter,
            cost=cost,
            town=town,
            per_mile=per_mile,
            miles=track_miles(ctx.scenario, rr) if per_mile else 0,
        )
    )


def _capital_improvement(
    ctx: TurnContext, position: int, order: CapitalImprovement, rr: Railroad
) -> bool:
    """4.6 [designed] Buy efficiency points one at a time, dearer as efficiency
    rises, up to the maximum the locomotive allows, from cash only. Returns
    whether any was bought. An order that buys nothing says why: the maximum
    reached, an amount below one point's cost, or too little cash for one."""
    top = max_efficiency(ctx.scenario, rr, ctx.state.best_locomotive)
    miles = track_miles(ctx.scenario, rr)
    if rr.efficiency >= top:
        hint = f"{rr.code} is at its maximum efficiency {top}; a better locomotive raises it."
        ctx.reject(position, order, reasons.ABOVE_MAXIMUM, hint)
        return False
    first = point_cost(ctx.scenario, rr, rr.efficiency, miles)
    if order.amount < first:
        hint = f"One efficiency point for {rr.code} costs {money(first)}."
        ctx.reject(position, order, reasons.BELOW_MINIMUM, hint)
        return False
    if rr.cash < first:
        hint = (
            f"One efficiency point for {rr.code} costs {money(first)}, paid from cash only; "
            f"{rr.code} has {money(rr.cash)}."
        )
        ctx.reject(position, order, reasons.INSUFFICIENT_CASH, hint)
        return False
    budget = min(order.amount, rr.cash)
    if budget < order.amount:
        ctx.reject(
            position,
            order,
            reasons.CUT_TO_AFFORDABLE,
            f"{rr.code} had {money(rr.cash)}.",
            cut_to=CapitalImprovement(railroad=rr.code, amount=budget),
        )
    efficiency = rr.efficiency
    spent = 0
    while efficiency < top:
        cost = point_cost(ctx.scenario, rr, efficiency, miles)
        if spent + cost > budget:
            break
        spent += cost
        efficiency += 1
    if efficiency >= top and spent < budget:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"{rr.code} reached its maximum efficiency {top}; {money(spent)} was spent.",
            cut_to=CapitalImprovement(railroad=rr.code, amount=spent),
        )
    ctx.transfer(railroad_account(rr.code), BANK, spent, "capital improvements", ref=rr.code)
    points = efficiency - rr.efficiency
    rr.efficiency = efficiency
    ctx.emit(
        CapitalImprovementMade(
            railroad=rr.code,
            position=position,
            amount=spent,
            points=points,
            efficiency=efficiency,
        )
    )
    return True


def _donation(ctx: TurnContext, position: int, order: PoliticalDonation, rr: Railroad) -> None:
    """4.9 Political donations: influence for contested RoWs and fewer disasters."""
    amount = min(order.amount, rr.cash)
    if amount <= 0:
        ctx.reject(position, order, reasons.INSUFFICIENT_CASH, f"{rr.code} has no cash.")
        return
    if amount < order.amount:
        ctx.reject(
            position,
            order,
            reasons.CUT_TO_AFFORDABLE,
            f"{rr.code} had {money(rr.cash)}.",
            cut_to=PoliticalDonation(railroad=rr.code, amount=amount),
        )
    ctx.transfer(railroad_account(rr.code), BANK, amount, "political donation", ref=rr.code)
    rr.political += amount
    ctx.emit(
        PoliticalDonationMade(
            railroad=rr.code, position=position, amount=amount, influence=rr.political
        )
    )


def _rate_war(ctx: TurnContext, position: int, order: DeclareRateWar, rr: Railroad) -> None:
    """4.16 A rate war on a rival with parallel routes; the rival matches the cut
    automatically [original]. Lasts this turn [designed]."""
    rival = ctx.state.railroads.get(order.rival)
    if rival is None or rival.code == rr.code:
        ctx.reject(
            position,
            order,
            reasons.UNKNOWN_RAILROAD,
            f"{order.rival} is not a rival railroad.",
        )
        return
    pairs = network.parallel_routes(ctx.scenario, rr.lines, rival.lines)
    if not pairs:
        ctx.reject(
            position,
            order,
            reasons.NOT_CONNECTED,
            f"{rr.code} has no line parallel to a line of {rival.code}.",
        )
        return
    if order.percent <= 0:
        ctx.reject(position, order, reasons.BELOW_MINIMUM, "A rate war cuts rates by 1% or more.")
        return
    percent = max(order.percent, rr.rate_wars.get(rival.code, 0))
    rr.rate_wars[rival.code] = percent
    rival.rate_wars[rr.code] = percent
    ctx.emit(
        RateWarDeclared(
            railroad=rr.code,
            rival=rival.code,
            percent=percent,
            lines=sorted({ours for ours, _ in pairs}),
        )
    )


def _upkeep_without_president(ctx: TurnContext, improved: set[str]) -> None:
    """4.6 [designed] A railroad without a president is run by its managers: they
    buy one point of capital improvements (which stops the wear) when the cash
    above the dividend reserve (4.12) pays for it."""
    reserve_per_mile = railroad_params(ctx.scenario).dividends.reserve_per_mile
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        if rr.president is not None or code in improved:
            continue
        top = max_efficiency(ctx.scenario, rr, ctx.state.best_locomotive)
        cost = point_cost(ctx.scenario, rr, rr.efficiency)
        reserve = reserve_per_mile * track_miles(ctx.scenario, rr)
        if rr.efficiency >= top or rr.cash - cost < reserve:
            continue
        ctx.transfer(railroad_account(code), BANK, cost, "capital improvements", ref=code)
        rr.efficiency += 1
        improved.add(code)
        ctx.emit(
            CapitalImprovementMade(railroad=code, amount=cost, points=1, efficiency=rr.efficiency)
        )


def _wear(ctx: TurnContext, improved: set[str]) -> None:
    """4.6 [designed] Wear: a railroad without capital improvements this turn
    loses efficiency (not in its founding turn)."""
    params = railroad_params(ctx.scenario).efficiency
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        if code in improved or rr.founded_turn == ctx.turn or rr.efficiency <= params.floor:
            continue
        before = rr.efficiency
        rr.efficiency = max(params.floor, rr.efficiency - params.wear)
        ctx.emit(
            EfficiencyChanged(
                railroad=code,
                position=rr.president,
                before=before,
                after=rr.efficiency,
                cause="wear",
            )
        )


def _cap(ctx: TurnContext) -> None:
    """4.17 Efficiency never stays above the maximum the locomotive allows."""
    for code in sorted(ctx.state.railroads):
        rr = ctx.state.railroads[code]
        top = max_efficiency(ctx.scenario, rr, ctx.state.best_locomotive)
        if rr.efficiency > top:
            before = rr.efficiency
            rr.efficiency = top
            ctx.emit(
                EfficiencyChanged(
                    railroad=code,
                    position=rr.president,
                    before=before,
                    after=top,
                    cause="locomotive_lag",
                )
            )


def progress(ctx: TurnContext) -> None:
    """4.17-4.18 New locomotives and technologies become available at the end of
    the turn, per the schedule in technology.toml [designed]."""
    params = technology_params(ctx.scenario)
    next_turn = ctx.turn + 1
    for loco in sorted(params.locomotives, key=lambda lo: lo.type):
        if loco.available_turn <= next_turn and loco.type > ctx.state.best_locomotive:
            ctx.state.best_locomotive = loco.type
            ctx.emit(LocomotiveAvailable(locomotive=loco.type))
    for tech in params.technologies:
        if tech.available_turn <= next_turn and tech.letter not in ctx.state.technologies_available:
            ctx.state.technologies_available.append(tech.letter)
            ctx.emit(TechnologyAvailable(technology=tech.letter))
