"""Between engine objects and rows: state JSON, events, ledger, standings.

The state is stored exactly as `GameState.model_dump_json()` writes it, so the
bytes a turn produced are the bytes the next turn reads. Exports re-encode it
with sorted keys, which makes them independent of dict insertion order.
"""

import hashlib
import json
from typing import Any

# imports every step, registering its event classes
import turnproc.families.continental_rails.engine.resolve  # noqa: F401
from turnproc.core.ledger import LedgerEntry
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.events import Event, Rejection, event_from_dict
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES, GameState
from turnproc.scenario.model import Scenario


def state_json(state: GameState) -> str:
    return state.model_dump_json()


def state_from_json(text: str) -> GameState:
    return GameState.model_validate_json(text)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(data: Any) -> str:
    """Deterministic JSON: sorted keys, two-space indent, a final newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def export_state(text: str) -> str:
    """The whole state of a stored turn as deterministic JSON."""
    return canonical_json(json.loads(text))


def event_data(event: Event) -> str:
    return json.dumps(event.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def event_from_data(text: str) -> Event:
    return event_from_dict(json.loads(text))


def rejection_data(rejection: Rejection) -> str:
    return json.dumps(rejection.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def rejection_from_data(text: str) -> Rejection:
    return Rejection.model_validate_json(text)


def ledger_entry(src: str, dst: str, amount: int, reason: str, ref: str) -> LedgerEntry:
    return LedgerEntry(src=src, dst=dst, amount=amount, reason=reason, ref=ref)


def standings_rows(state: GameState, scenario: Scenario) -> list[dict[str, Any]]:
    """1.2 Net worth and victory points of every position, for queries and status."""
    rows = []
    for tycoon in state.tycoons:
        row: dict[str, Any] = {
            "position": tycoon.position,
            "character": tycoon.character,
            "cash": tycoon.cash,
            "net_worth": valuation.net_worth(state, scenario, tycoon.position),
            "vp_total": sum(tycoon.vp.get(c, 0) for c in VP_CATEGORIES),
        }
        for category in VP_CATEGORIES:
            row[f"vp_{category}"] = tycoon.vp.get(category, 0)
        rows.append(row)
    return rows
