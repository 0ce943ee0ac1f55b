"""The web page of an 18xx game (sequential play): whose move it is first, then
the companies and the players, all public in these games. The game is the
replay of its stored moves (turnproc/store/g18xx.py)."""

import json
from typing import Any

from sqlalchemy.orm import Session

from turnproc.store import g18xx as store
from turnproc.store.models import Game18xx


def _names(row: Game18xx) -> dict[int, str]:
    return {int(p["id"]): str(p.get("name") or p["id"]) for p in json.loads(row.players)}


def page(session: Session, game_id: int) -> dict[str, Any] | None:
    """The page's context, or None if there is no such game."""
    row = session.get(Game18xx, game_id)
    if row is None:
        return None
    loaded = store.load(session, row.name)
    game = loaded.game
    names = _names(row)
    who = game.to_move()
    position = store.position(game)
    return {
        "row": row,
        "moves": loaded.moves,
        "to_move": names.get(who, str(who)) if who is not None else None,
        "operating": game.operating_company(),
        "position": position,
        "names": {str(k): v for k, v in names.items()},
    }
