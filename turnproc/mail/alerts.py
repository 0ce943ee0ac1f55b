"""What the intake tells the moderator: one alert per failure, and one
digest per sender and hour for repeated refusals (docs/mail.md, section 5)."""

import hashlib
from datetime import datetime

from sqlalchemy.orm import Session

from turnproc.core.text import for_terminal
from turnproc.intake.auth import FAILURE_WINDOW, FAILURES_BEFORE_SILENCE, FAILURES_TO_REPORT
from turnproc.store import repository as repo


def tell_moderator(
    session: Session, moderator: str | None, *, key: str, subject: str, body: str, now: datetime
) -> str:
    """Tell the moderator (by mail if an address is set); returns the one-line note."""
    if moderator:
        repo.queue_mail(
            session,
            key=key,
            kind="alert",
            to_address=moderator,
            subject=subject,
            body=body,
            now=now,
        )
    return subject


def refusal_digest(
    session: Session,
    moderator: str | None,
    sender: str,
    submission_id: int,
    reason: str,
    now: datetime,
) -> str | None:
    """Repeated refusals from one sender: one alert per sender and burst (the
    hour the refusals fall in), a digest that lists each refusal while it
    waits in the outbox. Returns the note for the moderator's terminal the
    first time only, None for the rest of the burst."""
    line = f"  #{submission_id}  {now:%Y-%m-%d %H:%M:%S} UTC  {for_terminal(reason)[:200]}\n"
    bucket = now.replace(minute=0, second=0, microsecond=0)
    digest = hashlib.sha256(sender.encode("utf-8", "replace")).hexdigest()[:16]
    key = f"alert/refusals/{digest}/{bucket:%Y%m%d%H}"
    subject = f"turnproc: repeated refusals for {for_terminal(sender)[:120]}"
    if not moderator:
        count = len(repo.recent_refusals(session, since=now - FAILURE_WINDOW, sender=sender))
        return subject if count + 1 == FAILURES_TO_REPORT else None
    existing = repo.mail_by_key(session, key)
    if existing is not None:
        if existing.status == "queued":
            existing.body += line
        return None
    repo.queue_mail(
        session,
        key=key,
        kind="alert",
        to_address=moderator,
        subject=subject,
        body=(
            f"Messages from {for_terminal(sender)[:254]} are being refused: "
            f"{FAILURES_TO_REPORT} within {FAILURE_WINDOW}. From the "
            f"{FAILURES_BEFORE_SILENCE + 1}th on they are no longer answered. This alert "
            "comes once per sender and hour; the refusals until it is sent are listed "
            "here (all of them: `turnproc mail ingest` prints each, the submissions "
            "table keeps them):\n\n" + line
        ),
        now=now,
    )
    return subject
