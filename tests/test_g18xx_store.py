"""18xx games in the database: a recorded game imported part-way is continued
by orders; each applied order is stored, a refused one stores nothing, and the
game reloads to the same position on SQLite and PostgreSQL."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests.g18xx_fixtures import load_recorded
from turnproc.core.errors import TurnprocError
from turnproc.store import db
from turnproc.store import g18xx as store
from turnproc.store.models import Move18xx

from .store_support import fresh_database

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


def _moves(session: Session, game_id: int) -> int:
    return session.scalar(select(func.count()).where(Move18xx.game_id == game_id)) or 0


def test_an_imported_game_continues_by_orders(db_url: str) -> None:
    data = load_recorded("18MS/67889.json")
    engine = db.open_database(db_url)
    with db.transaction(engine) as session:
        row = store.import_recorded(session, data, "ms", NOW, upto=30)
        assert row.status == "active"
        game_id = row.id
        imported = _moves(session, game_id)
    with db.transaction(engine) as session:
        early = store.move(session, "ms", 1974, "LAY 6 C9 5", NOW, "mail")
        assert early.refused is not None and "WRA operates now" in early.refused.reason
        done = store.move(session, "ms", 1027, "DONE", NOW, "mail")  # WRA's president
        assert done.refused is None
        imported += 1
    with db.transaction(engine) as session:
        receipt = store.move(session, "ms", 1974, "LAY 6 C9 5\nLAY 57 C7 2\nPASS\n", NOW, "mail")
        assert [line for line, _ in receipt.applied] == ["LAY 6 C9 5"]
        assert (
            receipt.refused is not None
            and "legal rotations of 57 on C7: [1, 4]" in receipt.refused.reason
        )
    with db.transaction(engine) as session:
        assert _moves(session, game_id) == imported + 1
        loaded = store.load(session, "ms")
        assert loaded.game.hexes["C9"].tile == "6"
        assert loaded.game.money_is_conserved()
        last = session.scalars(
            select(Move18xx).where(Move18xx.game_id == game_id).order_by(Move18xx.seq.desc())
        ).first()
        assert (
            last is not None
            and json.loads(last.action)["type"] == "lay_tile"
            and last.origin == "mail"
        )
    with db.transaction(engine) as session, pytest.raises(TurnprocError, match="no seat"):
        store.move(session, "ms", 999, "PASS", NOW, "mail")
    with db.transaction(engine) as session, pytest.raises(TurnprocError, match="exists already"):
        store.import_recorded(session, data, "ms", NOW)


def test_a_finished_game_imports_as_ended_and_takes_no_moves(db_url: str) -> None:
    data = load_recorded("18GA/18GA_game_end_bankrupt.json")
    engine = db.open_database(db_url)
    with db.transaction(engine) as session:
        row = store.import_recorded(session, data, "ga", NOW)
        assert (row.status, row.end_reason) == ("ended", "bankrupt")
    with db.transaction(engine) as session:
        assert store.position(store.load(session, "ga").game)["scores"] == {
            str(k): v for k, v in data["result"].items()
        }
        with pytest.raises(TurnprocError, match="has ended"):
            store.move(session, "ga", 20803, "PASS", NOW, "mail")


def test_a_log_that_does_not_replay_is_not_imported(tmp_path: Path) -> None:
    data = load_recorded("18MS/67889.json")
    broken = dict(
        data, actions=[dict(a, price=1) if a.get("type") == "bid" else a for a in data["actions"]]
    )
    engine = db.open_database(f"sqlite:///{tmp_path / 't.db'}")
    with db.transaction(engine) as session, pytest.raises(TurnprocError, match="does not replay"):
        store.import_recorded(session, broken, "bad", NOW)
