"""Replay a recorded game (18xx.games' JSON export) through the engine.

The log is first reduced to the actions that stand (undo, undo to an action and
redo resolved as 18xx.games resolves them), then applied one by one; after
every action the money must still add up.
"""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import ActionRefused, Game
from turnproc.families.g18xx.titles.load import new_game

# Recorded games follow the edition the site plays.
RECORDED_OPTIONS = {"18MS": {"edition": "18xx.games"}}
MAX_ACTIONS = 20_000


class ReplayError(ValueError):
    """The recorded game cannot be replayed; says at which action and why."""


@dataclass
class Replay:
    game: Game
    applied: int
    result: dict[str, int]
    end_reason: str | None


def standing_actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The actions left after undo and redo: a plain undo drops the last action
    (messages are never undone), undo with `action_id` rewinds to just after
    that action, redo restores the last undone group; any other action clears
    the redo stack."""
    kept: list[dict[str, Any]] = []
    undone: list[list[dict[str, Any]]] = []
    for action in actions:
        kind = action.get("type")
        if kind == "message":
            continue
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                group = kept[-1:]
                del kept[-1:]
            else:
                cut = next((i for i, a in enumerate(kept) if a.get("id", 0) > target), len(kept))
                group = kept[cut:]
                del kept[cut:]
            undone.append(group)
        elif kind == "redo":
            if undone:
                kept.extend(undone.pop())
        else:
            undone.clear()
            kept.append(action)
    return kept


def replay(data: dict[str, Any], check_money: bool = True) -> Replay:
    title = data.get("title")
    players = [p["id"] for p in data.get("players", [])]
    raw = data.get("actions", [])
    if not isinstance(raw, list) or len(raw) > MAX_ACTIONS:
        raise ReplayError(f"actions must be a list of at most {MAX_ACTIONS}")
    try:
        game = new_game(str(title), players, RECORDED_OPTIONS.get(str(title), {}))
    except (KeyError, ActionRefused) as exc:
        raise ReplayError(str(exc)) from None
    game.recorded_revenue_stands = True
    applied = 0
    for raw_action in standing_actions(raw):
        kind, entity = raw_action.get("type"), raw_action.get("entity")
        where = f"action {raw_action.get('id')} ({kind} by {entity})"
        try:
            game.apply_unchecked(parse_action(raw_action))
        except (ActionRefused, ValidationError) as exc:
            raise ReplayError(f"{where} refused: {exc}") from None
        if check_money and not game.money_is_conserved():
            raise ReplayError(f"{where}: money not conserved")
        applied += 1
    game.finish()
    return Replay(game, applied, {str(p): s for p, s in game.scores().items()}, game.end_reason)
