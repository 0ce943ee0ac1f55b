"""What every computer player may know of the turn, worked out once for all
of them: public figures only (rule 3.1)."""

from turnproc.families.continental_rails.ai.params import ai_params
from turnproc.families.continental_rails.ai.view import _changed, _hidden
from turnproc.families.continental_rails.engine import network, pcs, valuation
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.setup import pc_asking_price
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps import (
    companies,
    operations,
    railroad_finance,
    rights_of_way,
    victory,
)
from turnproc.families.continental_rails.engine.steps.auctions import AuctionsParams
from turnproc.families.continental_rails.engine.steps.stockmarket import market_params
from turnproc.scenario.model import Scenario


class TurnFacts:
    """What every computer player may know of the turn about to be played,
    worked out once for all of them: each tycoon as the others see him, who
    owns which route, and the railroads' and PCs' public figures the planners
    weigh (a PC's worth, a share's value, where a route may join a railroad).

    Only public data goes in (railroads, PCs, the turn and climate), so one
    position's orders are the same whether or not the facts are shared. Valid
    for the one state it was made from, as long as that state is not changed.
    """

    def __init__(self, scenario: Scenario, state: GameState) -> None:
        self.scenario = scenario
        self.state = state
        self.hidden = [_hidden(t) for t in state.tycoons]
        self.owners = network.route_owners(state)
        # 4.5 What the railroads owe each lender (public: the railroads' loans).
        self.lent = valuation.loans_by_lender(state)
        # PCs anyone may bid for: released, or offered by their owner, at a price.
        self.pcs_on_sale = [
            company
            for company in state.pcs.values()
            if (company.status == "available" or (company.status == "owned" and company.for_sale))
            and company.asking_price > 0
        ]
        # The same as (code, asking price, seller: the owner offering it or
        # None), read once for every seat's bidding.
        self.pcs_for_bids = [
            (
                company.code,
                company.asking_price,
                company.owner if company.status == "owned" else None,
            )
            for company in self.pcs_on_sale
        ]
        # The parameters every seat reads (ai.toml and the engine's sections).
        self.params = ai_params(scenario)
        self.g = self.params.general
        self.market = market_params(scenario)
        self.rr_params = railroad_finance.railroad_params(scenario)
        self.building = rights_of_way.building_params(scenario)
        self.auctions = scenario.section("auctions", AuctionsParams)
        self.at_war = state.turn in operations.civil_war_params(scenario).turns
        self.max_presidencies = companies.max_presidencies(scenario)
        self.loan_rate = scenario.section("climate", ClimateTable).levels[state.climate].loan_rate
        self.salary_percent = operations.operations_params(scenario).salary.profit_percent
        self.prodigal_loan_cover = victory.victory_params(scenario).rail_prodigal.loan_cover_percent
        self._line_towns: dict[str, set[str]] = {}
        self._railroads_at: dict[str, list[Railroad]] | None = None
        self._joinable: dict[str, dict[str, Railroad]] = {}
        self._base_score: dict[str, float] = {}
        self._worth: dict[str, int] = {}
        self._miles: dict[str, int] = {}
        self._value: dict[str, int] = {}
        self._closed: frozenset[str] | None = None
        self._held_routes: dict[
            str, tuple[frozenset[str], frozenset[str], frozenset[str], bool]
        ] = {}
        self._directors_held: dict[str, tuple[int, frozenset[int], int]] | None = None
        self._traded: list[tuple[Railroad, int, int]] | None = None
        self._yields: list[tuple[int, str]] | None = None
        self._open_adjacency: _OpenLinks | None = None
        self.presidencies: dict[int, list[str]] = {}
        for code in sorted(state.railroads):
            president = state.railroads[code].president
            if president is not None:
                self.presidencies.setdefault(president, []).append(code)

    def closed_rows(self) -> frozenset[str]:
        """Routes no railroad may bid for this turn: owned ones, and the western
        ones before the west opens (`west_from_turn`)."""
        if self._closed is None:
            closed = frozenset(self.owners)
            if self.state.turn < self.g.west_from_turn:
                closed |= operations.western_routes(self.scenario)
            self._closed = closed
        return self._closed

    def build_cost(self, code: str) -> int:
        """4.6 What laying track on RoW `code` costs in the turn's starting
        climate: `rights_of_way.building_cost`, a function of the map and the
        climate alone, so kept for the scenario from turn to turn."""
        costs = self.scenario.derived("ai_building_costs", _no_costs)
        key = (code, self.state.climate)
        cost = costs.get(key)
        if cost is None:
            cost = costs[key] = rights_of_way.building_cost(self.scenario, code, key[1])
        return cost

    def open_adjacency(self) -> "_OpenLinks":
        """`_row_adjacency` without the RoWs closed this turn (`closed_rows`):
        the map a railroad's search for new regions walks (`adjacency[town]`,
        each town's links sorted out when the first search reaches it)."""
        if self._open_adjacency is None:
            self._open_adjacency = _OpenLinks(_row_adjacency(self.scenario), self.closed_rows())
        return self._open_adjacency

    def bid_limits(self, position: int) -> dict[str, int]:
        """6.1B `max_bid` of every railroad for `position` (the stock report's
        column, 9.4), from the directors' holdings summed once for all seats."""
        holdings = self.state.tycoon(position).holdings
        return {code: self.bid_limit(position, holdings, code) for code in self.state.railroads}

    def bid_limit(self, position: int, holdings: dict[str, int], code: str) -> int:
        """6.1B `max_bid` of railroad `code` for `position`, who holds `holdings`
        (`bid_limits`; 0 for a railroad that does not exist)."""
        held = self._directors_held
        if held is None:
            tycoons = self.state.tycoons
            held = self._directors_held = {
                code: (
                    rr.issued,
                    frozenset(rr.directors),
                    sum(tycoons[pos - 1].holdings.get(code, 0) for pos in set(rr.directors)),
                )
                for code, rr in self.state.railroads.items()
            }
        found = held.get(code)
        if found is None:
            return 0
        issued, directors, directors_own = found
        own = holdings.get(code, 0)
        excluded = own + directors_own - (own if position in directors else 0)
        return max(0, issued - excluded) * self.market.bid_limit_percent // 100

    def view(self, position: int) -> GameState:
        """`public_view(state, position)`, from the tycoons hidden once."""
        tycoons = [
            t if t.position == position else hidden
            for t, hidden in zip(self.state.tycoons, self.hidden, strict=True)
        ]
        return _changed(self.state, {"tycoons": tycoons})

    def line_towns(self, rr: Railroad) -> set[str]:
        """The towns the railroad's lines reach (shared: not to be changed)."""
        towns = self._line_towns.get(rr.code)
        if towns is None:
            towns = self._line_towns[rr.code] = network.towns_of(self.scenario, rr.lines)
        return towns

    def railroads_at(self, town: str) -> list[Railroad]:
        """The railroads whose lines reach `town`, in the state's order."""
        at = self._railroads_at
        if at is None:
            at = self._railroads_at = {}
            for rr in self.state.railroads.values():
                for reached in self.line_towns(rr):
                    at.setdefault(reached, []).append(rr)
        return at.get(town, [])

    def joinable(self, code: str) -> dict[str, Railroad]:
        """The railroads route `code` may join (`can_join`), by code: those
        whose lines reach one of its towns, found from the towns rather than by
        trying every railroad."""
        found = self._joinable.get(code)
        if found is None:
            route = self.scenario.routes[code]
            found = self._joinable[code] = {
                rr.code: rr
                for rr in (*self.railroads_at(route.a), *self.railroads_at(route.b))
                if self.allowed_with(code, rr)
            }
        return found

    def can_join(self, code: str, rr: Railroad) -> bool:
        """Whether route `code` touches the railroad's lines without making a
        prohibited set (4.8)."""
        return rr.code in self.joinable(code)

    def allowed_with(self, code: str, rr: Railroad) -> bool:
        """Whether the railroad's lines and RoWs with route `code` make no
        prohibited set (4.8): `network.prohibited_reason(...) is None`, from
        what the railroad's own routes already hold, worked out once per railroad."""
        held = self._held_routes.get(rr.code)
        if held is None:
            scenario = self.scenario
            codes = frozenset([*rr.lines, *rr.rows])
            doubles = frozenset(other for c in codes if (other := scenario.routes[c].double_with))
            no_through = scenario.section("map", network.MapParams).no_through
            entered = frozenset(no_through) & network.towns_of(scenario, codes)
            allowed = network.prohibited_reason(scenario, codes) is None
            held = self._held_routes[rr.code] = (codes, doubles, entered, allowed)
        codes, doubles, entered, allowed = held
        if not allowed or code in codes:
            return allowed
        route = self.scenario.routes[code]
        if (route.double_with and route.double_with in codes) or code in doubles:
            return False  # rule 1: both routes of a double route
        return route.a not in entered and route.b not in entered  # rule 2

    def base_score(self, code: str) -> float:
        """A PC's worth having to anyone: its towns' values and the regions it links."""
        score = self._base_score.get(code)
        if score is None:
            route = self.scenario.routes[code]
            towns = self.scenario.towns
            score = float(towns[route.a].value + towns[route.b].value)
            score += 10 * len(network.regions_linked(self.scenario, [code]))
            self._base_score[code] = score
        return score

    def pc_worth(self, code: str) -> int:
        """What a PC is worth to the computer: the stock incorporating it gives
        (its book value, 3.4), its list price, or `pc_earnings_percent` of what
        it would earn in a turn as a railroad, whichever is most."""
        worth = self._worth.get(code)
        if worth is None:
            # The turn enters only through the climate, whether it is a war
            # turn (8) and the locomotive the PC would start with: the worth is
            # kept for the scenario under those, for the turns and games after.
            known = self.scenario.derived("ai_pc_worths", _no_worths)
            state = self.state
            key = (code, state.climate, self.at_war, state.best_locomotive)
            worth = known.get(key)
            if worth is None:
                earnings = self._pc_earnings(code) * self.g.pc_earnings_percent // 100
                worth = known[key] = max(
                    pc_asking_price(self.scenario, code),
                    pcs.pc_value(self.scenario, code),
                    earnings,
                )
            self._worth[code] = worth
        return worth

    def _pc_earnings(self, code: str) -> int:
        """4.10 One turn's operating profit of the PC incorporated now, in this
        climate (the operations step's own functions)."""
        state = self.state
        efficiency = self.scenario.section("companies", pcs.CompaniesParams).incorporation
        rr = Railroad(
            code=code,
            number=0,
            name=code,
            lines=[code],
            efficiency=efficiency.efficiency,
            locomotive=state.best_locomotive,
        )
        lines = operations.line_revenues(self.scenario, state, rr, state.climate, state.turn)
        traffic = sum(line.traffic for line in lines)
        revenue = sum(line.net for line in lines)
        expense = operations.operating_expense(self.scenario, rr, traffic, rr.efficiency)
        return max(0, revenue - expense)

    def miles(self, rr: Railroad) -> int:
        """4.1 The railroad's track miles."""
        miles = self._miles.get(rr.code)
        if miles is None:
            miles = self._miles[rr.code] = railroad_finance.track_miles(self.scenario, rr)
        return miles

    def value_per_share(self, rr: Railroad) -> int:
        """What a share is worth to a careful buyer: the dividend capitalised at
        the market's target yield, or the net assets per share if more."""
        value = self._value.get(rr.code)
        if value is None:
            net = rr.cash - rr.bonds - rr.loan - rr.owed_to_president
            net += self.miles(rr) * self.g.track_value_per_mile
            book = max(0, net) // max(1, rr.issued)
            by_dividend = rr.dividend * 100 // max(1, self.market.prices.target_yield_percent)
            value = self._value[rr.code] = max(book, by_dividend)
        return value

    def traded(self) -> list[tuple[Railroad, int, int]]:
        """The railroads whose shares trade (a price and shares issued), in the
        state's order, each with the holding a directorship takes (6.4) and
        `value_per_share`."""
        if self._traded is None:
            percent = self.market.director_percent
            self._traded = [
                (rr, -(-rr.issued * percent // 100), self.value_per_share(rr))
                for rr in self.state.railroads.values()
                if rr.price > 0 and rr.issued > 0
            ]
        return self._traded

    def yields(self) -> list[tuple[int, str]]:
        """The traded railroads by what a share is worth per $1,000 of its price,
        best first (ties by code, last first): the investor's ranking."""
        if self._yields is None:
            self._yields = sorted(
                ((value * 1000 // rr.price, rr.code) for rr, _, value in self.traded()),
                reverse=True,
            )
        return self._yields


class _OpenLinks(dict[str, list[tuple[str, str, int]]]):
    """Town -> (RoW code, town at the other end, length) for every RoW of the
    map not closed this turn (`TurnFacts.open_adjacency`), a town's links
    sorted out the first time it is asked for (none for a town without RoWs)."""

    def __init__(self, links: dict[str, list[tuple[str, str, int]]], closed: frozenset[str]):
        super().__init__()
        self._links = links
        self._closed = closed

    def __missing__(self, town: str) -> list[tuple[str, str, int]]:
        closed = self._closed
        found = self[town] = [link for link in self._links.get(town, ()) if link[0] not in closed]
        return found


def _no_gains(scenario: Scenario) -> dict[str, int]:
    """An empty table of what double tracking each line gains (its towns'
    values, 4.15), filled as they are asked (`_Planner._double_tracking`)."""
    return {}


def _no_costs(scenario: Scenario) -> dict[tuple[str, int], int]:
    """An empty table of building costs by (RoW, climate), filled as they are asked."""
    return {}


def _no_worths(scenario: Scenario) -> dict[tuple[str, int, bool, int], int]:
    """An empty table of PCs' worths by (PC, climate, war turn, best
    locomotive), filled as they are asked (`TurnFacts.pc_worth`)."""
    return {}


def _town_regions(scenario: Scenario) -> dict[str, str | None]:
    """Town -> the region whose starred town it is, or None."""
    return scenario.derived(
        "ai_town_regions", lambda s: {code: town.region for code, town in s.towns.items()}
    )


def _row_adjacency(scenario: Scenario) -> dict[str, list[tuple[str, str, int]]]:
    """Town -> (RoW code, town at the other end, length) for every RoW of the map."""
    return scenario.derived("ai_row_adjacency", _adjacency)


def _adjacency(scenario: Scenario) -> dict[str, list[tuple[str, str, int]]]:
    adjacency: dict[str, list[tuple[str, str, int]]] = {}
    for route in sorted(scenario.routes.values(), key=lambda r: r.number):
        if route.kind != "RoW":
            continue
        adjacency.setdefault(route.a, []).append((route.code, route.b, route.length))
        adjacency.setdefault(route.b, []).append((route.code, route.a, route.length))
    return adjacency
