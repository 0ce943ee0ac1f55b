"""The clock of a sequential game: reminders, and a missed move passed, played
by the computer or told to the moderator."""

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.core.errors import UsageError
from turnproc.families.g18xx.orders import apply_orders
from turnproc.sequential.change import after_change
from turnproc.sequential.position import (
    family_of_game,
    missed_rule,
    page_link,
    round_label,
    seats_of,
    sequential_game,
    sheet,
    what_you_may_do,
)
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, Game18xx

MAX_MOVE_HOURS = 24 * 30


def tick(session: Session, now: datetime, moderator: str | None) -> list[str]:
    """Reminders and missed moves of every running game; what was done, one line each.

    A game's clock is judged again under its row lock (`_tick_game`): a move
    that arrived after the list was read has started another player's clock."""
    done: list[str] = []
    names = session.scalars(
        select(Game18xx.name).where(
            Game18xx.game_id.is_not(None),
            Game18xx.status == "active",
            Game18xx.move_due.is_not(None),
        )
    ).all()
    for name in names:
        line = _tick_game(session, name, now, moderator)
        if line:
            done.append(line)
    return done


def _tick_game(session: Session, name: str, now: datetime, moderator: str | None) -> str | None:
    game_row = sequential_game(session, name)
    loaded = store.load(session, name, lock=True)
    row = loaded.row
    if row.status != "active" or row.move_due is None:
        return None
    left = row.move_due - now
    if left <= timedelta(0) and row.reminded < 2:
        return _missed(session, game_row, loaded, now, moderator)
    if left <= timedelta(hours=row.move_hours) / 4 and row.reminded == 0:
        return _remind(session, game_row, loaded, now)
    return None


def _remind(session: Session, game_row: Game, loaded: store.Loaded, now: datetime) -> str:
    name = game_row.name
    to_move = loaded.game.to_move()
    seat = next((s for s in seats_of(session, game_row) if s.position == to_move), None)
    loaded.row.reminded = 1
    if seat is None or not seat.email or loaded.row.move_due is None:
        return f"{name}: no one to remind"
    repo.queue_mail(
        session,
        key=f"18xx-remind/{game_row.id}/{loaded.moves}/{loaded.row.move_due.isoformat()}",
        kind="reminder",
        to_address=seat.email,
        subject=f"[{name}] Reminder: your move is due {loaded.row.move_due:%Y-%m-%d %H:%M} UTC",
        body=(
            f"Your move in {name} is due by {loaded.row.move_due:%Y-%m-%d %H:%M} UTC; "
            f"then {missed_rule()}\n\n{what_you_may_do(loaded.game, seat.position)}\n\n"
            + sheet(game_row, seat.position)
            + page_link(game_row, seat, now)
        ),
        now=now,
        game_id=game_row.id,
        position=seat.position,
    )
    return f"{name}: player {to_move} reminded"


def _missed(
    session: Session, game_row: Game, loaded: store.Loaded, now: datetime, moderator: str | None
) -> str:
    """The missed-move policy: a pass where the rules allow it, else the
    computer player's move, else the moderator is told."""
    name = game_row.name
    game = loaded.game
    to_move = game.to_move()
    if to_move is None:
        loaded.row.reminded = 2
        return f"{name}: no one is to move"
    before = round_label(game)
    how = "passed for"
    receipt = (
        apply_orders(game, to_move, "PASS") if game.round in ("stock", "draft", "auction") else None
    )
    if receipt is None or receipt.refused is not None:
        family = family_of_game(game_row)
        computer = family.computer_move() if family is not None else None
        try:
            text = computer(game, to_move, game_row.seed, game_row.current_turn) if computer else ""
        except RuntimeError:  # the computer player found no legal move
            text = ""
        receipt = apply_orders(game, to_move, text) if text else None
        how = "the computer moved for"
    if receipt is None or receipt.refused is not None or not receipt.actions:
        loaded.row.reminded = 2
        why = receipt.refused.reason if receipt and receipt.refused else "no computer player"
        if moderator:
            repo.queue_mail(
                session,
                key=f"alert/18xx-missed/{game_row.id}/{game_row.current_turn}",
                kind="alert",
                to_address=moderator,
                subject=f"turnproc: {name}: player {to_move}'s move is overdue",
                body=(
                    f"Player {to_move} missed his move in {name} ({before}), and it cannot "
                    f"be made for him ({why}). Make it with `turnproc 18xx move {name} "
                    f"--player {to_move} FILE`, or extend the clock.\n"
                ),
                now=now,
                game_id=game_row.id,
            )
        return f"{name}: player {to_move}'s move is overdue; the moderator is told ({why})"
    first = loaded.moves
    store.store_actions(session, loaded, receipt.actions, to_move, "clock", now)
    seat = next((s for s in seats_of(session, game_row) if s.position == to_move), None)
    applied = "; ".join(f"{line} ({note})" if note else line for line, note in receipt.applied)
    if seat is not None and seat.email:
        repo.queue_mail(
            session,
            key=f"18xx-missed/{game_row.id}/{game_row.current_turn}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{name}] Your move was missed: {applied[:100]}",
            body=f"Your move in {name} was due; {how} you: {applied}.\n",
            now=now,
            game_id=game_row.id,
            position=to_move,
        )
    after_change(
        session,
        game_row,
        loaded,
        now,
        tag=f"clock-{now.isoformat()}",
        before=before,
        first_new=first,
    )
    return f"{name}: player {to_move} missed his move; {how} him: {applied}"


def set_clock(session: Session, name: str, move_hours: int, now: datetime) -> datetime | None:
    """A new clock for the game; the move in progress gets the full time again."""
    if not 1 <= move_hours <= MAX_MOVE_HOURS:
        raise UsageError(f"--move-hours must be 1-{MAX_MOVE_HOURS}")
    sequential_game(session, name)  # a game played by mail
    loaded = store.load(session, name, lock=True)
    loaded.row.move_hours = move_hours
    if loaded.row.status == "active":
        loaded.row.move_due = now + timedelta(hours=move_hours)
        loaded.row.reminded = 0
    return loaded.row.move_due
