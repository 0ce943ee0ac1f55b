"""Storage for many games: reports stored once and mailed by reference (the PDF
the turn rendered, kept until its mail is sent; rendered again for a resend,
byte for byte, or the moderator told), the due scan as one query, mail queued
in bulk, `db prune`, and the 0003 migration carrying existing data over."""

import dataclasses
import hashlib
import json
import zlib
from collections.abc import Callable, Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from turnproc.cli import main
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.report.rules_pdf import RULES_PDF_NAME
from turnproc.mail.outbound import send_outbox
from turnproc.pipeline import games as pipeline_games
from turnproc.pipeline import players, schedule, stored, turns
from turnproc.pipeline import reports as pipeline_reports
from turnproc.store import db, repository
from turnproc.store.db import transaction
from turnproc.store.models import ModeratorLog, OutboxMessage, Report

from .mailservers import TroubledSmtp
from .store_support import NOW, fresh_database, open_fresh, use_stand_in_engine

SCENARIO = "continental-rails"
HUMANS = [
    players.PlayerEntry(position=2, email="ada@example.org", secret="s1"),
    players.PlayerEntry(position=5, email="bob@example.org", secret="s2"),
]


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


class Capture:
    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    def send(self, message: EmailMessage, before_data: Callable[[], bool] = lambda: True) -> bool:
        if not before_data():
            return False
        self.sent.append(message)
        return True


def _attachments(message: EmailMessage) -> dict[str, bytes]:
    found = {}
    for part in message.iter_attachments():
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        name = str(part.get_filename())
        # The welcome mail also carries the rules, which are no stored report.
        key = "rules" if name == RULES_PDF_NAME else name.rsplit(".", 1)[-1]
        found[key] = payload
    return found


def _game_after_one_turn(url: str) -> tuple[Engine, int]:
    """A new game of two human players in a fresh database, and its first turn run."""
    engine = open_fresh(url)
    with transaction(engine) as session:
        game_id = pipeline_games.create_game(
            session, scenario=SCENARIO, players=HUMANS, seed=5, name="mailed", now=NOW
        ).game_id
    with transaction(engine) as session:
        turns.run_turn(session, game_id, now=NOW, force=True, accept_missing=True)
    return engine, game_id


def _no_rendering(session: object, reports: object) -> dict[int, bytes]:
    raise AssertionError("a report was rendered again to be sent")


def _reports(engine: Engine, game_id: int) -> dict[tuple[int, int], Report]:
    with transaction(engine) as session:
        found = session.scalars(select(Report).where(Report.game_id == game_id)).all()
        session.expunge_all()
    return {(r.turn, r.position): r for r in found}


def test_report_mail_carries_the_pdf_the_turn_rendered_and_only_its_digest_stays(
    url: str,
) -> None:
    """The real engine and renderer: a new game and one turn; the outbox copies
    nothing of the reports; the sender mails the PDFs the turn rendered and
    stored, without rendering any again, then drops their bytes and keeps
    their digests."""
    engine, game_id = _game_after_one_turn(url)
    with transaction(engine) as session:
        messages = repository.outbox(session, game_id)
        assert sorted((m.kind, m.position) for m in messages) == [
            ("report", 2),
            ("report", 5),
            ("welcome", 2),
            ("welcome", 5),
        ]
        for message in messages:
            assert message.report_id is not None and message.pdf is None
            assert message.json_attachment is None
        assert all(m.body == "" for m in messages if m.kind == "report")
    reports = _reports(engine, game_id)
    assert sorted(reports) == [(0, 2), (0, 5)] + [(1, p) for p in range(1, 16)]
    mailed = {(0, 2), (0, 5), (1, 2), (1, 5)}
    for key, report in reports.items():
        assert report.pdf_sha256 is not None
        if key in mailed:  # the human players': kept, as rendered, until sent
            assert report.pdf is not None
            assert hashlib.sha256(report.pdf).hexdigest() == report.pdf_sha256
        else:  # the computer players' reports are not mailed: digest only
            assert report.pdf is None
    transport = Capture()
    sent = send_outbox(engine, transport, "moderator@example.org", render=_no_rendering)
    assert len(sent.sent) == 4 and not sent.failed and not sent.mismatched
    for message in transport.sent:
        subject = str(message["Subject"])
        turn = 0 if "Welcome" in subject else 1
        position = 2 if str(message["To"]) == "ada@example.org" else 5
        report = reports[(turn, position)]
        files = _attachments(message)
        assert ("rules" in files) == (turn == 0)
        assert files["pdf"] == report.pdf
        assert files["json"].decode() == report.json
        body = message.get_body(("plain",))
        assert body is not None and report.text.strip() in body.get_content()
    after = _reports(engine, game_id)
    assert all(r.pdf is None for r in after.values())
    assert {k: r.pdf_sha256 for k, r in after.items()} == {
        k: r.pdf_sha256 for k, r in reports.items()
    }


def test_a_pdf_is_kept_while_any_message_carrying_it_is_unsent(url: str) -> None:
    """A resend queued before the turn's mail went out carries the same stored
    PDF: the bytes stay until both are sent, and neither is rendered again."""
    engine, game_id = _game_after_one_turn(url)
    with transaction(engine) as session:
        report = repository.get_report(session, game_id, 1, 2)
        assert report is not None and report.pdf is not None
        resend = _queue_resend(session, game_id, report)
        first = [m.id for m in repository.outbox(session, game_id) if m.report_id == report.id]
        assert len(first) == 2
        repository.outbox_message(session, resend).status = "failed"  # goes later
        repository.outbox_message(session, resend).next_attempt_at = NOW + timedelta(days=9)
    sent = send_outbox(
        engine, Capture(), "moderator@example.org", now=lambda: NOW, render=_no_rendering
    )
    assert len(sent.sent) == 4
    assert _reports(engine, game_id)[(1, 2)].pdf is not None  # the resend waits
    transport = Capture()
    again = send_outbox(
        engine,
        transport,
        "moderator@example.org",
        now=lambda: NOW + timedelta(days=10),
        render=_no_rendering,
    )
    assert again.sent == [f"resend/{game_id}/1/2"]
    assert hashlib.sha256(_attachments(transport.sent[0])["pdf"]).hexdigest() == (
        _reports(engine, game_id)[(1, 2)].pdf_sha256
    )
    assert _reports(engine, game_id)[(1, 2)].pdf is None


def test_a_rerun_that_mails_nothing_keeps_no_pdf(url: str) -> None:
    """A rerun that changes nothing cancels the report mail of players who
    have their report: the PDFs stored for that mail go with it."""
    engine, game_id = _game_after_one_turn(url)
    assert len(send_outbox(engine, Capture(), "moderator@example.org").sent) == 4
    with transaction(engine) as session:
        assert turns.rerun(session, game_id, NOW + timedelta(days=1)).diff == ""
    reports = _reports(engine, game_id)
    assert len(reports) == 17 and all(r.pdf_sha256 for r in reports.values())
    assert [key for key, r in reports.items() if r.pdf is not None] == []


def _queue_resend(session: Session, game_id: int, report: Report) -> int:
    """What `game resend` queues: a message carrying the stored report."""
    return repository.queue_mail(
        session,
        key=f"resend/{game_id}/{report.turn}/{report.position}",
        kind="report",
        to_address="ada@example.org" if report.position == 2 else "bob@example.org",
        subject=f"Turn {report.turn} report (again): position {report.position}",
        body="",
        now=NOW,
        game_id=game_id,
        turn=report.turn,
        position=report.position,
        pdf_name=f"mailed-turn-{report.turn}-position-{report.position}.pdf",
        report_id=report.id,
    ).id


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in_engine(monkeypatch)


def test_a_resend_renders_the_reports_waiting_of_a_turn_at_once(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once sent, a report keeps its digest only; resent, it is rendered again.
    `mail send` sends message by message; OutboxPdfs renders every report of
    a turn waiting in the outbox when the first is sent (its map pages drawn
    once), not one rendering per message, and the PDFs are the ones the turn
    rendered."""
    engine, game_id = _game_after_one_turn(url)
    assert len(send_outbox(engine, Capture(), "moderator@example.org").sent) == 4
    with transaction(engine) as session:
        turn_1 = [repository.get_report(session, game_id, 1, p) for p in (2, 5)]
        digests = sorted(r.pdf_sha256 for r in turn_1 if r is not None and r.pdf is None)
        for report in turn_1:
            assert report is not None
            _queue_resend(session, game_id, report)
    renderings: list[list[int]] = []
    render = pipeline_reports.render_reports

    def counted(data: pipeline_reports.ReportInput, positions: list[int]) -> object:
        renderings.append(sorted(positions))
        return render(data, positions)

    monkeypatch.setattr(pipeline_reports, "render_reports", counted)
    transport = Capture()
    sent = send_outbox(
        engine, transport, "moderator@example.org", render=pipeline_reports.OutboxPdfs()
    )
    assert len(sent.sent) == 2 and not sent.failed and not sent.mismatched
    assert renderings == [[2, 5]]
    mailed = sorted(hashlib.sha256(_attachments(m)["pdf"]).hexdigest() for m in transport.sent)
    assert len(digests) == 2 and mailed == digests


def test_a_resend_whose_pdf_differs_is_sent_logged_and_told_to_the_moderator(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report rendered again that is not the PDF its turn rendered (here the
    renderer draws one byte more, as a release that draws differently would):
    it is still the report of those facts and is mailed, and the moderator
    sees it once: a line of `mail send`, the moderator's log, and a mail."""
    engine, game_id = _game_after_one_turn(url)
    assert len(send_outbox(engine, Capture(), "moderator@example.org").sent) == 4
    with transaction(engine) as session:
        report = repository.get_report(session, game_id, 1, 5)
        assert report is not None and report.pdf is None
        stored_digest, report_id = report.pdf_sha256, report.id
        _queue_resend(session, game_id, report)
    render = pipeline_reports.render_reports

    def drawn_differently(
        data: pipeline_reports.ReportInput, positions: list[int]
    ) -> dict[int, pipeline_reports.RenderedReport]:
        return {
            position: dataclasses.replace(report, pdf=(report.pdf or b"") + b"\n")
            for position, report in render(data, positions).items()
        }

    monkeypatch.setattr(pipeline_reports, "render_reports", drawn_differently)
    server = TroubledSmtp()
    monkeypatch.setenv("TURNPROC_DATABASE_URL", url)
    monkeypatch.setenv("TURNPROC_SMTP_URL", server.smtp_url())
    monkeypatch.setenv("TURNPROC_MAIL_FROM", "turns@example.org")
    monkeypatch.setenv("TURNPROC_MODERATOR_EMAIL", "referee@example.org")
    try:
        assert main(["mail", "send"]) == 0
    finally:
        server.stop()
    lines = capsys.readouterr().out.splitlines()
    told = [line for line in lines if line.startswith("moderator: ")]
    assert len(told) == 1 and f"(report {report_id})" in told[0]
    assert "not the one the turn rendered" in told[0] and stored_digest is not None
    assert stored_digest[:16] in told[0]
    assert lines[-1].startswith("sent 2, failed 0")  # the resend and the alert
    with transaction(engine) as session:
        logged = session.scalars(
            select(ModeratorLog).where(ModeratorLog.action == "report digest mismatch")
        ).all()
        assert [entry.reason for entry in logged] == [told[0].removeprefix("moderator: ")]
        alerts = repository.outbox(session, game_id, status="sent")
        alert = [m for m in alerts if m.kind == "alert"]
        assert len(alert) == 1 and alert[0].to_address == "referee@example.org"
        assert alert[0].body.strip() == logged[0].reason
        # The digest stored is the turn's; the mismatch does not overwrite it.
        assert repository.get_report_by_id(session, report_id).pdf_sha256 == stored_digest  # type: ignore[union-attr]
    assert len(server.accepted) == 2


def _game(engine: Engine, name: str, humans: list[players.PlayerEntry]) -> int:
    with transaction(engine) as session:
        return pipeline_games.create_game(
            session, scenario=SCENARIO, players=humans, seed=3, name=name, now=NOW
        ).game_id


def test_the_due_scan_finds_deadlines_passed_and_early_runs(url: str, stand_in: None) -> None:
    engine = open_fresh(url)
    late = _game(engine, "late", HUMANS)
    early = _game(engine, "early", HUMANS)
    waiting = _game(engine, "waiting", HUMANS)
    computer = _game(engine, "computer", [])
    later = NOW + timedelta(days=7, minutes=30)
    with transaction(engine) as session:
        repository.get_game(session, waiting).grace_minutes = 60  # deadline passed, grace not
        for position in (2, 5):  # every human of "early" is in; one of "waiting"
            orders = PlayerOrders(position=position, source="player")
            repository.set_orders_in_force(session, early, 1, orders, NOW)
        repository.set_orders_in_force(
            session, waiting, 1, PlayerOrders(position=2, source="player"), NOW
        )
    with transaction(engine) as session:
        due = schedule.due_games(session, later)
        assert [name for _, _, name in due] == ["late", "early", "computer"]
        for game in repository.list_games(session):
            assert schedule.is_due(session, game, later) == (game.id in (late, early, computer))
        assert [name for _, _, name in schedule.due_games(session, NOW)] == ["early"]
        repository.get_game(session, waiting).grace_minutes = 0  # due_at follows the grace
    with transaction(engine) as session:
        assert {name for _, _, name in schedule.due_games(session, later)} == {
            "late",
            "computer",
            "early",
            "waiting",
        }


def test_queued_mail_in_bulk_is_queued_once_and_requeued_when_cancelled(url: str) -> None:
    engine = open_fresh(url)
    message = {
        "idempotency_key": "k1",
        "kind": "notice",
        "to_address": "ada@example.org",
        "subject": "s",
        "body": "b",
    }
    with transaction(engine) as session:
        repository.queue_mails(session, [message, {**message, "idempotency_key": "k2"}], NOW)
        repository.queue_mails(session, [message], NOW + timedelta(hours=1))
    with transaction(engine) as session:
        rows = repository.outbox(session)
        assert [(r.idempotency_key, r.status, r.created_at) for r in rows] == [
            ("k1", "queued", NOW),
            ("k2", "queued", NOW),
        ]
        rows[0].status = "cancelled"
        rows[1].status = "sent"
    later = NOW + timedelta(hours=2)
    with transaction(engine) as session:
        repository.queue_mails(session, [message, {**message, "idempotency_key": "k2"}], later)
    with transaction(engine) as session:
        rows = repository.outbox(session)
        assert [(r.status, r.next_attempt_at) for r in rows] == [
            ("queued", later),
            ("sent", NOW),
        ]


def test_prune_keeps_what_a_replay_needs(url: str, stand_in: None) -> None:
    engine = open_fresh(url)
    game_id = _game(engine, "pruned", HUMANS)
    for turn in range(1, 5):
        with transaction(engine) as session:
            turns.run_turn(session, game_id, now=NOW + timedelta(days=8 * turn), force=True)
    with transaction(engine) as session:
        final = stored.export(session, game_id)
        orders = stored.replay_orders(session, game_id)
        game = repository.get_game(session, game_id)
        game.status = "ended"
        assert repository.prunable_games(session) == []  # its mail has not gone yet
        for message in repository.outbox(session, game_id):
            message.status = "sent"
    with transaction(engine) as session:
        assert [g.id for g in repository.prunable_games(session)] == [game_id]
        deleted = repository.prune_game(session, game_id)
    assert deleted["reports"] == 2 + 4 * 15  # the welcome reports and four turns'
    assert deleted["turn_states"] == 3 and deleted["events"] > 0 and deleted["outbox"] > 0
    with transaction(engine) as session:
        assert repository.outbox(session, game_id) == []
        assert repository.stored_turns(session, game_id) == [1, 5]
        assert stored.export(session, game_id) == final
        assert stored.replay_orders(session, game_id) == orders
        assert len(orders) == 5


def test_db_prune_command(
    url: str, stand_in: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = open_fresh(url)
    game_id = _game(engine, "pruned", [])
    with transaction(engine) as session:
        turns.run_turn(session, game_id, now=NOW, force=True)
        repository.get_game(session, game_id).status = "ended"
    monkeypatch.setenv("TURNPROC_DATABASE_URL", url)
    assert main(["db", "prune", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"games": ["pruned"], "deleted": {}}
    assert main(["db", "prune", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == ["pruned"] and out["deleted"]["events"] > 0
    assert main(["db", "prune", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["deleted"] == {}


def _migrate(engine: Engine, action: str, revision: str) -> None:
    with engine.connect() as connection:
        config = db._alembic_config()
        config.attributes["connection"] = connection
        getattr(__import__("alembic.command").command, action)(config, revision)
        connection.commit()


def test_the_0003_migration_carries_reports_mail_deadlines_and_records(url: str) -> None:
    engine = db.create_db_engine(url)
    _migrate(engine, "upgrade", "0002")
    final = {
        "records": [{"category": "rail_builder", "score": 70, "character": "Hill", "game": "a"}]
    }
    with engine.begin() as c:
        for name, status in (("a", "ended"), ("b", "active")):
            c.execute(
                text(
                    "INSERT INTO games (name, scenario, seed, current_turn, status, deadline,"
                    " grace_minutes, turn_days, reminder_hours, missed_turn_limit,"
                    " missed_turn_policy, anonymous, early_run, created_at) VALUES (:n,"
                    " 'continental-rails', 7, 2, :s, '2026-01-08 00:00:00', 30, 7, '48,12', 2,"
                    " 'computer', false, true, '2026-01-01 00:00:00')"
                ),
                {"n": name, "s": status},
            )
        c.execute(
            text(
                "INSERT INTO turn_states (game_id, turn, state, sha256, program_version,"
                " processed_at) VALUES (1, 2, :state, 'x', 'old', '2026-01-02 00:00:00')"
            ),
            {"state": json.dumps(final)},
        )
        c.execute(
            text(
                "INSERT INTO reports (game_id, turn, position, text, pdf, json)"
                " VALUES (2, 1, 3, 'Report text\n', :pdf, '{\"turn\": 1}')"
            ),
            {"pdf": b"%PDF-1.4 old"},
        )
        c.execute(
            text(
                "INSERT INTO outbox (idempotency_key, game_id, turn, position, kind, to_address,"
                " subject, body, pdf_name, json_attachment, status, attempts, created_at)"
                " VALUES ('report/2/1/3/x', 2, 1, 3, 'report', 'ada@example.org', 's',"
                " 'Report text\n', 'b-1-3.pdf', '{\"turn\": 1}', 'queued', 0,"
                " '2026-01-02 00:00:00')"
            )
        )
    assert db.upgrade(engine) == ("0002", db.head_revision())
    engine.dispose()
    engine = db.open_database(url)
    with transaction(engine) as session:
        report = session.scalars(select(Report)).one()
        assert (report.text, report.json, report.pdf) == (
            "Report text\n",
            '{"turn": 1}',
            b"%PDF-1.4 old",
        )
        assert zlib.decompress(report.text_z) == b"Report text\n"
        message = session.scalars(select(OutboxMessage)).one()
        assert (message.report_id, message.body, message.json_attachment) == (report.id, "", None)
        assert repository.game_records(session) == final["records"]
        game = repository.get_game(session, "b")
        assert game.due_at == game.deadline + timedelta(minutes=30)
    with transaction(engine) as session:  # a new game starts with the migrated records
        created = pipeline_games.create_game(session, scenario=SCENARIO, seed=1, name="c", now=NOW)
        state = repository.turn_state(session, created.game_id, 1).state
        assert json.loads(state)["records"] == final["records"]
    engine.dispose()
    engine = db.create_db_engine(url)
    _migrate(engine, "downgrade", "0002")
    with engine.connect() as c:
        assert tuple(c.execute(text("SELECT text, json FROM reports")).one()) == (
            "Report text\n",
            '{"turn": 1}',
        )
        assert c.execute(text("SELECT body FROM outbox")).scalar_one() == "Report text\n"
    engine.dispose()


def test_the_scale_bench_measures_a_site_in_an_empty_database(tmp_path: Path) -> None:
    """Three real batch turns and copies of their game; under 1 MB a game-turn."""
    from turnproc.core.errors import UsageError
    from turnproc.scale import run_scale

    engine = open_fresh(f"sqlite:///{tmp_path / 'site.db'}")
    figures = run_scale(engine, 3, runs=1)
    assert 0 < figures["stored_bytes_per_game_turn"] < 1_000_000
    assert figures["reminders_queued"] > 0
    for key in ("due_scan_s", "due_scan_100_due_s", "game_new_s", "reminders_again_s"):
        assert figures[key] >= 0
    with transaction(engine) as session:
        games = repository.list_games(session)
    # The template, 3 at mid-game, 3 ended and the new game timed.
    assert sorted(g.status for g in games).count("ended") == 3 and len(games) == 8
    with pytest.raises(UsageError, match="empty database"):
        run_scale(engine, 3, runs=1)
