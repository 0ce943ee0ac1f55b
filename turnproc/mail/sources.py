"""Where inbound mail comes from: one message on stdin, a Maildir, an IMAP box.

Each source yields `Incoming` messages; the caller acknowledges a message
(`ack`) only after it is stored, so a crash never loses one: an unacknowledged
message is simply read again next time (and recognised as a duplicate by its
Message-ID).

Each message carries the time the mail system received it, which is the time
that counts against a deadline: a Maildir file's delivery time (its
modification time, set when the delivery agent wrote it to tmp/), an IMAP
message's INTERNALDATE; on standard input `mail ingest --received-at`, else
the date of the topmost Received header when our own server (the setting
`received_by`) provably added it (`received_by_us`), else the time it is
read. A time later than the moment of reading (a wrong clock, a forged
INTERNALDATE) is never believed.
"""

import contextlib
import imaplib
import mailbox
import re
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

from turnproc.core.errors import TurnprocError
from turnproc.mail.guard import MAX_FIELD_BYTES, header_fields
from turnproc.mail.urls import ServerURL

# Messages larger than this are stored truncated and refused (no turnsheet is this big).
MAX_MESSAGE_BYTES = 30 * 1024 * 1024


@dataclass
class Incoming:
    raw: bytes
    origin: str  # "stdin", "maildir:<key>", "imap:<uid>"
    ack: Callable[[], None]
    received_at: datetime | None = None  # when the mail system received it, if known


def _noop() -> None:
    return None


def arrival(when: datetime | None, now: datetime) -> datetime:
    """The arrival time to record: the mail system's, unless unknown or later than `now`."""
    if when is None or when > now:
        return now
    return when


# How long before the moment of reading the topmost Received header's date is
# believed: a message the mail server kept through a night's outage of the
# database (exit 75, delivered again later) still counts from its arrival; an
# older date (a wrong clock, a message held too long) does not.
RECEIVED_TRUSTED_FOR = timedelta(hours=12)

_BY_RE = re.compile(rb"\bby\s+([^\s;()]+)", re.IGNORECASE)


def received_by_us(
    raw: bytes, now: datetime, our_server: str | None
) -> tuple[datetime | None, str]:
    """When our mail server received a message piped to us: the date of the
    topmost Received header, or None and why it is not believed.

    Each server on the way adds its Received header on top (RFC 5321, 4.4), so
    the topmost is the one our own server added when it took the message; the
    ones below it came with the message, and a sender may write those himself,
    so they are never read. The topmost counts only when it is provably our
    server's (docs/mail.md, Arrival time):

    - its `by` clause names `our_server` (the setting `received_by`; without
      it no Received header is believed, since a pipe from a server that adds
      none makes the sender's own header the topmost);
    - it holds exactly one `;`, the one before its date: a server that does
      not separate the header from the body (dovecot's LMTP, given a message
      with no header block) lets a first body line " ; <date>" fold into its
      header, and that forged date would be the last;
    - its date is readable, not later than `now` and less than
      RECEIVED_TRUSTED_FOR before it."""
    if not our_server:
        return None, "no received_by is set, so no Received header is believed"
    for field in header_fields(raw):
        name, colon, value = field.partition(b":")
        if not colon or name.strip().lower() != b"received":
            continue
        if len(field) > MAX_FIELD_BYTES:
            return None, "the topmost Received header is too long to read"
        by = _BY_RE.search(value)
        server = by.group(1).decode("ascii", "replace") if by else ""
        if server.lower().rstrip(".") != our_server.lower().rstrip("."):
            return None, (
                f"the topmost Received header is not by {our_server} "
                f"(by {server[:60] or 'nobody'!r})"
            )
        if value.count(b";") != 1:
            return None, "the topmost Received header has more than one date"
        stamp = " ".join(value.decode("ascii", "replace").rpartition(";")[2].split())
        try:
            when = parsedate_to_datetime(stamp)
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if not stamp or when is None:
            return (
                None,
                f"the topmost Received header has no date that can be read ({stamp[:60]!r})",
            )
        when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
        if when > now:
            return (
                None,
                f"the topmost Received header's date {when:%Y-%m-%d %H:%M:%S %z} is in the future",
            )
        if when < now - RECEIVED_TRUSTED_FOR:
            hours = RECEIVED_TRUSTED_FOR // timedelta(hours=1)
            return None, (
                f"the topmost Received header's date {when:%Y-%m-%d %H:%M:%S %z} is more than "
                f"{hours} hours ago"
            )
        return when.astimezone(UTC), ""
    return None, "the message has no Received header"


def from_bytes(
    raw: bytes, origin: str = "stdin", received_at: datetime | None = None
) -> Iterator[Incoming]:
    yield Incoming(raw=raw, origin=origin, ack=_noop, received_at=received_at)


def from_maildir(folder: Path) -> Iterator[Incoming]:
    """New and unseen messages of a Maildir; acknowledging marks them seen and
    moves them to cur/ (files are never deleted)."""
    if not (folder / "new").is_dir() and not (folder / "cur").is_dir():
        raise TurnprocError(f"{folder} is not a Maildir (no new/ or cur/)")
    box = mailbox.Maildir(folder, factory=None, create=False)
    for key in sorted(box.keys()):
        message = box.get_message(key)
        if "S" in message.get_flags():
            continue
        with box.get_file(key) as handle:
            raw = handle.read(MAX_MESSAGE_BYTES + 1)
        # The Maildir specification's delivery time: the file's modification
        # time, set when the delivery agent wrote it (moving to new/ keeps it).
        delivered = datetime.fromtimestamp(message.get_date(), UTC)

        def ack(key: str = key) -> None:
            msg = box.get_message(key)
            msg.set_subdir("cur")
            msg.add_flag("S")
            box[key] = msg

        yield Incoming(raw=raw, origin=f"maildir:{key}", ack=ack, received_at=delivered)


class ImapSource:
    """Unseen messages of an IMAP mailbox; acknowledging sets \\Seen."""

    def __init__(self, server: ServerURL) -> None:
        self.server = server

    def messages(self) -> Iterator[Incoming]:
        server = self.server
        try:
            imap: imaplib.IMAP4
            if server.tls:
                imap = imaplib.IMAP4_SSL(
                    server.host, server.port, ssl_context=ssl.create_default_context()
                )
            else:
                imap = imaplib.IMAP4(server.host, server.port, timeout=30)
            imap.login(server.user or "", server.password or "")
        except (imaplib.IMAP4.error, OSError) as exc:
            raise TurnprocError(f"cannot log in to {server.redacted()}: {exc}") from None
        try:
            status, _ = imap.select(server.mailbox)
            if status != "OK":
                raise TurnprocError(f"no mailbox {server.mailbox!r} on {server.redacted()}")
            status, data = imap.uid("SEARCH", "UNSEEN")
            found = data[0] if status == "OK" and data and data[0] else b""
            uids = [uid.decode() for uid in found.split()]
            for uid in uids:
                status, parts = imap.uid("FETCH", uid, "(INTERNALDATE BODY.PEEK[])")
                raw = next(
                    (p[1] for p in parts if isinstance(p, tuple) and isinstance(p[1], bytes)),
                    None,
                )
                if status != "OK" or raw is None:
                    continue
                received = _internaldate(parts)

                def ack(uid: str = uid) -> None:
                    imap.uid("STORE", uid, "+FLAGS", "(\\Seen)")

                yield Incoming(raw=raw, origin=f"imap:{uid}", ack=ack, received_at=received)
        finally:
            with contextlib.suppress(imaplib.IMAP4.error, OSError):
                imap.logout()


def _internaldate(parts: list[object]) -> datetime | None:
    """The INTERNALDATE in a FETCH response: when the server received the message."""
    for part in parts:
        line = part[0] if isinstance(part, tuple) else part
        if isinstance(line, bytes) and b"INTERNALDATE" in line:
            stamp = imaplib.Internaldate2tuple(line)
            if stamp is not None:
                return datetime.fromtimestamp(time.mktime(stamp), UTC)
    return None
