"""Standing orders (18xx.games' programmed actions, docs/18xx.md) and the pass
made for a player who can only pass."""

import json
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.moves import legal_moves
from turnproc.families.g18xx.orders import apply_orders
from turnproc.sequential.position import round_label, seats_of
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, Game18xx

MAX_STANDING_MOVES = 400  # standing orders carried out after one mail, at most


STANDING_HELP = (
    "STANDING PASS (pass in stock rounds until another player buys, sells or pars), "
    "STANDING PASS ALWAYS, STANDING AUCTION PASS, STANDING BUY <company> "
    "(buy a share each stock-round turn until it floats), STANDING OFF"
)


def set_standing(row: Game18xx, position: int, line: str) -> str:
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


def standing_summary(row: Game18xx, position: int) -> str:
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


def carry_out_standing(
    session: Session, game_row: Game, loaded: store.Loaded, now: datetime
) -> list[str]:
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


def pass_if_only_pass(
    session: Session, game_row: Game, loaded: store.Loaded, now: datetime
) -> list[str]:
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
    seat = next((s for s in seats_of(session, game_row) if s.position == to_move), None)
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
    seat = next((s for s in seats_of(session, game_row) if s.position == position), None)
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


def lapse_conditional_passes(
    session: Session, game_row: Game, row: Game18xx, actor: int, now: datetime
) -> None:
    orders = json.loads(row.standing or "{}")
    for key, order in list(orders.items()):
        if order["kind"] == "pass" and key != str(actor):
            _drop_standing(
                session, game_row, row, int(key), f"player {actor} bought, sold or set a par", now
            )
