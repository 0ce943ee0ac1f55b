"""Turnsheets: a simultaneous game's sheet goes to the intake
(turnproc/intake/submit.py) and its receipt is queued; a sequential (18xx)
game's sheet is authenticated like a command and its orders applied at once
(turnproc/sequential/; docs/mail.md, section 4)."""

from turnproc.core.sheet_header import order_lines, read_header
from turnproc.families.registry import sequential_family
from turnproc.mail.alerts import refusal_digest
from turnproc.mail.commands.letter import IngestOutcome, Letter, Refused
from turnproc.mail.commands.syntax import Command
from turnproc.store import repository as repo


def turnsheet(letter: Letter) -> IngestOutcome:
    """A simultaneous game's turnsheet, checked and stored by the intake; its
    receipt answered to the player (a stranger's within the cap on answers
    to strangers), repeated refusals reported to the moderator."""
    # The turnsheet's checks load the rules engine: imported for a sheet
    # alone, so a command or junk mail starts without it.
    from turnproc.intake.submit import submit_sheet

    outcome = submit_sheet(
        letter.session,
        None,
        letter.raw,
        None,
        letter.received_at,
        submission_id=letter.submission_id,
    )
    game = repo.get_game(letter.session, outcome.game_id) if outcome.game_id else None
    answered = bool(outcome.answer and outcome.reply_to)
    if answered and not repo.players_by_email(letter.session, outcome.reply_to or ""):
        answered = letter.stranger_may_be_answered()
    if answered:
        letter.reply(
            outcome.receipt.subject,
            outcome.receipt.text,
            to=outcome.reply_to,
            game=game,
            position=outcome.position,
            turn=outcome.turn,
        )
    alert = None
    if outcome.notify_moderator and letter.sender:
        alert = refusal_digest(
            letter.session,
            letter.moderator,
            letter.sender,
            letter.submission_id,
            outcome.receipt.subject,
            letter.received_at,
        )
    return IngestOutcome(
        origin=letter.origin,
        message_id=letter.message_id,
        submission_id=letter.submission_id,
        verdict=outcome.verdict,
        detail=outcome.receipt.subject,
        answered=answered,
        alert=alert,
    )


def sequential_move(letter: Letter, text: str) -> IngestOutcome | None:
    """A sheet naming a sequential game: authenticated like a command, its
    orders applied at once (turnproc/sequential/). None: not such a sheet."""
    header = read_header(text)
    if header is None:
        return None
    game = repo.find_game(letter.session, header.game)
    if game is None or sequential_family(game.scenario) is None:
        return None
    # Imported for a sequential game's sheet alone: the 18xx engine and
    # reports are not loaded for the other mail.
    from turnproc import sequential

    fields = {"game": game.name, "player": str(header.position), "secret": header.secret}
    try:
        _, player = letter.authenticate(Command("move", fields, set(), []))
    except Refused as refusal:
        return letter.refuse(refusal.reason, refusal.hint, answer_anyone=False)
    outcome = sequential.submit(
        letter.session,
        game,
        player,
        header.turn,
        "\n".join(order_lines(text)),
        letter.received_at,
        letter.submission_id,
    )
    if outcome.verdict == "refused":
        # The player himself, authenticated: always answered, with the
        # reason and his legal moves, and not counted toward the limits
        # on refusals, which are for strangers and floods (docs/mail.md).
        letter.reply(outcome.subject, outcome.text, game=game, position=player.position)
        return letter.settle(
            "rejected",
            outcome.subject + "\n" + outcome.text,
            answered=True,
            game=game,
            position=player.position,
        )
    letter.reply(outcome.subject, outcome.text, game=game, position=player.position)
    return letter.settle(
        outcome.verdict,
        outcome.subject + "\n" + outcome.text,
        answered=True,
        game=game,
        position=player.position,
    )
