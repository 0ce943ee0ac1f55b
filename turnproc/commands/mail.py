"""`turnproc mail ingest [-|--maildir DIR|--imap]` and `turnproc mail send [--dry-run DIR]`."""

import argparse
import json
from pathlib import Path

from turnproc.commands.db import database
from turnproc.config import load_settings
from turnproc.core.errors import UsageError
from turnproc.mail.outbound import requeue_stuck, send_outbox, write_eml
from turnproc.mail.transport import SmtpTransport
from turnproc.mail.urls import smtp_url
from turnproc.store import repository as repo
from turnproc.store.db import transaction


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("mail", help="receive turnsheets and send the outbox")
    sub = parser.add_subparsers(dest="mail_command", metavar="ACTION", required=True)

    p_send = sub.add_parser("send", help="send queued mail over TURNPROC_SMTP_URL")
    p_send.add_argument(
        "--dry-run", type=Path, metavar="DIR", help="write .eml files to DIR instead of sending"
    )
    p_send.add_argument(
        "--requeue-stuck",
        action="store_true",
        help="put messages interrupted mid-send back in the queue (check them first)",
    )
    p_send.add_argument("--json", action="store_true", help="print JSON")
    p_send.set_defaults(handler=_send)


def _send(args: argparse.Namespace) -> int:
    settings = load_settings()
    engine = database()
    if args.dry_run is not None:
        with transaction(engine) as session:
            rows = [row for row in repo.outbox(session) if row.status in ("queued", "failed")]
            paths = write_eml(rows, args.dry_run, settings.mail_from)
        if args.json:
            print(json.dumps({"written": [str(p) for p in paths]}))
        else:
            print(f"wrote {len(paths)} message(s) to {args.dry_run} (nothing was sent)")
        return 0
    if not settings.smtp_url:
        raise UsageError("no mail server: set TURNPROC_SMTP_URL (smtp://user:pass@host:port)")
    requeued = requeue_stuck(engine) if args.requeue_stuck else 0
    with SmtpTransport(smtp_url(settings.smtp_url)) as transport:
        report = send_outbox(engine, transport, settings.mail_from)
    if args.json:
        print(
            json.dumps(
                {
                    "requeued": requeued,
                    "sent": report.sent,
                    "failed": [{"key": k, "error": e} for k, e in report.failed],
                    "dead": [{"key": k, "error": e} for k, e in report.dead],
                    "stuck": report.stuck,
                }
            )
        )
    else:
        print(f"sent {len(report.sent)}, failed {len(report.failed)} (will retry)")
        for key, error in report.failed + report.dead:
            print(f"  {key}: {error}")
        if report.dead:
            print(f"gave up on {len(report.dead)} message(s) after repeated failures")
        if report.stuck:
            print(
                f"{len(report.stuck)} message(s) were interrupted mid-send and may or may not "
                "have arrived; check, then run `turnproc mail send --requeue-stuck`"
            )
    return 1 if report.dead else 0
