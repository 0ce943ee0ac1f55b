"""SMTP delivery of composed messages (smtp://, smtps://, smtp+starttls://)."""

import smtplib
import ssl
from email.message import EmailMessage
from types import TracebackType

from turnproc.mail.urls import ServerURL

TIMEOUT_S = 30


class SmtpTransport:
    """One SMTP connection, opened on first use and reused for a batch."""

    def __init__(self, server: ServerURL) -> None:
        self.server = server
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        server = self.server
        smtp: smtplib.SMTP
        if server.tls:
            smtp = smtplib.SMTP_SSL(
                server.host, server.port, timeout=TIMEOUT_S, context=ssl.create_default_context()
            )
        else:
            smtp = smtplib.SMTP(server.host, server.port, timeout=TIMEOUT_S)
            if server.starttls:
                smtp.starttls(context=ssl.create_default_context())
        if server.user:
            smtp.login(server.user, server.password or "")
        return smtp

    def send(self, message: EmailMessage) -> None:
        if self._smtp is None:
            self._smtp = self._connect()
        self._smtp.send_message(message)

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
