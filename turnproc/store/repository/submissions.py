"""Submissions and the orders in force: the queries the turnsheet intake calls."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from turnproc.store import mapping
from turnproc.store.models import OrdersInForce, Submission
from turnproc.store.repository.games import refresh_all_in

# --- submissions (called by the turnsheet intake) ----------------------------


def submission_by_message_id(session: Session, message_id: str) -> Submission | None:
    return session.scalar(select(Submission).where(Submission.message_id == message_id))


def record_submission(
    session: Session,
    *,
    received_at: datetime,
    verdict: str,
    game_id: int | None = None,
    turn: int | None = None,
    position: int | None = None,
    message_id: str | None = None,
    sender: str = "",
    raw: bytes | None = None,
    text: str = "",
    receipt: str = "",
) -> Submission | None:
    """Store a received turnsheet; None (nothing stored) if its Message-ID was seen."""
    if message_id is not None and submission_by_message_id(session, message_id) is not None:
        return None
    row = Submission(
        game_id=game_id,
        turn=turn,
        position=position,
        message_id=message_id,
        sender=sender,
        received_at=received_at,
        raw=raw,
        text=text,
        verdict=verdict,
        receipt=receipt,
    )
    session.add(row)
    session.flush()
    return row


def update_submission(
    session: Session,
    submission_id: int,
    *,
    verdict: str,
    game_id: int | None = None,
    turn: int | None = None,
    position: int | None = None,
    sender: str | None = None,
    text: str | None = None,
    receipt: str | None = None,
) -> Submission | None:
    """Fill in a submission the mail intake stored raw on arrival (its Message-ID,
    raw bytes and arrival time stay as stored); None if there is no such row."""
    row = session.get(Submission, submission_id)
    if row is None:
        return None
    row.verdict = verdict
    row.game_id = game_id
    row.turn = turn
    row.position = position
    if sender is not None:
        row.sender = sender
    if text is not None:
        row.text = text
    if receipt is not None:
        row.receipt = receipt
    session.flush()
    return row


def set_receipt(session: Session, submission_id: int, verdict: str, receipt: str) -> None:
    session.execute(
        update(Submission)
        .where(Submission.id == submission_id)
        .values(verdict=verdict, receipt=receipt)
    )


def get_submission(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def pending_submissions(session: Session, received_before: datetime) -> Sequence[Submission]:
    """Messages stored on arrival but never given a verdict (the intake stopped
    between storing and answering), oldest first."""
    return session.scalars(
        select(Submission)
        .where(Submission.verdict == "received", Submission.received_at < received_before)
        .order_by(Submission.received_at, Submission.id)
    ).all()


def recent_verdicts(
    session: Session, *, sender: str, verdicts: Sequence[str], since: datetime
) -> int:
    """How many messages from `sender` got one of `verdicts` since `since` (the
    mail intake's limit on answers to one address)."""
    return int(
        session.scalar(
            select(func.count()).where(
                func.lower(Submission.sender) == sender.strip().lower(),
                Submission.verdict.in_(verdicts),
                Submission.received_at >= since,
            )
        )
        or 0
    )


def commands_this_turn(
    session: Session, game_id: int, turn: int, position: int, verdict: str
) -> int:
    """How many of a player's commands (verdict "press", "resend") were carried
    out in this turn (the mail intake's per-player caps)."""
    return int(
        session.scalar(
            select(func.count()).where(
                Submission.game_id == game_id,
                Submission.turn == turn,
                Submission.position == position,
                Submission.verdict == verdict,
            )
        )
        or 0
    )


def submissions(session: Session, game_id: int, turn: int) -> Sequence[Submission]:
    return session.scalars(
        select(Submission)
        .where(Submission.game_id == game_id, Submission.turn == turn)
        .order_by(Submission.received_at, Submission.id)
    ).all()


# --- orders in force (called by the turnsheet intake) ------------------------


def set_orders_in_force(
    session: Session,
    game_id: int,
    turn: int,
    orders: Any,
    now: datetime,
    submission_id: int | None = None,
    source: str | None = None,
) -> None:
    """Put `orders` in force for `orders.position`, replacing earlier ones."""
    session.execute(
        delete(OrdersInForce).where(
            OrdersInForce.game_id == game_id,
            OrdersInForce.turn == turn,
            OrdersInForce.position == orders.position,
        )
    )
    session.add(
        OrdersInForce(
            game_id=game_id,
            turn=turn,
            position=orders.position,
            submission_id=submission_id,
            orders=orders.model_dump_json(),
            source=source or orders.source,
            recorded_at=now,
        )
    )
    refresh_all_in(session, game_id, now)


def orders_in_force(
    session: Session, game_id: int, turn: int, include_computer: bool = False
) -> dict[int, Any]:
    """Orders in force for a turn by position; computer-made ones only if asked."""
    query = select(OrdersInForce).where(
        OrdersInForce.game_id == game_id, OrdersInForce.turn == turn
    )
    if not include_computer:
        query = query.where(OrdersInForce.source != "computer")
    return {
        row.position: mapping.orders_from_json(row.orders)
        for row in session.scalars(query.order_by(OrdersInForce.position))
    }


def last_player_orders(session: Session, game_id: int, position: int, before: int) -> Any | None:
    """The orders a player last sent for `position` for a turn before `before`."""
    row = session.scalar(
        select(OrdersInForce)
        .where(
            OrdersInForce.game_id == game_id,
            OrdersInForce.position == position,
            OrdersInForce.turn < before,
            OrdersInForce.source != "computer",
        )
        .order_by(OrdersInForce.turn.desc())
        .limit(1)
    )
    return None if row is None else mapping.orders_from_json(row.orders)


def orders_row(session: Session, game_id: int, turn: int, position: int) -> OrdersInForce | None:
    return session.scalar(
        select(OrdersInForce).where(
            OrdersInForce.game_id == game_id,
            OrdersInForce.turn == turn,
            OrdersInForce.position == position,
        )
    )


def positions_with_orders(session: Session, game_id: int, turn: int) -> set[int]:
    return set(
        session.scalars(
            select(OrdersInForce.position).where(
                OrdersInForce.game_id == game_id,
                OrdersInForce.turn == turn,
                OrdersInForce.source != "computer",
            )
        )
    )


# --- added for the turnsheet intake (turnproc/intake/submit.py) ---------------


def recent_refusals(
    session: Session,
    *,
    since: datetime,
    sender: str | None = None,
    game_id: int | None = None,
    position: int | None = None,
) -> list[datetime]:
    """When submissions were refused since `since`, from `sender` or for
    `position` of `game_id` (either matches): the intake's rate limit."""
    who = []
    if sender:
        who.append(func.lower(Submission.sender) == sender.strip().lower())
    if game_id is not None and position is not None:
        who.append((Submission.game_id == game_id) & (Submission.position == position))
    if not who:
        return []
    query = select(Submission.received_at).where(
        Submission.verdict == "refused", Submission.received_at >= since, or_(*who)
    )
    return list(session.scalars(query))
