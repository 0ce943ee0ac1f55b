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
RECORDED_OPTIONS = {"18MS": {"edition": "18xx.games"}, "18GA": {"edition": "18xx.games"}}
# The site's optional rules (`settings.optional_rules`) as our game options.
SITE_OPTIONAL_RULES = {
    "18MS": {"or_11": ("operating_rounds", "11")},
    "18GA": {
        "double_yellow_first_or": ("double_yellow_first_or", "yes"),
        "new_georgia_florida_home": ("new_georgia_florida_home", "yes"),
        "cotton_port": ("cotton_port", "yes"),
        "soft_rust_4t": ("soft_rust_4t", "yes"),
    },
}
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


def replay_options(data: dict[str, Any]) -> dict[str, str]:
    """The game options a recorded game asks for: the site's edition, and its
    optional rules (an optional rule we do not know is refused, not ignored)."""
    title = str(data.get("title"))
    options = dict(RECORDED_OPTIONS.get(title, {}))
    settings = data.get("settings") or {}
    rules = settings.get("optional_rules") or [] if isinstance(settings, dict) else []
    if not isinstance(rules, list):
        raise ReplayError("settings.optional_rules must be a list")
    known = SITE_OPTIONAL_RULES.get(title, {})
    for rule in rules:
        if rule not in known:
            raise ReplayError(
                f"optional rule {rule!r} is not played here; {title} knows: "
                f"{', '.join(sorted(known)) or 'none'}"
            )
        key, value = known[rule]
        options[key] = value
    return options


def new_replay_game(data: dict[str, Any]) -> Game:
    """A new game for a recorded one: its title, players and options."""
    players = [p["id"] for p in data.get("players", [])]
    raw = data.get("actions", [])
    if not isinstance(raw, list) or len(raw) > MAX_ACTIONS:
        raise ReplayError(f"actions must be a list of at most {MAX_ACTIONS}")
    try:
        game = new_game(str(data.get("title")), players, replay_options(data))
    except (KeyError, ValueError) as exc:
        raise ReplayError(str(exc)) from None
    game.recorded_revenue_stands = True
    return game


def replay(data: dict[str, Any], check_money: bool = True) -> Replay:
    game = new_replay_game(data)
    raw = data.get("actions", [])
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
