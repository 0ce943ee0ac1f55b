"""The outbox: mail queued, claimed, sent, failed or requeued by the mail sender."""

import importlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import case, func, literal, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from turnproc.store.models import Game, OutboxMessage, Player, StandbyPlayer, UTCDateTime


def queue_mail(
    session: Session,
    *,
    key: str,
    kind: str,
    to_address: str,
    subject: str,
    body: str,
    now: datetime,
    game_id: int | None = None,
    turn: int | None = None,
    position: int | None = None,
    pdf: bytes | None = None,
    pdf_name: str | None = None,
    json_attachment: str | None = None,
    in_reply_to: str | None = None,
    report_id: int | None = None,
) -> OutboxMessage:
    """Queue a message once per idempotency `key`: a key seen before returns the
    existing message (requeued if it had been cancelled, never sent twice).
    `report_id`: the message carries that stored report (see OutboxMessage)."""
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.idempotency_key == key))
    if existing is not None:
        if existing.status == "cancelled":
            existing.status = "queued"
            existing.next_attempt_at = now
            if report_id is not None:
                existing.report_id = report_id
        return existing
    message = OutboxMessage(
        idempotency_key=key,
        game_id=game_id,
        turn=turn,
        position=position,
        kind=kind,
        to_address=to_address,
        subject=subject,
        body=body,
        pdf=pdf,
        pdf_name=pdf_name,
        json_attachment=json_attachment,
        in_reply_to=in_reply_to,
        report_id=report_id,
        status="queued",
        attempts=0,
        created_at=now,
        next_attempt_at=now,
    )
    try:
        # A concurrent transaction may queue the same key first (two workers
        # sending the same reminder): keep theirs, not an error.
        with session.begin_nested():
            session.add(message)
            session.flush()
    except IntegrityError:
        return session.scalars(
            select(OutboxMessage).where(OutboxMessage.idempotency_key == key)
        ).one()
    return message


def queue_mails(session: Session, messages: list[dict[str, Any]], now: datetime) -> None:
    """Many messages (OutboxMessage fields, `idempotency_key` included) in one
    statement, each at most once per key like `queue_mail`: a key queued
    before is left as it is, or requeued (with the new `report_id`) if it had
    been cancelled."""
    if not messages:
        return
    rows = [
        {
            "pdf": None,
            "pdf_name": None,
            "json_attachment": None,
            "in_reply_to": None,
            "report_id": None,
            **message,
            "status": "queued",
            "attempts": 0,
            "created_at": now,
            "next_attempt_at": now,
        }
        for message in messages
    ]
    # PostgreSQL and SQLite share the ON CONFLICT clause. The dialect's module
    # is the one the connection loaded already: importing PostgreSQL's (and
    # with it every PostgreSQL driver's) in a process on SQLite cost 0.05 CPU-s.
    name = "postgresql" if session.get_bind().dialect.name == "postgresql" else "sqlite"
    dialect = importlib.import_module(f"sqlalchemy.dialects.{name}")
    table = OutboxMessage.__table__
    stmt = dialect.insert(table)
    cancelled = table.c.status == "cancelled"
    stmt = stmt.on_conflict_do_update(
        index_elements=[table.c.idempotency_key],
        set_={
            "status": case((cancelled, "queued"), else_=table.c.status),
            "next_attempt_at": case(
                (cancelled, literal(now, UTCDateTime())), else_=table.c.next_attempt_at
            ),
            "report_id": case((cancelled, stmt.excluded.report_id), else_=table.c.report_id),
        },
    )
    session.execute(stmt, rows)


def due_mail(session: Session, now: datetime) -> Sequence[int]:
    """The outbox numbers of messages due to be sent, turn reports first, then
    oldest first. Nothing is
    claimed here: `mark_in_flight` claims each one just before its DATA."""
    return session.scalars(
        select(OutboxMessage.id)
        .where(
            OutboxMessage.status.in_(("queued", "failed")),
            (OutboxMessage.next_attempt_at.is_(None)) | (OutboxMessage.next_attempt_at <= now),
        )
        # Turn reports first: a flood of answers queued earlier never delays them.
        .order_by(case((OutboxMessage.kind == "report", 0), else_=1), OutboxMessage.id)
    ).all()


def mark_in_flight(session: Session, message_id: int, claim: str, now: datetime) -> bool:
    """Claim a message under `claim` (the sending run's own name, `host:pid/run`)
    before the server is given its text; False when another run has claimed
    it or it is no longer due. One UPDATE whose WHERE re-reads the status: on
    PostgreSQL a second claimer waits for the first's row lock and then finds
    the row "sending"; SQLite lets one writer in at a time. Commit before
    DATA: a message left "sending" may or may not have arrived."""
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status.in_(("queued", "failed")),
        )
        .values(status="sending", sending_by=claim, next_attempt_at=now)
    )
    return _changed(result)


def _changed(result: Any) -> bool:
    return cast("CursorResult[Any]", result).rowcount == 1


def _held_by(claim: str | None) -> Any:
    """The rows a sending run may still change: its own claim, or, when it had
    not claimed the message (a failure before DATA), a message nobody holds."""
    if claim is None:
        return OutboxMessage.status.in_(("queued", "failed"))
    return (OutboxMessage.status == "sending") & (OutboxMessage.sending_by == claim)


def release_in_flight(session: Session, message_id: int, claim: str) -> bool:
    """Undo `mark_in_flight`: the server refused the message before it had the
    whole text, so it cannot have accepted it. Only the run's own claim is
    given back, never another run's."""
    result = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id, _held_by(claim))
        .values(status="queued", sending_by=None)
    )
    return _changed(result)


def mark_sent(session: Session, message_id: int, now: datetime, claim: str | None = None) -> bool:
    """The server answered 250. With `claim`, only while the run holds the
    message: in flight, or declared ambiguous meanwhile by a run that took
    this one for dead (the server's answer settles it, and that attempt was
    counted then); False otherwise."""
    query = update(OutboxMessage).where(OutboxMessage.id == message_id)
    if claim is not None:
        query = query.where(
            OutboxMessage.status.in_(("sending", "ambiguous")), OutboxMessage.sending_by == claim
        )
    counted = OutboxMessage.status == "ambiguous"
    result = session.execute(
        query.values(
            status="sent",
            sent_at=now,
            last_error=None,
            sending_by=None,
            attempts=case((counted, OutboxMessage.attempts), else_=OutboxMessage.attempts + 1),
        )
    )
    return _changed(result)


def mark_failed(
    session: Session,
    message_id: int,
    error: str,
    retry_at: datetime | None,
    claim: str | None = None,
    *,
    unclaimed: bool = False,
) -> bool:
    """A failed attempt: retried at `retry_at`, or given up ("dead") when None.
    A sending run passes its `claim`, or `unclaimed=True` when it failed before
    claiming the message (then only a message nobody holds, still due, is
    marked: one another run has claimed or sent is left alone); False when
    nothing was marked. Without either, the moderator's call: marked as is."""
    query = update(OutboxMessage).where(OutboxMessage.id == message_id)
    if claim is not None or unclaimed:
        query = query.where(_held_by(claim))
    result = session.execute(
        query.values(
            status="failed" if retry_at is not None else "dead",
            last_error=error,
            next_attempt_at=retry_at,
            sending_by=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )
    return _changed(result)


def mark_ambiguous(session: Session, message_id: int, error: str, claim: str | None) -> bool:
    """The message was in flight under `claim` when the connection or its
    sender died: it may or may not have arrived, so it waits for the moderator
    (`requeue_mail`). The claim stays on the row, so the run that held it can
    still record the server's 250 (`mark_sent`). False when the message was no
    longer in flight under that claim (sent, or settled by another run)."""
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status == "sending",
            OutboxMessage.sending_by == claim
            if claim is not None
            else OutboxMessage.sending_by.is_(None),
        )
        .values(
            status="ambiguous",
            last_error=error,
            next_attempt_at=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )
    return _changed(result)


def in_flight_mail(session: Session) -> Sequence[OutboxMessage]:
    return session.scalars(
        select(OutboxMessage).where(OutboxMessage.status == "sending").order_by(OutboxMessage.id)
    ).all()


def requeue_mail(
    session: Session, now: datetime, statuses: Sequence[str], ids: Sequence[int] = ()
) -> list[tuple[OutboxMessage, str]]:
    """Put messages of the given statuses (all, or those numbered `ids`) back in
    the queue with their attempts reset; returns each with its former status."""
    query = select(OutboxMessage).where(OutboxMessage.status.in_(statuses))
    if ids:
        query = query.where(OutboxMessage.id.in_(ids))
    requeued = []
    for row in session.scalars(query.order_by(OutboxMessage.id)).all():
        requeued.append((row, row.status))
        row.status = "queued"
        row.attempts = 0
        row.next_attempt_at = now
        row.sending_by = None
    return requeued


def outbox_message(session: Session, message_id: int) -> OutboxMessage | None:
    return session.get(OutboxMessage, message_id)


def outbox(
    session: Session, game_id: int | None = None, status: str | None = None
) -> Sequence[OutboxMessage]:
    query = select(OutboxMessage)
    if game_id is not None:
        query = query.where(OutboxMessage.game_id == game_id)
    if status is not None:
        query = query.where(OutboxMessage.status == status)
    return session.scalars(query.order_by(OutboxMessage.id)).all()


def mail_by_key(session: Session, key: str) -> OutboxMessage | None:
    return session.scalar(select(OutboxMessage).where(OutboxMessage.idempotency_key == key))


def answers_to_strangers(session: Session, since: datetime) -> int:
    """Answers queued since `since` to addresses that no player registered and
    that wait on no standby list (the mail intake's global cap)."""
    known = select(func.lower(Player.email)).where(Player.email.is_not(None))
    waiting = select(func.lower(StandbyPlayer.email))
    return int(
        session.scalar(
            select(func.count()).where(
                OutboxMessage.created_at >= since,
                OutboxMessage.kind.in_(("receipt", "help", "rules")),
                func.lower(OutboxMessage.to_address).not_in(known),
                func.lower(OutboxMessage.to_address).not_in(waiting),
            )
        )
        or 0
    )


def reminder_keys(session: Session, now: datetime, until: datetime) -> set[str]:
    """The keys of the reminders queued for the current turns of the active
    games whose deadline is between `now` and `until`."""
    return set(
        session.scalars(
            select(OutboxMessage.idempotency_key)
            .join(Game, Game.id == OutboxMessage.game_id)
            .where(
                Game.status == "active",
                Game.deadline > now,
                Game.deadline <= until,
                OutboxMessage.kind == "reminder",
                OutboxMessage.turn == Game.current_turn,
            )
        )
    )
