"""`turnproc mail ingest [-|--maildir DIR|--imap]`, `mail retry ID`, `mail send [--dry-run DIR]`
and `mail requeue --dead | --ambiguous | --id N`."""

import argparse
import imaplib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.core.text import for_terminal

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

    from turnproc.mail.inbound import IngestOutcome
    from turnproc.mail.outbound import PdfRenderer
    from turnproc.mail.sources import Incoming
    from turnproc.store.models import Report


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("mail", help="receive turnsheets and send the outbox")
    sub = parser.add_subparsers(dest="mail_command", metavar="ACTION", required=True)

    p_in = sub.add_parser(
        "ingest", help="receive mail: one message on stdin (-), a Maildir or IMAP"
    )
    p_in.add_argument(
        "source", nargs="?", choices=["-"], help="-: one RFC 822 message on standard input"
    )
    p_in.add_argument("--maildir", type=Path, metavar="DIR", help="process and file a Maildir")
    p_in.add_argument("--imap", action="store_true", help="unseen mail of TURNPROC_IMAP_URL")
    p_in.add_argument(
        "--received-at",
        type=_timestamp,
        metavar="TIME",
        help="with -: when the mail system received the message (ISO 8601, UTC if no zone; "
        "default: the date of the topmost Received header of our server (received_by), "
        "else now)",
    )
    p_in.add_argument("--json", action="store_true", help="print JSON")
    p_in.set_defaults(handler=_ingest)

    p_retry = sub.add_parser(
        "retry",
        help="process stored messages again: failed, quarantined, or delayed (after a rollback)",
    )
    p_retry.add_argument("ids", type=int, nargs="+", metavar="ID", help="submission numbers")
    p_retry.add_argument("--json", action="store_true", help="print JSON")
    p_retry.set_defaults(handler=_retry)

    p_send = sub.add_parser("send", help="send queued mail over TURNPROC_SMTP_URL")
    p_send.add_argument(
        "--dry-run", type=Path, metavar="DIR", help="write .eml files to DIR instead of sending"
    )
    p_send.add_argument("--json", action="store_true", help="print JSON")
    p_send.set_defaults(handler=_send)

    p_requeue = sub.add_parser(
        "requeue",
        help="send given-up (dead) or ambiguous messages again",
        description="Put messages back in the queue with fresh attempts: --dead, the ones "
        "given up after repeated failures; --ambiguous, the ones that may or may not have "
        "arrived (check first: ask the player, or read the mail server's log); --id N, "
        "those messages only.",
    )
    p_requeue.add_argument("--dead", action="store_true", help="messages given up")
    p_requeue.add_argument(
        "--ambiguous", action="store_true", help="messages that may or may not have arrived"
    )
    p_requeue.add_argument(
        "--id", type=int, action="append", default=[], metavar="N", help="only message N"
    )
    p_requeue.add_argument("--json", action="store_true", help="print JSON")
    p_requeue.set_defaults(handler=_requeue)


def _report_pdfs(session: "Session", reports: "Sequence[Report]") -> dict[int, bytes]:
    """`pipeline.reports.report_pdfs`, imported only when a report must be
    rendered again (a resend): a send of stored PDFs loads no engine."""
    from turnproc.pipeline.reports import report_pdfs

    return report_pdfs(session, reports)


class _OutboxPdfs:
    """`pipeline.reports.OutboxPdfs`, made on its first use (a resend): the
    usual send hands over the PDFs the turn stored, and loads neither the
    rules engine nor the reports for them."""

    def __init__(self) -> None:
        self._render: PdfRenderer | None = None

    def __call__(self, session: "Session", reports: "Sequence[Report]") -> dict[int, bytes]:
        if self._render is None:
            from turnproc.pipeline.reports import OutboxPdfs

            self._render = OutboxPdfs()
        return self._render(session, reports)


def _send(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.config import load_settings
    from turnproc.mail.outbound import send_outbox, write_eml
    from turnproc.mail.transport import SmtpTransport
    from turnproc.mail.urls import smtp_url
    from turnproc.store import repository as repo
    from turnproc.store.db import transaction

    settings = load_settings()
    engine = database()
    if args.dry_run is not None:
        with transaction(engine) as session:
            rows = [row for row in repo.outbox(session) if row.status in ("queued", "failed")]
            paths = write_eml(session, rows, args.dry_run, settings.mail_from, render=_report_pdfs)
        if args.json:
            print(json.dumps({"written": [str(p) for p in paths]}))
        else:
            print(f"wrote {len(paths)} message(s) to {args.dry_run} (nothing was sent)")
        return 0
    if not settings.smtp_url:
        raise UsageError("no mail server: set TURNPROC_SMTP_URL (smtp://user:pass@host:port)")
    with SmtpTransport(smtp_url(settings.smtp_url)) as transport:
        report = send_outbox(
            engine,
            transport,
            settings.mail_from,
            moderator=settings.moderator_email,
            render=_OutboxPdfs(),
        )
    if args.json:
        print(
            json.dumps(
                {
                    "sent": report.sent,
                    "failed": [{"key": k, "error": e} for k, e in report.failed],
                    "dead": [{"key": k, "error": e} for k, e in report.dead],
                    "ambiguous": [
                        {"id": a.id, "key": a.key, "why": a.why} for a in report.ambiguous
                    ],
                    "mismatched": [
                        {"report": m.report_id, "line": m.line()} for m in report.mismatched
                    ],
                    "reconnects": report.reconnects,
                    "stopped": report.stopped,
                    "waiting": report.waiting,
                }
            )
        )
    else:
        for note in report.ambiguous:
            print(f"moderator: {note.line()}", flush=True)
        for mismatch in report.mismatched:
            print(f"moderator: {mismatch.line()}", flush=True)
        reconnected = (
            f"; the server closed the connection {report.reconnects} time(s), reconnected"
            if report.reconnects
            else ""
        )
        print(f"sent {len(report.sent)}, failed {len(report.failed)} (will retry){reconnected}")
        for key, error in report.failed + report.dead:
            print(f"  {key}: {error}")
        if report.dead:
            print(
                f"gave up on {len(report.dead)} message(s) after repeated failures; "
                "`turnproc mail requeue --dead` queues them again"
            )
        if report.stopped:
            print(f"stopped: {report.stopped}; {report.waiting} message(s) wait for the next run")
    return 1 if report.dead or report.ambiguous else 0


def send_queued() -> int:
    """`mail send`, from another command of the same process (`turn run --due
    --send`): the same claims on the outbox, the same output and exit code."""
    return _send(argparse.Namespace(dry_run=None, json=False))


def _requeue(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.mail.outbound import requeue

    statuses = [s for s, chosen in (("dead", args.dead), ("ambiguous", args.ambiguous)) if chosen]
    if not statuses and not args.id:
        raise UsageError("say which messages: --dead, --ambiguous or --id N")
    requeued = requeue(database(), statuses or ["dead", "ambiguous"], args.id)
    if args.json:
        print(
            json.dumps(
                {
                    "requeued": [{"id": n, "key": k, "was": was} for n, k, was in requeued],
                }
            )
        )
    else:
        for number, key, was in requeued:
            print(f"mail {number} ({key}) was {was}: queued again")
        print(f"{len(requeued)} message(s) queued again: `turnproc mail send` sends them")
    return 0


def _now() -> datetime:
    return datetime.now(UTC)


def _timestamp(value: str) -> datetime:
    try:
        when = datetime.fromisoformat(value.strip()[:40])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value[:40]!r} is not a time such as 2026-12-01T14:05:00Z"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _ingest(args: argparse.Namespace) -> int:
    """Store every message, then answer it (or deliberately not); one line each.

    Exit 0 when every message got a verdict, 1 when one could not be processed
    (it stays stored; the moderator is told), 75 (temporary failure: the MTA
    keeps the message and retries) when a message piped on stdin could not be
    stored at all."""
    from turnproc.commands.db import database
    from turnproc.config import load_settings
    from turnproc.mail.inbound import StoreFailed
    from turnproc.mail.sources import (
        MAX_MESSAGE_BYTES,
        ImapSource,
        Incoming,
        from_bytes,
        from_maildir,
        received_by_us,
    )
    from turnproc.mail.urls import imap_url
    from turnproc.store.db import DatabaseError

    chosen = [args.source == "-", args.maildir is not None, args.imap]
    if sum(chosen) != 1:
        raise UsageError("give exactly one source: - (stdin), --maildir DIR or --imap")
    if args.received_at is not None and args.source != "-":
        raise UsageError("--received-at is for a message on standard input (-)")
    settings = load_settings()
    if args.imap and not settings.imap_url:
        raise UsageError("no mailbox: set TURNPROC_IMAP_URL (imap://user:pass@host:port/INBOX)")
    if args.source == "-":
        raw = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
        while sys.stdin.buffer.read(1 << 20):  # drain, so the MTA's pipe does not break
            pass
        try:
            engine = database()
        except DatabaseError as exc:
            raise StoreFailed(f"stdin: the message could not be stored ({exc})") from None
        received_at = args.received_at
        if received_at is None:
            received_at, why_not = received_by_us(raw, _now(), settings.received_by)
            if received_at is None:
                print(f"stdin: arrival time is the moment it was read: {why_not}", file=sys.stderr)
        messages: Iterable[Incoming] = from_bytes(raw, received_at=received_at)
    else:
        engine = database()
        if args.maildir is not None:
            messages = from_maildir(args.maildir)
        else:
            messages = ImapSource(imap_url(settings.imap_url or "")).messages()
    outcomes = _run_ingest(engine, messages, settings.moderator_email, args.json)
    counts = Counter(o.verdict for o in outcomes)
    answered = sum(o.answered for o in outcomes)
    alerts = [o.alert for o in outcomes if o.alert]
    if args.json:
        print(
            json.dumps(
                {
                    "messages": [o.as_dict() for o in outcomes],
                    "verdicts": dict(sorted(counts.items())),
                    "answered": answered,
                    "alerts": alerts,
                },
                indent=2,
            )
        )
    else:
        summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
        print(f"{len(outcomes)} message(s){': ' + summary if summary else ''}; {answered} answered")
        if answered:
            print("replies are queued: `turnproc mail send` sends them")
        if alerts and not settings.moderator_email:
            print("set TURNPROC_MODERATOR_EMAIL to have these notes mailed to you")
    return 1 if counts["error"] or counts["quarantined"] else 0


def drain(
    engine: "Engine", until: datetime, maildir: Path | None, quiet: bool
) -> "list[IngestOutcome]":
    """Before `turn run --due` resolves any turn: every message of the game's
    mailbox (IMAP when `imap_url` is set, or the Maildir `maildir`) that
    arrived until `until` is stored and processed, in the mailbox's order,
    each within the per-message budget; later ones stay unread for the next
    `mail ingest`. So a sheet that came in before a deadline is in force
    when the turn runs, however many messages arrived before it
    (docs/mail.md, Cron)."""
    from turnproc.config import load_settings
    from turnproc.mail.sources import ImapSource, from_maildir
    from turnproc.mail.urls import imap_url

    settings = load_settings()
    if maildir is not None:
        messages: Iterable[Incoming] = from_maildir(maildir)
    elif settings.imap_url:
        messages = ImapSource(imap_url(settings.imap_url)).messages()
    else:
        return []
    return _run_ingest(engine, messages, settings.moderator_email, quiet, until=until)


def _run_ingest(
    engine: "Engine",
    messages: "Iterable[Incoming]",
    moderator: str | None,
    quiet: bool,
    until: datetime | None = None,
) -> "list[IngestOutcome]":
    """Messages left half-processed by an earlier run first, then the new ones
    (with `until`: those that arrived until then; the rest stay unread)."""
    from turnproc.mail.inbound import ingest, resume_pending
    from turnproc.mail.sources import arrival

    outcomes = resume_pending(engine, _now(), moderator=moderator)
    for outcome in outcomes:
        _print_outcome(outcome, quiet)
    try:
        for incoming in messages:
            arrived = arrival(incoming.received_at, _now())
            if until is not None and arrived > until:
                continue
            outcome = ingest(
                engine,
                incoming.raw,
                incoming.origin,
                arrived,
                moderator=moderator,
                on_stored=incoming.ack,
            )
            outcomes.append(outcome)
            _print_outcome(outcome, quiet)
    except (OSError, imaplib.IMAP4.error) as exc:
        # What was read so far is stored; the rest stays unseen for the next run.
        raise TurnprocError(
            f"the mailbox connection failed after {len(outcomes)} message(s): {exc}"
        ) from None
    return outcomes


def _print_outcome(outcome: "IngestOutcome", quiet: bool) -> None:
    if quiet:
        return
    # Details quote senders' text: never hand raw escapes to the moderator's terminal.
    detail = for_terminal(outcome.detail)
    print(f"{for_terminal(outcome.origin)}\t{outcome.verdict}\t{detail}", flush=True)
    if outcome.alert:
        print(f"  moderator: {for_terminal(outcome.alert)}", flush=True)


def _retry(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.config import load_settings
    from turnproc.mail.inbound import retry

    settings = load_settings()
    outcomes = retry(database(), args.ids, moderator=settings.moderator_email)
    if args.json:
        print(json.dumps([o.as_dict() for o in outcomes], indent=2))
    for outcome in outcomes:
        _print_outcome(outcome, args.json)
    return 1 if any(o.verdict == "error" for o in outcomes) else 0
