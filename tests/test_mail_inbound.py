"""The inbound corpus: every kind of bad mail gets its documented answer (or a
deliberate silence), nothing crashes, every message is stored raw.

The game is built straight through the repository (no reports rendered), at
turn 2 with a stored turn-1 report, so old sheets and RESEND can be tried.
"""

import base64
import io
import mailbox
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from turnproc import playerdocs
from turnproc.cli import main
from turnproc.core.errors import TurnprocError
from turnproc.families.continental_rails.engine.events import Announcement
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.intake import submit
from turnproc.intake.auth import hash_secret
from turnproc.mail import inbound
from turnproc.mail.classify import LOOP_HEADER, LOOP_VALUE
from turnproc.mail.inbound import IngestOutcome, ingest, resume_pending, retry
from turnproc.mail.outbound import carried_report
from turnproc.playerdocs import player_doc
from turnproc.scenario.model import Scenario
from turnproc.store import mapping
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage, Submission

from .store_support import fresh_database

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GAME = "corpus"
ANN = "ann@example.org"
BOB = "bob@example.org"
SECRETS = {1: "alpha-one-1", 2: "bravo-two-2"}
MODERATOR = "referee@example.org"


@dataclass
class World:
    engine: Engine
    game_id: int
    url: str


@pytest.fixture(params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest, tmp_path: Path, scenario: Scenario) -> Iterator[World]:
    """A game at turn 2: players 1 (Ann) and 2 (Bob) are human, a turn-1 report stored."""
    urls = fresh_database(request.param, tmp_path)
    url = next(urls)
    from turnproc.store.db import open_database

    engine = open_database(url)
    state = new_game(
        scenario,
        5,
        [PlayerSetup(position=1, human=True), PlayerSetup(position=2, human=True)],
        game=GAME,
    )
    with transaction(engine) as session:
        game = repo.create_game(
            session,
            name=GAME,
            scenario="continental-rails",
            seed=5,
            current_turn=2,
            status="active",
            deadline=NOW + timedelta(days=7),
            grace_minutes=0,
            turn_days=7,
            reminder_hours="48,12",
            missed_turn_limit=2,
            anonymous=False,
            early_run=True,
            created_at=NOW - timedelta(days=7),
        )
        for turn in (1, 2):
            turn_state = state.model_copy(update={"turn": turn})
            repo.add_turn_state(session, game.id, turn, mapping.state_json(turn_state), "test", NOW)
        for tycoon in state.tycoons:
            human = tycoon.position in SECRETS
            repo.add_player(
                session,
                game_id=game.id,
                position=tycoon.position,
                character=tycoon.character,
                email={1: ANN, 2: BOB}.get(tycoon.position),
                secret_hash=hash_secret(SECRETS[tycoon.position]) if human else None,
                human=human,
            )
        repo.add_report(
            session, game.id, 1, 1, "Turn 1 report of Ann.\n", b"%PDF-1.4 ann", '{"turn": 1}'
        )
        game_id = game.id
    try:
        yield World(engine, game_id, url)
    finally:
        next(urls, None)


def sheet(
    position: int = 1, turn: int = 2, secret: str | None = None, order: str = "BORROW 100"
) -> str:
    return (
        f"TURNSHEET game: {GAME} turn: {turn} player: {position} "
        f"secret: {secret or SECRETS[position]}\nPERSONAL\n{order}\nEND\n"
    )


def mail(
    body: str = "", sender: str = ANN, message_id: str | None = None, **headers: str
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "moderator@example.org"
    message["Subject"] = headers.pop("Subject", "orders")
    if message_id is not None:
        message["Message-ID"] = message_id
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message


def run(world: World, raw: bytes | EmailMessage, origin: str = "test") -> IngestOutcome:
    data = raw if isinstance(raw, bytes) else bytes(raw)
    return ingest(world.engine, data, origin, NOW, moderator=MODERATOR)


def replies(world: World, outcome: IngestOutcome) -> list[OutboxMessage]:
    with transaction(world.engine) as session:
        return [
            row
            for row in repo.outbox(session)
            if row.in_reply_to == outcome.message_id and row.kind != "alert"
        ]


def stored(world: World) -> list[Submission]:
    with transaction(world.engine) as session:
        return list(session.scalars(select(Submission).order_by(Submission.id)))


# --- turnsheets ---------------------------------------------------------------


def test_a_good_sheet_is_accepted_stored_and_answered_in_its_thread(world: World) -> None:
    outcome = run(world, mail(sheet(), message_id="<good@ann>"))
    assert (outcome.verdict, outcome.answered) == ("accepted", True)
    [reply] = replies(world, outcome)
    assert reply.kind == "receipt" and reply.to_address == ANN
    assert reply.in_reply_to == "<good@ann>" and reply.subject.startswith(f"[{GAME}] OK")
    [row] = stored(world)
    assert row.verdict == "accepted" and row.message_id == "<good@ann>"
    assert row.raw is not None and b"TURNSHEET" in row.raw
    with transaction(world.engine) as session:
        in_force = repo.orders_in_force(session, world.game_id, 2)
    assert in_force[1].orders and in_force[1].orders[0].kind == "borrow"


def test_a_duplicate_message_id_is_processed_once(world: World) -> None:
    first = run(world, mail(sheet(), message_id="<twice@ann>"))
    second = run(world, mail(sheet(order="BORROW 200"), message_id="<twice@ann>"))
    assert first.verdict == "accepted"
    assert (second.verdict, second.answered, second.submission_id) == ("duplicate", False, None)
    assert len(stored(world)) == 1
    assert len(replies(world, first)) == 1


def test_a_message_without_message_id_gets_a_stable_synthetic_one(world: World) -> None:
    raw = bytes(mail(sheet()))
    assert b"Message-ID" not in raw
    first = run(world, raw)
    again = run(world, raw)
    assert first.message_id.endswith("@sha256.turnproc.invalid>")
    assert again.verdict == "duplicate" and again.message_id == first.message_id
    [reply] = [r for r in _outbox(world) if r.kind == "receipt"]
    assert reply.in_reply_to is None  # never thread under an id the player never saw


def test_html_only_sheet_is_read(world: World) -> None:
    message = EmailMessage()
    message["From"] = ANN
    message["Message-ID"] = "<html@ann>"
    lines = "".join(f"<div>{line}</div>" for line in sheet().splitlines())
    message.set_content(f"<html><body>{lines}</body></html>", subtype="html")
    assert run(world, message).verdict == "accepted"


def test_a_sheet_in_a_txt_attachment_wins_over_a_body_mentioning_it(world: World) -> None:
    message = mail("My turnsheet is attached.", message_id="<att@ann>")
    message.add_attachment(sheet().encode(), maintype="text", subtype="plain", filename="t.txt")
    assert run(world, message).verdict == "accepted"


def test_wrong_and_missing_charsets_are_read(world: World) -> None:
    body = sheet(order="BORROW 100  # für Jérôme").encode("utf-8")
    declared_wrong = (
        b"From: ann@example.org\r\nMessage-ID: <cs1@ann>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=x-no-such-charset\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\n" + body
    )
    undeclared_latin1 = b"From: ann@example.org\r\nMessage-ID: <cs2@ann>\r\n\r\n" + sheet(
        order="BORROW 100  # caf\xe9".encode("latin-1").decode("latin-1")
    ).encode("latin-1")
    assert run(world, declared_wrong).verdict == "accepted"
    assert run(world, undeclared_latin1).verdict == "accepted"
    rows = stored(world)
    assert "Jérôme" in rows[0].text and "café" in rows[1].text


def test_quoted_printable_and_base64_bodies_are_decoded(world: World) -> None:
    qp = (
        b"From: ann@example.org\r\nMessage-ID: <qp@ann>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"TURNSHEET game: corpus turn: 2 player: 1 secret: alpha-o=\r\nne-1\r\n"
        b"BORROW 1=30\r\nEND\r\n"
    )
    b64 = (
        b"From: ann@example.org\r\nMessage-ID: <b64@ann>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + base64.encodebytes(sheet(order="BORROW 140").encode())
    )
    assert run(world, qp).verdict == "accepted"
    assert run(world, b64).verdict == "accepted"


def test_a_binary_attachment_is_ignored_and_the_sheet_read(world: World) -> None:
    message = mail(sheet(), message_id="<bin@ann>")
    message.add_attachment(os.urandom(4096), maintype="application", subtype="octet-stream")
    message.add_attachment(b"\x89PNG\r\n\x1a\n" + os.urandom(512), maintype="image", subtype="png")
    assert run(world, message).verdict == "accepted"


def test_forged_sender_wrong_secret_and_old_turn_are_refused_with_answers(world: World) -> None:
    forged = run(world, mail(sheet(), sender="mallory@evil.example", message_id="<f@m>"))
    wrong = run(world, mail(sheet(secret="guess"), message_id="<w@ann>"))
    old = run(world, mail(sheet(turn=1), message_id="<old@ann>"))
    assert [o.verdict for o in (forged, wrong, old)] == ["refused"] * 3
    assert "not the registered address" in replies(world, forged)[0].body
    assert replies(world, wrong)[0].to_address == ANN
    assert "wrong secret" in replies(world, wrong)[0].body
    assert "turn 1, but the game is at turn 2" in replies(world, old)[0].body
    with transaction(world.engine) as session:
        assert repo.orders_in_force(session, world.game_id, 2) == {}


# --- mail that is refused unread or never answered -----------------------------


def test_empty_message_is_stored_and_not_answered(world: World) -> None:
    outcome = run(world, b"")
    assert (outcome.verdict, outcome.answered) == ("ignored", False)
    assert stored(world)[0].raw == b""


def test_a_25_mb_message_is_refused_with_a_clear_answer(world: World) -> None:
    message = mail(sheet(), message_id="<huge@ann>")
    message.add_attachment(
        os.urandom(19 * 1024 * 1024), maintype="application", subtype="zip", filename="a.zip"
    )
    raw = bytes(message)
    assert len(raw) > 25 * 1024 * 1024
    outcome = run(world, raw)
    assert (outcome.verdict, outcome.answered) == ("refused", True)
    [reply] = replies(world, outcome)
    assert f"is {len(raw) / 2**20:.1f} MB" in reply.body and "at most 2 MB" in reply.body
    assert stored(world)[0].raw == raw
    stranger = run(
        world, raw.replace(b"ann@example.org", b"who@example.net").replace(b"<huge@", b"<big@")
    )
    assert (stranger.verdict, stranger.answered) == ("ignored", False)


def test_broken_mime_and_deep_nesting_are_answered_clearly(world: World) -> None:
    broken = (
        b"From: ann@example.org\r\nMessage-ID: <broken@ann>\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="never-used"\r\n\r\n'
        b"no boundary ever appears\r\n\x00\xff\xfe garbage"
    )
    inner = b"Content-Type: text/plain\r\n\r\n" + sheet().encode()
    for level in range(50):
        boundary = f"b{level}".encode()
        inner = (
            b"Content-Type: multipart/mixed; boundary="
            + boundary
            + b"\r\n\r\n--"
            + boundary
            + b"\r\n"
            + inner
            + b"\r\n--"
            + boundary
            + b"--\r\n"
        )
    nested = b"From: ann@example.org\r\nMessage-ID: <nested@ann>\r\nMIME-Version: 1.0\r\n" + inner
    for raw, words in ((broken, "holds no text"), (nested, "more than 20 levels deep")):
        outcome = run(world, raw)
        assert (outcome.verdict, outcome.answered) == ("refused", True), outcome
        [reply] = replies(world, outcome)
        assert words in reply.body
    assert len(stored(world)) == 2


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"From": "MAILER-DAEMON@mx.example.org", "Subject": "Undelivered Mail"}, "bounce"),
        ({"Auto_Submitted": "auto-replied", "Subject": "Out of office"}, "auto-submitted"),
        ({"Subject": "Automatic reply: orders"}, "auto-reply"),
        ({LOOP_HEADER: LOOP_VALUE, "Subject": "OK: turnsheet accepted"}, "loop"),
    ],
)
def test_bounces_auto_replies_and_loops_are_recorded_never_answered(
    world: World, headers: dict[str, str], reason: str
) -> None:
    headers = dict(headers)  # the parameter is shared by both databases' runs
    sender = headers.pop("From", ANN)
    outcome = run(world, mail(sheet(), sender=sender, message_id="<auto@x>", **headers))
    assert (outcome.verdict, outcome.answered) == ("silenced", False)
    assert reason in outcome.detail
    assert _outbox(world) == []
    assert stored(world)[0].verdict == "silenced"


def test_a_delivery_status_report_is_silenced(world: World) -> None:
    raw = (
        b"From: postmaster@mx.example.org\r\nMessage-ID: <dsn@mx>\r\n"
        b"Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n"
        b"--x\r\nContent-Type: text/plain\r\n\r\n" + sheet().encode() + b"\r\n--x--\r\n"
    )
    assert run(world, raw).verdict == "silenced"


@pytest.mark.parametrize(
    "body",
    [
        "Cheap watches!",
        "Help me move my inheritance out of the country.",
        "Press release: our new product line.",
        "Resend the invoice please.",
    ],
)
def test_spam_is_recorded_and_not_answered(world: World, body: str) -> None:
    outcome = run(world, mail(body, sender="spam@example.net", message_id="<s@s>"))
    assert (outcome.verdict, outcome.answered) == ("ignored", False)
    assert _outbox(world) == [] and len(stored(world)) == 1


# --- player commands -------------------------------------------------------------


def test_the_turnsheet_guide_help_sends_exists() -> None:
    assert "TURNSHEET" in player_doc("turnsheet.md").read_text(encoding="utf-8")


def test_help_answers_with_the_turnsheet_guide(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide = tmp_path / "turnsheet.md"
    guide.write_text("# The turnsheet\n\nWrite one order per line.\n", encoding="utf-8")
    monkeypatch.setattr(playerdocs, "PACKAGED", tmp_path)  # looked up before the checkout's
    outcome = run(world, mail("", sender="new@example.net", message_id="<h@n>", Subject="help"))
    assert (outcome.verdict, outcome.answered) == ("help", True)
    [reply] = replies(world, outcome)
    assert "RESEND game:" in reply.body  # a stranger: the commands, not the guide
    assert "Write one order per line." not in reply.body and len(reply.body) < 2500
    player = run(world, mail("HELP", sender=ANN, message_id="<h@ann>"))
    [reply] = replies(world, player)
    assert "RESEND game:" in reply.body and "Write one order per line." in reply.body
    for n in range(inbound.HELP_ANSWERS_PER_DAY):
        run(world, mail("HELP", sender="new@example.net", message_id=f"<h{n}@n>"))
    assert run(world, mail("HELP", sender="new@example.net", message_id="<hx@n>")).verdict == (
        "ignored"
    )


def test_resend_needs_the_secret_and_sends_the_stored_report(world: World) -> None:
    wrong = run(world, mail(f"RESEND game: {GAME} player: 1 secret: nope", message_id="<r0@a>"))
    assert (wrong.verdict, wrong.answered) == ("refused", True)
    forged = run(
        world,
        mail(
            f"RESEND game: {GAME} player: 1 secret: {SECRETS[1]}",
            sender=BOB,
            message_id="<r1@b>",
        ),
    )
    assert forged.verdict == "refused"
    good = run(
        world, mail(f"resend game: {GAME} player: 1 secret: {SECRETS[1]}", message_id="<r@a>")
    )
    assert (good.verdict, good.answered) == ("resend", True)
    [reply] = replies(world, good)
    assert reply.to_address == ANN and reply.body == "Turn 1 report of Ann.\n"
    # The outbox names the stored report; the PDF is attached from it when sent.
    assert reply.pdf is None and reply.json_attachment == '{"turn": 1}'
    with transaction(world.engine) as session:
        carried = carried_report(session, reply)
        assert carried is not None and carried.pdf == b"%PDF-1.4 ann"


def test_press_is_stored_for_the_next_report_anonymous_when_asked(world: World) -> None:
    signed = run(
        world,
        mail(
            f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}\nThe Erie is not for sale.\nEND\n"
            "-- \nAnn",
            message_id="<p1@a>",
        ),
    )
    hidden = run(
        world,
        mail(
            f"PRESS game: {GAME} player: 2 secret: {SECRETS[2]} anonymous\nBeware the NYC.\n",
            sender=BOB,
            message_id="<p2@b>",
        ),
    )
    empty = run(
        world, mail(f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}", message_id="<p3>")
    )
    assert [o.verdict for o in (signed, hidden, empty)] == ["press", "press", "refused"]
    with transaction(world.engine) as session:
        events = repo.events(session, world.game_id, 2, origin="moderator")
    assert events == [
        Announcement(position=1, text="The Erie is not for sale."),
        Announcement(position=None, text="Beware the NYC.", anonymous=True),
    ]
    assert "anonymously" in replies(world, hidden)[0].body


def test_standby_puts_a_volunteer_on_the_list_once(world: World) -> None:
    volunteer = "Val Oakes <val@example.net>"
    asked = run(world, mail(f"STANDBY game: {GAME}", sender=volunteer, message_id="<s0@v>"))
    assert (asked.verdict, asked.answered) == ("standby", True)
    [question] = replies(world, asked)
    confirm = next(line for line in question.body.splitlines() if "code:" in line).strip()
    joined = run(world, mail(confirm, sender=volunteer, message_id="<s1@v>"))
    assert (joined.verdict, joined.answered) == ("standby", True)
    [reply] = replies(world, joined)
    assert reply.to_address == "val@example.net" and "on the standby list of corpus" in reply.body
    again = run(world, mail(f"standby game: {GAME}", sender=volunteer, message_id="<s2@v>"))
    assert again.verdict == "refused" and "already on the standby list" in again.detail
    player = run(world, mail(f"STANDBY game: {GAME}", message_id="<s3@a>"))  # Ann plays
    assert player.verdict == "refused" and "already plays a position" in player.detail
    nowhere = run(world, mail("STANDBY game: atlantis", sender="x@example.net", message_id="<s4>"))
    # A stranger is answered only about a game that exists (no backscatter).
    assert (nowhere.verdict, nowhere.answered) == ("ignored", False)
    assert "no game 'atlantis'" in nowhere.detail
    # "Standby for news" is not a command: it names no game.
    chatter = run(world, mail("Standby for news, all", sender="y@example.net", message_id="<s5>"))
    assert chatter.verdict == "ignored"
    with transaction(world.engine) as session:
        [standby] = repo.standbys(session, world.game_id)
        assert (standby.email, standby.real_name) == ("val@example.net", "Val Oakes")
    leave = f"STANDBY game: {GAME} leave"
    asked_to_leave = run(world, mail(leave, sender=volunteer, message_id="<s6@v>"))
    assert (asked_to_leave.verdict, asked_to_leave.answered) == ("standby", True)
    [question] = replies(world, asked_to_leave)
    assert question.to_address == "val@example.net"
    confirm_leave = next(line for line in question.body.splitlines() if "code:" in line).strip()
    assert confirm_leave.startswith(f"STANDBY game: {GAME} leave code: ")
    with transaction(world.engine) as session:  # asking alone removes no one
        assert [s.email for s in repo.standbys(session, world.game_id)] == ["val@example.net"]
    left = run(world, mail(confirm_leave, sender=volunteer, message_id="<s7@v>"))
    assert left.verdict == "standby" and "off the standby list" in left.detail
    assert run(world, mail(leave, sender=volunteer, message_id="<s8@v>")).verdict == "refused"
    with transaction(world.engine) as session:
        assert repo.standbys(session, world.game_id) == []


# --- failures, resuming, the command line ---------------------------------------


def test_a_failure_keeps_the_message_tells_the_moderator_and_goes_on(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the intake fell over")

    monkeypatch.setattr(submit, "submit_sheet", explode)  # imported by the intake when used
    failed = run(world, mail(sheet(), message_id="<boom@ann>"))
    assert failed.verdict == "error" and "the intake fell over" in failed.detail
    assert failed.alert is not None
    [alert] = [row for row in _outbox(world) if row.kind == "alert"]
    assert alert.to_address == MODERATOR and "<boom@ann>" in alert.body
    [row] = stored(world)
    assert row.verdict == "error" and row.raw is not None and b"TURNSHEET" in row.raw
    assert row.receipt.startswith("error: RuntimeError")
    monkeypatch.undo()
    assert run(world, mail(sheet(), message_id="<next@ann>")).verdict == "accepted"
    # Once the cause is fixed, the stored message is processed again.
    [again] = retry(world.engine, [row.id], moderator=MODERATOR)
    assert (again.verdict, again.answered) == ("accepted", True)
    with pytest.raises(TurnprocError, match="processed already"):
        retry(world.engine, [row.id])


def test_a_message_stored_but_never_processed_is_resumed(world: World) -> None:
    with transaction(world.engine) as session:
        repo.record_submission(
            session,
            received_at=NOW - timedelta(hours=1),
            verdict="received",
            message_id="<stuck@ann>",
            sender=ANN,
            raw=bytes(mail(sheet(), message_id="<stuck@ann>")),
        )
    [outcome] = resume_pending(world.engine, NOW, moderator=MODERATOR)
    assert outcome.verdict == "accepted"
    assert resume_pending(world.engine, NOW) == []


def test_cli_ingests_a_maildir_and_files_it(
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.setenv("TURNPROC_MODERATOR_EMAIL", MODERATOR)
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    box.add(bytes(mail(sheet(), message_id="<md1@ann>")))
    box.add(bytes(mail("buy now", sender="spam@example.net", message_id="<md2@s>")))
    assert main(["mail", "ingest", "--maildir", str(tmp_path / "Maildir")]) == 0
    out = capsys.readouterr().out
    assert "accepted" in out and "ignored" in out and "2 message(s)" in out
    assert not list((tmp_path / "Maildir" / "new").iterdir())
    assert all("S" in m.get_flags() for m in mailbox.Maildir(tmp_path / "Maildir").values())
    assert main(["mail", "ingest", "--maildir", str(tmp_path / "Maildir")]) == 0
    assert "0 message(s)" in capsys.readouterr().out


def test_cli_reads_one_message_on_stdin(
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    raw = bytes(mail(sheet(), message_id="<stdin@ann>"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    assert main(["mail", "ingest", "-", "--json"]) == 0
    assert '"accepted": 1' in capsys.readouterr().out
    assert main(["mail", "ingest"]) == 2  # no source named


def test_stdin_that_cannot_be_stored_asks_the_mta_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path}/no/such/dir/x.db")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bytes(mail(sheet())))))
    assert main(["mail", "ingest", "-"]) == 75
    assert "could not be stored" in capsys.readouterr().err


def _outbox(world: World) -> list[OutboxMessage]:
    with transaction(world.engine) as session:
        return list(repo.outbox(session))


VERDICTS = {"accepted", "errors", "refused", "silenced", "ignored", "help", "resend", "press"}


@example(noise=b"\x00TURNSHEET\x00", cut=2000, header=b"Message-ID: <a\x00b@c>\r\n")
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    noise=st.binary(max_size=2000),
    cut=st.integers(min_value=0, max_value=2000),
    header=st.sampled_from(
        [
            b"",
            b'Content-Type: multipart/mixed; boundary=""\r\n',
            b"From: =?utf-8?q?=ZZ?=\r\n",
            b"Message-ID: \r\n",
            b"Content-Transfer-Encoding: base64\r\n",
            b"Subject: \xff\xfe\r\n",
        ]
    ),
)
def test_any_bytes_are_stored_and_get_a_verdict(
    world: World, noise: bytes, cut: int, header: bytes
) -> None:
    good = bytes(mail(sheet()))
    raw = header + good[:cut] + noise
    outcome = run(world, raw)
    assert outcome.verdict in VERDICTS | {"duplicate"}, outcome
    with transaction(world.engine) as session:
        row = repo.submission_by_message_id(session, outcome.message_id)
        assert row is not None and row.verdict in VERDICTS
