"""The planner's railroads (rule 3.1): what a computer-played tycoon orders
for each railroad he presides (dividends, money, building, improvements,
technologies, double tracking, mergers) and the rights-of-way it bids for."""

import heapq
import math
import random
from collections.abc import Callable
from typing import Any, NamedTuple

from turnproc.core.models import maker
from turnproc.families.continental_rails.ai.facts import TurnFacts, _no_gains, _town_regions
from turnproc.families.continental_rails.ai.params import GeneralParams, Personality
from turnproc.families.continental_rails.ai.view import _changed
from turnproc.families.continental_rails.engine import network
from turnproc.families.continental_rails.engine.orders import (
    BidForRoW,
    BuildRoW,
    BuyTechnology,
    CapitalImprovement,
    DoubleTrack,
    IssueBonds,
    IssueStock,
    MergeRailroads,
    Order,
    PoliticalDonation,
    RedeemBonds,
    RepayShortLoan,
    SellLand,
    SetDividend,
    TakeShortLoan,
    UpgradeLocomotive,
)
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps import (
    improvements,
    operations,
    railroad_finance,
    rights_of_way,
)
from turnproc.families.continental_rails.engine.steps.railroad_finance import RailroadParams
from turnproc.families.continental_rails.engine.steps.rights_of_way import BuildingParams
from turnproc.scenario.model import Scenario

# The orders a president gives, made by their own validators (`maker`).
_set_dividend = maker(SetDividend)
_issue_bonds = maker(IssueBonds)
_issue_stock = maker(IssueStock)
_capital_improvement = maker(CapitalImprovement)
# A president's wanted orders (`_Wanted`), made the same way when given.
_WANTED_MAKERS: dict[Callable[..., Order], Callable[[dict[str, Any]], Order]] = {
    cls: maker(cls)
    for cls in (
        BuildRoW,
        CapitalImprovement,
        UpgradeLocomotive,
        BuyTechnology,
        DoubleTrack,
        BidForRoW,
        PoliticalDonation,
    )
}


class _Wanted(NamedTuple):
    """A railroad order its president would give if the money allows, and its
    cost; the order itself (`make(railroad=..., **fields)`, by its validator
    in `_WANTED_MAKERS`) is made only when given, as most are not."""

    make: Callable[..., Order]
    fields: dict[str, Any]
    cost: int


def _round_down(amount: int, step: int) -> int:
    return max(0, amount // step * step)


class _RailroadPlanner:
    """The part of a tycoon's plan for the railroads he presides; the planner
    (`planner._Planner`) sets what it reads."""

    scenario: Scenario
    state: GameState
    facts: TurnFacts
    g: GeneralParams
    persona: Personality
    rand: random.Random
    rr_params: RailroadParams
    building: BuildingParams
    presides: list[str]
    bad_times: bool
    good_times: bool

    def _miles(self, rr: Railroad) -> int:
        return self.facts.miles(rr)

    def build_cost(self, code: str) -> int:
        """4.6 What laying track on RoW `code` costs in the starting climate."""
        return self.facts.build_cost(code)

    def _expected_profit(self, rr: Railroad) -> int:
        """4.10 This turn's operating profit as the president can foresee it: the
        lines' revenue in the starting climate less operating expense, interest
        and the president's salary."""
        lines = operations.line_revenues(
            self.scenario, self.state, rr, self.state.climate, self.state.turn
        )
        traffic = sum(line.traffic for line in lines)
        revenue = sum(line.net for line in lines)
        efficiency = operations.effective_efficiency(self.scenario, self.state, rr)
        expense = operations.operating_expense(self.scenario, rr, traffic, efficiency)
        bond_rate = self.rr_params.debt.bond_rate_percent
        interest = (rr.bonds * bond_rate + rr.loan * self.facts.loan_rate) // 100
        earned = revenue - expense - interest
        percent = self.facts.salary_percent
        salary = earned * percent // 100 if earned > 0 and rr.president is not None else 0
        return earned - salary

    def _is_west(self, code: str) -> bool:
        return operations.is_western(self.scenario, code)

    def _railroad_orders(self, rr: Railroad) -> list[Order]:
        """10.2 A president's orders: dividend, finance, building, improvements, mergers."""
        persona = self.persona
        scenario = self.scenario
        orders: list[Order] = []
        cash = rr.cash
        if rr.land > 0:
            orders.append(SellLand(railroad=rr.code, acres=rr.land))
        leveraged = persona.leverages_railroads and not self.bad_times
        if rr.loan > 0 and cash > rr.loan and not leveraged:
            orders.append(RepayShortLoan(railroad=rr.code, amount=rr.loan))
            cash -= rr.loan
        milking = leveraged and self.good_times
        if milking:
            # It borrows all the bank and bondholders will lend and pays out
            # what it does not spend: rich dividends while times are good, a
            # railroad a sharp downturn can break (4.11).
            room = _round_down(railroad_finance.loan_room(scenario, rr), 10)
            if room > 0:
                orders.append(TakeShortLoan(railroad=rr.code, amount=room))
                cash += room
            bonds = _round_down(railroad_finance.bond_room(scenario, rr), 10)
            if bonds > 0:
                orders.append(_issue_bonds({"railroad": rr.code, "amount": bonds}))
                cash += bonds

        dividend = 0
        profit = self._expected_profit(rr)
        if rr.issued > 0 and profit > 0:
            # Pay out the personality's share of the profit, and at least the
            # yield that keeps the stock healthy while the profit covers it.
            by_yield = -(-rr.price * persona.dividend_yield_percent // 100)
            by_profit = profit * persona.payout_percent // 100 // rr.issued
            dividend = min(99, max(by_profit, min(by_yield, profit // rr.issued)))
        dividend_order = len(orders)
        orders.append(_set_dividend({"railroad": rr.code, "per_share": dividend}))

        budget = max(0, cash * persona.build_percent // 100)
        unbudgeted = cash - budget
        wanted: list[_Wanted] = []

        # Track is laid before improvements are bought, so they are priced on
        # the railroad as it will be after building (4.6, then 4.15-4.18).
        network_routes = list(rr.lines)
        reached = set(self.facts.line_towns(rr))
        for row in sorted(rr.rows):
            route = scenario.routes[row]
            if route.a in reached or route.b in reached:
                wanted.append(_Wanted(BuildRoW, {"row": row}, self.build_cost(row)))
                network_routes.append(row)
                reached.update(route.towns)
        built = (
            rr if len(network_routes) == len(rr.lines) else _changed(rr, {"lines": network_routes})
        )

        # Efficiency wears away each turn; a capital improvement keeps it up.
        ceiling = railroad_finance.max_efficiency(scenario, rr, self.state.best_locomotive)
        target = min(persona.target_efficiency, ceiling)
        built_miles = railroad_finance.track_miles(scenario, built)
        one_point = improvements.point_cost(scenario, built, rr.efficiency, built_miles)
        if rr.efficiency < ceiling:
            # Any improvement stops this turn's wear; below target, buy up to it.
            points = max(1, target - rr.efficiency)
            cost = improvements.points_cost(scenario, built, rr.efficiency, points, built_miles)
            wanted.append(_Wanted(CapitalImprovement, {"amount": cost}, cost))

        best = self.state.best_locomotive
        if best > rr.locomotive:
            cost = improvements.upgrade_cost(scenario, built, best)
            wanted.append(_Wanted(UpgradeLocomotive, {"locomotive": best}, cost))

        turns_left = self.g.expected_last_turn - self.state.turn
        tech = next(
            (t for t in self.state.technologies_available if t not in rr.technologies), None
        )
        if tech is not None and turns_left >= self.g.tech_min_turns_left:
            purchase = self._technology(rr, built, tech)
            if purchase is not None:
                wanted.append(purchase)

        wanted += self._row_bids(rr)
        if self.good_times:
            wanted += self._double_tracking(rr, cash)

        # Builders lay track first; everyone keeps efficiency and engines current.
        if persona.build_percent >= 90:
            wanted.sort(key=lambda item: item.make not in (BuildRoW, BidForRoW))
        total = sum(item.cost for item in wanted)
        if total > budget:
            finance, raised = self._raise_money(rr, total - budget)
            orders += finance
            budget += raised
        laid = set(self.facts.line_towns(rr))
        for item in wanted:
            cost = item.cost
            if item.make is BuildRoW:
                # A RoW skipped for money leaves the ones beyond it unconnected.
                route = scenario.routes[item.fields["row"]]
                if cost > budget or (route.a not in laid and route.b not in laid):
                    continue
                laid.update(route.towns)
            if cost <= budget:
                orders.append(_WANTED_MAKERS[item.make]({"railroad": rr.code, **item.fields}))
                budget -= cost
            elif item.make is CapitalImprovement and budget >= one_point:
                orders.append(_capital_improvement({"railroad": rr.code, "amount": budget}))
                budget = 0
        if milking and rr.issued > 0:
            reserve = self.rr_params.dividends.reserve_per_mile * self._miles(rr)
            payout = (unbudgeted + budget + max(0, profit) - reserve) // rr.issued
            orders[dividend_order] = _set_dividend(
                {"railroad": rr.code, "per_share": min(99, max(dividend, payout))}
            )
        elif rr.bonds > 0 and not self.bad_times and budget > rr.bonds * 2:
            orders.append(RedeemBonds(railroad=rr.code, amount=rr.bonds))
        return orders

    def _technology(self, rr: Railroad, built: Railroad, tech: str) -> "_Wanted | None":
        """4.18 The next technology; a Grand Station only in a size-4/5 town
        the railroad reached at the start of the turn."""
        cost = improvements.technology_cost(self.scenario, built, tech)
        if tech != "A":
            return _Wanted(BuyTechnology, {"technology": tech}, cost)
        towns = improvements.grand_station_towns(self.scenario, rr)
        if rr.grand_station is not None or not towns:
            return None
        return _Wanted(BuyTechnology, {"technology": tech, "town": towns[0]}, cost)

    def _raise_money(self, rr: Railroad, shortfall: int) -> tuple[list[Order], int]:
        """4.3-4.4 Bonds in fair weather (half the room left), new stock when
        times and the price are good."""
        raised = 0
        if self.bad_times:
            return [], 0
        orders: list[Order] = []
        room = railroad_finance.bond_room(self.scenario, rr) // 2
        amount = _round_down(min(room, shortfall), 10)
        if amount > 0:
            orders.append(_issue_bonds({"railroad": rr.code, "amount": amount}))
            raised += amount
            shortfall -= amount
        least = max(self.rr_params.stock_issue.min_price, self.g.issue_min_price)
        if shortfall > 0 and rr.price >= least and self.good_times:
            net_price = max(1, railroad_finance.issue_price(self.scenario, rr))
            shares = min(
                railroad_finance.max_new_shares(
                    self.scenario, rr, self.state.climate, self.state.turn
                )
                // 2,
                -(-shortfall // net_price),
            )
            if shares > 0:
                orders.append(_issue_stock({"railroad": rr.code, "shares": shares}))
                raised += shares * net_price
        return orders, raised

    def _double_tracking(self, rr: Railroad, cash: int) -> "list[_Wanted]":
        """4.15 Double track the busiest line not yet doubled, when it pays back
        within a few turns and the railroad has cash to spare."""
        gains = self.scenario.derived("ai_double_track_gains", _no_gains)
        least = self.g.double_track_min_gain
        doubled = rr.double_tracked
        best: tuple[int, str] | None = None
        for code in rr.lines:
            if code in doubled:
                continue
            gain = gains.get(code)
            if gain is None:
                route = self.scenario.routes[code]
                towns = self.scenario.towns
                gain = gains[code] = towns[route.a].value + towns[route.b].value
            if gain >= least and (best is None or gain > best[0]):
                best = (gain, code)
        if best is None:
            return []
        cost = rights_of_way.double_track_cost(self.scenario, best[1], self.state.climate)
        if cost * 2 > cash:
            return []
        return [_Wanted(DoubleTrack, {"line": best[1]}, cost)]

    def _merger(self) -> MergeRailroads | None:
        """4.13 Merge my two railroads when their lines meet: the longer survives."""
        if not self.persona.merges_railroads or len(self.presides) < 2:
            return None
        first, second = (self.state.railroads[code] for code in self.presides[:2])
        survivor, other = sorted((first, second), key=lambda rr: (-self._miles(rr), rr.code))
        touch = self.facts.line_towns(survivor) & self.facts.line_towns(other)
        combined = survivor.lines + survivor.rows + other.lines + other.rows
        if touch and network.prohibited_reason(self.scenario, combined) is None:
            return MergeRailroads(railroad=survivor.code, other=other.code)
        return None

    # -- rights-of-way -------------------------------------------------------------

    def _row_bids(self, rr: Railroad) -> "list[_Wanted]":
        """4.7 Bid for the first RoW on the cheapest way to a region not yet linked."""
        auction = self.building.auction
        slots = auction.max_unbuilt_rows - len(rr.rows)
        if slots <= 0:
            return []
        paths = self._paths_to_new_regions(rr, min(slots, 2))
        bids: list[_Wanted] = []
        chosen: set[str] = set()
        for first, keen in paths:
            if first in chosen or len(bids) >= min(slots, 2):
                continue
            minimum = rights_of_way.min_bid(self.scenario, first)
            percent = self.g.row_bid_percent[min(keen, len(self.g.row_bid_percent) - 1)]
            amount = minimum * percent // 100 * self.rand.randint(100, 130) // 100
            bids.append(_Wanted(BidForRoW, {"row": first, "amount": amount}, amount))
            chosen.add(first)
            if self._contested(rr, first):
                # Playing tips: spend for political influence when another
                # railroad connects to the RoW you want (4.9; it counts next turn).
                gift = minimum * self.g.donation_percent // 100
                bids.append(_Wanted(PoliticalDonation, {"amount": gift}, gift))
        return bids

    def _contested(self, rr: Railroad, row: str) -> bool:
        """Whether another railroad's lines touch RoW `row`."""
        route = self.scenario.routes[row]
        at = self.facts.railroads_at
        return any(other.code != rr.code for other in (*at(route.a), *at(route.b)))

    def _paths_to_new_regions(self, rr: Railroad, wanted: int) -> list[tuple[str, int]]:
        """First RoWs of the shortest open paths from the railroad to starred towns
        of regions it does not link, best first, with how keen it is (0-2).

        Only the `wanted` best first RoWs are sure to be found: the search
        stops once no path further out can rank above them (a path's worth
        falls with its length), so the list may end sooner than the map's."""
        scenario = self.scenario
        routes = rr.lines + rr.rows
        mine = self.facts.line_towns(rr) | network.towns_of(scenario, rr.rows)
        region_of = _town_regions(scenario)
        # 1.2 The regions it links: those of the starred towns it reaches.
        have = {region for town in mine if (region := region_of[town])}
        no_through = set(scenario.section("map", network.MapParams).no_through)
        # Towns through which the railroad already runs its one allowed route.
        blocked = {t for t in no_through if t in mine}
        doubles = {scenario.routes[code].double_with for code in routes} - {None}
        # Routes it may not bid for: owned or western before the west opens
        # (left out of the map searched), or the twin of one of its own (`doubles`).
        adjacency = self.facts.open_adjacency()
        limit = self.g.row_search_limit
        first_links = self.state.first_region_links
        dist: dict[str, int] = {}
        first_edge: dict[str, str | None] = {}
        heap: list[tuple[int, str]] = []
        for town in sorted(mine):
            if town in no_through:
                continue
            dist[town] = 0
            first_edge[town] = None
            heapq.heappush(heap, (0, town))
        found: list[tuple[float, str, int]] = []
        # The best worth found through each first RoW, and the `wanted`-th
        # best of those: a path of length d is worth at most 2000 / (d + 100).
        best_by_first: dict[str, float] = {}
        kth_best = -math.inf
        pop = heapq.heappop
        push = heapq.heappush
        far = math.inf
        distance = dist.get
        while heap:
            d, town = pop(heap)
            if d > dist[town]:
                continue
            if kth_best > 2.0 * 1000 / (d + 100):
                break  # nothing from here on can rank among the `wanted` best
            first = first_edge[town]
            if d > 0:
                region = region_of[town]
                if region and region not in have:
                    value = 2.0 if region not in first_links else 1.0
                    if first is not None:
                        worth = value * 1000 / (d + 100)
                        found.append((worth, first, 2 if d < 250 else 1))
                        if worth > best_by_first.get(first, -math.inf):
                            best_by_first[first] = worth
                            if len(best_by_first) >= wanted:
                                kth_best = sorted(best_by_first.values())[-wanted]
                if town in no_through:
                    continue  # a path may end in Chicago, never run through it
            for code, other, length in adjacency[town]:
                if code in doubles or other in blocked:
                    continue
                nd = d + length
                # Towns beyond the limit are never reached: no need to queue them.
                if nd <= limit and nd < distance(other, far):
                    dist[other] = nd
                    first_edge[other] = first or code
                    push(heap, (nd, other))
        found.sort(key=lambda item: (-item[0], item[1]))
        if found:
            return [(first, keen) for _, first, keen in found]
        # Nothing new within reach: grow toward the biggest town next door.
        best = []
        for town in sorted(mine - no_through):
            for code, other, _ in adjacency[town]:
                if code in doubles or other in blocked:
                    continue
                if other in mine:
                    continue
                best.append((-scenario.towns[other].value, code))
        best.sort()
        return [(code, 0) for _, code in best[:1]]
