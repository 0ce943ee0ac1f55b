"""The real rules engine and computer players through the store: several turns
played, then replayed from the stored orders in a fresh database, byte for byte.
(Reports are the plain summaries: the PDF renderer has its own tests.)"""

from pathlib import Path

import pytest

from turnproc.families.continental_rails.engine.orders import PlayerOrders, SetCharacterName
from turnproc.families.continental_rails.report.wording import load_wording
from turnproc.pipeline import games, reports, turns
from turnproc.pipeline import stored as pipeline_stored
from turnproc.pipeline.players import PlayerEntry
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.web import pages
from turnproc.web.index import index_page

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


def test_a_chosen_character_name_reaches_status_the_web_index_and_the_charts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3.2 A name chosen on the first turn is the position's name everywhere
    the players are listed; a rollback past that turn takes it back."""
    monkeypatch.setattr(reports, "start_reports", reports.start_summary_reports)
    monkeypatch.setattr(turns, "start_reports", reports.start_summary_reports)
    for url in fresh_database("sqlite", tmp_path):
        engine = open_fresh(url)
        with transaction(engine) as session:
            game_id = games.create_game(
                session,
                scenario="continental-rails",
                seed=1841,
                name="named",
                now=NOW,
                players=[PlayerEntry(position=2, email="hetty@example.org", secret="s3")],
            ).game_id
            before = repository.get_player(session, game_id, 2).character
            assert before != "Hetty Green"
            orders = PlayerOrders(position=2, orders=[SetCharacterName(name="Hetty Green")])
            repository.set_orders_in_force(session, game_id, 1, orders, NOW)
        with transaction(engine) as session:
            assert turns.run_turn(session, game_id, now=NOW, force=True).problems == []
        with transaction(engine) as session:
            game = repository.get_game(session, game_id)
            status = games.status(session, game_id, NOW)
            assert {p["position"]: p["character"] for p in status["players"]}[2] == "Hetty Green"
            index = {line.href: line for line in index_page(session).lines}
            assert "Hetty Green" in index[f"/games/{game_id}"].players
            players = {p.position: p for p in repository.players(session, game_id)}
            state = mapping.state_from_json(repository.turn_state(session, game_id, 2).state)
            wording = load_wording(pipeline_stored.scenario_for(game.scenario), state)
            charts = pages.standings_charts(session, game, wording, players)
            assert "Hetty Green (#2)" in [label for _, label in charts[0].legend]
            assert "Hetty Green" in pages.own_net_worth_chart(session, game, players[2])
            turns.rollback(session, game_id, 1, NOW, reason="test")
        with transaction(engine) as session:
            assert repository.get_player(session, game_id, 2).character == before
