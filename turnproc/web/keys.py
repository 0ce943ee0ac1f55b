"""The signing key, players' link tokens and the order form's CSRF tokens.

A player's own page is reached by `/play/TOKEN`: TOKEN names the game and
position, when it expires, and a fingerprint of the player's secret hash and
address, signed with HMAC-SHA256. The secret itself is never in it. When a
position changes hands (game assign, a standby player taking over) the new
player gets a new secret, so the old player's links stop working at once.

The key comes from the configuration (`web_secret_key`) or, when none is set,
from `web_key_file`, written with a new random key (mode 0600) on first use,
so the web server and the batch that mails the links sign alike.
"""

import base64
import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from turnproc.config import Settings
from turnproc.core.errors import TurnprocError

_VERSION = "1"
_MAC_BYTES = 18
FORM_LIFETIME = timedelta(days=1)  # an order form older than this is sent again


class WebKeyError(TurnprocError):
    """The signing key cannot be read or made."""


def signing_key(settings: Settings) -> bytes:
    """The key from the configuration, or from its key file (made if absent)."""
    if settings.web_secret_key:
        if len(settings.web_secret_key) < 32:
            raise WebKeyError("web_secret_key must have at least 32 characters")
        return settings.web_secret_key.encode("utf-8")
    path = Path(settings.web_key_file)
    try:
        if not path.exists():
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="ascii") as handle:
                handle.write(secrets.token_urlsafe(48) + "\n")
        key = path.read_text(encoding="ascii").strip()
    except FileExistsError:  # another process made it a moment ago
        key = path.read_text(encoding="ascii").strip()
    except OSError as exc:
        raise WebKeyError(f"cannot read or make the web signing key {path}: {exc}") from None
    if len(key) < 32:
        raise WebKeyError(f"the web signing key in {path} is too short; delete the file")
    return key.encode("ascii")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fingerprint(secret_hash: str | None, email: str | None) -> str:
    """What ties a token to the person now playing the position."""
    seed = f"{secret_hash or ''}|{(email or '').strip().lower()}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]


def _mac(key: bytes, purpose: str, payload: str) -> bytes:
    return hmac.new(key, f"{purpose}|{payload}".encode(), hashlib.sha256).digest()[:_MAC_BYTES]


@dataclass(frozen=True)
class PlayerToken:
    game_id: int
    position: int
    expires: int  # Unix time
    fingerprint: str


def make_token(
    key: bytes, game_id: int, position: int, print_: str, now: datetime, days: int
) -> str:
    expires = int((now + timedelta(days=days)).timestamp())
    payload = f"{_VERSION}.{game_id}.{position}.{expires}.{print_}"
    return f"{_b64(payload.encode('ascii'))}.{_b64(_mac(key, 'player', payload))}"


def read_token(key: bytes, token: str, now: datetime) -> PlayerToken | None:
    """The token's contents if its signature holds and it has not expired."""
    if len(token) > 200 or token.count(".") != 1:
        return None
    body, mac = token.split(".")
    try:
        payload = _unb64(body).decode("ascii")
        given = _unb64(mac)
    except (ValueError, UnicodeDecodeError):
        return None
    if not hmac.compare_digest(given, _mac(key, "player", payload)):
        return None
    parts = payload.split(".")
    if len(parts) != 5 or parts[0] != _VERSION:
        return None
    try:
        game_id, position, expires = int(parts[1]), int(parts[2]), int(parts[3])
    except ValueError:
        return None
    if expires < now.timestamp():
        return None
    return PlayerToken(game_id, position, expires, parts[4])


def new_form_id(now: datetime) -> str:
    """A fresh order form's id: when it was made and a random part. A submitted
    form's id becomes its Message-ID, so the same form is never taken twice."""
    return f"{int(now.timestamp())}-{secrets.token_hex(12)}"


def form_csrf(key: bytes, browser: str, token: str, form_id: str) -> str:
    """The CSRF field of one form for one browser (its cookie) and player link."""
    return _b64(_mac(key, "csrf", f"{browser}|{token}|{form_id}"))


def check_csrf(
    key: bytes, browser: str, token: str, form_id: str, given: str, now: datetime
) -> str | None:
    """None if the form's CSRF field is right and the form is fresh; else why not."""
    if not browser or not given:
        return "the form came without its security fields; reload the page"
    if not hmac.compare_digest(given.encode(), form_csrf(key, browser, token, form_id).encode()):
        return "the form's security field does not match; reload the page"
    issued, _, _ = form_id.partition("-")
    if not issued.isdigit() or now.timestamp() - int(issued) > FORM_LIFETIME.total_seconds():
        return "the form is too old; reload the page"
    return None


def utcnow() -> datetime:
    return datetime.fromtimestamp(time.time(), UTC)
