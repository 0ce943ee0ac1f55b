"""Sequential play by mail (the 18xx games; docs/18xx.md, docs/mail.md).

A sequential game is a row in the ordinary games list (its seats are the
players table, so the turnsheet header, secrets, sender checks and refusal
rate limits are those of Continental Rails) linked to the family's own game
row (turnproc/store/g18xx.py), whose stored moves replayed are the game.

A mail whose turnsheet names a sequential game is checked against the live
game and applied at once, in the transaction that gives the stored mail its
verdict and queues the outbox (`submit`). The game row is locked first
(SELECT ... FOR UPDATE), so two mails for one game are applied one after the
other, each against the position the other left. After every change:

- the standing orders of the players to move are carried out (`_standing`);
- each player hears when a round ends;
- the player to move gets a "your move" mail with his sheet, and his clock
  (`move_hours`) starts; `tick` reminds him when a quarter of it is left and,
  when it runs out, passes for him where the rules allow a pass, otherwise
  lets the computer player move, otherwise tells the moderator.

The clock lives in the family's row (`move_due`), not in the game's
`deadline`, which is the Continental Rails turn runner's.
The game row's `current_turn` is the number of the next move: the sheet of
a "your move" mail carries it, and a sheet for another number is refused, so
an old sheet mailed again never moves a game that went on. It counts every
action applied and every action taken back (`store.move_number`), so no
number is used twice: a sheet written before an UNDO never applies after it.
"""

import json
import secrets as random_secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.families.boundary import SequentialFamily
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.moves import legal_moves
from turnproc.families.g18xx.orders import MAX_ORDERS, MAX_TEXT, Receipt, apply_orders
from turnproc.families.g18xx.report.model import bank_words, offer_words, standing_offers
from turnproc.families.g18xx.report.rules_pdf import ORDERS, order_language
from turnproc.families.g18xx.report.rules_pdf import pdf_name as rules_pdf_name
from turnproc.families.g18xx.report.story import Entry, since_last_move, story
from turnproc.families.g18xx.titles.load import new_game
from turnproc.families.registry import sequential_family
from turnproc.intake.auth import generate_secret, hash_secret
from turnproc.playerdocs import player_doc
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, Game18xx, ModeratorLog, Move18xx, Player
from turnproc.web.links import PAGE_MOVES, mail_footer

MAX_MOVE_HOURS = 24 * 30
MAX_STANDING_MOVES = 400  # standing orders carried out after one mail, at most
# UNDOs a player may send in one round (docs/18xx.md): each mails him and the
# player whose move it had become, so a player cannot flood the table.
MAX_UNDOS_PER_ROUND = 2
STOCK_ACTIONS = frozenset({"buy_shares", "sell_shares", "par"})


@dataclass(frozen=True)
class Seat:
    position: int
    email: str
    real_name: str = ""
    secret: str | None = None


@dataclass
class Outcome:
    """What one mail did: its verdict, the receipt's subject and text."""

    verdict: str  # accepted, errors, refused
    subject: str
    text: str
    reason: str = ""  # refused: why (one line) and a hint
    hint: str = ""


def family_of_game(game: Game) -> SequentialFamily | None:
    return sequential_family(game.scenario)


def create_game(
    session: Session,
    *,
    scenario: str,
    seats: list[Seat],
    name: str | None,
    seed: int | None,
    options: dict[str, str],
    move_hours: int,
    now: datetime,
) -> tuple[Game, dict[int, str]]:
    """A new game in the games list and its engine row; the welcome mails and
    the first "your move" mail queued. Returns the game and generated secrets."""
    family = sequential_family(scenario)
    if family is None:
        raise UsageError(f"{scenario!r} is not a sequential game")
    title = family.titles[scenario.lower()]
    allowed = family.options.get(title, {})
    for key, value in options.items():
        if key not in allowed or value not in allowed[key]:
            choices = "; ".join(f"{k}: {', '.join(v)}" for k, v in allowed.items()) or "none"
            raise UsageError(f"{title} has no option {key}={value} (options: {choices})")
    if not 1 <= move_hours <= MAX_MOVE_HOURS:
        raise UsageError(f"--move-hours must be 1-{MAX_MOVE_HOURS}")
    seats = sorted(seats, key=lambda s: s.position)
    try:
        new_game(title, [s.position for s in seats], options)
    except (ValueError, KeyError) as exc:
        raise UsageError(f"{title}: {exc}") from None
    seed = random_secrets.randbelow(2**31) if seed is None else seed
    name = name or f"{scenario.lower()}-{seed}"
    if session.scalar(select(Game).where(Game.name == name)) is not None or session.scalar(
        select(Game18xx).where(Game18xx.name == name)
    ):
        raise UsageError(f"a game named {name!r} exists already")
    game = Game(
        name=name,
        scenario=scenario.lower(),
        seed=seed,
        current_turn=1,
        status="active",
        reminder_hours="",
        missed_turn_limit=0,
        created_at=now,
    )
    session.add(game)
    session.flush()
    generated: dict[int, str] = {}
    players: dict[int, Player] = {}
    for seat in seats:
        secret = seat.secret
        if secret is None:
            secret = generated[seat.position] = generate_secret()
        players[seat.position] = Player(
            game_id=game.id,
            position=seat.position,
            character=seat.real_name or f"Player {seat.position}",
            real_name=seat.real_name,
            email=seat.email,
            secret_hash=hash_secret(secret),
            human=True,
        )
        session.add(players[seat.position])
    row = Game18xx(
        name=name,
        title=title,
        options=json.dumps(options, sort_keys=True),
        players=json.dumps([{"id": s.position, "name": s.real_name} for s in seats]),
        status="active",
        created_at=now,
        game_id=game.id,
        move_hours=move_hours,
        standing="{}",
    )
    session.add(row)
    session.flush()
    repo.log_action(
        session,
        game_id=game.id,
        turn=1,
        action="game_created",
        now=now,
        details={"scenario": scenario.lower(), "title": title, "options": options},
    )
    loaded = store.load(session, name)
    for seat in seats:
        lines = [
            f"Welcome to {name}, a game of {title}"
            + (f" ({options['edition']} edition)" if "edition" in options else "")
            + ".",
            "",
            f"You are player {seat.position}. Players move in turn; each move is applied",
            "when its mail arrives, and you get a mail when it is your move.",
            f"You have {move_hours} hours for each move; {_missed_rule()}",
            f"The order language and the rules of {title} are attached "
            f"({rules_pdf_name(title)}); mail HELP for the order language, RULES for "
            "the PDF again.",
        ]
        if seat.secret is None:
            lines += ["", f"Your secret (write it on every sheet): {generated[seat.position]}"]
        lines += ["", describe(loaded.game)]
        repo.queue_mail(
            session,
            key=f"welcome/{game.id}/{seat.position}/{seat.email.lower()}",
            kind="welcome",
            to_address=seat.email,
            subject=f"[{name}] Welcome: player {seat.position} of {title}",
            body="\n".join(lines) + "\n" + page_link(game, players[seat.position], now),
            now=now,
            game_id=game.id,
            turn=1,
            position=seat.position,
            pdf_name=rules_pdf_name(title),  # the outbox attaches the title's rules
        )
    _after_change(session, game, loaded, now, tag="start", before=None)
    return game, generated


# --- the title's material by mail (HELP, RULES) -------------------------------

COMMANDS_HELP = """\
Commands you can mail to the moderator (one per message, on the first line):

  HELP
      this guide: the commands and the order language of your game.
  RULES
      the rules of your game and its order language, as a PDF.
  UNLOCK game: NAME player: N code: CODE
      unlock your secret after it was locked by repeated wrong guesses
      (the code is in the mail that told you).

Your moves go on the sheet of your latest mail from the moderator, between
its TURNSHEET line and END, in the body of the mail or as a .txt attachment.
On any sheet (whatever its move number) you may also write:

  NOTIFY EVERY
      a mail with every move as it happens.
  NOTIFY MINE
      mail only when it is your move, with the moves since your last (the
      default).
"""


def help_text(title: str) -> str:
    """HELP from a player of an 18xx game: the commands and the order language."""
    guide = order_language(player_doc(ORDERS).read_text(encoding="utf-8"))
    return f"You play {title}.\n\n{COMMANDS_HELP}\n{guide}"


def rules_answer(title: str) -> str:
    return (
        f"The rules of {title} and its order language, with examples, are attached "
        f"as a PDF ({rules_pdf_name(title)}). Mail HELP for the order language as text.\n"
    )


def _missed_rule() -> str:
    return (
        "a move not made in time is a pass where the rules allow one, otherwise "
        "the computer's (or the moderator's)."
    )


# --- the position as text -------------------------------------------------------


def round_label(game: Engine18xx) -> str:
    if game.ended:
        return "game over"
    if game.round == "operating":
        return f"operating round {game.operating_round}"
    if game.round == "stock":
        return f"stock round {game.set_number + 1}"
    return f"private company {game.round}"


def describe(game: Engine18xx) -> str:
    """The position: round, companies, players, standing offers for privates
    (everyone hears them, 3.2b) and scores."""
    pos = store.position(game)
    lines = [f"{round_label(game).capitalize()}, phase {pos['phase']}, {bank_words(pos['bank'])}."]
    if pos["operating"]:
        lines[0] += f" {pos['operating']} operates."
    lines += ["", "Company  price   cash  president  trains"]
    for company, c in pos["companies"].items():
        if c["price"] is None:
            continue
        trains = " ".join(t.name for t in game.trains_of(company)) or "-"
        president = c["president"] if c["president"] is not None else "-"
        lines.append(f"{company:<7} {c['price']:>6} {c['cash']:>6}  {president!s:>9}  {trains}")
    lines += ["", "Player   cash  score  shares / privates"]
    for player, p in pos["players"].items():
        held = [f"{c} {pct}%" for c, pct in sorted(p["shares"].items())] + p["privates"]
        lines.append(
            f"{player:>6} {p['cash']:>6} {pos['scores'][player]:>6}  {', '.join(held) or '-'}"
        )
    offers = standing_offers(game)
    if offers:
        lines += ["", "Standing offers for privates:"]
        lines += [f"  {offer_words(offer)}" for offer in offers]
    if game.ended:
        lines += ["", f"The game is over ({game.end_reason}). Final scores:"]
        ranked = sorted(pos["scores"].items(), key=lambda kv: -kv[1])
        lines += [f"  player {p}: ${score}" for p, score in ranked]
    return "\n".join(lines)


def what_you_may_do(game: Engine18xx, position: int) -> str:
    """The legal moves of the player to move, spelled out (moves.py)."""
    moves = legal_moves(game, position)
    text = moves.text()
    return f"Your legal moves now:\n\n{text}" if text else "You have no move now."


def sheet(game_row: Game, position: int, orders: str = "") -> str:
    return (
        f"TURNSHEET game: {game_row.name} turn: {game_row.current_turn} player: {position} "
        f"secret: ________\n{orders}\nEND\n"
    )


# --- a mail's orders ------------------------------------------------------------


def page_link(game_row: Game, player: Player, now: datetime) -> str:
    """The link to the player's own web page (web/links.py), for the end of
    his mail: nothing when the moderator has set no `web_url`."""
    return mail_footer(game_row.id, player, now, PAGE_MOVES)


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
        return _refused(game_row, f"game {name} is {game_row.status}; it takes no moves")
    if len(orders) > MAX_TEXT:
        return _refused(game_row, f"orders are limited to {MAX_TEXT} characters")
    lines = [line.strip() for line in orders.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if len(lines) > MAX_ORDERS:
        return _refused(game_row, f"at most {MAX_ORDERS} orders a mail")
    # Standing orders and NOTIFY are settings: they fit any move number.
    settings = ("STANDING", "NOTIFY")
    standing_lines = [line for line in lines if line.upper().startswith(settings)]
    moves = [line for line in lines if not line.upper().startswith(settings)]
    if moves and move_number != game_row.current_turn:  # standing orders fit any move
        taken_back = move_number < game_row.current_turn and _taken_back_since(
            session, game_row, move_number
        )
        return _refused(
            game_row,
            f"this sheet is for move {move_number}, but the game is at move "
            f"{game_row.current_turn}"
            + ("; moves were taken back since it was written" if taken_back else ""),
            "use the sheet of your latest mail from the moderator",
            at=(loaded, position),
        )
    if moves and moves[0].upper() == "UNDO":
        if len(moves) > 1 or standing_lines:
            return _refused(game_row, "UNDO stands alone on a sheet", at=(loaded, position))
        return _player_undo(session, game_row, loaded, position, now)
    notes = [
        _set_notify(session, game_row, position, line, now)
        if line.upper().startswith("NOTIFY")
        else _set_standing(loaded.row, position, line)
        for line in standing_lines
    ]
    if not moves:
        if not notes:
            return _refused(
                game_row,
                "the sheet holds no orders",
                "mail HELP for the order language",
                at=(loaded, position),
            )
        before, first = round_label(loaded.game), loaded.moves
        carried_out = _standing(session, game_row, loaded, now)  # his own, if his move
        if carried_out:
            notes += carried_out + _after_change(
                session,
                game_row,
                loaded,
                now,
                tag=f"standing-{submission_id}",
                before=before,
                first_new=first,
            )
        text = "\n".join(notes) + "\n\n" + _standing_summary(loaded.row, position)
        return Outcome("accepted", f"[{name}] OK: standing orders", text)
    to_move = loaded.game.to_move()
    if to_move != position:
        reason = f"it is player {to_move}'s move, not yours" if to_move else "no one is to move"
        return _refused(
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
        _lapse_conditional_passes(session, game_row, loaded.row, position, now)
    notices: list[str] = []
    if receipt.actions:  # orders refused whole change nothing, the clock included
        tag = str(submission_id) if submission_id else f"{origin}-{now.isoformat()}"
        notices = _after_change(
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
    game_row = _game_row(session, name)
    loaded = store.load(session, name, lock=True)
    receipt, notes = _apply(session, game_row, loaded, position, text, now, "moderator")
    seat = next((s for s in _players(session, game_row) if s.position == position), None)
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


def _refused(
    game_row: Game,
    reason: str,
    hint: str = "",
    at: tuple[store.Loaded, int] | None = None,
) -> Outcome:
    """A sheet refused whole. `at`: the game and the player who sent it; his
    answer then gives the position and, if it is his move, his legal moves
    and a fresh sheet."""
    text = f"REFUSED: {reason}\n" + (f"\n{hint[:1].upper()}{hint[1:]}.\n" if hint else "")
    text += "\nNothing was applied.\n"
    if at is not None:
        loaded, position = at
        game = loaded.game
        text += f"\n{describe(game)}\n\n"
        to_move = game.to_move()
        if to_move == position:
            text += f"It is your move. {what_you_may_do(game, position)}\n\n"
            text += sheet(game_row, position)
        elif to_move is not None:
            text += f"Player {to_move} is to move.\n"
    return Outcome("refused", f"[{game_row.name}] REFUSED: {reason}"[:300], text, reason, hint)


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


def _after_change(
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
        done = _standing(session, game_row, loaded, now)
        done += _only_pass(session, game_row, loaded, now)
        if not done:
            break
        notes += done
    game = loaded.game
    session.flush()
    game_row.current_turn = store.move_number(session, loaded.row)
    after = round_label(game)
    players = _players(session, game_row)
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
    entries = _story(session, game_row, loaded)
    if first_new is not None:
        _notify_every(session, game_row, loaded, entries, first_new, now, tag, {answered, to_move})
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
                f"{_log_text('Since your last move', log)}{describe(game)}\n\n"
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


# --- the log in words, and who hears of every move (NOTIFY) ---------------------

MAX_LOG_LINES = 300  # lines of log in one mail; the older ones are left out, and counted


def _story(session: Session, game_row: Game, loaded: store.Loaded) -> list[Entry]:
    """The game's moves in words (report/story.py), the players by name."""
    names = {p.position: p.real_name or p.character for p in _players(session, game_row)}
    row = loaded.row
    seats = [p["id"] for p in json.loads(row.players)]
    options = json.loads(row.options)
    actions = [parse_action(json.loads(m.action)) for m in store.live_moves(session, row)]
    return story(lambda: new_game(row.title, seats, options), actions, names)


def _log_text(heading: str, lines: Sequence[str]) -> str:
    if not lines:
        return ""
    shown = list(lines[-MAX_LOG_LINES:])
    left_out = len(lines) - len(shown)
    head = f"{heading}" + (f" (the last {len(shown)}; {left_out} before them)" if left_out else "")
    return head + ":\n" + "".join(f"  {line}\n" for line in shown) + "\n"


def happened(session: Session, game_row: Game, loaded: store.Loaded, first: int) -> list[str]:
    """The moves from action `first` on, in words (a receipt's "What happened")."""
    return [e.text for e in _story(session, game_row, loaded) if e.index >= first]


NOTIFY_MODES = ("every", "mine")


def _notify_mode(session: Session, game_row: Game, position: int) -> str:
    """The player's choice: "every" (each move as it happens) or "mine" (only
    his own turns, the default)."""
    logged = session.scalars(
        select(ModeratorLog.details)
        .where(ModeratorLog.game_id == game_row.id, ModeratorLog.action == "18xx_notify")
        .order_by(ModeratorLog.id.desc())
    ).all()
    for text in logged:
        details = json.loads(text)
        if details.get("position") == position:
            return str(details.get("mode", "mine"))
    return "mine"


def _set_notify(session: Session, game_row: Game, position: int, line: str, now: datetime) -> str:
    words = line.lower().split()[1:]
    if len(words) != 1 or words[0] not in NOTIFY_MODES:
        return f"not understood: {line!r}; write NOTIFY EVERY or NOTIFY MINE"
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_notify",
        now=now,
        details={"position": position, "mode": words[0]},
    )
    if words[0] == "every":
        return "NOTIFY EVERY: you get every move as it happens"
    return "NOTIFY MINE: you get mail when it is your move (with the moves since your last)"


def _notify_every(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    entries: list[Entry],
    first_new: int,
    now: datetime,
    tag: str,
    skip: set[int | None],
) -> None:
    """The new moves to each player who chose NOTIFY every (not to those who
    get a receipt or a "your move" mail about them)."""
    lines = [e.text for e in entries if e.index >= first_new]
    if not lines:
        return
    for seat in _players(session, game_row):
        if seat.position in skip or not seat.email:
            continue
        if _notify_mode(session, game_row, seat.position) != "every":
            continue
        to_move = loaded.game.to_move()
        after = f"Player {to_move} is to move." if to_move is not None else ""
        repo.queue_mail(
            session,
            key=f"18xx-every/{game_row.id}/{game_row.current_turn}/{tag}/{seat.position}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{game_row.name}] {lines[0]}"[:300],
            body=_log_text("Moves", lines) + f"{describe(loaded.game)}\n\n{after}\n",
            now=now,
            game_id=game_row.id,
            turn=game_row.current_turn,
            position=seat.position,
        )


def _players(session: Session, game_row: Game) -> list[Player]:
    return list(
        session.scalars(
            select(Player).where(Player.game_id == game_row.id).order_by(Player.position)
        ).all()
    )


# --- standing orders (18xx.games' programmed actions) ---------------------------

STANDING_HELP = (
    "STANDING PASS (pass in stock rounds until another player buys, sells or pars), "
    "STANDING PASS ALWAYS, STANDING AUCTION PASS, STANDING BUY <company> "
    "(buy a share each stock-round turn until it floats), STANDING OFF"
)


def _set_standing(row: Game18xx, position: int, line: str) -> str:
    words = line.upper().split()[1:]
    orders: dict[str, Any] = json.loads(row.standing or "{}")
    key = str(position)
    if words == ["OFF"]:
        orders.pop(key, None)
        note = "standing order cancelled"
    elif words == ["PASS"]:
        orders[key] = {"kind": "pass"}
        note = "standing order: pass in stock rounds until another player buys, sells or pars"
    elif words == ["PASS", "ALWAYS"]:
        orders[key] = {"kind": "pass-always"}
        note = "standing order: pass in every stock round until you cancel it"
    elif words == ["AUCTION", "PASS"]:
        orders[key] = {"kind": "auction-pass"}
        note = "standing order: pass in the private company round"
    elif len(words) == 2 and words[0] == "BUY":
        orders[key] = {"kind": "buy", "company": words[1]}
        note = f"standing order: buy {words[1]} each stock-round turn until it floats"
    else:
        return f"not understood: {line!r}; standing orders are {STANDING_HELP}"
    row.standing = json.dumps(orders, sort_keys=True)
    return note


def _standing_summary(row: Game18xx, position: int) -> str:
    order = json.loads(row.standing or "{}").get(str(position))
    return f"Your standing order now: {order['kind'] if order else 'none'}."


def _standing_order(game: Engine18xx, order: dict[str, Any]) -> str | None:
    kind = order["kind"]
    if kind in ("pass", "pass-always") and game.round == "stock":
        return "PASS"
    if kind == "auction-pass" and game.round in ("draft", "auction"):
        return "PASS"
    if kind == "buy" and game.round == "stock":
        return f"BUY {order['company']}"
    return None


def _standing(session: Session, game_row: Game, loaded: store.Loaded, now: datetime) -> list[str]:
    """Carry out the standing orders of the players to move, one after another."""
    notes: list[str] = []
    game = loaded.game
    for _ in range(MAX_STANDING_MOVES):
        orders: dict[str, Any] = json.loads(loaded.row.standing or "{}")
        for key, order in orders.items():
            company = order.get("company")
            if company in game.companies and game.companies[company].floated:
                _drop_standing(
                    session, game_row, loaded.row, int(key), f"{company} has floated", now
                )
        if game.ended:
            break
        to_move = game.to_move()
        orders = json.loads(loaded.row.standing or "{}")
        order = orders.get(str(to_move)) if to_move is not None else None
        text = _standing_order(game, order) if order else None
        if to_move is None or order is None or text is None:
            break
        receipt = apply_orders(game, to_move, text)
        if receipt.refused is not None:
            reason = receipt.refused.reason
            _drop_standing(session, game_row, loaded.row, to_move, f"{text} refused: {reason}", now)
            continue
        store.store_actions(session, loaded, receipt.actions, to_move, "standing", now)
        notes.append(f"player {to_move}'s standing order: {text}")
    return notes


def _only_pass(session: Session, game_row: Game, loaded: store.Loaded, now: datetime) -> list[str]:
    """When nothing but PASS is legal for the player to move, he passes
    without being asked, and is told."""
    game = loaded.game
    to_move = game.to_move()
    if game.ended or to_move is None or not legal_moves(game, to_move).only_pass:
        return []
    receipt = apply_orders(game, to_move, "PASS")
    if receipt.refused is not None or not receipt.actions:
        return []
    store.store_actions(session, loaded, receipt.actions, to_move, "auto", now)
    note = f"player {to_move} could only pass in {round_label(game)}: passed for him"
    seat = next((s for s in _players(session, game_row) if s.position == to_move), None)
    if seat is not None and seat.email:
        repo.queue_mail(
            session,
            key=f"18xx-only-pass/{game_row.id}/{store.move_number(session, loaded.row)}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{game_row.name}] You could only pass: passed for you",
            body=f"In {game_row.name} you could do nothing but pass; you were passed.\n",
            now=now,
            game_id=game_row.id,
            position=to_move,
        )
    return [note]


def _drop_standing(
    session: Session, game_row: Game, row: Game18xx, position: int, why: str, now: datetime
) -> None:
    orders = json.loads(row.standing or "{}")
    orders.pop(str(position), None)
    row.standing = json.dumps(orders, sort_keys=True)
    seat = next((s for s in _players(session, game_row) if s.position == position), None)
    if seat is not None and seat.email:
        repo.queue_mail(
            session,
            key=f"18xx-standing/{game_row.id}/{position}/{now.isoformat()}/{why[:40]}",
            kind="notice",
            to_address=seat.email,
            subject=f"[{game_row.name}] Your standing order has ended",
            body=f"Your standing order has ended: {why}.\n",
            now=now,
            game_id=game_row.id,
            position=position,
        )


def _lapse_conditional_passes(
    session: Session, game_row: Game, row: Game18xx, actor: int, now: datetime
) -> None:
    orders = json.loads(row.standing or "{}")
    for key, order in list(orders.items()):
        if order["kind"] == "pass" and key != str(actor):
            _drop_standing(
                session, game_row, row, int(key), f"player {actor} bought, sold or set a par", now
            )


# --- undo -----------------------------------------------------------------------


def _player_undo(
    session: Session, game_row: Game, loaded: store.Loaded, position: int, now: datetime
) -> Outcome:
    """UNDO: a player takes back the moves of his last mail, while they are
    still the last moves of the game (the next player has not acted), at most
    MAX_UNDOS_PER_ROUND times a round. The player whose move it had become is
    told; the others never heard of the move."""
    live = store.live_moves(session, loaded.row)
    if not live or live[-1].player != position or live[-1].origin != "mail":
        return _refused(
            game_row,
            "your last move is not the last move of the game: another player has acted since",
            "ask the moderator if it must be taken back",
            at=(loaded, position),
        )
    label = round_label(loaded.game)
    if _undos(session, game_row, position, label) >= MAX_UNDOS_PER_ROUND:
        return _refused(
            game_row,
            f"a player may take back his move at most {MAX_UNDOS_PER_ROUND} times a round, "
            f"and you have in {label}",
            "your move stands; ask the moderator if it must be taken back",
            at=(loaded, position),
        )
    voided = loaded.game.to_move()
    submission = live[-1].submission_id
    taken = [m for m in live if m.submission_id == submission and m.player == position]
    for move in taken:
        move.undone_at = now
    session.flush()
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_player_undo",
        now=now,
        details={"position": position, "moves": [m.seq for m in taken], "round": label},
    )
    reloaded = store.load(session, game_row.name)
    loaded.game, loaded.moves = reloaded.game, reloaded.moves
    game_row.status, loaded.row.status, loaded.row.end_reason = "active", "active", None
    why = f"player {position} took back his last move ({len(taken)} action(s))"
    told = [voided] if voided is not None and voided != position else []
    _tell(session, game_row, loaded, why, now, tag=f"undo-{taken[0].seq}", positions=told)
    _after_change(
        session, game_row, loaded, now, tag=f"undo-{taken[0].seq}", before=None, answered=position
    )
    text = f"OK: {why}.\n\n{describe(loaded.game)}\n\nIt is your move again:\n\n"
    return Outcome(
        "accepted",
        f"[{game_row.name}] OK: your move is taken back",
        text + sheet(game_row, position),
    )


def _undos(session: Session, game_row: Game, position: int, label: str) -> int:
    """How many times the player took back a move in the round `label`."""
    logged = session.scalars(
        select(ModeratorLog.details).where(
            ModeratorLog.game_id == game_row.id, ModeratorLog.action == "18xx_player_undo"
        )
    ).all()
    details = [json.loads(text) for text in logged]
    return sum(1 for d in details if d.get("position") == position and d.get("round") == label)


def _taken_back_since(session: Session, game_row: Game, move_number: int) -> bool:
    """Whether moves were taken back at or after move `move_number`."""
    return (
        session.scalar(
            select(ModeratorLog.id)
            .where(
                ModeratorLog.game_id == game_row.id,
                ModeratorLog.action.in_(("18xx_player_undo", "18xx_undo")),
                ModeratorLog.turn >= move_number,
            )
            .limit(1)
        )
        is not None
    )


def moderator_undo(session: Session, name: str, to: int, reason: str, now: datetime) -> list[int]:
    """The moderator takes back every move after move `to` (`18xx show` numbers
    them); logged, every player told. Returns the numbers taken back."""
    game_row = _game_row(session, name)
    loaded = store.load(session, name, lock=True)
    if not reason.strip():
        raise UsageError("--reason is required: the players are told why")
    live = store.live_moves(session, loaded.row)
    taken = [m for m in live if m.seq > to]
    if to < 0 or not taken:
        raise UsageError(f"no move after move {to} stands in {name}")
    for move in taken:
        move.undone_at = now
    session.flush()
    reloaded = store.load(session, name)
    loaded.game, loaded.moves = reloaded.game, reloaded.moves
    game_row.status, loaded.row.status, loaded.row.end_reason = "active", "active", None
    repo.log_action(
        session,
        game_id=game_row.id,
        turn=game_row.current_turn,
        action="18xx_undo",
        now=now,
        reason=reason,
        details={"to": to, "moves": [m.seq for m in taken]},
    )
    why = f"the moderator took back moves {taken[0].seq}-{taken[-1].seq}: {reason}"
    everyone = [p.position for p in _players(session, game_row)]
    _tell(session, game_row, loaded, why, now, tag=f"undo-{taken[0].seq}", positions=everyone)
    _after_change(session, game_row, loaded, now, tag=f"mundo-{taken[0].seq}", before=None)
    return [m.seq for m in taken]


def _tell(
    session: Session,
    game_row: Game,
    loaded: store.Loaded,
    why: str,
    now: datetime,
    tag: str,
    positions: list[int],
) -> None:
    """Moves taken back: the players `positions` are told why."""
    summary = describe(loaded.game)
    for seat in _players(session, game_row):
        if seat.position not in positions:
            continue
        repo.queue_mail(
            session,
            key=f"18xx-undo/{game_row.id}/{tag}/{now.isoformat()}/{seat.position}",
            kind="notice",
            to_address=seat.email or "",
            subject=f"[{game_row.name}] Moves taken back",
            body=f"In {game_row.name}, {why}.\n\n{summary}\n",
            now=now,
            game_id=game_row.id,
            position=seat.position,
        )


def _game_row(session: Session, name: str) -> Game:
    game = session.scalar(select(Game).where(Game.name == name))
    if game is None or family_of_game(game) is None:
        raise TurnprocError(f"no 18xx game played by mail named {name!r}")
    return game


# --- the clock ------------------------------------------------------------------


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
    game_row = _game_row(session, name)
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
    seat = next((s for s in _players(session, game_row) if s.position == to_move), None)
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
            f"then {_missed_rule()}\n\n{what_you_may_do(loaded.game, seat.position)}\n\n"
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
    seat = next((s for s in _players(session, game_row) if s.position == to_move), None)
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
    _after_change(
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
    _game_row(session, name)  # a game played by mail
    loaded = store.load(session, name, lock=True)
    loaded.row.move_hours = move_hours
    if loaded.row.status == "active":
        loaded.row.move_due = now + timedelta(hours=move_hours)
        loaded.row.reminded = 0
    return loaded.row.move_due


def position_text(session: Session, game_row: Game) -> str:
    return describe(store.load(session, _game_row(session, game_row.name).name).game)


def export(session: Session, game_row: Game) -> dict[str, Any]:
    """`game export --json` of a sequential game: the position and every
    stored move (undone ones marked)."""
    row = session.scalar(select(Game18xx).where(Game18xx.game_id == game_row.id))
    if row is None:
        raise TurnprocError(f"{game_row.name} has no 18xx game row")
    loaded = store.load(session, row.name)
    moves = session.scalars(
        select(Move18xx).where(Move18xx.game_id == row.id).order_by(Move18xx.seq)
    ).all()
    return {
        "name": game_row.name,
        "title": row.title,
        "options": json.loads(row.options),
        "status": row.status,
        "move": game_row.current_turn,
        "turn": game_row.current_turn,
        "move_hours": row.move_hours,
        "move_due": row.move_due.isoformat() if row.move_due else None,
        "to_move": loaded.game.to_move(),
        "standing": json.loads(row.standing or "{}"),
        "position": store.position(loaded.game),
        "moves": [
            {
                "seq": m.seq,
                "action": json.loads(m.action),
                "origin": m.origin,
                "player": m.player,
                "undone": m.undone_at is not None,
            }
            for m in moves
        ],
    }
