"""11.3 Records over all games: a new game starts with the best scores of the
games that ended before it in the same database."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from turnproc.families.continental_rails.engine.state import RecordHolder
from turnproc.families.continental_rails.engine.steps.victory import merge_records, victory_params
from turnproc.pipeline import games, stored, turns
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository
from turnproc.store.db import transaction

from .store_support import NOW, fresh_database, open_fresh, use_stand_in_engine


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    for url in fresh_database(request.param, tmp_path):
        yield open_fresh(url)


def _record(category: str, score: int, who: str, game: str) -> RecordHolder:
    return RecordHolder(category=category, score=score, character=who, game=game)


def test_merging_keeps_the_best_and_the_earlier_holder_of_a_tie(scenario: Scenario) -> None:
    params = victory_params(scenario).game_end
    earlier = [_record("robber_baron", 40, "Gould", "a"), _record("rail_baron", 500, "Hill", "a")]
    later = [
        _record("robber_baron", 40, "Fisk", "b"),  # a tie keeps Gould
        _record("rail_mogul", 12, "Scott", "b"),  # a first record
        _record("rail_baron", 500, "Drew", "b"),  # a perfect Rail Baron replaces any record
    ]
    merged = {r.category: r.character for r in merge_records(earlier, later, params)}
    assert merged == {"robber_baron": "Gould", "rail_mogul": "Scott", "rail_baron": "Drew"}


def _end_game(engine: Engine, game_id: int, records: list[RecordHolder]) -> None:
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        row = repository.turn_state(session, game_id, game.current_turn)
        state = mapping.state_from_json(row.state)
        state.ended = True
        state.records = records
        repository.replace_turn_state(
            session, game_id, game.current_turn, mapping.state_json(state)
        )
        game.status = "ended"  # as the batch ends a game: its records join the rows
        games.add_game_records(session, stored.scenario_for(game.scenario), state)


def _new(engine: Engine, name: str) -> int:
    with transaction(engine) as session:
        created = games.create_game(
            session, scenario="continental-rails", seed=3, name=name, now=NOW
        )
    return created.game_id


def _records_of(engine: Engine, game_id: int) -> dict[str, tuple[int, str]]:
    with transaction(engine) as session:
        state = mapping.state_from_json(repository.turn_state(session, game_id, 1).state)
    return {r.category: (r.score, r.character) for r in state.records}


def test_a_new_game_starts_with_the_records_of_ended_games(engine: Engine) -> None:
    first = _new(engine, "first")
    assert _records_of(engine, first) == {}
    _end_game(engine, first, [_record("rail_prodigal", 90, "Flagler", "first")])
    second = _new(engine, "second")
    _end_game(
        engine,
        second,
        [
            _record("rail_prodigal", 80, "Flagler", "first"),
            _record("rail_builder", 70, "Hill", "second"),
        ],
    )
    running = _new(engine, "running")  # not ended: its records do not count yet
    third = _new(engine, "third")
    assert _records_of(engine, third) == {
        "rail_prodigal": (90, "Flagler"),
        "rail_builder": (70, "Hill"),
    }
    assert _records_of(engine, running) == _records_of(engine, third)


def test_rolling_back_an_ended_game_takes_its_records_back(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_stand_in_engine(monkeypatch)
    kept, undone = _new(engine, "kept"), _new(engine, "undone")
    with transaction(engine) as session:
        turns.run_turn(session, undone, now=NOW, force=True)
    _end_game(engine, kept, [_record("rail_builder", 70, "Hill", "kept")])
    _end_game(engine, undone, [_record("rail_builder", 90, "Gould", "undone")])
    assert _records_of(engine, _new(engine, "after-both")) == {"rail_builder": (90, "Gould")}
    with transaction(engine) as session:
        turns.rollback(session, undone, 1, NOW, reason="a wrong result")
    assert _records_of(engine, _new(engine, "after-rollback")) == {"rail_builder": (70, "Hill")}
