"""RESEND: a player's latest report again, or turn T's, or before the first
turn the welcome mail (docs/mail.md, section 4)."""

from turnproc.mail.commands.letter import IngestOutcome, Letter, Refused, shown
from turnproc.mail.commands.syntax import Command
from turnproc.store import repository as repo
from turnproc.store.models import Game, OutboxMessage, Player

# Per player and turn: reports resent.
RESEND_PER_TURN = 3


def resend(letter: Letter, command: Command, game: Game, player: Player) -> IngestOutcome:
    """RESEND: the latest report (or turn T's) again, with its attachments."""
    wanted = command.fields.get("turn")
    if wanted is not None and not (wanted.isascii() and wanted.isdigit() and len(wanted) < 6):
        raise Refused(f"the turn {shown(wanted)} is not a number")
    turn = int(wanted) if wanted else game.current_turn - 1
    position = player.position
    letter.within_turn_cap("resend", game, position, RESEND_PER_TURN, "reports resent")
    report = repo.get_report(letter.session, game.id, turn, position) if turn >= 1 else None
    # A report's PDF may be kept by its digest only: the sender finds the
    # report (by game, turn and position, or the welcome's `report_id`)
    # and renders it again.
    if report is not None:
        subject = f"[{game.name}] Turn {turn} report (again): position {position}"
        # The outbox names the stored report (game, turn, position) and
        # `mail send` attaches its PDF: no copy of the PDF per RESEND.
        body, pdf = report.text, None
        data: str | None = report.json
        name = f"{game.name}-turn-{turn}-position-{position}.pdf"
        report_id: int | None = None
        has_pdf = pdf is not None or report.pdf_sha256 is not None
    else:
        welcome = _welcome(letter, game, position) if turn < 1 else None
        if welcome is None:
            raise Refused(f"{game.name} has no report of turn {turn} for player {position}")
        subject = f"{welcome.subject} (again)"
        body, pdf, data = welcome.body, welcome.pdf, welcome.json_attachment
        name = welcome.pdf_name or f"{game.name}-start.pdf"
        report_id = welcome.report_id
        has_pdf = welcome.pdf_name is not None
    letter.reply(
        subject,
        body,
        kind="report",
        game=game,
        position=position,
        turn=turn,
        pdf=pdf,
        pdf_name=name if has_pdf else None,
        json_attachment=data,
        report_id=report_id,
    )
    repo.log_action(
        letter.session,
        game_id=game.id,
        turn=game.current_turn,
        action="player_resend",
        now=letter.received_at,
        details={"position": position, "turn": turn, "submission": letter.submission_id},
    )
    what = f"turn {turn} report" if turn >= 1 else "welcome mail"
    detail = f"RESEND: {what} queued for player {position}"
    return letter.settle("resend", detail, answered=True, game=game, position=position)


def _welcome(letter: Letter, game: Game, position: int) -> OutboxMessage | None:
    for message in repo.outbox(letter.session, game.id):
        if message.kind == "welcome" and message.position == position:
            return message
    return None
