"""Every query the program makes, as functions of a `Session`.

No function here commits: the command or batch run that opened the session
owns the transaction, so a whole turn is stored or nothing is. Functions that
the intake and mail code call (submissions, orders in force, the outbox) are
grouped under their own headings below.
"""

import hashlib
import json
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    and_,
    case,
    delete,
    exists,
    func,
    insert,
    literal,
    not_,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.core.ledger import LedgerEntry
from turnproc.core.text import clean_name
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.store import mapping
from turnproc.store.models import (
    EventRow,
    Game,
    Installation,
    LedgerRow,
    ModeratorLog,
    OrdersInForce,
    OutboxMessage,
    Player,
    RecordRow,
    RejectionRow,
    Report,
    StandbyPlayer,
    Standing,
    Submission,
    TurnState,
    UTCDateTime,
    game_name_key,
    pack,
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
    if isinstance(key, int):
        query = query.where(Game.id == key)
    elif str(key).isascii() and str(key).isdigit():
        if len(str(key)) > 9:  # beyond any id, and beyond a database integer
            raise NotFound(f"no game {str(key)[:20]!r} (see `turnproc game list`)")
        query = query.where(Game.id == int(key))
    else:
        query = query.where(Game.name == str(key)[:80])
    if lock:
        query = query.with_for_update()
    game = session.scalar(query)
    if game is None:
        raise NotFound(f"no game {str(key)[:40]!r} (see `turnproc game list`)")
    return game


def find_game(session: Session, key: str, lock: bool = False) -> Game | None:
    """The game a player's mail names: by id, exact name, or name in any case
    (one indexed lookup, `games.name_key`); None if there is none. `lock`
    holds its row until the transaction ends."""
    try:
        return get_game(session, key, lock=lock)
    except NotFound:
        pass
    query = select(Game).where(Game.name_key == game_name_key(str(key))).order_by(Game.id).limit(1)
    if lock:
        query = query.with_for_update()
    return session.scalar(query)


def installation_key(session: Session) -> str:
    """The random key of this installation, made once by migration 0006."""
    row = session.get(Installation, 1)
    if row is None:
        raise TurnprocError("the database has no installation key: run `turnproc db upgrade`")
    return row.key


def list_games(session: Session) -> Sequence[Game]:
    return session.scalars(select(Game).order_by(Game.id)).all()


def _all_in(game_id: Any, turn: Any) -> Any:
    """SQL: every human player still in of `game_id` has orders of his own in
    force for `turn`, and there is at least one."""
    human = and_(Player.game_id == game_id, Player.human.is_(True), Player.standby.is_(False))
    has_orders = (
        select(OrdersInForce.id)
        .where(
            OrdersInForce.game_id == game_id,
            OrdersInForce.turn == turn,
            OrdersInForce.position == Player.position,
            OrdersInForce.source != "computer",
        )
        .correlate(Game, Player)
        .exists()
    )
    return and_(
        select(Player.id).where(human).correlate(Game).exists(),
        not_(select(Player.id).where(human, not_(has_orders)).correlate(Game).exists()),
    )


def refresh_all_in(session: Session, game_id: int, now: datetime) -> None:
    """Note whether every human player still in has orders in force for the
    game's current turn (`Game.all_in_at`); called wherever that can change."""
    session.flush()
    session.execute(
        update(Game)
        .where(Game.id == game_id)
        .values(
            all_in_at=case(
                (_all_in(Game.id, Game.current_turn), func.coalesce(Game.all_in_at, now)),
                else_=None,
            )
        )
        .execution_options(synchronize_session="fetch")
    )


def due_game_rows(session: Session, now: datetime) -> list[tuple[int, int, str]]:
    """(id, turn, name) of every active game whose turn is due, earliest
    deadline first, in one query of two index range scans: past its deadline
    plus grace, or, in a game that allows early runs, all its human players'
    orders in (`Game.all_in_at`, checked again against the orders)."""
    columns = (Game.id, Game.current_turn, Game.name, Game.deadline)
    past = select(*columns).where(Game.status == "active", Game.due_at <= now)
    early = select(*columns).where(
        Game.status == "active",
        Game.all_in_at.is_not(None),
        Game.due_at > now,
        Game.early_run.is_(True),
        _all_in(Game.id, Game.current_turn),
    )
    rows = sorted(session.execute(past.union_all(early)).all(), key=lambda row: (row[3], row[0]))
    return [(game_id, turn, name) for game_id, turn, name, _ in rows]


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


def deadlines_ahead(session: Session, now: datetime) -> list[tuple[int, str, int, datetime, str]]:
    """(id, name, turn, deadline, reminder hours) of every active game whose
    deadline is still ahead and that sends reminders."""
    rows = session.execute(
        select(Game.id, Game.name, Game.current_turn, Game.deadline, Game.reminder_hours).where(
            Game.status == "active", Game.due_at > now, Game.reminder_hours != ""
        )
    ).all()
    return [
        (game_id, name, turn, deadline, hours)
        for game_id, name, turn, deadline, hours in rows
        if deadline is not None and deadline > now
    ]


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


def humans_without_orders(session: Session, now: datetime, until: datetime) -> list[Any]:
    """The human players still in, with an address, of the active games whose
    deadline is between `now` and `until`, who have no orders of their own in
    force for their game's current turn, by game and position (rows of id,
    game_id, position, character, email). Two range scans: the players, then
    the orders."""
    window = and_(Game.status == "active", Game.deadline > now, Game.deadline <= until)
    players = session.execute(
        select(Player.id, Player.game_id, Player.position, Player.character, Player.email)
        .join(Game, Game.id == Player.game_id)
        .where(
            window,
            Player.human.is_(True),
            Player.standby.is_(False),
            Player.email.is_not(None),
            Player.email != "",
        )
        .order_by(Player.game_id, Player.position)
    ).all()
    sent = {
        (game_id, position)
        for game_id, position in session.execute(
            select(OrdersInForce.game_id, OrdersInForce.position)
            .join(Game, Game.id == OrdersInForce.game_id)
            .where(
                window,
                OrdersInForce.turn == Game.current_turn,
                OrdersInForce.source != "computer",
            )
        )
    }
    return [p for p in players if (p.game_id, p.position) not in sent]


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
    refresh_all_in(session, game_id, now)


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
    """Many rows in one statement (executemany), not one ORM object each: a
    plain table insert on the session's connection, in its transaction (half
    the CPU of the ORM's bulk insert for a turn's events and ledger), after
    flushing what the session holds, so rows go in after those they refer to."""
    if rows:
        session.flush()
        session.connection().execute(model.__table__.insert(), rows)


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


# What `mapping.event_from_row` makes an event of.
_EVENT_FIELDS = (
    EventRow.data,
    EventRow.kind,
    EventRow.visibility,
    EventRow.position,
    EventRow.railroad,
)


def events(session: Session, game_id: int, turn: int, origin: str | None = None) -> list[Event]:
    """The events of a turn in stored order (moderator adjustments first)."""
    query = select(*_EVENT_FIELDS).where(EventRow.game_id == game_id, EventRow.turn == turn)
    if origin is not None:
        query = query.where(EventRow.origin == origin)
    return [mapping.event_from_row(*row) for row in session.execute(query.order_by(EventRow.seq))]


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
    report_id: int | None = None,
) -> OutboxMessage:
    """Queue a message once per idempotency `key`: a key seen before returns the
    existing message (requeued if it had been cancelled, never sent twice).
    `report_id`: the message carries that stored report (see OutboxMessage)."""
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.idempotency_key == key))
    if existing is not None:
        if existing.status == "cancelled":
            existing.status = "queued"
            existing.next_attempt_at = now
            if report_id is not None:
                existing.report_id = report_id
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
        report_id=report_id,
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


def queue_mails(session: Session, messages: list[dict[str, Any]], now: datetime) -> None:
    """Many messages (OutboxMessage fields, `idempotency_key` included) in one
    statement, each at most once per key like `queue_mail`: a key queued
    before is left as it is, or requeued (with the new `report_id`) if it had
    been cancelled."""
    if not messages:
        return
    rows = [
        {
            "pdf": None,
            "pdf_name": None,
            "json_attachment": None,
            "in_reply_to": None,
            "report_id": None,
            **message,
            "status": "queued",
            "attempts": 0,
            "created_at": now,
            "next_attempt_at": now,
        }
        for message in messages
    ]
    # PostgreSQL and SQLite share the ON CONFLICT clause.
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = OutboxMessage.__table__
    stmt = dialect.insert(table)
    cancelled = table.c.status == "cancelled"
    stmt = stmt.on_conflict_do_update(
        index_elements=[table.c.idempotency_key],
        set_={
            "status": case((cancelled, "queued"), else_=table.c.status),
            "next_attempt_at": case(
                (cancelled, literal(now, UTCDateTime())), else_=table.c.next_attempt_at
            ),
            "report_id": case((cancelled, stmt.excluded.report_id), else_=table.c.report_id),
        },
    )
    session.execute(stmt, rows)


def due_mail(session: Session, now: datetime) -> Sequence[int]:
    """The outbox numbers of messages due to be sent, turn reports first, then
    oldest first. Nothing is
    claimed here: `mark_in_flight` claims each one just before its DATA."""
    return session.scalars(
        select(OutboxMessage.id)
        .where(
            OutboxMessage.status.in_(("queued", "failed")),
            (OutboxMessage.next_attempt_at.is_(None)) | (OutboxMessage.next_attempt_at <= now),
        )
        # Turn reports first: a flood of answers queued earlier never delays them.
        .order_by(case((OutboxMessage.kind == "report", 0), else_=1), OutboxMessage.id)
    ).all()


def mark_in_flight(session: Session, message_id: int, claim: str, now: datetime) -> bool:
    """Claim a message under `claim` (the sending run's own name, `host:pid/run`)
    before the server is given its text; False when another run has claimed
    it or it is no longer due. One UPDATE whose WHERE re-reads the status: on
    PostgreSQL a second claimer waits for the first's row lock and then finds
    the row "sending"; SQLite lets one writer in at a time. Commit before
    DATA: a message left "sending" may or may not have arrived."""
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status.in_(("queued", "failed")),
        )
        .values(status="sending", sending_by=claim, next_attempt_at=now)
    )
    return _changed(result)


def _changed(result: Any) -> bool:
    return cast("CursorResult[Any]", result).rowcount == 1


def _held_by(claim: str | None) -> Any:
    """The rows a sending run may still change: its own claim, or, when it had
    not claimed the message (a failure before DATA), a message nobody holds."""
    if claim is None:
        return OutboxMessage.status.in_(("queued", "failed"))
    return (OutboxMessage.status == "sending") & (OutboxMessage.sending_by == claim)


def release_in_flight(session: Session, message_id: int, claim: str) -> bool:
    """Undo `mark_in_flight`: the server refused the message before it had the
    whole text, so it cannot have accepted it. Only the run's own claim is
    given back, never another run's."""
    result = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id, _held_by(claim))
        .values(status="queued", sending_by=None)
    )
    return _changed(result)


def mark_sent(session: Session, message_id: int, now: datetime, claim: str | None = None) -> bool:
    """The server answered 250. With `claim`, only while the run holds the
    message: in flight, or declared ambiguous meanwhile by a run that took
    this one for dead (the server's answer settles it, and that attempt was
    counted then); False otherwise."""
    query = update(OutboxMessage).where(OutboxMessage.id == message_id)
    if claim is not None:
        query = query.where(
            OutboxMessage.status.in_(("sending", "ambiguous")), OutboxMessage.sending_by == claim
        )
    counted = OutboxMessage.status == "ambiguous"
    result = session.execute(
        query.values(
            status="sent",
            sent_at=now,
            last_error=None,
            sending_by=None,
            attempts=case((counted, OutboxMessage.attempts), else_=OutboxMessage.attempts + 1),
        )
    )
    return _changed(result)


def mark_failed(
    session: Session,
    message_id: int,
    error: str,
    retry_at: datetime | None,
    claim: str | None = None,
    *,
    unclaimed: bool = False,
) -> bool:
    """A failed attempt: retried at `retry_at`, or given up ("dead") when None.
    A sending run passes its `claim`, or `unclaimed=True` when it failed before
    claiming the message (then only a message nobody holds, still due, is
    marked: one another run has claimed or sent is left alone); False when
    nothing was marked. Without either, the moderator's call: marked as is."""
    query = update(OutboxMessage).where(OutboxMessage.id == message_id)
    if claim is not None or unclaimed:
        query = query.where(_held_by(claim))
    result = session.execute(
        query.values(
            status="failed" if retry_at is not None else "dead",
            last_error=error,
            next_attempt_at=retry_at,
            sending_by=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )
    return _changed(result)


def mark_ambiguous(session: Session, message_id: int, error: str, claim: str | None) -> bool:
    """The message was in flight under `claim` when the connection or its
    sender died: it may or may not have arrived, so it waits for the moderator
    (`requeue_mail`). The claim stays on the row, so the run that held it can
    still record the server's 250 (`mark_sent`). False when the message was no
    longer in flight under that claim (sent, or settled by another run)."""
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id == message_id,
            OutboxMessage.status == "sending",
            OutboxMessage.sending_by == claim
            if claim is not None
            else OutboxMessage.sending_by.is_(None),
        )
        .values(
            status="ambiguous",
            last_error=error,
            next_attempt_at=None,
            attempts=OutboxMessage.attempts + 1,
        )
    )
    return _changed(result)


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


def mail_by_key(session: Session, key: str) -> OutboxMessage | None:
    return session.scalar(select(OutboxMessage).where(OutboxMessage.idempotency_key == key))


def answers_to_strangers(session: Session, since: datetime) -> int:
    """Answers queued since `since` to addresses that no player registered and
    that wait on no standby list (the mail intake's global cap)."""
    known = select(func.lower(Player.email)).where(Player.email.is_not(None))
    waiting = select(func.lower(StandbyPlayer.email))
    return int(
        session.scalar(
            select(func.count()).where(
                OutboxMessage.created_at >= since,
                OutboxMessage.kind.in_(("receipt", "help", "rules")),
                func.lower(OutboxMessage.to_address).not_in(known),
                func.lower(OutboxMessage.to_address).not_in(waiting),
            )
        )
        or 0
    )


def reminder_keys(session: Session, now: datetime, until: datetime) -> set[str]:
    """The keys of the reminders queued for the current turns of the active
    games whose deadline is between `now` and `until`."""
    return set(
        session.scalars(
            select(OutboxMessage.idempotency_key)
            .join(Game, Game.id == OutboxMessage.game_id)
            .where(
                Game.status == "active",
                Game.deadline > now,
                Game.deadline <= until,
                OutboxMessage.kind == "reminder",
                OutboxMessage.turn == Game.current_turn,
            )
        )
    )


# --- the moderator's log -----------------------------------------------------


def logged_before(session: Session, action: str, game_id: int | None, reason: str) -> bool:
    """Whether the moderator's log holds this action with this reason already."""
    found = session.scalar(
        select(ModeratorLog.id)
        .where(
            ModeratorLog.game_id == game_id,
            ModeratorLog.action == action,
            ModeratorLog.reason == reason,
        )
        .limit(1)
    )
    return found is not None


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


def log_entries_of(
    session: Session, game_id: int, actions: Iterable[str]
) -> Sequence[ModeratorLog]:
    """The game's log entries of these actions, in order (turn runs and what
    undid them, for the reports of a turn run again)."""
    return session.scalars(
        select(ModeratorLog)
        .where(ModeratorLog.game_id == game_id, ModeratorLog.action.in_(list(actions)))
        .order_by(ModeratorLog.id)
    ).all()


# --- standby players ------------------------------------------------------------


def add_standby(
    session: Session, game_id: int, email: str, real_name: str, now: datetime
) -> StandbyPlayer:
    standby = StandbyPlayer(
        game_id=game_id, email=email, real_name=clean_name(real_name), added_at=now
    )
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


def waits_on_a_standby_list(session: Session, email: str) -> bool:
    """Whether `email` waits on the standby list of any game."""
    return (
        session.scalar(
            select(StandbyPlayer.id)
            .where(
                func.lower(StandbyPlayer.email) == email.strip().lower(),
                StandbyPlayer.position.is_(None),
            )
            .limit(1)
        )
        is not None
    )


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


def ended_games(session: Session) -> Sequence[Game]:
    """Every ended game, in the order the games ended (their last turn's time)."""
    last = (
        select(TurnState.game_id, func.max(TurnState.processed_at).label("at"))
        .group_by(TurnState.game_id)
        .subquery()
    )
    return session.scalars(
        select(Game)
        .join(last, last.c.game_id == Game.id)
        .where(Game.status == "ended")
        .order_by(last.c.at, Game.id)
    ).all()


def game_records(session: Session) -> list[dict[str, Any]]:
    """The records over all ended games (category, score, character, game), in
    the order they were set."""
    return [
        {"category": r.category, "score": r.score, "character": r.character, "game": r.game}
        for r in session.scalars(select(RecordRow).order_by(RecordRow.id))
    ]


def replace_game_records(session: Session, records: Iterable[dict[str, Any]]) -> None:
    session.execute(delete(RecordRow))
    _insert(session, RecordRow, list(records))


# --- pruning ended games ---------------------------------------------------------


def prunable_games(session: Session, game_id: int | None = None) -> Sequence[Game]:
    """Ended games with no mail still waiting to go out (their reports may be
    needed until it has gone)."""
    unsent = exists().where(
        OutboxMessage.game_id == Game.id,
        OutboxMessage.status.in_(("queued", "failed", "sending")),
    )
    query = select(Game).where(Game.status == "ended", not_(unsent))
    if game_id is not None:
        query = query.where(Game.id == game_id)
    return session.scalars(query.order_by(Game.id)).all()


def prune_game(session: Session, game_id: int) -> dict[str, int]:
    """Delete what an ended game's replay can make again: its reports, mail
    already sent or given up, the turn-made events, rejections and ledger, the
    standings and states between the first and the last turn. Kept: the game,
    its players, every submission and order in force, the moderator's
    adjustments and log, and the states of the first turn, the last turn and
    every turn a moderator changed. Returns rows deleted by table."""
    turns = stored_turns(session, game_id)
    adjusted = set(
        session.scalars(
            select(EventRow.turn).where(EventRow.game_id == game_id, EventRow.origin == "moderator")
        )
    )
    keep = {turns[0], turns[-1], *adjusted} if turns else set()
    last = turns[-1] if turns else 0
    deleted: dict[str, int] = {}

    def run(name: str, statement: Any) -> None:
        result: CursorResult[Any] = session.execute(statement)  # type: ignore[assignment]
        count = result.rowcount or 0
        if count:
            deleted[name] = deleted.get(name, 0) + count

    run(
        "outbox",
        delete(OutboxMessage).where(
            OutboxMessage.game_id == game_id,
            OutboxMessage.status.in_(("sent", "dead", "cancelled")),
        ),
    )
    run("reports", delete(Report).where(Report.game_id == game_id))
    for model in (EventRow, LedgerRow):
        run(
            model.__tablename__,
            delete(model).where(model.game_id == game_id, model.origin == "turn"),
        )
    run("rejections", delete(RejectionRow).where(RejectionRow.game_id == game_id))
    run(
        "standings",
        delete(Standing).where(Standing.game_id == game_id, Standing.turn != last),
    )
    run(
        "turn_states",
        delete(TurnState).where(TurnState.game_id == game_id, TurnState.turn.not_in(keep)),
    )
    return deleted


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
        select(EventRow.turn, *_EVENT_FIELDS)
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
    for number, data, kind, visibility, position, railroad in rows:
        event = mapping.event_from_row(data, kind, visibility, position, railroad)
        found.setdefault(number, []).append(event)
    return found


def report_turns(session: Session, game_id: int, position: int) -> list[int]:
    """The turns of which a position has a stored report, oldest first (not
    the opening report, turn 0, which the welcome mail carries)."""
    return list(
        session.scalars(
            select(Report.turn)
            .where(Report.game_id == game_id, Report.position == position, Report.turn >= 1)
            .order_by(Report.turn)
        )
    )
