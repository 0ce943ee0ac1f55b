"""The Alembic migrations build the schema the models describe, on SQLite and
PostgreSQL alike, and `turnproc db upgrade` runs them."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from turnproc.cli import main
from turnproc.store import db
from turnproc.store.models import Base

from .store_support import fresh_database


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


def test_upgrade_builds_every_table_and_matches_the_models(db_url: str) -> None:
    engine = db.create_db_engine(db_url)
    before, after = db.upgrade(engine)
    assert before is None
    assert after == db.head_revision() is not None
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        assert set(Base.metadata.tables) <= tables
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []
    assert db.upgrade(engine) == (after, after)
    engine.dispose()


def test_revisions_are_read_as_alembic_reads_them(db_url: str) -> None:
    """Opening a database reads its revision and the newest one without
    Alembic (docs/architecture.md): the same answers as Alembic's."""
    assert (
        db.head_revision() == ScriptDirectory.from_config(db._alembic_config()).get_current_head()
    )
    engine = db.create_db_engine(db_url)
    for revision in (None, "0002", db.head_revision()):
        if revision is not None:
            _migrate(engine, "upgrade", revision)
        with engine.connect() as connection:
            alembic = MigrationContext.configure(connection).get_current_revision()
            assert db.current_revision(connection) == alembic == revision
    engine.dispose()


def _migrate(engine: Engine, action: str, revision: str) -> None:
    with engine.connect() as connection:
        config = db._alembic_config()
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)
        connection.commit()


def test_a_database_of_the_first_schema_upgrades_with_its_games(db_url: str) -> None:
    """A moderator's database made by an older release keeps its games across
    `db upgrade` (and the newest migration can be undone)."""
    engine = db.create_db_engine(db_url)
    _migrate(engine, "upgrade", "0001")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO games (name, scenario, seed, current_turn, status, grace_minutes,"
                " turn_days, reminder_hours, missed_turn_limit, anonymous, early_run, created_at)"
                " VALUES ('old', 'continental-rails', 7, 3, 'active', 0, 7, '48,12', 2,"
                " false, true, '2026-01-01 00:00:00+00:00')"
            )
        )
    assert db.upgrade(engine) == ("0001", db.head_revision())
    with engine.connect() as connection:
        assert "standby_players" in inspect(connection).get_table_names()
        row = connection.execute(
            text("SELECT name, current_turn, missed_turn_policy FROM games")
        ).one()
        assert tuple(row) == ("old", 3, "computer")
    _migrate(engine, "downgrade", "0001")
    with engine.connect() as connection:
        assert "standby_players" not in inspect(connection).get_table_names()
    assert db.upgrade(engine) == ("0001", db.head_revision())
    engine.dispose()


def test_db_upgrade_command(
    db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", db_url)
    assert main(["db", "upgrade"]) == 0
    assert f"revision {db.head_revision()}" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0
    assert "already at revision" in capsys.readouterr().out


def test_an_unreachable_database_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path}/missing/dir/x.db")
    assert main(["game", "list"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("turnproc: cannot open database")
    assert len(err.strip().splitlines()) == 1
