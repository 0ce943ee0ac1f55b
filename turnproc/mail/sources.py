"""Where inbound mail comes from: one message on stdin, a Maildir, an IMAP box.

Each source yields `Incoming` messages; the caller acknowledges a message
(`ack`) only after it is stored, so a crash never loses one: an unacknowledged
message is simply read again next time (and recognised as a duplicate by its
Message-ID).

Each message carries the time the mail system received it, which is the time
that counts against a deadline: a Maildir file's delivery time (its
modification time, set when the delivery agent wrote it to tmp/), an IMAP
message's INTERNALDATE; standard input has none (`mail ingest --received-at`
gives it, else the time it is read). A time later than the moment of reading
(a wrong clock, a forged INTERNALDATE) is never believed.
"""

import contextlib
import imaplib
import mailbox
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from turnproc.core.errors import TurnprocError
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
