"""After every change: standing orders carried out, the round notice, the move
number, the clock and the "your move" mail (see the package docstring)."""

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.report.story import since_last_move
from turnproc.sequential.log import log_text, notify_every, story_of
from turnproc.sequential.position import (
    describe,
    family_of_game,
    page_link,
    round_label,
    seats_of,
    sheet,
    what_you_may_do,
)
from turnproc.sequential.standing import MAX_STANDING_MOVES, carry_out_standing, pass_if_only_pass
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game


def after_change(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    now: datetime,
    *,
    tag: str,
    before: str | None,
    answered: int | None = None,
    first_new: int | None = None,
) -> list[str]:
    """Standing orders, the round notice, the move number, the clock, the
    "your move" mail with the log since the mover's last move (not to player
    `answered`, whose receipt carries his sheet), and the new moves (from
    action `first_new` on) to the players who get every move (NOTIFY every).
    Returns notes for the receipt."""
    notes: list[str] = []
    for _ in range(MAX_STANDING_MOVES):
        done = carry_out_standing(session, game_row, loaded, now)
        done += pass_if_only_pass(session, game_row, loaded, now)
        if not done:
            break
        notes += done
    game = loaded.game
    session.flush()
    game_row.current_turn = store.move_number(session, loaded.row)
    after = round_label(game)
    players = seats_of(session, game_row)
    if before is not None and after != before:
        summary = describe(game)
        for seat in players:
            repo.queue_mail(
                session,
                key=f"18xx-round/{game_row.id}/{loaded.moves}/{tag}/{seat.position}",
                kind="notice",
                to_address=seat.email or "",
                subject=f"[{game_row.name}] {before.capitalize()} is over: {after}",
                body=f"{before.capitalize()} is over; now: {after}.\n\n{summary}\n",
                now=now,
                game_id=game_row.id,
                turn=game_row.current_turn,
                position=seat.position,
            )
    if game.ended:
        game_row.status = "ended"
        loaded.row.move_due = None
        return notes
    loaded.row.move_due = now + timedelta(hours=loaded.row.move_hours)
    loaded.row.reminded = 0
    to_move = game.to_move()
    mover = next((s for s in players if s.position == to_move), None)
    entries = story_of(session, game_row, loaded)
    if first_new is not None:
        notify_every(session, game_row, loaded, entries, first_new, now, tag, {answered, to_move})
    if mover is not None and mover.email and mover.position != answered:
        log = tuple(e.text for e in since_last_move(entries, mover.position))
        pdf, data = _report(game_row, game, mover.position, log)
        repo.queue_mail(
            session,
            key=f"18xx-move/{game_row.id}/{loaded.moves}/{tag}",
            kind="your-move",
            to_address=mover.email,
            subject=f"[{game_row.name}] Your move (move {game_row.current_turn}, {after})",
            body=(
                f"It is your move in {game_row.name} ({after}); please answer by "
                f"{loaded.row.move_due:%Y-%m-%d %H:%M} UTC.\n\n"
                f"{log_text('Since your last move', log)}{describe(game)}\n\n"
                f"{what_you_may_do(game, mover.position)}\n\n"
                "Write your orders between the TURNSHEET line and END (mail HELP for the "
                "order language):\n\n"
                + sheet(game_row, mover.position)
                + page_link(game_row, mover, now)
            ),
            now=now,
            game_id=game_row.id,
            turn=game_row.current_turn,
            position=mover.position,
            pdf=pdf,
            pdf_name=f"{game_row.name}-move-{game_row.current_turn}.pdf" if pdf else None,
            json_attachment=data,
        )
    return notes


def _report(
    game_row: Game, game: Engine18xx, position: int, log: tuple[str, ...]
) -> tuple[bytes | None, str | None]:
    """The family's report of the position for a player, once it has one."""
    family = family_of_game(game_row)
    render = family.move_report() if family is not None else None
    if render is None:
        return None, None
    pdf, data = render(game, position, log)
    return pdf, data
