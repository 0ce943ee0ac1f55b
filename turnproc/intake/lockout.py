"""A position's secret, checked with a lock-out against guessing.

A mail's From line is easy to forge, so a guesser writes the player's own
address and tries secrets. After LOCK_AFTER wrong secrets in a row for one
position the secret is locked: no secret is checked for that position any
more (a guess can no longer succeed), sheets and commands naming it are
refused with the reason, and the player is mailed, at the registered
address only, an unlock code. The player unlocks with
`UNLOCK game: NAME player: N code: CODE`, the moderator with
`turnproc game unlock GAME POSITION`. A right secret resets the count.
"""

from datetime import datetime

from sqlalchemy.orm import Session

from turnproc.intake.auth import generate_secret, hash_secret, verify_secret
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player

LOCK_AFTER = 5  # wrong secrets in a row for one position


def secret_problem(
    session: Session, game: Game, player: Player, secret: str, now: datetime
) -> str | None:
    """None when `secret` is the position's; otherwise why it is refused. A wrong
    secret is counted, and the LOCK_AFTER-th locks the position (the player is
    mailed the unlock code) inside the caller's transaction."""
    if player.secret_locked_at is not None:
        return locked_reason(player)
    if verify_secret(secret, player.secret_hash):
        player.wrong_secrets = 0
        return None
    player.wrong_secrets = (player.wrong_secrets or 0) + 1
    if player.wrong_secrets >= LOCK_AFTER:
        lock(session, game, player, now)
        return locked_reason(player)
    return f"wrong secret for player {player.position}"


def locked_reason(player: Player) -> str:
    return (
        f"the secret of player {player.position} is locked after {LOCK_AFTER} wrong "
        "secrets; the player was mailed an unlock code at the registered address"
    )


def lock(session: Session, game: Game, player: Player, now: datetime) -> None:
    """Lock the position's secret and mail its player the unlock code."""
    code = generate_secret()
    player.secret_locked_at = now
    player.unlock_hash = hash_secret(code)
    repo.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="secret_locked",
        reason=f"{LOCK_AFTER} wrong secrets in a row",
        now=now,
        details={"position": player.position},
    )
    if player.email:
        repo.queue_mail(
            session,
            key=f"secret-locked/{game.id}/{player.position}/{now.isoformat()}",
            kind="notice",
            to_address=player.email,
            subject=f"[{game.name}] Your secret is locked after {LOCK_AFTER} wrong guesses",
            body=(
                f"Mail naming your position ({player.position}) in {game.name} gave a wrong "
                f"secret {LOCK_AFTER} times in a row. Someone may be guessing it, writing "
                "your address as the sender. Your secret is now locked: no turnsheet or\n"
                "command for your position is accepted until it is unlocked.\n\n"
                "To unlock it, send this line (from your registered address):\n\n"
                f"  UNLOCK game: {game.name} player: {player.position} code: {code}\n\n"
                "Your secret stays the same. Your orders in force are unchanged. The "
                "moderator can also unlock it.\n"
            ),
            now=now,
            game_id=game.id,
            turn=game.current_turn,
            position=player.position,
        )


def unlock(session: Session, game: Game, player: Player, now: datetime, by: str) -> None:
    player.secret_locked_at = None
    player.unlock_hash = None
    player.wrong_secrets = 0
    repo.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="secret_unlocked",
        now=now,
        details={"position": player.position, "by": by},
    )


def unlock_code_matches(player: Player, code: str) -> bool:
    return player.secret_locked_at is not None and verify_secret(code, player.unlock_hash)
