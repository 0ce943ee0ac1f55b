"""A game's missed-turn policy, the missing-orders gate and the moderator's
schedule changes (deadline, pause, resume), on SQLite and PostgreSQL."""

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from turnproc.core.errors import UsageError
from turnproc.families.continental_rails.engine.orders import Borrow, PlayerOrders
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.pipeline import games, players, reports, schedule, turns
from turnproc.scenario.model import Scenario
from turnproc.store import repository
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage

from .store_support import NOW, STAND_IN, fresh_database, open_fresh, use_stand_in_engine

SCENARIO = "continental-rails"
HUMANS = [
    players.PlayerEntry(position=p, email=f"p{p}@example.org", secret=f"s{p}") for p in (1, 2, 3, 4)
]


def _computer_borrows(scenario: Scenario, state: GameState, position: int) -> PlayerOrders:
    return PlayerOrders(position=position, orders=[Borrow(amount=7)], source="computer")


@pytest.fixture(autouse=True)
def _stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in_engine(monkeypatch)
    borrowing = dataclasses.replace(STAND_IN, computer_orders=_computer_borrows)
    monkeypatch.setattr(reports, "family_of", lambda scenario: borrowing)
    monkeypatch.setattr(games, "family_of", lambda scenario: borrowing)
    monkeypatch.setattr(turns, "family_of", lambda scenario: borrowing)


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    for url in fresh_database(request.param, tmp_path):
        yield open_fresh(url)


def _new(engine: Engine, humans: list[players.PlayerEntry], **options: object) -> int:
    with transaction(engine) as session:
        return games.create_game(
            session, scenario=SCENARIO, players=humans, seed=5, name="p", now=NOW, **options
        ).game_id  # type: ignore[arg-type]


def _send(engine: Engine, game_id: int, position: int, amount: int) -> None:
    with transaction(engine) as session:
        turn = repository.get_game(session, game_id).current_turn
        orders = PlayerOrders(position=position, orders=[Borrow(amount=amount)])
        repository.set_orders_in_force(session, game_id, turn, orders, NOW)


def _run(engine: Engine, game_id: int, **options: object) -> turns.TurnOutcome:
    with transaction(engine) as session:
        return turns.run_turn(session, game_id, now=NOW, force=True, **options)  # type: ignore[arg-type]


def _used(engine: Engine, game_id: int, turn: int, position: int) -> PlayerOrders:
    with transaction(engine) as session:
        return repository.orders_in_force(session, game_id, turn, include_computer=True)[position]


@pytest.mark.parametrize(
    ("policy", "second_turn"),
    [
        ("computer", PlayerOrders(position=2, orders=[Borrow(amount=7)], source="computer")),
        ("idle", PlayerOrders(position=2, orders=[], source="computer")),
        ("standing", PlayerOrders(position=2, orders=[Borrow(amount=30)], source="standing")),
    ],
)
def test_the_missed_turn_policy_gives_a_missing_player_orders(
    engine: Engine, policy: str, second_turn: PlayerOrders
) -> None:
    game_id = _new(engine, HUMANS[1:2], missed_turn_policy=policy)
    _send(engine, game_id, 2, 30)
    _run(engine, game_id)
    outcome = _run(engine, game_id)  # position 2 sends nothing for turn 2
    assert outcome.missed == [2]
    assert _used(engine, game_id, 2, 2) == second_turn
    # A computer position is played by the computer whatever the policy.
    assert _used(engine, game_id, 2, 9).orders == [Borrow(amount=7)]
    with transaction(engine) as session:  # the player was told the policy on joining
        welcome = session.scalars(
            select(OutboxMessage.body).where(OutboxMessage.kind == "welcome")
        ).one()
    words = schedule.MISSED_TURN_WORDS[policy]
    assert f"If you send no orders for a turn, {words}; after 2 missed turns" in welcome


def test_standing_orders_fall_back_to_the_computer_before_any_were_sent(engine: Engine) -> None:
    game_id = _new(engine, HUMANS[1:2], missed_turn_policy="standing")
    _run(engine, game_id)
    assert _used(engine, game_id, 1, 2).orders == [Borrow(amount=7)]


def test_more_players_missing_than_usual_holds_the_turn(engine: Engine) -> None:
    game_id = _new(engine, HUMANS)
    _send(engine, game_id, 1, 10)  # three of four humans have sent nothing
    preview = _run(engine, game_id, preview=True)
    assert any("3 of 4 human players have no orders" in p for p in preview.problems)
    with pytest.raises(turns.SanityGateError, match="is mail arriving"):
        _run(engine, game_id)
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).current_turn == 1
    assert _run(engine, game_id, accept_missing=True).processed
    # Three missing is now usual for this game: the next turn is not held for it.
    _send(engine, game_id, 1, 10)
    assert _run(engine, game_id).processed


def test_a_few_missing_players_do_not_hold_the_turn(engine: Engine) -> None:
    game_id = _new(engine, HUMANS)
    _send(engine, game_id, 1, 10)
    _send(engine, game_id, 2, 10)  # two of four missing: not more than half
    assert _run(engine, game_id).processed


def test_a_held_due_game_is_logged_and_mailed_to_the_moderator_once(engine: Engine) -> None:
    game_id = _new(engine, HUMANS)
    late = NOW + timedelta(days=8)
    for _ in range(3):  # cron runs `turn run --due` again and again
        outcomes = turns.run_due(engine, "w", now=lambda: late, moderator="mod@example.org")
        assert outcomes == []
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).current_turn == 1
        refusals = [
            e for e in repository.log_entries(session, game_id) if e.action == "turn_refused"
        ]
        assert len(refusals) == 1 and "4 of 4 human players" in refusals[0].reason
        alerts = session.scalars(
            select(OutboxMessage).where(OutboxMessage.to_address == "mod@example.org")
        ).all()
        assert [m.kind for m in alerts] == ["alert"]
        assert "Turn 1 was not run" in alerts[0].subject
        assert "accept-missing" in alerts[0].body


def test_schedule_moves_the_deadline_and_tells_the_players(engine: Engine) -> None:
    game_id = _new(engine, HUMANS[:2])
    with transaction(engine) as session:
        old = repository.get_game(session, game_id).deadline
        assert old is not None
        changes = schedule.schedule(
            session, game_id, now=NOW, extend_hours=24, reason="mail server down"
        )
        assert changes == {"deadline": (old, old + timedelta(hours=24))}
        assert schedule.schedule(session, game_id, now=NOW, extend_hours=0) == {}
        log = repository.log_entries(session, game_id)[-1]
        assert (log.action, log.reason) == ("schedule", "mail server down")
        notices = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "notice")).all()
        assert sorted(m.to_address for m in notices) == ["p1@example.org", "p2@example.org"]
        assert all("mail server down" in m.body for m in notices)
        assert all(schedule.shown(old + timedelta(hours=24)) in m.subject for m in notices)


def test_a_paused_game_runs_no_turn_until_resumed(engine: Engine) -> None:
    game_id = _new(engine, HUMANS[:1])
    with transaction(engine) as session:
        schedule.schedule(session, game_id, now=NOW, pause=True, reason="holidays")
    late = NOW + timedelta(days=30)
    assert turns.run_due(engine, "w", now=lambda: late) == []
    with transaction(engine) as session, pytest.raises(UsageError, match="passed while"):
        schedule.schedule(session, game_id, now=late, resume=True)
    with transaction(engine) as session:
        schedule.schedule(session, game_id, now=late, resume=True, extend_hours=30 * 24)
        game = repository.get_game(session, game_id)
        assert game.status == "active" and game.deadline is not None and game.deadline > late
        subjects = session.scalars(
            select(OutboxMessage.subject).where(OutboxMessage.kind == "notice")
        ).all()
        assert any("paused" in s for s in subjects) and any("Resumed" in s for s in subjects)


def test_reminder_hours_are_set_at_the_start_and_changed_later(engine: Engine) -> None:
    game_id = _new(engine, HUMANS[:1], reminders="12, 72,12")
    with transaction(engine) as session:
        assert repository.get_game(session, game_id).reminder_hours == "72,12"
        changes = schedule.schedule(session, game_id, now=NOW, reminders="")
        assert changes == {"reminder_hours": ("72,12", "")}
        game = repository.get_game(session, game_id)
        assert game.deadline is not None
        late = game.deadline - timedelta(hours=1)
        assert schedule.queue_reminders(session, late) == 0  # none wanted
        schedule.schedule(session, game_id, now=NOW, reminders="2")
        assert schedule.queue_reminders(session, late) == 1  # position 1 has no orders


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"reminders": "soon"}, "hours before the deadline"),
        ({"deadline": NOW - timedelta(hours=1)}, "has passed already"),
        ({"extend_hours": 1, "deadline": NOW + timedelta(days=1)}, "not both"),
        ({"turn_days": 0}, "at least 1"),
        ({"grace_minutes": -5}, "cannot be negative"),
        ({"missed_turn_policy": "pray"}, "must be one of"),
        ({"resume": True}, "is not paused"),
    ],
)
def test_impossible_schedules_are_refused(
    engine: Engine, options: dict[str, object], problem: str
) -> None:
    game_id = _new(engine, HUMANS[:1])
    with transaction(engine) as session, pytest.raises(UsageError, match=problem):
        schedule.schedule(session, game_id, now=NOW, **options)  # type: ignore[arg-type]
    with transaction(engine) as session:
        assert [e.action for e in repository.log_entries(session, game_id)] == ["game_new"]
