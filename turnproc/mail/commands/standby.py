"""STANDBY: volunteers join a game's standby list, and leave it, each
confirmed by a code mailed to the volunteer's address (docs/mail.md,
sections 4 and 5; docs/moderator.md, Standby players)."""

from email.utils import parseaddr

from turnproc.core.text import clean_name
from turnproc.intake.auth import confirmation_code, confirmation_matches
from turnproc.mail.commands.letter import IngestOutcome, Letter, Refused
from turnproc.mail.commands.syntax import Command
from turnproc.mail.headers import header
from turnproc.store import repository as repo
from turnproc.store.models import Game

# STANDBY game: NAME leave (or remove, off, withdraw): off the standby list.
STANDBY_LEAVE_WORDS = frozenset({"leave", "remove", "off", "withdraw"})


def standby(letter: Letter, command: Command) -> IngestOutcome:
    """STANDBY: the sender joins a game's standby list (anyone may; the
    moderator can take them off with `game standby --remove`), once the
    address is confirmed: the first STANDBY is answered with a line
    holding a code, and only that line sent back puts the sender on the
    list. A forged sender never sees the code, so forged STANDBY mail
    adds no one, and the answers it draws stay strangers' answers, under
    their caps (docs/mail.md, section 5)."""
    game = letter.game(command.fields["game"])
    if command.flags & STANDBY_LEAVE_WORDS:
        return _leave(letter, command, game)
    refusal = repo.standby_refusal(letter.session, game, letter.sender)
    if refusal:
        raise Refused(refusal)
    if not letter.known() and not letter.stranger_may_be_answered():
        return letter.settle("ignored", "not answered: the cap on answers to strangers")
    purpose = f"standby/{game.id}/{letter.sender}"
    key = repo.installation_key(letter.session)
    code = command.fields.get("code")
    if code is None:
        # The requests are what a forged sender can draw: at most
        # HELP_ANSWERS_PER_DAY STANDBY answers a day per address.
        if (ignored := letter.answered_too_often("standby")) is not None:
            return ignored
        line = f"STANDBY game: {game.name} code: {confirmation_code(key, purpose)}"
        letter.reply(
            f"[{game.name}] Confirm: the standby list",
            f"To join the standby list of {game.name}, send this line back as the first\n"
            f"line of a mail, from this address:\n\n  {line}\n\n"
            "If you did not ask to join, ignore this mail: nothing else will come.\n",
            game=game,
        )
        detail = f"STANDBY: {letter.sender} asked to confirm for {game.name}"
        return letter.settle("standby", detail, answered=True, game=game)
    if not confirmation_matches(key, purpose, code):
        raise Refused(
            "wrong confirmation code",
            "send the STANDBY line of the mail that asked you to confirm, as it is",
        )
    name = clean_name(parseaddr(header(letter.head, "From") or "")[0])
    waiting = len(repo.standbys(letter.session, game.id))
    repo.add_standby(letter.session, game.id, letter.sender, name, letter.received_at)
    repo.log_action(
        letter.session,
        game_id=game.id,
        turn=game.current_turn,
        action="standby_added",
        now=letter.received_at,
        details={"email": letter.sender, "by": "mail", "submission": letter.submission_id},
    )
    ahead = f" ({waiting} before you)" if waiting else ""
    reply = (
        f"OK: you are on the standby list of {game.name}{ahead}.\n\n"
        "When a player stops sending orders, the next volunteer on the list takes over\n"
        "the position as a turn ends, and gets a welcome mail with its report,\n"
        f"turnsheet and secret. To leave the list, send STANDBY game: {game.name} leave\n"
        "and then the line of the mail that asks you to confirm.\n"
    )
    letter.reply(f"[{game.name}] OK: you are on the standby list", reply, game=game)
    detail = f"STANDBY: {letter.sender} on the standby list of {game.name}"
    return letter.settle("standby", detail, answered=True, game=game)


def _leave(letter: Letter, command: Command, game: Game) -> IngestOutcome:
    """STANDBY ... leave: off the list, confirmed like joining. A From line
    is easy to forge, so the first leave is answered (to the volunteer's
    own address) with a line holding a code, and only that line sent back
    takes the volunteer off the list (docs/mail.md, section 5)."""
    waiting = [
        s for s in repo.standbys(letter.session, game.id) if s.email.lower() == letter.sender
    ]
    if not waiting:
        raise Refused(f"{letter.sender} is not waiting on the standby list of {game.name}")
    purpose = f"standby-leave/{game.id}/{letter.sender}"
    key = repo.installation_key(letter.session)
    code = command.fields.get("code")
    if code is None:
        # What a forged leave can draw: a question to the volunteer's own
        # address, at most HELP_ANSWERS_PER_DAY STANDBY answers a day.
        if (ignored := letter.answered_too_often("standby")) is not None:
            return ignored
        line = f"STANDBY game: {game.name} leave code: {confirmation_code(key, purpose)}"
        letter.reply(
            f"[{game.name}] Confirm: leaving the standby list",
            f"To leave the standby list of {game.name}, send this line back as the first\n"
            f"line of a mail, from this address:\n\n  {line}\n\n"
            "If you did not ask to leave, ignore this mail: you stay on the list.\n",
            game=game,
        )
        detail = f"STANDBY: {letter.sender} asked to confirm leaving {game.name}"
        return letter.settle("standby", detail, answered=True, game=game)
    if not confirmation_matches(key, purpose, code):
        raise Refused(
            "wrong confirmation code",
            "send the STANDBY line of the mail that asked you to confirm, as it is",
        )
    repo.remove_standby(letter.session, waiting[0])
    repo.log_action(
        letter.session,
        game_id=game.id,
        turn=game.current_turn,
        action="standby_removed",
        now=letter.received_at,
        details={"email": letter.sender, "by": "mail", "submission": letter.submission_id},
    )
    letter.reply(
        f"[{game.name}] OK: you are off the standby list",
        f"OK: you are off the standby list of {game.name}.\n",
        game=game,
    )
    detail = f"STANDBY: {letter.sender} off the standby list of {game.name}"
    return letter.settle("standby", detail, answered=True, game=game)
