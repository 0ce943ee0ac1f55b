"""The games index: every game of both families on one list, a page at a time.

The games table holds every game made by `game new`, Continental Rails and
18xx alike (an 18xx game's seats are its players; its moves live in the 18xx
tables, turnproc/store/g18xx.py); an 18xx game imported from a recorded file
has an 18xx row only. A page of the index is read with a fixed number of
queries however many games the site holds: the count, the page's ids (newest
first, over both kinds of rows), and the page's games, players, 18xx rows and
move counts, each by one `IN`. Whose move it is in an 18xx game is its replay's;
the replay is kept by the game's live moves (their count and newest id), so
the index replays a game again only when a move was made or undone.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, literal, or_, select, union_all
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.store import g18xx as store
from turnproc.store.models import Game, Game18xx, Move18xx, Player
from turnproc.web.pages import _Cache, scenario_for, when

PER_PAGE = 50
_TO_MOVE = _Cache(4096)  # (18xx row id, live moves, newest move id) -> who is to move


@dataclass
class IndexLine:
    """One game on the index."""

    href: str
    name: str
    scenario: str  # the scenario's or the 18xx title's name
    progress: str  # "turn 3", "move 41"
    status: str
    deadline: str
    to_move: str  # 18xx: whose move it is
    players: list[str] = field(default_factory=list)


@dataclass
class IndexPage:
    lines: list[IndexLine]
    page: int
    pages: int
    total: int


class NoSuchPage(Exception):
    """A page number past the last page."""


def index_page(session: Session, page: int = 1) -> IndexPage:
    """Page `page` (from 1) of the index; NoSuchPage past the last one."""
    records = select(
        literal("18xx").label("kind"), Game18xx.id.label("id"), Game18xx.created_at.label("at")
    ).where(Game18xx.game_id.is_(None))
    games = select(literal("game").label("kind"), Game.id.label("id"), Game.created_at.label("at"))
    every = union_all(games, records).subquery()
    total = int(session.scalar(select(func.count()).select_from(every)) or 0)
    pages = max(1, -(-total // PER_PAGE))
    if not 1 <= page <= pages:
        raise NoSuchPage(page)
    chosen = session.execute(
        select(every.c.kind, every.c.id)
        .order_by(every.c.at.desc(), every.c.id.desc(), every.c.kind)
        .limit(PER_PAGE)
        .offset((page - 1) * PER_PAGE)
    ).all()
    game_ids = [row.id for row in chosen if row.kind == "game"]
    record_ids = [row.id for row in chosen if row.kind == "18xx"]
    by_id = {g.id: g for g in session.scalars(select(Game).where(Game.id.in_(game_ids)))}
    players: dict[int, list[str]] = {}
    for game_id, character in session.execute(
        select(Player.game_id, Player.character)
        .where(Player.game_id.in_(game_ids))
        .order_by(Player.game_id, Player.position)
    ):
        players.setdefault(game_id, []).append(character)
    rows18 = list(
        session.scalars(
            select(Game18xx).where(or_(Game18xx.game_id.in_(game_ids), Game18xx.id.in_(record_ids)))
        )
    )
    moves = {
        game_id: (count, newest)
        for game_id, count, newest in session.execute(
            select(Move18xx.game_id, func.count(), func.max(Move18xx.id))
            .where(Move18xx.game_id.in_([r.id for r in rows18]), Move18xx.undone_at.is_(None))
            .group_by(Move18xx.game_id)
        )
    }
    of_game = {r.game_id: r for r in rows18 if r.game_id is not None}
    records_by_id = {r.id: r for r in rows18}
    lines = []
    for row in chosen:
        if row.kind == "game":
            game = by_id[row.id]
            linked = of_game.get(game.id)
            if linked is None:
                lines.append(_game_line(game, players.get(game.id, [])))
            else:
                lines.append(_line18(session, linked, moves.get(linked.id, (0, 0)), when(game)))
        else:
            record = records_by_id[row.id]
            lines.append(_line18(session, record, moves.get(record.id, (0, 0)), ""))
    return IndexPage(lines, page, pages, total)


def _game_line(game: Game, players: list[str]) -> IndexLine:
    try:
        title = scenario_for(game.scenario).title
    except TurnprocError:
        title = game.scenario  # a scenario this program no longer has: the game is listed
    return IndexLine(
        href=f"/games/{game.id}",
        name=game.name,
        scenario=title,
        progress=f"turn {game.current_turn}",
        status=game.status,
        deadline=when(game),
        to_move="",
        players=players,
    )


def _line18(session: Session, row: Game18xx, moves: tuple[int, int], deadline: str) -> IndexLine:
    names = {int(p["id"]): str(p.get("name") or f"player {p['id']}") for p in _seats(row)}
    count, newest = moves

    def who() -> str:
        try:
            mover = store.load(session, row.name).game.to_move()
        except TurnprocError:
            return "?"  # a game that no longer replays is listed, its page says why
        return names.get(mover, str(mover)) if mover is not None else ""

    return IndexLine(
        href=f"/18xx/{row.id}",
        name=row.name,
        scenario=row.title,
        progress=f"move {count + 1}" if row.status == "active" else f"{count} moves",
        status=row.status,
        deadline=deadline,
        to_move=_TO_MOVE.get((row.id, count, newest), who) if row.status == "active" else "",
        players=list(names.values()),
    )


def _seats(row: Game18xx) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = json.loads(row.players)
    return seats
