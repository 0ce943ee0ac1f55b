"""1832's stock market and money arithmetic (docs/rules-1832.md, 5, 9, 11):
token moves with the soft and lower ledges and the closing zone, dividends,
System price and par, reissue, redemption, takeover cost and certificate
limits. Pure functions of the title data; every number comes from it.

Positions are (row, column) from the top-left box of the grid. A box is in
one of the zones "white", "yellow", "green", "brown" or "closed" (5.1.1); the
boxes below the soft ledge form the lower area, and the bottom box of each
column is on the lower ledge.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.titles.c1832.data import Data1832

Cell = tuple[int, int]
Zone = Literal["white", "yellow", "green", "brown", "closed"]
Direction = Literal["up", "down", "left", "right"]
DividendKind = Literal["full", "half", "withhold"]
ZONES: dict[str, Zone] = {
    "yellow": "yellow",
    "green": "green",
    "brown": "brown",
    "closed": "closed",
}


class MarketError(TurnprocError):
    """A market position or holding that the rules do not allow."""


@dataclass(frozen=True)
class Box:
    price: int
    zone: Zone
    lower: bool  # below the soft ledge (5.1.1 Lower Area)
    par: bool  # red outlined: a company may start here (5.6)


def round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator to the nearest dollar, halves up (9.1.1)."""
    return (2 * numerator + denominator) // (2 * denominator)


class Market:
    """The 11x21 grid of title.json's `market` (5.1, 5.8)."""

    def __init__(self, rows: tuple[tuple[str, ...], ...]) -> None:
        self.grid: list[list[Box]] = []
        for row in rows:
            boxes = []
            for text in row:
                price, *marks = text.split()
                zone: Zone = ZONES.get(marks[0], "white") if marks else "white"
                boxes.append(Box(int(price), zone, "lower" in marks, "par" in marks))
            self.grid.append(boxes)

    def exists(self, cell: Cell) -> bool:
        row, col = cell
        return 0 <= row < len(self.grid) and 0 <= col < len(self.grid[row])

    def box(self, cell: Cell) -> Box:
        if not self.exists(cell):
            raise MarketError(f"no market box at row {cell[0]}, column {cell[1]}")
        return self.grid[cell[0]][cell[1]]

    def price(self, cell: Cell) -> int:
        return self.box(cell).price

    def closed(self, cell: Cell) -> bool:
        """5.1.1 Black Area: a company whose token enters it closes."""
        return self.box(cell).zone == "closed"

    def on_soft_ledge(self, cell: Cell) -> bool:
        """An upper-area box with the lower area right below it (5.8.1)."""
        row, col = cell
        below = (row + 1, col)
        return not self.box(cell).lower and self.exists(below) and self.box(below).lower

    def on_lower_ledge(self, cell: Cell) -> bool:
        """The bottom box of its column (Glossary: Lower Ledge)."""
        return not self.exists((cell[0] + 1, cell[1]))

    def par_cell(self, price: int) -> Cell:
        """5.6.1: the red-outlined box of a par price."""
        for r, row in enumerate(self.grid):
            for c, box in enumerate(row):
                if box.par and box.price == price:
                    return (r, c)
        raise MarketError(f"${price} is not a par value")

    def values(self) -> list[int]:
        """Every value shown outside the closed area, lowest first."""
        return sorted({b.price for row in self.grid for b in row if b.zone != "closed"})

    # 5.8.1 Direction

    def up(self, cell: Cell) -> Cell:
        """UP: one row up; on the top row one space right and one down
        instead (the same value); the top-right box stays put."""
        row, col = cell
        if row > 0 and self.exists((row - 1, col)):
            return (row - 1, col)
        if row == 0:
            target = (row + 1, col + 1)
            return target if self.exists((row, col + 1)) and self.exists(target) else cell
        return cell

    def right(self, cell: Cell) -> Cell:
        """RIGHT: one space right; where the market edge or the soft ledge
        stops it (an up arrow, 5.8.3), one space up instead."""
        row, col = cell
        target = (row, col + 1)
        if not self.exists(target) or (self.box(target).lower and not self.box(cell).lower):
            return self.up(cell)
        return target

    def left(self, cell: Cell) -> Cell:
        """LEFT: one space left; at the left edge (a down arrow) one space
        down. May enter the closed area, and the upper area from the lower."""
        row, col = cell
        if col > 0:
            return (row, col - 1)
        below = (row + 1, col)
        return below if self.exists(below) else cell

    def down(self, cell: Cell, steps: int = 1) -> Cell:
        """DOWN by `steps` (one per unprotected share sold, 5.8.2): on the soft
        ledge with exactly one step left the token stays; with two or more it
        crosses and moves them all [designed]; on the lower ledge it stops."""
        if steps < 0:
            raise MarketError("a token cannot move down a negative number of spaces")
        left = steps
        while left > 0 and not self.closed(cell):
            if self.on_lower_ledge(cell):
                break
            if self.on_soft_ledge(cell) and left == 1:
                break
            cell = (cell[0] + 1, cell[1])
            left -= 1
        return cell

    def move(self, cell: Cell, directions: list[Direction]) -> Cell:
        """Each move in turn; a token that enters the closed area stays there."""
        for direction in directions:
            if self.closed(cell):
                break
            if direction == "down":
                cell = self.down(cell)
            else:
                cell = {"up": self.up, "left": self.left, "right": self.right}[direction](cell)
        return cell

    def after_sale(self, cell: Cell, shares: int) -> Cell:
        """5.3.3: one block of `shares` sold at once, unprotected."""
        return self.down(cell, shares)

    def after_dividend(self, cell: Cell, kind: DividendKind, income: int) -> Cell:
        """9.3: right for a full dividend, left when retained or for a
        dividend of $0, not moved for a half dividend."""
        if kind == "half" and income > 0:
            return cell
        if kind == "full" and income > 0:
            return self.right(cell)
        return self.left(cell)

    # 11.6.3 New Share Price

    def nearest_value(self, amount_x2: int) -> int:
        """The market value nearest to amount_x2 / 2; exactly between two
        values rounds up (11.6.3)."""
        best = None
        for value in self.values():
            distance = abs(2 * value - amount_x2)
            if best is None or distance <= best[0]:
                best = (distance, value)
        assert best is not None
        return best[1]

    def system_placement(self, first: Cell, second: Cell) -> tuple[Cell, int]:
        """11.6.3: the System's box and par. The price is the average of the
        two tokens' values rounded to a market value; the token goes in that
        value's box on the row of the leftmost predecessor (of the lower one
        if both are in one column [designed]) and slides down and to the right
        until the soft or the lower ledge. The par is that price capped."""
        value = self.nearest_value(self.price(first) + self.price(second))
        if first[1] != second[1]:
            row = min(first, second, key=lambda c: c[1])[0]
        else:
            row = max(first[0], second[0])
        cell = self._box_of_value(row, value)
        lower = self.box(cell).lower
        while True:
            nxt = (cell[0] + 1, cell[1] + 1)
            if not self.exists(nxt) or self.box(nxt).lower != lower or self.closed(nxt):
                break
            cell = nxt
        return cell, value

    def _box_of_value(self, row: int, value: int) -> Cell:
        """The box of `value` on `row`; when that row does not show the value,
        the nearest row that does [designed]."""
        rows = sorted(range(len(self.grid)), key=lambda r: (abs(r - row), r))
        for r in rows:
            for c, box in enumerate(self.grid[r]):
                if box.price == value and box.zone != "closed":
                    return (r, c)
        raise MarketError(f"no box shows ${value}")


def system_par(data: Data1832, price: int) -> int:
    """11.6.3: the System's par is its new share price, at most the cap ($275)."""
    return min(price, data.extras.systems.par_cap)


# 9 Dividends


@dataclass(frozen=True)
class Holdings:
    """Who holds a company's shares (a president's certificate counts its
    shares): players by name, the initial offering, the company's redeemed
    shares and the open market."""

    players: Mapping[str, int]
    initial_offering: int = 0
    redeemed: int = 0
    open_market: int = 0

    def total(self) -> int:
        return sum(self.players.values()) + self.initial_offering + self.redeemed + self.open_market


@dataclass(frozen=True)
class Payout:
    """The bank's payments for one run (9.1): to each player, to the company
    (its initial-offering and redeemed shares plus what it retains), and what
    the open market's shares earn, which stays in the bank (9.1.1)."""

    players: dict[str, int]
    company: int
    retained: int
    open_market: int
    per_share: int | None  # when every share gets the same whole amount


def dividend(kind: DividendKind, income: int, holdings: Holdings, shares: int) -> Payout:
    """9.1: a full dividend pays each holding its share of the income, only
    the odd share rounded to the nearest dollar, halves up (9.1.1, 11.6.4); a
    half dividend keeps (income / 2 / shares, rounded down) per share in the
    company and pays the rest as a full dividend, so that a 10-share company
    earning $130 pays $7 a share and keeps $60 (9.1.2); withholding keeps all."""
    if income < 0:
        raise MarketError("income cannot be negative")
    if holdings.total() != shares:
        raise MarketError(f"holdings add up to {holdings.total()} shares, not {shares}")
    if kind == "withhold":
        return Payout({name: 0 for name in holdings.players}, income, income, 0, 0)
    retained = 0
    paid = income
    if kind == "half":
        retained = (income // (2 * shares)) * shares
        paid = income - retained
    own = holdings.initial_offering + holdings.redeemed
    players = {name: round_half_up(n * paid, shares) for name, n in holdings.players.items()}
    per_share = paid // shares if paid % shares == 0 else None
    return Payout(
        players=players,
        company=retained + round_half_up(own * paid, shares),
        retained=retained,
        open_market=round_half_up(holdings.open_market * paid, shares),
        per_share=per_share,
    )


# 5.11 Reissue


def reissue_minimum_price(data: Data1832, par: int) -> int:
    """5.11: the least share price that reissues at `par` (the bracketed
    number of a par box): the price whose 75% is at least halfway from the
    next lower par [designed: the printed numbers are not in the text]."""
    pars = data.extras.reissue.pars
    if par not in pars:
        raise MarketError(f"${par} is not a reissue par value")
    index = pars.index(par)
    if index == 0:
        return 0
    halfway_x2 = pars[index - 1] + par
    pct = data.extras.reissue.percent_of_price
    # price * pct / 100 >= halfway_x2 / 2  <=>  price >= halfway_x2 * 50 / pct
    return -(-halfway_x2 * 50 // pct)


def reissue_par(data: Data1832, old_par: int, price: int) -> int:
    """5.11: the higher of the old par and 75% of the current price rounded
    to the nearest reissue par (halves up), never above the highest ($200)."""
    pars = data.extras.reissue.pars
    eligible = [p for p in pars if price >= reissue_minimum_price(data, p)]
    rounded = max(eligible) if eligible else pars[0]
    return min(max(old_par, rounded), max(pars))


# 5.10 Redemption


@dataclass(frozen=True)
class RedemptionState:
    """What 5.10 asks of a company that wants to redeem one share."""

    holdings: Holdings
    shares: int
    president: str
    price: int
    treasury: int
    operating: bool = True
    floated_this_round: bool = False
    redeemed_this_round: int = 0
    system: bool = False


def redemption_refusal(data: Data1832, state: RedemptionState, source: str) -> str | None:
    """5.10, 11.6.9: None when the company may redeem one share from `source`
    ("open market", "initial offering" or a player's name), else the
    reason's code."""
    rules = data.extras.redemption
    held = state.holdings
    per_round = (
        data.extras.systems.redemptions_per_stock_round if state.system else rules.per_stock_round
    )
    if source == "initial offering":
        return "INITIAL_OFFERING_NOT_REDEEMABLE"
    if not state.operating:
        return "NOT_OPERATING"
    if state.floated_this_round:
        return "FLOATED_THIS_ROUND"
    if state.redeemed_this_round >= per_round:
        return "REDEMPTION_LIMIT_THIS_ROUND"
    if (held.redeemed + 1) * 100 > rules.most_held_percent * state.shares:
        return "COMPANY_HOLDS_MOST_ALLOWED"
    outside = sum(held.players.values()) + held.open_market
    if (outside - 1) * 100 < rules.least_outside_percent * state.shares:
        return "TOO_FEW_SHARES_OUTSIDE"
    if state.treasury < state.price:
        return "TREASURY_TOO_SMALL"
    if source == "open market":
        return None if held.open_market > 0 else "NO_SHARE_IN_OPEN_MARKET"
    if held.open_market > 0:
        return "OPEN_MARKET_FIRST"
    owned = held.players.get(source, 0)
    if source == state.president:
        certificate = (
            data.extras.systems.president_shares if state.system else data.title.president_shares
        )
        if owned - certificate < 1:
            return "ONLY_PRESIDENTS_CERTIFICATE"
        others = [n for name, n in held.players.items() if name != source]
        if others and owned - 1 < max(others):
            return "WOULD_CHANGE_PRESIDENT"
        return None
    return None if owned > 0 else "PLAYER_HOLDS_NO_SHARE"


# 11.7 Takeovers


@dataclass(frozen=True)
class TakeoverCost:
    """11.7: players' and open-market shares at the market price, unsold
    shares at par; the company's redeemed shares are not bought."""

    to_players: dict[str, int]
    to_bank: int  # open-market shares and unsold shares

    @property
    def total(self) -> int:
        return sum(self.to_players.values()) + self.to_bank


def takeover_cost(holdings: Holdings, price: int, par: int) -> TakeoverCost:
    return TakeoverCost(
        to_players={name: n * price for name, n in holdings.players.items() if n},
        to_bank=holdings.open_market * price + holdings.initial_offering * par,
    )


# 5.4 Certificate limits


def companies_in_play(data: Data1832, closed: int, shells_taken_over: int) -> int:
    """5.1.1, 11.7: companies active or available to be started: ten less one
    for each company closed and one for each shell taken over."""
    return len(data.title.companies) - closed - shells_taken_over


def certificate_limit(data: Data1832, players: int, companies: int) -> int:
    """Table 2 (21): the column of `companies` (the last column for that many
    or fewer)."""
    table = data.title.certificate_limits
    if players < 2 or str(players) not in data.title.players:
        raise MarketError(f"1832 is for 2 to 7 players, not {players}")
    columns = table.companies
    if companies >= columns[0]:
        return table.row(players)[0]
    for index, column in enumerate(columns):
        if companies >= column:
            return table.row(players)[index]
    return table.row(players)[-1]


def counts_toward_limit(zone: Zone) -> bool:
    """5.1.1, 5.4.1: shares of a company in the yellow, green or brown zone do
    not count toward the certificate limit."""
    return zone == "white"


def may_exceed_holding_limit(zone: Zone) -> bool:
    """5.1.1: in the green and brown zones a player may buy past 60%."""
    return zone in ("green", "brown")


def may_buy_several(zone: Zone) -> bool:
    """5.1.1 Brown Area: any or all of one company's open-market shares in
    one stock turn."""
    return zone == "brown"


def open_market_room(data: Data1832, shares: int, in_open_market: int) -> int:
    """5.4.2: how many more shares the open market may take (at most 50%)."""
    most = data.title.market_pool_limit_percent * shares // 100
    return max(0, most - in_open_market)


def starting_cash(data: Data1832, players: int, southern_bank: bool = False) -> int:
    """3.3, Table 2: each player's starting capital."""
    seats = data.title.players.get(str(players))
    if seats is None:
        raise MarketError(f"1832 is for 2 to 7 players, not {players}")
    return seats.cash_southern_bank if southern_bank else seats.cash


def private_price_range(data: Data1832, private: str, phase: str) -> tuple[int, int] | None:
    """4.1.3, 12.1, 16.2: what a company may pay a player for a private in
    a phase, or None when it may not buy it."""
    item = data.private(private)
    sale = data.extras.private_sale
    rule = data.phase(phase).privates
    if not item.company_may_buy or rule == "closed":
        return None
    least = -(-item.value * sale.least_percent // 100)
    if phase == data.title.phases[0].name:
        if private not in sale.phase_2_privates:
            return None
        return least, item.value * sale.phase_2_most_percent // 100
    return least, item.value * sale.most_percent // 100


def starting_treasury(data: Data1832, par: int) -> int:
    """5.6.4: ten times the par, paid when the stock round ends."""
    return data.title.shares_per_company * par


@dataclass(frozen=True)
class Sale:
    """5.3.3, 5.9: one player's block of one company's shares."""

    cell: Cell  # where the token ends
    proceeds: int  # what the seller receives
    paid_by: Literal["bank", "president"]


def sell(market: Market, start: Cell, shares: int, protected: bool = False) -> Sale:
    """5.3.3: the shares go at the price of the token when the seller's turn
    began; the token moves down one space a share (5.8.1). 5.9: if the
    president protects, he pays the seller the same and the token stays."""
    proceeds = shares * market.price(start)
    if protected:
        return Sale(start, proceeds, "president")
    return Sale(market.after_sale(start, shares), proceeds, "bank")


def system_president(
    data: Data1832, initiator: str, seats: list[str], holdings: Mapping[str, int]
) -> str | None:
    """11.6.1: the initiator, or the first player clockwise from him, holding
    40% of the two companies together (shares of either, a president's
    certificate counting its two); None when no one does and no System forms."""
    if initiator not in seats:
        raise MarketError(f"{initiator} is not at the table")
    needed = data.extras.systems.exchange_percent * data.title.shares_per_company // 100
    start = seats.index(initiator)
    for player in seats[start:] + seats[:start]:
        if holdings.get(player, 0) >= needed:
            return player
    return None


def share_price_order(market: Market, tokens: list[tuple[str, Cell]]) -> list[str]:
    """4.1.3, Glossary "Share Price Order": highest price first; at one price
    the rightmost box first; in one box from top to bottom, which is the order
    of arrival (`tokens` lists each box's tokens top first, 5.8.4)."""
    arrival = {company: index for index, (company, _) in enumerate(tokens)}
    return [
        company
        for company, cell in sorted(
            tokens, key=lambda t: (-market.price(t[1]), -t[1][1], arrival[t[0]])
        )
    ]


def train_limit(data: Data1832, phase: str, system: bool = False) -> int:
    """4.2, 11.6.7: the phase's limit, per shell: a System (two shells) has
    twice as many."""
    shells = data.extras.systems.shares // data.title.shares_per_company if system else 1
    return data.phase(phase).train_limit * shells


def mortgage_range(data: Data1832, asset_value: int) -> tuple[int, int]:
    """17.3: a Southern Bank mortgage is half to double the asset's value."""
    bank = data.extras.southern_bank
    least = -(-asset_value * bank.least_percent // 100)
    return least, asset_value * bank.most_percent // 100


def mortgage_repayment_range(data: Data1832, asset_value: int) -> tuple[int, int]:
    """17.3: the company repays half to the full value of the asset."""
    bank = data.extras.southern_bank
    least = -(-asset_value * bank.repay_least_percent // 100)
    return least, asset_value * bank.repay_most_percent // 100


def mortgage_interest(data: Data1832, asset_value: int, treasury: int) -> int:
    """17.3: 10% of the mortgaged asset's value at the start of each operating
    round, or nothing when the company cannot pay it (rounded down
    [designed])."""
    interest = asset_value * data.extras.southern_bank.interest_percent // 100
    return interest if treasury >= interest else 0


def civil_war_cash(data: Data1832, cash: int) -> int:
    """17.5: what a company or player pays the bank: half, rounded down."""
    return cash * data.extras.civil_war.cash_percent // 100
