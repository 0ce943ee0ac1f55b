"""The planner: one computer-played tycoon's orders for the turn (rule 3.1),
money first, then PCs, stock, and the railroads he presides (planned by its
base, `presidency._RailroadPlanner`)."""

import random

from turnproc.core import rng
from turnproc.core.models import maker
from turnproc.families.continental_rails.ai.facts import TurnFacts
from turnproc.families.continental_rails.ai.params import personality_name
from turnproc.families.continental_rails.ai.presidency import _RailroadPlanner, _round_down
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.orders import (
    BidForPC,
    Borrow,
    BuyStock,
    BuyTreasuryStock,
    CollectFromRailroad,
    CoverShort,
    IncorporatePC,
    MergePC,
    MergeRailroads,
    OfferPC,
    Order,
    PlayerOrders,
    ProdigalSpending,
    RepayLoan,
    RequestPresidency,
    SellStock,
    SetDividend,
    ShortSell,
)
from turnproc.families.continental_rails.engine.setup import pc_asking_price
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps import (
    finance,
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
_borrow = maker(Borrow)
_repay_loan = maker(RepayLoan)
_prodigal_spending = maker(ProdigalSpending)


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


class _Planner(_RailroadPlanner):
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
