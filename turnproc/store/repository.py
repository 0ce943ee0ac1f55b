"""Every query the program makes, as functions of a `Session`.

No function here commits: the command or batch run that opened the session
owns the transaction, so a whole turn is stored or nothing is. Functions that
the intake and mail code call (submissions, orders in force, the outbox) are
grouped under their own headings below.
"""

import json
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.core.ledger import LedgerEntry
from turnproc.cr.events import Event, Rejection
from turnproc.cr.orders import PlayerOrders
from turnproc.store import mapping
from turnproc.store.models import (
    EventRow,
    Game,
    LedgerRow,
    ModeratorLog,
    OrdersInForce,
    OutboxMessage,
    Player,
    RejectionRow,
    Report,
    StandbyPlayer,
    Standing,
    Submission,
    TurnState,
)


class NotFound(TurnprocError):
    """A game, player or turn named on the command line does not exist."""


# --- games -------------------------------------------------------------------


def create_game(session: Session, **fields: Any) -> Game:
    if session.scalar(select(Game.id).where(Game.name == fields["name"])) is not None:
        raise TurnprocError(f"a game named {fields['name']!r} already exists")
    game = Game(**fields)
    session.add(game)
    session.flush()
    return game


def get_game(session: Session, key: str | int, lock: bool = False) -> Game:
    """A game by id or by name; `lock` holds its row until the transaction ends."""
    query = select(Game)
    if isinstance(key, int) or str(key).isdigit():
        query = query.where(Game.id == int(key))
    else:
        query = query.where(Game.name == key)
    if lock:
        query = query.with_for_update()
    game = session.scalar(query)
    if game is None:
        raise NotFound(f"no game {key!r} (see `turnproc game list`)")
    return game


def list_games(session: Session) -> Sequence[Game]:
    return session.scalars(select(Game).order_by(Game.id)).all()


def active_games_with_deadline(session: Session) -> Sequence[Game]:
    return session.scalars(
        select(Game)
        .where(Game.status == "active", Game.deadline.is_not(None))
        .order_by(Game.deadline, Game.id)
    ).all()


def claim_game(
    session: Session, game_id: int, turn: int, worker: str, now: datetime
) -> Game | None:
    """Lock game `game_id` if no other worker holds it and it is still at `turn`.

    PostgreSQL: `FOR UPDATE SKIP LOCKED`, so concurrent workers pass over a
    game another has claimed; the lock lasts until this transaction ends.
    """
    game = session.scalar(
        select(Game)
        .where(Game.id == game_id, Game.current_turn == turn, Game.status == "active")
        .with_for_update(skip_locked=True)
    )
    if game is not None:
        game.claimed_by = worker
        game.claimed_at = now
    return game


def games_past_turn(session: Session, turns: dict[int, int]) -> int:
    """How many of the games `turns` (game id -> turn) have moved past that turn."""
    rows = session.execute(select(Game.id, Game.current_turn).where(Game.id.in_(list(turns)))).all()
    return sum(1 for game_id, current in rows if current > turns[game_id])


# --- players -----------------------------------------------------------------


def add_player(session: Session, **fields: Any) -> Player:
    player = Player(**fields)
    session.add(player)
    return player


def players(session: Session, game_id: int) -> Sequence[Player]:
    return session.scalars(
        select(Player).where(Player.game_id == game_id).order_by(Player.position)
    ).all()


def get_player(session: Session, game_id: int, position: int) -> Player:
    player = session.scalar(
        select(Player).where(Player.game_id == game_id, Player.position == position)
    )
    if player is None:
        raise NotFound(f"game {game_id} has no position {position}")
    return player


def players_by_email(session: Session, email: str) -> Sequence[Player]:
    """Every position, in any game, registered to `email` (case-insensitive)."""
    return session.scalars(
        select(Player)
        .where(func.lower(Player.email) == email.strip().lower())
        .order_by(Player.game_id, Player.position)
    ).all()


def player_by_email(session: Session, game_id: int, email: str) -> Player | None:
    return session.scalar(
        select(Player).where(
            Player.game_id == game_id, func.lower(Player.email) == email.strip().lower()
        )
    )


# --- turn states -------------------------------------------------------------


def add_turn_state(
    session: Session, game_id: int, turn: int, state_json: str, version: str, now: datetime
) -> None:
    session.add(
        TurnState(
            game_id=game_id,
            turn=turn,
            state=state_json,
            sha256=mapping.sha256(state_json),
            program_version=version,
            processed_at=now,
        )
    )


def replace_turn_state(session: Session, game_id: int, turn: int, state_json: str) -> None:
    session.execute(
        update(TurnState)
        .where(TurnState.game_id == game_id, TurnState.turn == turn)
        .values(state=state_json, sha256=mapping.sha256(state_json))
    )


def turn_state(session: Session, game_id: int, turn: int) -> TurnState:
    row = session.scalar(
        select(TurnState).where(TurnState.game_id == game_id, TurnState.turn == turn)
    )
    if row is None:
        raise NotFound(f"game {game_id} has no stored turn {turn}")
    return row


def stored_turns(session: Session, game_id: int) -> list[int]:
    return list(
        session.scalars(
            select(TurnState.turn).where(TurnState.game_id == game_id).order_by(TurnState.turn)
        )
    )


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
    orders: PlayerOrders,
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
    session.flush()


def orders_in_force(
    session: Session, game_id: int, turn: int, include_computer: bool = False
) -> dict[int, PlayerOrders]:
    """Orders in force for a turn by position; computer-made ones only if asked."""
    query = select(OrdersInForce).where(
        OrdersInForce.game_id == game_id, OrdersInForce.turn == turn
    )
    if not include_computer:
        query = query.where(OrdersInForce.source != "computer")
    return {
        row.position: PlayerOrders.model_validate_json(row.orders)
        for row in session.scalars(query.order_by(OrdersInForce.position))
    }


def last_player_orders(
    session: Session, game_id: int, position: int, before: int
) -> PlayerOrders | None:
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
    return None if row is None else PlayerOrders.model_validate_json(row.orders)


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


# --- what a turn produced ----------------------------------------------------


def _insert(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    """Many rows in one statement (executemany), not one ORM object each."""
    if rows:
        session.execute(insert(model), rows)


def add_computer_orders(
    session: Session, game_id: int, turn: int, orders: Iterable[PlayerOrders], now: datetime
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
    session: Session, game_id: int, turn: int, events: Iterable[Event], origin: str
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


def events(session: Session, game_id: int, turn: int, origin: str | None = None) -> list[Event]:
    """The events of a turn in stored order (moderator adjustments first)."""
    query = select(EventRow.data).where(EventRow.game_id == game_id, EventRow.turn == turn)
    if origin is not None:
        query = query.where(EventRow.origin == origin)
    return [mapping.event_from_data(data) for data in session.scalars(query.order_by(EventRow.seq))]


def add_rejections(
    session: Session, game_id: int, turn: int, rejections: Iterable[Rejection]
) -> None:
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


def rejections(session: Session, game_id: int, turn: int) -> list[Rejection]:
    query = (
        select(RejectionRow.data)
        .where(RejectionRow.game_id == game_id, RejectionRow.turn == turn)
        .order_by(RejectionRow.seq)
    )
    return [mapping.rejection_from_data(data) for data in session.scalars(query)]


def add_ledger(
    session: Session, game_id: int, turn: int, entries: Iterable[LedgerEntry], origin: str
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
) -> list[LedgerEntry]:
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


def add_report(
    session: Session,
    game_id: int,
    turn: int,
    position: int,
    text: str,
    pdf: bytes | None,
    json_text: str,
) -> None:
    session.add(
        Report(game_id=game_id, turn=turn, position=position, text=text, pdf=pdf, json=json_text)
    )


def get_report(session: Session, game_id: int, turn: int, position: int) -> Report | None:
    return session.scalar(
        select(Report).where(
            Report.game_id == game_id, Report.turn == turn, Report.position == position
        )
    )


def report_count(session: Session, game_id: int, turn: int) -> int:
    return int(
        session.scalar(select(func.count()).where(Report.game_id == game_id, Report.turn == turn))
        or 0
    )


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


# --- outbox (called by the mail sender) --------------------------------------


def queue_mail(
    session: Session,
    *,
    key: str,
    kind: str,
    to_address: str,
    subject: str,
    body: str,
    now: datetime,
    game_id: int | None = None,
    turn: int | None = None,
    position: int | None = None,
    pdf: bytes | None = None,
    pdf_name: str | None = None,
    json_attachment: str | None = None,
    in_reply_to: str | None = None,
) -> OutboxMessage:
    """Queue a message once per idempotency `key`: a key seen before returns the
    existing message (requeued if it had been cancelled, never sent twice)."""
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.idempotency_key == key))
    if existing is not None:
        if existing.status == "cancelled":
            existing.status = "queued"
            existing.next_attempt_at = now
        return existing
    message = OutboxMessage(
        idempotency_key=key,
        game_id=game_id,
        turn=turn,
        position=position,
        kind=kind,
        to_address=to_address,
        subject=subject,
        body=body,
        pdf=pdf,
        pdf_name=pdf_name,
        json_attachment=json_attachment,
        in_reply_to=in_reply_to,
        status="queued",
        attempts=0,
        created_at=now,
        next_attempt_at=now,
    )
    try:
        # A concurrent transaction may queue the same key first (two workers
        # sending the same reminder): keep theirs, not an error.
        with session.begin_nested():
            session.add(message)
            session.flush()
    except IntegrityError:
        return session.scalars(
            select(OutboxMessage).where(OutboxMessage.idempotency_key == key)
        ).one()
    return message


def due_mail(session: Session, now: datetime) -> Sequence[int]:
    """The outbox numbers of messages due to be sent, oldest first. Nothing is
    claimed here: `mark_in_flight` claims each one just before its DATA."""
    return session.scalars(
        select(OutboxMessage.id)
        .where(
            OutboxMessage.status.in_(("queued", "failed")),
            (OutboxMessage.next_attempt_at.is_(None)) | (OutboxMessage.next_attempt_at <= now),
        )
        .order_by(OutboxMessage.id)
    ).all()


def mark_in_flight(session: Session, message_id: int, sender: str, now: datetime) -> bool:
    """Claim a message for `sender` (host:pid) before the server is given its
    text; False when another sender has claimed it or it is no longer due.
    Commit before DATA: a message left "sending" may or may not have arrived."""
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status.in_(("queued", "failed")),
        )
        .values(status="sending", sending_by=sender, next_attempt_at=now)
    )
    return cast("CursorResult[Any]", result).rowcount == 1


def release_in_flight(session: Session, message_id: int, sender: str) -> None:
    """Undo `mark_in_flight`: the server refused the message before it had the
    whole text, so it cannot have accepted it."""
    session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status == "sending",
            OutboxMessage.sending_by == sender,
        )
        .values(status="queued", sending_by=None)
    )


def mark_sent(session: Session, message_id: int, now: datetime) -> None:
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id)
        .values(
            status="sent",
            sent_at=now,
            last_error=None,
            sending_by=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )


def mark_failed(session: Session, message_id: int, error: str, retry_at: datetime | None) -> None:
    """A failed attempt: retried at `retry_at`, or given up ("dead") when None."""
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id)
        .values(
            status="failed" if retry_at is not None else "dead",
            last_error=error,
            next_attempt_at=retry_at,
            sending_by=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )


def mark_ambiguous(session: Session, message_id: int, error: str) -> None:
    """The message was in flight when the connection or its sender died: it may
    or may not have arrived, so it waits for the moderator (`requeue_mail`)."""
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id, OutboxMessage.status == "sending")
        .values(
            status="ambiguous",
            last_error=error,
            next_attempt_at=None,
            sending_by=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )


def in_flight_mail(session: Session) -> Sequence[OutboxMessage]:
    return session.scalars(
        select(OutboxMessage).where(OutboxMessage.status == "sending").order_by(OutboxMessage.id)
    ).all()


def requeue_mail(
    session: Session, now: datetime, statuses: Sequence[str], ids: Sequence[int] = ()
) -> list[tuple[OutboxMessage, str]]:
    """Put messages of the given statuses (all, or those numbered `ids`) back in
    the queue with their attempts reset; returns each with its former status."""
    query = select(OutboxMessage).where(OutboxMessage.status.in_(statuses))
    if ids:
        query = query.where(OutboxMessage.id.in_(ids))
    requeued = []
    for row in session.scalars(query.order_by(OutboxMessage.id)).all():
        requeued.append((row, row.status))
        row.status = "queued"
        row.attempts = 0
        row.next_attempt_at = now
        row.sending_by = None
    return requeued


def outbox_message(session: Session, message_id: int) -> OutboxMessage | None:
    return session.get(OutboxMessage, message_id)


def outbox(
    session: Session, game_id: int | None = None, status: str | None = None
) -> Sequence[OutboxMessage]:
    query = select(OutboxMessage)
    if game_id is not None:
        query = query.where(OutboxMessage.game_id == game_id)
    if status is not None:
        query = query.where(OutboxMessage.status == status)
    return session.scalars(query.order_by(OutboxMessage.id)).all()


def mail_exists(session: Session, key: str) -> bool:
    return (
        session.scalar(select(OutboxMessage.id).where(OutboxMessage.idempotency_key == key))
        is not None
    )


# --- the moderator's log -----------------------------------------------------


def log_action(
    session: Session,
    *,
    action: str,
    now: datetime,
    game_id: int | None = None,
    turn: int | None = None,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> None:
    session.add(
        ModeratorLog(
            game_id=game_id,
            turn=turn,
            action=action,
            reason=reason,
            details=json.dumps(details or {}, sort_keys=True, ensure_ascii=False),
            at=now,
        )
    )


def recent_missed_counts(session: Session, game_id: int, turns: int) -> list[int]:
    """How many human players missed each of the game's last `turns` turn runs."""
    rows = session.scalars(
        select(ModeratorLog.details)
        .where(ModeratorLog.game_id == game_id, ModeratorLog.action == "turn_run")
        .order_by(ModeratorLog.id.desc())
        .limit(turns)
    ).all()
    return [len(json.loads(details).get("missed", [])) for details in rows]


def last_log_entry(session: Session, game_id: int) -> ModeratorLog | None:
    return session.scalar(
        select(ModeratorLog)
        .where(ModeratorLog.game_id == game_id)
        .order_by(ModeratorLog.id.desc())
        .limit(1)
    )


def log_entries(session: Session, game_id: int) -> Sequence[ModeratorLog]:
    return session.scalars(
        select(ModeratorLog).where(ModeratorLog.game_id == game_id).order_by(ModeratorLog.id)
    ).all()


# --- standby players ------------------------------------------------------------


def add_standby(
    session: Session, game_id: int, email: str, real_name: str, now: datetime
) -> StandbyPlayer:
    standby = StandbyPlayer(game_id=game_id, email=email, real_name=real_name, added_at=now)
    session.add(standby)
    session.flush()
    return standby


def standby_refusal(session: Session, game: Game, email: str) -> str:
    """Why `email` cannot join the standby list of `game`, or "" if it can."""
    if game.status == "ended":  # a paused game may still need them when it resumes
        return f"{game.name} has ended; it needs no standby players"
    if any(s.email.lower() == email.lower() for s in standbys(session, game.id)):
        return f"{email} is already on the standby list of {game.name}"
    if any((p.email or "").lower() == email.lower() for p in players(session, game.id)):
        return f"{email} already plays a position in {game.name}"
    return ""


def standbys(session: Session, game_id: int, waiting: bool = True) -> Sequence[StandbyPlayer]:
    """The game's standby players, first come first served; `waiting`: only
    those who have not taken a position yet."""
    query = select(StandbyPlayer).where(StandbyPlayer.game_id == game_id)
    if waiting:
        query = query.where(StandbyPlayer.position.is_(None))
    return session.scalars(query.order_by(StandbyPlayer.added_at, StandbyPlayer.id)).all()


def remove_standby(session: Session, standby: StandbyPlayer) -> None:
    session.delete(standby)
    session.flush()


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


# --- 11.3 records over all games ----------------------------------------------


def final_states_of_ended_games(session: Session) -> list[str]:
    """The last stored state (engine JSON) of every ended game, in the order
    the games ended."""
    last = (
        select(TurnState.game_id, func.max(TurnState.turn).label("turn"))
        .group_by(TurnState.game_id)
        .subquery()
    )
    rows = session.execute(
        select(TurnState.state)
        .join(Game, Game.id == TurnState.game_id)
        .join(last, (last.c.game_id == TurnState.game_id) & (last.c.turn == TurnState.turn))
        .where(Game.status == "ended")
        .order_by(TurnState.processed_at, TurnState.game_id)
    )
    return [state for (state,) in rows]


# --- the web pages (turnproc/web) ------------------------------------------------


def standings_history(session: Session, game_id: int) -> Sequence[Standing]:
    """Every stored standing of a game, by turn and position (the web's charts)."""
    return session.scalars(
        select(Standing)
        .where(Standing.game_id == game_id)
        .order_by(Standing.turn, Standing.position)
    ).all()


def turn_digests(session: Session, game_id: int) -> dict[int, str]:
    """Each stored turn's state digest: what a cached page of that turn is keyed by."""
    rows = session.execute(
        select(TurnState.turn, TurnState.sha256).where(TurnState.game_id == game_id)
    )
    return {turn: digest for turn, digest in rows}


def public_events_between(
    session: Session, game_id: int, first: int, last: int, leave_out: Collection[str] = ()
) -> dict[int, list[Event]]:
    """The events of turns `first` to `last` that are not private, less the
    kinds `leave_out`, by turn, in stored order (the web's news pages)."""
    rows = session.execute(
        select(EventRow.turn, EventRow.data)
        .where(
            EventRow.game_id == game_id,
            EventRow.turn >= first,
            EventRow.turn <= last,
            EventRow.visibility != "private",
            EventRow.kind.not_in(list(leave_out)),
        )
        .order_by(EventRow.turn, EventRow.seq)
    )
    found: dict[int, list[Event]] = {}
    for number, data in rows:
        found.setdefault(number, []).append(mapping.event_from_data(data))
    return found


def report_turns(session: Session, game_id: int, position: int) -> list[int]:
    """The turns of which a position has a stored report, oldest first."""
    return list(
        session.scalars(
            select(Report.turn)
            .where(Report.game_id == game_id, Report.position == position)
            .order_by(Report.turn)
        )
    )
