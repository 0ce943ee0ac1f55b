"""Between engine objects and rows: state JSON, events, ledger, standings.

The state is stored exactly as `GameState.model_dump_json()` writes it, so the
bytes a turn produced are the bytes the next turn reads. Exports re-encode it
with sorted keys, which makes them independent of dict insertion order.

The engine's modules are imported by the functions that need them, not
here: the store imports this module, and a command that reads and writes
only mail (`mail ingest` of one message, `mail send`) need not load the
rules engine's every step.
"""

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from turnproc.core.ledger import LedgerEntry
    from turnproc.families.continental_rails.engine.events import Event, Rejection
    from turnproc.families.continental_rails.engine.orders import PlayerOrders
    from turnproc.families.continental_rails.engine.state import GameState
    from turnproc.scenario.model import Scenario


def state_json(state: "GameState") -> str:
    return state.model_dump_json()


def state_from_json(text: str) -> "GameState":
    from turnproc.families.continental_rails.engine.state import GameState

    return GameState.model_validate_json(text)


def orders_from_json(text: str) -> "PlayerOrders":
    from turnproc.families.continental_rails.engine.orders import PlayerOrders

    return PlayerOrders.model_validate_json(text)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(data: Any) -> str:
    """Deterministic JSON: sorted keys, two-space indent, a final newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def export_state(text: str) -> str:
    """The whole state of a stored turn as deterministic JSON."""
    return canonical_json(json.loads(text))


# An event's row has these fields as columns of their own; its data holds the
# rest (rows stored before that also hold these four, with the same values).
EVENT_COLUMNS = ("kind", "visibility", "position", "railroad")


def event_data(event: "Event") -> str:
    """The event's fields but its row's columns, as compact JSON."""
    fields = event.model_dump(mode="json", exclude=set(EVENT_COLUMNS))
    return json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def event_from_row(
    data: str, kind: str, visibility: str, position: int | None, railroad: str | None
) -> "Event":
    """The event stored as `data` and its row's columns."""
    # resolve imports every step, registering its event classes
    import turnproc.families.continental_rails.engine.resolve  # noqa: F401
    from turnproc.families.continental_rails.engine.events import event_from_dict

    fields = json.loads(data)
    fields.update(kind=kind, visibility=visibility, position=position, railroad=railroad)
    return event_from_dict(fields)


def rejection_data(rejection: "Rejection") -> str:
    fields = rejection.model_dump(mode="json")
    return json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def rejection_from_data(text: str) -> "Rejection":
    from turnproc.families.continental_rails.engine.events import Rejection

    return Rejection.model_validate_json(text)


def ledger_entry(src: str, dst: str, amount: int, reason: str, ref: str) -> "LedgerEntry":
    from turnproc.core.ledger import LedgerEntry

    return LedgerEntry(src=src, dst=dst, amount=amount, reason=reason, ref=ref)


def standings_rows(state: "GameState", scenario: "Scenario") -> list[dict[str, Any]]:
    """1.2 Net worth and victory points of every position, for queries and status."""
    from turnproc.families.continental_rails.engine import valuation
    from turnproc.families.continental_rails.engine.state import VP_CATEGORIES

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
