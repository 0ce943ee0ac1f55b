"""Each position's report of a turn, and its PDF until the mail carrying it
has gone."""

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from turnproc.store.models import OutboxMessage, Report, pack
from turnproc.store.repository.outbox import _changed


def add_report(
    session: Session,
    game_id: int,
    turn: int,
    position: int,
    text: str,
    pdf: bytes | None,
    json_text: str,
) -> None:
    """One report with its PDF stored as given (reports of the batch go in
    through `add_reports`, which stores the PDF's digest only)."""
    session.add(
        Report(
            game_id=game_id,
            turn=turn,
            position=position,
            text_z=pack(text),
            json_z=pack(json_text),
            pdf=pdf,
            pdf_sha256=None if pdf is None else hashlib.sha256(pdf).hexdigest(),
        )
    )


def add_reports(
    session: Session,
    game_id: int,
    turn: int,
    reports: dict[int, tuple[bytes, bytes, bytes | None, str | None]],
    deadline: str,
) -> dict[int, int]:
    """A turn's reports (position -> text and JSON deflated by `pack`, the PDF
    or None, the PDF's SHA-256) in one statement. A PDF given is kept until
    the mail carrying it is sent (`drop_pdf_once_mailed`); after that, or when none
    is given, the report keeps the digest only and is rendered again from the
    stored facts and `deadline` when mailed again. Returns the report ids by
    position."""
    rows = [
        {
            "game_id": game_id,
            "turn": turn,
            "position": position,
            "text_z": text_z,
            "json_z": json_z,
            "pdf": pdf,
            "pdf_sha256": pdf_sha256,
            "deadline": deadline,
        }
        for position, (text_z, json_z, pdf, pdf_sha256) in sorted(reports.items())
    ]
    if not rows:
        return {}
    result = session.execute(
        insert(Report).returning(Report.position, Report.id, sort_by_parameter_order=True), rows
    )
    return {position: report_id for position, report_id in result.all()}


def _waiting_mail(report_id: Any) -> Any:
    """Whether a message still to be sent carries the report: queued, failed,
    in flight, ambiguous or given up (the moderator may requeue those two)."""
    return (
        select(OutboxMessage.id)
        .where(
            OutboxMessage.report_id == report_id,
            OutboxMessage.status.in_(("queued", "failed", "sending", "ambiguous", "dead")),
        )
        .exists()
    )


def drop_pdf_once_mailed(session: Session, report_id: int) -> bool:
    """A report's PDF bytes dropped (its digest kept) once no message still
    to be sent carries it. Returns whether bytes were dropped."""
    result = session.execute(
        update(Report)
        .where(Report.id == report_id, Report.pdf.is_not(None), ~_waiting_mail(Report.id))
        .values(pdf=None)
    )
    return _changed(result)


def drop_pdfs_not_mailed(session: Session, game_id: int, turn: int) -> None:
    """The PDF bytes of a turn's reports that no message waits to carry (mail
    not queued because the player has that very report already, or
    cancelled) dropped, their digests kept."""
    session.flush()
    session.execute(
        update(Report)
        .where(
            Report.game_id == game_id,
            Report.turn == turn,
            Report.pdf.is_not(None),
            ~_waiting_mail(Report.id),
        )
        .values(pdf=None)
        .execution_options(synchronize_session=False)
    )


def get_report(session: Session, game_id: int, turn: int, position: int) -> Report | None:
    return session.scalar(
        select(Report).where(
            Report.game_id == game_id, Report.turn == turn, Report.position == position
        )
    )


def get_report_by_id(session: Session, report_id: int) -> Report | None:
    return session.get(Report, report_id)


def reports_waiting_in_outbox(session: Session, game_id: int, turn: int) -> Sequence[Report]:
    """The reports of a game's turn that messages still to be sent carry."""
    return session.scalars(
        select(Report)
        .join(OutboxMessage, OutboxMessage.report_id == Report.id)
        .where(
            Report.game_id == game_id,
            Report.turn == turn,
            OutboxMessage.status.in_(("queued", "failed")),
        )
        .distinct()
        .order_by(Report.id)
    ).all()


def report_count(session: Session, game_id: int, turn: int) -> int:
    return int(
        session.scalar(select(func.count()).where(Report.game_id == game_id, Report.turn == turn))
        or 0
    )
