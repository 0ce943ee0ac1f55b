"""Reading players' link tokens (made by pipeline/links.py, with the same
signing key) and the order form's CSRF tokens."""

import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from turnproc.pipeline.links import TOKEN_VERSION, b64, signature, unb64
from turnproc.pipeline.links import WebKeyError as WebKeyError
from turnproc.pipeline.links import fingerprint as fingerprint
from turnproc.pipeline.links import make_token as make_token
from turnproc.pipeline.links import signing_key as signing_key

FORM_LIFETIME = timedelta(days=1)  # an order form older than this is sent again


@dataclass(frozen=True)
class PlayerToken:
    game_id: int
    position: int
    expires: int  # Unix time
    fingerprint: str


def read_token(key: bytes, token: str, now: datetime) -> PlayerToken | None:
    """The token's contents if its signature holds and it has not expired."""
    if len(token) > 200 or token.count(".") != 1:
        return None
    body, mac = token.split(".")
    try:
        payload = unb64(body).decode("ascii")
        given = unb64(mac)
    except (ValueError, UnicodeDecodeError):
        return None
    if not hmac.compare_digest(given, signature(key, "player", payload)):
        return None
    parts = payload.split(".")
    if len(parts) != 5 or parts[0] != TOKEN_VERSION:
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
    return b64(signature(key, "csrf", f"{browser}|{token}|{form_id}"))


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
