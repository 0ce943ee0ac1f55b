"""Mail server URLs: ``smtp://user:pass@host:port``, ``smtps://...``,
``smtp+starttls://...``, ``imap://user:pass@host:port/INBOX``, ``imaps://...``.

User and password are percent-encoded (``moderator%40example.org``).
"""

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from turnproc.core.errors import TurnprocError

DEFAULT_PORTS = {"smtp": 25, "smtps": 465, "smtp+starttls": 587, "imap": 143, "imaps": 993}


class MailConfigError(TurnprocError):
    """A mail server URL that cannot be used."""


@dataclass(frozen=True)
class ServerURL:
    scheme: str
    host: str
    port: int
    user: str | None
    password: str | None
    mailbox: str = "INBOX"

    @property
    def tls(self) -> bool:
        return self.scheme in ("smtps", "imaps")

    @property
    def starttls(self) -> bool:
        return self.scheme == "smtp+starttls"

    def redacted(self) -> str:
        who = f"{self.user}@" if self.user else ""
        return f"{self.scheme}://{who}{self.host}:{self.port}"


def parse_server_url(url: str, kinds: tuple[str, ...]) -> ServerURL:
    """Parse `url`, accepting only the schemes in `kinds`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise MailConfigError(f"bad mail server URL ({exc})") from None
    if parts.scheme not in kinds:
        raise MailConfigError(
            f"mail server URL must start with {' or '.join(k + '://' for k in kinds)}"
        )
    if not parts.hostname:
        raise MailConfigError("mail server URL has no host")
    mailbox = unquote(parts.path.lstrip("/")) or "INBOX"
    return ServerURL(
        scheme=parts.scheme,
        host=parts.hostname,
        port=port or DEFAULT_PORTS[parts.scheme],
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        mailbox=mailbox,
    )


def smtp_url(url: str) -> ServerURL:
    return parse_server_url(url, ("smtp", "smtps", "smtp+starttls"))


def imap_url(url: str) -> ServerURL:
    return parse_server_url(url, ("imap", "imaps"))
