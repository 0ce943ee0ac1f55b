"""A mail's orders: an authenticated sheet checked against the live game and
applied at once, its receipt, and the moderator's move for a player."""

from datetime import datetime

from sqlalchemy.orm import Session

from turnproc.families.g18xx.orders import MAX_ORDERS, MAX_TEXT, Receipt
from turnproc.sequential.change import after_change
from turnproc.sequential.log import happened, set_notify
from turnproc.sequential.position import (
    Outcome,
    describe,
    page_link,
    refuse,
    round_label,
    seats_of,
    sequential_game,
    sheet,
    what_you_may_do,
)
from turnproc.sequential.standing import (
    carry_out_standing,
    lapse_conditional_passes,
    set_standing,
    standing_summary,
)
from turnproc.sequential.undo import player_undo, taken_back_since
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player

STOCK_ACTIONS = frozenset({"buy_shares", "sell_shares", "par"})


def submit(
    session: Session,
    game_row: Game,
    player: Player,
    move_number: int,
    orders: str,
    now: datetime,
    submission_id: int | None,
) -> Outcome:
    """Apply the orders of an authenticated sheet (see the module docstring);
    the answer ends with the link to the player's page."""
    outcome = _submit(session, game_row, player, move_number, orders, now, submission_id)
    outcome.text += page_link(game_row, player, now)
    return outcome


def _submit(
    session: Session,
    game_row: Game,
    player: Player,
    move_number: int,
    orders: str,
    now: datetime,
    submission_id: int | None,
) -> Outcome:
    loaded = store.load(session, game_row.name, lock=True)
    session.refresh(game_row)
    name, position = game_row.name, player.position
    if loaded.row.status != "active" or game_row.status != "active":
        return refuse(game_row, f"game {name} is {game_row.status}; it takes no moves")
    if len(orders) > MAX_TEXT:
        return refuse(game_row, f"orders are limited to {MAX_TEXT} characters")
    lines = [line.strip() for line in orders.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if len(lines) > MAX_ORDERS:
        return refuse(game_row, f"at most {MAX_ORDERS} orders a mail")
    # Standing orders and NOTIFY are settings: they fit any move number.
    settings = ("STANDING", "NOTIFY")
    standing_lines = [line for line in lines if line.upper().startswith(settings)]
    moves = [line for line in lines if not line.upper().startswith(settings)]
    if moves and move_number != game_row.current_turn:  # standing orders fit any move
        taken_back = move_number < game_row.current_turn and taken_back_since(
            session, game_row, move_number
        )
        return refuse(
            game_row,
            f"this sheet is for move {move_number}, but the game is at move "
            f"{game_row.current_turn}"
            + ("; moves were taken back since it was written" if taken_back else ""),
            "use the sheet of your latest mail from the moderator",
            at=(loaded, position),
        )
    if moves and moves[0].upper() == "UNDO":
        if len(moves) > 1 or standing_lines:
            return refuse(game_row, "UNDO stands alone on a sheet", at=(loaded, position))
        return player_undo(session, game_row, loaded, position, now)
    notes = [
        set_notify(session, game_row, position, line, now)
        if line.upper().startswith("NOTIFY")
        else set_standing(loaded.row, position, line)
        for line in standing_lines
    ]
    if not moves:
        if not notes:
            return refuse(
                game_row,
                "the sheet holds no orders",
                "mail HELP for the order language",
                at=(loaded, position),
            )
        before, first = round_label(loaded.game), loaded.moves
        carried_out = carry_out_standing(session, game_row, loaded, now)  # his own, if his move
        if carried_out:
            notes += carried_out + after_change(
                session,
                game_row,
                loaded,
                now,
                tag=f"standing-{submission_id}",
                before=before,
                first_new=first,
            )
        text = "\n".join(notes) + "\n\n" + standing_summary(loaded.row, position)
        return Outcome("accepted", f"[{name}] OK: standing orders", text)
    to_move = loaded.game.to_move()
    if to_move != position:
        reason = f"it is player {to_move}'s move, not yours" if to_move else "no one is to move"
        return refuse(
            game_row, reason, "you will get a mail when it is your move", at=(loaded, position)
        )
    receipt, notices = _apply(
        session, game_row, loaded, position, "\n".join(moves), now, "mail", submission_id
    )
    verdict = "accepted" if receipt.refused is None else "errors" if receipt.actions else "refused"
    text = _receipt_text(game_row, loaded, position, receipt, notes + notices)
    if receipt.refused is None:
        return Outcome(verdict, f"[{name}] OK: {len(receipt.applied)} order(s) applied", text)
    reason = receipt.refused.reason.splitlines()[0][:200]
    return Outcome(verdict, f"[{name}] REFUSED: {reason}"[:300], text, reason)


def _apply(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    position: int,
    text: str,
    now: datetime,
    origin: str,
    submission_id: int | None = None,
) -> tuple[Receipt, list[str]]:
    before, first = round_label(loaded.game), loaded.moves
    receipt = store.move(
        session, game_row.name, position, text, now, origin,
        loaded=loaded, submission_id=submission_id,
    )  # fmt: skip
    if any(a.type in STOCK_ACTIONS for a in receipt.actions):
        lapse_conditional_passes(session, game_row, loaded.row, position, now)
    notices: list[str] = []
    if receipt.actions:  # orders refused whole change nothing, the clock included
        tag = str(submission_id) if submission_id else f"{origin}-{now.isoformat()}"
        notices = after_change(
            session,
            game_row,
            loaded,
            now,
            tag=tag,
            before=before,
            answered=position,
            first_new=first,
        )
        words = happened(session, game_row, loaded, first)
        notices += ["", "What happened:", *(f"  {line}" for line in words)]
    return receipt, notices


def moderator_move(session: Session, name: str, position: int, text: str, now: datetime) -> Receipt:
    """`18xx move` in a game played by mail: the moderator gives a player's
    orders (a missed move); the player gets the receipt, the next player his
    "your move" mail."""
    game_row = sequential_game(session, name)
    loaded = store.load(session, name, lock=True)
    receipt, notes = _apply(session, game_row, loaded, position, text, now, "moderator")
    seat = next((s for s in seats_of(session, game_row) if s.position == position), None)
    if receipt.actions and seat is not None and seat.email:
        body = _receipt_text(game_row, loaded, position, receipt, notes)
        repo.queue_mail(
            session,
            key=f"18xx-moderator-move/{game_row.id}/{loaded.moves}/{now.isoformat()}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{name}] The moderator made your move",
            body="The moderator gave these orders for you:\n\n" + body,
            now=now,
            game_id=game_row.id,
            position=position,
        )
    return receipt


def _receipt_text(
    game_row: Game, loaded: store.Loaded, position: int, receipt: Receipt, notes: list[str]
) -> str:
    lines = []
    for line, note in receipt.applied:
        lines.append(f"  applied: {line}" + (f"   -> {note}" if note else ""))
    if receipt.refused is not None:
        refused = receipt.refused
        lines.append(f"  REFUSED line {refused.line}: {refused.text}")
        lines.append(f"    because: {refused.reason}")
        if receipt.applied:
            lines.append("    (the orders before it stand; the ones after it were not read)")
    lines += [f"  {note}" for note in notes]
    game = loaded.game
    lines += ["", describe(game), ""]
    if game.ended:
        return "\n".join(lines) + "\n"
    to_move = game.to_move()
    if to_move == position:
        lines += [
            "It is still your move. " + what_you_may_do(game, position),
            "",
            sheet(game_row, position),
        ]
    else:
        lines.append(f"Player {to_move} is to move.")
        if receipt.actions:
            lines += [
                "",
                "To take your move back before he acts, send:",
                "",
                sheet(game_row, position, "UNDO"),
            ]
    return "\n".join(lines) + "\n"
