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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.mail.compose import Attachment, Outgoing, compose, message_id
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage, Report

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


def utcnow() -> datetime:
    return datetime.now(UTC)


# Renders the PDFs of stored reports that keep only their digest, by report id
# (turnproc.batch.report_pdfs: the mail layer does not render reports itself).
PdfRenderer = Callable[[Session, Sequence[Report]], dict[int, bytes]]


def carried_report(session: Session, row: OutboxMessage) -> Report | None:
    """The stored report a message carries: by its `report_id`, or for report
    mail queued before messages referred to reports, the report of its game,
    turn and position."""
    if row.report_id is not None:
        return repo.get_report_by_id(session, row.report_id)
    if row.pdf is not None or row.pdf_name is None or row.kind != "report":
        return None
    if row.game_id is None or row.turn is None or row.position is None:
        return None
    return repo.get_report(session, row.game_id, row.turn, row.position)


def outgoing_messages(
    session: Session, rows: Sequence[OutboxMessage], render: PdfRenderer | None
) -> list[Outgoing]:
    """The messages as they are mailed: a message carrying a stored report gets
    its JSON and its PDF (stored, or rendered again: one rendering for all the
    claimed messages of one turn), and report mail its text, followed by the
    message's own body (the player's page link, if any)."""
    reports = {row.id: carried_report(session, row) for row in rows}
    unrendered = [
        report
        for row in rows
        if row.pdf is None
        and row.pdf_name is not None
        and (report := reports[row.id]) is not None
        and report.pdf is None
    ]
    rendered: dict[int, bytes] = {}
    if unrendered:
        if render is None:
            raise TurnprocError("the outbox holds reports whose PDF must be rendered again")
        rendered = render(session, list({r.id: r for r in unrendered}.values()))
    out = []
    for row in rows:
        report = reports[row.id]
        pdf = row.pdf
        if pdf is None and row.pdf_name is not None and report is not None:
            pdf = report.pdf if report.pdf is not None else rendered.get(report.id)
        body, data = row.body, row.json_attachment
        if report is not None and row.report_id is not None:
            if row.kind == "report":
                body = report.text + row.body
            data = report.json if data is None else data
        out.append(outgoing(row, pdf, body, data))
    return out


def outgoing(
    row: OutboxMessage, pdf: bytes | None, body: str | None = None, data: str | None = None
) -> Outgoing:
    attachments: list[Attachment] = []
    if pdf is not None:
        attachments.append(Attachment(row.pdf_name or "report.pdf", pdf, "application", "pdf"))
    data = row.json_attachment if data is None else data
    if data is not None:
        name = (row.pdf_name or "report.pdf").removesuffix(".pdf") + ".json"
        attachments.append(Attachment(name, data.encode("utf-8"), "application", "json"))
    return Outgoing(
        key=row.idempotency_key,
        to=row.to_address,
        subject=row.subject,
        body=row.body if body is None else body,
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
    render: PdfRenderer | None = None,
) -> SendReport:
    """Send every due message; returns what happened to each. `render` gives
    the PDFs of stored reports kept by digest only."""
    report = SendReport()
    while True:
        with transaction(engine) as session:
            rows = repo.claim_mail(session, now(), limit=batch)
            claimed = [
                (row.id, out, row.attempts)
                for row, out in zip(rows, outgoing_messages(session, rows, render), strict=True)
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
    session: Session,
    rows: Sequence[OutboxMessage],
    folder: Path,
    sender: str,
    render: PdfRenderer | None = None,
) -> list[Path]:
    """--dry-run: each queued message as an .eml file; nothing is marked sent."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for row, out in zip(rows, outgoing_messages(session, rows, render), strict=True):
        name = message_id(out.key, sender).strip("<>").split("@")[0][:16]
        path = folder / f"{row.id:05d}-{row.kind}-{name}.eml"
        path.write_bytes(compose(out, sender).as_bytes())
        written.append(path)
    return written
