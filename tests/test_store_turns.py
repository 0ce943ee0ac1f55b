"""Games in the database: new games, turn runs, replay, rollback, rerun and the
moderator's corrections, on SQLite and PostgreSQL.

The turn itself is the stand-in of `store_support` (same contract as
`resolve_turn`), so these tests check storage whatever state the rules steps
are in; test_store_engine.py runs the same round trip through the real engine.
"""

import dataclasses
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, delete, func, select

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.families.continental_rails.engine.events import Announcement
from turnproc.families.continental_rails.engine.invariants import money_problems
from turnproc.families.continental_rails.engine.orders import Borrow, PlayerOrders
from turnproc.pipeline import games, schedule
from turnproc.pipeline import players as pipeline_players
from turnproc.pipeline import reports as pipeline_reports
from turnproc.pipeline import stored as pipeline_stored
from turnproc.pipeline import turns as pipeline_turns
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.store.models import (
    EventRow,
    LedgerRow,
    OrdersInForce,
    OutboxMessage,
    Player,
    Report,
    TurnState,
)

from .store_support import NOW, STAND_IN, fresh_database, open_fresh, use_stand_in_engine

SCENARIO = "continental-rails"
HUMANS = [
    pipeline_players.PlayerEntry(
        position=1, email="ada@example.org", character="Ada Lovelace", secret="s3"
    ),
    pipeline_players.PlayerEntry(position=4, email="bob@example.org", real_name="Bob"),
]


@pytest.fixture(autouse=True)
def _stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in_engine(monkeypatch)


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    for url in fresh_database(request.param, tmp_path):
        yield open_fresh(url)


def _new(engine: Engine, name: str = "g", seed: int = 11, humans: bool = True) -> int:
    with transaction(engine) as session:
        created = games.create_game(
            session,
            scenario=SCENARIO,
            players=HUMANS if humans else [],
            seed=seed,
            name=name,
            now=NOW,
        )
    return created.game_id


def _run(
    engine: Engine, game: int | str, now_days: float = 8, **kwargs: object
) -> pipeline_turns.TurnOutcome:
    with transaction(engine) as session:
        return pipeline_turns.run_turn(session, game, now=NOW + timedelta(days=now_days), **kwargs)  # type: ignore[arg-type]


def _play_human_orders(engine: Engine, game_id: int) -> None:
    """The humans' orders in force for the current turn (differing by turn)."""
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        for position in (1, 4):
            orders = PlayerOrders(
                position=position,
                orders=[Borrow(amount=10 * game.current_turn)] * (position + game.current_turn),
            )
            repository.set_orders_in_force(session, game_id, game.current_turn, orders, NOW)


def _export(engine: Engine, game: int | str, turn: int | None = None) -> str:
    with transaction(engine) as session:
        return pipeline_stored.export(session, game, turn)


def _count(engine: Engine, model: type, **where: object) -> int:
    with transaction(engine) as session:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return int(session.scalar(query) or 0)


def test_new_game_stores_turn_one_players_and_welcome_mail(engine: Engine) -> None:
    with transaction(engine) as session:
        created = games.create_game(
            session, scenario=SCENARIO, players=HUMANS, seed=3, name="w", now=NOW
        )
    assert created.secrets.keys() == {4}  # only the player without a secret gets one made
    with transaction(engine) as session:
        players = repository.players(session, created.game_id)
        assert [p.position for p in players] == list(range(1, 16))
        assert [p.position for p in players if p.human] == [1, 4]
        ada = players[0]
        assert ada.character == "Ada Lovelace"
        assert ada.secret_hash and "s3" not in ada.secret_hash
        mails = repository.outbox(session, created.game_id)
        assert sorted(m.to_address for m in mails) == ["ada@example.org", "bob@example.org"]
        assert all(m.kind == "welcome" and m.status == "queued" for m in mails)
        bob_mail = next(m for m in mails if m.position == 4)
        assert created.secrets[4] in bob_mail.body
        # A secret from the players file is told too: the player may never have seen it.
        ada_mail = next(m for m in mails if m.position == 1).body
        assert "Your secret (write it on every turnsheet): s3" in ada_mail
        assert len(repository.standings(session, created.game_id, 1)) == 15
    state = mapping.state_from_json(_export(engine, created.game_id).replace("\n", " "))
    assert state.turn == 1 and state.seed == 3 and state.game == "w"


def test_a_turn_runs_once_and_only_when_due(engine: Engine) -> None:
    game_id = _new(engine)
    with pytest.raises(pipeline_turns.NotDue):
        _run(engine, game_id, now_days=1)
    outcome = _run(engine, game_id, now_days=8)
    assert outcome.processed and outcome.turn == 1
    assert outcome.missed == [1, 4] and outcome.computer == list(range(1, 16))
    with pytest.raises(pipeline_turns.NotDue):  # the new deadline is a week after the run
        _run(engine, game_id, now_days=8)
    again = _run(engine, game_id, now_days=8, expected_turn=1, force=True)
    assert not again.processed and "already processed" in again.message
    with transaction(engine) as session:
        assert repository.stored_turns(session, game_id) == [1, 2]
        assert repository.get_game(session, game_id).current_turn == 2
        assert repository.report_count(session, game_id, 1) == 15
        reports = [m for m in repository.outbox(session, game_id) if m.kind == "report"]
        assert sorted(m.position or 0 for m in reports) == [1, 4]
        end = mapping.state_from_json(repository.turn_state(session, game_id, 2).state)
        start = mapping.state_from_json(repository.turn_state(session, game_id, 1).state)
        assert money_problems(start, end, repository.ledger(session, game_id, 1)) == []
        assert len(repository.events(session, game_id, 1)) == outcome.events


def test_preview_stores_nothing_and_matches_the_real_run(engine: Engine) -> None:
    game_id = _new(engine)
    _play_human_orders(engine, game_id)
    tables = (TurnState, EventRow, LedgerRow, Report, OutboxMessage, OrdersInForce)
    before = [_count(engine, t) for t in tables]
    preview = _run(engine, game_id, now_days=0, preview=True)
    assert preview.preview and not preview.processed and preview.problems == []
    assert [_count(engine, t) for t in tables] == before
    real = _run(engine, game_id, now_days=0)  # early run: both humans are in
    assert real.export_sha256 == preview.export_sha256
    assert real.missed == []


def test_replaying_stored_orders_gives_byte_identical_exports(
    engine: Engine, tmp_path: Path
) -> None:
    game_id = _new(engine, name="replayed", seed=99)
    for turn in range(1, 5):
        _play_human_orders(engine, game_id)
        assert _run(engine, game_id, now_days=8 * turn, force=True).processed
    with transaction(engine) as session:
        stored = pipeline_stored.replay_orders(session, game_id)
    exports = {turn: _export(engine, game_id, turn) for turn in range(1, 6)}
    assert len(set(exports.values())) == 5

    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    for url in fresh_database("sqlite", replay_dir):
        fresh = open_fresh(url)
        replay_id = _new(fresh, name="replayed", seed=99)
        assert _export(fresh, replay_id, 1) == exports[1]
        for turn in range(1, 5):
            with transaction(fresh) as session:
                for orders in stored[turn].values():
                    repository.set_orders_in_force(session, replay_id, turn, orders, NOW)
            _run(fresh, replay_id, force=True)
            assert _export(fresh, replay_id, turn + 1) == exports[turn + 1], f"turn {turn}"


def test_rollback_then_rerun_reproduce_the_turn(engine: Engine) -> None:
    game_id = _new(engine)
    for _turn in range(1, 4):
        _play_human_orders(engine, game_id)
        _run(engine, game_id, force=True)
    exports = {turn: _export(engine, game_id, turn) for turn in range(1, 5)}
    with transaction(engine) as session:
        pipeline_turns.rollback(session, game_id, 2, NOW, reason="bad data")
    with transaction(engine) as session:
        assert repository.stored_turns(session, game_id) == [1, 2]
        assert repository.get_game(session, game_id).current_turn == 2
        assert repository.report_count(session, game_id, 2) == 0
        assert repository.events(session, game_id, 2) == []
        unsent = [
            m for m in repository.outbox(session, game_id) if m.kind == "report" and m.turn == 3
        ]
        assert unsent and all(m.status == "cancelled" for m in unsent)
        assert set(repository.orders_in_force(session, game_id, 2)) == {1, 4}
        assert [e.action for e in repository.log_entries(session, game_id)][-1] == "rollback"
    _run(engine, game_id, force=True)
    _run(engine, game_id, force=True)
    assert _export(engine, game_id, 3) == exports[3]
    assert _export(engine, game_id, 4) == exports[4]
    with transaction(engine) as session:
        queued = [
            m for m in repository.outbox(session, game_id) if m.kind == "report" and m.turn == 3
        ]
        assert queued and all(m.status == "queued" for m in queued)  # same reports, queued once
    with transaction(engine) as session:
        result = pipeline_turns.rerun(session, game_id, NOW)
    assert result.turn == 3 and result.diff == ""
    assert _export(engine, game_id, 4) == exports[4]
    with transaction(engine) as session, pytest.raises(UsageError):
        pipeline_turns.rollback(session, game_id, 4, NOW)


def test_a_turn_run_again_says_its_reports_replace_the_earlier_ones_and_why(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a rollback or a re-run, the turn's new reports say they replace
    the earlier ones, with the moderator's reason; rendered again from the
    store they say the same."""
    rendered: list[pipeline_reports.ReportInput] = []
    start = pipeline_turns.start_reports

    def start_and_keep(data: pipeline_reports.ReportInput) -> object:
        rendered.append(data)
        return start(data)

    monkeypatch.setattr(pipeline_turns, "start_reports", start_and_keep)
    game_id = _new(engine)
    _play_human_orders(engine, game_id)
    _run(engine, game_id, force=True)
    assert rendered[-1].replaces is None
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        assert pipeline_reports.stored_report_input(session, game, 1).replaces is None
        pipeline_turns.rollback(session, game_id, 1, NOW, reason="wrong railroad numbers")
    _run(engine, game_id, force=True)
    assert rendered[-1].replaces == "wrong railroad numbers"
    _run(engine, game_id, force=True)  # turn 2: run once only
    assert rendered[-1].replaces is None
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        assert pipeline_reports.stored_report_input(session, game, 1).replaces == (
            "wrong railroad numbers"
        )
        pipeline_turns.rerun(session, game_id, NOW, reason="the dividend rule fixed")
    assert rendered[-1].replaces == "the dividend rule fixed"
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        assert pipeline_reports.stored_report_input(session, game, 2).replaces == (
            "the dividend rule fixed"
        )
        assert pipeline_reports.stored_report_input(session, game, 1).replaces == (
            "wrong railroad numbers"
        )
        pipeline_turns.rerun(session, game_id, NOW)
    assert rendered[-1].replaces == ""


def test_rerun_shows_what_changed(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = _new(engine, humans=False)
    _run(engine, game_id, force=True)
    real_resolve = STAND_IN.resolve_turn

    def richer(*args: object, **kwargs: object) -> object:
        result = real_resolve(*args, **kwargs)  # type: ignore[arg-type]
        result.state.tycoons[0].prodigal_spent += 1  # a "code change" between runs
        return result

    changed = dataclasses.replace(STAND_IN, resolve_turn=richer)
    monkeypatch.setattr(pipeline_reports, "family_of", lambda scenario: changed)
    monkeypatch.setattr(games, "family_of", lambda scenario: changed)
    monkeypatch.setattr(pipeline_turns, "family_of", lambda scenario: changed)
    with transaction(engine) as session:
        result = pipeline_turns.rerun(session, game_id, NOW)
    assert '-      "prodigal_spent": 0,' in result.diff
    assert '+      "prodigal_spent": 1,' in result.diff


def test_adjustment_is_balanced_logged_and_in_the_next_news(engine: Engine) -> None:
    game_id = _new(engine)
    before = mapping.state_from_json(_export(engine, game_id))
    with transaction(engine) as session:
        games.adjust(session, game_id, position=3, cash=250, reason="lost turnsheet", now=NOW)
        games.adjust(session, game_id, railroad="NYC", cash=-100, reason="double payment", now=NOW)
    after = mapping.state_from_json(_export(engine, game_id))
    assert after.tycoon(3).cash == before.tycoon(3).cash + 250
    assert after.railroads["NYC"].cash == before.railroads["NYC"].cash - 100
    with transaction(engine) as session:
        entries = repository.ledger(session, game_id, 1, origin="moderator")
        assert [(e.src, e.dst, e.amount) for e in entries] == [
            ("bank", "tycoon:3", 250),
            ("railroad:NYC", "bank", 100),
        ]
        assert money_problems(before, after, entries) == []
        assert [e.action for e in repository.log_entries(session, game_id)][-2:] == ["adjust"] * 2
    with transaction(engine) as session, pytest.raises(UsageError, match="cannot take"):
        games.adjust(session, game_id, position=3, cash=-(10**9), reason="too much", now=NOW)
    with transaction(engine) as session, pytest.raises(UsageError, match="adjustment refused"):
        games.adjust(
            session, game_id, position=3, railroad="NYC", shares=10**6, reason="x", now=NOW
        )
    with transaction(engine) as session, pytest.raises(UsageError, match="--reason"):
        games.adjust(session, game_id, position=3, cash=5, reason=" ", now=NOW)
    outcome = _run(engine, game_id, force=True)
    assert outcome.processed and outcome.problems == []
    with transaction(engine) as session:
        news = repository.events(session, game_id, 1)
        assert [e.kind for e in news[:2]] == ["moderator_adjustment"] * 2
        assert news[0].model_dump()["reason"] == "lost turnsheet"
        assert len(news) == outcome.events + 2
    with transaction(engine) as session:
        pipeline_turns.rollback(session, game_id, 1, NOW)
    assert mapping.state_from_json(_export(engine, game_id)).tycoon(3).cash == after.tycoon(3).cash


def _miss_with_bob(engine: Engine, game_id: int, turns: int) -> None:
    """Run `turns` turns in which Ada (position 1) sends orders and Bob (4) none."""
    for _ in range(turns):
        _play_human_orders(engine, game_id)
        with transaction(engine) as session:
            session.execute(delete(OrdersInForce).where(OrdersInForce.position == 4))
        _run(engine, game_id, force=True)


def _mail_to(engine: Engine, address: str) -> list[OutboxMessage]:
    with transaction(engine) as session:
        query = select(OutboxMessage).where(OutboxMessage.to_address == address)
        return list(session.scalars(query.order_by(OutboxMessage.id)).all())


def test_missed_turns_offer_the_position_to_a_standby(engine: Engine) -> None:
    game_id = _new(engine)
    _miss_with_bob(engine, game_id, 2)
    with transaction(engine) as session:
        ada, bob = (repository.get_player(session, game_id, p) for p in (1, 4))
        assert (ada.missed_turns, ada.standby) == (0, False)
        assert (bob.missed_turns, bob.standby) == (2, True)
        assert bob.email == "bob@example.org"  # nobody waiting: the computer plays on
        assert "standby_offered" in [e.action for e in repository.log_entries(session, game_id)]
        assert pipeline_players.standby_list(session, game_id)["offered"] == [
            {"position": 4, "character": bob.character, "missed_turns": 2}
        ]
    _miss_with_bob(engine, game_id, 1)  # still offered, not offered twice
    with transaction(engine) as session:
        actions = [e.action for e in repository.log_entries(session, game_id)]
        assert actions.count("standby_offered") == 1
        assert repository.get_player(session, game_id, 4).missed_turns == 3
        added = pipeline_players.add_standby(
            session, game_id, email="cy@example.org", real_name="Cy", now=NOW
        )
    assert added.position == 4  # an offered position is taken at once
    _assert_handed_over(engine, game_id, "cy@example.org", old="bob@example.org", turn=4)


def _assert_handed_over(engine: Engine, game_id: int, new: str, old: str, turn: int) -> None:
    with transaction(engine) as session:
        player = repository.get_player(session, game_id, 4)
        assert (player.email, player.human, player.standby, player.missed_turns) == (
            new,
            True,
            False,
            0,
        )
        state = mapping.state_from_json(repository.turn_state(session, game_id, turn).state)
        assert state.tycoon(4).human
        listed = pipeline_players.standby_list(session, game_id)
        assert listed["offered"] == [] and listed["waiting"] == []
        assert listed["took_over"] == [{"email": new, "position": 4, "turn": turn}]
        assert "standby_took_over" in [e.action for e in repository.log_entries(session, game_id)]
    welcome = _mail_to(engine, new)
    assert [m.kind for m in welcome] == ["welcome"]
    assert "Your secret (write it on every turnsheet):" in welcome[0].body
    assert f"Orders for turn {turn} are due" in welcome[0].body
    # Joining a game under way: the report of the last turn, not the opening.
    assert f"g: turn {turn - 1} results for position 4" in welcome[0].body
    notice = [m for m in _mail_to(engine, old) if m.kind == "notice"]
    assert len(notice) == 1 and "handed to a standby player" in notice[0].body
    assert f"from turn {turn}." in notice[0].body.replace("\n", " ")


def test_a_position_offered_to_standby_players_still_missed_its_turn(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offered to standby players, the position is still its player's: a turn he
    sends no orders for is a missed turn, and his report says who gave the
    orders (as a report rendered again from the store says)."""
    game_id = _new(engine)
    _miss_with_bob(engine, game_id, 2)
    with transaction(engine) as session:
        assert repository.get_player(session, game_id, 4).standby
    _play_human_orders(engine, game_id)
    with transaction(engine) as session:
        session.execute(delete(OrdersInForce).where(OrdersInForce.position == 4))
    rendered: list[pipeline_reports.ReportInput] = []
    start = pipeline_turns.start_reports

    def start_and_keep(data: pipeline_reports.ReportInput) -> object:
        rendered.append(data)
        return start(data)

    monkeypatch.setattr(pipeline_turns, "start_reports", start_and_keep)
    outcome = _run(engine, game_id, force=True)
    assert 4 in outcome.missed and 4 in outcome.computer
    assert set(rendered[0].stood_in) == {4}
    assert rendered[0].stood_in[4].source == "computer"
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        again = pipeline_reports.stored_report_input(session, game, 3)
        assert set(again.stood_in) == {4}
        turn_run = [e for e in repository.log_entries(session, game_id) if e.action == "turn_run"]
        assert 4 in json.loads(turn_run[-1].details)["missed"]


def test_a_waiting_standby_takes_over_when_the_limit_is_reached(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        assert (
            pipeline_players.add_standby(
                session, game_id, email="dee@example.org", now=NOW
            ).position
            is None
        )
        old_hash = repository.get_player(session, game_id, 4).secret_hash
    _miss_with_bob(engine, game_id, 1)
    with transaction(engine) as session:
        assert repository.get_player(session, game_id, 4).email == "bob@example.org"
    _miss_with_bob(engine, game_id, 1)  # the second miss: handed over as the turn ends
    _assert_handed_over(engine, game_id, "dee@example.org", old="bob@example.org", turn=3)
    with transaction(engine) as session:
        assert repository.get_player(session, game_id, 4).secret_hash != old_hash
    _miss_with_bob(engine, game_id, 1)  # the newcomer's own count starts from nothing
    with transaction(engine) as session:
        player = repository.get_player(session, game_id, 4)
        assert (player.email, player.missed_turns, player.standby) == ("dee@example.org", 1, False)


def test_a_volunteer_who_joined_by_mail_takes_an_offered_position_as_the_turn_ends(
    engine: Engine,
) -> None:
    game_id = _new(engine)
    _miss_with_bob(engine, game_id, 2)  # offered, nobody waiting
    with transaction(engine) as session:  # as the STANDBY mail command adds them
        repository.add_standby(session, game_id, "eve@example.org", "Eve", NOW)
        assert repository.get_player(session, game_id, 4).email == "bob@example.org"
    _miss_with_bob(engine, game_id, 1)
    _assert_handed_over(engine, game_id, "eve@example.org", old="bob@example.org", turn=4)


def test_an_offered_player_who_sends_orders_again_keeps_the_position(engine: Engine) -> None:
    game_id = _new(engine)
    _miss_with_bob(engine, game_id, 2)
    _play_human_orders(engine, game_id)  # Bob is back
    _run(engine, game_id, force=True)
    with transaction(engine) as session:
        bob = repository.get_player(session, game_id, 4)
        assert (bob.email, bob.standby, bob.missed_turns) == ("bob@example.org", False, 0)
        assert "standby_withdrawn" in [e.action for e in repository.log_entries(session, game_id)]
        pipeline_players.add_standby(session, game_id, email="cy@example.org", now=NOW)
        assert repository.get_player(session, game_id, 4).email == "bob@example.org"


def test_a_missed_turn_limit_of_zero_never_hands_a_position_over(engine: Engine) -> None:
    with transaction(engine) as session:
        game_id = games.create_game(
            session,
            scenario=SCENARIO,
            players=HUMANS,
            seed=3,
            name="z",
            missed_turn_limit=0,
            now=NOW,
        ).game_id
        pipeline_players.add_standby(session, game_id, email="cy@example.org", now=NOW)
    _miss_with_bob(engine, game_id, 3)
    with transaction(engine) as session:
        bob = repository.get_player(session, game_id, 4)
        assert (bob.email, bob.standby, bob.missed_turns) == ("bob@example.org", False, 3)


def test_the_standby_list_refuses_bad_entries(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        pipeline_players.add_standby(session, game_id, email="cy@example.org", now=NOW)
    bad = [
        ("not-an-address", "is not an email address"),
        ("CY@example.org", "already on the standby list"),
        ("ada@example.org", "already plays a position"),
    ]
    for email, problem in bad:
        with transaction(engine) as session, pytest.raises(UsageError, match=problem):
            pipeline_players.add_standby(session, game_id, email=email, now=NOW)
    with transaction(engine) as session:
        pipeline_players.remove_standby(session, game_id, email="cy@example.org", now=NOW)
        schedule.schedule(session, game_id, now=NOW, pause=True)  # a paused game takes volunteers
        pipeline_players.add_standby(session, game_id, email="dee@example.org", now=NOW)
        repository.get_game(session, game_id).status = "ended"
    with transaction(engine) as session, pytest.raises(UsageError, match="has ended"):
        pipeline_players.add_standby(session, game_id, email="eve@example.org", now=NOW)
    with transaction(engine) as session, pytest.raises(UsageError, match="is not waiting"):
        pipeline_players.remove_standby(session, game_id, email="cy@example.org", now=NOW)
    with transaction(engine) as session:
        waiting = pipeline_players.standby_list(session, game_id)["waiting"]
        assert [w["email"] for w in waiting] == ["dee@example.org"]


def test_early_run_once_every_human_is_in(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        assert not schedule.is_due(session, game, NOW)
    _play_human_orders(engine, game_id)
    with transaction(engine) as session:
        game = repository.get_game(session, game_id)
        assert schedule.is_due(session, game, NOW)
        game.early_run = False
        assert not schedule.is_due(session, game, NOW)


def test_reminders_are_queued_once_per_mark(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        deadline = repository.get_game(session, game_id).deadline
    assert deadline is not None
    with transaction(engine) as session:
        assert schedule.queue_reminders(session, deadline - timedelta(hours=60)) == 0
        assert schedule.queue_reminders(session, deadline - timedelta(hours=40)) == 2
        assert schedule.queue_reminders(session, deadline - timedelta(hours=30)) == 0
        assert schedule.queue_reminders(session, deadline - timedelta(hours=6)) == 2
        keys = sorted(
            m.idempotency_key for m in repository.outbox(session, game_id) if m.kind == "reminder"
        )
    assert keys == [f"reminder/{game_id}/1/{p}/{h}" for p in (1, 4) for h in (12, 48)]


def test_assign_and_drop_a_position(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        secret = pipeline_players.assign(
            session, game_id, position=7, email="cy@example.org", character="Cy Field", now=NOW
        )
    assert secret
    with transaction(engine) as session:
        cy = repository.get_player(session, game_id, 7)
        assert cy.human and cy.email == "cy@example.org" and cy.character == "Cy Field"
        welcome = [m for m in repository.outbox(session, game_id) if m.position == 7]
        assert len(welcome) == 1 and secret in welcome[0].body
    assert mapping.state_from_json(_export(engine, game_id)).tycoon(7).human
    with transaction(engine) as session, pytest.raises(UsageError, match="taken"):
        pipeline_players.assign(
            session, game_id, position=8, email="d@example.org", character="cy field", now=NOW
        )
    with transaction(engine) as session:
        pipeline_players.drop(session, game_id, position=7, now=NOW, reason="moved away")
    with transaction(engine) as session:
        cy = session.scalars(
            select(Player).where(Player.game_id == game_id, Player.position == 7)
        ).one()
        assert not cy.human and cy.email is None and cy.secret_hash is None
    assert not mapping.state_from_json(_export(engine, game_id)).tycoon(7).human
    [left] = [m for m in _mail_to(engine, "cy@example.org") if m.kind == "notice"]
    assert "the computer plays position 7" in left.body and "moved away" in left.body


def test_a_player_replaced_by_the_moderator_is_told(engine: Engine) -> None:
    game_id = _new(engine)
    with transaction(engine) as session:
        pipeline_players.assign(session, game_id, position=4, email="dan@example.org", now=NOW)
    [notice] = [m for m in _mail_to(engine, "bob@example.org") if m.kind == "notice"]
    assert "given position 4" in notice.subject + notice.body
    assert [m.kind for m in _mail_to(engine, "dan@example.org")] == ["welcome"]
    with transaction(engine) as session:  # the same address again: nobody is replaced
        pipeline_players.assign(session, game_id, position=4, email="dan@example.org", now=NOW)
    assert [m.kind for m in _mail_to(engine, "dan@example.org")] == ["welcome"]


def test_due_games_are_each_run_once(engine: Engine) -> None:
    ids = [_new(engine, name=f"due-{i}", seed=i, humans=False) for i in range(3)]
    with transaction(engine) as session:
        repository.get_game(session, ids[2]).deadline = NOW + timedelta(days=30)
    outcomes = pipeline_turns.run_due(engine, "w1", now=lambda: NOW + timedelta(days=8))
    assert sorted(o.game_id for o in outcomes) == ids[:2]
    assert pipeline_turns.run_due(engine, "w1", now=lambda: NOW + timedelta(days=8)) == []


def test_sanity_gate_refuses_a_turn_that_loses_money(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = _new(engine, humans=False)
    real_resolve = STAND_IN.resolve_turn

    def leaky(*args: object, **kwargs: object) -> object:
        result = real_resolve(*args, **kwargs)  # type: ignore[arg-type]
        result.state.tycoons[1].cash += 7  # money from nowhere
        return result

    leaking = dataclasses.replace(STAND_IN, resolve_turn=leaky)
    monkeypatch.setattr(pipeline_reports, "family_of", lambda scenario: leaking)
    monkeypatch.setattr(games, "family_of", lambda scenario: leaking)
    monkeypatch.setattr(pipeline_turns, "family_of", lambda scenario: leaking)
    with pytest.raises(pipeline_turns.SanityGateError, match="tycoon:2"):
        _run(engine, game_id, force=True)
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).current_turn == 1
        assert repository.stored_turns(session, game_id) == [1]


def test_a_missing_report_refuses_the_turn_after_the_state_was_written(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's state is written while the reports render; a report gate
    failing afterwards must leave none of it behind."""
    game_id = _new(engine)
    before = {model: _count(engine, model) for model in (TurnState, EventRow, LedgerRow, Report)}

    def one_short(
        report: pipeline_reports.ReportInput, positions: object = None
    ) -> pipeline_reports.Reports:
        rendered = pipeline_reports.summary_reports(report)
        rendered.pop(9)
        return pipeline_reports.ReadyReports(rendered)

    monkeypatch.setattr(pipeline_reports, "start_reports", one_short)
    monkeypatch.setattr(pipeline_turns, "start_reports", one_short)
    with pytest.raises(pipeline_turns.SanityGateError, match="reports rendered for 14 positions"):
        _run(engine, game_id, force=True)
    assert {model: _count(engine, model) for model in before} == before
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).current_turn == 1
        assert repository.stored_turns(session, game_id) == [1]


def test_a_failing_renderer_stores_nothing(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = _new(engine)
    closed: list[bool] = []

    class Broken:
        def result(self) -> dict[int, pipeline_reports.RenderedReport]:
            raise RuntimeError("font file unreadable")

        def close(self) -> None:
            closed.append(True)

    monkeypatch.setattr(pipeline_reports, "start_reports", lambda report, positions=None: Broken())
    monkeypatch.setattr(pipeline_turns, "start_reports", lambda report, positions=None: Broken())
    with pytest.raises(RuntimeError, match="font file unreadable"):
        _run(engine, game_id, force=True)
    assert closed == [True]
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).current_turn == 1
        assert repository.stored_turns(session, game_id) == [1]
    assert _count(engine, Report, game_id=game_id, turn=1) == 0  # turn 0's: the welcome's


def test_unknown_game_is_a_clear_error(engine: Engine) -> None:
    with transaction(engine) as session, pytest.raises(TurnprocError, match="no game 'nope'"):
        repository.get_game(session, "nope")


def test_rerun_keeps_later_adjustments_and_rollback_carries_announcements(
    engine: Engine,
) -> None:
    game_id = _new(engine, humans=False)
    _run(engine, game_id, force=True)
    with transaction(engine) as session:
        games.adjust(session, game_id, position=5, cash=70, reason="refund", now=NOW)
        repository.add_events(
            session, game_id, 2, [Announcement(position=5, text="Buy PENN!")], origin="moderator"
        )
    adjusted = _export(engine, game_id)
    with transaction(engine) as session:
        assert pipeline_turns.rerun(session, game_id, NOW).diff == ""
    assert _export(engine, game_id) == adjusted
    with transaction(engine) as session:
        assert [e.kind for e in repository.events(session, game_id, 2)] == [
            "moderator_adjustment",
            "announcement",
        ]
        pipeline_turns.rollback(session, game_id, 1, NOW)
    with transaction(engine) as session:
        kinds = [e.kind for e in repository.events(session, game_id, 1)]
    assert kinds == ["announcement"]  # the adjustment went with turn 2's state


def test_a_rerun_with_no_change_mails_nothing_and_prints_the_real_deadline(
    engine: Engine,
) -> None:
    """A rerun after a schedule change: the same results, so no player who has
    his report gets another; the report kept prints the game's deadline, not the
    rerun's time plus the turn's days."""
    game_id = _new(engine)
    _play_human_orders(engine, game_id)
    _run(engine, game_id, force=True)
    moved = NOW + timedelta(days=30)
    with transaction(engine) as session:
        for message in repository.outbox(session, game_id, status="queued"):
            repository.mark_sent(session, message.id, NOW + timedelta(days=8))
        repository.get_game(session, game_id).deadline = moved  # `game schedule --deadline`
    with transaction(engine) as session:
        result = pipeline_turns.rerun(session, game_id, NOW + timedelta(days=10))
    assert result.diff == ""
    with transaction(engine) as session:
        queued = repository.outbox(session, game_id, status="queued")
        assert [m.subject for m in queued if m.kind == "report"] == []
        game = repository.get_game(session, game_id)
        assert game.deadline == moved
        # What a report of the turn prints (the stand-in report here prints no deadline).
        assert pipeline_reports.report_deadline(session, game, 1) == f"{moved:%Y-%m-%d %H:%M} UTC"
