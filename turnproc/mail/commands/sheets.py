"""Turnsheets: a simultaneous game's sheet goes to the intake
(turnproc/intake/submit.py) and its receipt is queued; a sequential (18xx)
game's sheet is authenticated like a command and its orders applied at once
(turnproc/sequential/; docs/mail.md, section 4)."""

from turnproc.core.sheet_header import order_lines, read_header
from turnproc.families.registry import sequential_family
from turnproc.mail.alerts import refusal_digest, tell_moderator
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
    delayed = outcome.verdict == "delayed"
    if answered:
        letter.reply(
            outcome.receipt.subject,
            outcome.receipt.text,
            to=outcome.reply_to,
            game=game,
            position=outcome.position,
            turn=outcome.turn,
            # Its own key: the receipt of the same message applied by `mail
            # retry` after a rollback is a new answer, not this one again.
            key=f"receipt/delayed/{letter.submission_id}" if delayed else None,
        )
    alert = None
    if delayed and game is not None:
        alert = _tell_of_delay(letter, game.name, outcome.turn, outcome.position)
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


def _tell_of_delay(letter: Letter, game: str, turn: int | None, position: int | None) -> str:
    """The moderator hears once of a sheet that came in time and was read too
    late (the alert's key is the submission's), with the way to apply it."""
    number = letter.submission_id
    return tell_moderator(
        letter.session,
        letter.moderator,
        key=f"alert/delayed/{number}",
        subject=f"turnproc: [{game}] turnsheet #{number} arrived in time for turn {turn} "
        "but was read after the turn ran",
        body=(
            f"Submission #{number}, the turnsheet of player {position} for turn {turn} of "
            f"{game}, arrived at {letter.received_at:%Y-%m-%d %H:%M:%S} UTC, before the "
            "turn closed, but reached the program only after the turn had been resolved "
            "(the mail server handed it over late). The turn ran without it. It is kept "
            "with verdict `delayed`; the player was told.\n\nTo apply it: "
            f"`turnproc turn rollback {game} --to {turn} --reason ...`, then "
            f"`turnproc mail retry {number}`, then `turnproc turn run {game} --force`. "
            "To leave the turn as it ran, do nothing. `turnproc turn run --due --grace "
            "10m` waits for such mail before running a turn (docs/mail.md).\n"
        ),
        now=letter.received_at,
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
