"""The position as text, and the answers built from it: the title's material by
mail (HELP, RULES), the legal moves, the blank sheet, a refused sheet's
answer, the link to the player's page, `game status` and `game export`."""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.families.boundary import SequentialFamily
from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.moves import legal_moves
from turnproc.families.g18xx.report.model import bank_words, offer_words, standing_offers
from turnproc.families.g18xx.report.rules_pdf import ORDERS, order_language
from turnproc.families.g18xx.report.rules_pdf import pdf_name as rules_pdf_name
from turnproc.families.registry import sequential_family
from turnproc.pipeline.links import PAGE_MOVES, mail_footer
from turnproc.playerdocs import player_doc
from turnproc.store import g18xx as store
from turnproc.store.models import Game, Game18xx, Move18xx, Player


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


def missed_rule() -> str:
    return (
        "a move not made in time is a pass where the rules allow one, otherwise "
        "the computer's (or the moderator's)."
    )


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


def page_link(game_row: Game, player: Player, now: datetime) -> str:
    """The link to the player's own web page (pipeline/links.py), for the end of
    his mail: nothing when the moderator has set no `web_url`."""
    return mail_footer(game_row.id, player, now, PAGE_MOVES)


def refuse(
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


def seats_of(session: Session, game_row: Game) -> list[Player]:
    return list(
        session.scalars(
            select(Player).where(Player.game_id == game_row.id).order_by(Player.position)
        ).all()
    )


def sequential_game(session: Session, name: str) -> Game:
    game = session.scalar(select(Game).where(Game.name == name))
    if game is None or family_of_game(game) is None:
        raise TurnprocError(f"no 18xx game played by mail named {name!r}")
    return game


def position_text(session: Session, game_row: Game) -> str:
    return describe(store.load(session, sequential_game(session, game_row.name).name).game)


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
