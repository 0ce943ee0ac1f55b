"""Ended games: the records over all games (rules 11.3) and pruning."""

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import delete, exists, func, not_, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from turnproc.store.models import (
    EventRow,
    Game,
    LedgerRow,
    OutboxMessage,
    RecordRow,
    RejectionRow,
    Report,
    Standing,
    TurnState,
)
from turnproc.store.repository.games import stored_turns
from turnproc.store.repository.results import _insert

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
