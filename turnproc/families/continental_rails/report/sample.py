"""A made-up mid-game turn for previewing the report layout and timing the renderer.

`sample_turn` builds, from any scenario with the 1841 start, a game at turn
`turn` with incorporated railroads, owned PCs and RoWs, varied holdings, and a
ledger and events of most kinds the report words. It is not a played game:
the figures are arbitrary but consistent (every cash change is in the ledger,
holdings match issued stock).
"""

import random
from typing import Any

from turnproc.core.ledger import BANK, LedgerEntry, railroad_account, tycoon_account
from turnproc.families.continental_rails.engine.events import EVENT_TYPES, Event, Rejection
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES, GameState, Railroad
from turnproc.families.continental_rails.report.meta import Announcement, Contact, GameMeta
from turnproc.scenario.model import Scenario


def _event(kind: str, **fields: Any) -> Event:
    """An event of the engine's class for `kind`."""
    return EVENT_TYPES[kind](**fields)


class _Book:
    """Applies money moves to the end state and records them, like the engine's ledger."""

    def __init__(self, state: GameState):
        self.state = state
        self.entries: list[LedgerEntry] = []

    def move(self, src: str, dst: str, amount: int, reason: str, ref: str = "") -> None:
        for account, delta in ((src, -amount), (dst, amount)):
            kind, _, key = account.partition(":")
            if kind == "tycoon":
                self.state.tycoon(int(key)).cash += delta
            elif kind == "railroad":
                self.state.railroads[key].cash += delta
        self.entries.append(LedgerEntry(src=src, dst=dst, amount=amount, reason=reason, ref=ref))


def _neighbours(scenario: Scenario, codes: list[str], taken: set[str]) -> list[str]:
    towns = {t for code in codes for t in scenario.routes[code].towns}
    found = []
    for town in sorted(towns):
        for code in scenario.routes_at.get(town, ()):
            route = scenario.routes[code]
            twin = route.double_with
            if (
                route.kind == "RoW"
                and code not in taken
                and code not in found
                and (twin is None or (twin not in taken and twin not in found))
            ):
                found.append(code)
    return found


def sample_meta(state: GameState) -> GameMeta:
    contacts = {
        t.position: Contact(
            real_name=f"Player {t.position}",
            email=f"player{t.position}@example.org",
            phone=f"555-01{t.position:02d}",
            withhold_phone=t.position == 4,
        )
        for t in state.tycoons
        if t.human
    }
    return GameMeta(
        name=state.game or "Sample game",
        contacts=contacts,
        deadline="Friday 12 March, 18:00 UTC",
        announcements=[
            Announcement(position=2, text="The <b>Erie</b> is not for sale & never will be."),
            Announcement(position=5, text="Seeking partners west of Chicago.", anonymous=True),
            Announcement(text="Turn 9 runs a day late because of the holiday."),
        ],
    )


def sample_turn(
    scenario: Scenario, seed: int = 7, turn: int = 8
) -> tuple[GameState, TurnResult, GameMeta]:
    """A consistent made-up turn `turn`: (state at start, result, metadata)."""
    rand = random.Random(seed)
    humans = [
        PlayerSetup(position=1, character="José Martínez-Núñez", human=True),
        PlayerSetup(position=2, character="Jürgen Groß", human=True),
        PlayerSetup(position=3, character="Ἀλέξανδρος Παπαδόπουλος", human=True),
        PlayerSetup(position=4, character="<i>Vanderbilt</i> & Sons", human=True),
        PlayerSetup(
            position=5, character="Cornelius Augustus Maximilian Vanderbilt III", human=True
        ),
        PlayerSetup(position=6, character="東京 Rail", human=True),
    ]
    start = new_game(scenario, seed, humans, game="Sample game")
    start.turn = turn
    start.climate = 3
    pcs = [c for c, pc in start.pcs.items() if pc.status == "available"]
    taken = {c for c in start.railroads} | set(pcs)
    # Three PCs became railroads in earlier turns, each with a few lines and RoWs.
    for number, code in enumerate(pcs[:3]):
        route = scenario.routes[code]
        start.railroads[code] = Railroad(
            code=code,
            number=route.number,
            name=route.name,
            founded_turn=1 + number,
            lines=[code],
            authorized=800,
            issued=400,
            price=10 + 7 * number,
            cash=900 + 400 * number,
            efficiency=70 + 3 * number,
            locomotive=2,
        )
        start.pcs[code].status = "incorporated"
    for rr in start.railroads.values():
        extra = _neighbours(scenario, rr.lines, taken)[:4]
        taken.update(extra)
        rr.lines += extra[:2]
        rr.rows += extra[2:3]
        rr.double_tracked = rr.lines[:1] if rr.number % 2 else []
        rr.bonds = 500 * (rr.number % 4)
        rr.loan = 200 * (rr.number % 3)
        rr.land = 1000 * (rr.number % 5)
        rr.technologies = list(start.technologies_available)
    for tycoon in start.tycoons:
        tycoon.cash = 800 + rand.randrange(0, 6000, 10)
        tycoon.loan = rand.choice([0, 0, 500, 1500])
        for code, rr in start.railroads.items():
            tycoon.holdings[code] = rand.randrange(0, rr.issued // 15)
    for index, code in enumerate(pcs[3:9]):
        owner = start.tycoon(1 + index * 2)
        owner.pcs.append(code)
        start.pcs[code].status = "owned"
        start.pcs[code].owner = owner.position
        start.pcs[code].for_sale = index == 0
    for code, rr in start.railroads.items():
        ranked = sorted(start.tycoons, key=lambda t: (-t.holdings.get(code, 0), t.position))
        rr.president = ranked[0].position
        rr.chairman = ranked[1].position
        rr.directors = [t.position for t in ranked[:4]]
        rr.issued = max(rr.issued, sum(t.holdings.get(code, 0) for t in start.tycoons) + 50)
    for tycoon in start.tycoons:
        tycoon.vp = {c: rand.randrange(0, 60) for c in VP_CATEGORIES}

    end = start.model_copy(deep=True)
    book = _Book(end)
    events: list[Event] = []
    rejections: list[Rejection] = []
    buyer = end.tycoon(2)
    bought = pcs[9]
    price = end.pcs[bought].asking_price + 120
    book.move(tycoon_account(2), BANK, price, "pc_purchase", bought)
    buyer.pcs.append(bought)
    end.pcs[bought].status = "owned"
    end.pcs[bought].owner = 2
    events.append(_event("pc_bought", position=2, pc=bought, price=price, previous_owner=None))
    for position in (1, 3, 5):
        tycoon = end.tycoon(position)
        code = sorted(end.railroads)[position]
        rr = end.railroads[code]
        shares = 10 * position
        if tycoon.cash >= shares * rr.price:
            book.move(tycoon_account(position), BANK, shares * rr.price, "stock purchase", code)
            tycoon.holdings[code] = tycoon.holdings.get(code, 0) + shares
            events.append(
                _event(
                    "tycoon_trade",
                    visibility="private",
                    position=position,
                    railroad=code,
                    action="buy",
                    shares=shares,
                    price=rr.price,
                    amount=shares * rr.price,
                )
            )
    for code, rr in end.railroads.items():
        start_price = rr.price
        rr.price = max(5, start_price + rand.randint(-3, 6))
        rev = 1500 + 40 * rr.number + rand.randrange(0, 2000, 10)
        expense = rev * (100 - rr.efficiency) // 100
        interest = (rr.bonds * 6 + rr.loan * 12) // 100
        profit = rev - expense - interest
        dividend = max(0, min(99, profit // max(1, rr.issued) // 2))
        book.move(BANK, railroad_account(code), rev, "revenue", code)
        book.move(railroad_account(code), BANK, expense, "operating expense", code)
        book.move(railroad_account(code), BANK, interest, "interest", code)
        paid = 0
        for tycoon in end.tycoons:
            shares = tycoon.holdings.get(code, 0)
            if dividend and shares:
                book.move(
                    railroad_account(code),
                    tycoon_account(tycoon.position),
                    shares * dividend,
                    "dividend",
                    code,
                )
                paid += shares * dividend
                events.append(
                    _event(
                        "dividend_received",
                        position=tycoon.position,
                        railroad=code,
                        shares=shares,
                        per_share=dividend,
                        amount=shares * dividend,
                    )
                )
        rr.dividend = dividend
        events.append(
            _event(
                "operations_result",
                railroad=code,
                revenue=rev,
                expense=expense,
                interest=interest,
                profit=profit,
                dividend_per_share=dividend,
                dividends_paid=paid,
            )
        )
        events.append(
            _event(
                "stock_trade_summary",
                railroad=code,
                start_price=start_price,
                high=max(start_price, rr.price) + 2,
                low=min(start_price, rr.price) - 1,
                end_price=rr.price,
                trade_price=(start_price + rr.price) // 2,
                bought=rand.randrange(0, 200),
                sold=rand.randrange(0, 200),
            )
        )
    for tycoon in end.tycoons:
        interest = tycoon.cash * 11 // 200
        book.move(BANK, tycoon_account(tycoon.position), interest, "interest on cash")
        events.append(
            _event("cash_interest", position=tycoon.position, amount=interest, rate_half_percent=5)
        )
        if tycoon.loan:
            charge = min(tycoon.cash, -(-tycoon.loan * 11 // 100))
            book.move(tycoon_account(tycoon.position), BANK, charge, "loan interest")
            events.append(
                _event(
                    "loan_interest",
                    position=tycoon.position,
                    amount=charge,
                    rate_percent=11,
                    added_to_loan=0,
                )
            )
    spender = end.tycoon(3)
    book.move(tycoon_account(3), BANK, spender.cash // 4, "prodigal spending")
    events.append(_event("prodigal_spent", position=3, amount=spender.cash // 4))
    book.move(tycoon_account(1), BANK, 100, "spying")
    events.append(_event("spied_player", position=1, target=2, cost=100))
    spied_rr = sorted(end.railroads)[-1]
    book.move(tycoon_account(1), BANK, 100, "spying")
    events.append(_event("spied_railroad", position=1, railroad=spied_rr, cost=100))
    new_rr = end.railroads[pcs[2]]
    events.append(
        _event(
            "railroad_incorporated",
            position=new_rr.president,
            railroad=new_rr.code,
            number=new_rr.number,
            issued=new_rr.issued,
            price=new_rr.price,
            shares=80,
            capital=new_rr.issued * new_rr.price,
        )
    )
    if new_rr.rows:
        events.append(_event("row_acquired", railroad=new_rr.code, row=new_rr.rows[0], price=640))
    events.append(
        _event("row_built", railroad=new_rr.code, row=new_rr.lines[-1], cost=1200, land_granted=0)
    )
    events.append(_event("line_double_tracked", railroad="NYC", line="NYC", cost=730))
    events.append(
        _event("locomotive_upgraded", railroad="PENN", locomotive=3, previous=1, cost=1470)
    )
    events.append(_event("technology_bought", railroad="B&O", technology="A", cost=900))
    events.append(_event("president_elected", railroad="NYC", position=4, previous=1))
    events.append(_event("loan_recalled", position=7, amount=1500, credit_limit=2250))
    events.append(_event("climate_changed", old=start.climate, new=4))
    end.climate = 4
    events.append(_event("random_event", railroad="SCL", event="bridge washed out", cost=380))
    events.append(_event("moderator_adjustment", position=9, cash=250, reason="lost turnsheet"))
    released = [c for c, pc in end.pcs.items() if pc.status == "unreleased"][:6]
    prices = [600 + 150 * index for index in range(len(released))]
    for code, asking in zip(released, prices, strict=True):
        end.pcs[code].status = "available"
        end.pcs[code].asking_price = asking
        end.pcs[code].released_turn = turn + 1
    events.append(_event("pcs_released", pcs=released, prices=prices))
    rejections.append(
        Rejection(
            position=1,
            order_index=3,
            order={"kind": "buy", "railroad": "SCL", "shares": 100},
            code="CUT_TO_AFFORDABLE",
            hint="Only 50 shares were affordable after the orders before it.",
            cut_to={"kind": "buy", "railroad": "SCL", "shares": 50},
        )
    )
    end.turn = turn + 1
    result = TurnResult(
        state=end,
        events=events,
        rejections=rejections,
        ledger=book.entries,
    )
    return start, result, sample_meta(start)
