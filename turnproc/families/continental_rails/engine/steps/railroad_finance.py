"""Railroad finance: new stock, bonds, short loans (rules 4.3-4.4).

Also the pieces every railroad step shares: finding a president's orders for
his railroads, track miles, and the debt limits that building and insolvency
draw on automatically.
"""

from collections.abc import Iterator
from itertools import repeat
from typing import Literal

from pydantic import BaseModel

from turnproc.core.ledger import BANK, railroad_account
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import (
    IssueBonds,
    IssueStock,
    Order,
    RedeemBonds,
    RepayShortLoan,
    TakeShortLoan,
)
from turnproc.families.continental_rails.engine.state import Railroad
from turnproc.scenario.model import Scenario

# --- parameters (railroads.toml) ----------------------------------------------


class StockIssueParams(BaseModel):
    discount_percent: int  # below market price paid by the public for new stock
    # 4.3 the public's appetite: largest issue in one turn, % of shares issued,
    # by the climate at the start of the turn (0 Boom ... 8 Panic)
    appetite_percent: list[int]
    prospects_yield_percent: int  # earnings yield for the full appetite; below it, half
    new_railroad_turns: int  # a railroad this young has the full appetite
    min_price: int  # no issue while the stock trades below this


class DebtParams(BaseModel):
    bond_rate_percent: int  # 4.4 [original] 6%
    bond_limit_per_mile: int  # bonds outstanding at most this x track miles
    loan_limit_per_mile: int  # short loans outstanding at most this x track miles


class EfficiencyParams(BaseModel):
    max: int  # best efficiency with the best locomotive available
    lag_penalty: int  # max efficiency lost per locomotive type behind the best
    wear: int  # points lost in a turn without capital improvements
    floor: int  # wear never takes efficiency below this
    point_cost_per_mile: int  # cost of one point per track mile, below the first step
    # [efficiency from which, cost multiplier]: points get dearer as efficiency rises
    cost_steps: list[tuple[int, int]]


class DividendParams(BaseModel):
    payout_percent: int  # share of the turn's profit a computer-run railroad pays out
    reserve_per_mile: int  # cash a computer-run railroad keeps per track mile


class PoliticalParams(BaseModel):
    decay_percent: int  # 4.9 influence lost each turn


class RailroadParams(BaseModel):
    """railroads.toml: finance limits, efficiency, influence and the computer's dividend rule."""

    stock_issue: StockIssueParams
    debt: DebtParams
    efficiency: EfficiencyParams
    dividends: DividendParams
    political: PoliticalParams


def railroad_params(scenario: Scenario) -> RailroadParams:
    return scenario.section("railroads", RailroadParams)


# --- events -------------------------------------------------------------------


class StockIssued(Event):
    """4.3 New stock sold to the public."""

    kind: Literal["stock_issued"] = "stock_issued"
    shares: int
    price: int  # per share received by the railroad
    amount: int
    news_order = 160


class RailroadDebtChanged(Event):
    """4.4 Bonds issued or redeemed, short loans taken or repaid (railroad cash flow).

    `action` is one of "bonds_issued", "bonds_redeemed", "loan_taken",
    "loan_repaid", for automatic financing "bonds_forced", "loan_forced", and
    "loan_called" when the bank calls a short loan in (4.11).
    """

    kind: Literal["railroad_debt"] = "railroad_debt"
    visibility: Literal["public", "private"] = "private"
    action: str
    amount: int
    bonds: int  # outstanding after the change
    loan: int
    news_order = 910


# --- shared helpers -----------------------------------------------------------


def track_miles(scenario: Scenario, rr: Railroad) -> int:
    """4.1 Track: total length of the railroad's built lines (a code not on
    the map counts nothing)."""
    return sum(map(scenario.derived("route_lengths", _route_lengths).get, rr.lines, repeat(0)))


def _route_lengths(scenario: Scenario) -> dict[str, int]:
    """Each route's length, for `track_miles`."""
    return {code: route.length for code, route in scenario.routes.items()}


def president_orders(ctx: TurnContext, *kinds: str) -> Iterator[tuple[int, Order, Railroad]]:
    """10.2 Railroad orders of these kinds, in position order and then as written.

    Orders naming an unknown railroad, or given by someone who is not its
    president, are rejected here and never yielded; so are orders of a
    railroad merged away earlier in the turn (4.13), saying so.
    """
    merged_into: dict[str, str] | None = None
    for position, order in ctx.orders_of_kind(*kinds):
        code = getattr(order, "railroad", "")
        rr = ctx.state.railroads.get(code)
        if rr is None:
            if merged_into is None:
                merged_into = ctx.merged_into()
            survivor = merged_into.get(code) or ctx.state.absorbed_by(code)
            if survivor is not None:
                when = " this turn" if code in merged_into else ""
                ctx.reject(
                    position,
                    order,
                    reasons.MERGED_AWAY,
                    f"{code} merged into {survivor}{when}; this order was not carried "
                    f"out: {survivor}'s orders apply to the merged railroad.",
                )
                continue
            ctx.reject(
                position,
                order,
                reasons.UNKNOWN_RAILROAD,
                f"There is no railroad {code}; use a code or number from the railroad summary.",
            )
            continue
        if rr.president != position:
            ctx.reject(
                position,
                order,
                reasons.NOT_PRESIDENT,
                f"Only the president of {code} may give its orders.",
            )
            continue
        yield position, order, rr


def max_efficiency(scenario: Scenario, rr: Railroad, best_locomotive: int) -> int:
    """4.17 [designed] Maximum efficiency: falls for each locomotive type the
    railroad lags behind the best available [original: it falls]."""
    floor, top, lag_penalty = scenario.derived("efficiency_limits", _efficiency_limits)
    lag = max(0, best_locomotive - rr.locomotive)
    return max(floor, top - lag * lag_penalty)


def _efficiency_limits(scenario: Scenario) -> tuple[int, int, int]:
    """railroad.toml [efficiency] floor, max and lag penalty, for `max_efficiency`
    (asked for by the thousand a game)."""
    params = railroad_params(scenario).efficiency
    return params.floor, params.max, params.lag_penalty


def loan_rate(ctx: TurnContext) -> int:
    """5 The loan rate of the climate at the start of the turn."""
    table = ctx.params("climate", ClimateTable)
    return table.levels[ctx.start.climate].loan_rate


def interest_up(amount: int, percent: int) -> int:
    """Interest the bank charges: rounded up [original]."""
    return -(-amount * percent // 100) if amount > 0 else 0


def bond_room(scenario: Scenario, rr: Railroad) -> int:
    """4.4 [designed] How many more dollars of bonds the railroad may issue."""
    limit = railroad_params(scenario).debt.bond_limit_per_mile * track_miles(scenario, rr)
    return max(0, limit - rr.bonds)


def loan_room(scenario: Scenario, rr: Railroad) -> int:
    """4.4 [designed] How many more dollars the bank will lend the railroad short-term."""
    limit = railroad_params(scenario).debt.loan_limit_per_mile * track_miles(scenario, rr)
    return max(0, limit - rr.loan)


def issue_bonds(ctx: TurnContext, rr: Railroad, amount: int, action: str) -> None:
    ctx.transfer(BANK, railroad_account(rr.code), amount, "bonds issued", ref=rr.code)
    rr.bonds += amount
    _debt_event(ctx, rr, action, amount)


def take_loan(ctx: TurnContext, rr: Railroad, amount: int, action: str) -> None:
    ctx.transfer(BANK, railroad_account(rr.code), amount, "short loan", ref=rr.code)
    rr.loan += amount
    _debt_event(ctx, rr, action, amount)


def _debt_event(ctx: TurnContext, rr: Railroad, action: str, amount: int) -> None:
    ctx.emit(
        RailroadDebtChanged(
            railroad=rr.code,
            position=rr.president,
            action=action,
            amount=amount,
            bonds=rr.bonds,
            loan=rr.loan,
        )
    )


def finance_shortfall(ctx: TurnContext, rr: Railroad, shortfall: int) -> int:
    """4.6 [designed] Cover a cash shortfall with bonds first (6%), then a short
    loan, within the limits. Returns the part that could not be covered; nothing
    is borrowed unless the whole shortfall can be covered."""
    if shortfall <= 0:
        return 0
    bonds = min(shortfall, bond_room(ctx.scenario, rr))
    loan = min(shortfall - bonds, loan_room(ctx.scenario, rr))
    uncovered = shortfall - bonds - loan
    if uncovered > 0:
        return uncovered
    if bonds:
        issue_bonds(ctx, rr, bonds, "bonds_forced")
    if loan:
        take_loan(ctx, rr, loan, "loan_forced")
    return 0


def max_new_shares(scenario: Scenario, rr: Railroad, climate: int, turn: int) -> int:
    """4.3 [designed] Largest new issue the public takes this turn: the
    climate's `appetite_percent` of the shares issued for a railroad whose last
    earnings per share yield at least `prospects_yield_percent` of its price
    (or one founded within `new_railroad_turns`), half that for one earning
    less, none for one that lost money or earned nothing."""
    params = railroad_params(scenario).stock_issue
    appetite = params.appetite_percent[min(climate, len(params.appetite_percent) - 1)]
    young = turn - rr.founded_turn <= params.new_railroad_turns
    if not young:
        if rr.earnings <= 0:
            return 0
        if rr.earnings * 100 < rr.price * params.prospects_yield_percent:
            appetite //= 2
    return rr.issued * appetite // 100


def issue_price(scenario: Scenario, rr: Railroad) -> int:
    """4.3 [designed] What the public pays per new share: market price less the discount."""
    discount = railroad_params(scenario).stock_issue.discount_percent
    return rr.price * (100 - discount) // 100


# --- the step -----------------------------------------------------------------


def railroad_finance(ctx: TurnContext) -> None:
    """4.3-4.4 New stock issues, bonds and short loans, in each president's order."""
    issued_now: set[str] = set()
    kinds = ("issue_stock", "issue_bonds", "redeem_bonds", "short_loan", "repay_short_loan")
    for position, order, rr in president_orders(ctx, *kinds):
        # An amount of $0 asks for nothing and is passed over (as bank loans, 3.4).
        if getattr(order, "amount", None) == 0:
            continue
        if isinstance(order, IssueStock):
            _issue_stock(ctx, position, order, rr, issued_now)
        elif isinstance(order, IssueBonds):
            _bonds(ctx, position, order, rr)
        elif isinstance(order, RedeemBonds):
            _redeem(ctx, position, order, rr)
        elif isinstance(order, TakeShortLoan):
            _loan(ctx, position, order, rr)
        elif isinstance(order, RepayShortLoan):
            _repay(ctx, position, order, rr)


def _issue_stock(
    ctx: TurnContext, position: int, order: IssueStock, rr: Railroad, issued_now: set[str]
) -> None:
    """4.3 Issuing new stock: authorized and issued both rise; the public buys the
    new shares at a discount to the market price, as many as its appetite
    (`max_new_shares`), and the railroad gets the cash."""
    params = railroad_params(ctx.scenario).stock_issue
    if rr.code in issued_now:
        ctx.reject(
            position, order, reasons.ALREADY_DONE, f"{rr.code} may issue new stock once a turn."
        )
        return
    if rr.price < params.min_price:
        ctx.reject(
            position,
            order,
            reasons.NOT_ALLOWED_NOW,
            f"No new stock while {rr.code} trades below {money(params.min_price)}.",
        )
        return
    limit = max_new_shares(ctx.scenario, rr, ctx.start.climate, ctx.turn)
    if limit <= 0:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"The public buys no new {rr.code} stock now: it earned nothing last turn "
            "or the climate is too bad (4.3).",
        )
        return
    shares = order.shares
    if shares > limit:
        cut = IssueStock(railroad=rr.code, shares=limit)
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"The public takes at most {limit} new shares of {rr.code} this turn "
            "(4.3: by the climate and its earnings).",
            cut_to=cut,
        )
        shares = limit
    price = issue_price(ctx.scenario, rr)
    amount = shares * price
    ctx.transfer(BANK, railroad_account(rr.code), amount, "new stock issued", ref=rr.code)
    rr.authorized += shares
    rr.issued += shares
    issued_now.add(rr.code)
    ctx.emit(StockIssued(railroad=rr.code, shares=shares, price=price, amount=amount))


def _bonds(ctx: TurnContext, position: int, order: IssueBonds, rr: Railroad) -> None:
    """4.4 Bonds, sold at par, pay 6% a turn [original] up to the bond limit [designed]."""
    room = bond_room(ctx.scenario, rr)
    amount = min(order.amount, room)
    if amount <= 0:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"{rr.code} is at its bond limit ({money(rr.bonds + room)}); build track to raise it.",
        )
        return
    if amount < order.amount:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"{rr.code} may issue at most {money(room)} more bonds.",
            cut_to=IssueBonds(railroad=rr.code, amount=amount),
        )
    issue_bonds(ctx, rr, amount, "bonds_issued")


def _redeem(ctx: TurnContext, position: int, order: RedeemBonds, rr: Railroad) -> None:
    """4.4 Redeeming bonds at par from cash."""
    amount = min(order.amount, rr.bonds, rr.cash)
    if amount <= 0:
        why = "has no bonds" if rr.bonds == 0 else "has no cash"
        ctx.reject(position, order, reasons.INSUFFICIENT_CASH, f"{rr.code} {why} to redeem.")
        return
    if amount < order.amount:
        ctx.reject(
            position,
            order,
            reasons.CUT_TO_AFFORDABLE,
            f"{rr.code} could redeem only {money(amount)} "
            f"(bonds {money(rr.bonds)}, cash {money(rr.cash)}).",
            cut_to=RedeemBonds(railroad=rr.code, amount=amount),
        )
    ctx.transfer(railroad_account(rr.code), BANK, amount, "bonds redeemed", ref=rr.code)
    rr.bonds -= amount
    _debt_event(ctx, rr, "bonds_redeemed", amount)


def _loan(ctx: TurnContext, position: int, order: TakeShortLoan, rr: Railroad) -> None:
    """4.4 Short-term bank loans at the starting climate's loan rate [original]
    up to the loan limit [designed]."""
    room = loan_room(ctx.scenario, rr)
    amount = min(order.amount, room)
    if amount <= 0:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"The bank lends {rr.code} no more (limit {money(rr.loan + room)}).",
        )
        return
    if amount < order.amount:
        ctx.reject(
            position,
            order,
            reasons.ABOVE_MAXIMUM,
            f"The bank lends {rr.code} at most {money(room)} more.",
            cut_to=TakeShortLoan(railroad=rr.code, amount=amount),
        )
    take_loan(ctx, rr, amount, "loan_taken")


def _repay(ctx: TurnContext, position: int, order: RepayShortLoan, rr: Railroad) -> None:
    """4.4 Repaying the short loan from cash."""
    amount = min(order.amount, rr.loan, rr.cash)
    if amount <= 0:
        why = "owes the bank nothing" if rr.loan == 0 else "has no cash"
        ctx.reject(position, order, reasons.INSUFFICIENT_CASH, f"{rr.code} {why}.")
        return
    if amount < order.amount:
        ctx.reject(
            position,
            order,
            reasons.CUT_TO_AFFORDABLE,
            f"{rr.code} could repay only {money(amount)} "
            f"(loan {money(rr.loan)}, cash {money(rr.cash)}).",
            cut_to=RepayShortLoan(railroad=rr.code, amount=amount),
        )
    ctx.transfer(railroad_account(rr.code), BANK, amount, "short loan repaid", ref=rr.code)
    rr.loan -= amount
    _debt_event(ctx, rr, "loan_repaid", amount)
