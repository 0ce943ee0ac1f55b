"""Sending through mail servers that misbehave, on SQLite and PostgreSQL: a
limit of messages per connection, connections dropped at each stage of the
SMTP conversation, a `mail send` killed with a message in flight. No message
is lost, none the server accepted is sent twice, and one server's trouble
does not burn the attempts of the messages behind it."""

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, select, text

from turnproc.cli import main
from turnproc.mail.compose import message_id
from turnproc.mail.outbound import STUCK_AFTER, SendReport, send_outbox, settle_interrupted
from turnproc.mail.transport import NotDelivered, SmtpTransport
from turnproc.mail.urls import smtp_url
from turnproc.store import db
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import ModeratorLog, OutboxMessage

from .mailservers import TroubledSmtp, free_port
from .store_support import fresh_database

SENDER = "moderator@example.org"
MODERATOR = "referee@example.org"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


# The installation key of the test's database: Message-IDs are made with it.
_installation: dict[str, str] = {}


@pytest.fixture
def engine(db_url: str) -> Engine:
    opened = db.open_database(db_url)
    with transaction(opened) as session:
        _installation["key"] = repo.installation_key(session)
    return opened


def _queue(engine: Engine, count: int) -> list[str]:
    keys = [f"g1/t1/report/{n}" for n in range(1, count + 1)]
    with transaction(engine) as session:
        for n, key in enumerate(keys, start=1):
            repo.queue_mail(
                session,
                key=key,
                kind="report",
                to_address=f"p{n}@example.org",
                subject=f"Turn 1 report: position {n}",
                body="Your turn report.\n",
                now=datetime.now(UTC),
            )
    return keys


def _rows(engine: Engine) -> dict[str, OutboxMessage]:
    with transaction(engine) as session:
        return {row.idempotency_key: row for row in repo.outbox(session)}


def _mid(key: str) -> str:
    return message_id(key, SENDER, _installation["key"])


def _send(engine: Engine, server: TroubledSmtp | str) -> SendReport:
    url = server if isinstance(server, str) else server.smtp_url()
    with SmtpTransport(smtp_url(url)) as transport:
        return send_outbox(engine, transport, SENDER, moderator=MODERATOR)


def test_a_limit_per_connection_costs_reconnections_not_attempts(engine: Engine) -> None:
    """The case that killed 10 of 70 reports in six runs: now one run sends all."""
    keys = _queue(engine, 70)
    server = TroubledSmtp(per_connection=10)
    try:
        report = _send(engine, server)
    finally:
        server.stop()
    assert sorted(report.sent) == sorted(keys)
    assert report.failed == report.dead == [] and report.ambiguous == []
    assert (report.reconnects, server.connections) == (6, 7)
    assert Counter(server.received) == Counter(_mid(key) for key in keys)
    rows = _rows(engine)
    assert {row.status for row in rows.values()} == {"sent"}
    assert {row.attempts for row in rows.values()} == {1}


def test_a_connection_dropped_right_after_the_250_loses_and_repeats_nothing(
    engine: Engine,
) -> None:
    keys = _queue(engine, 6)
    server = TroubledSmtp(drop_after_reply={3})
    try:
        report = _send(engine, server)
    finally:
        server.stop()
    assert sorted(report.sent) == sorted(keys) and report.failed == []
    assert report.reconnects == 1
    assert Counter(server.received) == Counter(_mid(key) for key in keys)


def test_a_connection_dropped_at_the_data_command_sends_that_message_again(
    engine: Engine,
) -> None:
    """Before its text is handed over, the server cannot have the message: it
    goes again on a new connection, without an attempt counted against it."""
    keys = _queue(engine, 6)
    server = TroubledSmtp(drop_at_data={3})
    try:
        report = _send(engine, server)
    finally:
        server.stop()
    assert sorted(report.sent) == sorted(keys) and report.failed == []
    assert report.reconnects == 1 and server.connections == 2
    assert Counter(server.received) == Counter(_mid(key) for key in keys)
    assert _rows(engine)[keys[2]].attempts == 1


def test_a_connection_dropped_before_the_reply_leaves_one_message_ambiguous(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text arrived but the server's answer did not: it may have taken the
    message (RFC 1047), so it is not resent until the moderator says so; the
    others go on, and the moderator is told once, by line, log and mail."""
    keys = _queue(engine, 6)
    server = TroubledSmtp(drop_before_reply={3})
    try:
        report = _send(engine, server)
        again = _send(engine, server)
        assert [note.key for note in report.ambiguous] == [keys[2]]
        assert "may or may not have arrived" in report.ambiguous[0].line()
        # The rest, and the alert about the third, went out in the same run.
        alerts = [key for key in report.sent if key.startswith("alert/ambiguous/3/")]
        assert sorted(report.sent) == sorted(keys[:2] + keys[3:] + alerts) and len(alerts) == 1
        assert again.sent == [] and again.ambiguous == []
        assert Counter(server.received)[_mid(keys[2])] == 1
        assert _rows(engine)[keys[2]].status == "ambiguous"
        with transaction(engine) as session:
            logged = session.scalars(
                select(ModeratorLog).where(ModeratorLog.action == "mail ambiguous")
            ).all()
            assert [entry.reason for entry in logged] == [report.ambiguous[0].line()]

        # The moderator checked: the player never got it. Requeue and send.
        monkeypatch.setenv("TURNPROC_DATABASE_URL", db_url)
        monkeypatch.setenv("TURNPROC_SMTP_URL", server.smtp_url())
        monkeypatch.setenv("TURNPROC_MAIL_FROM", SENDER)
        assert main(["mail", "requeue", "--id", "1"]) == 1  # sent, not ambiguous
        assert "nothing was requeued" in capsys.readouterr().err
        assert main(["mail", "requeue", "--id", "3"]) == 0
        assert "was ambiguous: queued again" in capsys.readouterr().out
        assert main(["mail", "send"]) == 0
        assert capsys.readouterr().out.startswith("sent 1, failed 0")
        assert Counter(server.received)[_mid(keys[2])] == 2
    finally:
        server.stop()


def test_a_server_that_fails_every_new_connection_stops_the_run(engine: Engine) -> None:
    """Two new connections dropped in a row: the server is the trouble, so the
    messages behind are left for the next run with their attempts intact."""
    keys = _queue(engine, 5)
    server = TroubledSmtp(drop_at_data=range(1, 100))
    try:
        report = _send(engine, server)
    finally:
        server.stop()
    assert [key for key, _ in report.failed] == keys[:2]
    assert report.stopped is not None and report.waiting == 3
    rows = _rows(engine)
    assert [(rows[k].status, rows[k].attempts) for k in keys[2:]] == [("queued", 0)] * 3
    assert server.received == []


def test_an_unreachable_server_costs_one_attempt_per_run(engine: Engine) -> None:
    keys = _queue(engine, 3)
    report = _send(engine, f"smtp://127.0.0.1:{free_port()}")
    assert [key for key, _ in report.failed] == keys[:1]
    assert report.waiting == 2 and "cannot use the mail server" in (report.stopped or "")
    rows = _rows(engine)
    assert [rows[k].attempts for k in keys] == [1, 0, 0]


def test_dead_messages_are_requeued_by_the_moderator(
    engine: Engine, db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = _queue(engine, 2)
    with transaction(engine) as session:
        for row in repo.outbox(session):
            repo.mark_failed(session, row.id, "550 mailbox unavailable", None)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", db_url)
    assert main(["mail", "requeue"]) == 2
    assert main(["mail", "requeue", "--dead", "--id", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"mail 2 ({keys[1]}) was dead: queued again"
    assert [(r.status, r.attempts) for r in _rows(engine).values()] == [
        ("dead", 1),
        ("queued", 0),
    ]
    assert main(["mail", "requeue", "--dead"]) == 0
    assert {row.status for row in _rows(engine).values()} == {"queued"}


def test_a_killed_mail_send_leaves_only_the_message_in_flight_ambiguous(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    keys = _queue(engine, 8)
    server = TroubledSmtp(hold_reply={3})
    env = {
        **os.environ,
        "TURNPROC_DATABASE_URL": db_url,
        "TURNPROC_SMTP_URL": server.smtp_url(),
        "TURNPROC_MAIL_FROM": SENDER,
        "TURNPROC_MODERATOR_EMAIL": MODERATOR,
    }
    mail_send = [sys.executable, "-m", "turnproc", "mail", "send"]
    try:
        sender = subprocess.Popen(mail_send, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL)
        assert server.holding.wait(120), "the third message never reached the server"
        sender.send_signal(signal.SIGKILL)
        sender.wait(timeout=30)
        statuses = [row.status for row in _rows(engine).values()]
        assert statuses == ["sent", "sent", "sending"] + ["queued"] * 5

        run = subprocess.run(
            mail_send, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
    finally:
        server.stop()
    lines = run.stdout.splitlines()
    notes = [line for line in lines if "may or may not have arrived" in line]
    assert notes == [lines[0]]
    assert lines[0].startswith("moderator: mail 3 to p3@example.org (Turn 1 report: position 3)")
    assert "turnproc mail requeue --id 3" in lines[0]
    assert run.returncode == 1 and run.stderr == ""
    # The five behind it went at once, with the moderator's alert; none twice.
    rows = _rows(engine)
    alerts = [key for key in rows if key.startswith("alert/ambiguous/3/")]
    assert len(alerts) == 1 and rows[alerts[0]].to_address == MODERATOR
    assert Counter(server.received) == Counter(_mid(key) for key in keys + alerts)
    assert rows[keys[2]].status == "ambiguous"
    assert {rows[key].status for key in keys if key != keys[2]} == {"sent"}


def test_three_mail_sends_at_once_send_each_message_once(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    """The cron job of docs/mail.md run by three machines (or without flock):
    three `turnproc mail send` processes at once, the server hanging up every
    7 messages. The server holds its answers until all three have connected
    (or a minute has passed), so they overlap. What the design promises is
    checked, whatever share of the work each sender got (one that started
    late may find nothing left): no sender fails, every message is accepted
    once and reported sent by exactly one sender, and every row is sent."""
    keys = _queue(engine, 40)
    server = TroubledSmtp(per_connection=7, start_together=3)
    env = {
        **os.environ,
        "TURNPROC_DATABASE_URL": db_url,
        "TURNPROC_SMTP_URL": server.smtp_url(),
        "TURNPROC_MAIL_FROM": SENDER,
    }
    mail_send = [sys.executable, "-m", "turnproc", "mail", "send", "--json"]
    try:
        runs = [
            subprocess.Popen(mail_send, env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
            for _ in range(3)
        ]
        outputs = [run.communicate(timeout=300)[0] for run in runs]
    finally:
        server.stop()
    assert [run.returncode for run in runs] == [0, 0, 0]
    results = [json.loads(output) for output in outputs]
    for result in results:
        assert (result["failed"], result["dead"], result["ambiguous"]) == ([], [], [])
        assert result["stopped"] is None
    sent = [result["sent"] for result in results]
    assert sorted(key for one in sent for key in one) == sorted(keys)
    assert Counter(server.accepted) == Counter(_mid(key) for key in keys)
    assert {row.status for row in _rows(engine).values()} == {"sent"}


def _migrate(engine: Engine, action: str, revision: str) -> None:
    with engine.connect() as connection:
        config = db._alembic_config()
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)
        connection.commit()


def test_the_in_flight_migration_keeps_the_outbox_and_can_be_undone(db_url: str) -> None:
    scripts = ScriptDirectory.from_config(db._alembic_config())
    before = scripts.get_revision("0003_mail_servers").down_revision
    assert isinstance(before, str)
    engine = db.create_db_engine(db_url)
    _migrate(engine, "upgrade", before)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO outbox (idempotency_key, kind, to_address, subject, body, status,"
                " attempts, created_at) VALUES ('k', 'report', 'p@example.org', 's', 'b',"
                " 'sending', 1, '2026-01-01 00:00:00+00:00')"
            )
        )
    assert db.upgrade(engine) == (before, db.head_revision())
    with engine.begin() as connection:
        row = connection.execute(text("SELECT status, sending_by, attempts FROM outbox")).one()
        assert tuple(row) == ("sending", None, 1)
        connection.execute(text("UPDATE outbox SET status = 'ambiguous'"))
    _migrate(engine, "downgrade", before)
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("outbox")}
        assert "sending_by" not in columns
        # The older release reports a message left "sending" as stuck.
        assert connection.execute(text("SELECT status FROM outbox")).scalar() == "sending"
    engine.dispose()


def test_two_senders_at_once_send_each_message_once(engine: Engine) -> None:
    """Each message is claimed just before its DATA, by whichever sender gets
    there first; the other one sends nothing and moves on."""
    keys = _queue(engine, 30)
    server = TroubledSmtp(per_connection=7)
    reports: list[SendReport] = []
    try:
        threads = [
            threading.Thread(target=lambda: reports.append(_send(engine, server))) for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
    finally:
        server.stop()
    assert len(reports) == 2
    assert sorted(reports[0].sent + reports[1].sent) == sorted(keys)
    assert Counter(server.accepted) == Counter(_mid(key) for key in keys)
    assert {row.status for row in _rows(engine).values()} == {"sent"}


Step = Callable[[EmailMessage, Callable[[], bool]], bool]


class _Scripted:
    """A transport that plays one step of a script per message handed to it:
    each step gets the message and the outbox's claim (`before_data`), and
    returns or raises what the SMTP transport would."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)

    def send(self, message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        return self.steps.pop(0)(message, before_data)


def _in_thread(
    run: Callable[[], SendReport], into: dict[str, SendReport], name: str
) -> threading.Thread:
    thread = threading.Thread(target=lambda: into.__setitem__(name, run()))
    thread.start()
    return thread


WAIT_S = 30


def test_a_sender_hung_up_on_before_its_claim_leaves_the_other_senders_claim_alone(
    engine: Engine,
) -> None:
    """The double send of two senders in one process, step by step. Both have
    loaded the message; B claims it and waits for the server's 250; A's
    server hangs up (421 at MAIL, the limit per connection) before A claimed
    anything. A must not hand B's claim back to the queue (the two share the
    process's host:pid), so A's second try, on a new connection, finds the
    message taken and sends nothing."""
    (key,) = _queue(engine, 1)
    a_has_it, b_claimed, a_done = threading.Event(), threading.Event(), threading.Event()
    delivered: list[str] = []

    def b_sends(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        assert a_has_it.wait(WAIT_S) and before_data()
        b_claimed.set()
        assert a_done.wait(WAIT_S)  # the server's 250 comes after A is through
        delivered.append("B")
        return True

    def a_hung_up_on(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        a_has_it.set()
        assert b_claimed.wait(WAIT_S)
        raise NotDelivered("421 4.7.0 Too many messages", connection_lost=True, fresh=False)

    def a_again(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        if not before_data():
            return False
        delivered.append("A")
        return True

    reports: dict[str, SendReport] = {}
    b = _in_thread(lambda: send_outbox(engine, _Scripted(b_sends), SENDER), reports, "B")
    try:
        reports["A"] = send_outbox(engine, _Scripted(a_hung_up_on, a_again), SENDER)
    finally:
        a_done.set()
        b.join(WAIT_S)
    assert delivered == ["B"]
    assert (reports["A"].sent, reports["B"].sent) == ([], [key])
    assert reports["A"].reconnects == 1 and reports["A"].failed == []
    assert [(row.status, row.attempts) for row in _rows(engine).values()] == [("sent", 1)]


def test_a_refusal_to_one_sender_does_not_requeue_what_another_sent(engine: Engine) -> None:
    """Two `mail send` runs (separate processes, or threads): A has loaded the
    message, B claims and sends it, then A's server refuses A's MAIL for a
    while (451). The message is B's, and sent: A's refusal must not turn it
    into a failed message that a later run sends again."""
    (key,) = _queue(engine, 1)
    a_has_it, b_done = threading.Event(), threading.Event()
    delivered: list[str] = []
    start = datetime.now(UTC)

    def b_sends(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        assert a_has_it.wait(WAIT_S) and before_data()
        delivered.append("B")
        return True

    def a_refused(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        a_has_it.set()
        assert b_done.wait(WAIT_S)
        raise NotDelivered("451 4.3.0 Try again later", connection_lost=False, fresh=True)

    def later(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        if not before_data():
            return False
        delivered.append("later")
        return True

    reports: dict[str, SendReport] = {}

    def b_run() -> SendReport:
        try:
            return send_outbox(engine, _Scripted(b_sends), SENDER, now=lambda: start)
        finally:
            b_done.set()

    b = _in_thread(b_run, reports, "B")
    try:
        reports["A"] = send_outbox(engine, _Scripted(a_refused), SENDER, now=lambda: start)
    finally:
        b_done.set()
        b.join(WAIT_S)
    # Past every retry delay: nothing is due again.
    afterwards = send_outbox(
        engine, _Scripted(later), SENDER, now=lambda: start + timedelta(days=1)
    )
    assert delivered == ["B"] and afterwards.sent == []
    assert [(row.status, row.attempts) for row in _rows(engine).values()] == [("sent", 1)]
    assert reports["B"].sent == [key] and reports["A"].failed == []


def test_a_run_taken_for_dead_that_gets_its_250_records_the_message_sent(
    engine: Engine,
) -> None:
    """A run waits for the server's answer longer than STUCK_AFTER (a slow
    server; or another machine's run, whose process cannot be checked):
    another run declares the message ambiguous and tells the moderator once.
    The answer then comes: the message is sent, not left ambiguous, and the
    moderator is not told twice."""
    (key,) = _queue(engine, 1)
    start = datetime.now(UTC)
    later = start + STUCK_AFTER + timedelta(seconds=1)
    settled: list[list[str]] = []

    def slow_answer(message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        assert before_data()
        for _ in range(2):
            settled.append([note.key for note in settle_interrupted(engine, lambda: later)])
        return True

    report = send_outbox(engine, _Scripted(slow_answer), SENDER, now=lambda: start)
    assert settled == [[key], []]
    assert report.sent == [key] and report.ambiguous == []
    assert [(row.status, row.attempts) for row in _rows(engine).values()] == [("sent", 1)]
