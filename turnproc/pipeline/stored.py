"""A game's stored facts: the scenario it is played under (loaded once) and
the state at the start of each turn, with the program version that made it.
`export` gives a turn's state as deterministic JSON.
"""

import json
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy.orm import Session

from turnproc import __version__
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository

PROGRAM_VERSION = __version__


@cache
def scenario_for(name: str) -> Scenario:
    return load_scenario(name)


def _store_state(
    session: Session, game_id: int, state: Any, scenario: Scenario, now: datetime
) -> str:
    text = mapping.state_json(state)
    repository.add_turn_state(session, game_id, state.turn, text, PROGRAM_VERSION, now)
    repository.replace_standings(
        session, game_id, state.turn, mapping.standings_rows(state, scenario)
    )
    return text


def export(session: Session, game_key: str | int, turn: int | None = None) -> str:
    """The whole state at the start of `turn` (default: now) as deterministic JSON."""
    game = repository.get_game(session, game_key)
    row = repository.turn_state(session, game.id, turn or game.current_turn)
    return mapping.export_state(row.state)


def replay_orders(session: Session, game_key: str | int) -> dict[int, dict[int, Any]]:
    """Every turn's players' orders (not computer ones), for replaying a game."""
    game = repository.get_game(session, game_key)
    stored = repository.stored_turns(session, game.id)
    # Every turn from the first to the last stored, also those a prune
    # (`turnproc db prune`) took the states of.
    turns = range(stored[0], stored[-1] + 1) if stored else range(0)
    return {turn: repository.orders_in_force(session, game.id, turn) for turn in turns}


def export_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str)
