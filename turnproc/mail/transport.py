"""SMTP delivery of composed messages (smtp://, smtps://, smtp+starttls://).

A message goes through the stages of RFC 5321, and what a failure means
depends on the stage it happens in:

- connecting, EHLO, MAIL, RCPT, the DATA command, handing over the text: the
  server has not accepted the message (a reply other than 250, or a
  connection lost before the final "." was handed over, means it cannot
  have: RFC 5321 4.1.1.4), so it can be sent again (`NotDelivered`);
- the whole text handed over, the server's answer awaited: only its 250
  accepts the message. A connection lost here leaves the message undecided
  (`Undecided`): the server may have taken responsibility for it and lost
  the connection before saying so (RFC 1047), so it is never resent blindly.

The caller's `before_data` hook runs between RCPT and DATA: the outbox marks
the message in flight there, so a crash from then on leaves exactly that
message undecided.
"""

import email.policy
import smtplib
import ssl
from collections.abc import Callable
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.utils import getaddresses
from io import BytesIO
from types import TracebackType

from turnproc.mail.urls import ServerURL

TIMEOUT_S = 30
# The server may check a whole message (spam, viruses) before it answers the
# final ".": RFC 5321 4.5.3.2.6 asks clients to wait 10 minutes for that reply.
FINAL_REPLY_TIMEOUT_S = 600
CLOSING = 421  # "service not available, closing transmission channel"


class NotDelivered(Exception):
    """The server did not accept the message; it can be sent again.

    `connection_lost`: the connection is gone (a 421, or dropped), so the next
    message needs a new one. `fresh`: it happened on a connection that had
    not yet delivered anything, so a new connection is unlikely to help."""

    def __init__(self, error: str, *, connection_lost: bool, fresh: bool) -> None:
        super().__init__(error)
        self.connection_lost = connection_lost
        self.fresh = fresh


class ServerUnavailable(NotDelivered):
    """No usable connection could be made (refused, greeting, EHLO, login)."""

    def __init__(self, error: str) -> None:
        super().__init__(error, connection_lost=True, fresh=True)


class Undecided(Exception):
    """The connection was lost after the whole message was handed over and
    before the server answered: it may or may not have been accepted."""


def describe(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPResponseException):
        error = exc.smtp_error
        text = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
        return f"{exc.smtp_code} {text}".strip()
    return f"{type(exc).__name__}: {exc}"


class _Generator(BytesGenerator):
    """`BytesGenerator` writing a part's text in one piece: the same bytes.
    The standard one writes a PDF's base64 line by line, two writes a line
    (about 8,000 lines a report), which cost more than all else in
    flattening a report's message."""

    def _write_lines(self, lines: str) -> None:
        # The standard one writes the pieces of NLCRE.split(lines) (at each
        # CRLF, lone CR and lone LF) joined by the line end, the last one only
        # if it is not empty: each line end becomes one LF, then each LF the
        # line end.
        if lines:
            line_end: str = self._NL  # type: ignore[attr-defined]  # set by flatten
            lines = lines.replace("\r\n", "\n").replace("\r", "\n")
            self.write(lines if line_end == "\n" else lines.replace("\n", line_end))


def envelope(message: EmailMessage) -> tuple[str, list[str], bytes, list[str]]:
    """(sender, recipients, the text as sent, MAIL options), as
    `smtplib.SMTP.send_message` would derive them."""
    sender = getaddresses([str(message["Sender"] or message["From"])])[0][1]
    fields = [str(message[name]) for name in ("To", "Cc") if message[name] is not None]
    recipients = [address for _, address in getaddresses(fields)]
    international = not "".join([sender, *recipients]).isascii()
    buffer = BytesIO()
    policy = email.policy.SMTPUTF8 if international else email.policy.SMTP
    _Generator(buffer, policy=policy).flatten(message)
    options = ["SMTPUTF8", "BODY=8BITMIME"] if international else []
    return sender, recipients, buffer.getvalue(), options


def data_block(text: bytes) -> bytes:
    """The text as DATA carries it: CRLF line ends, leading dots doubled,
    ended by a line holding a single dot (RFC 5321 4.5.2)."""
    # Each CRLF, lone CR and lone LF becomes one LF, then each LF a CRLF; a
    # dot that begins a line is doubled. (str.replace rather than a regular
    # expression's substitution: the same bytes, in a fraction of the time.)
    # A text flattened for SMTP has only CRLFs, and is left as it is.
    if not text.count(b"\r\n") == text.count(b"\r") == text.count(b"\n"):
        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").replace(b"\n", b"\r\n")
    text = text.replace(b"\n.", b"\n..")
    if text.startswith(b"."):
        text = b"." + text
    if not text.endswith(b"\r\n"):
        text += b"\r\n"
    return text + b".\r\n"


class SmtpTransport:
    """One SMTP connection, opened on first use, reused for a batch and opened
    again when the server closes it."""

    def __init__(self, server: ServerURL) -> None:
        self.server = server
        self._smtp: smtplib.SMTP | None = None
        self._delivered_here = 0  # messages accepted on the current connection
        self.connections = 0

    def _connect(self) -> smtplib.SMTP:
        server = self.server
        smtp: smtplib.SMTP
        try:
            if server.tls:
                smtp = smtplib.SMTP_SSL(
                    server.host,
                    server.port,
                    timeout=TIMEOUT_S,
                    context=ssl.create_default_context(),
                )
            else:
                smtp = smtplib.SMTP(server.host, server.port, timeout=TIMEOUT_S)
                if server.starttls:
                    smtp.starttls(context=ssl.create_default_context())
            smtp.ehlo_or_helo_if_needed()
            if server.user:
                smtp.login(server.user, server.password or "")
        except (smtplib.SMTPException, OSError) as exc:
            raise ServerUnavailable(
                f"cannot use the mail server {server.host}:{server.port}: {describe(exc)}"
            ) from None
        self.connections += 1
        self._delivered_here = 0
        return smtp

    def send(self, message: EmailMessage, before_data: Callable[[], bool] = lambda: True) -> bool:
        """Deliver `message`; False when `before_data` declined it (nothing sent).
        Raises `NotDelivered` or `Undecided` as the module docstring says."""
        if self._smtp is None:
            self._smtp = self._connect()
        smtp = self._smtp
        fresh = self._delivered_here == 0
        sender, recipients, text, options = envelope(message)
        try:
            if smtp.has_extn("size"):
                options = [*options, f"SIZE={len(text)}"]
            self._expect(250, *smtp.mail(sender, options), fresh=fresh)
            for recipient in recipients:
                self._expect((250, 251), *smtp.rcpt(recipient), fresh=fresh)
            if not before_data():
                smtp.rset()
                return False
            self._expect(354, *smtp.docmd("DATA"), fresh=fresh)
            smtp.send(data_block(text))
        except NotDelivered:
            raise
        except (smtplib.SMTPException, OSError) as exc:
            self._drop()
            raise NotDelivered(describe(exc), connection_lost=True, fresh=fresh) from None
        # The final "." is with the server: from here on only its answer decides.
        try:
            if smtp.sock is not None:
                smtp.sock.settimeout(FINAL_REPLY_TIMEOUT_S)
            code, reply = smtp.getreply()
            if smtp.sock is not None:
                smtp.sock.settimeout(TIMEOUT_S)
        except (smtplib.SMTPException, OSError) as exc:
            self._drop()
            raise Undecided(
                f"the connection was lost while waiting for the server to accept the message "
                f"({describe(exc)})"
            ) from None
        self._expect(250, code, reply, fresh=fresh)
        self._delivered_here += 1
        return True

    def _expect(self, wanted: int | tuple[int, ...], code: int, reply: bytes, fresh: bool) -> None:
        if code == wanted or (isinstance(wanted, tuple) and code in wanted):
            return
        error = f"{code} {reply.decode('utf-8', 'replace')}".strip()
        if code == CLOSING or code == -1:  # -1: smtplib read an unparsable reply
            self._drop()
            raise NotDelivered(error, connection_lost=True, fresh=fresh)
        try:  # the connection stays usable for the next message
            if self._smtp is not None:
                self._smtp.rset()
        except (smtplib.SMTPException, OSError):
            self._drop()
            raise NotDelivered(error, connection_lost=True, fresh=fresh) from None
        raise NotDelivered(error, connection_lost=False, fresh=fresh)

    def _drop(self) -> None:
        if self._smtp is not None:
            self._smtp.close()
            self._smtp = None

    def close(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                self._smtp.close()
            self._smtp = None

    def __enter__(self) -> "SmtpTransport":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
