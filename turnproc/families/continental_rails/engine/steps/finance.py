"""Tycoons' bank finance: loans, credit, income, recalls, bankruptcy (rules 3.4-3.6, 11.1).

Every number comes from finance.toml and the climate table (climate.toml).
The credit limit is `valuation.credit_limit`: margin x assets.
"""

from typing import ClassVar, Literal

from pydantic import BaseModel, model_validator

from turnproc.core.ledger import BANK, railroad_account, tycoon_account
from turnproc.core.models import maker
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import Borrow, RepayLoan
from turnproc.families.continental_rails.engine.pcs import pc_income, pc_value
from turnproc.families.continental_rails.engine.state import GameState, Tycoon
from turnproc.families.continental_rails.engine.steps.auctions import release_price
from turnproc.families.continental_rails.engine.valuation import credit_limit, loans_by_lender
from turnproc.scenario.model import Scenario

# --- parameters (finance.toml) -------------------------------------------------


class BankFailureParams(BaseModel):
    """finance.toml [bank_failures]"""

    # chance in % that a tycoon's bank fails, by climate index (0 Boom ... 8 Panic)
    chance_percent: list[int] = [0, 0, 0, 0, 0, 5, 10, 15, 25]
    min_loss_percent: int = 5
    max_loss_percent: int = 33  # [original] never more than 33% of cash

    @model_validator(mode="after")
    def _within_rules(self) -> "BankFailureParams":
        if not 0 < self.min_loss_percent <= self.max_loss_percent <= 33:
            raise ValueError("bank failure losses must lie within 1-33% (11.1)")
        return self


class RecallParams(BaseModel):
    """finance.toml [recall]"""

    pc_sale_percent: int = 50  # a PC sold to meet a recall fetches this % of its value
    squeeze_fall: int = 2  # a turn whose climate falls this many levels or more ...
    squeeze_percent: int = 70  # ... recalls every loan above this % of the credit limit


class BankruptcyParams(BaseModel):
    """finance.toml [bankruptcy]"""

    grubstake: int = 1000  # cash a bankrupt tycoon restarts with
    no_credit_turns: int = 0  # turns after his bankruptcy in which the bank lends him nothing


class LeverageParams(BaseModel):
    """finance.toml [leverage]: the part of a loan above `from_percent` of the
    credit limit pays `surcharge_percent` more interest."""

    from_percent: int = 100
    surcharge_percent: int = 0


class FinanceParams(BaseModel):
    """finance.toml (the [pc_income] section is read by
    `turnproc.families.continental_rails.engine.pcs`)."""

    bank_failures: BankFailureParams = BankFailureParams()
    recall: RecallParams = RecallParams()
    bankruptcy: BankruptcyParams = BankruptcyParams()
    leverage: LeverageParams = LeverageParams()


# --- events --------------------------------------------------------------------


class LoanTaken(Event):
    """3.4 Money borrowed from the bank (cash-flow item)."""

    kind: Literal["loan_taken"] = "loan_taken"
    visibility: Literal["public", "private"] = "private"
    amount: int
    news_order: ClassVar[int] = 901


class LoanRepaid(Event):
    """3.4 Loan repaid to the bank by order (cash-flow item)."""

    kind: Literal["loan_repaid"] = "loan_repaid"
    visibility: Literal["public", "private"] = "private"
    amount: int
    news_order: ClassVar[int] = 902


class CashInterest(Event):
    """3.4 Interest on cash: half the starting climate's loan rate, rounded down."""

    kind: Literal["cash_interest"] = "cash_interest"
    visibility: Literal["public", "private"] = "private"
    amount: int
    rate_half_percent: int  # the rate in half percent (13% loan rate -> 13 = 6.5%)
    news_order: ClassVar[int] = 920


_cash_interest = maker(CashInterest)


class PCIncome(Event):
    """3.4 Income of an owned PC."""

    kind: Literal["pc_income"] = "pc_income"
    visibility: Literal["public", "private"] = "private"
    pc: str
    amount: int
    news_order: ClassVar[int] = 921


_pc_income = maker(PCIncome)


class LoanInterest(Event):
    """3.4 Interest charged on the bank loan, rounded up; what cash could not pay
    was added to the loan."""

    kind: Literal["loan_interest"] = "loan_interest"
    visibility: Literal["public", "private"] = "private"
    amount: int
    rate_percent: int
    added_to_loan: int
    surcharge: int = 0  # of `amount`, the leverage surcharge (3.4)
    news_order: ClassVar[int] = 922


class BankFailure(Event):
    """11.1 A bank holding part of `position`'s cash failed (Wall Street report)."""

    kind: Literal["bank_failure"] = "bank_failure"
    percent: int
    news_order: ClassVar[int] = 160


class BankFailureLoss(Event):
    """11.1 The cash `position` lost in a bank failure (cash-flow item)."""

    kind: Literal["bank_failure_loss"] = "bank_failure_loss"
    visibility: Literal["public", "private"] = "private"
    amount: int
    percent: int
    news_order: ClassVar[int] = 930


class LoanRecalled(Event):
    """3.5 The bank recalled `amount` of `position`'s loan (over the credit limit)."""

    kind: Literal["loan_recalled"] = "loan_recalled"
    amount: int
    credit_limit: int
    news_order: ClassVar[int] = 100


class ForcedStockSale(Event):
    """3.5 Stock sold at market price to meet a loan recall (cash-flow item)."""

    kind: Literal["forced_stock_sale"] = "forced_stock_sale"
    visibility: Literal["public", "private"] = "private"
    shares: int
    price: int
    amount: int
    news_order: ClassVar[int] = 931


class ForcedPCSale(Event):
    """3.5 A PC sold to the bank to meet a loan recall; it is for sale again."""

    kind: Literal["forced_pc_sale"] = "forced_pc_sale"
    pc: str
    amount: int
    news_order: ClassVar[int] = 100


class Bankruptcy(Event):
    """3.6 `position` could not meet a recall: the bank took everything."""

    kind: Literal["bankruptcy"] = "bankruptcy"
    grubstake: int
    news_order: ClassVar[int] = 100


# --- helpers -------------------------------------------------------------------


def _loan_rate(ctx: TurnContext) -> int:
    """5 The loan rate of the turn's starting climate, in percent."""
    return ctx.params("climate", ClimateTable).levels[ctx.start.climate].loan_rate


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _presided(state: GameState, position: int) -> set[str]:
    return {code for code, rr in state.railroads.items() if rr.president == position}


# --- 3.4 bank loans ------------------------------------------------------------


def bank_loans(ctx: TurnContext) -> None:
    """3.4 Borrowing and repaying, in the order each tycoon wrote them.

    The credit limit is fixed at the start of the turn (the limit the last
    report showed) [designed], so cash just borrowed never raises it within
    the turn: the loan after all borrowing is at most that limit. Borrowing
    more than the room left is cut to the room; repaying more than the loan
    or the cash is cut.
    """
    lent: dict[int, int] | None = None
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        # An amount of $0 asks for nothing and is passed over.
        orders = [
            o
            for o in ctx.orders_of(pos, "borrow", "repay_loan")
            if isinstance(o, (Borrow, RepayLoan)) and o.amount > 0
        ]
        if not orders:
            continue
        if lent is None:  # the start of the turn's loans to railroads, read once
            lent = loans_by_lender(ctx.start)
        limit = credit_limit(ctx.start, ctx.scenario, pos, ctx.start.climate, lent)
        shut = credit_shut_until(ctx.scenario, tycoon)
        for order in orders:
            if isinstance(order, Borrow) and ctx.turn <= shut:
                ctx.reject(
                    pos,
                    order,
                    reasons.NOT_ALLOWED_NOW,
                    f"you went bankrupt in turn {tycoon.bankrupt_turn}: the bank lends you "
                    f"nothing before turn {shut + 1}",
                )
            elif isinstance(order, Borrow):
                _borrow(ctx, tycoon, order, limit)
            else:
                _repay(ctx, tycoon, order)


def credit_shut_until(scenario: Scenario, tycoon: Tycoon) -> int:
    """3.6 [designed] The last turn in which the bank lends `tycoon` nothing
    after his last bankruptcy (0: he may borrow): bankruptcy must not be a
    way to start again on fresh credit."""
    if tycoon.bankrupt_turn is None:
        return 0
    turns = scenario.section("finance", FinanceParams).bankruptcy.no_credit_turns
    return tycoon.bankrupt_turn + turns


def leverage_interest(params: LeverageParams, loan: int, limit: int) -> int:
    """3.4 [designed] The surcharge on a loan's part above `from_percent` of
    the credit limit the turn started with, rounded up like all loan interest."""
    excess = loan - limit * params.from_percent // 100
    if excess <= 0 or params.surcharge_percent <= 0:
        return 0
    return _ceil_div(excess * params.surcharge_percent, 100)


def _borrow(ctx: TurnContext, tycoon: Tycoon, order: Borrow, limit: int) -> None:
    room = max(0, limit - tycoon.loan)
    amount = min(order.amount, room)
    if amount <= 0:
        ctx.reject(
            tycoon.position,
            order,
            reasons.OVER_CREDIT_LIMIT,
            f"your credit limit is {money(limit)} and you owe {money(tycoon.loan)}: "
            "no room to borrow",
        )
        return
    if amount < order.amount:
        ctx.reject(
            tycoon.position,
            order,
            reasons.OVER_CREDIT_LIMIT,
            f"your credit limit is {money(limit)}; you could borrow at most {money(room)}",
            cut_to=Borrow(amount=amount),
        )
    ctx.transfer(BANK, tycoon_account(tycoon.position), amount, "bank loan")
    tycoon.loan += amount
    ctx.emit(LoanTaken(position=tycoon.position, amount=amount))


def _repay(ctx: TurnContext, tycoon: Tycoon, order: RepayLoan) -> None:
    amount = min(order.amount, tycoon.loan, tycoon.cash)
    if amount <= 0:
        hint = "you owe the bank nothing" if tycoon.loan == 0 else "you have no cash to repay with"
        code = reasons.ABOVE_MAXIMUM if tycoon.loan == 0 else reasons.INSUFFICIENT_CASH
        ctx.reject(tycoon.position, order, code, hint)
        return
    if amount < order.amount:
        code = reasons.ABOVE_MAXIMUM if amount == tycoon.loan else reasons.INSUFFICIENT_CASH
        ctx.reject(
            tycoon.position,
            order,
            code,
            f"you owed {money(tycoon.loan)} and had {money(tycoon.cash)}: repaid {money(amount)}",
            cut_to=RepayLoan(amount=amount),
        )
    ctx.transfer(tycoon_account(tycoon.position), BANK, amount, "loan repayment")
    tycoon.loan -= amount
    ctx.emit(LoanRepaid(position=tycoon.position, amount=amount))


# --- 3.4 income ----------------------------------------------------------------


def tycoon_income(ctx: TurnContext) -> None:
    """3.4 Interest on cash, PC income, and interest on the bank loan.

    Rates come from the STARTING climate (5). Cash earns half the loan rate on
    the cash held now, rounded down [original]; then each owned PC pays its
    income [designed formula, `pcs.pc_income`]; then the loan is charged the
    loan rate, rounded up [original]. Interest cash cannot cover is added to
    the loan [designed].
    """
    rate = _loan_rate(ctx)
    leverage = ctx.params("finance", FinanceParams).leverage
    lent: dict[int, int] | None = None
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        account = tycoon_account(pos)
        earned = tycoon.cash * rate // 200
        if earned > 0:
            ctx.transfer(BANK, account, earned, "interest on cash")
            ctx.emit(_cash_interest({"position": pos, "amount": earned, "rate_half_percent": rate}))
        for code in tycoon.pcs:
            pc = ctx.state.pcs.get(code)
            if pc is None or pc.status != "owned":
                continue
            income = pc_income(ctx.scenario, code)
            if income > 0:
                ctx.transfer(BANK, account, income, "PC income", ref=code)
                ctx.emit(_pc_income({"position": pos, "pc": code, "amount": income}))
        if tycoon.loan > 0:
            surcharge = 0
            if leverage.surcharge_percent > 0:
                if lent is None:  # the start of the turn's loans to railroads, read once
                    lent = loans_by_lender(ctx.start)
                limit = credit_limit(ctx.start, ctx.scenario, pos, ctx.start.climate, lent)
                surcharge = leverage_interest(leverage, tycoon.loan, limit)
            due = _ceil_div(tycoon.loan * rate, 100) + surcharge
            paid = min(due, tycoon.cash)
            ctx.transfer(account, BANK, paid, "loan interest")
            tycoon.loan += due - paid
            ctx.emit(
                LoanInterest(
                    position=pos,
                    amount=due,
                    rate_percent=rate,
                    added_to_loan=due - paid,
                    surcharge=surcharge,
                )
            )


# --- 11.1 bank failures ----------------------------------------------------------


def bank_failures(ctx: TurnContext) -> None:
    """11.1 Below a Normal climate a tycoon's bank may fail, taking a random
    share of his cash, never more than 33% [original].

    The climate is the one the stock market phase just set [designed: the
    failures come with the bad news]. Each position draws its chance and its
    loss in position order whether or not it has cash, so one tycoon's cash
    never changes another's luck.
    """
    params = ctx.params("finance", FinanceParams).bank_failures
    levels = ctx.params("climate", ClimateTable).levels
    normal = next(i for i, level in enumerate(levels) if level.name == "Normal")
    climate = ctx.state.climate
    if climate <= normal or climate >= len(params.chance_percent):
        return
    chance = params.chance_percent[climate]
    if chance <= 0:
        return
    draw = ctx.rng("bank-failures")
    for tycoon in ctx.state.tycoons:
        roll = draw.randrange(100)
        percent = draw.randint(params.min_loss_percent, params.max_loss_percent)
        if roll >= chance:
            continue
        loss = tycoon.cash * percent // 100
        if loss <= 0:
            continue
        ctx.transfer(tycoon_account(tycoon.position), BANK, loss, "bank failure")
        ctx.emit(BankFailure(position=tycoon.position, percent=percent))
        ctx.emit(BankFailureLoss(position=tycoon.position, amount=loss, percent=percent))


# --- 3.5 loan recalls, 3.6 bankruptcy --------------------------------------------


def loan_recalls(ctx: TurnContext) -> None:
    """3.5 A loan above the credit limit is recalled; 3.6 bankruptcy.

    The credit limit uses the NEW climate's margin and the assets at this
    moment. The bank recalls the excess (loan - limit) [designed]: the tycoon
    pays it from cash, then stock is sold to the public at market price
    (railroads he does not preside first, dearest stock first, only the
    shares needed), then his PCs go to the bank at `pc_sale_percent` of their
    value (cheapest first). If the excess is still unpaid he is bankrupt
    [designed]: the bank takes everything and clears the loan, and he starts
    again with the grubstake. A tycoon is never eliminated [original].

    A credit squeeze [designed, issue 12: recalls came only in Panics]: in a
    turn the climate fell `squeeze_fall` levels or more, banks call in every
    loan above `squeeze_percent` of the credit limit, down to that.
    """
    params = ctx.params("finance", FinanceParams)
    squeeze = ctx.state.climate - ctx.start.climate >= params.recall.squeeze_fall
    for tycoon in ctx.state.tycoons:
        if tycoon.loan <= 0:
            continue
        limit = credit_limit(ctx.state, ctx.scenario, tycoon.position, ctx.state.climate)
        if squeeze:
            limit = limit * params.recall.squeeze_percent // 100
        if tycoon.loan <= limit:
            continue
        excess = tycoon.loan - limit
        ctx.emit(LoanRecalled(position=tycoon.position, amount=excess, credit_limit=limit))
        due = _pay_recall(ctx, tycoon, excess)
        if due > 0:
            due = _sell_stock(ctx, tycoon, due)
        if due > 0:
            due = _sell_pcs(ctx, tycoon, due, params.recall.pc_sale_percent)
        if due > 0:
            _bankrupt(ctx, tycoon, params.bankruptcy.grubstake)


def _pay_recall(ctx: TurnContext, tycoon: Tycoon, due: int) -> int:
    """Pay what cash allows of `due`; return what is still owed."""
    paid = min(due, tycoon.cash)
    ctx.transfer(tycoon_account(tycoon.position), BANK, paid, "loan recall")
    tycoon.loan -= paid
    return due - paid


def _sell_stock(ctx: TurnContext, tycoon: Tycoon, due: int) -> int:
    presided = _presided(ctx.state, tycoon.position)
    holdings = [
        (code, shares)
        for code, shares in tycoon.holdings.items()
        if shares > 0 and code in ctx.state.railroads and ctx.state.railroads[code].price > 0
    ]
    holdings.sort(key=lambda h: (h[0] in presided, -ctx.state.railroads[h[0]].price, h[0]))
    for code, shares in holdings:
        if due <= 0:
            break
        price = ctx.state.railroads[code].price
        sold = min(shares, _ceil_div(due, price))
        amount = sold * price
        ctx.transfer(BANK, tycoon_account(tycoon.position), amount, "forced stock sale", ref=code)
        tycoon.holdings[code] = shares - sold
        if tycoon.holdings[code] == 0:
            del tycoon.holdings[code]
        ctx.emit(
            ForcedStockSale(
                position=tycoon.position, railroad=code, shares=sold, price=price, amount=amount
            )
        )
        due = _pay_recall(ctx, tycoon, due)
    return due


def _release_pc(ctx: TurnContext, code: str) -> None:
    """A PC the bank took goes back on the list at a new PC's asking price
    for next turn."""
    pc = ctx.state.pcs[code]
    pc.status = "available"
    pc.owner = None
    pc.for_sale = False
    pc.asking_price = release_price(ctx.scenario, code, ctx.turn + 1)
    # Listed afresh for next turn: the end-of-turn markdown of unsold PCs
    # (2.3 new PCs) must not cheapen it before anyone could bid.
    pc.released_turn = ctx.turn + 1


def _sell_pcs(ctx: TurnContext, tycoon: Tycoon, due: int, percent: int) -> int:
    for code in sorted(tycoon.pcs, key=lambda c: (pc_value(ctx.scenario, c), c)):
        if due <= 0:
            break
        amount = pc_value(ctx.scenario, code) * percent // 100
        ctx.transfer(BANK, tycoon_account(tycoon.position), amount, "forced PC sale", ref=code)
        tycoon.pcs.remove(code)
        _release_pc(ctx, code)
        ctx.emit(ForcedPCSale(position=tycoon.position, pc=code, amount=amount))
        due = _pay_recall(ctx, tycoon, due)
    return due


def _bankrupt(ctx: TurnContext, tycoon: Tycoon, grubstake: int) -> None:
    """3.6 The bank takes all assets and clears the loan [designed details]:
    stock goes to the public; short positions are covered by the bank (from
    the public, or with new shares from the treasury it pays for at market
    price if the public has too few); PCs go back on the list; money a railroad
    owed him becomes the railroad's bank loan."""
    pos = tycoon.position
    state = ctx.state
    ctx.transfer(tycoon_account(pos), BANK, tycoon.cash, "bankruptcy")
    tycoon.holdings = {}
    for code, owed in sorted(tycoon.shorts.items()):
        rr = state.railroads.get(code)
        if rr is None:
            continue
        missing = owed - state.public_shares(code)
        if missing > 0:
            rr.issued += missing
            rr.authorized = max(rr.authorized, rr.issued)
            ctx.transfer(
                BANK, railroad_account(code), missing * rr.price, "shares issued to cover a short"
            )
    tycoon.shorts = {}
    tycoon.short_proceeds = {}
    for code in list(tycoon.pcs):
        _release_pc(ctx, code)
    tycoon.pcs = []
    for rr in state.railroads.values():
        if rr.lender == pos:
            rr.loan += rr.owed_to_president
            rr.owed_to_president = 0
            rr.lender = None
    tycoon.loan = 0
    tycoon.wants_presidency = []
    tycoon.bankruptcies += 1
    tycoon.bankrupt_turn = ctx.turn
    ctx.transfer(BANK, tycoon_account(pos), grubstake, "bankruptcy grubstake")
    ctx.emit(Bankruptcy(position=pos, grubstake=grubstake))
