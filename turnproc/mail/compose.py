"""Outbound messages: proper MIME, Message-ID, Date, threading and loop headers.

Message-IDs are derived from the outbox row's idempotency key, so the same
message resent after a crash carries the same Message-ID and a mail client
shows it once.
"""

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

from turnproc.mail.classify import LOOP_HEADER, LOOP_VALUE


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str
    subtype: str


@dataclass(frozen=True)
class Outgoing:
    """What the outbox holds for one message."""

    key: str  # idempotency key, unique per message
    to: str
    subject: str
    body: str
    created: datetime
    in_reply_to: str | None = None
    attachments: tuple[Attachment, ...] = field(default_factory=tuple)
    auto_submitted: str = "auto-generated"  # RFC 3834: "auto-replied" for receipts


def message_id(key: str, sender: str) -> str:
    domain = sender.rpartition("@")[2] or "turnproc.invalid"
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def compose(out: Outgoing, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = out.to
    msg["Subject"] = out.subject
    msg["Date"] = format_datetime(out.created)
    msg["Message-ID"] = message_id(out.key, sender)
    if out.in_reply_to:
        msg["In-Reply-To"] = out.in_reply_to
        msg["References"] = out.in_reply_to
    msg["Auto-Submitted"] = out.auto_submitted
    msg[LOOP_HEADER] = LOOP_VALUE
    msg.set_content(out.body, charset="utf-8")
    for attachment in out.attachments:
        msg.add_attachment(
            attachment.content,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )
    return msg
