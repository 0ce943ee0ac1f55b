"""Personal actions of tycoons (rules 3, 10.1): names, treasury stock, loans
to railroads, Rail Prodigal spending and spying. Numbers from tycoons.toml."""

from typing import ClassVar, Literal

from pydantic import BaseModel

from turnproc.core.ledger import BANK, railroad_account, tycoon_account
from turnproc.core.money import money
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import (
    BuyTreasuryStock,
    CollectFromRailroad,
    LendToRailroad,
    Order,
    ProdigalSpending,
    SetCharacterName,
    SpyOnPlayer,
    SpyOnRailroad,
)
from turnproc.families.continental_rails.engine.setup import CharacterParams
from turnproc.families.continental_rails.engine.state import Railroad, Tycoon
from turnproc.families.continental_rails.engine.steps.victory import victory_params

# --- parameters (tycoons.toml) -------------------------------------------------


class SpyingParams(BaseModel):
    """tycoons.toml [spying]"""

    player_cost: int = 100
    railroad_cost: int = 50
    players_per_turn: int = 1
    railroads_per_turn: int = 3


class TycoonsParams(BaseModel):
    """tycoons.toml"""

    spying: SpyingParams = SpyingParams()


# --- events --------------------------------------------------------------------


class CharacterNamed(Event):
    """3.2 `position` is now known as `name` (`wanted` if he asked for another)."""

    kind: Literal["character_named"] = "character_named"
    name: str
    previous: str
    wanted: str
    news_order: ClassVar[int] = 105


class TreasuryStockBought(Event):
    """4.2 The president bought treasury stock from his railroad at market price."""

    kind: Literal["treasury_stock_bought"] = "treasury_stock_bought"
    shares: int
    price: int
    amount: int
    news_order: ClassVar[int] = 940


class RailroadLoan(Event):
    """4.5 `position` lent `amount` to `railroad` (private to him and its directors)."""

    kind: Literal["railroad_loan"] = "railroad_loan"
    visibility: Literal["public", "private"] = "private"
    amount: int
    owed: int  # total the railroad owes him now
    news_order: ClassVar[int] = 941


class RailroadLoanRepaid(Event):
    """4.5 `railroad` repaid `amount` of its loan to `position`."""

    kind: Literal["railroad_loan_repaid"] = "railroad_loan_repaid"
    visibility: Literal["public", "private"] = "private"
    amount: int
    owed: int
    news_order: ClassVar[int] = 942


class ProdigalSpent(Event):
    """1.2 Rail Prodigal spending this turn (scores only if at least $1,000)."""

    kind: Literal["prodigal_spent"] = "prodigal_spent"
    amount: int
    news_order: ClassVar[int] = 140


class SpiedOnPlayer(Event):
    """3.1 `position` spied on `target`: the report shows the target's contact
    details and holdings to `position` only."""

    kind: Literal["spied_player"] = "spied_player"
    visibility: Literal["public", "private"] = "private"
    target: int
    cost: int
    news_order: ClassVar[int] = 990


class SpiedOnRailroad(Event):
    """9.6 `position` spied on `railroad`: its shareholders and cash flow appear
    in his report."""

    kind: Literal["spied_railroad"] = "spied_railroad"
    visibility: Literal["public", "private"] = "private"
    cost: int
    news_order: ClassVar[int] = 991


# --- 3.2 character names ---------------------------------------------------------


def _may_rename(ctx: TurnContext, tycoon: Tycoon) -> bool:
    return ctx.turn == 1 or tycoon.bankrupt_turn == ctx.turn - 1


def character_names(ctx: TurnContext) -> None:
    """3.2 Character names, on the first turn or the turn after a bankruptcy [original].

    Names are unique, ignoring case. A name held by a tycoon who is not
    renaming is taken; if several ask for the same free name, a seeded draw
    gives it to one of them [designed]. Anyone left without his name gets a
    random unused historical name (characters.toml).
    """
    wanted: dict[int, tuple[SetCharacterName, str]] = {}
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        orders = [
            o for o in ctx.orders_of(pos, "character_name") if isinstance(o, SetCharacterName)
        ]
        for extra in orders[1:]:
            ctx.reject(pos, extra, reasons.DUPLICATE_ORDER, "only your first name order counts")
        if not orders:
            continue
        if not _may_rename(ctx, tycoon):
            ctx.reject(
                pos,
                orders[0],
                reasons.NOT_ALLOWED_NOW,
                "a name may be chosen only on the first turn or the turn after a bankruptcy",
            )
            continue
        name = " ".join(orders[0].name.split())
        if name.casefold() == tycoon.character.casefold():
            continue
        wanted[pos] = (orders[0], name)
    if not wanted:
        return
    kept = {t.character.casefold() for t in ctx.state.tycoons if t.position not in wanted}
    draw = ctx.rng("character-names")
    contenders = sorted(wanted)
    draw.shuffle(contenders)
    granted: dict[int, str] = {}
    for pos in contenders:
        name = wanted[pos][1]
        if name.casefold() not in kept:
            kept.add(name.casefold())
            granted[pos] = name
    pool = [n for n in ctx.params("characters", CharacterParams).names if n.casefold() not in kept]
    draw.shuffle(pool)
    for pos in sorted(wanted):
        order, name = wanted[pos]
        tycoon = ctx.state.tycoon(pos)
        if pos not in granted:
            ctx.reject(
                pos, order, reasons.NAME_TAKEN, f"{name!r} is taken; a historical name was given"
            )
            name = next((n for n in pool if n.casefold() not in kept), f"Tycoon {pos}")
            kept.add(name.casefold())
        previous = tycoon.character
        tycoon.character = name
        ctx.emit(CharacterNamed(position=pos, name=name, previous=previous, wanted=wanted[pos][1]))


# --- 4.2 treasury stock ----------------------------------------------------------


def _presided_railroad(ctx: TurnContext, pos: int, order: Order, code: str) -> Railroad | None:
    rr = ctx.state.railroads.get(code)
    if rr is None:
        ctx.reject(pos, order, reasons.UNKNOWN_RAILROAD, f"there is no railroad {code!r}")
        return None
    if rr.president != pos:
        ctx.reject(pos, order, reasons.NOT_PRESIDENT, f"you are not the president of {code}")
        return None
    return rr


def treasury_stock(ctx: TurnContext) -> None:
    """4.2 A president buys treasury stock from his railroad at the current
    market price; the money goes to the railroad [original]. More shares than
    the treasury holds, or than his cash pays for, are cut."""
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        for order in ctx.orders_of(pos, "buy_treasury"):
            if not isinstance(order, BuyTreasuryStock):
                continue
            rr = _presided_railroad(ctx, pos, order, order.railroad)
            if rr is None:
                continue
            price = max(1, rr.price)
            shares = min(order.shares, rr.treasury, tycoon.cash // price)
            if shares <= 0:
                code = reasons.NOT_AVAILABLE if rr.treasury <= 0 else reasons.INSUFFICIENT_CASH
                hint = (
                    f"{rr.code} has no treasury stock"
                    if rr.treasury <= 0
                    else f"one share costs {money(price)}; you have {money(tycoon.cash)}"
                )
                ctx.reject(pos, order, code, hint)
                continue
            if shares < order.shares:
                code = (
                    reasons.CUT_TO_AFFORDABLE
                    if shares == tycoon.cash // price
                    else reasons.ABOVE_MAXIMUM
                )
                ctx.reject(
                    pos,
                    order,
                    code,
                    f"{rr.code} has {rr.treasury} treasury shares at {money(price)}; you have "
                    f"{money(tycoon.cash)}",
                    cut_to=BuyTreasuryStock(railroad=rr.code, shares=shares),
                )
            amount = shares * price
            ctx.transfer(
                tycoon_account(pos), railroad_account(rr.code), amount, "treasury stock", rr.code
            )
            rr.issued += shares
            tycoon.holdings[rr.code] = tycoon.holdings.get(rr.code, 0) + shares
            ctx.emit(
                TreasuryStockBought(
                    position=pos, railroad=rr.code, shares=shares, price=price, amount=amount
                )
            )


# --- 4.5 loans to and from railroads ---------------------------------------------


def railroad_loans(ctx: TurnContext) -> None:
    """4.5 A president lends his own cash to a railroad he presides; the
    lender takes repayment from the railroad's cash.

    [designed] The loan carries no interest and the railroad owes one lender
    at a time: a president cannot lend to a railroad that owed someone else at
    the start of the turn (so the order of positions never matters).
    The lender may collect whether or not he is still president, up to what
    is owed and the railroad's cash.
    """
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        for order in ctx.orders_of(pos, "lend_to_railroad", "collect_from_railroad"):
            # An amount of $0 asks for nothing and is passed over.
            if isinstance(order, LendToRailroad) and order.amount > 0:
                _lend(ctx, tycoon, order)
            elif isinstance(order, CollectFromRailroad) and order.amount > 0:
                _collect(ctx, tycoon, order)


def _lend(ctx: TurnContext, tycoon: Tycoon, order: LendToRailroad) -> None:
    pos = tycoon.position
    rr = _presided_railroad(ctx, pos, order, order.railroad)
    if rr is None:
        return
    before = ctx.start.railroads.get(rr.code)
    if before is not None and before.owed_to_president > 0 and before.lender != pos:
        ctx.reject(
            pos,
            order,
            reasons.NOT_ALLOWED_NOW,
            f"{rr.code} owed {money(before.owed_to_president)} to position {before.lender} "
            "at the start of the turn",
        )
        return
    amount = min(order.amount, tycoon.cash)
    if amount <= 0:
        ctx.reject(pos, order, reasons.INSUFFICIENT_CASH, "you have no cash to lend")
        return
    if amount < order.amount:
        ctx.reject(
            pos,
            order,
            reasons.CUT_TO_AFFORDABLE,
            f"you had {money(tycoon.cash)}",
            cut_to=LendToRailroad(railroad=rr.code, amount=amount),
        )
    ctx.transfer(
        tycoon_account(pos), railroad_account(rr.code), amount, "loan to railroad", rr.code
    )
    rr.owed_to_president += amount
    rr.lender = pos
    ctx.emit(RailroadLoan(position=pos, railroad=rr.code, amount=amount, owed=rr.owed_to_president))


def _collect(ctx: TurnContext, tycoon: Tycoon, order: CollectFromRailroad) -> None:
    pos = tycoon.position
    rr = ctx.state.railroads.get(order.railroad)
    if rr is None:
        ctx.reject(pos, order, reasons.UNKNOWN_RAILROAD, f"there is no railroad {order.railroad!r}")
        return
    if rr.lender != pos or rr.owed_to_president <= 0:
        ctx.reject(pos, order, reasons.NOT_ALLOWED_NOW, f"{rr.code} owes you nothing")
        return
    amount = min(order.amount, rr.owed_to_president, rr.cash)
    if amount <= 0:
        ctx.reject(pos, order, reasons.INSUFFICIENT_CASH, f"{rr.code} has no cash")
        return
    if amount < order.amount:
        ctx.reject(
            pos,
            order,
            reasons.ABOVE_MAXIMUM,
            f"{rr.code} owed you {money(rr.owed_to_president)} and had {money(rr.cash)}",
            cut_to=CollectFromRailroad(railroad=rr.code, amount=amount),
        )
    ctx.transfer(railroad_account(rr.code), tycoon_account(pos), amount, "loan repaid", rr.code)
    rr.owed_to_president -= amount
    if rr.owed_to_president == 0:
        rr.lender = None
    ctx.emit(
        RailroadLoanRepaid(position=pos, railroad=rr.code, amount=amount, owed=rr.owed_to_president)
    )


# --- 1.2 Rail Prodigal ----------------------------------------------------------


def prodigal_spending(ctx: TurnContext) -> None:
    """1.2 Rail Prodigal spending goes to the bank; each order is cut to what
    the tycoon can afford. Any amount is spent, but only a turn's total of at
    least $1,000 scores Prodigal points [original]; the victory step scores the
    `prodigal_spent` event (one per tycoon, the turn's total).

    What he can afford is his cash less `loan_cover_percent` of his bank loan
    [designed, issue 24: a tycoon who borrowed his whole credit limit every
    turn and spent it on Prodigal bought the category with the bank's money,
    going bankrupt again and again]: the bank does not finance mansions."""
    cover = victory_params(ctx.scenario).rail_prodigal.loan_cover_percent
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        total = 0
        for order in ctx.orders_of(pos, "prodigal"):
            if not isinstance(order, ProdigalSpending) or order.amount <= 0:
                continue
            affordable = max(0, tycoon.cash - tycoon.loan * cover // 100)
            amount = min(order.amount, affordable)
            if amount <= 0:
                hint = (
                    "you have no cash left to spend"
                    if affordable == tycoon.cash
                    else f"your {money(tycoon.cash)} of cash does not cover your "
                    f"{money(tycoon.loan)} loan: the bank does not finance Prodigal spending"
                )
                ctx.reject(pos, order, reasons.INSUFFICIENT_CASH, hint)
                continue
            if amount < order.amount:
                ctx.reject(
                    pos,
                    order,
                    reasons.CUT_TO_AFFORDABLE,
                    f"you had {money(tycoon.cash)} left and owe the bank {money(tycoon.loan)}: "
                    f"you could spend {money(affordable)}",
                    cut_to=ProdigalSpending(amount=amount),
                )
            ctx.transfer(tycoon_account(pos), BANK, amount, "prodigal spending")
            total += amount
        if total > 0:
            tycoon.prodigal_spent += total
            ctx.emit(ProdigalSpent(position=pos, amount=total))


# --- 3.1, 9.6 spying -------------------------------------------------------------


def spying(ctx: TurnContext) -> None:
    """3.1, 9.6 Spying on a player (his contacts and holdings) or a railroad
    (its shareholders and cash flow) [original]; the cost and the number per
    turn are [designed] (tycoons.toml [spying]). Repeats are refused free."""
    params = ctx.params("tycoons", TycoonsParams).spying
    for tycoon in ctx.state.tycoons:
        pos = tycoon.position
        players: set[int] = set()
        railroads: set[str] = set()
        for order in ctx.orders_of(pos, "spy_player", "spy_railroad"):
            if isinstance(order, SpyOnPlayer):
                target = order.target
                if not 1 <= target <= len(ctx.state.tycoons) or target == pos:
                    ctx.reject(
                        pos, order, reasons.UNKNOWN_PLAYER, f"no other player numbered {target}"
                    )
                elif target in players:
                    ctx.reject(pos, order, reasons.DUPLICATE_ORDER, f"already spying on {target}")
                elif len(players) >= params.players_per_turn:
                    ctx.reject(
                        pos,
                        order,
                        reasons.ABOVE_MAXIMUM,
                        f"spy on at most {params.players_per_turn} player(s) a turn",
                    )
                elif _pay_spy(ctx, tycoon, order, params.player_cost):
                    players.add(target)
                    ctx.emit(SpiedOnPlayer(position=pos, target=target, cost=params.player_cost))
            elif isinstance(order, SpyOnRailroad):
                code = order.railroad
                if code not in ctx.state.railroads:
                    ctx.reject(
                        pos, order, reasons.UNKNOWN_RAILROAD, f"there is no railroad {code!r}"
                    )
                elif code in railroads:
                    ctx.reject(pos, order, reasons.DUPLICATE_ORDER, f"already spying on {code}")
                elif len(railroads) >= params.railroads_per_turn:
                    ctx.reject(
                        pos,
                        order,
                        reasons.ABOVE_MAXIMUM,
                        f"spy on at most {params.railroads_per_turn} railroads a turn",
                    )
                elif _pay_spy(ctx, tycoon, order, params.railroad_cost):
                    railroads.add(code)
                    ctx.emit(
                        SpiedOnRailroad(position=pos, railroad=code, cost=params.railroad_cost)
                    )


def _pay_spy(ctx: TurnContext, tycoon: Tycoon, order: Order, cost: int) -> bool:
    if tycoon.cash < cost:
        ctx.reject(tycoon.position, order, reasons.INSUFFICIENT_CASH, f"spying costs {money(cost)}")
        return False
    ctx.transfer(tycoon_account(tycoon.position), BANK, cost, "spying")
    return True
