"""Moves taken back: a player's UNDO of his last mail, and the moderator's."""

import json
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.core.errors import UsageError
from turnproc.sequential.change import after_change
from turnproc.sequential.position import (
    Outcome,
    describe,
    refuse,
    round_label,
    seats_of,
    sequential_game,
    sheet,
)
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, ModeratorLog

# UNDOs a player may send in one round (docs/18xx.md): each mails him and the
# player whose move it had become, so a player cannot flood the table.
MAX_UNDOS_PER_ROUND = 2


def player_undo(
    session: Session, game_row: Game, loaded: store.Loaded, position: int, now: datetime
) -> Outcome:
    """UNDO: a player takes back the moves of his last mail, while they are
    still the last moves of the game (the next player has not acted), at most
    MAX_UNDOS_PER_ROUND times a round. The player whose move it had become is
    told; the others never heard of the move."""
    live = store.live_moves(session, loaded.row)
    if not live or live[-1].player != position or live[-1].origin != "mail":
        return refuse(
            game_row,
            "your last move is not the last move of the game: another player has acted since",
            "ask the moderator if it must be taken back",
            at=(loaded, position),
        )
    label = round_label(loaded.game)
    if _undos(session, game_row, position, label) >= MAX_UNDOS_PER_ROUND:
        return refuse(
            game_row,
            f"a player may take back his move at most {MAX_UNDOS_PER_ROUND} times a round, "
            f"and you have in {label}",
            "your move stands; ask the moderator if it must be taken back",
            at=(loaded, position),
        )
    voided = loaded.game.to_move()
    submission = live[-1].submission_id
    taken = [m for m in live if m.submission_id == submission and m.player == position]
    for move in taken:
        move.undone_at = now
    session.flush()
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_player_undo",
        now=now,
        details={"position": position, "moves": [m.seq for m in taken], "round": label},
    )
    reloaded = store.load(session, game_row.name)
    loaded.game, loaded.moves = reloaded.game, reloaded.moves
    game_row.status, loaded.row.status, loaded.row.end_reason = "active", "active", None
    why = f"player {position} took back his last move ({len(taken)} action(s))"
    told = [voided] if voided is not None and voided != position else []
    _tell(session, game_row, loaded, why, now, tag=f"undo-{taken[0].seq}", positions=told)
    after_change(
        session, game_row, loaded, now, tag=f"undo-{taken[0].seq}", before=None, answered=position
    )
    text = f"OK: {why}.\n\n{describe(loaded.game)}\n\nIt is your move again:\n\n"
    return Outcome(
        "accepted",
        f"[{game_row.name}] OK: your move is taken back",
        text + sheet(game_row, position),
    )


def _undos(session: Session, game_row: Game, position: int, label: str) -> int:
    """How many times the player took back a move in the round `label`."""
    logged = session.scalars(
        select(ModeratorLog.details).where(
            ModeratorLog.game_id == game_row.id, ModeratorLog.action == "18xx_player_undo"
        )
    ).all()
    details = [json.loads(text) for text in logged]
    return sum(1 for d in details if d.get("position") == position and d.get("round") == label)


def taken_back_since(session: Session, game_row: Game, move_number: int) -> bool:
    """Whether moves were taken back at or after move `move_number`."""
    return (
        session.scalar(
            select(ModeratorLog.id)
            .where(
                ModeratorLog.game_id == game_row.id,
                ModeratorLog.action.in_(("18xx_player_undo", "18xx_undo")),
                ModeratorLog.turn >= move_number,
            )
            .limit(1)
        )
        is not None
    )


def moderator_undo(session: Session, name: str, to: int, reason: str, now: datetime) -> list[int]:
    """The moderator takes back every move after move `to` (`18xx show` numbers
    them); logged, every player told. Returns the numbers taken back."""
    game_row = sequential_game(session, name)
    loaded = store.load(session, name, lock=True)
    if not reason.strip():
        raise UsageError("--reason is required: the players are told why")
    live = store.live_moves(session, loaded.row)
    taken = [m for m in live if m.seq > to]
    if to < 0 or not taken:
        raise UsageError(f"no move after move {to} stands in {name}")
    for move in taken:
        move.undone_at = now
    session.flush()
    reloaded = store.load(session, name)
    loaded.game, loaded.moves = reloaded.game, reloaded.moves
    game_row.status, loaded.row.status, loaded.row.end_reason = "active", "active", None
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_undo",
        now=now,
        reason=reason,
        details={"to": to, "moves": [m.seq for m in taken]},
    )
    why = f"the moderator took back moves {taken[0].seq}-{taken[-1].seq}: {reason}"
    everyone = [p.position for p in seats_of(session, game_row)]
    _tell(session, game_row, loaded, why, now, tag=f"undo-{taken[0].seq}", positions=everyone)
    after_change(session, game_row, loaded, now, tag=f"mundo-{taken[0].seq}", before=None)
    return [m.seq for m in taken]


def _tell(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    why: str,
    now: datetime,
    tag: str,
    positions: list[int],
) -> None:
    """Moves taken back: the players `positions` are told why."""
    summary = describe(loaded.game)
    for seat in seats_of(session, game_row):
        if seat.position not in positions:
            continue
        repo.queue_mail(
            session,
            key=f"18xx-undo/{game_row.id}/{tag}/{now.isoformat()}/{seat.position}",
            kind="notice",
            to_address=seat.email or "",
            subject=f"[{game_row.name}] Moves taken back",
            body=f"In {game_row.name}, {why}.\n\n{summary}\n",
            now=now,
            game_id=game_row.id,
            position=seat.position,
        )
