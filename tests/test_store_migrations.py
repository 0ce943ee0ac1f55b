"""The Alembic migrations build the schema the models describe, on SQLite and
PostgreSQL alike, and `turnproc db upgrade` runs them."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

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
