"""Outbound messages: proper MIME, Message-ID, Date, threading and loop headers.

Message-IDs are derived from the outbox row's idempotency key, so the same
message resent after a crash carries the same Message-ID and a mail client
shows it once, and from the installation's random key (the `installation`
table), so the same key in another database (a player's second game, keyed
`welcome/1/1/ann@...` again) never gives the same Message-ID: a mail program
would drop the second message as a duplicate.
"""

import hashlib
import hmac
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
    installation: str = ""  # the installation's key: Message-IDs unique across databases


def message_id(key: str, sender: str, installation: str) -> str:
    """The Message-ID of the message `key` of this installation: the same on a
    resend, never the same as another installation's."""
    domain = sender.rpartition("@")[2] or "turnproc.invalid"
    digest = hmac.new(
        installation.encode(), f"message-id/{key}".encode(), hashlib.sha256
    ).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def compose(out: Outgoing, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = out.to
    msg["Subject"] = out.subject
    msg["Date"] = format_datetime(out.created)
    msg["Message-ID"] = message_id(out.key, sender, out.installation)
    if out.in_reply_to:
        msg["In-Reply-To"] = out.in_reply_to
        msg["References"] = out.in_reply_to
    msg["Auto-Submitted"] = out.auto_submitted
    msg[LOOP_HEADER] = LOOP_VALUE
    # 7-bit clean: the envelope declares no BODY=8BITMIME (transport.envelope),
    # and a relay that converts an undeclared 8-bit body may turn it into
    # base64 of CRLF lines, which a reader's program shows with stray CRs.
    cte = None if out.body.isascii() else "quoted-printable"
    msg.set_content(out.body, charset="utf-8", cte=cte)
    for attachment in out.attachments:
        msg.add_attachment(
            attachment.content,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )
    return msg
