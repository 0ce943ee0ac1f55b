"""CONTACT: a player shows his e-mail address to the other players, or
withdraws it (rules 3.1, 9.2; docs/mail.md, section 4)."""

from turnproc.mail.commands.letter import IngestOutcome, Letter, Refused
from turnproc.mail.commands.syntax import Command
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player


def contact(letter: Letter, command: Command, game: Game, player: Player) -> IngestOutcome:
    """CONTACT: agree to show the e-mail address to the other players, or
    withdraw (3.1, 9.2); from the next report on."""
    choice = command.flags & {"share", "withhold"}
    if len(choice) != 1:
        raise Refused(
            "CONTACT needs one of share or withhold",
            f"write it as: CONTACT game: {game.name} player: {player.position} "
            "secret: YOUR-SECRET share",
        )
    player.share_email = choice == {"share"}
    repo.log_action(
        letter.session,
        game_id=game.id,
        turn=game.current_turn,
        action="contact_consent",
        now=letter.received_at,
        details={"position": player.position, "share_email": player.share_email},
    )
    if player.share_email:
        said = f"the other players' reports show your address {player.email}"
    else:
        said = "the other players' reports do not show your e-mail address"
    if game.anonymous:
        said += " (this game is anonymous: only a spy would see it)"
    letter.reply(
        f"[{game.name}] OK: contact details",
        f"OK: from the next report on, {said}.\n",
        game=game,
        position=player.position,
    )
    detail = f"CONTACT: player {player.position} share_email={player.share_email}"
    return letter.settle("contact", detail, answered=True, game=game, position=player.position)
