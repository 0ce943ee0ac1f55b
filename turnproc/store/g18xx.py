"""18xx games in the database (the storage side of turnproc.families.g18xx): a
game is its title, options, seats and the moves applied so far; loading one
replays its moves (a few milliseconds).

A move is stored in the same transaction that checked it against the game
replayed from the stored moves, so a refused order stores nothing.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import ActionRefused, Game
from turnproc.families.g18xx.orders import Receipt, apply_orders
from turnproc.families.g18xx.replay import ReplayError, replay, replay_options, standing_actions
from turnproc.families.g18xx.titles.load import new_game
from turnproc.store.models import Game18xx, Move18xx


@dataclass
class Loaded:
    row: Game18xx
    game: Game
    moves: int


def import_recorded(
    session: Session, data: dict[str, Any], name: str, now: datetime, upto: int | None = None
) -> Game18xx:
    """Store a game recorded on 18xx.games, whole or up to action `upto`, after
    checking that it replays."""
    if session.scalar(select(Game18xx).where(Game18xx.name == name)) is not None:
        raise TurnprocError(f"a game named {name!r} exists already")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise TurnprocError("not a recorded game: no actions")
    if upto is not None:
        data = dict(
            data, actions=[a for a in actions if isinstance(a, dict) and a.get("id", 0) <= upto]
        )
    try:
        outcome = replay(data)
    except ReplayError as exc:
        raise TurnprocError(f"the recorded game does not replay: {exc}") from None
    title = str(data["title"])
    row = Game18xx(
        name=name,
        title=title,
        options=json.dumps(replay_options(data), sort_keys=True),
        players=json.dumps([{"id": p["id"], "name": p.get("name", "")} for p in data["players"]]),
        status="ended" if outcome.game.ended else "active",
        end_reason=outcome.end_reason if outcome.game.ended else None,
        created_at=now,
    )
    session.add(row)
    session.flush()
    for seq, action in enumerate(standing_actions(data["actions"]), 1):
        session.add(
            Move18xx(
                game_id=row.id, seq=seq, action=json.dumps(action), origin="import", applied_at=now
            )
        )
    return row


def load(session: Session, name: str, lock: bool = False) -> Loaded:
    query = select(Game18xx).where(Game18xx.name == name)
    if lock:
        # Read the row again under the lock: a row the session read before
        # (`18xx tick` lists the games first) may have changed since.
        query = query.with_for_update().execution_options(populate_existing=True)
    row = session.scalar(query)
    if row is None:
        raise TurnprocError(f"no 18xx game named {name!r}")
    players = [p["id"] for p in json.loads(row.players)]
    game = new_game(row.title, players, json.loads(row.options))
    game.recorded_revenue_stands = True
    moves = live_moves(session, row)
    try:
        for move in moves:
            game.apply_unchecked(parse_action(json.loads(move.action)))
    except ActionRefused as exc:
        raise TurnprocError(f"stored move of {name} no longer applies: {exc}") from None
    return Loaded(row, game, len(moves))


def live_moves(session: Session, row: Game18xx) -> list[Move18xx]:
    """The moves that stand (not undone), in order."""
    return list(
        session.scalars(
            select(Move18xx)
            .where(Move18xx.game_id == row.id, Move18xx.undone_at.is_(None))
            .order_by(Move18xx.seq)
        ).all()
    )


def move(
    session: Session,
    name: str,
    player: int,
    text: str,
    now: datetime,
    origin: str,
    *,
    loaded: Loaded | None = None,
    submission_id: int | None = None,
) -> Receipt:
    """Apply a player's orders to a stored game and store what was applied.
    `loaded`: the game, already loaded and locked by the caller."""
    loaded = loaded or load(session, name, lock=True)
    if loaded.row.status != "active":
        raise TurnprocError(f"{name} has ended ({loaded.row.end_reason})")
    seats = [p["id"] for p in json.loads(loaded.row.players)]
    if player not in seats:
        raise TurnprocError(f"{player} has no seat in {name}")
    receipt = apply_orders(loaded.game, player, text)
    store_actions(session, loaded, receipt.actions, player, origin, now, submission_id)
    return receipt


def store_actions(
    session: Session,
    loaded: Loaded,
    actions: list[Any],
    player: int | None,
    origin: str,
    now: datetime,
    submission_id: int | None = None,
) -> None:
    """Store actions just applied to `loaded.game`, after those stored (undone
    ones keep their numbers: a move's number never changes)."""
    seq = (
        session.scalar(select(func.max(Move18xx.seq)).where(Move18xx.game_id == loaded.row.id)) or 0
    )
    for action in actions:
        stored = action.model_dump(exclude_none=True, exclude={"auto_actions"})
        seq += 1
        session.add(
            Move18xx(
                game_id=loaded.row.id,
                seq=seq,
                action=json.dumps(stored),
                origin=origin,
                applied_at=now,
                player=player,
                submission_id=submission_id,
            )
        )
        loaded.moves += 1
    if loaded.game.ended:
        loaded.row.status = "ended"
        loaded.row.end_reason = loaded.game.end_reason


def move_number(session: Session, row: Game18xx) -> int:
    """The number of the next move: one more than the actions ever stored and
    the actions taken back, so it grows with every change and never repeats."""
    stored = session.scalar(select(func.max(Move18xx.seq)).where(Move18xx.game_id == row.id)) or 0
    undone = session.scalar(
        select(func.count())
        .select_from(Move18xx)
        .where(Move18xx.game_id == row.id, Move18xx.undone_at.is_not(None))
    )
    return stored + (undone or 0) + 1


def position(game: Game) -> dict[str, Any]:
    """The public position: round, phase, companies, players and scores."""
    return {
        "round": game.round,
        "operating_round": game.operating_round,
        "phase": game.phase,
        "operating": game.turn.company if game.turn else None,
        "ended": game.ended,
        "end_reason": game.end_reason,
        "bank": game.cash["bank"],
        "players": {
            str(p): {
                "cash": game.cash[p],
                "shares": {
                    c: game.percent_of(p, c) for c in game.companies if game.percent_of(p, c)
                },
                "privates": [k for k, v in game.privates.items() if v.owner == p and not v.closed],
            }
            for p in game.players
        },
        "companies": {
            c: {
                "president": s.president,
                "price": game.market.price(c) if c in game.market.where else None,
                "cash": game.cash[c],
                "trains": [t.id for t in game.trains_of(c)],
                "floated": s.floated,
            }
            for c, s in game.companies.items()
        },
        "scores": {str(p): v for p, v in game.scores().items()},
    }


def move_texts(session: Session, row: Game18xx) -> list[dict[str, Any]]:
    """The stored moves of a game in order, as action JSON (for its log)."""
    moves = session.scalars(
        select(Move18xx.action).where(Move18xx.game_id == row.id).order_by(Move18xx.seq)
    ).all()
    return [json.loads(text) for text in moves]


def games(session: Session) -> list[Game18xx]:
    """Every 18xx game, oldest first (the web's index)."""
    return list(session.scalars(select(Game18xx).order_by(Game18xx.id)))
