"""The outbox: each message sent once, failures retried with back-off, crashes
mid-send reported rather than resent, dry runs written as .eml files."""

import email
import email.policy
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, update

from turnproc.mail.outbound import RETRY_DELAYS, requeue, send_outbox, write_eml
from turnproc.mail.sources import ImapSource
from turnproc.mail.transport import SmtpTransport
from turnproc.mail.urls import imap_url, smtp_url
from turnproc.store import repository as repo
from turnproc.store.db import open_database, transaction
from turnproc.store.models import OutboxMessage

from .mailservers import MailDevel, free_port

SENDER = "moderator@example.org"
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _db(tmp_path: Path) -> Engine:
    return open_database(f"sqlite:///{tmp_path / 'mail.db'}")


def _queue(engine: Engine, key: str, to: str, pdf: bytes | None = None) -> None:
    with transaction(engine) as session:
        repo.queue_mail(
            session,
            key=key,
            kind="report",
            to_address=to,
            subject=f"report {key}",
            body="Your turn report.\n",
            now=T0,
            pdf=pdf,
            pdf_name="turn-1.pdf" if pdf else None,
            json_attachment='{"turn": 1}' if pdf else None,
        )


def _statuses(engine: Engine) -> dict[str, str]:
    with transaction(engine) as session:
        return {row.idempotency_key: row.status for row in repo.outbox(session)}


def test_each_message_is_sent_once(tmp_path: Path) -> None:
    engine = _db(tmp_path)
    _queue(engine, "g1/t1/report/1", "p1@example.org", pdf=b"%PDF-1.4 report")
    _queue(engine, "g1/t1/report/2", "p2@example.org")
    _queue(engine, "g1/t1/report/1", "p1@example.org")  # queued twice: one message
    server = MailDevel()
    try:
        with SmtpTransport(smtp_url(server.smtp_url())) as transport:
            first = send_outbox(engine, transport, SENDER, now=Clock())
            second = send_outbox(engine, transport, SENDER, now=Clock())
        assert sorted(first.sent) == ["g1/t1/report/1", "g1/t1/report/2"]
        assert second.sent == []
        inbox = list(ImapSource(imap_url(server.imap_url("p1@example.org"))).messages())
        assert len(inbox) == 1
        msg = email.message_from_bytes(inbox[0].raw, policy=email.policy.default)
        names = sorted(part.get_filename() or "" for part in msg.iter_attachments())
        assert names == ["turn-1.json", "turn-1.pdf"]
    finally:
        server.stop()
    assert set(_statuses(engine).values()) == {"sent"}


def test_failures_are_retried_with_back_off_then_given_up(tmp_path: Path) -> None:
    engine = _db(tmp_path)
    _queue(engine, "g1/t1/report/3", "p3@example.org")
    clock = Clock()
    dead_port = smtp_url(f"smtp://127.0.0.1:{free_port()}")
    for attempt, delay in enumerate(RETRY_DELAYS, start=1):
        report = send_outbox(engine, SmtpTransport(dead_port), SENDER, now=clock)
        assert [key for key, _ in report.failed] == ["g1/t1/report/3"], attempt
        # Not due again until the back-off has passed.
        assert send_outbox(engine, SmtpTransport(dead_port), SENDER, now=clock).failed == []
        clock.now += delay
    final = send_outbox(engine, SmtpTransport(dead_port), SENDER, now=clock)
    assert [key for key, _ in final.dead] == ["g1/t1/report/3"]
    assert _statuses(engine) == {"g1/t1/report/3": "dead"}


def test_a_message_interrupted_mid_send_is_reported_not_resent(tmp_path: Path) -> None:
    engine = _db(tmp_path)
    _queue(engine, "g1/t1/receipt/4", "p4@example.org")
    with transaction(engine) as session:  # as a crash after the claim leaves it
        session.execute(update(OutboxMessage).values(status="sending", next_attempt_at=T0))
    clock = Clock()
    clock.now = T0 + timedelta(hours=1)
    report = send_outbox(engine, SmtpTransport(smtp_url("smtp://127.0.0.1:1")), SENDER, clock)
    assert report.sent == [] and report.failed == []
    assert [note.key for note in report.ambiguous] == ["g1/t1/receipt/4"]
    assert _statuses(engine) == {"g1/t1/receipt/4": "ambiguous"}
    assert [key for _, key, _ in requeue(engine, ["ambiguous"], now=clock)] == ["g1/t1/receipt/4"]
    assert _statuses(engine) == {"g1/t1/receipt/4": "queued"}


def test_dry_run_writes_eml_files_and_sends_nothing(tmp_path: Path) -> None:
    engine = _db(tmp_path)
    _queue(engine, "g1/t1/report/5", "p5@example.org", pdf=b"%PDF-1.4 x")
    with transaction(engine) as session:
        paths = write_eml(session, repo.outbox(session), tmp_path / "out", SENDER)
    assert len(paths) == 1
    msg = email.message_from_bytes(paths[0].read_bytes(), policy=email.policy.default)
    assert msg["To"] == "p5@example.org"
    assert _statuses(engine) == {"g1/t1/report/5": "queued"}
