"""Computer players: orders for every position no human plays (rule 3.1).

"Computer-played positions can take any action a human player can, except
negotiate with other players." `computer_orders` writes the same typed orders
a turnsheet gives, so the engine checks them exactly as it checks a human's.

It looks only at what the position is entitled to see (`public_view`): prices,
railroads' public data, PCs for sale, the victory points, and its own cash,
loan, holdings and PCs; never another tycoon's cash, loan or holdings. Its
choices are random only through the stream ``ai-<position>`` of the game's seed
and turn. Personalities and every number come from ai.toml; the engine's own
costs (building, debt limits, efficiency) are read from the sections that
define them. docs/computer-players.md describes the play.
"""

import heapq
import math
import random
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

from turnproc.core import rng
from turnproc.core.models import maker
from turnproc.families.continental_rails.engine import network, pcs, valuation
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.orders import (
    BidForPC,
    BidForRoW,
    Borrow,
    BuildRoW,
    BuyStock,
    BuyTechnology,
    BuyTreasuryStock,
    CapitalImprovement,
    CollectFromRailroad,
    CoverShort,
    DoubleTrack,
    IncorporatePC,
    IssueBonds,
    IssueStock,
    MergePC,
    MergeRailroads,
    OfferPC,
    Order,
    PlayerOrders,
    PoliticalDonation,
    ProdigalSpending,
    RedeemBonds,
    RepayLoan,
    RepayShortLoan,
    RequestPresidency,
    SellLand,
    SellStock,
    SetDividend,
    ShortSell,
    TakeShortLoan,
    UpgradeLocomotive,
)
from turnproc.families.continental_rails.engine.setup import pc_asking_price
from turnproc.families.continental_rails.engine.state import GameState, Railroad, Tycoon
from turnproc.families.continental_rails.engine.steps import (
    companies,
    finance,
    improvements,
    operations,
    railroad_finance,
    rights_of_way,
    victory,
)
from turnproc.families.continental_rails.engine.steps.auctions import AuctionsParams
from turnproc.families.continental_rails.engine.steps.stockmarket import market_params
from turnproc.scenario.model import Scenario

# The orders a planner gives by the dozen, made by their own validators: the
# same validation and the same order as calling the class (`maker`).
_bid_for_pc = maker(BidForPC)
_buy_stock = maker(BuyStock)
_incorporate_pc = maker(IncorporatePC)
_merge_pc = maker(MergePC)
_offer_pc = maker(OfferPC)
_request_presidency = maker(RequestPresidency)
_sell_stock = maker(SellStock)
_set_dividend = maker(SetDividend)
_borrow = maker(Borrow)
_repay_loan = maker(RepayLoan)
_prodigal_spending = maker(ProdigalSpending)
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

# --- parameters (ai.toml) ------------------------------------------------------


class Personality(BaseModel):
    """ai.toml [personalities.NAME]: one style of play (each field is commented
    in ai.toml; docs/computer-players.md describes the play)."""

    borrow_percent: int
    climate_borrow_percent: list[int]
    stays_leveraged: bool
    pc_budget_percent: int
    pc_premium_percent: int
    stock_budget_percent: int
    directorships: int
    presidencies: int
    shorts_percent: int
    speculations: int
    investments: int
    invest_percent: int
    borrows_to_invest: bool
    leverages_railroads: bool  # its railroads carry the whole short loan in good times
    sells_in_bad_times: bool
    prodigal_floor: int
    prodigal_percent: int
    prodigal_first: bool  # spends on Prodigal before bidding for PCs
    treasury_percent: int
    build_percent: int
    dividend_yield_percent: int
    payout_percent: int
    target_efficiency: int
    merges_railroads: bool
    prefers_merging_pcs: bool


class GeneralParams(BaseModel):
    """ai.toml [general]: what every computer player shares."""

    reserve_cash: int
    max_holding_percent: int
    president_hold_percent: int
    corner_margin_percent: int
    west_from_turn: int
    bad_climate_from: int
    good_climate_until: int
    track_value_per_mile: int
    overpriced_percent: int
    cheap_percent: int
    pc_bid_step: int
    row_search_limit: int
    row_bid_percent: list[int]
    tech_min_turns_left: int
    expected_last_turn: int
    issue_min_price: int
    double_track_min_gain: int
    extra_pc_bids: int
    prodigal_minimum_cash: int  # cash from which anyone spends the Prodigal minimum
    pc_earnings_percent: int  # a PC is worth at least this % of a turn's profit as a railroad
    donation_percent: int


class AIParams(BaseModel):
    """ai.toml"""

    order: list[str]
    general: GeneralParams
    personalities: dict[str, Personality]


def ai_params(scenario: Scenario) -> AIParams:
    return scenario.section("ai", AIParams)


def personality_name(scenario: Scenario, tycoon: Tycoon) -> str:
    """A position's personality: its own if set, else one assigned by position."""
    params = ai_params(scenario)
    if tycoon.personality in params.personalities:
        return tycoon.personality
    return params.order[(tycoon.position - 1) % len(params.order)]


# --- what a position may see ---------------------------------------------------


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


# --- the planner ------------------------------------------------------------------


def computer_orders(
    scenario: Scenario, state: GameState, position: int, facts: TurnFacts | None = None
) -> PlayerOrders:
    """The orders the computer writes for `position` this turn. `facts`, made
    from this same state, lets the positions of one turn share what they all
    may know (`TurnFacts`); the orders are the same without it."""
    if facts is None:
        facts = TurnFacts(scenario, state)
    planner = _Planner(scenario, facts.view(position), position, facts)
    # Each order was validated as it was made: the list is not checked again.
    return PlayerOrders.model_construct(position=position, orders=planner.plan(), source="computer")


class _Wanted(NamedTuple):
    """A railroad order its president would give if the money allows, and its
    cost; the order itself (`make(railroad=..., **fields)`, by its validator
    in `_WANTED_MAKERS`) is made only when given, as most are not."""

    make: Callable[..., Order]
    fields: dict[str, Any]
    cost: int


def _round_down(amount: int, step: int) -> int:
    return max(0, amount // step * step)


class _Planner:
    """Plans one tycoon's turn: money first, then PCs, stock, and his railroads."""

    def __init__(
        self,
        scenario: Scenario,
        view: GameState,
        position: int,
        facts: "TurnFacts",
    ) -> None:
        self.scenario = scenario
        self.state = view
        self.me = view.tycoon(position)
        self.params = facts.params
        self.g = facts.g
        self.persona = self.params.personalities[personality_name(scenario, self.me)]
        self.rand: random.Random = rng.stream(view.seed, view.turn, f"ai-{position}")
        self.market = facts.market
        self.rr_params = facts.rr_params
        self.building = facts.building
        auctions = facts.auctions
        self.max_pcs = auctions.auction.max_pcs
        self.max_raise = auctions.offers.max_raise_percent
        self.facts = facts
        self.owners = facts.owners
        self.presides = list(facts.presidencies.get(position, ()))
        self.mine = [view.railroads[code] for code in self.presides]  # never changed
        self.incorporating: list[str] = []  # PCs incorporated this turn
        self.seeking: str | None = None  # a railroad bought into for its presidency
        self.targets: dict[str, int] = {}
        # The climate the turn starts in (5), as the personalities read it.
        self.bad_times = view.climate >= self.g.bad_climate_from
        self.good_times = view.climate <= self.g.good_climate_until
        # What the stock planning reads for every railroad, read once: a
        # pydantic model's fields go through its `__getattr__` hook.
        self.position = position
        self.holdings = self.me.holdings  # never changed by the planner
        self.director_percent = self.market.director_percent
        self.bid_limit_percent = self.market.bid_limit_percent
        self.corner_percent = self.market.cornered_percent - self.g.corner_margin_percent

    # -- money ------------------------------------------------------------------

    def plan(self) -> list[Order]:
        """The turn's orders: loan first, then personal actions, stock orders in
        the order they should be checked (6.1), railroad actions, presidencies."""
        me = self.me
        credit = valuation.credit_limit(
            self.state, self.scenario, me.position, self.state.climate, self.facts.lent
        )
        climate_percent = self.persona.climate_borrow_percent[self.state.climate]
        safe_loan = credit * self.persona.borrow_percent * climate_percent // 10000
        repay = 0
        if me.loan > safe_loan:
            repay = min(me.loan - safe_loan, max(0, me.cash - self.g.reserve_cash))
        headroom = max(0, safe_loan - me.loan)
        if self.state.turn <= finance.credit_shut_until(self.scenario, me):
            headroom = 0  # 3.6 the bank lends nothing for some turns after a bankruptcy
        own_cash = max(0, me.cash - self.g.reserve_cash - repay)
        spendable = own_cash + headroom

        personal: list[Order] = []
        spent = 0
        # 1.2 [designed, issue 24] Prodigal spending comes out of cash beyond the loan.
        cover = self.facts.prodigal_loan_cover
        lavish = min(own_cash, max(0, me.cash - (me.loan - repay) * cover // 100))
        if self.persona.prodigal_first:
            # Rail Prodigal first, from turn 1: no lone spender takes a turn's points.
            spent += self._spend_prodigal(personal, lavish)
        pc_orders, pc_spend = self._pc_orders(spendable - spent)
        personal += pc_orders
        spent += pc_spend
        treasury_orders, treasury_spend = self._treasury_orders(spendable - spent)
        personal += treasury_orders
        spent += treasury_spend
        if not self.persona.prodigal_first:
            spent += self._spend_prodigal(personal, lavish - spent)
        personal += self._collect_loans()
        stock_orders, stock_spend = self._stock_orders(spendable - spent, own_cash - spent)
        spent += stock_spend

        orders: list[Order] = []
        if repay > 0:
            orders.append(_repay_loan({"amount": repay}))
        borrow = min(headroom, max(0, spent - own_cash))
        if self.persona.stays_leveraged and not self.bad_times:
            # It carries the loan it is willing to owe, plan or no plan: the
            # margin falls with the climate (5), so a downturn recalls part of it (3.5).
            borrow = _round_down(headroom, 10)
        if borrow > 0:
            orders.append(_borrow({"amount": -(-borrow // 10) * 10}))
        orders += personal
        orders += stock_orders
        merger = self._merger()
        for code in self.presides:
            railroad_orders = self._railroad_orders(self.state.railroads[code])
            if merger is not None and code == merger.other:
                # It operates as part of the survivor, at the survivor's dividend (4.12).
                railroad_orders = [o for o in railroad_orders if not isinstance(o, SetDividend)]
            orders += railroad_orders
        if merger is not None:
            orders.append(merger)
        orders += [
            _request_presidency({"railroad": code}) for code in self._presidency_requests(merger)
        ]
        return orders

    # -- PCs --------------------------------------------------------------------

    def _pc_orders(self, spendable: int) -> tuple[list[Order], int]:
        """Incorporate or merge PCs held since last turn; bid for new ones."""
        orders: list[Order] = []
        presidencies = len(self.presides)
        war = self.facts.at_war
        for pc in sorted(self.me.pcs):
            if war and self._is_west(pc):
                continue  # 8 held until the war is over: no westward expansion
            own_target = self._merge_target(pc, own_only=True)
            if own_target and self.persona.prefers_merging_pcs:
                orders.append(_merge_pc({"pc": pc, "railroad": own_target}))
            elif presidencies < self.facts.max_presidencies:
                # Incorporating is the safe way to a presidency (playing tips).
                orders.append(_incorporate_pc({"pc": pc}))
                self.incorporating.append(pc)
                presidencies += 1
            elif own_target:
                orders.append(_merge_pc({"pc": pc, "railroad": own_target}))
            elif target := self._merge_target(pc, own_only=False):
                orders.append(_merge_pc({"pc": pc, "railroad": target}))
            else:
                orders.append(_offer_pc({"pc": pc, "price": self._offer_price(pc)}))

        slots = self.max_pcs - len(self.me.pcs)
        budget = spendable * self.persona.pc_budget_percent // 100
        spend = 0
        if slots <= 0 or budget <= 0:
            return orders, 0
        candidates = []
        draw = self.rand.random
        position = self.position
        for code, asking, seller in self.facts.pcs_for_bids:
            if seller == position or asking > budget:
                continue  # his own PC, or beyond his budget
            # `rand.uniform(0.5, 1.5)` written out: the same draw, one call fewer.
            score = self._pc_score(code) * (0.5 + (1.5 - 0.5) * draw())
            candidates.append((score, code))
        candidates.sort(reverse=True)
        # The auction gives a bidder no more PCs than his free slots, so he may
        # bid for a few more than that; he must be able to pay for every win.
        bids: list[int] = []
        for rank, (_, code) in enumerate(candidates[: slots + self.g.extra_pc_bids]):
            company = self.state.pcs[code]
            asking = company.asking_price
            if company.status == "owned":
                # The owner may raise an offered PC's price 20% this turn (10.1).
                asking = asking * (100 + self.max_raise) // 100
            worth = self._pc_worth(code)
            # The PC it wants most gets its whole premium; the others a random part.
            keen = self.rand.randint(0, self.persona.pc_premium_percent)
            if rank == 0:
                keen = self.persona.pc_premium_percent
            if asking > worth * (100 + self.persona.pc_premium_percent) // 100:
                continue  # an owner asking more than it is worth to anyone
            ceiling = budget - sum(sorted(bids, reverse=True)[: slots - 1])
            bid = min(ceiling, max(asking, worth) * (100 + keen) // 100)
            bid = max(asking, _round_down(bid, self.g.pc_bid_step))
            if bid > ceiling:
                continue
            orders.append(_bid_for_pc({"pc": code, "amount": bid}))
            bids.append(bid)
        spend = sum(sorted(bids, reverse=True)[:slots])
        return orders, spend

    def _pc_worth(self, code: str) -> int:
        return self.facts.pc_worth(code)

    def _offer_price(self, code: str) -> int:
        """10.1 Ask for a PC it cannot use: its worth plus the personality's
        premium, rising at most 20% a turn over a price already listed."""
        ask = self._pc_worth(code) * (100 + self.persona.pc_premium_percent) // 100
        listed = self.state.pcs[code]
        base = listed.asking_price
        if not listed.for_sale:
            base = max(base, pc_asking_price(self.scenario, code))
        if base > 0:
            ask = min(ask, base * (100 + self.max_raise) // 100)
        return max(10, _round_down(ask, 10))

    def _pc_score(self, code: str) -> float:
        """How much a PC is worth having: town values, regions, a link to my railroads."""
        score = self.facts.base_score(code)
        joinable = self.facts.joinable(code)
        if any(mine in joinable for mine in self.presides):  # the codes of `self.mine`
            score *= 1.5
        elif len(self.presides) >= 2 and not joinable:
            score *= 0.2  # I could neither incorporate nor merge it: only its income
        return score

    def _my_railroads(self) -> list[Railroad]:
        return self.mine

    def _merge_target(self, pc: str, own_only: bool) -> str | None:
        """A railroad the PC may merge into: one I preside, else one I direct,
        else any it joins (the owner need not be a director; the bonus stock is
        worth the PC's value either way)."""
        joinable = self.facts.joinable(pc)
        mine = [rr for rr in self._my_railroads() if rr.code in joinable]
        if mine:
            return max(mine, key=lambda rr: (len(rr.lines), rr.code)).code
        if own_only:
            return None
        # Any order will do: the key names each railroad apart.
        others = list(joinable.values())
        if others:
            best = max(others, key=lambda rr: (self.me.position in rr.directors, rr.price, rr.code))
            return best.code
        return None

    # -- personal money ---------------------------------------------------------

    def _treasury_orders(self, spendable: int) -> tuple[list[Order], int]:
        """4.2 Presidents buy treasury stock: cash for the railroad, votes for me."""
        budget = spendable * self.persona.treasury_percent // 100
        orders: list[Order] = []
        spend = 0
        for rr in self._my_railroads():
            if rr.treasury <= 0 or rr.price <= 0:
                continue
            held = self.me.holdings.get(rr.code, 0)
            aim = rr.issued * self.g.president_hold_percent // 100
            room = min(aim, self._corner_room(rr, aim)) - held
            shares = min(rr.treasury, room, (budget - spend) // rr.price)
            if shares > 0:
                orders.append(BuyTreasuryStock(railroad=rr.code, shares=shares))
                spend += shares * rr.price
        return orders, spend

    def _spend_prodigal(self, personal: list[Order], cash: int) -> int:
        """Append the turn's Prodigal spending out of `cash`; returns it."""
        prodigal = self._prodigal(cash)
        if prodigal:
            personal.append(_prodigal_spending({"amount": prodigal}))
        return prodigal

    def _prodigal(self, cash: int) -> int:
        """1.2 Spend on Prodigal only when rich enough; $1,000 is the least that scores."""
        surplus = cash - self.persona.prodigal_floor
        if surplus < 1000:
            # Half the points are shared evenly among all who spend the minimum
            # (1.2): when it is cheap, everyone takes his share.
            cheap = cash >= self.g.prodigal_minimum_cash and not self.bad_times
            return 1000 if cheap else 0
        amount = max(1000, surplus * self.persona.prodigal_percent // 100)
        return _round_down(amount, 10)

    def _collect_loans(self) -> list[Order]:
        """4.5 Take back money my railroads owe me (it costs Rail Mogul points)."""
        orders: list[Order] = []
        for rr in self._my_railroads():
            if rr.owed_to_president > 0 and rr.lender == self.me.position and rr.cash > 0:
                orders.append(
                    CollectFromRailroad(railroad=rr.code, amount=min(rr.cash, rr.owed_to_president))
                )
        return orders

    # -- stock ------------------------------------------------------------------

    def value_per_share(self, rr: Railroad) -> int:
        return self.facts.value_per_share(rr)

    def _stock_orders(self, spendable: int, own_cash: int) -> tuple[list[Order], int]:
        """6 Cover, sell and short first (they give credit), then buy toward
        control, then invest what is left over.

        Budgets use the worst prices order checking allows for (6.1): buys at
        the highest price the turn can reach, sales at the lowest."""
        me = self.me
        state = self.state
        rise = 100 + self.market.prices.max_rise_percent
        fall = 100 - self.market.prices.max_fall_percent
        budget = spendable * self.persona.stock_budget_percent // 100
        cover_orders: list[Order] = []
        spend = 0
        for code, owed in sorted(me.shorts.items()):
            rr = state.railroads.get(code)
            if rr is None or owed <= 0:
                continue
            value = self.value_per_share(rr)
            if not self.bad_times or rr.price * 100 <= value * self.g.cheap_percent:
                cover_orders.append(CoverShort(railroad=code, shares=owed))
                spend += owed * rr.price * rise // 100

        keep = set(self.presides) | set(self.incorporating)
        self.targets = self._buy_targets(keep)
        buys: list[tuple[str, int, int]] = []
        for code, aim in self.targets.items():
            rr = state.railroads[code]
            worst = max(1, rr.price * rise // 100)
            shares = min(aim - me.holdings.get(code, 0), self._bid_limit(rr))
            if shares > 0:
                buys.append((code, shares, worst))
        need = sum(shares * worst for _, shares, worst in buys) - (budget - spend)

        sell_orders: list[Order] = []
        credit = 0
        speculates = self.persona.shorts_percent > 0
        holdings = sorted(
            (code, held)
            for code, held in me.holdings.items()
            if held > 0
            and code in state.railroads
            and code not in keep
            and code not in self.targets
        )
        for code, held in holdings:
            rr = state.railroads[code]
            value = self.value_per_share(rr)
            director = me.position in rr.directors
            dear = rr.price > value
            very_dear = rr.price * 100 > value * self.g.overpriced_percent
            if (
                (self.bad_times and self.persona.sells_in_bad_times and dear)
                or (speculates and very_dear)
                or (need - credit > 0 and not director)
            ):
                sell_orders.append(_sell_stock({"railroad": code, "shares": held}))
                credit += held * rr.price * fall // 100

        short_orders: list[Order] = []
        if self.bad_times and speculates:
            net_worth = valuation.net_worth(state, self.scenario, me.position, self.facts.lent)
            room = max(0, net_worth) * self.persona.shorts_percent // 100
            for rr in sorted(state.railroads.values(), key=lambda r: r.code):
                if rr.code in keep or me.holdings.get(rr.code) or me.shorts.get(rr.code):
                    continue
                value = self.value_per_share(rr)
                if rr.price < 10 or rr.price * 100 <= value * self.g.overpriced_percent:
                    continue
                shares = min(self._bid_limit(rr), room // rr.price)
                if shares > 0:
                    short_orders.append(ShortSell(railroad=rr.code, shares=shares))
                    spend += shares * rr.price * rise // 100
                    break

        buy_orders: list[Order] = []
        money = budget + credit - spend
        for code, shares, worst in buys:
            shares = min(shares, money // worst)
            if shares > 0:
                buy_orders.append(_buy_stock({"railroad": code, "shares": shares}))
                money -= shares * worst
                spend += shares * worst
        if not self.bad_times:
            pool = spendable if self.persona.borrows_to_invest else own_cash
            invest = min(money, max(0, pool - spend) * self.persona.invest_percent // 100)
            for code, shares, worst in self._investments(keep | set(self.targets)):
                shares = min(shares, invest // worst)
                if shares > 0:
                    buy_orders.append(_buy_stock({"railroad": code, "shares": shares}))
                    invest -= shares * worst
                    spend += shares * worst
        orders = cover_orders + sell_orders + short_orders + buy_orders
        return orders, max(0, spend - credit)

    def _investments(self, skip: set[str]) -> list[tuple[str, int, int]]:
        """Money to spare goes into the best-yielding stocks, each held below a
        directorship: (railroad, shares, worst-case price), best first."""
        rise = 100 + self.market.prices.max_rise_percent
        ranked = [item for item in self.facts.yields() if item[1] not in skip]
        chosen = []
        for _, code in ranked[: self.persona.investments]:
            rr = self.state.railroads[code]
            below = -(-rr.issued * self.market.director_percent // 100) - 1
            shares = min(below - self.me.holdings.get(code, 0), self._bid_limit(rr))
            if shares > 0:
                chosen.append((code, shares, max(1, rr.price * rise // 100)))
        return chosen

    def _bid_limit(self, rr: Railroad) -> int:
        """6.1 The most shares I may bid for (the stock report's "max you can
        bid" column, 9.4: the position's to see)."""
        return self.facts.bid_limit(self.position, self.holdings, rr.code)

    def _buy_targets(self, keep: set[str]) -> dict[str, int]:
        """Railroads to buy and the holding aimed at in each, most important first."""
        me = self.me
        state = self.state
        cap = self.g.max_holding_percent
        targets: dict[str, int] = {}
        if self.bad_times and self.persona.sells_in_bad_times:
            # Don't buy in panics; protect only a presidency under threat.
            for code in self.presides:
                rr = state.railroads[code]
                if rr.chairman not in (None, me.position):
                    targets[code] = rr.issued * cap // 100
            return targets
        for code in self.presides:
            rr = state.railroads[code]
            hold = cap if rr.chairman != me.position else self.g.president_hold_percent
            targets[code] = rr.issued * hold // 100
        # `rand.uniform(a, b)` is written out below: the same draws, a call fewer each.
        draw = self.rand.random
        wanted_presidencies = min(self.facts.max_presidencies, self.persona.presidencies)
        if len(self.presides) + len(self.incorporating) < wanted_presidencies:
            contest = [rr for rr, _, _ in self.facts.traded() if rr.code not in keep]
            # A railroad without a president is easiest to take; the largest
            # pays the most (4.10 salary, 1.2 Rail Mogul weight).
            contest.sort(
                key=lambda rr: (
                    rr.president is not None,
                    -rr.issued * rr.price * (0.7 + (1.3 - 0.7) * draw()),
                )
            )
            if contest:
                rr = self.rand.choice(contest[:3])
                targets[rr.code] = rr.issued * cap // 100
                self.seeking = rr.code
        directors = self.persona.directorships
        candidates = []
        holdings = self.holdings
        for rr, need, value in self.facts.traded():
            code = rr.code
            if code in targets or code in keep:
                continue
            if holdings.get(code, 0) >= need:
                targets[code] = need
                directors -= 1
                continue
            cheapness = value / rr.price
            candidates.append((cheapness * (0.8 + (1.2 - 0.8) * draw()), code, need))
        candidates.sort(reverse=True)
        for cheapness, code, need in candidates:
            if directors <= 0:
                break
            if self.bad_times and cheapness < 1:
                continue
            targets[code] = need + 1
            directors -= 1
        if self.good_times and self.persona.speculations > 0:
            # Speculative positions stay below a directorship: they are for
            # trading, and they are what a panic catches on margin.
            left = self.persona.speculations
            for cheapness, code, need in candidates:
                if left <= 0:
                    break
                if code not in targets and cheapness * self.g.cheap_percent >= 100:
                    targets[code] = need - 1
                    left -= 1
        for code in list(targets):
            rr = state.railroads[code]
            threatened = code in self.presides and rr.chairman not in (None, me.position)
            if not threatened:
                targets[code] = min(targets[code], self._corner_room(rr, targets[code]))
        return targets

    def _directors_shares(self, rr: Railroad) -> int:
        """6.4 Shares the directors hold, as the stock report shows it: the bid
        limit column is 20% of the shares held neither by me nor by them."""
        base = self._bid_limit(rr) * 100 // max(1, self.bid_limit_percent)
        mine = self.holdings.get(rr.code, 0)
        outside = 0 if self.position in rr.directors else mine
        return max(0, rr.issued - base - outside)

    def _corner_room(self, rr: Railroad, aim: int) -> int:
        """The holding I may aim at without the directors owning more than half
        (playing tips: a cornered stock falls, and its biggest holder loses most)."""
        issued = rr.issued
        if aim < -(-issued * self.director_percent // 100):
            return aim  # below a directorship it does not count toward a corner
        mine = self.holdings.get(rr.code, 0)
        others = self._directors_shares(rr) - (mine if self.position in rr.directors else 0)
        limit = issued * self.corner_percent // 100
        return max(mine, min(aim, limit - others))

    def _presidency_requests(self, merger: MergeRailroads | None) -> list[str]:
        """4.14 Keep my presidencies (but the one `merger` ends), and ask for
        railroads I incorporate or buy into."""
        wanted = [c for c in self.presides if merger is None or c != merger.other]
        wanted += self.incorporating
        if self.seeking:
            wanted.append(self.seeking)
        unique = list(dict.fromkeys(wanted))
        return unique[: self.facts.max_presidencies]

    # -- railroads I preside ------------------------------------------------------

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
