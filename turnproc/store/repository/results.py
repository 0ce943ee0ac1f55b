"""What a turn produced (orders, events, rejections, ledger, standings), and
forgetting it to roll a game back."""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from turnproc.store import mapping
from turnproc.store.models import (
    EventRow,
    LedgerRow,
    OrdersInForce,
    OutboxMessage,
    RejectionRow,
    Report,
    Standing,
    TurnState,
)

if TYPE_CHECKING:  # stored rows load into it in mapping, on use
    from turnproc.core.ledger import LedgerEntry

# --- what a turn produced ----------------------------------------------------


def _insert(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    """Many rows in one statement (executemany), not one ORM object each: a
    plain table insert on the session's connection, in its transaction (half
    the CPU of the ORM's bulk insert for a turn's events and ledger), after
    flushing what the session holds, so rows go in after those they refer to."""
    if rows:
        session.flush()
        session.connection().execute(model.__table__.insert(), rows)


def add_computer_orders(
    session: Session, game_id: int, turn: int, orders: Iterable[Any], now: datetime
) -> None:
    """Record the orders the computer gave for positions that had none in force."""
    _insert(
        session,
        OrdersInForce,
        [
            {
                "game_id": game_id,
                "turn": turn,
                "position": player.position,
                "submission_id": None,
                "orders": player.model_dump_json(),
                "source": "computer",
                "recorded_at": now,
            }
            for player in orders
        ],
    )


def _next_seq(session: Session, model: Any, game_id: int, turn: int) -> int:
    last = session.scalar(
        select(func.max(model.seq)).where(model.game_id == game_id, model.turn == turn)
    )
    return 0 if last is None else int(last) + 1


def add_events(
    session: Session, game_id: int, turn: int, events: Iterable[Any], origin: str
) -> None:
    seq = _next_seq(session, EventRow, game_id, turn)
    _insert(
        session,
        EventRow,
        [
            {
                "game_id": game_id,
                "turn": turn,
                "seq": seq + i,
                "origin": origin,
                "kind": event.kind,
                "position": event.position,
                "railroad": event.railroad,
                "visibility": event.visibility,
                "data": mapping.event_data(event),
            }
            for i, event in enumerate(events)
        ],
    )


# What `mapping.event_from_row` makes an event of.
_EVENT_FIELDS = (
    EventRow.data,
    EventRow.kind,
    EventRow.visibility,
    EventRow.position,
    EventRow.railroad,
)


def events(session: Session, game_id: int, turn: int, origin: str | None = None) -> list[Any]:
    """The events of a turn in stored order (moderator adjustments first)."""
    query = select(*_EVENT_FIELDS).where(EventRow.game_id == game_id, EventRow.turn == turn)
    if origin is not None:
        query = query.where(EventRow.origin == origin)
    return [mapping.event_from_row(*row) for row in session.execute(query.order_by(EventRow.seq))]


def add_rejections(session: Session, game_id: int, turn: int, rejections: Iterable[Any]) -> None:
    seq = _next_seq(session, RejectionRow, game_id, turn)
    _insert(
        session,
        RejectionRow,
        [
            {
                "game_id": game_id,
                "turn": turn,
                "seq": seq + i,
                "position": rejection.position,
                "order_index": rejection.order_index,
                "code": rejection.code,
                "data": mapping.rejection_data(rejection),
            }
            for i, rejection in enumerate(rejections)
        ],
    )


def rejections(session: Session, game_id: int, turn: int) -> list[Any]:
    query = (
        select(RejectionRow.data)
        .where(RejectionRow.game_id == game_id, RejectionRow.turn == turn)
        .order_by(RejectionRow.seq)
    )
    return [mapping.rejection_from_data(data) for data in session.scalars(query)]


def add_ledger(
    session: Session, game_id: int, turn: int, entries: "Iterable[LedgerEntry]", origin: str
) -> None:
    seq = _next_seq(session, LedgerRow, game_id, turn)
    _insert(
        session,
        LedgerRow,
        [
            {
                "game_id": game_id,
                "turn": turn,
                "seq": seq + i,
                "origin": origin,
                "src": entry.src,
                "dst": entry.dst,
                "amount": entry.amount,
                "reason": entry.reason,
                "ref": entry.ref,
            }
            for i, entry in enumerate(entries)
        ],
    )


def ledger(
    session: Session, game_id: int, turn: int, origin: str | None = None
) -> "list[LedgerEntry]":
    query = select(LedgerRow).where(LedgerRow.game_id == game_id, LedgerRow.turn == turn)
    if origin is not None:
        query = query.where(LedgerRow.origin == origin)
    return [
        mapping.ledger_entry(row.src, row.dst, row.amount, row.reason, row.ref)
        for row in session.scalars(query.order_by(LedgerRow.seq))
    ]


def replace_standings(
    session: Session, game_id: int, turn: int, rows: Iterable[dict[str, Any]]
) -> None:
    session.execute(delete(Standing).where(Standing.game_id == game_id, Standing.turn == turn))
    _insert(session, Standing, [{"game_id": game_id, "turn": turn, **row} for row in rows])


def standings(session: Session, game_id: int, turn: int) -> Sequence[Standing]:
    """Positions by net worth, highest first (the player summary's order, 9.2)."""
    return session.scalars(
        select(Standing)
        .where(Standing.game_id == game_id, Standing.turn == turn)
        .order_by(Standing.net_worth.desc(), Standing.position)
    ).all()


# --- rollback ----------------------------------------------------------------


def forget_turns_from(session: Session, game_id: int, turn: int) -> None:
    """Remove what turns `turn` and later produced, so the game stands at the start
    of `turn` again. Submissions, players' orders, the moderator's adjustments
    to `turn` and mail already sent are kept; unsent mail of those turns is
    cancelled."""
    session.execute(delete(TurnState).where(TurnState.game_id == game_id, TurnState.turn > turn))
    session.execute(delete(Standing).where(Standing.game_id == game_id, Standing.turn > turn))
    for model in (EventRow, LedgerRow):
        session.execute(
            delete(model).where(
                model.game_id == game_id,
                (model.turn > turn) | ((model.turn == turn) & (model.origin == "turn")),
            )
        )
    session.execute(
        delete(RejectionRow).where(RejectionRow.game_id == game_id, RejectionRow.turn >= turn)
    )
    session.execute(delete(Report).where(Report.game_id == game_id, Report.turn >= turn))
    session.execute(
        delete(OrdersInForce).where(
            OrdersInForce.game_id == game_id,
            OrdersInForce.turn >= turn,
            OrdersInForce.source == "computer",
        )
    )
    session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.game_id == game_id,
            OutboxMessage.turn >= turn,
            OutboxMessage.kind.in_(("report", "reminder")),
            OutboxMessage.status.in_(("queued", "failed")),
        )
        .values(status="cancelled")
    )
