"""The queries behind the web pages (turnproc/web)."""

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.store import mapping
from turnproc.store.models import EventRow, Report, Standing, TurnState
from turnproc.store.repository.results import _EVENT_FIELDS


def standings_history(session: Session, game_id: int) -> Sequence[Standing]:
    """Every stored standing of a game, by turn and position (the web's charts)."""
    return session.scalars(
        select(Standing)
        .where(Standing.game_id == game_id)
        .order_by(Standing.turn, Standing.position)
    ).all()


def turn_digests(session: Session, game_id: int) -> dict[int, str]:
    """Each stored turn's state digest: what a cached page of that turn is keyed by."""
    rows = session.execute(
        select(TurnState.turn, TurnState.sha256).where(TurnState.game_id == game_id)
    )
    return {turn: digest for turn, digest in rows}


def public_events_between(
    session: Session, game_id: int, first: int, last: int, leave_out: Collection[str] = ()
) -> dict[int, list[Any]]:
    """The events of turns `first` to `last` that are not private, less the
    kinds `leave_out`, by turn, in stored order (the web's news pages)."""
    rows = session.execute(
        select(EventRow.turn, *_EVENT_FIELDS)
        .where(
            EventRow.game_id == game_id,
            EventRow.turn >= first,
            EventRow.turn <= last,
            EventRow.visibility != "private",
            EventRow.kind.not_in(list(leave_out)),
        )
        .order_by(EventRow.turn, EventRow.seq)
    )
    found: dict[int, list[Any]] = {}
    for number, data, kind, visibility, position, railroad in rows:
        event = mapping.event_from_row(data, kind, visibility, position, railroad)
        found.setdefault(number, []).append(event)
    return found


def report_turns(session: Session, game_id: int, position: int) -> list[int]:
    """The turns of which a position has a stored report, oldest first (not
    the opening report, turn 0, which the welcome mail carries)."""
    return list(
        session.scalars(
            select(Report.turn)
            .where(Report.game_id == game_id, Report.position == position, Report.turn >= 1)
            .order_by(Report.turn)
        )
    )
