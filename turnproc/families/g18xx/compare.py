"""Differential check of the engine against a reference game: a game in
18xx.games' JSON export whose `reference_states` give, after each action, the
state the reference engine reached (players' cash and privates; each started
company's cash, price, trains, stations, player holdings and privates).

The game is replayed action by action under the options the log asks for (the
`18xx.games` edition, its optional rules), and our state after each action is
compared with the reference's; the first disagreement is reported with the
action where it shows. Our engine closes an operating round when the next
round's first move arrives, where the reference closes it with the last move
of the old one; so a difference counts only when it is still there after the
next two actions too (the first of them is reported).
"""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import ActionRefused, Game
from turnproc.families.g18xx.replay import ReplayError, new_replay_game, standing_actions

State = dict[str, Any]
# Actions our state may lag behind the reference's: the end of a company's
# turn, and with it of a round, shows with the next action (one round after
# another when the next company's turn ends at once too).
LAG = 2


@dataclass
class Disagreement:
    action_id: int | None
    action_type: str | None
    where: str  # e.g. "players.2.cash", "refused", "result"
    ours: Any
    reference: Any

    def __str__(self) -> str:
        return (
            f"action {self.action_id} ({self.action_type}): {self.where}: "
            f"ours {self.ours!r}, reference {self.reference!r}"
        )


def state_of(game: Game) -> State:
    """Our position in the reference's terms (see the module's docstring)."""
    tokens: dict[str, list[str]] = {}
    for hex_name, hex_state in game.hexes.items():
        for held in hex_state.tokens:
            for company in held:
                if company in game.companies:
                    tokens.setdefault(company, []).append(hex_name)
    players = {
        str(p): {
            "cash": game.cash[p],
            "bankrupt": p in game.bankrupt,
            "companies": sorted(
                k for k, v in game.privates.items() if v.owner == p and not v.closed
            ),
        }
        for p in game.players
    }
    companies: State = {}
    for name, charter in game.companies.items():
        if charter.par is None:
            continue
        companies[name] = {
            "cash": game.cash[name],
            "price": game.market.price(name),
            "trains": sorted(t.name for t in game.trains_of(name)),
            "tokens": sorted(tokens.get(name, [])),
            "shares": {
                str(p): game.percent_of(p, name) for p in game.players if game.percent_of(p, name)
            },
            "companies": sorted(
                k for k, v in game.privates.items() if v.owner == name and not v.closed
            ),
        }
    return {"players": players, "corporations": companies}


def differences(ours: Any, reference: Any, where: str = "") -> dict[str, tuple[Any, Any]]:
    """Every path (`players.2.cash`) where the two states differ."""
    if isinstance(ours, dict) and isinstance(reference, dict):
        found: dict[str, tuple[Any, Any]] = {}
        for key in sorted(set(ours) | set(reference), key=str):
            found.update(differences(ours.get(key), reference.get(key), f"{where}.{key}"))
        return found
    return {where.lstrip("."): (ours, reference)} if ours != reference else {}


def _view(state: State) -> State:
    """The parts compared; a holding of 0% is no holding."""
    companies = {
        name: {**c, "shares": {p: v for p, v in (c.get("shares") or {}).items() if v}}
        for name, c in (state.get("corporations") or {}).items()
    }
    return {"players": state.get("players"), "corporations": companies}


def compare(data: dict[str, Any]) -> Disagreement | None:
    """The first action after which our state differs from the reference's,
    the first action we refuse, or a different result or end reason; None when
    the whole game agrees."""
    states = {s["id"]: s for s in data.get("reference_states", []) if "id" in s}
    try:
        game = new_replay_game(data)
    except ReplayError as exc:
        return Disagreement(None, None, "setup", str(exc), None)
    # differences seen after the last actions: where each was first seen, and
    # after how many actions in a row
    since: dict[str, tuple[Disagreement, int]] = {}
    last: State = {}
    for raw in standing_actions(data.get("actions", [])):
        action_id, kind = raw.get("id"), raw.get("type")
        try:
            game.apply_unchecked(parse_action(raw))
        except (ActionRefused, ValidationError) as exc:
            return Disagreement(action_id, kind, "refused", str(exc), None)
        reference = states.get(action_id)
        if reference is None:
            continue
        last = reference
        found = differences(_view(state_of(game)), _view(reference))
        since = {
            path: (since[path][0], since[path][1] + 1)
            if path in since
            else (Disagreement(action_id, kind, path, *pair), 1)
            for path, pair in found.items()
        }
        lasting = [first for first, count in since.values() if count > LAG]
        if lasting:
            return min(lasting, key=lambda d: d.action_id or 0)
    game.finish()
    if since:
        found = differences(_view(state_of(game)), _view(last))
        lasting = [since[path][0] for path in found if path in since]
        if lasting:
            return lasting[0]
    result = {str(p): s for p, s in game.scores().items()}
    expected = {str(k): v for k, v in (data.get("result") or {}).items()}
    if result != expected:
        return Disagreement(None, None, "result", result, expected)
    if game.end_reason != data.get("game_end_reason"):
        return Disagreement(
            None, None, "game_end_reason", game.end_reason, data.get("game_end_reason")
        )
    return None
