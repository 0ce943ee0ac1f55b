"""9 The turn report as one model, built for one reader position.

`build_report` turns the scenario, the state at the start of the turn, the
turn's result (end state, events, ledger) and the game's metadata into a
`PlayerReport`; the PDF, the plain-text body and the JSON export all render
this one model, so they never disagree.

Privacy is decided here and only here [original rules 3.1, 9.2, 9.4, 9.6]:
another tycoon's cash, net worth and holdings appear only if the reader spied
on him this turn; his holdings in railroads the reader presides appear always
(9.2 "their stock in Railroads you control"); a railroad's cash flow appears
only to its directors and to tycoons who spied on it; real names and phone
numbers only in games that are not anonymous (or to a spy), and never when the
player withheld them.
"""

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter

from turnproc.core.ledger import LedgerEntry, railroad_account, tycoon_account
from turnproc.core.money import money, plain_amounts
from turnproc.core.text import neutralised
from turnproc.families.continental_rails.engine import reasons, valuation
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import Order
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES, GameState, Railroad
from turnproc.families.continental_rails.engine.steps import rights_of_way, stockmarket
from turnproc.families.continental_rails.report.meta import Contact, GameMeta, Replacement, StoodIn
from turnproc.families.continental_rails.report.wording import PLAYERS, Wording, load_wording
from turnproc.families.continental_rails.turnsheet.language import format_order
from turnproc.scenario.model import Scenario

# Events the report shows in their own sections rather than as news lines.
# Events shown in their own sections rather than as news lines.
_SECTION_KINDS = frozenset(
    {"stock_trade_summary", "tycoon_trade", "operations_result", "announcement"}
)
# 9.1 Private cash-flow items (news_order 900+) belong to the private report.
_PRIVATE_ORDER = 900


order_adapter: TypeAdapter[Order] = TypeAdapter(Order)


# --- the report model -----------------------------------------------------------


class NewsItem(BaseModel):
    order: int
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class NewsGroup(BaseModel):
    order: int
    title: str
    items: list[NewsItem]


class VPEntry(BaseModel):
    position: int
    character: str
    points: int
    rank: int = 0  # in a top five: 1 + how many have more points (ties share a rank)


class VPTable(BaseModel):
    category: str
    title: str
    top: list[VPEntry]
    reader_points: int


class PlayerLine(BaseModel):
    """9.2 One position in the player summary."""

    rank: int
    position: int
    character: str
    human: bool
    presides: list[str]
    pcs: list[str]
    holdings: dict[str, int] = Field(default_factory=dict)  # only what the reader may see
    net_worth: int | None = None  # the reader's own, or a spied player's
    cash: int | None = None
    real_name: str = ""
    phone: str = ""
    email: str = ""
    spied: bool = False


class LineInfo(BaseModel):
    code: str
    towns: str
    length: int
    double: bool = False
    built: bool = True


class RailroadLine(BaseModel):
    """9.3 One railroad in the railroad summary."""

    code: str
    number: int
    name: str
    track: int
    revenues: int | None
    op_expense: int | None
    bond_debt: int
    loan_debt: int
    profit_per_share: int | None
    dividend_per_share: int
    land: int
    grant: int
    president: int | None
    chairman: int | None
    directors: list[int]
    efficiency: int
    locomotive: int
    technologies: list[str]
    lines: list[LineInfo]
    reader_role: str = ""  # "president", "director" or ""


class StockLine(BaseModel):
    """9.4 One railroad in the stock report."""

    code: str
    number: int
    start_price: int
    high: int
    low: int
    end_price: int
    volume: int
    issued: int
    treasury: int
    bought: int = 0
    sold: int = 0
    shorted: int = 0
    covered: int = 0
    holding: int = 0
    short: int = 0
    max_bid: int = 0
    spied: dict[int, int] = Field(default_factory=dict)  # spied position -> shares


class PCLine(BaseModel):
    """9.5 A PC that may be bid for this turn."""

    code: str
    number: int
    name: str
    towns: str
    length: int
    asking_price: int
    owner: int | None = None


class CashItem(BaseModel):
    text: str
    amount: int  # + received, - paid
    reason: str
    ref: str = ""


class CashFlow(BaseModel):
    """9.6 One account's cash flow for the turn, line by line."""

    account: str
    title: str
    opening: int
    items: list[CashItem]
    closing: int


class OrderNote(BaseModel):
    """An order of the reader's that was refused or cut, with the hint."""

    code: str
    text: str
    hint: str


class PrivateReport(BaseModel):
    """9.6 The reader's own cash flow and balance sheet."""

    cash_flow: CashFlow
    balance: valuation.BalanceSheet
    notes: list[NewsItem]
    orders: list[OrderNote]
    railroads: list[CashFlow]  # railroads the reader directs or spied on


class Winner(BaseModel):
    category: str
    title: str
    points: int
    winners: list[VPEntry]


class Record(BaseModel):
    category: str
    title: str
    score: int
    character: str
    game: str


class FinalResults(BaseModel):
    """1.3 / 11.3 The last turn: category winners and the records over all games."""

    winners: list[Winner]
    records: list[Record]


class AnnouncementLine(BaseModel):
    author: str  # "the moderator", "anonymous" or "Name (#n)"
    text: str


class PlayerReport(BaseModel):
    """The whole turn report for one reader: sections 9.1-9.6 and what follows."""

    game: str
    scenario: str
    turn: int  # the turn these results are for; 0 for the opening report of a new game
    next_turn: int
    years: list[int]
    reader: int
    character: str
    anonymous: bool
    deadline: str
    climate_start: str
    climate_end: str
    loan_rate: int
    headlines: dict[int, list[str]]
    news: list[NewsGroup]
    announcements: list[AnnouncementLine]
    adjustments: list[str]
    vp: list[VPTable]
    players: list[PlayerLine]
    railroads: list[RailroadLine]
    stocks: list[StockLine]
    spied_players: list[int]
    pcs: list[PCLine]
    private: PrivateReport
    final: FinalResults | None = None
    turnsheet: str | None = None
    stood_in: StoodIn | None = None  # the reader sent no orders this turn
    replaces: Replacement | None = None  # the turn was run again: this replaces a report


# --- building ---------------------------------------------------------------------


class _Sight:
    """What the reader may see this turn."""

    def __init__(self, reader: int | None, start: GameState, end: GameState, events: list[Event]):
        """`reader` None: the public, who see nothing private (the web's game page)."""
        self.reader = reader
        self.spied_players: set[int] = set()
        self.spied_railroads: set[str] = set()
        for event in events:
            if reader is None or event.visibility != "private" or event.position != reader:
                continue
            target = _spy_target(event)
            if isinstance(target, int) and not isinstance(target, bool):
                self.spied_players.add(target)
            elif isinstance(target, str):
                self.spied_railroads.add(target)
        self.spied_players.discard(reader)
        self.directed: set[str] = set()
        self.presided: set[str] = set()
        for state in (start, end):
            for code, rr in state.railroads.items():
                if reader is None:
                    break
                if reader == rr.president or reader == rr.chairman or reader in rr.directors:
                    self.directed.add(code)
        self.presided = {
            c for c, rr in end.railroads.items() if reader is not None and rr.president == reader
        }

    def sees_railroad_books(self, code: str) -> bool:
        return code in self.directed or code in self.spied_railroads

    def concerns_reader(self, event: Event) -> bool:
        if self.reader is None:
            return False
        if event.position is not None:
            return event.position == self.reader
        return event.railroad is not None and self.sees_railroad_books(event.railroad)

    def sees_event(self, event: Event) -> bool:
        if event.visibility != "private":
            return True
        if self.reader is None:
            return False
        if event.position is not None:
            return event.position == self.reader
        return event.railroad is not None and self.sees_railroad_books(event.railroad)


def _spy_target(event: Event) -> int | str | None:
    """3.1 / 9.6 The target of a spying event: a position (player) or a code (railroad)."""
    if event.kind == "spied_player":
        target = getattr(event, "target", None)
        return target if isinstance(target, int) else None
    if event.kind == "spied_railroad":
        return event.railroad
    return None


def _years(scenario: Scenario, turn: int) -> list[int]:
    meta = scenario.params.get("scenario", {})
    first = int(meta.get("first_year", 1841))
    per_turn = int(meta.get("years_per_turn", 2))
    start = first + per_turn * (turn - 1)
    return list(range(start, start + per_turn))


def _headlines(scenario: Scenario, years: list[int]) -> dict[int, list[str]]:
    table = scenario.params.get("headlines", {}).get("years", {})
    return {year: [str(h) for h in table.get(str(year), [])] for year in years}


def _route_towns(scenario: Scenario, code: str) -> str:
    route = scenario.routes.get(code)
    if route is None:
        return ""
    names = [scenario.towns[t].name if t in scenario.towns else t for t in route.towns]
    return " - ".join(names)


def _news_item(wording: Wording, event: Event) -> NewsItem:
    """An event as a news item; made once a turn, as every reader who sees the
    event reads the same item."""
    made = wording.items.get(id(event))
    if made is not None and made[0] is event:
        return made[1]
    data = event.model_dump(exclude={"visibility"})
    item = NewsItem(
        order=type(event).news_order, kind=event.kind, text=wording.event(event), data=data
    )
    wording.items[id(event)] = (event, item)
    return item


def _news(
    wording: Wording, events: list[Event], sight: _Sight
) -> tuple[list[NewsGroup], list[NewsItem]]:
    groups: dict[int, list[NewsItem]] = defaultdict(list)
    notes: list[NewsItem] = []
    for event in events:
        if event.kind in _SECTION_KINDS or not sight.sees_event(event):
            continue
        if event.kind == "vp_awarded" and wording.routine_award(event):
            continue
        item = _news_item(wording, event)
        if item.order >= _PRIVATE_ORDER and sight.concerns_reader(event):
            notes.append(item)
        else:
            groups[item.order].append(item)
    news = [
        NewsGroup(order=order, title=wording.group_title(order), items=items)
        for order, items in sorted(groups.items())
    ]
    return news, notes


def _vp_tables(wording: Wording, state: GameState, reader: int | None) -> list[VPTable]:
    tables = []
    for category in VP_CATEGORIES:
        # Nobody is ranked for no points: the start of a game has no top five.
        scoring = [t for t in state.tycoons if t.vp.get(category, 0) > 0]
        ranked = sorted(scoring, key=lambda t: (-t.vp.get(category, 0), t.position))[:5]
        tables.append(
            VPTable(
                category=category,
                title=wording.category(category),
                top=[
                    VPEntry(
                        position=t.position,
                        character=t.character,
                        points=t.vp.get(category, 0),
                        rank=1 + sum(1 for o in scoring if o.vp.get(category, 0) > t.vp[category]),
                    )
                    for t in ranked
                ],
                reader_points=state.tycoon(reader).vp.get(category, 0) if reader else 0,
            )
        )
    return tables


def _once(wording: Wording, key: str, made_of: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """What `make` makes of the objects `made_of`, made once a turn: every
    reader's report shares it (kept in `wording`, which lives for one turn)."""
    made = wording.flows.get((key,))
    if (
        made is None
        or len(made[0]) != len(made_of)
        or any(a is not b for a, b in zip(made[0], made_of, strict=True))
    ):
        made = (made_of, make())
        wording.flows[(key,)] = made
    return made[1]


def _players(
    scenario: Scenario, state: GameState, meta: GameMeta, sight: _Sight, wording: Wording
) -> list[PlayerLine]:
    worth: dict[int, int] = _once(
        wording,
        "net worth",
        (state, scenario),
        lambda: {
            t.position: valuation.net_worth(state, scenario, t.position) for t in state.tycoons
        },
    )
    ranked = sorted(state.tycoons, key=lambda t: (-worth[t.position], t.position))
    presidents: dict[int | None, list[str]] = _once(
        wording, "presidents", (state,), lambda: _presidents(state)
    )
    lines = []
    for rank, tycoon in enumerate(ranked, start=1):
        pos = tycoon.position
        full = pos == sight.reader or pos in sight.spied_players
        if full:
            holdings = {c: n for c, n in sorted(tycoon.holdings.items()) if n > 0}
        else:
            holdings = {
                c: n
                for c, n in sorted(tycoon.holdings.items())
                if n > 0 and (c in sight.presided or c in sight.spied_railroads)
            }
        contact = meta.contacts.get(pos, Contact())
        shows_contact = full or not meta.anonymous
        lines.append(
            PlayerLine(
                rank=rank,
                position=pos,
                character=tycoon.character,
                human=tycoon.human,
                presides=list(presidents.get(pos, ())),
                pcs=list(tycoon.pcs),
                holdings=holdings,
                net_worth=worth[pos] if full else None,
                cash=tycoon.cash if full else None,
                real_name=contact.real_name if shows_contact else "",
                phone=contact.phone if shows_contact and not contact.withhold_phone else "",
                email=contact.email if shows_contact and not contact.withhold_address else "",
                spied=pos in sight.spied_players,
            )
        )
    return lines


def _presidents(state: GameState) -> dict[int | None, list[str]]:
    """The railroads each position presides over, by code."""
    presides: dict[int | None, list[str]] = defaultdict(list)
    for code, rr in sorted(state.railroads.items()):
        presides[rr.president].append(code)
    return presides


def _grant(scenario: Scenario, rr: Railroad) -> int:
    """7 / 9.3 Potential land grant if the railroad builds the RoWs it owns."""
    return rights_of_way.potential_grant(scenario, rr)


def _railroads(
    scenario: Scenario, state: GameState, events: list[Event], sight: _Sight, wording: Wording
) -> list[RailroadLine]:
    """9.3 Every railroad, the reader's role in each marked. Made once a turn
    (the reader's roles set on a copy): only the roles differ between readers."""
    made = wording.flows.get(("railroads",))
    if (
        made is None
        or made[0] is not state
        or len(made[1]) != len(events)
        or any(a is not b for a, b in zip(made[1], events, strict=True))
    ):
        made = (state, list(events), _railroads_of(scenario, state, events))
        wording.flows[("railroads",)] = made
    lines = []
    for line in made[2]:
        rr = state.railroads[line.code]
        role = ""
        if sight.reader is not None and rr.president == sight.reader:
            role = "president"
        elif line.code in sight.directed:
            role = "director"
        lines.append(line.model_copy(update={"reader_role": role}) if role else line)
    return lines


def _railroads_of(scenario: Scenario, state: GameState, events: list[Event]) -> list[RailroadLine]:
    ops = {e.railroad: e.model_dump() for e in events if e.kind == "operations_result"}
    lines = []
    for code, rr in sorted(state.railroads.items(), key=lambda item: item[1].number):
        op = ops.get(code)
        info = [
            LineInfo(
                code=line,
                towns=_route_towns(scenario, line),
                length=scenario.routes[line].length if line in scenario.routes else 0,
                double=line in rr.double_tracked,
            )
            for line in rr.lines
        ] + [
            LineInfo(
                code=row,
                towns=_route_towns(scenario, row),
                length=scenario.routes[row].length if row in scenario.routes else 0,
                built=False,
            )
            for row in rr.rows
        ]
        others = [d for d in rr.directors if d not in (rr.president, rr.chairman)]
        profit = op.get("profit") if op else None
        lines.append(
            RailroadLine(
                code=code,
                number=rr.number,
                name=rr.name,
                track=sum(i.length for i in info if i.built),
                revenues=op.get("revenue") if op else None,
                op_expense=op.get("expense") if op else None,
                bond_debt=rr.bonds,
                loan_debt=rr.loan,
                profit_per_share=profit // rr.issued if profit is not None and rr.issued else None,
                dividend_per_share=int(op.get("dividend_per_share", rr.dividend))
                if op
                else rr.dividend,
                land=rr.land,
                grant=_grant(scenario, rr),
                president=rr.president,
                chairman=rr.chairman,
                directors=sorted(others),
                efficiency=rr.efficiency,
                locomotive=rr.locomotive,
                technologies=list(rr.technologies),
                lines=info,
            )
        )
    return lines


def _max_bid(state: GameState, scenario: Scenario, reader: int, code: str) -> int:
    """6.1 / 9.4 Most shares the reader may bid for next turn (the stock market's rule)."""
    return stockmarket.max_bid(state, reader, code, stockmarket.market_params(scenario))


def _stocks(
    scenario: Scenario,
    start: GameState,
    state: GameState,
    events: list[Event],
    sight: _Sight,
    wording: Wording,
) -> list[StockLine]:
    market: dict[str | None, dict[str, Any]] = _once(
        wording,
        "market",
        tuple(events),
        lambda: {e.railroad: e.model_dump() for e in events if e.kind == "stock_trade_summary"},
    )
    mine: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for event in events:
        if (
            event.kind == "tycoon_trade"
            and sight.reader is not None
            and event.position == sight.reader
            and event.railroad
        ):
            data = event.model_dump()
            mine[event.railroad][str(data.get("action", ""))] += int(data.get("shares", 0))
    reader = state.tycoon(sight.reader) if sight.reader is not None else None
    lines = []
    for code, rr in sorted(state.railroads.items(), key=lambda item: item[1].number):
        activity = market.get(code)
        opening = start.railroads[code].price if code in start.railroads else rr.price
        trades = mine.get(code, {})
        lines.append(
            StockLine(
                code=code,
                number=rr.number,
                start_price=int(activity["start_price"]) if activity else opening,
                high=int(activity["high"]) if activity else max(opening, rr.price),
                low=int(activity["low"]) if activity else min(opening, rr.price),
                end_price=rr.price,
                volume=int(activity.get("bought", 0)) + int(activity.get("sold", 0))
                if activity
                else 0,
                issued=rr.issued,
                treasury=rr.treasury,
                bought=trades.get("buy", 0),
                sold=trades.get("sell", 0),
                shorted=trades.get("short", 0),
                covered=trades.get("cover", 0),
                holding=reader.holdings.get(code, 0) if reader else 0,
                short=reader.shorts.get(code, 0) if reader else 0,
                max_bid=_max_bid(state, scenario, reader.position, code) if reader else 0,
                spied={
                    pos: state.tycoon(pos).holdings.get(code, 0)
                    for pos in sorted(sight.spied_players)
                },
            )
        )
    return lines


def _pcs(scenario: Scenario, state: GameState) -> list[PCLine]:
    lines = []
    for code, pc in state.pcs.items():
        if not (pc.status == "available" or (pc.status == "owned" and pc.for_sale)):
            continue
        route = scenario.routes.get(code)
        lines.append(
            PCLine(
                code=code,
                number=route.number if route else 0,
                name=route.name if route else code,
                towns=_route_towns(scenario, code),
                length=route.length if route else 0,
                asking_price=pc.asking_price,
                owner=pc.owner if pc.status == "owned" else None,
            )
        )
    return sorted(lines, key=lambda line: line.number)


def _cash_flow(
    wording: Wording,
    account: str,
    title: str,
    opening: int,
    closing: int,
    ledger: list[LedgerEntry],
    pool_players: bool = False,
) -> CashFlow:
    """9.6 The entries touching `account`, in ledger order. With `pool_players`
    (a railroad's books) payments to or from tycoons are summed per reason, so a
    director does not learn other players' holdings from their dividends.
    Made once a turn: a railroad's books read the same for all its directors."""
    memo = ("cash flow", account, title, opening, closing, pool_players)
    made = wording.flows.get(memo)
    if made is not None and made[0] is ledger:
        return made[1]
    items: list[CashItem] = []
    pooled: dict[tuple[str, str, bool], CashItem] = {}
    for entry in _once(wording, "ledger by account", (ledger,), lambda: _by_account(ledger)).get(
        account, ()
    ):
        received = entry.dst == account
        other = entry.src if received else entry.dst
        amount = entry.amount if received else -entry.amount
        if pool_players and other.startswith("tycoon:"):
            key = (entry.reason, entry.ref, received)
            if key in pooled:
                pooled[key].amount += amount
                continue
            shown = LedgerEntry(
                src=PLAYERS if received else account,
                dst=account if received else PLAYERS,
                amount=entry.amount,
                reason=entry.reason,
                ref=entry.ref,
            )
            item = CashItem(
                text=wording.ledger(shown, account),
                amount=amount,
                reason=entry.reason,
                ref=entry.ref,
            )
            pooled[key] = item
            items.append(item)
            continue
        items.append(
            CashItem(
                text=wording.ledger(entry, account),
                amount=amount,
                reason=entry.reason,
                ref=entry.ref,
            )
        )
    flow = CashFlow(account=account, title=title, opening=opening, items=items, closing=closing)
    wording.flows[memo] = (ledger, flow)
    return flow


def _by_account(ledger: list[LedgerEntry]) -> dict[str, list[LedgerEntry]]:
    """Each account's ledger entries in ledger order (none moving money to itself)."""
    accounts: dict[str, list[LedgerEntry]] = defaultdict(list)
    for entry in ledger:
        if entry.src != entry.dst:
            accounts[entry.src].append(entry)
            accounts[entry.dst].append(entry)
    return accounts


def order_notes(rejections: list[Rejection], reader: int) -> list[OrderNote]:
    """The reader's orders refused or cut, written as on the turnsheet, one
    message per cause: an order about a PC or route whose earlier order failed
    (INCORPORATE after a lost BID) says so instead of giving its own reason."""
    notes: list[OrderNote] = []
    failed: dict[str, str] = {}  # PC or route -> the order about it that failed
    for r in sorted((r for r in rejections if r.position == reader), key=_written_order):
        order = order_adapter.validate_python(r.order) if r.order else None
        written = format_order(order) if order is not None else "an order"
        subject = next(
            (str(r.order[k]) for k in ("pc", "row", "line") if isinstance(r.order.get(k), str)),
            "",
        )
        hint = _sentence(plain_amounts(r.hint))
        if r.cut_to is not None:
            cut = format_order(order_adapter.validate_python(r.cut_to))
            notes.append(OrderNote(code=r.code, text=f"{written}: cut to {cut}.", hint=hint))
            continue
        if subject in failed:
            notes.append(
                OrderNote(
                    code=r.code,
                    text=f"{written}: not carried out,",
                    hint=f"as {failed[subject]} failed.",
                )
            )
            continue
        if r.code == reasons.OUTBID and _equal_bid(order, r.hint):
            hint = f"{hint.rstrip('.')}, as yours: a draw between the equal bids chose the other."
        notes.append(OrderNote(code=r.code, text=f"{written}: refused.", hint=hint))
        if subject:
            failed[subject] = written
    return notes


def _sentence(text: str) -> str:
    """An engine hint as a sentence: a capital first, a full stop last."""
    text = text.strip()
    if not text:
        return text
    return text[:1].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")


def _equal_bid(order: Order | None, hint: str) -> bool:
    """An outbid hint naming the winning amount: is it the reader's own bid?
    (A hint stored by an earlier version wrote amounts without separators.)"""
    amount = getattr(order, "amount", None)
    if amount is None:
        return False
    return re.search(rf"{re.escape(money(amount))}(?![\d,])", plain_amounts(hint)) is not None


def _written_order(rejection: Rejection) -> int:
    return rejection.order_index if rejection.order_index >= 0 else 1 << 30


def _final(wording: Wording, state: GameState) -> FinalResults | None:
    if not state.ended:
        return None
    winners = []
    for category in VP_CATEGORIES:
        best = max(t.vp.get(category, 0) for t in state.tycoons)
        winners.append(
            Winner(
                category=category,
                title=wording.category(category),
                points=best,
                winners=[
                    VPEntry(position=t.position, character=t.character, points=best)
                    for t in state.tycoons
                    if t.vp.get(category, 0) == best
                ],
            )
        )
    records = [
        Record(
            category=r.category,
            title=wording.category(r.category),
            score=r.score,
            character=r.character,
            game=r.game,
        )
        for r in state.records
    ]
    return FinalResults(winners=winners, records=records)


def _announcements(meta: GameMeta, state: GameState) -> list[AnnouncementLine]:
    lines = []
    for note in meta.announcements:
        if note.anonymous:
            author = "anonymous"
        elif note.position is None:
            author = "the moderator"
        else:
            author = f"{state.tycoon(note.position).character} (#{note.position})"
        # Player text: never a line a reply could offer as a turnsheet header.
        lines.append(AnnouncementLine(author=author, text=neutralised(note.text)))
    return lines


def build_report(
    scenario: Scenario,
    start: GameState,
    result: TurnResult,
    meta: GameMeta,
    reader: int,
    turnsheet: str | None = None,
    wording: Wording | None = None,
    opening: bool = False,
) -> PlayerReport:
    """9 The report for position `reader` on the turn `start.turn` that `result` resolved.

    With `opening` (a new game: `result` holds the turn-1 state and nothing
    happened yet) the report is numbered turn 0 and shows the starting position."""
    wording = wording or load_wording(scenario, result.state)
    end = result.state
    events = list(result.events)
    sight = _Sight(reader, start, end, events)
    news, notes = _news(wording, events, sight)
    levels = scenario.section("climate", ClimateTable).levels
    tycoon_start = start.tycoon(reader)
    tycoon_end = end.tycoon(reader)
    own = _cash_flow(
        wording,
        tycoon_account(reader),
        f"{tycoon_end.character} (#{reader})",
        tycoon_start.cash,
        tycoon_end.cash,
        result.ledger,
    )
    railroad_flows = []
    for code in sorted(sight.directed | sight.spied_railroads):
        rr_start = start.railroads.get(code)
        rr_end = end.railroads.get(code)
        known = rr_end or rr_start
        railroad_flows.append(
            _cash_flow(
                wording,
                railroad_account(code),
                f"{code} {known.name}" if known else code,
                rr_start.cash if rr_start else 0,
                rr_end.cash if rr_end else 0,
                result.ledger,
                pool_players=True,
            )
        )
    years = _years(scenario, end.turn if opening else start.turn)
    return PlayerReport(
        game=meta.name or end.game,
        scenario=scenario.title,
        turn=0 if opening else start.turn,
        next_turn=end.turn,
        years=years,
        reader=reader,
        character=tycoon_end.character,
        anonymous=meta.anonymous,
        deadline=meta.deadline,
        climate_start=levels[start.climate].name,
        climate_end=levels[end.climate].name,
        loan_rate=levels[end.climate].loan_rate,
        headlines=_headlines(scenario, years),
        news=news,
        announcements=_announcements(meta, end),
        adjustments=[a.text + (f" ({a.reason})" if a.reason else "") for a in meta.adjustments],
        vp=_vp_tables(wording, end, reader),
        players=_players(scenario, end, meta, sight, wording),
        railroads=_railroads(scenario, end, events, sight, wording),
        stocks=_stocks(scenario, start, end, events, sight, wording),
        spied_players=sorted(sight.spied_players),
        pcs=_pcs(scenario, end),
        private=PrivateReport(
            cash_flow=own,
            balance=valuation.balance_sheet(end, scenario, reader, end.climate),
            notes=notes,
            orders=order_notes(result.rejections, reader),
            railroads=railroad_flows,
        ),
        final=_final(wording, end),
        turnsheet=None if end.ended else turnsheet,
        stood_in=None if opening else meta.stood_in.get(reader),
        replaces=meta.replaces,
    )


class PublicReport(BaseModel):
    """9 The part of a turn's report that every reader's report shows alike: the
    news, announcements, victory points, the player summary without anyone's
    private figures, the railroads, the stock market and the PCs. The web's
    public pages show it; it is built as the report of a reader who sees
    nothing private, so no private fact can reach it."""

    game: str
    scenario: str
    turn: int
    next_turn: int
    years: list[int]
    climate_start: str
    climate_end: str
    loan_rate: int
    headlines: dict[int, list[str]]
    news: list[NewsGroup]
    announcements: list[AnnouncementLine]
    adjustments: list[str]
    vp: list[VPTable]
    players: list[PlayerLine]
    railroads: list[RailroadLine]
    stocks: list[StockLine]
    pcs: list[PCLine]
    final: FinalResults | None = None


def build_public_report(
    scenario: Scenario,
    start: GameState,
    result: TurnResult,
    meta: GameMeta,
    wording: Wording | None = None,
    opening: bool = False,
) -> PublicReport:
    """9 The public part of the report on the turn `result` resolved (see
    `build_report`; `opening`: the starting situation of a new game)."""
    wording = wording or load_wording(scenario, result.state)
    end = result.state
    events = list(result.events)
    sight = _Sight(None, start, end, events)
    news, _ = _news(wording, events, sight)
    levels = scenario.section("climate", ClimateTable).levels
    years = _years(scenario, end.turn if opening else start.turn)
    return PublicReport(
        game=meta.name or end.game,
        scenario=scenario.title,
        turn=0 if opening else start.turn,
        next_turn=end.turn,
        years=years,
        climate_start=levels[start.climate].name,
        climate_end=levels[end.climate].name,
        loan_rate=levels[end.climate].loan_rate,
        headlines=_headlines(scenario, years),
        news=news,
        announcements=_announcements(meta, end),
        adjustments=[a.text + (f" ({a.reason})" if a.reason else "") for a in meta.adjustments],
        vp=_vp_tables(wording, end, None),
        players=_players(scenario, end, meta, sight, wording),
        railroads=_railroads(scenario, end, events, sight, wording),
        stocks=_stocks(scenario, start, end, events, sight, wording),
        pcs=_pcs(scenario, end),
        final=_final(wording, end),
    )


def public_news(wording: Wording, state: GameState, events: list[Event]) -> list[NewsGroup]:
    """9.1 A turn's news as every reader's report prints it (`state`: the turn's end)."""
    return _news(wording, events, _Sight(None, state, state, []))[0]
