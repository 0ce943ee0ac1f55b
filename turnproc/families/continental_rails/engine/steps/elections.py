"""Elections of directors, chairman and presidents (rule 4.14).

Elections happen automatically at the end of every turn, by the shares each
tycoon holds then, for next turn's officers [original]. The design
(docs/rules/04-14-elections.md):

- a director holds at least 10% of the issued stock (market.toml
  `director_percent`), the threshold the bid limit and the cornered rule of
  6.4 are built around;
- the chairman is the director with the most shares;
- tycoons name the railroads they want to preside; each railroad goes to the
  asking director with the most shares ("a director who asks gets control if
  no one with more stock asks"); a sitting president who is still a director
  is taken to ask to keep his railroads, after the railroads he named;
- nobody presides over more than two railroads, so the presidencies are
  assigned by tycoon-proposing deferred acceptance over those wishes, which
  gives every railroad to its best-placed willing director while no tycoon
  gets more than two;
- a railroad no director asks for has no president and is run by the
  computer.
"""

from typing import ClassVar, Literal

from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import Order, RequestPresidency
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.companies import max_presidencies
from turnproc.families.continental_rails.engine.steps.stockmarket import (
    MarketParams,
    directors_shares,
    is_cornered,
    market_params,
)


class PresidentElected(Event):
    """4.14 A railroad's presidency changed hands (None: run by the computer)."""

    kind: Literal["president_elected"] = "president_elected"
    railroad: str
    position: int | None
    previous: int | None
    news_order: ClassVar[int] = 110


class StockCornered(Event):
    """6.4 Directors own more than half the issued stock (Wall Street report)."""

    kind: Literal["stock_cornered"] = "stock_cornered"
    railroad: str
    directors_shares: int
    issued: int
    news_order: ClassVar[int] = 160


def directors_of(
    state: GameState,
    params: MarketParams,
    code: str,
    books: list[tuple[int, dict[str, int]]] | None = None,
) -> list[int]:
    """4.14 Tycoons holding a directorship's share of `code`, most shares first
    (ties: lower position number). `books`, when given, is every tycoon's
    (position, holdings), read once for many railroads."""
    issued = state.railroads[code].issued
    if issued <= 0:
        return []
    if books is None:
        books = [(t.position, t.holdings) for t in state.tycoons]
    # `is_director_holding` worked out once for the railroad, not once a tycoon.
    needed = issued * params.director_percent
    holders = []
    for position, holdings in books:
        shares = holdings.get(code, 0)
        if shares > 0 and shares * 100 >= needed:
            holders.append((-shares, position))
    holders.sort()
    return [pos for _, pos in holders]


def _rank(
    state: GameState, code: str, incumbent: int | None, position: int
) -> tuple[int, int, int]:
    """Who wins a railroad between two asking directors: more shares, then the
    sitting president, then the lower position number."""
    return (-state.tycoon(position).holdings.get(code, 0), position != incumbent, position)


def presidency_wishes(
    ctx: TurnContext, requested: dict[int, list[str]], incumbents: dict[str, int | None]
) -> dict[int, list[str]]:
    """4.14 Each tycoon's railroads in order of wish: those he named, then those
    he presides now (most shares first)."""
    state = ctx.state
    wishes: dict[int, list[str]] = {}
    for tycoon in state.tycoons:
        pos = tycoon.position
        own = [code for code in requested.get(pos, []) if code in state.railroads]
        sitting = sorted(
            (code for code, president in incumbents.items() if president == pos),
            key=lambda code: (-tycoon.holdings.get(code, 0), code),
        )
        wishes[pos] = own + [code for code in sitting if code not in own]
    return wishes


def assign_presidents(
    state: GameState,
    wishes: dict[int, list[str]],
    eligible: dict[str, set[int]],
    incumbents: dict[str, int | None],
    limit: int,
) -> dict[str, int]:
    """4.14 Tycoon-proposing deferred acceptance: each tycoon asks for his
    railroads in order of wish, holding at most `limit` at a time; a railroad
    keeps the best asking director (`_rank`) and turns the others away."""
    held: dict[str, int] = {}
    holding: dict[int, int] = dict.fromkeys(wishes, 0)
    next_wish: dict[int, int] = dict.fromkeys(wishes, 0)
    moved = True
    while moved:
        moved = False
        for pos in sorted(wishes):
            while holding[pos] < limit and next_wish[pos] < len(wishes[pos]):
                code = wishes[pos][next_wish[pos]]
                next_wish[pos] += 1
                moved = True
                if pos not in eligible.get(code, set()):
                    continue
                rival = held.get(code)
                incumbent = incumbents.get(code)
                if rival is None or _rank(state, code, incumbent, pos) < _rank(
                    state, code, incumbent, rival
                ):
                    if rival is not None:
                        holding[rival] -= 1
                    held[code] = pos
                    holding[pos] += 1
    return held


def _requests(ctx: TurnContext) -> tuple[dict[int, list[str]], list[tuple[int, Order, str]]]:
    """10.1 This turn's RequestPresidency orders (standing wishes for positions
    that sent no orders); at most two, unknown railroads refused."""
    state = ctx.state
    requested: dict[int, list[str]] = {}
    asked: list[tuple[int, Order, str]] = []
    limit = max_presidencies(ctx.scenario)
    merged_into = ctx.merged_into()
    for tycoon in state.tycoons:
        pos = tycoon.position
        if pos not in ctx.orders:
            requested[pos] = [code for code in tycoon.wants_presidency if code in state.railroads]
            continue
        wanted: list[str] = []
        for order in ctx.orders_of(pos, "request_presidency"):
            if not isinstance(order, RequestPresidency) or order.railroad in wanted:
                continue
            code = order.railroad
            survivor = merged_into.get(code)
            if survivor is not None:
                # 4.13 as for a standing wish: the request goes to the survivor.
                ctx.reject(
                    pos,
                    order,
                    reasons.MERGED_AWAY,
                    f"{code} merged into {survivor} this turn; your request counts for {survivor}.",
                    cut_to=RequestPresidency(railroad=survivor),
                )
                code = survivor
                if code in wanted:
                    continue
            if code not in state.railroads:
                ctx.reject(
                    pos,
                    order,
                    reasons.UNKNOWN_RAILROAD,
                    f"{code} is not an active railroad; check the railroad summary.",
                )
                continue
            if len(wanted) >= limit:
                ctx.reject(
                    pos,
                    order,
                    reasons.TOO_MANY_PRESIDENCIES,
                    f"Ask for at most {limit} railroads.",
                )
                continue
            wanted.append(code)
            asked.append((pos, order, code))
        requested[pos] = wanted
        tycoon.wants_presidency = wanted
    return requested, asked


def elections(ctx: TurnContext) -> None:
    """4.14 End-of-turn elections of directors, chairman and president of every
    railroad, by end-of-turn holdings; then the cornered stocks are announced
    (6.4), as they stand for next turn's bidding."""
    params = market_params(ctx.scenario)
    state = ctx.state
    incumbents = {code: rr.president for code, rr in state.railroads.items()}
    books = [(t.position, t.holdings) for t in state.tycoons]
    directors = {code: directors_of(state, params, code, books) for code in state.railroads}
    requested, asked = _requests(ctx)
    wishes = presidency_wishes(ctx, requested, incumbents)
    eligible = {code: set(board) for code, board in directors.items()}
    limit = max_presidencies(ctx.scenario)
    presidents = assign_presidents(state, wishes, eligible, incumbents, limit)

    for code in sorted(state.railroads):
        rr = state.railroads[code]
        board = directors[code]
        rr.directors = board
        rr.chairman = _chairman(state, code, board, rr.chairman)
        winner = presidents.get(code)
        if winner != rr.president:
            ctx.emit(PresidentElected(railroad=code, position=winner, previous=rr.president))
        rr.president = winner

    won = {pos: sum(1 for p in presidents.values() if p == pos) for pos in wishes}
    for pos, order, code in asked:
        if presidents.get(code) == pos:
            continue
        if pos not in eligible[code]:
            ctx.reject(
                pos,
                order,
                reasons.NOT_DIRECTOR,
                f"Only a director (at least {params.director_percent}% of the issued stock) "
                f"can become president of {code}.",
            )
        elif won[pos] < limit:
            ctx.reject(
                pos,
                order,
                reasons.OUTVOTED,
                f"A director with more {code} shares asked for it too.",
            )
        else:
            ctx.reject(
                pos,
                order,
                reasons.TOO_MANY_PRESIDENCIES,
                f"You won {limit} railroads you named or already preside first.",
            )

    for code in sorted(state.railroads):
        if is_cornered(state, params, code):
            ctx.emit(
                StockCornered(
                    railroad=code,
                    directors_shares=directors_shares(state, code),
                    issued=state.railroads[code].issued,
                )
            )


def _chairman(state: GameState, code: str, board: list[int], sitting: int | None) -> int | None:
    """4.14 The director with the most shares; on a tie the sitting chairman
    keeps the chair, else the lower position number."""
    if not board:
        return None
    most = state.tycoon(board[0]).holdings.get(code, 0)
    tied = [pos for pos in board if state.tycoon(pos).holdings.get(code, 0) == most]
    return sitting if sitting in tied else tied[0]
