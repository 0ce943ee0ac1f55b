"""The planner: one computer-played tycoon's orders for the turn (rule 3.1),
money first, then PCs, stock, and the railroads he presides."""

import heapq
import math
import random
from collections.abc import Callable
from typing import Any, NamedTuple

from turnproc.core import rng
from turnproc.core.models import maker
from turnproc.families.continental_rails.ai.facts import TurnFacts, _no_gains, _town_regions
from turnproc.families.continental_rails.ai.params import personality_name
from turnproc.families.continental_rails.ai.view import _changed
from turnproc.families.continental_rails.engine import network, valuation
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
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps import (
    finance,
    improvements,
    operations,
    railroad_finance,
    rights_of_way,
)
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
