"""The link to a player's own page, for the mail that carries it (welcome,
reports), and the signing key that makes it.

A player's own page is reached by `/play/TOKEN`: TOKEN names the game and
position, when it expires, and a fingerprint of the player's secret hash and
address, signed with HMAC-SHA256. The secret itself is never in it. When a
position changes hands (game assign, a standby player taking over) the new
player gets a new secret, so the old player's links stop working at once.

The key comes from the configuration (`web_secret_key`) or, when none is set,
from `web_key_file`, written with a new random key (mode 0600) on first use,
so the web server (web/keys.py reads the tokens) and the batch that mails the
links sign alike. Nothing here needs the web server.
"""

import base64
import hashlib
import hmac
import os
import secrets
from datetime import datetime, timedelta
from pathlib import Path

from turnproc.config import Settings, load_settings
from turnproc.core.errors import TurnprocError
from turnproc.store.models import Player

TOKEN_VERSION = "1"
_MAC_BYTES = 18


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


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fingerprint(secret_hash: str | None, email: str | None) -> str:
    """What ties a token to the person now playing the position."""
    seed = f"{secret_hash or ''}|{(email or '').strip().lower()}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]


def signature(key: bytes, purpose: str, payload: str) -> bytes:
    return hmac.new(key, f"{purpose}|{payload}".encode(), hashlib.sha256).digest()[:_MAC_BYTES]


def make_token(
    key: bytes, game_id: int, position: int, print_: str, now: datetime, days: int
) -> str:
    expires = int((now + timedelta(days=days)).timestamp())
    payload = f"{TOKEN_VERSION}.{game_id}.{position}.{expires}.{print_}"
    return f"{b64(payload.encode('ascii'))}.{b64(signature(key, 'player', payload))}"


def player_url(settings: Settings, base: str, game_id: int, player: Player, now: datetime) -> str:
    token = make_token(
        signing_key(settings),
        game_id,
        player.position,
        fingerprint(player.secret_hash, player.email),
        now,
        settings.web_link_days,
    )
    return f"{base.rstrip('/')}/play/{token}"


PAGE_REPORTS = "report, PDFs, and an order form that checks as you type"
PAGE_MOVES = "a form with the moves the rules allow you, your holdings, the moves since your last"


def mail_footer(game_id: int, player: Player, now: datetime, holds: str = PAGE_REPORTS) -> str:
    """The lines a player's mail ends with: his page's link, when the moderator
    has set `web_url` (else nothing). `holds`: what the page holds, in words."""
    settings = load_settings()
    if not settings.web_url or not player.human or not player.secret_hash:
        return ""
    url = player_url(settings, settings.web_url, game_id, player, now)
    return (
        f"\n\nYour page ({holds};\n"
        f"keep this link to yourself, it works for {settings.web_link_days} days):\n{url}\n"
    )
