"""The moderator's log and the standby players."""

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from turnproc.core.text import clean_name
from turnproc.store.models import Game, ModeratorLog, StandbyPlayer
from turnproc.store.repository.games import players

# --- the moderator's log -----------------------------------------------------


def logged_before(session: Session, action: str, game_id: int | None, reason: str) -> bool:
    """Whether the moderator's log holds this action with this reason already."""
    found = session.scalar(
        select(ModeratorLog.id)
        .where(
            ModeratorLog.game_id == game_id,
            ModeratorLog.action == action,
            ModeratorLog.reason == reason,
        )
        .limit(1)
    )
    return found is not None


def log_action(
    session: Session,
    *,
    action: str,
    now: datetime,
    game_id: int | None = None,
    turn: int | None = None,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> None:
    session.add(
        ModeratorLog(
            game_id=game_id,
            turn=turn,
            action=action,
            reason=reason,
            details=json.dumps(details or {}, sort_keys=True, ensure_ascii=False),
            at=now,
        )
    )


def recent_missed_counts(session: Session, game_id: int, turns: int) -> list[int]:
    """How many human players missed each of the game's last `turns` turn runs."""
    rows = session.scalars(
        select(ModeratorLog.details)
        .where(ModeratorLog.game_id == game_id, ModeratorLog.action == "turn_run")
        .order_by(ModeratorLog.id.desc())
        .limit(turns)
    ).all()
    return [len(json.loads(details).get("missed", [])) for details in rows]


def turn_run_times(session: Session, game_id: int, turn: int) -> tuple[datetime, datetime] | None:
    """When the latest run of the game's `turn` closed its orders (the
    deadline plus grace, or the moment of the run if it came earlier) and when
    it ran, from the moderator's log; None if the turn has not run (or ran
    before the closing time was logged)."""
    row = session.scalar(
        select(ModeratorLog)
        .where(
            ModeratorLog.game_id == game_id,
            ModeratorLog.action == "turn_run",
            ModeratorLog.turn == turn,
        )
        .order_by(ModeratorLog.id.desc())
        .limit(1)
    )
    if row is None:
        return None
    closed = json.loads(row.details).get("closed_at")
    return (datetime.fromisoformat(closed), row.at) if closed else None


def last_log_entry(session: Session, game_id: int) -> ModeratorLog | None:
    return session.scalar(
        select(ModeratorLog)
        .where(ModeratorLog.game_id == game_id)
        .order_by(ModeratorLog.id.desc())
        .limit(1)
    )


def log_entries(session: Session, game_id: int) -> Sequence[ModeratorLog]:
    return session.scalars(
        select(ModeratorLog).where(ModeratorLog.game_id == game_id).order_by(ModeratorLog.id)
    ).all()


def log_entries_of(
    session: Session, game_id: int, actions: Iterable[str]
) -> Sequence[ModeratorLog]:
    """The game's log entries of these actions, in order (turn runs and what
    undid them, for the reports of a turn run again)."""
    return session.scalars(
        select(ModeratorLog)
        .where(ModeratorLog.game_id == game_id, ModeratorLog.action.in_(list(actions)))
        .order_by(ModeratorLog.id)
    ).all()


# --- standby players ------------------------------------------------------------


def add_standby(
    session: Session, game_id: int, email: str, real_name: str, now: datetime
) -> StandbyPlayer:
    standby = StandbyPlayer(
        game_id=game_id, email=email, real_name=clean_name(real_name), added_at=now
    )
    session.add(standby)
    session.flush()
    return standby


def standby_refusal(session: Session, game: Game, email: str) -> str:
    """Why `email` cannot join the standby list of `game`, or "" if it can."""
    if game.status == "ended":  # a paused game may still need them when it resumes
        return f"{game.name} has ended; it needs no standby players"
    if any(s.email.lower() == email.lower() for s in standbys(session, game.id)):
        return f"{email} is already on the standby list of {game.name}"
    if any((p.email or "").lower() == email.lower() for p in players(session, game.id)):
        return f"{email} already plays a position in {game.name}"
    return ""


def waits_on_a_standby_list(session: Session, email: str) -> bool:
    """Whether `email` waits on the standby list of any game."""
    return (
        session.scalar(
            select(StandbyPlayer.id)
            .where(
                func.lower(StandbyPlayer.email) == email.strip().lower(),
                StandbyPlayer.position.is_(None),
            )
            .limit(1)
        )
        is not None
    )


def standbys(session: Session, game_id: int, waiting: bool = True) -> Sequence[StandbyPlayer]:
    """The game's standby players, first come first served; `waiting`: only
    those who have not taken a position yet."""
    query = select(StandbyPlayer).where(StandbyPlayer.game_id == game_id)
    if waiting:
        query = query.where(StandbyPlayer.position.is_(None))
    return session.scalars(query.order_by(StandbyPlayer.added_at, StandbyPlayer.id)).all()


def remove_standby(session: Session, standby: StandbyPlayer) -> None:
    session.delete(standby)
    session.flush()
