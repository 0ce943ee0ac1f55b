"""Mail that reaches the program after its deadline although it arrived before
it (issue 23, hole 1; docs/mail.md, Late delivery): a mail server may hand a
piped sheet over late, or still hold it when the due run starts, and the due
run cannot see that server's queue.

- `turn run --due --grace 10m` holds a game past its deadline for 10 more
  minutes (at most 12 hours), and says which games it held;
- a sheet our server took in before the deadline but read after the turn ran
  is `delayed`: kept, its player told, the moderator alerted once, logged;
  after `turn rollback`, `mail retry` applies it.

The clock is the program's own (`schedule.utcnow`, and the intake's `_now`),
set by the tests: nothing sleeps or depends on timing. Turns are played by the
storage tests' stand-in engine with plain summary reports (cheap). Runs on
SQLite and PostgreSQL (the `world` fixture of test_mail_inbound.py).
"""

import io
import json
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from email.utils import format_datetime

import pytest

from turnproc.cli import main
from turnproc.commands import mail as mail_command
from turnproc.core.errors import UsageError
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.pipeline import schedule
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage, Submission

from . import test_mail_inbound as first_corpus
from .store_support import use_stand_in_engine
from .test_mail_inbound import ANN, GAME, MODERATOR, NOW, World, mail, sheet

world = first_corpus.world  # the fixture: a game at turn 2, on SQLite and PostgreSQL

DEADLINE = NOW - timedelta(minutes=30)
OUR_SERVER = "turnproc.example.org"

Clock = Callable[[datetime], None]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Set the program's clock: the due run's and the intake's."""

    def set_to(moment: datetime) -> None:
        monkeypatch.setattr(schedule, "utcnow", lambda: moment)
        monkeypatch.setattr(mail_command, "_now", lambda: moment)

    return set_to


@pytest.fixture
def site(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The game of `world`, its deadline DEADLINE; mail piped from our server."""
    use_stand_in_engine(monkeypatch)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.setenv("TURNPROC_RECEIVED_BY", OUR_SERVER)
    monkeypatch.setenv("TURNPROC_MODERATOR_EMAIL", MODERATOR)
    monkeypatch.delenv("TURNPROC_IMAP_URL", raising=False)
    with transaction(world.engine) as session:
        game = repo.get_game(session, world.game_id)
        game.deadline = DEADLINE
        game.grace_minutes = 0
    return world


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def piped(
    world: World, monkeypatch: pytest.MonkeyPatch, body: str, message_id: str, arrived: datetime
) -> Submission:
    """`mail ingest -` of a message our server took in at `arrived`."""
    received = (
        "Received: from mx.example.org (mx.example.org [192.0.2.7])\r\n"
        f"\tby {OUR_SERVER} with ESMTP id 4F2k;\r\n\t{format_datetime(arrived)}\r\n"
    )
    data = received.encode() + bytes(mail(body, message_id=message_id))
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    main(["mail", "ingest", "-"])
    return submission(world, message_id)


def submission(world: World, message_id: str) -> Submission:
    with transaction(world.engine) as session:
        row = repo.submission_by_message_id(session, message_id)
        assert row is not None
        return row


def due(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, list[dict[str, object]]]:
    capsys.readouterr()
    assert main(["turn", "run", "--due", "--json", *args]) == 0
    data: dict[str, list[dict[str, object]]] = json.loads(capsys.readouterr().out)
    return data


def turn_of(world: World) -> int:
    with transaction(world.engine) as session:
        return repo.get_game(session, world.game_id).current_turn


def borrowed(world: World, turn: int, position: int = 1) -> list[int]:
    with transaction(world.engine) as session:
        found = repo.orders_in_force(session, world.game_id, turn).get(position)
        return [o.amount for o in found.orders] if found else []  # type: ignore[attr-defined]


def outbox(world: World, kind: str, to: str) -> list[OutboxMessage]:
    with transaction(world.engine) as session:
        return [m for m in repo.outbox(session) if m.kind == kind and m.to_address == to]


def test_the_due_run_holds_a_game_past_its_deadline_for_the_grace(
    site: World, clock: Clock, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock(DEADLINE + timedelta(minutes=1))
    assert main(["turn", "run", "--due", "--grace", "10m"]) == 0
    assert f"{GAME}: turn 2 held for grace until" in capsys.readouterr().out
    data = due(capsys, "--grace", "10m")
    assert data["processed"] == []
    [held] = data["held_for_grace"]
    assert (held["game"], held["turn"]) == (GAME, 2)
    assert held["until"] == (DEADLINE + timedelta(minutes=10)).isoformat()
    assert turn_of(site) == 2
    # Our server took Ann's sheet in 30 s before the deadline and hands it
    # over 8 minutes after: the game waited, so it counts for turn 2.
    clock(DEADLINE + timedelta(minutes=8))
    ontime = piped(
        site, monkeypatch, sheet(order="BORROW 150"), "<held@ann>", DEADLINE - timedelta(seconds=30)
    )
    assert (ontime.verdict, ontime.turn) == ("accepted", 2)
    # The grace is no extension of the deadline: a sheet that arrived after it is late.
    late = piped(
        site, monkeypatch, sheet(order="BORROW 90"), "<late@ann>", DEADLINE + timedelta(minutes=2)
    )
    assert late.verdict == "refused"
    clock(DEADLINE + timedelta(minutes=10))
    data = due(capsys, "--grace", "10m")
    assert [(o["game"], o["turn"]) for o in data["processed"]] == [(GAME, 2)]
    assert data["held_for_grace"] == []
    assert turn_of(site) == 3
    assert borrowed(site, 2) == [150]


def test_the_grace_is_at_most_12_hours(
    site: World, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    clock(DEADLINE + timedelta(minutes=1))
    capsys.readouterr()
    assert main(["turn", "run", "--due", "--grace", "13h"]) == 2
    assert "--grace 13h: at most 12h" in capsys.readouterr().err
    assert main(["turn", "run", "--due", "--grace", "soon"]) == 2
    assert "give a length like 10m" in capsys.readouterr().err
    assert turn_of(site) == 2  # refused before any turn ran
    [held] = due(capsys, "--grace", "12h")["held_for_grace"]
    assert held["until"] == (DEADLINE + timedelta(hours=12)).isoformat()
    assert schedule.parse_grace("1h30m") == timedelta(minutes=90)
    with pytest.raises(UsageError):
        schedule.parse_grace("12h1s")


def test_a_game_due_early_is_not_held(site: World) -> None:
    """Every human player's orders in: the game would have run before its
    deadline, so the grace does not hold it; without them it is held."""
    after = DEADLINE + timedelta(minutes=1)
    grace = timedelta(minutes=10)
    with transaction(site.engine) as session:
        assert schedule.due_and_held(session, after, grace) == ([], [(site.game_id, 2, GAME)])
        for position in (1, 2):
            orders = PlayerOrders(position=position, source="player")
            repo.set_orders_in_force(session, site.game_id, 2, orders, DEADLINE)
    with transaction(site.engine) as session:
        assert schedule.due_and_held(session, after, grace) == ([(site.game_id, 2, GAME)], [])


def test_a_sheet_that_came_in_time_but_was_read_after_its_turn_is_kept(
    site: World, clock: Clock, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock(DEADLINE + timedelta(minutes=1))
    assert [o["turn"] for o in due(capsys)["processed"]] == [2]  # no grace: the turn runs
    # The mail server hands over, 3 minutes after the deadline, a sheet it took
    # in 20 s before it: not lost, not refused as "the game is at turn 3".
    clock(DEADLINE + timedelta(minutes=3))
    row = piped(
        site,
        monkeypatch,
        sheet(order="BORROW 150"),
        "<queued@ann>",
        DEADLINE - timedelta(seconds=20),
    )
    assert (row.verdict, row.turn, row.position) == ("delayed", 2, 1)
    assert row.raw is not None and b"BORROW 150" in row.raw
    [answer] = outbox(site, "receipt", ANN)
    assert answer.in_reply_to == "<queued@ann>"
    assert (
        "arrived before the deadline, but reached us after the turn was resolved" in answer.subject
    )
    assert "kept, not lost" in answer.body
    [alert] = outbox(site, "alert", MODERATOR)
    assert f"#{row.id}" in alert.subject and f"turnproc mail retry {row.id}" in alert.body
    # Retried before the turn is rolled back: still delayed, nobody told twice.
    assert main(["mail", "retry", str(row.id)]) == 0
    assert submission(site, "<queued@ann>").verdict == "delayed"
    assert len(outbox(site, "alert", MODERATOR)) == 1
    assert len(outbox(site, "receipt", ANN)) == 1
    with transaction(site.engine) as session:
        logged = [e for e in repo.log_entries(session, site.game_id) if e.action == "sheet_delayed"]
    assert len(logged) == 1 and f"submission #{row.id}" in logged[0].reason
    # A sheet that arrived after the deadline stays late (refused, no alert).
    late = piped(
        site, monkeypatch, sheet(order="BORROW 90"), "<late@ann>", DEADLINE + timedelta(minutes=2)
    )
    assert late.verdict == "refused"
    assert len(outbox(site, "alert", MODERATOR)) == 1
    # The moderator rolls the turn back; the retry applies the sheet and answers OK.
    clock(DEADLINE + timedelta(minutes=20))
    assert main(["turn", "rollback", GAME, "--to", "2"]) == 0
    assert main(["mail", "retry", str(row.id)]) == 0
    assert submission(site, "<queued@ann>").verdict == "accepted"
    assert borrowed(site, 2) == [150]
    receipts = outbox(site, "receipt", ANN)
    assert [r.subject.split("] ")[1][:3] for r in receipts] == ["DEL", "REF", "OK:"]
