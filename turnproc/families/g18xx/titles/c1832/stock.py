"""1832's stock round (docs/rules-1832.md 5): turns in seat order, sales at
the turn-start price in blocks, share price protection decided by the
presidents affected after the seller's turn, the rule against buying back a
company sold this round, the closing zone and the falling certificate limit,
the initial round's private companies (P1's falling price, P4, P7).

A pure model of the round's state and its refusals, written to become the
1832 stock step on the 18xx engine; it reads nothing but the title data.
Refusals carry a code (`SOLD_THIS_ROUND`, …) and the rule they come from.
"""

from dataclasses import dataclass, field

from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832 import shares as sh
from turnproc.families.g18xx.titles.c1832.data import Data1832

IPO = "initial offering"
OPEN_MARKET = "open market"


class Refusal(TurnprocError):
    """An order the rules do not allow; `code` names the rule broken."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


@dataclass
class Company:
    id: str
    cell: mk.Cell | None = None  # None: not started
    president: str | None = None
    ipo: int = 10  # shares in the initial offering (president's counts two)
    open_market: int = 0
    treasury: int = 0
    trains: list[str] = field(default_factory=list)
    closed: bool = False
    par: int = 0
    redeemed: int = 0  # its own shares in its treasury (5.10)
    reissued: int = 0  # reissued shares on the initial offering display (5.11)
    operated: bool = False  # has run in an operating round
    redeemed_this_round: int = 0
    reissued_this_round: bool = False
    floated: bool = False
    taken_over: bool = False  # 11.7: out of play, its shell counted apart from closures
    escrow: int = 0  # reissued shares' price, the company's at the round's end (5.11)
    system: bool = False
    shares: int = 10  # 20 for a System (11.6.2)
    in_system: str | None = None  # 11.6: the System this company became


@dataclass
class PendingSale:
    """5.9: a block sold, waiting for its president's decision."""

    company: str
    seller: str
    shares: int
    price: int  # the turn-start price (5.3.3)
    start: mk.Cell


@dataclass
class StockRound:
    """One stock round's state; `seats` in clockwise order."""

    data: Data1832
    seats: list[str]
    cash: dict[str, int]
    holdings: dict[str, dict[str, int]]
    companies: dict[str, Company]
    bank: int
    turn: int = 0  # index into seats of the player to act
    last_actor: str | None = None  # 5.2.2: the priority card goes to his left
    ended: bool = False
    # (player, System) -> vice-president's certificates held
    vice_presidents: dict[tuple[str, str], int] = field(default_factory=dict)
    shells_taken_over: int = 0  # 11.7: each moves the certificate limit one column
    system_certificates_removed: int = 0  # the last System's exchange (11.6.1)
    open_market_trains: list[str] = field(default_factory=list)
    sold: set[tuple[str, str]] = field(default_factory=set)
    started_this_round: set[str] = field(default_factory=set)
    privates: dict[str, str] = field(default_factory=dict)  # private -> owner
    private_prices: dict[str, int] = field(default_factory=dict)  # unsold -> price
    pending: list[PendingSale] = field(default_factory=list)
    turn_prices: dict[str, mk.Cell] = field(default_factory=dict)
    bought: bool = False
    passes: int = 0
    last_protector: str | None = None
    awaiting: bool = False  # the seller has finished; presidents decide (5.9)

    @property
    def market(self) -> mk.Market:
        return mk.Market(self.data.title.market)

    @property
    def current(self) -> str:
        return self.seats[self.turn]

    # 5.4, Table 2: the limit falls as companies close

    def certificate_limit(self) -> int:
        closed = sum(
            c.closed and not c.taken_over and c.in_system is None for c in self.companies.values()
        )
        in_play = mk.companies_in_play(self.data, closed, self.shells_taken_over)
        return mk.certificate_limit(self.data, len(self.seats), in_play)

    def _require_turn(self, player: str) -> None:
        if self.awaiting:
            waiting = ", ".join(sorted({self._president(p.company) for p in self.pending}))
            raise Refusal("PROTECTION_PENDING", f"waiting for {waiting} to protect or not (5.9)")
        if player != self.current:
            raise Refusal("NOT_YOUR_TURN", f"it is {self.current}'s turn (5.2)")

    def _president(self, company: str) -> str:
        president = self.companies[company].president
        if president is None:
            raise Refusal("NOT_STARTED", f"{company} has no president")
        return president

    def _open(self, company: str) -> Company:
        if company not in self.companies:
            raise Refusal("UNKNOWN_COMPANY", f"no company {company}")
        item = self.companies[company]
        if item.closed:
            raise Refusal("CLOSED", f"{company} has closed (5.1.1)")
        return item

    # 5.3.3 Selling shares

    def sell(self, player: str, company: str, shares: int) -> None:
        """One block of one company's shares, at the price of the token when
        the seller's turn began; sales in several companies come in the order
        the seller gives them. Presidents decide on protection afterwards."""
        self._require_turn(player)
        item = self._open(company)
        if item.cell is None:
            raise Refusal("NOT_STARTED", f"{company} has not started")
        if shares < 1:
            raise Refusal("BAD_COUNT", "sell one share or more")
        if any(p.company == company for p in self.pending) or (player, company) in {
            (p.seller, p.company) for p in self.pending
        }:
            raise Refusal("ONE_BLOCK", f"{company}'s shares go in one block (5.3.3)")
        held = self.holdings[player].get(company, 0)
        if player == item.president and held - shares < self._certificate_shares(item):
            others = {p: h.get(company, 0) for p, h in self.holdings.items()}
            if not sh.may_sell_presidents_share(
                self.data, player, others, item.open_market, item.shares
            ):
                raise Refusal(
                    "PRESIDENT_SHARE",
                    "the president sells into his 20% only when another player holds 20% (5.5)",
                )
        if held < shares:
            raise Refusal("NOT_HELD", f"{player} holds {held} shares of {company}")
        # 5.9.8: a holding past 60% (by protection) is sold down to 60% at
        # the first sale, unless the token is in the green or brown area
        most = self.data.title.holding_limit_percent * item.shares // 100
        zone = self.market.box(item.cell).zone
        if held > most and held - shares > most and not mk.may_exceed_holding_limit(zone):
            raise Refusal("SELL_DOWN", f"{player} sells down to {most} shares (5.9)")
        room = mk.open_market_room(self.data, item.shares, item.open_market)
        if shares > room:
            raise Refusal("POOL_FULL", f"the open market takes {room} more (5.4.2)")
        start = self.turn_prices.setdefault(company, item.cell)
        self.holdings[player][company] = held - shares
        item.open_market += shares
        self.sold.add((player, company))
        self.last_actor = player
        self.pending.append(PendingSale(company, player, shares, self.market.price(start), start))
        self.passes = 0

    def _within_limit(self, player: str) -> None:
        """5.4.1, 5.3.5: a player ends his turn within the certificate limit,
        assuming no president protects his sales: a sale into the yellow,
        green or brown area frees certificates, one into the black area
        closes the company and lowers the limit."""
        cells = {
            s.company: self.market.after_sale(s.start, s.shares)
            for s in self.pending
            if s.seller == player
        }
        closing = sum(self.market.closed(c) for c in cells.values())
        closed = sum(
            c.closed and not c.taken_over and c.in_system is None for c in self.companies.values()
        )
        in_play = mk.companies_in_play(self.data, closed + closing, self.shells_taken_over)
        limit = mk.certificate_limit(self.data, len(self.seats), in_play)
        held = self.certificates(player, cells)
        if held > limit:
            raise Refusal("OVER_LIMIT", f"{player} holds {held} certificates; the limit is {limit}")

    def finish_turn(self, player: str) -> None:
        """The seller has finished: sales nobody can protect (the seller is
        the president) are settled at once; the others wait for 5.9."""
        if player != self.current:
            raise Refusal("NOT_YOUR_TURN", f"it is {self.current}'s turn (5.2)")
        self._within_limit(player)
        own = [p for p in self.pending if self._president(p.company) == p.seller]
        for sale in own:
            self._settle(sale, protected=False)
        self.turn_prices.clear()
        self.bought = False
        if self.pending:
            self.awaiting = True
        else:
            self._advance()

    # 5.9 Share price protection

    def protect(self, president: str, company: str) -> None:
        """The president buys every share of the block at the seller's price;
        the token stays; the round resumes left of him (5.9)."""
        sale = self._pending_for(president, company)
        if not self.awaiting:
            raise Refusal("SELLER_NOT_DONE", "presidents decide after the seller's turn (5.9)")
        cost = sale.shares * sale.price
        if self.cash[president] < cost:
            raise Refusal("NO_CASH", f"{president} has ${self.cash[president]}, needs ${cost}")
        self._settle(sale, protected=True)
        self.last_protector = president
        self.last_actor = president
        self._after_decision()

    def decline(self, president: str, company: str) -> None:
        sale = self._pending_for(president, company)
        if not self.awaiting:
            raise Refusal("SELLER_NOT_DONE", "presidents decide after the seller's turn (5.9)")
        self._settle(sale, protected=False)
        self._after_decision()

    def _pending_for(self, president: str, company: str) -> PendingSale:
        """5.9.7: the presidents decide in the order the shares were sold."""
        for sale in self.pending:
            if sale.company == company:
                if self._president(company) != president:
                    raise Refusal("NOT_PRESIDENT", f"{president} is not {company}'s president")
                if sale is not self.pending[0]:
                    first = self.pending[0].company
                    raise Refusal("NOT_YET", f"{first}'s president decides first (5.9)")
                return sale
        raise Refusal("NOTHING_TO_PROTECT", f"no sale of {company} awaits protection")

    def _settle(self, sale: PendingSale, protected: bool) -> None:
        self.pending.remove(sale)
        item = self.companies[sale.company]
        result = mk.sell(self.market, sale.start, sale.shares, protected=protected)
        if protected:
            president = self._president(sale.company)
            self.cash[president] -= result.proceeds
            item.open_market -= sale.shares
            self.holdings[president][sale.company] = (
                self.holdings[president].get(sale.company, 0) + sale.shares
            )
        else:
            self.bank -= result.proceeds
            item.cell = self.market.after_sale(item.cell or sale.start, sale.shares)
            if self.market.closed(item.cell):
                self.close(item)
        self.cash[sale.seller] += result.proceeds
        if not item.closed and item.president is not None:
            shares = {p: h.get(sale.company, 0) for p, h in self.holdings.items()}
            item.president = sh.new_president(self.seats, item.president, shares)

    def close(self, item: Company) -> None:
        """5.1.1 Black Area: the company closes; its trains go to the open
        market, its treasury to the bank; its shares are worthless."""
        item.closed = True
        self.open_market_trains += item.trains
        item.trains = []
        self.bank += item.treasury
        item.treasury = 0
        for held in self.holdings.values():
            held.pop(item.id, None)
        item.open_market = 0
        item.ipo = 0

    def _after_decision(self) -> None:
        if self.pending:
            return
        self.awaiting = False
        if self.last_protector is not None:
            self.turn = (self.seats.index(self.last_protector) + 1) % len(self.seats)
            self.last_protector = None
            self.turn_prices.clear()
            self.bought = False
        else:
            self._advance()

    def _advance(self) -> None:
        self.turn = (self.turn + 1) % len(self.seats)

    # 5.3 Buying shares

    def buy(self, player: str, company: str, source: str, count: int = 1) -> None:
        """One share from the initial offering or the open market; not of a
        company the player sold this round (5.3.3). Several of one company's
        open-market shares while its token is in the brown area (5.1.1)."""
        self._require_turn(player)
        item = self._open(company)
        if (player, company) in self.sold:
            raise Refusal(
                "SOLD_THIS_ROUND",
                f"{player} sold {company} this round; no buying it until after the "
                "next operating rounds (5.3.3)",
            )
        if self.bought:
            raise Refusal("ONE_BUY", "one share a turn (5.3)")
        if item.cell is None:
            raise Refusal("NOT_STARTED", f"{company} has not started")
        # 5.6: initial-offering shares at par, open-market ones at the price
        price = item.par if source == IPO and item.par else self.market.price(item.cell)
        price *= count
        if self.cash[player] < price:
            raise Refusal("NO_CASH", f"{player} has ${self.cash[player]}, needs ${price}")
        if source not in (IPO, OPEN_MARKET):
            raise Refusal("BAD_SOURCE", f"buy from {IPO!r} or {OPEN_MARKET!r}")
        if count != 1 and not (
            source == OPEN_MARKET and mk.may_buy_several(self.market.box(item.cell).zone)
        ):
            raise Refusal("ONE_SHARE", "several only from the open market, brown area (5.1.1)")
        if count < 1 or (item.open_market if source == OPEN_MARKET else item.ipo) < count:
            raise Refusal("NONE_THERE", f"not {count} {company} shares in the {source}")
        self._check_limits(player, company, item)
        if source == OPEN_MARKET:
            item.open_market -= count
        else:
            item.ipo -= 1
        self.cash[player] -= price
        if source == IPO and item.reissued:
            item.reissued -= 1
            item.escrow += price
        else:
            self.bank += price
        self.holdings[player][company] = self.holdings[player].get(company, 0) + count
        self.bought = True
        self.last_actor = player
        self.passes = 0

    def _check_limits(self, player: str, company: str, item: Company) -> None:
        """5.4: one more share must keep the player within 60% of the company
        (past it only in the green and brown zones) and within the
        certificate limit (white-zone companies and privates count)."""
        assert item.cell is not None
        zone = self.market.box(item.cell).zone
        after = self.holdings[player].get(company, 0) + 1
        most = self.data.title.holding_limit_percent * item.shares // 100
        if after > most and not mk.may_exceed_holding_limit(zone):
            raise Refusal("HOLDING_LIMIT", f"{player} may hold at most {most} shares (5.4.1)")
        limit = self.certificate_limit()
        if mk.counts_toward_limit(zone) and self.certificates(player) + 1 > limit:
            raise Refusal("CERTIFICATE_LIMIT", f"{player} is at the limit of {limit} (5.4)")

    def certificates(self, player: str, cells: dict[str, mk.Cell] | None = None) -> int:
        """5.4.1: a president's certificate is one certificate; companies
        outside the white zone do not count; each private counts one.
        `cells`: where tokens are assumed to be (5.3.5)."""
        held = {}
        for company, shares in self.holdings[player].items():
            item = self.companies[company]
            cell = (cells or {}).get(company, item.cell)
            if shares <= 0 or cell is None or item.closed or self.market.closed(cell):
                continue
            certificates = shares
            if item.president == player:
                certificates -= self._certificate_shares(item) - 1
            # a vice-president's certificate: two shares, one certificate (11.6.1)
            certificates -= self.vice_presidents.get((player, company), 0)
            held[company] = sh.Holding(certificates, self.market.box(cell).zone)
        owned = sum(owner == player for owner in self.privates.values())
        return sh.certificate_count(held, owned)

    def use_p4(self, player: str, company: str) -> None:
        """16.2 P4 London Investment: a free share of a company started this
        stock round, from the initial offering; it is the turn's purchase."""
        self._require_turn(player)
        if self.privates.get("P4") != player:
            raise Refusal("NOT_OWNER", f"{player} does not own P4")
        if company not in self.started_this_round:
            raise Refusal("NOT_NEW", f"{company} was not started this stock round (16.2)")
        if self.bought:
            raise Refusal("ONE_BUY", "P4's share counts as the turn's purchase (16.2)")
        item = self._open(company)
        if item.ipo < 1:
            raise Refusal("NONE_THERE", f"no {company} share in the initial offering")
        item.ipo -= 1
        self.holdings[player][company] = self.holdings[player].get(company, 0) + 1
        self.bought = True
        self.last_actor = player
        self.passes = 0
        del self.privates["P4"]

    # 5.7 The initial stock round's privates

    def buy_private(self, player: str, private: str) -> None:
        """A private at its current price; P7 brings the CoG president's
        certificate, whose par the buyer sets at once (16.2)."""
        self._require_turn(player)
        if private not in self.private_prices:
            raise Refusal("NOT_FOR_SALE", f"{private} is not for sale")
        price = self.private_prices[private]
        if self.cash[player] < price:
            raise Refusal("NO_CASH", f"{player} has ${self.cash[player]}, needs ${price}")
        del self.private_prices[private]
        self.cash[player] -= price
        self.bank += price
        self.privates[private] = player
        of = self.data.private(private).president_share_of
        if of is not None:
            item = self.companies[of]
            item.president = player
            item.ipo -= self.data.title.president_shares
            self.holdings[player][of] = self.data.title.president_shares
        self.bought = True
        self.last_actor = player
        self.passes = 0

    def par(self, player: str, company: str, price: int) -> None:
        """5.6: the president sets the par; the token goes to its box."""
        item = self._open(company)
        if item.president != player:
            raise Refusal("NOT_PRESIDENT", f"{player} does not hold {company}'s certificate")
        if item.cell is not None:
            raise Refusal("ALREADY_PAR", f"{company} already has a par")
        if price not in self.data.title.par_prices:
            raise Refusal("BAD_PAR", f"${price} is not a par value (5.6.1)")
        item.cell = self.market.par_cell(price)
        item.par = price
        self.started_this_round.add(company)

    def all_pass_before_p7(self) -> None:
        """5.7: everyone passed with P7 unsold: the privates pay (the
        operating round of privates) and P1, if unsold, costs $5 less."""
        if "P7" not in self.private_prices:
            raise Refusal("P7_SOLD", "the rule applies only while P7 is unsold (5.7)")
        for private, owner in self.privates.items():
            revenue = self.data.private(private).revenue
            self.cash[owner] += revenue
            self.bank -= revenue
        if "P1" in self.private_prices:
            self.private_prices["P1"] = max(0, self.private_prices["P1"] - 5)
            if self.private_prices["P1"] == 0:
                # at $0 the priority holder must take it, as his turn's action
                del self.private_prices["P1"]
                self.privates["P1"] = self.current

    # 5.10 Redemption, 5.11 Reissue

    def redeem(self, player: str, company: str, source: str, consent: bool = False) -> None:
        """The president redeems one share at the market price from the open
        market (first) or, with its holder's consent, from a player; it is
        his whole turn's action (5.10)."""
        self._require_turn(player)
        item = self._open(company)
        if item.president != player:
            raise Refusal("NOT_PRESIDENT", f"{player} is not {company}'s president")
        if self.bought or any(p.seller == player for p in self.pending):
            raise Refusal(
                "ACTS_FOR_COMPANY", "a president acting for his company does nothing else (5.2)"
            )
        if source not in (OPEN_MARKET, IPO, player) and not consent:
            raise Refusal("NO_CONSENT", f"{source} has not agreed to sell to {company} (5.10)")
        if item.cell is None:
            raise Refusal("NOT_STARTED", f"{company} has not started")
        price = self.market.price(item.cell)
        players = {p: h[company] for p, h in self.holdings.items() if h.get(company)}
        state = mk.RedemptionState(
            holdings=mk.Holdings(players, item.ipo, item.redeemed, item.open_market),
            shares=item.shares,
            president=player,
            price=price,
            treasury=item.treasury,
            operating=item.operated,
            floated_this_round=company in self.started_this_round,
            redeemed_this_round=item.redeemed_this_round,
            system=item.system,
        )
        refusal = mk.redemption_refusal(self.data, state, source)
        if refusal is not None:
            raise Refusal(refusal, f"{company} may not redeem from {source} (5.10)")
        item.treasury -= price
        if source == OPEN_MARKET:
            item.open_market -= 1
            self.bank += price
        else:
            self.holdings[source][company] -= 1
            self.cash[source] += price
        item.redeemed += 1
        item.redeemed_this_round += 1
        self.bought = True
        self.last_actor = player
        self.passes = 0

    def reissue(self, player: str, company: str) -> int:
        """All the company's redeemed shares go back to the initial offering
        at the new par (5.11); returns the par."""
        self._require_turn(player)
        item = self._open(company)
        if item.president != player:
            raise Refusal("NOT_PRESIDENT", f"{player} is not {company}'s president")
        if self.bought:
            raise Refusal(
                "ACTS_FOR_COMPANY", "a president acting for his company does nothing else (5.2)"
            )
        refusal = sh.reissue_refusal(
            sh.ReissueState(
                redeemed=item.redeemed,
                initial_offering=item.ipo,
                reissued_this_round=item.reissued_this_round,
                operating=item.operated,
            )
        )
        if refusal is not None:
            raise Refusal(refusal, f"{company} may not reissue (5.11)")
        assert item.cell is not None
        item.par = mk.reissue_par(self.data, item.par, self.market.price(item.cell))
        item.reissued += item.redeemed
        item.ipo += item.redeemed
        item.redeemed = 0
        item.reissued_this_round = True
        self.bought = True
        self.last_actor = player
        self.passes = 0
        return item.par

    # 5.2.2 Ending a stock round

    def pass_turn(self, player: str) -> None:
        """A pass; when every player has passed in turn the round ends."""
        self._require_turn(player)
        if self.bought or self.turn_prices:
            raise Refusal("ALREADY_ACTED", f"{player} has acted this turn; it is over when he says")
        self._within_limit(player)
        self.passes += 1
        self._advance()
        if self.passes >= len(self.seats):
            self.end()

    def end(self) -> None:
        """5.2.2, 5.2.3, 5.6.4, 5.11: the priority card goes left of the last
        to act; companies with every share out of the initial offering and
        open market move up, highest price first; companies with six shares
        sold float with ten times par; reissued shares' money is released."""
        if self.last_actor is not None:
            self.turn = (self.seats.index(self.last_actor) + 1) % len(self.seats)
        live = [
            (c.id, c.cell) for c in self.companies.values() if c.cell is not None and not c.closed
        ]
        for company in mk.share_price_order(self.market, live):
            item = self.companies[company]
            if item.ipo == 0 and item.open_market == 0 and item.cell is not None:
                item.cell = self.market.up(item.cell)
        for item in self.companies.values():
            if item.closed or item.cell is None:
                continue
            enough = self.data.title.shares_to_operate
            if not item.floated and self.sold_toward_operating(item.id) >= enough:
                item.floated = True
                paid = mk.starting_treasury(self.data, item.par)
                item.treasury += paid
                self.bank -= paid
            item.treasury += item.escrow
            item.escrow = 0
            item.redeemed_this_round = 0
            item.reissued_this_round = False
        self.started_this_round.clear()
        self.ended = True

    def after_operating_rounds(self) -> None:
        """5.3.3: sellers may buy the companies they sold again."""
        self.sold.clear()
        self.ended = False
        self.passes = 0
        self.last_actor = None

    # 11.7 Takeovers

    def take_over(self, buyer: str, target: str, train_limit: int) -> int:
        """The buyer buys every share of the target that players, the open
        market and the initial offering hold (market price; unsold ones at
        par), its president adding cash when the treasury is short; it
        inherits the target's trains and money, excess trains going to the
        open market; the certificate limit moves one column. Returns the cost.
        Whether the merger may be proposed (phase, connection) is the merger
        round's question, not this one's."""
        first = self._open(buyer)
        second = self._open(target)
        if first.cell is None or second.cell is None or first.president is None:
            raise Refusal("NOT_STARTED", "both companies must be operating (11.5)")
        players = {p: h.get(target, 0) for p, h in self.holdings.items() if h.get(target, 0)}
        cost = mk.takeover_cost(
            mk.Holdings(players, second.ipo, second.redeemed, second.open_market),
            self.market.price(second.cell),
            second.par,
        )
        short = max(0, cost.total - first.treasury)
        if short > self.cash[first.president]:
            raise Refusal(
                "CANNOT_PAY",
                f"{buyer} and its president are ${short - self.cash[first.president]} short; "
                "no takeover (11.7)",
            )
        self.cash[first.president] -= short
        first.treasury += short - cost.total
        for player, amount in cost.to_players.items():
            self.cash[player] += amount
            self.holdings[player].pop(target, None)
        self.bank += cost.to_bank
        first.treasury += second.treasury
        first.trains += second.trains
        while len(first.trains) > train_limit:
            dropped = min(first.trains, key=self._train_price)
            first.trains.remove(dropped)
            self.open_market_trains.append(dropped)
        second.treasury = 0
        second.trains = []
        second.closed = True
        second.taken_over = True
        second.ipo = second.open_market = second.redeemed = 0
        self.shells_taken_over += 2 if second.system else 1
        return cost.total

    def _certificate_shares(self, item: Company) -> int:
        """The shares of the president's certificate: 2, or 4 for a System."""
        if item.system:
            return self.data.extras.systems.president_shares
        return self.data.title.president_shares

    # 11.6 Systems

    def form_system(self, initiator: str, first: str, second: str, name: str) -> str:
        """Two 10-share companies become a 20-share System. The initiator, or
        the first player clockwise from him with 40% of the two together,
        exchanges 40% (his president's certificates first) for the System's
        president's certificate; the other presidents' certificates become
        vice-president's; every other share is a share of the System; the
        token goes where 11.6.3 puts it; treasuries and trains join. Returns
        the System's president."""
        one, two = self._open(first), self._open(second)
        if one.system or two.system or one.cell is None or two.cell is None:
            raise Refusal("NOT_ELIGIBLE", "two operating 10-share companies form a System (11.5)")
        if name not in self.data.extras.systems.names or name in self.companies:
            raise Refusal("BAD_NAME", f"System names: {', '.join(self.data.extras.systems.names)}")
        combined = {p: h.get(first, 0) + h.get(second, 0) for p, h in self.holdings.items()}
        president = mk.system_president(self.data, initiator, self.seats, combined)
        if president is None:
            raise Refusal("NO_SYSTEM_PRESIDENT", "no player holds 40% of the two (11.6.1)")
        certificate = self.data.extras.systems.president_shares
        removed = 0
        for item in (one, two):
            if item.president == president:
                removed += 1
        left = certificate - removed * self.data.title.president_shares
        removed += left  # single shares make up the rest of the 40%
        cell, price = self.market.system_placement(one.cell, two.cell)
        system = Company(
            id=name,
            cell=cell,
            president=president,
            ipo=one.ipo + two.ipo,
            open_market=one.open_market + two.open_market,
            treasury=one.treasury + two.treasury,
            trains=one.trains + two.trains,
            par=mk.system_par(self.data, price),
            redeemed=one.redeemed + two.redeemed,
            operated=True,
            floated=True,
            system=True,
            shares=self.data.extras.systems.shares,
        )
        self.companies[name] = system
        for held in self.holdings.values():
            total = held.pop(first, 0) + held.pop(second, 0)
            if total:
                held[name] = total
        for item in (one, two):
            if item.president is not None and item.president != president:
                key = (item.president, name)
                self.vice_presidents[key] = self.vice_presidents.get(key, 0) + 1
            item.in_system = name
            item.closed = True
            item.cell = None
            item.treasury, item.trains = 0, []
        self.system_certificates_removed = removed
        shares = {p: h.get(name, 0) for p, h in self.holdings.items()}
        system.president = sh.new_president(self.seats, president, shares)
        return system.president

    def _train_price(self, name: str) -> int:
        return next(t.price for t in self.data.title.trains if t.name == name)

    def sold_toward_operating(self, company: str) -> int:
        """5.6.3: shares out of the initial offering (six start the company)."""
        return self.companies[company].shares - self.companies[company].ipo
