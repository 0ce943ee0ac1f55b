"""Where inbound mail comes from: one message on stdin, a Maildir, an IMAP box.

Each source yields `Incoming` messages; the caller acknowledges a message
(`ack`) only after it is stored, so a crash never loses one: an unacknowledged
message is simply read again next time (and recognised as a duplicate by its
Message-ID).
"""

import contextlib
import imaplib
import mailbox
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


def _noop() -> None:
    return None


def from_bytes(raw: bytes, origin: str = "stdin") -> Iterator[Incoming]:
    yield Incoming(raw=raw, origin=origin, ack=_noop)


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

        def ack(key: str = key) -> None:
            msg = box.get_message(key)
            msg.set_subdir("cur")
            msg.add_flag("S")
            box[key] = msg

        yield Incoming(raw=raw, origin=f"maildir:{key}", ack=ack)


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
                status, parts = imap.uid("FETCH", uid, "(BODY.PEEK[])")
                raw = next(
                    (p[1] for p in parts if isinstance(p, tuple) and isinstance(p[1], bytes)),
                    None,
                )
                if status != "OK" or raw is None:
                    continue

                def ack(uid: str = uid) -> None:
                    imap.uid("STORE", uid, "+FLAGS", "(\\Seen)")

                yield Incoming(raw=raw, origin=f"imap:{uid}", ack=ack)
        finally:
            with contextlib.suppress(imaplib.IMAP4.error, OSError):
                imap.logout()
