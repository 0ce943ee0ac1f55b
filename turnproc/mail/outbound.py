"""Sending the outbox: each message at most once, failures retried with back-off.

A message is claimed ("sending") and that claim committed before the SMTP
conversation starts; it is marked "sent" as soon as the server accepts it. A
crash between the two leaves it "sending": such a message is reported to the
moderator as stuck (`stuck`), never resent blindly, because the server may
already have accepted it. `turnproc mail send --requeue-stuck` puts stuck
messages back after the moderator has checked; they keep their Message-ID, so
a resent copy threads with (and in most mail programs replaces) the first.
"""

import smtplib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from turnproc.mail.compose import Attachment, Outgoing, compose, message_id
from turnproc.render.rules_pdf import RULES_PDF_NAME, game_rules_pdf
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage

# Back-off between attempts; after the last, the message is given up ("dead").
RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=8),
)
STUCK_AFTER = timedelta(minutes=10)


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


@dataclass
class SendReport:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (key, error)
    dead: list[tuple[str, str]] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)


# Mails that carry the rules PDF, made from the docs when sent (not stored per message).
RULES_ATTACHED = frozenset({"welcome", "rules"})


def utcnow() -> datetime:
    return datetime.now(UTC)


def attached_pdf(session: Session, row: OutboxMessage) -> bytes | None:
    """The PDF a message carries: its own, or for a turn report the report
    stored for that game, turn and position (kept once, not copied into the
    outbox)."""
    if row.pdf is not None or row.pdf_name is None:
        return row.pdf
    if row.game_id is None or row.turn is None or row.position is None:
        return None
    report = repo.get_report(session, row.game_id, row.turn, row.position)
    return report.pdf if report is not None else None


def outgoing(row: OutboxMessage, pdf: bytes | None) -> Outgoing:
    attachments: list[Attachment] = []
    if pdf is not None:
        attachments.append(Attachment(row.pdf_name or "report.pdf", pdf, "application", "pdf"))
    if row.kind in RULES_ATTACHED:
        attachments.append(Attachment(RULES_PDF_NAME, game_rules_pdf(), "application", "pdf"))
    if row.json_attachment is not None:
        name = (row.pdf_name or "report.pdf").removesuffix(".pdf") + ".json"
        attachments.append(
            Attachment(name, row.json_attachment.encode("utf-8"), "application", "json")
        )
    return Outgoing(
        key=row.idempotency_key,
        to=row.to_address,
        subject=row.subject,
        body=row.body,
        created=row.created_at,
        in_reply_to=row.in_reply_to,
        attachments=tuple(attachments),
        auto_submitted="auto-replied" if row.kind == "receipt" else "auto-generated",
    )


def send_outbox(
    engine: Engine,
    transport: Transport,
    sender: str,
    now: Callable[[], datetime] = utcnow,
    batch: int = 20,
) -> SendReport:
    """Send every due message; returns what happened to each."""
    report = SendReport()
    while True:
        with transaction(engine) as session:
            claimed = [
                (row.id, outgoing(row, attached_pdf(session, row)), row.attempts)
                for row in repo.claim_mail(session, now(), limit=batch)
            ]
        if not claimed:
            break
        for row_id, out, attempts in claimed:
            try:
                transport.send(compose(out, sender))
            except (smtplib.SMTPException, OSError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                retry = (
                    now() + RETRY_DELAYS[attempts - 1] if attempts <= len(RETRY_DELAYS) else None
                )
                with transaction(engine) as session:
                    repo.mark_failed(session, row_id, error, retry)
                (report.failed if retry else report.dead).append((out.key, error))
                continue
            with transaction(engine) as session:
                repo.mark_sent(session, row_id, now())
            report.sent.append(out.key)
    with transaction(engine) as session:
        report.stuck = [row.idempotency_key for row in repo.stuck_mail(session, STUCK_AFTER, now())]
    return report


def requeue_stuck(engine: Engine, now: Callable[[], datetime] = utcnow) -> int:
    """Put messages stuck in "sending" back in the queue (the moderator's call)."""
    with transaction(engine) as session:
        rows = repo.stuck_mail(session, STUCK_AFTER, now())
        for row in rows:
            session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == row.id)
                .values(status="queued", next_attempt_at=now())
            )
        return len(rows)


def write_eml(
    session: Session, rows: Iterable[OutboxMessage], folder: Path, sender: str
) -> list[Path]:
    """--dry-run: each queued message as an .eml file; nothing is marked sent."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for row in rows:
        out = outgoing(row, attached_pdf(session, row))
        name = message_id(out.key, sender).strip("<>").split("@")[0][:16]
        path = folder / f"{row.id:05d}-{row.kind}-{name}.eml"
        path.write_bytes(compose(out, sender).as_bytes())
        written.append(path)
    return written
