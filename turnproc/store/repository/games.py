"""Games, their players and their stored turn states."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, not_, select, update
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.store import mapping
from turnproc.store.models import (
    Game,
    Installation,
    OrdersInForce,
    Player,
    TurnState,
    game_name_key,
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
