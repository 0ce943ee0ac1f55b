"""The log in words (report/story.py) and who hears of every move (NOTIFY EVERY
or MINE, docs/18xx.md)."""

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.report.story import Entry, story
from turnproc.families.g18xx.titles.load import new_game
from turnproc.sequential.position import describe, seats_of
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, ModeratorLog

MAX_LOG_LINES = 300  # lines of log in one mail; the older ones are left out, and counted


def story_of(session: Session, game_row: Game, loaded: store.Loaded) -> list[Entry]:
    """The game's moves in words (report/story.py), the players by name."""
    names = {p.position: p.real_name or p.character for p in seats_of(session, game_row)}
    row = loaded.row
    seats = [p["id"] for p in json.loads(row.players)]
    options = json.loads(row.options)
    actions = [parse_action(json.loads(m.action)) for m in store.live_moves(session, row)]
    return story(lambda: new_game(row.title, seats, options), actions, names)


def log_text(heading: str, lines: Sequence[str]) -> str:
    if not lines:
        return ""
    shown = list(lines[-MAX_LOG_LINES:])
    left_out = len(lines) - len(shown)
    head = f"{heading}" + (f" (the last {len(shown)}; {left_out} before them)" if left_out else "")
    return head + ":\n" + "".join(f"  {line}\n" for line in shown) + "\n"


def happened(session: Session, game_row: Game, loaded: store.Loaded, first: int) -> list[str]:
    """The moves from action `first` on, in words (a receipt's "What happened")."""
    return [e.text for e in story_of(session, game_row, loaded) if e.index >= first]


NOTIFY_MODES = ("every", "mine")


def _notify_mode(session: Session, game_row: Game, position: int) -> str:
    """The player's choice: "every" (each move as it happens) or "mine" (only
    his own turns, the default)."""
    logged = session.scalars(
        select(ModeratorLog.details)
        .where(ModeratorLog.game_id == game_row.id, ModeratorLog.action == "18xx_notify")
        .order_by(ModeratorLog.id.desc())
    ).all()
    for text in logged:
        details = json.loads(text)
        if details.get("position") == position:
            return str(details.get("mode", "mine"))
    return "mine"


def set_notify(session: Session, game_row: Game, position: int, line: str, now: datetime) -> str:
    words = line.lower().split()[1:]
    if len(words) != 1 or words[0] not in NOTIFY_MODES:
        return f"not understood: {line!r}; write NOTIFY EVERY or NOTIFY MINE"
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_notify",
        now=now,
        details={"position": position, "mode": words[0]},
    )
    if words[0] == "every":
        return "NOTIFY EVERY: you get every move as it happens"
    return "NOTIFY MINE: you get mail when it is your move (with the moves since your last)"


def notify_every(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    entries: list[Entry],
    first_new: int,
    now: datetime,
    tag: str,
    skip: set[int | None],
) -> None:
    """The new moves to each player who chose NOTIFY every (not to those who
    get a receipt or a "your move" mail about them)."""
    lines = [e.text for e in entries if e.index >= first_new]
    if not lines:
        return
    for seat in seats_of(session, game_row):
        if seat.position in skip or not seat.email:
            continue
        if _notify_mode(session, game_row, seat.position) != "every":
            continue
        to_move = loaded.game.to_move()
        after = f"Player {to_move} is to move." if to_move is not None else ""
        repo.queue_mail(
            session,
            key=f"18xx-every/{game_row.id}/{game_row.current_turn}/{tag}/{seat.position}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{game_row.name}] {lines[0]}"[:300],
            body=log_text("Moves", lines) + f"{describe(loaded.game)}\n\n{after}\n",
            now=now,
            game_id=game_row.id,
            turn=game_row.current_turn,
            position=seat.position,
        )
