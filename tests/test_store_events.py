"""A turn's events stored and read back, on SQLite and PostgreSQL: an event's
row holds its kind, visibility, position and railroad as columns and the rest
as compact JSON; rows stored in the older form (every field in the data) read
back the same."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, insert, select

from turnproc import bench
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.pipeline import games
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.store.models import EventRow

from .store_support import NOW, fresh_database, open_fresh


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    for url in fresh_database(request.param, tmp_path):
        yield open_fresh(url)


def _a_busy_turn(scenario: Scenario) -> list[Event]:
    state = bench.midgame(scenario, 1)
    events = list(resolve_turn(scenario, state, bench.all_orders(scenario, state)).events)
    # Every field the four columns hold comes in more than one value.
    assert {e.visibility for e in events} >= {"public", "private"}
    assert {e.position for e in events} > {None} and {e.railroad for e in events} > {None}
    return events


def _game(engine: Engine) -> int:
    with transaction(engine) as session:
        created = games.create_game(
            session, scenario="continental-rails", seed=1, name="events", now=NOW
        )
    return created.game_id


def test_a_turns_events_read_back_as_they_were_stored(engine: Engine, scenario: Scenario) -> None:
    events = _a_busy_turn(scenario)
    game_id = _game(engine)
    with transaction(engine) as session:
        repository.add_events(session, game_id, 15, events, origin="turn")
    with transaction(engine) as session:
        assert repository.events(session, game_id, 15) == events
        public = repository.public_events_between(session, game_id, 15, 15)[15]
        assert public == [e for e in events if e.visibility != "private"]
        stored = session.scalars(select(EventRow.data)).all()
    for data in stored:
        assert not set(json.loads(data)) & set(mapping.EVENT_COLUMNS)
        compact = json.dumps(
            json.loads(data), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
        assert data == compact


def test_events_stored_with_every_field_in_their_data_read_back_the_same(
    engine: Engine, scenario: Scenario
) -> None:
    events = _a_busy_turn(scenario)
    game_id = _game(engine)
    rows = [
        {
            "game_id": game_id,
            "turn": 15,
            "seq": seq,
            "origin": "turn",
            "kind": event.kind,
            "position": event.position,
            "railroad": event.railroad,
            "visibility": event.visibility,
            # As rows were stored before: every field, json.dumps' own separators.
            "data": json.dumps(event.model_dump(mode="json"), sort_keys=True, ensure_ascii=False),
        }
        for seq, event in enumerate(events)
    ]
    with transaction(engine) as session:
        session.execute(insert(EventRow), rows)
    with transaction(engine) as session:
        assert repository.events(session, game_id, 15) == events
