"""The real rules engine and computer players through the store: several turns
played, then replayed from the stored orders in a fresh database, byte for byte.
(Reports are the plain summaries: the PDF renderer has its own tests.)"""

from pathlib import Path

import pytest

from turnproc.pipeline import games, reports, turns
from turnproc.pipeline import stored as pipeline_stored
from turnproc.store import repository
from turnproc.store.db import transaction

from .store_support import NOW, fresh_database, open_fresh

TURNS = 3


def _play(url: str, orders: dict[int, dict] | None = None) -> list[str]:
    engine = open_fresh(url)
    with transaction(engine) as session:
        game_id = games.create_game(
            session, scenario="continental-rails", seed=1841, name="real", now=NOW
        ).game_id
    exports = []
    for turn in range(1, TURNS + 1):
        if orders is not None:
            with transaction(engine) as session:
                for player_orders in orders.get(turn, {}).values():
                    repository.set_orders_in_force(session, game_id, turn, player_orders, NOW)
        with transaction(engine) as session:
            outcome = turns.run_turn(session, game_id, now=NOW, force=True)
            assert outcome.problems == []
        with transaction(engine) as session:
            exports.append(pipeline_stored.export(session, game_id, turn + 1))
    return exports


def test_real_turns_replay_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reports, "start_reports", reports.start_summary_reports)
    monkeypatch.setattr(turns, "start_reports", reports.start_summary_reports)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for url in fresh_database("sqlite", tmp_path / "a"):
        first = _play(url)
        engine = open_fresh(url)
        with transaction(engine) as session:
            stored = pipeline_stored.replay_orders(session, "real")
    for url in fresh_database("sqlite", tmp_path / "b"):
        assert _play(url, stored) == first
    assert len(set(first)) == TURNS
