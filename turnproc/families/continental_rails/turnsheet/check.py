"""10 Checking a turnsheet's orders against the live game as soon as it arrives.

Two kinds of finding:

- errors (`OrderRefused`, with a reason code of
  turnproc.families.continental_rails.engine.reasons): the order can never be
  carried out as written this turn — unknown railroad or PC, not its president,
  not its owner, a prohibited route, a third PC, a third presidency, a
  technology not yet invented... A sheet with an error is not put in force (see
  docs/turnsheet.md).
- warnings (`Note`): the order is valid but depends on how the turn goes —
  an amount above what the turn's start suggests you can pay, a bid that
  must win before the line built on it, a sale of more shares than you hold.
  The engine decides these when it resolves the turn.

Plus the 6.1 order-checking preview: the cash the stock market will see after
the personal actions that come before it, and which stock orders would be
cut or refused and to what (the market's own `check_stock_orders_detailed`).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, TypeAdapter

from turnproc.core.money import money, plain_amounts
from turnproc.core.sheet_errors import OrderRefused, TurnsheetError
from turnproc.core.text import for_terminal, skeleton
from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.network import (
    prohibited_reason,
    route_owners,
    touches,
)
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps.companies import max_presidencies
from turnproc.families.continental_rails.engine.steps.finance import credit_shut_until
from turnproc.families.continental_rails.engine.steps.improvements import (
    cost_basis,
    technology_cost,
    upgrade_cost,
)
from turnproc.families.continental_rails.engine.steps.railroad_finance import track_miles
from turnproc.families.continental_rails.engine.steps.stockmarket import (
    check_stock_orders_detailed,
    is_director_holding,
    market_params,
    max_bid,
)
from turnproc.families.continental_rails.engine.steps.victory import victory_params
from turnproc.families.continental_rails.engine.valuation import credit_limit
from turnproc.families.continental_rails.turnsheet.foresee import AccountWalk, Foresight, foresee
from turnproc.families.continental_rails.turnsheet.language import (
    Note,
    OrderLine,
    ParsedSheet,
    format_order,
    parse_turnsheet,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.scenario.model import Scenario

o_adapter: TypeAdapter[o.Order] = TypeAdapter(o.Order)


class _AuctionLimits(BaseModel):
    max_pcs: int = 2  # 10.1 [original]


class _OfferLimits(BaseModel):
    max_raise_percent: int = 20  # 9.5 [original]


class _AuctionsSection(BaseModel):
    """The parts of auctions.toml a turnsheet check needs."""

    auction: _AuctionLimits = _AuctionLimits()
    offers: _OfferLimits = _OfferLimits()


@dataclass(frozen=True)
class PreviewRow:
    """One stock order in the 6.1 order-checking preview."""

    line_no: int
    written: str  # the order as written (normalised)
    checked: str | None  # the order as it would trade; None when refused
    amount: int  # + credit, - debit
    cash_after: int
    code: str | None = None
    hint: str = ""


@dataclass
class Preview:
    """6.1 Cash and credit at order checking, and what would happen to each stock order."""

    cash: int  # the tycoon's cash at the start of the turn
    loan: int
    credit_available: int  # credit limit less the loan already taken
    steps: list[tuple[str, int]] = field(default_factory=list)  # orders before the market
    cash_at_market: int = 0
    rows: list[PreviewRow] = field(default_factory=list)


@dataclass
class CheckResult:
    errors: list[OrderRefused] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)
    preview: Preview | None = None
    # The cash of each railroad he presides, walked through the steps before the market.
    railroads: dict[str, AccountWalk] = field(default_factory=dict)


@dataclass
class _Checker:
    state: GameState
    scenario: Scenario
    position: int
    result: CheckResult = field(default_factory=CheckResult)
    current: OrderLine | None = None

    def refuse(self, reason: str, message: str, hint: str) -> None:
        line = self.current
        self.result.errors.append(
            OrderRefused(
                message,
                reason=reason,
                line_no=line.line_no if line else 0,
                line=line.line if line else "",
                hint=hint,
            )
        )

    def warn(self, message: str) -> None:
        line = self.current
        self.result.warnings.append(
            Note(line.line_no if line else 0, line.line if line else "", message)
        )


def check_orders(
    state: GameState, scenario: Scenario, position: int, lines: Sequence[OrderLine]
) -> CheckResult:
    """10.1, 10.2 Check every order of `position` against `state` (the turn's start)."""
    checker = _Checker(state, scenario, position)
    if not 1 <= position <= len(state.tycoons):
        checker.refuse(reasons.UNKNOWN_PLAYER, f"there is no player {position}", "")
        return checker.result
    _check_lines(checker, lines)
    sight = foresee(state, scenario, position, [line.order for line in lines])
    if sight is not None:
        _foreseen(checker, lines, sight)
        _per_mile_costs(checker, lines, sight)
        checker.result.railroads = sight.railroads
    checker.result.preview = preview(state, scenario, position, lines, sight)
    return checker.result


def _foreseen(c: _Checker, lines: Sequence[OrderLine], sight: Foresight) -> None:
    """What the engine itself did with these orders before the market: a certain
    refusal becomes an error, a likely refusal or a cut a warning. One message
    per cause: a line the sheet check refused already, or an order on a route
    or PC whose earlier order was refused (a BUILD after its lost BID), says
    nothing more."""
    refused = {error.line_no for error in c.result.errors}
    noted = {note.line_no for note in c.result.warnings}
    failed: set[str] = set()
    for rejection in sight.rejections:
        if not 0 <= rejection.order_index < len(lines):
            continue
        line = lines[rejection.order_index]
        subject = _subject(line.order)
        if line.line_no in refused or (subject and subject in failed):
            continue
        c.current = line
        hint = plain_amounts(rejection.hint)
        if sight.certain(rejection):
            c.result.warnings = [n for n in c.result.warnings if n.line_no != line.line_no]
            c.refuse(rejection.code, hint, "")
            refused.add(line.line_no)
            if subject:
                failed.add(subject)
        elif line.line_no not in noted:
            if rejection.cut_to is not None:
                cut = format_order(o_adapter.validate_python(rejection.cut_to), with_railroad=False)
                c.warn(f"would be cut to {cut} ({hint.rstrip('.')})")
            else:
                c.warn(f"may be refused if your bids win: {hint}")
            noted.add(line.line_no)
    c.current = None


def _per_mile_costs(c: _Checker, lines: Sequence[OrderLine], sight: Foresight) -> None:
    """4.17, 4.18 A locomotive or technology costs so much a mile of track, and
    the track the sheet builds first (Appendix C) makes it dearer than the
    turnsheet showed: the receipt gives the new figure and why."""
    refused = {error.line_no for error in c.result.errors}
    for line in lines:
        order = line.order
        road = c.state.railroads.get(getattr(order, "railroad", ""))
        if line.line_no in refused or road is None:
            continue
        if not isinstance(order, (o.UpgradeLocomotive, o.BuyTechnology)):
            continue
        lines_then = sight.improvement_lines.get(road.code, road.lines)
        if lines_then == road.lines or not cost_basis(c.scenario, road, order):
            continue
        built = road.model_copy(update={"lines": lines_then})
        if isinstance(order, o.UpgradeLocomotive):
            then, now = (upgrade_cost(c.scenario, r, order.locomotive) for r in (road, built))
        else:
            then, now = (technology_cost(c.scenario, r, order.technology) for r in (road, built))
        before = track_miles(c.scenario, road)
        c.current = line
        c.warn(
            f"costs {money(now)} ({cost_basis(c.scenario, built, order)}), not the "
            f"{money(then)} your sheet showed for {before:,} miles: {road.code} builds first "
            "this turn"
        )
    c.current = None


def _subject(order: o.Order) -> str:
    """The route or PC an order is about, if any (what a later order may need)."""
    for name in ("row", "line", "pc"):
        value = getattr(order, name, None)
        if isinstance(value, str):
            return value
    return ""


def lines_of(orders: o.PlayerOrders) -> list[OrderLine]:
    """Orders in force shown as numbered lines (for a receipt or a pre-filled sheet)."""
    return [OrderLine(i + 1, format_order(order), order) for i, order in enumerate(orders.orders)]


def _check_lines(c: _Checker, lines: Sequence[OrderLine]) -> None:
    state = c.state
    me = state.tycoon(c.position)
    planned_pcs = set(me.pcs)  # PCs owned, plus those bid for (if the bids win)
    incorporating: set[str] = set()
    row_bids: dict[str, set[str]] = {}
    built: dict[str, set[str]] = {}
    once: dict[tuple[str, str], int] = {}
    presidencies: list[str] = []
    # Orders that bear on others wherever they are written: the steps run in
    # the rules' order (Appendix C), not the sheet's.
    offers = {line.order.pc: line.line_no for line in lines if isinstance(line.order, o.OfferPC)}
    merges = {
        line.order.other: (line.order.railroad, line.line_no)
        for line in lines
        if isinstance(line.order, o.MergeRailroads)
    }
    for line in lines:
        c.current = line
        order = line.order
        rr_code = getattr(order, "railroad", None)
        if rr_code in merges and order.kind in _AFTER_MERGERS:
            _after_merger(c, order, *merges[rr_code])
        if order.kind not in o.STOCK_KINDS and isinstance(order, _RAILROAD_ORDERS):
            key = (order.kind, rr_code or "")
            if order.kind in _ONCE_PER_RAILROAD:
                if key in once:
                    c.refuse(
                        reasons.DUPLICATE_ORDER,
                        f"{rr_code} has a {_word(order)} order already (line {once[key]})",
                        "keep one of the two lines",
                    )
                    continue
                once[key] = line.line_no
            if not _presided(c, rr_code, incorporating):
                continue
        match order:
            case o.SetCharacterName(name=name):
                if not may_rename(state, c.position):
                    c.refuse(
                        reasons.NOT_ALLOWED_NOW,
                        "a name may be chosen only on the first turn or the turn after a "
                        "bankruptcy (3.2)",
                        "delete the NAME line",
                    )
                elif name.casefold() in {
                    t.character.casefold() for t in state.tycoons if t.position != c.position
                }:
                    c.warn(f"{name} is another tycoon's name; you would get a historical name")
                elif (
                    twin := next(
                        (
                            t.character
                            for t in state.tycoons
                            if t.position != c.position and skeleton(t.character) == skeleton(name)
                        ),
                        None,
                    )
                ) is not None:
                    c.refuse(
                        reasons.NAME_TAKEN,
                        f"{for_terminal(name)} looks like {twin}, another tycoon's name (3.2)",
                        "choose a name that reads differently",
                    )
            case o.Borrow(amount=amount):
                available = _credit_available(c)
                shut = credit_shut_until(c.scenario, me)
                if state.turn <= shut:
                    c.refuse(
                        reasons.NOT_ALLOWED_NOW,
                        f"you went bankrupt in turn {me.bankrupt_turn}: the bank lends you "
                        f"nothing before turn {shut + 1} (3.6)",
                        "delete the BORROW line",
                    )
                elif amount > available:
                    c.warn(
                        f"your credit available is {money(available)}; the loan may be cut to it"
                    )
            case o.RepayLoan(amount=amount):
                if amount > me.loan:
                    c.warn(f"you owe {money(me.loan)}; only that much will be repaid")
            case o.BidForPC(pc=pc, amount=amount):
                _check_pc_bid(c, pc, amount, planned_pcs)
            case o.OfferPC(pc=pc, price=price):
                if _owned_pc(c, pc):
                    _check_offer(c, pc, price)
            case o.IncorporatePC(pc=pc):
                if pc in planned_pcs and pc not in me.pcs:
                    c.warn(f"only if your bid for {pc} wins")
                    incorporating.add(pc)
                elif _owned_pc(c, pc):
                    incorporating.add(pc)
                    _check_incorporating_offered(c, pc, offers.get(pc))
            case o.MergePC(pc=pc, railroad=rr):
                _check_merge_pc(c, pc, rr, planned_pcs)
            case o.BuyTreasuryStock(railroad=rr, shares=shares):
                if _presided(c, rr, incorporating) and rr in state.railroads:
                    treasury = state.railroads[rr].treasury
                    if shares > treasury:
                        c.refuse(
                            reasons.ABOVE_MAXIMUM,
                            f"{rr} has {treasury} treasury shares",
                            f"ask for at most {treasury}",
                        )
            case o.LendToRailroad(railroad=rr):
                _presided(c, rr, incorporating)
            case o.CollectFromRailroad(railroad=rr, amount=amount):
                if _known_railroad(c, rr):
                    debtor = state.railroads[rr]
                    if debtor.lender != c.position or debtor.owed_to_president == 0:
                        c.refuse(
                            reasons.NOT_OWNER,
                            f"{rr} owes you nothing",
                            "collect only from a railroad you lent to",
                        )
                    elif amount > debtor.owed_to_president:
                        owed = money(debtor.owed_to_president)
                        c.warn(f"{rr} owes you {owed}; only that is collected")
            case o.ProdigalSpending(amount=amount):
                prodigal = victory_params(c.scenario).rail_prodigal
                if 0 < amount < prodigal.minimum:
                    c.warn(f"spending under {money(prodigal.minimum)} earns no Prodigal points")
                elif me.loan > 0 and amount > 0:
                    c.warn(
                        f"you owe the bank {money(me.loan)}: only cash beyond "
                        f"{prodigal.loan_cover_percent}% of your loan may be spent on "
                        "Prodigal (1.2)"
                    )
            case o.SpyOnPlayer(target=pos):
                if pos > len(state.tycoons):
                    c.refuse(reasons.UNKNOWN_PLAYER, f"there is no player {pos}", "")
                elif pos == c.position:
                    c.warn("spying on yourself tells you nothing new")
            case o.SpyOnRailroad(railroad=rr):
                _known_railroad(c, rr, incorporating)
            case o.RequestPresidency(railroad=rr):
                if _known_railroad(c, rr, incorporating):
                    if rr in presidencies:
                        c.refuse(reasons.DUPLICATE_ORDER, f"{rr} is asked for twice", "")
                    elif len(presidencies) >= max_presidencies(c.scenario):
                        c.refuse(
                            reasons.TOO_MANY_PRESIDENCIES,
                            "you may ask to preside at most "
                            f"{max_presidencies(c.scenario)} railroads",
                            "keep the two you want most",
                        )
                    else:
                        presidencies.append(rr)
                        _check_directorship(c, rr, lines)
            case o.BuyStock() | o.SellStock() | o.ShortSell() | o.CoverShort():
                _known_railroad(c, order.railroad, incorporating)
            case o.BidForRoW(railroad=rr, row=row):
                _check_row_bid(c, rr, row)
                row_bids.setdefault(rr, set()).add(row)
            case o.BuildRoW(railroad=rr, row=row):
                road = state.railroads.get(rr)
                if road is not None and row not in road.rows:
                    if row in row_bids.get(rr, set()):
                        c.warn(f"only if the bid for {row} wins")
                    else:
                        c.refuse(
                            reasons.NOT_OWNER,
                            f"{rr} does not own the RoW {row}",
                            f"bid for {row} first",
                        )
                        continue
                built.setdefault(rr, set()).add(row)
            case o.DoubleTrack(railroad=rr, line=code):
                road = state.railroads.get(rr)
                if road is not None:
                    if code in road.double_tracked:
                        c.refuse(reasons.ALREADY_DONE, f"{code} is double-tracked already", "")
                    elif code not in road.lines:
                        if code in built.get(rr, set()):
                            c.warn(f"only if {code} is built first")
                        else:
                            c.refuse(reasons.NOT_OWNER, f"{code} is not a line of {rr}", "")
            case o.UpgradeLocomotive(railroad=rr, locomotive=number):
                road = state.railroads.get(rr)
                if road is not None and number <= road.locomotive:
                    c.refuse(
                        reasons.ALREADY_DONE,
                        f"{rr} runs locomotive {road.locomotive} already",
                        f"choose one from {road.locomotive + 1} to {state.best_locomotive}",
                    )
                elif number > state.best_locomotive:
                    c.refuse(
                        reasons.NOT_YET_AVAILABLE,
                        f"the best locomotive available is {state.best_locomotive}",
                        f"choose at most {state.best_locomotive}",
                    )
            case o.BuyTechnology(railroad=rr, technology=tech, town=town):
                _check_technology(c, rr, tech, town)
            case o.DeclareRateWar(railroad=rr, rival=rival):
                _check_rate_war(c, rr, rival)
            case o.MergeRailroads(railroad=rr, other=other):
                _check_merge_railroads(c, rr, other)
            case o.RedeemBonds(railroad=rr, amount=amount):
                road = state.railroads.get(rr)
                if road is not None and amount > road.bonds:
                    c.warn(f"{rr} has {money(road.bonds)} of bonds; only that is redeemed")
            case o.RepayShortLoan(railroad=rr, amount=amount):
                road = state.railroads.get(rr)
                if road is not None and amount > road.loan:
                    c.warn(f"{rr} owes {money(road.loan)}; only that is repaid")
            case o.SellLand(railroad=rr, acres=acres):
                road = state.railroads.get(rr)
                if road is not None and acres > road.land:
                    c.warn(f"{rr} has {road.land} acres to sell")
            case _:
                pass
    c.current = None


# Orders the engine carries out after the railroad mergers (Appendix C): the
# stock market, operations (dividends) and the elections.
_AFTER_MERGERS = o.STOCK_KINDS | frozenset({"request_presidency", "dividend"})


def _after_merger(c: _Checker, order: o.Order, survivor: str, line_no: int) -> None:
    """4.13 An order for a railroad the sheet merges away: what becomes of it."""
    merged = f"{getattr(order, 'railroad', '')} merges into {survivor} this turn (line {line_no})"
    if isinstance(order, o.RequestPresidency):
        c.warn(f"{merged}: this request counts for {survivor}")
    elif order.kind in o.STOCK_KINDS:
        c.warn(
            f"{merged}, before the stock market: this order will not be carried out "
            f"(give it for {survivor} next turn)"
        )
    else:
        c.warn(f"{merged}: this order will not be carried out; {survivor}'s orders apply")


def _check_incorporating_offered(c: _Checker, pc: str, offer_line: int | None) -> None:
    """10.1, 4.1 An offered PC: the auction (step 3 of Appendix C) comes before
    the offers (4) and incorporation (5)."""
    company = c.state.pcs[pc]
    if company.for_sale:
        c.warn(
            f"{pc} is offered for sale at {money(company.asking_price)}: the PC auction comes "
            "before incorporation, so a bid of at least that sells it and this order is refused"
        )
    elif offer_line is not None:
        c.warn(
            f"you also offer {pc} for sale (line {offer_line}); it is incorporated after the "
            "offer is made, so the offer lapses"
        )


def _check_directorship(c: _Checker, rr: str, lines: Sequence[OrderLine]) -> None:
    """4.14 Only a director (`director_percent` of the issued shares) can be
    elected: his holding after the sheet's purchases and sales of `rr`."""
    road = c.state.railroads[rr]
    held = c.state.tycoon(c.position).holdings.get(rr, 0)
    after = held
    for line in lines:
        match line.order:
            case o.BuyStock(railroad=code, shares=shares) if code == rr:
                after += shares
            case o.SellStock(railroad=code, shares=shares) if code == rr:
                after -= min(shares, held)
    params = market_params(c.scenario)
    if is_director_holding(params, after, road.issued):
        return
    needed = -(-road.issued * params.director_percent // 100)
    c.warn(
        f"a president must be a director (4.14): with this sheet you hold {max(0, after)} of "
        f"{road.issued} {rr} shares, a director at least {needed} "
        f"({params.director_percent}%)"
    )


_RAILROAD_ORDERS = (
    o.SetDividend,
    o.IssueStock,
    o.IssueBonds,
    o.RedeemBonds,
    o.TakeShortLoan,
    o.RepayShortLoan,
    o.BidForRoW,
    o.BuildRoW,
    o.SellLand,
    o.DoubleTrack,
    o.UpgradeLocomotive,
    o.BuyTechnology,
    o.PoliticalDonation,
    o.DeclareRateWar,
    o.CapitalImprovement,
    o.MergeRailroads,
)
# 4.12 one dividend, 4.17 one locomotive, 4.18 one technology a turn.
_ONCE_PER_RAILROAD = frozenset({"dividend", "upgrade_locomotive", "buy_technology"})


def may_rename(state: GameState, position: int) -> bool:
    """3.2 A character name is chosen on the first turn or the turn after a bankruptcy."""
    return state.turn == 1 or state.tycoon(position).bankrupt_turn == state.turn - 1


def _word(order: o.Order) -> str:
    return format_order(order, with_railroad=False).split()[0]


def _known_railroad(c: _Checker, code: str, incorporating: set[str] | None = None) -> bool:
    if code in c.state.railroads:
        return True
    if incorporating and code in incorporating:
        c.warn(f"{code} is a railroad only once incorporated this turn")
        return False
    survivor = c.state.absorbed_by(code)
    if survivor is not None:
        c.refuse(reasons.MERGED_AWAY, f"{code} has merged into {survivor}", f"use {survivor}")
        return False
    c.refuse(
        reasons.UNKNOWN_RAILROAD,
        f"{code} is not a railroad (yet)",
        "use a railroad listed in your report; PCs become railroads when incorporated",
    )
    return False


def _presided(c: _Checker, code: str | None, incorporating: set[str]) -> bool:
    """4.14 Only the railroad's president gives its orders (or the incorporator of
    a PC this turn, who will be its president)."""
    if code is None:
        return False
    if code in incorporating:
        c.warn(f"{code} becomes a railroad when incorporated this turn; its orders count then")
        return False
    if not _known_railroad(c, code):
        return False
    road = c.state.railroads[code]
    if road.president != c.position:
        c.refuse(
            reasons.NOT_PRESIDENT,
            f"you are not the president of {code}",
            "only its president may give a railroad's orders",
        )
        return False
    return True


def _credit_available(c: _Checker) -> int:
    limit = credit_limit(c.state, c.scenario, c.position, c.state.climate)
    return max(0, limit - c.state.tycoon(c.position).loan)


def _owned_pc(c: _Checker, pc: str) -> bool:
    company = c.state.pcs.get(pc)
    if company is None:
        c.refuse(reasons.UNKNOWN_PC, f"{pc} is not a PC of this game", "")
        return False
    if company.status != "owned" or company.owner != c.position:
        c.refuse(
            reasons.NOT_OWNER, f"you do not own {pc}", "use a PC listed as yours in your report"
        )
        return False
    return True


def _check_pc_bid(c: _Checker, pc: str, amount: int, planned: set[str]) -> None:
    """10.1 Bid only for a PC available or offered for sale, while owning fewer than two."""
    limits = c.scenario.section("auctions", _AuctionsSection)
    company = c.state.pcs.get(pc)
    me = c.state.tycoon(c.position)
    if company is None:
        c.refuse(reasons.UNKNOWN_PC, f"{pc} is not a PC of this game", "")
        return
    if len(me.pcs) >= limits.auction.max_pcs:
        c.refuse(
            reasons.TOO_MANY_PCS,
            f"you own {len(me.pcs)} PCs; only a tycoon with fewer than "
            f"{limits.auction.max_pcs} may bid",
            "incorporate, merge or sell a PC first (next turn)",
        )
        return
    if company.status == "owned" and company.owner == c.position:
        c.refuse(reasons.NOT_ALLOWED_NOW, f"{pc} is yours already", "")
        return
    for_sale = company.status == "available" or (company.status == "owned" and company.for_sale)
    if not for_sale:
        c.refuse(
            reasons.NOT_AVAILABLE,
            f"{pc} is not for sale this turn",
            "bid for a PC listed under PCs available in your report",
        )
        return
    if pc in planned:
        c.refuse(reasons.DUPLICATE_ORDER, f"{pc} is bid for twice", "keep one bid")
        return
    if amount < company.asking_price:
        c.refuse(
            reasons.BELOW_MINIMUM,
            f"the asking price of {pc} is {money(company.asking_price)}",
            f"bid at least {company.asking_price}",
        )
        return
    if company.status == "owned" and company.for_sale:
        c.warn("its owner may raise the asking price by up to 20% this turn")
    planned.add(pc)
    if len(planned) > limits.auction.max_pcs:
        c.warn(f"if all your bids win you would own more than {limits.auction.max_pcs} PCs")


def _check_offer(c: _Checker, pc: str, price: int) -> None:
    limits = c.scenario.section("auctions", _AuctionsSection)
    company = c.state.pcs[pc]
    if company.for_sale and company.asking_price > 0:
        cap = company.asking_price * (100 + limits.offers.max_raise_percent) // 100
        if price > cap:
            c.refuse(
                reasons.ABOVE_MAXIMUM,
                f"the asking price may rise at most {limits.offers.max_raise_percent}% a turn",
                f"ask at most {cap}",
            )


def _lines_after(road: Railroad, *extra: str) -> list[str]:
    return [*road.lines, *road.rows, *extra]


def _check_merge_pc(c: _Checker, pc: str, rr: str, planned: set[str]) -> None:
    """4.x A PC merges into a railroad it connects to, if no route becomes prohibited."""
    me = c.state.tycoon(c.position)
    if pc in planned and pc not in me.pcs:
        c.warn(f"only if your bid for {pc} wins")
    elif not _owned_pc(c, pc):
        return
    if not _known_railroad(c, rr):
        return
    road = c.state.railroads[rr]
    if pc not in c.scenario.routes:
        return
    if not touches(c.scenario, road.lines, pc):
        c.refuse(
            reasons.NOT_CONNECTED,
            f"{pc} does not connect to {rr}'s lines",
            "merge a PC into a railroad that reaches one of its towns",
        )
        return
    why = prohibited_reason(c.scenario, _lines_after(road, pc))
    if why:
        c.refuse(reasons.PROHIBITED_ROUTE, f"prohibited route (4.8): {why}", "")


def _check_row_bid(c: _Checker, rr: str, row: str) -> None:
    """4.7 A railroad bids for an unowned RoW that would not be prohibited for it."""
    road = c.state.railroads.get(rr)
    if road is None or row not in c.scenario.routes:
        return
    owner = route_owners(c.state).get(row)
    if owner is not None:
        c.refuse(reasons.NOT_AVAILABLE, f"{row} belongs to {owner}", "bid for an unowned RoW")
        return
    why = prohibited_reason(c.scenario, _lines_after(road, row))
    if why:
        c.refuse(reasons.PROHIBITED_ROUTE, f"prohibited route (4.8): {why}", "")
        return
    if not touches(c.scenario, _lines_after(road), row):
        c.warn(f"{row} does not touch {rr}'s lines or RoWs; it cannot be built until it does")


def _check_technology(c: _Checker, rr: str, tech: str, town: str | None) -> None:
    """4.18 One technology a turn, from those invented, not already owned."""
    road = c.state.railroads.get(rr)
    if road is None:
        return
    if tech not in c.state.technologies_available:
        c.refuse(
            reasons.NOT_YET_AVAILABLE,
            f"technology {tech} is not available yet",
            "available: " + (", ".join(c.state.technologies_available) or "none"),
        )
    elif tech in road.technologies or (tech == "A" and road.grand_station):
        c.refuse(reasons.ALREADY_DONE, f"{rr} has technology {tech} already", "")
    elif tech == "A":
        big = {
            t
            for t in _towns(c.scenario, road.lines)
            if c.scenario.towns.get(t) is not None and c.scenario.towns[t].size >= 4
        }
        if town is None:
            names = ", ".join(sorted(c.scenario.towns[t].name for t in big)) or "none"
            c.refuse(
                reasons.BELOW_MINIMUM,
                "a Grand Station needs the town it stands in",
                f"write e.g. TECHNOLOGY A {names.split(', ')[0]} (size 4-5 towns on {rr}: {names})",
            )
        elif town not in big:
            c.refuse(
                reasons.NOT_CONNECTED,
                f"{town} is not a size 4 or 5 town on {rr}'s lines",
                "a Grand Station stands in a size 4 or 5 town the railroad reaches",
            )


def _towns(scenario: Scenario, codes: Sequence[str]) -> set[str]:
    towns: set[str] = set()
    for code in codes:
        if code in scenario.routes:
            towns.update(scenario.routes[code].towns)
    return towns


def _check_rate_war(c: _Checker, rr: str, rival: str) -> None:
    """4.16 A rate war needs a parallel route with the rival."""
    road = c.state.railroads.get(rr)
    if road is None or not _known_railroad(c, rival):
        return
    if rival == rr:
        c.refuse(reasons.NOT_ALLOWED_NOW, "a railroad cannot make a rate war on itself", "")
        return
    mine = {frozenset(c.scenario.routes[x].towns) for x in road.lines if x in c.scenario.routes}
    theirs = {
        frozenset(c.scenario.routes[x].towns)
        for x in c.state.railroads[rival].lines
        if x in c.scenario.routes
    }
    if not mine & theirs:
        c.refuse(
            reasons.NOT_CONNECTED,
            f"{rr} has no line parallel to one of {rival}'s",
            "a rate war is declared on a railroad with a line between the same two towns",
        )


def _check_merge_railroads(c: _Checker, rr: str, other: str) -> None:
    """4.13 Two railroads of the same president, connected, with no prohibited route."""
    if not _known_railroad(c, other):
        return
    if other == rr:
        c.refuse(reasons.NOT_ALLOWED_NOW, "a railroad cannot merge with itself", "")
        return
    road, absorbed = c.state.railroads[rr], c.state.railroads[other]
    if absorbed.president != c.position:
        c.refuse(reasons.NOT_PRESIDENT, f"you are not the president of {other}", "")
        return
    joined = [*road.lines, *absorbed.lines]
    if not any(
        touches(c.scenario, road.lines, x) for x in absorbed.lines if x in c.scenario.routes
    ):
        c.refuse(reasons.NOT_CONNECTED, f"{rr} and {other} do not connect", "")
        return
    why = prohibited_reason(c.scenario, [x for x in joined if x in c.scenario.routes])
    if why:
        c.refuse(reasons.PROHIBITED_ROUTE, f"prohibited route (4.8): {why}", "")


# --- 6.1 order-checking preview -----------------------------------------------------


def preview(
    state: GameState,
    scenario: Scenario,
    position: int,
    lines: Sequence[OrderLine],
    sight: Foresight | None = None,
) -> Preview:
    """6.1 The cash the stock market would see and what would happen to each stock order.

    The personal actions resolved before the market change the cash first
    (Appendix C): loans (cut to the credit available), repayments, PC bids
    (counted as if they all win: the worst case), treasury stock, loans to
    and from railroads, Prodigal spending and spying. `sight` is the engine's
    own run of those steps
    (turnproc.families.continental_rails.turnsheet.foresee); without it the walk
    is estimated from the orders. The stock orders are then walked by the
    market's own order check.
    """
    me = state.tycoon(position)
    available = max(0, credit_limit(state, scenario, position, state.climate) - me.loan)
    result = Preview(cash=me.cash, loan=me.loan, credit_available=available)
    if sight is not None:
        for step in sight.tycoon.steps:
            if step.amount:
                won = " (if won)" if step.label.startswith("PC purchase") else ""
                result.steps.append((step.label + won, step.amount))
        return _market_rows(
            state, scenario, position, lines, result, sight.tycoon.cash_left, sight.merged_into
        )
    cash = me.cash
    borrowed = 0
    for line in lines:
        order = line.order
        change = 0
        match order:
            case o.Borrow(amount=amount):
                change = min(amount, max(0, available - borrowed))
                borrowed += change
            case o.RepayLoan(amount=amount):
                change = -min(amount, me.loan + borrowed, cash)
            case o.BidForPC(amount=amount) | o.ProdigalSpending(amount=amount):
                change = -amount
            case o.LendToRailroad(amount=amount):
                change = -amount
            case o.CollectFromRailroad(railroad=rr, amount=amount):
                road = state.railroads.get(rr)
                if road is not None and road.lender == position:
                    change = min(amount, road.owed_to_president)
            case o.BuyTreasuryStock(railroad=rr, shares=shares):
                road = state.railroads.get(rr)
                if road is not None:
                    change = -min(shares, road.treasury) * road.price
            case _:
                continue
        if change:
            cash += change
            # A PC bid is counted as won: the cash it would take is not there for stocks.
            won = " (if won)" if isinstance(order, o.BidForPC) else ""
            result.steps.append((format_order(order) + won, change))
    return _market_rows(state, scenario, position, lines, result, cash)


def _market_rows(
    state: GameState,
    scenario: Scenario,
    position: int,
    lines: Sequence[OrderLine],
    result: Preview,
    cash: int,
    merged_into: dict[str, str] | None = None,
) -> Preview:
    result.cash_at_market = max(0, cash)
    stock = [line for line in lines if line.order.kind in o.STOCK_KINDS]
    known = [line for line in stock if getattr(line.order, "railroad", "") in state.railroads]
    checked = check_stock_orders_detailed(
        state,
        scenario,
        position,
        [line.order for line in known],
        result.cash_at_market,
        merged_into,
    )
    for line, item in zip(known, checked, strict=True):
        result.rows.append(
            PreviewRow(
                line_no=line.line_no,
                written=format_order(line.order),
                checked=format_order(item.checked) if item.checked is not None else None,
                amount=item.amount,
                cash_after=item.cash_after,
                code=item.code,
                hint=item.hint,
            )
        )
    return result


def bid_limits(state: GameState, scenario: Scenario, position: int) -> dict[str, int]:
    """6.1B The most shares `position` may bid for in each railroad this turn."""
    params = market_params(scenario)
    return {code: max_bid(state, position, code, params) for code in sorted(state.railroads)}


@dataclass(frozen=True)
class Evaluation:
    """A turnsheet read and checked: what `submit_sheet` and the benchmark need."""

    sheet: ParsedSheet
    check: CheckResult | None  # None when the sheet has no usable header

    @property
    def errors(self) -> list[TurnsheetError]:
        return [*self.sheet.errors, *(self.check.errors if self.check else [])]

    @property
    def notes(self) -> list[Note]:
        return [*self.sheet.notes, *(self.check.warnings if self.check else [])]


def evaluate(
    text: str,
    state: GameState,
    scenario: Scenario,
    vocabulary: Vocabulary | None = None,
    prefer: frozenset[int] = frozenset(),
) -> Evaluation:
    """10 Parse a turnsheet and check its orders against `state` (raises only SheetTooLarge).
    `prefer`: the sender's positions (see `parse_turnsheet`)."""
    vocab = vocabulary or Vocabulary.from_scenario(scenario, state)
    sheet = parse_turnsheet(text, vocab, prefer)
    if sheet.header is None or not 1 <= sheet.header.position <= len(state.tycoons):
        return Evaluation(sheet, None)
    return Evaluation(sheet, check_orders(state, scenario, sheet.header.position, sheet.lines))
