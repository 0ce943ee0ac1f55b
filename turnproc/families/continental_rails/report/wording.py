"""Words for events, cash-flow lines and orders, from templates/report_news.toml.

The engine emits typed events; this module words them with Jinja2 templates
kept as data, so a new event kind never needs code here: a kind without a
template gets a generic line built from its fields.
"""

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined, Template, TemplateError

from turnproc.core.ledger import LedgerEntry
from turnproc.core.money import money
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.scenario.model import Scenario
from turnproc.templatecache import compiled

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
NEWS_FILE = TEMPLATES_DIR / "report_news.toml"

# Pseudo-account for payments pooled over many tycoons in a railroad's books.
PLAYERS = "players"

# Fields holding a tycoon's position, worded as "Name (#n)" in generic lines.
_POSITION_FIELDS = frozenset({"position", "previous", "president", "previous_owner", "target"})


@lru_cache(maxsize=4)
def _compiled(path: Path) -> tuple[dict[str, Any], dict[str, Template], dict[str, Template]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    env = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
    events = {kind: compiled(env, text) for kind, text in data.get("events", {}).items()}
    ledger = {reason: compiled(env, text) for reason, text in data.get("ledger", {}).items()}
    return data, events, ledger


def _words(identifier: str) -> str:
    text = identifier.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


class Wording:
    """Words for one game at the end of one turn (names come from that state)."""

    def __init__(self, scenario: Scenario, state: GameState, path: Path = NEWS_FILE):
        self.scenario = scenario
        self.state = state
        self.data, self._events, self._ledger = _compiled(path)
        self._climates = [level.name for level in scenario.section("climate", ClimateTable).levels]
        self._worded: dict[int, tuple[Event, str]] = {}
        self._lines: dict[tuple[str, str, str, bool], str] = {}
        # What the report makes of an event or of an account's ledger entries,
        # the same for every reader (report.model).
        self.items: dict[int, tuple[Event, Any]] = {}
        self.flows: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._helpers = {
            "who": self.tycoon,
            "rr": self.rr,
            "pc_name": self.pc,
            "route_name": self.route,
            "money": money,
            "climate_name": self.climate,
            "category_name": self.category,
            "town_name": self.town,
            "loco_name": self.locomotive,
            "tech_name": self.technology,
        }

    # helpers ------------------------------------------------------------------

    def tycoon(self, position: int | None) -> str:
        if position is None:
            return "the computer"
        if 1 <= position <= len(self.state.tycoons):
            return f"{self.state.tycoon(position).character} (#{position})"
        return f"#{position}"

    def rr(self, code: str) -> str:
        return str(code)

    def pc(self, code: str) -> str:
        route = self.scenario.routes.get(code)
        return f"{code} ({route.name})" if route is not None and route.name else str(code)

    def route(self, code: str) -> str:
        route = self.scenario.routes.get(code)
        if route is None:
            return str(code)
        towns = " - ".join(self.town(t) for t in route.towns)
        return f"{code} ({towns})"

    def town(self, town_id: str) -> str:
        town = self.scenario.towns.get(town_id)
        return town.name if town is not None else str(town_id)

    def climate(self, index: int) -> str:
        if 0 <= index < len(self._climates):
            return self._climates[index]
        return str(index)

    def category(self, category: str) -> str:
        names: dict[str, str] = self.data.get("categories", {})
        return names.get(category, _words(category))

    def locomotive(self, number: int) -> str:
        table = self.scenario.params.get("technology", {}).get("locomotives", [])
        for entry in table:
            if isinstance(entry, dict) and entry.get("type") == number and entry.get("name"):
                return f"{entry['name']} ({number})"
        return f"type {number}"

    def technology(self, letter: str) -> str:
        table = self.scenario.params.get("technology", {}).get("technologies", [])
        for entry in table:
            if isinstance(entry, dict) and entry.get("letter") == letter and entry.get("name"):
                return f"{entry['name']} ({letter})"
        return f"technology {letter}"

    # wording ------------------------------------------------------------------

    def group_title(self, order: int) -> str:
        groups: dict[str, str] = self.data.get("groups", {})
        return groups.get(str(order), groups.get("999", "Other News"))

    def routine_award(self, event: Event) -> bool:
        reason = getattr(event, "reason", None)
        return reason in self.data.get("awards", {}).get("routine_reasons", [])

    def _generic(self, title: str, fields: dict[str, Any]) -> str:
        parts = []
        for key, value in fields.items():
            if value is None or value == [] or value == {}:
                continue
            if key in _POSITION_FIELDS and isinstance(value, int):
                parts.append(f"{_words(key).lower()} {self.tycoon(value)}")
            elif key in ("amount", "price", "cost") and isinstance(value, int):
                parts.append(f"{key} {money(value)}")
            else:
                parts.append(f"{_words(key).lower()} {value}")
        return f"{_words(title)}: {', '.join(parts)}." if parts else f"{_words(title)}."

    def event(self, event: Event) -> str:
        """9.1 One news line for `event` (worded once per turn, shared by all readers)."""
        cached = self._worded.get(id(event))
        if cached is not None and cached[0] is event:
            return cached[1]
        text = self._word(event)
        self._worded[id(event)] = (event, text)
        return text

    def _word(self, event: Event) -> str:
        fields = event.model_dump(exclude={"kind", "visibility"})
        template = self._events.get(event.kind)
        if template is not None:
            try:
                return template.render(**self._helpers, **fields).strip()
            except (TemplateError, TypeError, ValueError, KeyError):
                pass
        return self._generic(event.kind, fields)

    def ledger(self, entry: LedgerEntry, account: str) -> str:
        """9.6 One cash-flow line for `entry` as seen from `account`. Worded once
        a turn for each reason, reference and other party: every tycoon's books
        hold the same dividends, interest and trades."""
        other = entry.src if entry.dst == account else entry.dst
        key = (entry.reason, entry.ref, other, entry.dst == account)
        text = self._lines.get(key)
        if text is None:
            text = self._lines[key] = self._ledger_line(entry, other, entry.dst == account)
        return text

    def _ledger_line(self, entry: LedgerEntry, other: str, received: bool) -> str:
        template = self._ledger.get(entry.reason)
        if template is not None:
            try:
                return template.render(
                    **self._helpers,
                    ref=entry.ref,
                    other=self._account(other),
                    received=received,
                ).strip()
            except (TemplateError, TypeError, ValueError, KeyError):
                pass
        text = _words(entry.reason)
        if entry.ref:
            text += f" ({entry.ref})"
        if other != "bank":
            text += f" - {self._account(other)}"
        return text

    def _account(self, account: str) -> str:
        kind, _, key = account.partition(":")
        if kind == "tycoon" and key.isdigit():
            return self.tycoon(int(key))
        if kind == "railroad":
            return self.rr(key)
        if account == PLAYERS:
            return "players"
        return "the bank"


def load_wording(scenario: Scenario, state: GameState) -> Wording:
    return Wording(scenario, state)
