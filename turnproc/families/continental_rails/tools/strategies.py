"""Scripted strategies: one-trick players that test the rules for exploits.

The brief: "a simple trick that beats the computer players is a bug". Each
strategy here is a player, not an engine hook: it sees what a player sees
(`ai.public_view` plus the stock report's bid limits), writes the same typed
orders a turnsheet holds, and `turnproc simulate --strategy NAME@POSITION`
puts them through the intake's order checking
(`turnproc.families.continental_rails.turnsheet.check`) before the engine
resolves them, exactly as a mailed sheet. docs/balance.md reports how each fares
against the computer player of the same seat.

Strategies built on the seat's computer player ("the computer player, but")
keep everything it would do and change only the trick, so the comparison with
the same seat measures the trick alone.
"""

from collections.abc import Callable
from dataclasses import dataclass

from turnproc.families.continental_rails import ai
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.orders import (
    STOCK_KINDS,
    BidForPC,
    Borrow,
    BuyStock,
    CoverShort,
    IssueBonds,
    IssueStock,
    OfferPC,
    Order,
    ProdigalSpending,
    RepayLoan,
    RequestPresidency,
    SellStock,
    SetDividend,
    ShortSell,
    TakeShortLoan,
)
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps import railroad_finance
from turnproc.families.continental_rails.engine.steps.auctions import AuctionsParams
from turnproc.families.continental_rails.engine.steps.stockmarket import market_params, max_bid
from turnproc.scenario.model import Scenario


@dataclass(frozen=True)
class Seat:
    """What the strategy's player knows this turn: the game as his report
    shows it (`ai.public_view`), his stock report's bid limits (9.5), and the
    orders the computer would write for his position (its personality's)."""

    scenario: Scenario
    state: GameState
    position: int
    bid_limits: dict[str, int]
    computer: list[Order]


Strategy = Callable[[Seat], list[Order]]

# Railroad actions a looting president drops: everything that spends the
# railroad's cash on the railroad.
_RAILROAD_SPENDING = frozenset(
    {
        "dividend",
        "issue_stock",
        "issue_bonds",
        "redeem_bonds",
        "short_loan",
        "repay_short_loan",
        "bid_row",
        "build_row",
        "double_track",
        "upgrade_locomotive",
        "buy_technology",
        "political_donation",
        "rate_war",
        "capital_improvement",
        "merge_railroads",
    }
)


def _credit_room(seat: Seat) -> int:
    me = seat.state.tycoon(seat.position)
    limit = valuation.credit_limit(seat.state, seat.scenario, seat.position, seat.state.climate)
    return max(0, limit - me.loan) // 10 * 10


def _presided(seat: Seat) -> list[str]:
    return sorted(
        code for code, rr in seat.state.railroads.items() if rr.president == seat.position
    )


def looter(seat: Seat) -> list[Order]:
    """The computer player, but each railroad it presides issues the most new
    stock, bonds and short loans it may every turn, builds nothing, and pays
    all its cash out as dividends ($99 a share, cut to what the cash allows)."""
    presided = _presided(seat)
    orders = [
        o
        for o in seat.computer
        if o.kind not in _RAILROAD_SPENDING or getattr(o, "railroad", None) not in presided
    ]
    for code in presided:
        rr = seat.state.railroads[code]
        shares = railroad_finance.max_new_shares(
            seat.scenario, rr, seat.state.climate, seat.state.turn
        )
        if shares > 0:
            orders.append(IssueStock(railroad=code, shares=shares))
        bonds = railroad_finance.bond_room(seat.scenario, rr)
        if bonds > 0:
            orders.append(IssueBonds(railroad=code, amount=bonds))
        loan = railroad_finance.loan_room(seat.scenario, rr)
        if loan > 0:
            orders.append(TakeShortLoan(railroad=code, amount=loan))
        orders.append(SetDividend(railroad=code, per_share=99))
    return orders


def director_sweep(seat: Seat) -> list[Order]:
    """Buys just over the director's share (10%) of every railroad, cheapest
    first, with its cash and all the credit the bank gives in times that are
    not bad; does nothing else."""
    me = seat.state.tycoon(seat.position)
    director = market_params(seat.scenario).director_percent
    orders: list[Order] = []
    money = max(0, me.cash - 100)
    if seat.state.climate <= 4:
        room = _credit_room(seat)
        if room > 0:
            orders.append(Borrow(amount=room))
            money += room
    for rr in sorted(seat.state.railroads.values(), key=lambda r: (r.price, r.code)):
        aim = -(-rr.issued * director // 100) + max(1, rr.issued // 100)
        shares = min(aim - me.holdings.get(rr.code, 0), seat.bid_limits.get(rr.code, 0))
        shares = min(shares, money // max(1, rr.price))
        if shares > 0:
            orders.append(BuyStock(railroad=rr.code, shares=shares))
            money -= shares * max(1, rr.price)
    return orders


def minimal_prodigal(seat: Seat) -> list[Order]:
    """The computer player, but it spends exactly the Prodigal minimum ($1,000)
    every turn and never more."""
    orders = [o for o in seat.computer if o.kind != "prodigal"]
    return [ProdigalSpending(amount=1000), *orders]


def short_seller(seat: Seat) -> list[Order]:
    """The computer player without its own stock orders: from Normal down it
    sells short the dearest railroads (relative to their dividend) with most of
    its cash as margin; it covers when times turn good or a short has fallen
    a fifth."""
    state = seat.state
    base = [o for o in seat.computer if o.kind not in STOCK_KINDS]
    me = state.tycoon(seat.position)
    limits = seat.bid_limits
    margin = market_params(seat.scenario).shorts.margin_percent
    orders: list[Order] = []
    for code, owed in sorted(me.shorts.items()):
        rr = state.railroads.get(code)
        if rr is None:
            continue
        collateral = me.short_proceeds.get(code, 0)
        sold_at = collateral * 100 // ((100 + margin) * owed) if owed else 0
        if state.climate <= 2 or rr.price * 5 <= sold_at * 4:
            orders.append(CoverShort(railroad=code, shares=owed))
    if 4 <= state.climate < 8:
        money = max(0, me.cash - 100) * 80 // 100
        dear = sorted(
            (r for r in state.railroads.values() if r.price >= 10 and r.code not in me.shorts),
            key=lambda r: (r.dividend * 100 // r.price, -r.price, r.code),
        )
        for rr in dear[:4]:
            shares = min(limits.get(rr.code, 0), money // max(1, rr.price * margin // 100))
            if shares > 0:
                orders.append(ShortSell(railroad=rr.code, shares=shares))
                money -= shares * rr.price * margin // 100
    return orders + base


def corner(seat: Seat) -> list[Order]:
    """The computer player without its own stock orders: everything it has and
    can borrow goes into one railroad every turn (the one it holds most of, at
    first the cheapest) until it owns more than half; it asks to preside it."""
    state = seat.state
    base = [o for o in seat.computer if o.kind not in STOCK_KINDS]
    base = [o for o in base if o.kind not in {"borrow", "request_presidency"}]
    me = state.tycoon(seat.position)
    candidates = [r for r in state.railroads.values() if r.price >= 3]
    if not candidates:
        return base
    target = max(candidates, key=lambda r: (me.holdings.get(r.code, 0) * 100 // r.issued, -r.price))
    orders: list[Order] = []
    money = max(0, me.cash - 100)
    room = _credit_room(seat)
    if room > 0 and state.climate <= 5:
        orders.append(Borrow(amount=room))
        money += room
    shares = min(seat.bid_limits.get(target.code, 0), money // target.price)
    if shares > 0:
        orders.append(BuyStock(railroad=target.code, shares=shares))
    return orders + base + [RequestPresidency(railroad=target.code)]


def pc_hoarder(seat: Seat) -> list[Order]:
    """Buys the cheapest PCs on offer, never incorporates or merges them,
    lives on their income and offers them at 20% more every turn."""
    state = seat.state
    me = state.tycoon(seat.position)
    auctions = seat.scenario.section("auctions", AuctionsParams)
    orders: list[Order] = []
    for code in sorted(me.pcs):
        pc = state.pcs[code]
        price = max(pc.asking_price, 100) * (100 + auctions.offers.max_raise_percent) // 100
        orders.append(OfferPC(pc=code, price=price // 10 * 10))
    slots = auctions.auction.max_pcs - len(me.pcs)
    money = max(0, me.cash - 100)
    on_sale = sorted(
        (pc.asking_price, pc.code)
        for pc in state.pcs.values()
        if pc.status == "available" and pc.asking_price > 0
    )
    for price, code in on_sale[: max(0, slots)]:
        if price <= money:
            orders.append(BidForPC(pc=code, amount=price))
            money -= price
    return orders


def idle(seat: Seat) -> list[Order]:
    """Sends no orders at all (a player who signed up and never wrote)."""
    return []


def yield_trader(seat: Seat) -> list[Order]:
    """Holds only the best-yielding stocks: sells every holding yielding less
    than the best ones and puts all its cash into the three highest
    dividend yields, each turn; owns no PC and presides nothing by choice."""
    state = seat.state
    me = state.tycoon(seat.position)
    limits = seat.bid_limits
    ranked = sorted(
        (r for r in state.railroads.values() if r.price >= 3 and r.dividend > 0),
        key=lambda r: (-(r.dividend * 1000 // r.price), r.code),
    )
    best = [r.code for r in ranked[:3]]
    orders: list[Order] = []
    money = max(0, me.cash - 100)
    for code, held in sorted(me.holdings.items()):
        if held > 0 and code not in best and code in state.railroads:
            orders.append(SellStock(railroad=code, shares=held))
            money += held * state.railroads[code].price // 2  # 6.1 worst case: half the quote
    for code in best:
        rr = state.railroads[code]
        shares = min(limits.get(code, 0), money // len(best) // max(1, rr.price))
        if shares > 0:
            orders.append(BuyStock(railroad=code, shares=shares))
    return orders


def _borrow_all(seat: Seat, percent: int = 100) -> tuple[list[Order], int]:
    """A borrow order for `percent` of the credit room the last report showed
    (3.4), and the amount."""
    room = _credit_room(seat) * percent // 100 // 10 * 10
    return ([Borrow(amount=room)] if room > 0 else []), room


def prodigal_farmer(seat: Seat) -> list[Order]:
    """Bankrupt-and-restart Prodigal farming: every turn it borrows its whole
    credit limit (3.4) and spends all its cash on Prodigal (1.2); when the
    loan is recalled it goes bankrupt (3.6), restarts with the grubstake and
    does the same again. It does nothing else."""
    me = seat.state.tycoon(seat.position)
    orders, room = _borrow_all(seat)
    money = me.cash + room
    if money > 0:
        orders.append(ProdigalSpending(amount=money))
    return orders


def _sweep_buys(seat: Seat, money: int) -> list[Order]:
    """Buy just over the director's share (10%) of every railroad, cheapest
    first, with `money` (the director sweep's stock orders)."""
    me = seat.state.tycoon(seat.position)
    director = market_params(seat.scenario).director_percent
    orders: list[Order] = []
    for rr in sorted(seat.state.railroads.values(), key=lambda r: (r.price, r.code)):
        aim = -(-rr.issued * director // 100) + max(1, rr.issued // 100)
        shares = min(aim - me.holdings.get(rr.code, 0), seat.bid_limits.get(rr.code, 0))
        shares = min(shares, money // max(1, rr.price))
        if shares > 0:
            orders.append(BuyStock(railroad=rr.code, shares=shares))
            money -= shares * max(1, rr.price)
    return orders


def _largest_holdings(seat: Seat, count: int) -> list[str]:
    """The railroads it holds the most of (by market value), largest first."""
    me = seat.state.tycoon(seat.position)
    held = [
        (held * seat.state.railroads[code].price, code)
        for code, held in me.holdings.items()
        if held > 0 and code in seat.state.railroads
    ]
    return [code for _, code in sorted(held, reverse=True)[:count]]


def _presided_orders(seat: Seat) -> list[Order]:
    """The computer player's railroad actions for the railroads it presides
    (a strategy that takes a presidency runs the railroad as the computer would)."""
    presided = set(_presided(seat))
    return [
        o
        for o in seat.computer
        if getattr(o, "railroad", None) in presided
        and o.kind not in STOCK_KINDS
        and o.kind != "request_presidency"
    ]


def leveraged_sweep(seat: Seat) -> list[Order]:
    """The director sweep on borrowed money: while the climate is Normal or
    better it borrows 90% of its credit room and buys just over 10% of every
    railroad, cheapest first; from Recession on it repays the loan with all
    its cash. It asks for the presidency of its two largest holdings (the
    4.10 salary) and runs them as the computer would."""
    me = seat.state.tycoon(seat.position)
    orders: list[Order] = []
    money = max(0, me.cash - 100)
    if seat.state.climate <= 4:
        borrowed, room = _borrow_all(seat, 90)
        orders += borrowed
        money += room
        orders += _sweep_buys(seat, money)
    elif me.loan > 0 and me.cash > 0:
        orders.append(RepayLoan(amount=min(me.loan, me.cash)))
    orders += _presided_orders(seat)
    orders += [RequestPresidency(railroad=code) for code in _largest_holdings(seat, 2)]
    return orders


def chairman_mogul(seat: Seat) -> list[Order]:
    """Rail Mogul by chairmanships: the computer player without its stock
    orders and presidency requests; every turn all its cash goes into the five
    railroads of the smallest market value until it holds 30% of each, and it
    asks to preside only the two it holds most of, so that it sits as chairman
    (the largest holder, 4.14) of the other three."""
    state = seat.state
    me = state.tycoon(seat.position)
    base = [
        o
        for o in seat.computer
        if o.kind not in STOCK_KINDS and o.kind not in {"request_presidency", "prodigal"}
    ]
    traded = [r for r in state.railroads.values() if r.price >= 3]
    targets = sorted(traded, key=lambda r: (r.price * r.issued, r.code))[:5]
    money = max(0, me.cash - 100)
    orders: list[Order] = []
    for rr in targets:
        aim = rr.issued * 30 // 100
        shares = min(aim - me.holdings.get(rr.code, 0), seat.bid_limits.get(rr.code, 0))
        shares = min(shares, money // max(1, rr.price))
        if shares > 0:
            orders.append(BuyStock(railroad=rr.code, shares=shares))
            money -= shares * rr.price
    return orders + base + [RequestPresidency(railroad=c) for c in _largest_holdings(seat, 2)]


def combined_prodigal(seat: Seat) -> list[Order]:
    """Prodigal with everything: the computer player, but in good or normal
    times it borrows half its credit room, and every turn it spends all its
    cash above $500 on Prodigal (1.2) before anything else, keeping the
    computer's other orders (which the cash left then limits)."""
    me = seat.state.tycoon(seat.position)
    orders: list[Order] = []
    money = me.cash
    if seat.state.climate <= 4:
        borrowed, room = _borrow_all(seat, 50)
        orders += borrowed
        money += room
    rest = [o for o in seat.computer if o.kind not in {"prodigal", "borrow"}]
    spend = money - 500
    if spend >= 1000:
        orders.append(ProdigalSpending(amount=spend))
    return orders + rest


STRATEGIES: dict[str, Strategy] = {
    "looter": looter,
    "director-sweep": director_sweep,
    "minimal-prodigal": minimal_prodigal,
    "short-seller": short_seller,
    "corner": corner,
    "pc-hoarder": pc_hoarder,
    "idle": idle,
    "yield-trader": yield_trader,
    "prodigal-farmer": prodigal_farmer,
    "leveraged-sweep": leveraged_sweep,
    "chairman-mogul": chairman_mogul,
    "combined-prodigal": combined_prodigal,
}


def strategy_orders(
    name: str,
    scenario: Scenario,
    state: GameState,
    position: int,
    facts: ai.TurnFacts | None = None,
) -> list[Order]:
    """The orders strategy `name` writes for `position` this turn, from what
    that player may see (`Seat`); `facts` as for `ai.computer_orders`."""
    params = market_params(scenario)
    seat = Seat(
        scenario=scenario,
        state=ai.public_view(state, position),
        position=position,
        bid_limits={code: max_bid(state, position, code, params) for code in state.railroads},
        computer=list(ai.computer_orders(scenario, state, position, facts).orders),
    )
    return STRATEGIES[name](seat)
