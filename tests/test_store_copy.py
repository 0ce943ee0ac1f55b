"""`turnproc db copy`: a whole database moves from SQLite to PostgreSQL and
back with every row, and the games go on where they were, with the same results."""

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from turnproc.cli import main
from turnproc.families.continental_rails.engine.orders import Borrow, PlayerOrders
from turnproc.pipeline import games, players, stored
from turnproc.pipeline import turns as pipeline_turns
from turnproc.store import repository
from turnproc.store.copy import copy_database
from turnproc.store.db import DatabaseError, transaction
from turnproc.store.models import Base, Report

from .store_support import NOW, fresh_database, open_fresh

HUMANS = [
    players.PlayerEntry(position=1, email="ada@example.org", secret="s1"),
    players.PlayerEntry(position=4, email="bob@example.org", secret="s4"),
]


def _play(engine: Engine, game_id: int, turns: int) -> None:
    """Turns of the real engine and renderer, Ada writing each turn."""
    for _ in range(turns):
        with transaction(engine) as session:
            turn = repository.get_game(session, game_id).current_turn
            orders = PlayerOrders(position=1, orders=[Borrow(amount=100)])
            repository.set_orders_in_force(session, game_id, turn, orders, NOW)
            pipeline_turns.run_turn(
                session, game_id, now=NOW + timedelta(days=8 * turn), force=True
            )


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            table.name: int(connection.scalar(select(func.count()).select_from(table)) or 0)
            for table in Base.metadata.sorted_tables
        }


def _exports(engine: Engine, game_id: int) -> list[str]:
    with transaction(engine) as session:
        return [
            stored.export(session, game_id, t) for t in repository.stored_turns(session, game_id)
        ]


@pytest.mark.parametrize(
    ("origin", "destination"), [("sqlite", "postgres"), ("postgres", "sqlite")]
)
def test_a_copied_database_holds_every_row_and_plays_on_alike(
    origin: str, destination: str, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for source_url in fresh_database(origin, tmp_path / "a"):
        for target_url in fresh_database(destination, tmp_path / "b"):
            source, target = open_fresh(source_url), open_fresh(target_url)
            with transaction(source) as session:
                game_id = games.create_game(
                    session, scenario="continental-rails", players=HUMANS, seed=4, name="c", now=NOW
                ).game_id
            _play(source, game_id, 1)
            copied = copy_database(source, target)
            assert copied == _counts(source) == _counts(target)
            # The turn's 15 reports and the opening reports of the two humans.
            assert copied["turn_states"] == 2 and copied["reports"] == 17
            assert _exports(target, game_id) == _exports(source, game_id)
            with transaction(source) as s1, transaction(target) as s2:
                pdfs = [
                    s.scalars(select(Report.pdf_sha256).order_by(Report.id)).all() for s in (s1, s2)
                ]
            assert pdfs[0] == pdfs[1] and pdfs[0][0] is not None
            # Both go on: new rows get new ids, and the same turn gives the same result.
            _play(source, game_id, 1)
            _play(target, game_id, 1)
            assert _exports(target, game_id) == _exports(source, game_id)
            assert _counts(target) == _counts(source)
            with pytest.raises(DatabaseError, match="is not empty"):
                copy_database(source, target)


def test_db_copy_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = f"sqlite:///{tmp_path / 'old.db'}", f"sqlite:///{tmp_path / 'new.db'}"
    monkeypatch.setenv("TURNPROC_DATABASE_URL", old)
    assert (
        main(["game", "new", "--scenario", "continental-rails", "--name", "g", "--seed", "2"]) == 0
    )
    monkeypatch.setenv("TURNPROC_DATABASE_URL", new)
    capsys.readouterr()
    assert main(["db", "copy", "--from", old]) == 0
    assert "copied 1 game(s)" in capsys.readouterr().out
    assert main(["game", "status", "g", "--json"]) == 0
    assert '"name": "g"' in capsys.readouterr().out
    assert main(["db", "copy", "--from", old]) == 1
    err = capsys.readouterr().err
    assert err.startswith("turnproc: the target") and "is not empty (1 games" in err
    assert main(["db", "copy", "--from", new]) == 1
    assert "the same database" in capsys.readouterr().err
