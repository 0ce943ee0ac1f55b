"""The link to a player's own page, for the mail that carries it (welcome, reports).

Nothing here needs the web server: the batch signs the links with the same
key (web/keys.py) as the server that checks them.
"""

from datetime import datetime

from turnproc.config import Settings, load_settings
from turnproc.store.models import Player
from turnproc.web import keys


def player_url(settings: Settings, base: str, game_id: int, player: Player, now: datetime) -> str:
    token = keys.make_token(
        keys.signing_key(settings),
        game_id,
        player.position,
        keys.fingerprint(player.secret_hash, player.email),
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
