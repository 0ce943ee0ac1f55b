"""A position's secret, checked for sheets and commands that name it.

A right secret always works: a mail's From line is easy to forge, so a
position locked after wrong secrets would let anyone lock its owner out by
writing his address (docs/mail.md, Secrets). Guessing is answered by the
secret's strength instead (about 60 bits, each check a scrypt hash of tens
of milliseconds) and by the limits on refusals, which count per sender
(`auth.failure_decision`): a guesser is answered five times an hour and the
moderator alerted, while the player of the position is answered as ever.

A sheet or command from an address not the player's is refused before its
secret counts; if the secret was right all the same (a leaked secret), the
player is told at the registered address and the moderator's log records it
(`secret_used_elsewhere`).
"""

from datetime import datetime

from sqlalchemy.orm import Session

from turnproc.intake.auth import verify_secret
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player


def secret_problem(player: Player, secret: str) -> str | None:
    """None when `secret` is the position's; otherwise why it is refused. Nothing
    is counted against the position: the refusal counts against its sender."""
    if verify_secret(secret, player.secret_hash):
        return None
    return f"wrong secret for player {player.position}"


def secret_used_elsewhere(
    session: Session, game: Game, player: Player, secret: str, sender: str, now: datetime
) -> None:
    """Mail from `sender`, not the player's registered address, gave the
    position's secret: log it, and tell the player (once an hour per position,
    so mail from many addresses cannot flood him). The sender's refusal says
    the same whether the secret was right or not, so it tells a guesser
    nothing."""
    if not verify_secret(secret, player.secret_hash):
        return
    repo.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="secret_used_elsewhere",
        reason=f"the secret of player {player.position} came from {sender}",
        now=now,
        details={"position": player.position, "sender": sender},
    )
    if not player.email:
        return
    repo.queue_mail(
        session,
        key=f"secret-used-elsewhere/{game.id}/{player.position}/{now:%Y-%m-%dT%H}",
        kind="notice",
        to_address=player.email,
        subject=f"[{game.name}] Your secret was used from another address",
        body=(
            f"Mail naming your position ({player.position}) in {game.name} gave your "
            f"secret, but it came from\n{sender}, not from your registered address. It "
            "was refused and changed nothing:\nyour orders in force are as they were, "
            "and the sender was not told them.\n\n"
            "If that was not you, someone knows your secret: ask the moderator for a new "
            "one.\n"
        ),
        now=now,
        game_id=game.id,
        turn=game.current_turn,
        position=player.position,
    )
