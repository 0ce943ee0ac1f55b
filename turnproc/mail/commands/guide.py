"""HELP and RULES: the commands and the players' guide, and the rules as a
PDF, answered to anyone within the limits on answers (docs/mail.md,
sections 4 and 5). A player of an 18xx game gets his title's material."""

from turnproc.families.registry import sequential_family
from turnproc.mail.commands.letter import IngestOutcome, Letter
from turnproc.mail.commands.syntax import COMMANDS_HELP
from turnproc.playerdocs import player_doc, players_guide
from turnproc.store import repository as repo
from turnproc.store.models import Game

RULES_ANSWER = """\
The rules of the game, with their tables, and the players' guide to the
turnsheet are attached as a PDF. Mail HELP for the commands you can send.
"""

# RULES from an address no player registered and no standby player confirmed:
# no PDF to an address that may be forged.
STRANGER_RULES = """\
The rules of the game come as a PDF to the players of a game and to the
volunteers on a game's standby list (send STANDBY game: NAME, then the line
of the mail that asks you to confirm). Mail HELP for the commands you can
send.
"""

# HELP to an address no player registered: the commands, not the whole guide
# (about a kilobyte, so forged HELP mail buys little backscatter).
STRANGER_HELP = (
    COMMANDS_HELP
    + "\nThe full turnsheet guide comes with the welcome mail of a game, and with HELP\n"
    "sent from the address a game has registered for you.\n"
)


def answer_help(letter: Letter) -> IngestOutcome:
    """HELP: players get the commands and the turnsheet guide; an address
    no player registered gets the commands only (about 1 KB, no more
    than a HELP mail's own size many times over), within the global cap."""
    if (ignored := letter.answered_too_often("help")) is not None:
        return ignored
    title = _title(letter)
    if title is not None:
        from turnproc import sequential

        letter.reply(f"HELP: how to play {title} by mail", sequential.help_text(title), kind="help")
        return letter.settle(
            "help", f"HELP answered with the {title} order language", answered=True
        )
    if letter.registered():
        guide = players_guide(player_doc("turnsheet.md").read_text(encoding="utf-8"))
        letter.reply("HELP: how to play by mail", f"{COMMANDS_HELP}\n{guide}", kind="help")
        return letter.settle("help", "HELP answered with the turnsheet guide", answered=True)
    if not letter.stranger_may_be_answered():
        return letter.settle("ignored", "not answered: the cap on answers to strangers")
    letter.reply("HELP: how to play by mail", STRANGER_HELP, kind="help")
    return letter.settle("help", "HELP answered with the list of commands", answered=True)


def _title(letter: Letter) -> str | None:
    """The 18xx title of the newest game the sender plays, if that game is
    a sequential one: HELP and RULES answer with that title's material."""
    if not letter.sender:
        return None
    games = [
        g
        for g in (
            letter.session.get(Game, p.game_id)
            for p in repo.players_by_email(letter.session, letter.sender)
        )
        if g is not None
    ]
    if not games:
        return None
    newest = max([g for g in games if g.status == "active"] or games, key=lambda g: g.id)
    family = sequential_family(newest.scenario)
    return family.titles.get(newest.scenario) if family is not None else None


def answer_rules(letter: Letter) -> IngestOutcome:
    """RULES: the rules and the players' guide as a PDF (the sender
    attaches it to every mail of kind "rules"); limited like HELP. Only
    addresses shown to be real get the PDF (players, and standby players,
    who confirmed theirs): a stranger's RULES, which may be forged, is
    answered with a few lines, within the cap on answers to strangers."""
    if (ignored := letter.answered_too_often("rules")) is not None:
        return ignored
    if letter.known():
        title = _title(letter)
        if title is not None:
            from turnproc import sequential

            letter.reply(
                f"RULES: the rules of {title}",
                sequential.rules_answer(title),
                kind="rules",
                pdf_name=sequential.rules_pdf_name(title),  # the outbox attaches them
            )
            return letter.settle(
                "rules", f"RULES answered with the {title} rules PDF", answered=True
            )
        letter.reply("RULES: the rules of the game", RULES_ANSWER, kind="rules")
        return letter.settle("rules", "RULES answered with the rules PDF", answered=True)
    if not letter.stranger_may_be_answered():
        return letter.settle("ignored", "not answered: the cap on answers to strangers")
    letter.reply("RULES: the rules of the game", STRANGER_RULES, kind="help")
    return letter.settle("rules", "RULES answered without the PDF (a stranger)", answered=True)
