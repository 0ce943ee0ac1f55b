"""Sending the outbox: each message at most once, failures retried with back-off.

A message is claimed ("sending", under the name of the sending run:
host:pid/run, so that two runs in one process are told apart) and that claim
committed just before the DATA command; it is marked "sent" when the server
answers the final "." with 250 (`transport` explains the stages). Every later
change of the message (sent, failed, ambiguous, given back to the queue) is
made only while the run still holds its claim; a run that failed before
claiming a message marks it failed only if nobody holds it. So each message
is handed to the server by one run at a time, and at most one message per
run is in flight:

- a server that closes the connection (a 421 after so many messages per
  connection, or a dropped connection) before the message was handed over
  has not accepted it: the same message goes again at once on a new
  connection, and no attempt is counted against it;
- a connection lost after the message was handed over, before the server's
  answer, and a sender killed while a message was in flight, leave that one
  message "ambiguous": it may or may not have arrived, so it is never resent
  blindly. The moderator is told (one line, the moderator's log, a mail)
  and `turnproc mail requeue --id N` sends it again after checking; it keeps
  its Message-ID, so a second copy threads with (and in most mail programs
  replaces) the first. The next run notices a killed sender's message at
  once (its process is gone) and sends the rest straight away.

A report's mail carries the PDF the turn rendered, stored with the report;
once every message carrying it is sent, the bytes are dropped and the digest
stays. A report mailed again after that (a resend) is rendered again from
the stored facts, and a PDF whose digest differs from the one stored is
still sent (it is the report of those facts) but logged and told to the
moderator (`DigestMismatch`).
"""

import hashlib
import os
import socket
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.files import write_whole
from turnproc.mail.compose import Attachment, Outgoing, compose, message_id
from turnproc.mail.transport import (
    FINAL_REPLY_TIMEOUT_S,
    NotDelivered,
    ServerUnavailable,
    Undecided,
)
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
# A message in flight longer than this is ambiguous even if its sender seems
# alive (another machine's sender): longer than a live sender waits for the
# server's answer to the final ".".
STUCK_AFTER = timedelta(seconds=FINAL_REPLY_TIMEOUT_S) + timedelta(minutes=5)
# New connections that fail in a row before the run stops: the server, not
# the message, is the trouble, and later messages should not pay for it.
FRESH_FAILURES_TO_STOP = 2


class Transport(Protocol):
    def send(self, message: EmailMessage, before_data: Callable[[], bool]) -> bool: ...


@dataclass(frozen=True)
class Ambiguous:
    """A message that may or may not have arrived, as the moderator is told."""

    id: int
    key: str
    to: str
    subject: str
    why: str

    def line(self) -> str:
        return (
            f"mail {self.id} to {self.to} ({self.subject}) may or may not have arrived: "
            f"{self.why}; check, then `turnproc mail requeue --id {self.id}` sends it again"
        )


@dataclass(frozen=True)
class DigestMismatch:
    """A report rendered again whose PDF is not the one its turn rendered (a
    release that draws reports differently, a player's details changed)."""

    report_id: int
    game_id: int
    turn: int
    position: int
    stored: str
    rendered: str

    def line(self) -> str:
        return (
            f"the PDF of game {self.game_id} turn {self.turn} position {self.position} "
            f"(report {self.report_id}) rendered again is not the one the turn rendered: "
            f"digest {self.rendered[:16]}, stored {self.stored[:16]}; it was mailed as "
            "rendered now (`turnproc report render` shows it)"
        )


@dataclass
class SendReport:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (key, error)
    dead: list[tuple[str, str]] = field(default_factory=list)
    ambiguous: list[Ambiguous] = field(default_factory=list)
    reconnects: int = 0  # connections the server closed that were opened again
    stopped: str | None = None  # why the run stopped early (the server, not a message)
    waiting: int = 0  # due messages left for the next run when it did
    mismatched: list[DigestMismatch] = field(default_factory=list)


# Mails that carry the rules PDF, made from the docs when sent (not stored per
# message): an 18xx title's, when the message names it (its `pdf_name`), else
# Continental Rails'.
RULES_ATTACHED = frozenset({"welcome", "rules"})


def utcnow() -> datetime:
    return datetime.now(UTC)


def sender_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_name() -> str:
    """The name a sending run claims messages under: host:pid/run. Threads
    share the process's host:pid; the run part tells their claims apart."""
    return f"{sender_id()}/{uuid.uuid4().hex[:12]}"


# Renders the PDFs of stored reports that keep only their digest, by report id
# (turnproc.pipeline.reports.report_pdfs, or OutboxPdfs to render a turn's
# reports at once when sending: the mail layer does not render reports itself).
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
    session: Session,
    rows: Sequence[OutboxMessage],
    render: PdfRenderer | None,
    mismatched: list[DigestMismatch] | None = None,
) -> list[Outgoing]:
    """The messages as they are mailed: a message carrying a stored report gets
    its JSON and its PDF (stored, or rendered again: one rendering for all the
    claimed messages of one turn), and report mail its text, followed by the
    message's own body (the player's page link, if any). A PDF rendered again
    whose digest is not the stored one goes into `mismatched`."""
    reports = {row.id: carried_report(session, row) for row in rows}
    installation = repo.installation_key(session)
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
        for report in {r.id: r for r in unrendered}.values():
            pdf = rendered.get(report.id)
            digest = "none" if pdf is None else hashlib.sha256(pdf).hexdigest()
            if mismatched is not None and report.pdf_sha256 not in (None, digest):
                assert report.pdf_sha256 is not None
                mismatched.append(
                    DigestMismatch(
                        report.id,
                        report.game_id,
                        report.turn,
                        report.position,
                        report.pdf_sha256,
                        digest,
                    )
                )
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
        out.append(outgoing(row, installation, pdf, body, data))
    return out


def outgoing(
    row: OutboxMessage,
    installation: str,
    pdf: bytes | None,
    body: str | None = None,
    data: str | None = None,
) -> Outgoing:
    attachments: list[Attachment] = []
    if pdf is not None:
        attachments.append(Attachment(row.pdf_name or "report.pdf", pdf, "application", "pdf"))
    if row.kind in RULES_ATTACHED:
        # ReportLab is loaded only by the mail that carries a rules PDF.
        from turnproc.families.registry import rules_pdf

        # A mail without a report of its own may be named after a title's rules.
        name, rules_bytes = rules_pdf(row.pdf_name if pdf is None else None)
        rules = Attachment(name, rules_bytes, "application", "pdf")
        attachments.append(rules)
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
        installation=installation,
    )


@dataclass(frozen=True)
class _Item:
    id: int
    key: str
    attempts: int
    message: EmailMessage
    report_id: int | None  # the stored report it carries, whose PDF bytes go once sent


def send_outbox(
    engine: Engine,
    transport: Transport,
    sender: str,
    now: Callable[[], datetime] = utcnow,
    moderator: str | None = None,
    render: PdfRenderer | None = None,
) -> SendReport:
    """Send every due message, oldest first; returns what happened to each.

    Messages a killed run left in flight are declared ambiguous first (and the
    moderator told); each message is then loaded, claimed and sent on its own,
    so a crash leaves at most the one in flight undecided. `render` gives
    the PDFs of stored reports kept by digest only (`pipeline.reports.OutboxPdfs`:
    one rendering a turn)."""
    run = run_name()
    with _running.lock:
        _running.names.add(run)
    try:
        return _send_all(engine, transport, sender, run, now, moderator, render)
    finally:
        with _running.lock:
            _running.names.discard(run)


class _Running:
    """The names of the `send_outbox` runs this process is making: a message
    in flight under this process's host:pid and a run not among them is a
    leftover of an earlier process that had the same number."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.names: set[str] = set()


_running = _Running()


def _send_all(
    engine: Engine,
    transport: Transport,
    sender: str,
    run: str,
    now: Callable[[], datetime],
    moderator: str | None,
    render: PdfRenderer | None,
) -> SendReport:
    report = SendReport(ambiguous=settle_interrupted(engine, now, moderator))
    tried: set[int] = set()
    fresh_failures = 0
    while report.stopped is None:
        # Again after each pass: alerts about ambiguous mail go out in this run.
        with transaction(engine) as session:
            due = [row_id for row_id in repo.due_mail(session, now()) if row_id not in tried]
        if not due:
            break
        for index, row_id in enumerate(due):
            tried.add(row_id)
            item = _load(engine, row_id, sender, render, now, moderator, report)
            if item is None:
                continue  # sent or claimed by another sender meanwhile
            result = _deliver(engine, transport, item, run, now, moderator, report)
            if result == "lost on a new connection":
                fresh_failures += 1
            elif result in ("sent", "ambiguous"):
                fresh_failures = 0
            if result == "server unavailable" or fresh_failures >= FRESH_FAILURES_TO_STOP:
                report.stopped = report.stopped or (
                    f"the mail server closed {fresh_failures} new connections in a row"
                )
                report.waiting = len(due) - index - 1
                break
    return report


def _load(
    engine: Engine,
    row_id: int,
    sender: str,
    render: PdfRenderer | None,
    now: Callable[[], datetime],
    moderator: str | None,
    report: SendReport,
) -> _Item | None:
    with transaction(engine) as session:
        row = repo.outbox_message(session, row_id)
        if row is None or row.status not in ("queued", "failed"):
            return None
        mismatched: list[DigestMismatch] = []
        (out,) = outgoing_messages(session, [row], render, mismatched)
        for mismatch in mismatched:
            if _tell_mismatch(session, mismatch, now(), moderator):
                report.mismatched.append(mismatch)
        carried = carried_report(session, row)
        return _Item(
            row.id,
            row.idempotency_key,
            row.attempts,
            compose(out, sender),
            None if carried is None else carried.id,
        )


def _tell_mismatch(
    session: Session, mismatch: DigestMismatch, now: datetime, moderator: str | None
) -> bool:
    """The moderator's log and a mail, once per report and rendering (two
    senders may render the same report); False when told before."""
    action, reason = "report digest mismatch", mismatch.line()
    if repo.logged_before(session, action, mismatch.game_id, reason):
        return False
    repo.log_action(
        session,
        action=action,
        now=now,
        game_id=mismatch.game_id,
        turn=mismatch.turn,
        reason=reason,
        details={
            "report": mismatch.report_id,
            "position": mismatch.position,
            "stored": mismatch.stored,
            "rendered": mismatch.rendered,
        },
    )
    if moderator:
        repo.queue_mail(
            session,
            key=f"alert/pdf-digest/{mismatch.report_id}/{mismatch.rendered[:16]}",
            kind="alert",
            to_address=moderator,
            subject=f"a report mailed again is not the one its turn rendered "
            f"(game {mismatch.game_id} turn {mismatch.turn} position {mismatch.position})",
            body=reason + "\n",
            now=now,
            game_id=mismatch.game_id,
            turn=mismatch.turn,
        )
    return True


def _deliver(
    engine: Engine,
    transport: Transport,
    item: _Item,
    run: str,
    now: Callable[[], datetime],
    moderator: str | None,
    report: SendReport,
) -> str:
    """One message: sent, or failed, or ambiguous; sent again once on a new
    connection when the server closed a connection that had delivered mail.
    Whatever this run writes about the message needs its claim: a failure
    before the claim (at MAIL or RCPT) must not touch a message that another
    run has claimed or sent meanwhile."""
    claimed = False

    def claim() -> bool:
        nonlocal claimed
        with transaction(engine) as session:
            claimed = repo.mark_in_flight(session, item.id, run, now())
        return claimed

    while True:
        claimed = False
        try:
            if not transport.send(item.message, before_data=claim):
                return "taken by another sender"
        except Undecided as exc:
            with transaction(engine) as session:
                if repo.mark_ambiguous(session, item.id, str(exc), run):
                    row = repo.outbox_message(session, item.id)
                    assert row is not None
                    report.ambiguous.append(_tell(session, row, str(exc), now(), moderator))
            return "ambiguous"
        except NotDelivered as exc:
            if exc.connection_lost and not exc.fresh:
                if claimed:
                    with transaction(engine) as session:
                        repo.release_in_flight(session, item.id, run)
                report.reconnects += 1
                continue  # the next try is on a new connection, so this loop ends
            _fail(engine, item, str(exc), now(), report, run if claimed else None)
            if isinstance(exc, ServerUnavailable):
                report.stopped = str(exc)
                return "server unavailable"
            return "lost on a new connection" if exc.connection_lost else "refused"
        with transaction(engine) as session:
            marked = repo.mark_sent(session, item.id, now(), run)
        if marked and item.report_id is not None:
            # After the commit: of two senders sending two messages that carry
            # one report, the later to look sees both sent.
            with transaction(engine) as session:
                repo.drop_pdf_once_mailed(session, item.report_id)
        report.sent.append(item.key)
        return "sent"


def _fail(
    engine: Engine, item: _Item, error: str, now: datetime, report: SendReport, claim: str | None
) -> None:
    """A failed attempt, counted only on a message this run holds (`claim`) or
    that nobody holds: one another run claimed or sent meanwhile is its own."""
    retry = now + RETRY_DELAYS[item.attempts] if item.attempts < len(RETRY_DELAYS) else None
    with transaction(engine) as session:
        marked = repo.mark_failed(session, item.id, error, retry, claim, unclaimed=claim is None)
    if marked:
        (report.failed if retry else report.dead).append((item.key, error))


def settle_interrupted(
    engine: Engine, now: Callable[[], datetime] = utcnow, moderator: str | None = None
) -> list[Ambiguous]:
    """Messages left in flight by a sender that is gone (killed, or the machine
    stopped) become ambiguous at once; the moderator is told of each once."""
    found = []
    with transaction(engine) as session:
        for row in repo.in_flight_mail(session):
            since = row.next_attempt_at
            if _sender_alive(row.sending_by) and since is not None and since > now() - STUCK_AFTER:
                continue  # another `mail send` is sending it right now
            why = "the sending run stopped after handing it to the server, before its answer"
            if repo.mark_ambiguous(session, row.id, why, row.sending_by):
                found.append(_tell(session, row, why, now(), moderator))
    return found


def _sender_alive(sending_by: str | None) -> bool:
    """Whether the run that claimed a message may still be sending it."""
    process = (sending_by or "").partition("/")[0]
    host, _, pid = process.rpartition(":")
    if host != socket.gethostname():
        return bool(host)  # another machine's sender: only the time can tell
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        with _running.lock:
            return sending_by in _running.names  # a run of this process, still going
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a process of another user has that number
    return True


def _tell(
    session: Session, row: OutboxMessage, why: str, now: datetime, moderator: str | None
) -> Ambiguous:
    note = Ambiguous(row.id, row.idempotency_key, row.to_address, row.subject, why)
    repo.log_action(
        session,
        action="mail ambiguous",
        now=now,
        game_id=row.game_id,
        turn=row.turn,
        reason=note.line(),
        details={"outbox": row.id, "key": row.idempotency_key, "to": row.to_address},
    )
    if moderator:
        repo.queue_mail(
            session,
            key=f"alert/ambiguous/{row.id}/{now.isoformat()}",
            kind="alert",
            to_address=moderator,
            subject=f"mail {row.id} to {row.to_address} may or may not have arrived",
            body=note.line() + "\n",
            now=now,
        )
    return note


def requeue(
    engine: Engine,
    statuses: Sequence[str],
    ids: Sequence[int] = (),
    now: Callable[[], datetime] = utcnow,
) -> list[tuple[int, str, str]]:
    """The moderator's call: dead or ambiguous messages (all of those statuses,
    or the ones numbered) back in the queue with fresh attempts; returns
    (number, key, former status) of each, each also in the moderator's log.
    A number that is not such a message refuses the whole request."""
    with transaction(engine) as session:
        requeued = repo.requeue_mail(session, now(), statuses, ids)
        missing = sorted(set(ids) - {row.id for row, _ in requeued})
        if missing:
            raise TurnprocError(
                f"no {' or '.join(statuses)} message numbered "
                f"{', '.join(map(str, missing))}; nothing was requeued"
            )
        for row, former in requeued:
            repo.log_action(
                session,
                action="mail requeue",
                now=now(),
                game_id=row.game_id,
                turn=row.turn,
                reason=f"mail {row.id} to {row.to_address} was {former}",
                details={"outbox": row.id, "key": row.idempotency_key},
            )
        return [(row.id, row.idempotency_key, former) for row, former in requeued]


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
        name = message_id(out.key, sender, out.installation).strip("<>").split("@")[0][:16]
        path = folder / f"{row.id:05d}-{row.kind}-{name}.eml"
        write_whole(path, compose(out, sender).as_bytes())
        written.append(path)
    return written
