"""The second hostile corpus: mail built to stall, flood, silence or fool the
intake (docs/mail.md, "Limits"). Each case asserts the outcome: the verdict,
what is answered, what the moderator is told, what is left unchanged, and
that memory and time stay within bounds (resource limits, never a timing).

Runs on SQLite and PostgreSQL (the `world` fixture of test_mail_inbound.py).
"""

import imaplib
import json
import mailbox
import multiprocessing
import os
import resource
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from sqlalchemy import inspect, select, text

from tests import intake_world
from turnproc.cli import main
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.events import Announcement
from turnproc.families.continental_rails.report.meta import Announcement as ReportAnnouncement
from turnproc.families.continental_rails.report.meta import GameMeta
from turnproc.families.continental_rails.report.model import _announcements
from turnproc.families.continental_rails.turnsheet.check import check_orders
from turnproc.families.continental_rails.turnsheet.language import parse_turnsheet
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.intake import submit
from turnproc.mail import guard, inbound
from turnproc.mail.inbound import resume_pending
from turnproc.mail.outbound import carried_report
from turnproc.mail.sources import ImapSource, received_by_us
from turnproc.mail.urls import imap_url
from turnproc.store import db
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import OutboxMessage, Submission

from . import test_mail_inbound as first_corpus
from . import test_store_migrations as first_migrations
from .mailservers import MailWorld
from .test_mail_inbound import (
    ANN,
    GAME,
    MODERATOR,
    NOW,
    SECRETS,
    World,
    mail,
    replies,
    run,
    sheet,
    stored,
)

world = first_corpus.world  # the fixture: a game at turn 2, on SQLite and PostgreSQL
db_url = first_migrations.db_url  # the fixture: an empty database, SQLite and PostgreSQL

MALLORY = "mallory@example.net"
ROOT = Path(__file__).resolve().parent.parent


def outbox(world: World, kind: str | None = None) -> list[OutboxMessage]:
    with transaction(world.engine) as session:
        return [r for r in repo.outbox(session) if kind is None or r.kind == kind]


def orders_of_ann(world: World) -> object:
    with transaction(world.engine) as session:
        found = repo.orders_in_force(session, world.game_id, 2).get(1)
        return found.orders if found else None


def raw_mail(head: str, body: str) -> bytes:
    return (head.replace("\n", "\r\n") + "\r\n" + body.replace("\n", "\r\n")).encode()


_MEASURED = """\
import resource, sys
from turnproc.cli import main
code = main(["mail", "ingest", "-", "--json"])
peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))
sys.stderr.write(f"peak-kb {peak}\\n")
sys.exit(code)
"""


def ingest_in_a_limited_process(world: World, raw: bytes) -> dict[str, object]:
    """`turnproc mail ingest - --json` in a child process that may use at most
    2 GB of address space and 60 s of CPU (the kernel enforces both); its peak
    resident memory, its own and its children's, must stay under 1 GB (it is
    about 110 MB; the parser alone would need 6 GB for the Subject below)."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))

    done = subprocess.run(
        [sys.executable, "-c", _MEASURED],
        input=raw,
        capture_output=True,
        preexec_fn=limits,
        env={**os.environ, "TURNPROC_DATABASE_URL": world.url},
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    peak_kb = int(done.stderr.decode().rsplit("peak-kb ", 1)[1].split()[0])
    assert peak_kb < 1024 * 1024
    result: dict[str, object] = json.loads(done.stdout)
    return result


# --- 1, 2: memory and time -------------------------------------------------------


def test_a_subject_of_30000_encoded_words_is_cut_before_parsing(world: World) -> None:
    subject = " ".join(["=?utf-8?q?a?="] * 30_000)  # 410 KB of header
    raw = raw_mail(
        f"From: {MALLORY}\nTo: game@example.org\nMessage-ID: <bomb@m>\nSubject: {subject}\n",
        "hello\n",
    )
    result = ingest_in_a_limited_process(world, raw)
    [message] = result["messages"]  # type: ignore[misc]
    assert message["verdict"] == "ignored" and not message["answered"]
    assert outbox(world) == []


def test_a_from_of_60000_quotes_is_cut_and_the_sheet_refused(world: World) -> None:
    quotes = '"' * 60_000
    raw = raw_mail(f"From: {quotes}\nMessage-ID: <quotes@m>\nSubject: x\n", sheet())
    result = ingest_in_a_limited_process(world, raw)
    [message] = result["messages"]  # type: ignore[misc]
    assert message["verdict"] == "refused" and not message["answered"]
    assert orders_of_ann(world) is None
    [row] = stored(world)
    assert row.raw == raw  # stored whole, as received


@pytest.fixture
def tight_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "CPU_SECONDS", 1)
    monkeypatch.setattr(guard, "MEMORY_BYTES", 200 * 1024 * 1024)


@pytest.mark.parametrize("attack", ["cpu", "memory"])
def test_a_message_cut_short_twice_is_quarantined_and_the_next_run_goes_on(
    world: World, monkeypatch: pytest.MonkeyPatch, tight_budget: None, attack: str
) -> None:
    def spin(raw: bytes) -> str:
        while True:
            pass

    def swell(raw: bytes) -> str:
        hoard = []
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))

    original = inbound.text_from_message
    monkeypatch.setattr(inbound, "text_from_message", spin if attack == "cpu" else swell)
    first = run(world, mail("hello", sender=MALLORY, message_id="<hang@m>"))
    assert (first.verdict, first.answered, first.alert) == ("received", False, None)
    assert "cut short" in first.detail
    later = NOW + inbound.RESUME_AFTER + timedelta(minutes=1)
    [second] = resume_pending(world.engine, later, moderator=MODERATOR)
    assert second.verdict == "quarantined" and second.alert is not None
    assert resume_pending(world.engine, later + timedelta(hours=1), moderator=MODERATOR) == []
    [alert] = outbox(world, "alert")
    assert alert.to_address == MODERATOR and "mail retry" in alert.body
    monkeypatch.setattr(inbound, "text_from_message", original)
    assert run(world, mail(sheet(), message_id="<next@ann>")).verdict == "accepted"
    [hang] = [row for row in stored(world) if row.message_id == "<hang@m>"]
    assert (hang.verdict, hang.attempts) == ("quarantined", 2)


def test_a_message_whose_process_died_twice_is_not_read_a_third_time(world: World) -> None:
    """The OOM killer took the whole intake twice: the attempts were counted."""
    with transaction(world.engine) as session:
        row = repo.record_submission(
            session,
            received_at=NOW,
            verdict="received",
            message_id="<killer@m>",
            sender=MALLORY,
            raw=bytes(mail("x", sender=MALLORY)),
        )
        assert row is not None
        row.attempts = 2
    [outcome] = resume_pending(world.engine, NOW + timedelta(hours=1), moderator=MODERATOR)
    assert outcome.verdict == "quarantined"
    assert len(outbox(world, "alert")) == 1


# --- 3: intake and the turn run serialise on the game ----------------------------------


def test_a_sheet_checked_while_the_turn_runs_is_in_force_or_refused_never_both(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The intake has read the game (turn 2) when the batch takes it; whichever
    order they end in, the batch's view and the receipt agree."""
    read = multiprocessing.Event()  # the intake runs in a forked child
    go = multiprocessing.Event()
    real_evaluate = submit.evaluate

    def slow_evaluate(*args: object, **kwargs: object) -> object:
        read.set()
        go.wait(3)  # the batch sets it once it holds the game (or never, when it waits)
        return real_evaluate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(submit, "evaluate", slow_evaluate)
    seen: dict[str, object] = {}

    def batch() -> None:
        assert read.wait(60)
        with transaction(world.engine) as session:
            game = repo.get_game(session, world.game_id, lock=True)  # as `turn run` does
            go.set()
            seen["orders"] = set(repo.orders_in_force(session, game.id, 2))
            game.current_turn = 3

    runner = threading.Thread(target=batch)
    runner.start()
    outcome = run(world, mail(sheet(), message_id="<race@ann>"))
    runner.join(120)
    assert not runner.is_alive()
    ann_in_the_turn = 1 in seen["orders"]  # type: ignore[operator]
    if outcome.verdict == "accepted":
        assert ann_in_the_turn, "accepted for a turn that ran without it"
    else:
        assert outcome.verdict == "refused" and not ann_in_the_turn
        assert orders_of_ann(world) is None


# --- 4: arrival time -----------------------------------------------------------------


def _deadline_passed_20_s_ago(world: World) -> datetime:
    now = datetime.now(UTC)
    with transaction(world.engine) as session:
        game = repo.get_game(session, world.game_id)
        game.deadline = now - timedelta(seconds=20)
        game.grace_minutes = 0
    return now - timedelta(seconds=20)


def test_a_maildir_sheet_counts_from_its_delivery_time(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deadline = _deadline_passed_20_s_ago(world)
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    key = box.add(bytes(mail(sheet(), message_id="<md@ann>")))
    delivered = (deadline - timedelta(seconds=48)).timestamp()
    path = tmp_path / "Maildir" / "new" / key
    os.utime(path, (delivered, delivered))
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)
    assert main(["mail", "ingest", "--maildir", str(tmp_path / "Maildir")]) == 0
    [row] = stored(world)
    assert row.verdict == "accepted"
    assert abs(row.received_at.timestamp() - delivered) < 1
    assert orders_of_ann(world) is not None


def test_stdin_takes_received_at_and_refuses_a_later_sheet(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deadline = _deadline_passed_20_s_ago(world)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)
    for message_id, when in (("<early@ann>", -48), ("<late@ann>", +10)):
        data = bytes(mail(sheet(), message_id=message_id))
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
        stamp = (deadline + timedelta(seconds=when)).isoformat()
        main(["mail", "ingest", "-", "--received-at", stamp])
    verdicts = {row.message_id: row.verdict for row in stored(world)}
    assert verdicts == {"<early@ann>": "accepted", "<late@ann>": "refused"}


def test_stdin_counts_from_the_topmost_received_header_only(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our mail server adds the topmost Received header; those below it come
    with the message, and Mallory-style senders write their own, dated before
    the deadline: they are never read. A topmost date in the future, half a
    day or more old, or unreadable is not believed: the sheet counts from the
    moment it is read, and the log says why."""
    deadline = _deadline_passed_20_s_ago(world)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.setenv("TURNPROC_RECEIVED_BY", "turnproc.example.org")
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)

    def received(when: datetime | str) -> str:
        stamp = when if isinstance(when, str) else format_datetime(when)
        return (
            "Received: from mx.example.org (mx.example.org [192.0.2.7])\r\n"
            f"\tby turnproc.example.org with ESMTP id 4F2k;\r\n\t{stamp}\r\n"
        )

    forged = received(deadline - timedelta(hours=1))
    cases = {  # Message-ID: (the topmost Received header, what the log says)
        "<ours@ann>": (received(deadline - timedelta(seconds=48)), None),
        "<forged-below@ann>": (received(deadline + timedelta(seconds=10)), None),
        "<future@ann>": (received(deadline + timedelta(hours=3)), "is in the future"),
        "<stale@ann>": (received(deadline - timedelta(hours=13)), "more than 12 hours ago"),
        "<garbled@ann>": (received("yesterday, honest"), "no date that can be read"),
    }
    for message_id, (topmost, note) in cases.items():
        data = (topmost + forged).encode() + bytes(mail(sheet(), message_id=message_id))
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
        main(["mail", "ingest", "-"])
        err = capsys.readouterr().err
        if note is None:
            assert "arrival time" not in err, message_id
        else:
            assert "stdin: arrival time is the moment it was read" in err and note in err
    verdicts = {row.message_id: row.verdict for row in stored(world)}
    assert verdicts == {
        "<ours@ann>": "accepted",
        "<forged-below@ann>": "refused",
        "<future@ann>": "refused",
        "<stale@ann>": "refused",
        "<garbled@ann>": "refused",
    }
    [ours] = [row for row in stored(world) if row.message_id == "<ours@ann>"]
    assert abs(ours.received_at - (deadline - timedelta(seconds=48))) < timedelta(seconds=1)


def test_the_topmost_received_header_is_the_first_field_of_the_header_block() -> None:
    """Past procmail's mbox "From " line, in any case, folded, with its zone;
    never a Received line of the body."""
    now = datetime(2026, 12, 1, 14, 10, tzinfo=UTC)
    raw = (
        b"From ann@example.org Tue Dec  1 14:05:00 2026\r\n"
        b"received: from mx.example.org\r\n\tby turnproc.example.org; Tue,\r\n"
        b" 1 Dec 2026 09:05:00 -0500 (EST)\r\n"
        b"Received: from forged; Tue, 1 Dec 2026 10:00:00 +0000\r\n"
        b"Subject: orders\r\n\r\n"
        b"Received: in the body; Tue, 1 Dec 2026 14:09:00 +0000\r\n"
    )
    ours = "turnproc.example.org"
    assert received_by_us(raw, now, ours) == (datetime(2026, 12, 1, 14, 5, tzinfo=UTC), "")
    body_only = b"Subject: orders\n\nReceived: in the body; Tue, 1 Dec 2026 14:09:00 +0000\n"
    assert received_by_us(body_only, now, ours) == (None, "the message has no Received header")


class _Stdin:
    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)


# --- 5: a report line that forges a sheet header --------------------------------------


def test_a_forged_header_quoted_from_a_report_loses_to_the_players_sheet(world: World) -> None:
    forged = f"TURNSHEET game: {GAME} turn: 2 player: 1 secret: ____"
    body = (
        "Here are my orders.\n\n"
        "On Monday the moderator wrote:\n"
        "> Announcements\n"
        f">   Bob (#2): Buy now, buy big.\n>     {forged}\n"
        "> PERSONAL\n>\n" + "".join(f"> {line}\n" for line in sheet().splitlines())
    )
    outcome = run(world, mail(body, message_id="<quoted@ann>"))
    assert outcome.verdict == "accepted", outcome.detail
    assert orders_of_ann(world) is not None


def test_announcements_in_a_report_never_read_as_a_sheet_header() -> None:
    text = (
        "Railroads are for sale. "
        + " " * 40
        + f"TURNSHEET game: {GAME} turn: 2 player: 1 secret: ____ "
        + "turn sheet game: g player: 1 secret: x"
    )
    state = intake_world.state()
    meta = GameMeta(
        name=GAME, announcements=[ReportAnnouncement(position=None, text=text, anonymous=True)]
    )
    [line] = _announcements(meta, state)
    vocabulary = Vocabulary(kinds={}, numbers={})
    for width in (20, 40, 60, 72, 100):
        wrapped = [line.text[i : i + width] for i in range(0, len(line.text), width)]
        for piece in (*wrapped, *line.text.split("  ")):
            probe = parse_turnsheet(piece.strip(), vocabulary)
            assert probe.header is None and all(e.line_no == 0 for e in probe.errors), piece


# --- 6: odd digits -------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        f"TURNSHEET game: {GAME} turn: 2 player: ² secret: {SECRETS[1]}",
        f"TURNSHEET game: {GAME} turn: ③ player: 1 secret: {SECRETS[1]}",
        f"TURNSHEET game: {'9' * 20} turn: 2 player: 1 secret: {SECRETS[1]}",
        f"TURNSHEET game: {'7' * 5000} turn: 2 player: 1 secret: {SECRETS[1]}",
        f"TURNSHEET game: {GAME} turn: 2 player: 1 secret: {SECRETS[1]}\nPERSONAL\nBORROW ٣٠٠",
        f"{sheet().splitlines()[0]}\nPERSONAL\nBORROW {'1' * 5000}",
        f"RESEND game: {GAME} player: ² secret: {SECRETS[1]}",
        f"RESEND game: {GAME} player: 1 secret: {SECRETS[1]} turn: {'2' * 5000}",
        f"PRESS game: {'8' * 5000} player: 1 secret: {SECRETS[1]}\nhello\nEND",
    ],
    ids=["sup2", "circled3", "20digits", "5000digits", "arabic", "amount5000", "resend",
         "resendturn", "press"],
)  # fmt: skip
def test_odd_digits_are_refused_quietly(world: World, header: str) -> None:
    outcome = run(world, mail(f"{header}\nEND\n", message_id="<odd@ann>"))
    # Unreadable, quietly: no "error", no alert (a 5,000-digit header line is
    # too long to be a header at all: no turnsheet, ignored).
    assert outcome.verdict in ("refused", "errors", "ignored"), outcome.detail
    assert outcome.alert is None and outbox(world, "alert") == []
    assert orders_of_ann(world) is None


def test_orders_submit_refuses_odd_digits_without_a_traceback(
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    path = tmp_path / "sheet.txt"
    for game in ("²", "9" * 20, "7" * 5000):
        path.write_text(sheet().replace(f"game: {GAME}", f"game: {game}"), encoding="utf-8")
        assert main(["orders", "submit", game, str(path)]) in (1, 2)
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 1


# --- 7: alert floods -------------------------------------------------------------------


def test_fifty_refusals_make_one_alert_with_a_digest(world: World) -> None:
    outcomes = [
        run(world, mail(sheet(secret=f"guess-{n}"), sender=MALLORY, message_id=f"<g{n}@m>"))
        for n in range(50)
    ]
    assert {o.verdict for o in outcomes} == {"refused"}
    assert sum(o.alert is not None for o in outcomes) == 1
    [alert] = outbox(world, "alert")
    assert alert.body.count("#") >= 48  # every refusal from the 3rd on, listed
    assert sum(o.answered for o in outcomes) == 5  # then the sender is no longer answered


# --- 8: backscatter --------------------------------------------------------------------


def test_strangers_hear_nothing_about_games_that_do_not_exist(world: World) -> None:
    spam = "CHEAP PILLS http://spam.example/buy"
    for n, body in enumerate(
        [
            "RESEND game: cheap-pills player: 1 secret: x",
            "PRESS game: cheap-pills player: 1 secret: x\nbuy\nEND",
            "STANDBY game: cheap-pills",
            "TURNSHEET game: cheap-pills turn: 2 player: 1 secret: x\nEND",
        ]
    ):
        forged = f"victim{n}@example.com"
        outcome = run(world, mail(body, sender=forged, message_id=f"<s{n}@v>", Subject=spam))
        assert not outcome.answered and outcome.verdict in ("ignored", "refused")
    assert all("PILLS" not in row.subject for row in outbox(world))
    assert [r for r in outbox(world) if r.kind != "alert"] == []


def test_answers_to_strangers_are_capped_and_help_is_short(world: World) -> None:
    sent = [
        run(world, mail("HELP", sender=f"forged{n}@example.com", message_id=f"<h{n}@f>"))
        for n in range(inbound.STRANGER_ANSWERS_PER_HOUR + 10)
    ]
    assert sum(o.answered for o in sent) == inbound.STRANGER_ANSWERS_PER_HOUR
    assert all(len(row.body) < 2500 for row in outbox(world, "help"))
    # A player is still answered: the cap is on strangers only.
    assert run(world, mail("HELP", sender=ANN, message_id="<h@ann>")).answered


def test_reports_are_sent_before_everything_queued_earlier(world: World) -> None:
    for n in range(5):
        run(world, mail("HELP", sender=f"early{n}@example.com", message_id=f"<e{n}@x>"))
    with transaction(world.engine) as session:
        repo.queue_mail(
            session,
            key="report/test",
            kind="report",
            to_address=ANN,
            subject="Turn 1 report",
            body="report",
            now=NOW + timedelta(hours=1),
        )
    with transaction(world.engine) as session:
        due = repo.due_mail(session, NOW + timedelta(days=1))
        kinds = {row.id: row.kind for row in repo.outbox(session)}
        assert [kinds[row_id] for row_id in due][:1] == ["report"] and len(due) == 6


# --- 9: a stranger cannot silence a player --------------------------------------------


def test_a_strangers_failures_never_silence_the_player(world: World) -> None:
    for n in range(6):
        run(world, mail(sheet(secret="x"), sender=MALLORY, message_id=f"<m{n}@m>"))
    own_mistake = run(world, mail(sheet(turn=1), message_id="<old@ann>"))
    assert (own_mistake.verdict, own_mistake.answered) == ("refused", True)
    assert "turn 1" in replies(world, own_mistake)[0].body


# --- 10: secret guessing (tests/test_mail_holes.py: it never locks the owner out) ----


def test_an_impostor_with_the_right_secret_learns_nothing_and_the_player_is_told(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(world, mail(sheet(order="BORROW 140"), message_id="<own@ann>")).verdict == (
        "accepted"
    )
    right = run(world, mail(sheet(order="BORROW 100"), sender=MALLORY, message_id="<i1@m>"))
    wrong = run(world, mail(sheet(secret="guess-it"), sender=MALLORY, message_id="<i2@m>"))
    assert [right.verdict, wrong.verdict] == ["refused", "refused"]
    [to_right], [to_wrong] = replies(world, right), replies(world, wrong)
    assert to_right.to_address == MALLORY
    # Nothing of the orders in force, and the same answer as for a wrong secret.
    assert "140" not in to_right.body and "submission #" not in to_right.body
    assert "orders in force" not in to_right.body and "no orders are" not in to_right.body
    assert to_right.body.replace("<i1@m>", "<i2@m>") == to_wrong.body
    assert orders_of_ann(world)[0].amount == 140  # type: ignore[index]
    # Ann is told once, at her registered address; a second use within the hour is
    # logged but not mailed again.
    again = run(world, mail(sheet(), sender="eve@example.net", message_id="<i3@e>"))
    press = run(
        world,
        mail(f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}\nHello", sender=MALLORY),
    )
    assert [again.verdict, press.verdict] == ["refused", "refused"]
    [notice] = [r for r in outbox(world) if "used from another address" in r.subject]
    assert notice.to_address == ANN and notice.subject.startswith(f"[{GAME}] ")
    assert MALLORY in notice.body and "140" not in notice.body
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    capsys.readouterr()
    assert main(["game", "log", GAME]) == 0
    logged = [line for line in capsys.readouterr().out.splitlines() if "secret_used" in line]
    assert [line.split("came from ")[1] for line in logged] == [
        f"{MALLORY})",
        "eve@example.net)",
        f"{MALLORY})",
    ]


# --- 11: no usable sender --------------------------------------------------------------


@pytest.mark.parametrize(
    "head",
    [
        "To: game@example.org\nMessage-ID: <nofrom@x>\nSubject: orders\n",
        f"From: =?utf-8?q?{ANN.replace('@', '=07@')}?=\nMessage-ID: <bell@x>\nSubject: orders\n",
        "From: \nMessage-ID: <empty@x>\nSubject: orders\n",
    ],
    ids=["none", "control", "empty"],
)
def test_a_sheet_without_a_usable_sender_is_refused(world: World, head: str) -> None:
    outcome = run(world, raw_mail(head, sheet()))
    assert (outcome.verdict, outcome.answered) == ("refused", False)
    assert orders_of_ann(world) is None


# --- 13: player floods --------------------------------------------------------------


def test_press_and_resend_are_capped_per_player_and_turn(world: World) -> None:
    press = f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}\nNews.\nEND\n"
    outcomes = [run(world, mail(press, message_id=f"<p{n}@ann>")) for n in range(5)]
    assert [o.verdict for o in outcomes] == ["press"] * 3 + ["refused"] * 2
    with transaction(world.engine) as session:
        announced = [
            e for e in repo.events(session, world.game_id, 2) if isinstance(e, Announcement)
        ]
    assert len(announced) == inbound.PRESS_PER_TURN
    resend = f"RESEND game: {GAME} player: 1 secret: {SECRETS[1]}"
    outcomes = [run(world, mail(resend, message_id=f"<r{n}@ann>")) for n in range(5)]
    assert [o.verdict for o in outcomes] == ["resend"] * 3 + ["refused"] * 2
    reports = [r for r in outbox(world, "report")]
    assert len(reports) == inbound.RESEND_PER_TURN
    with transaction(world.engine) as session:
        for row in reports:  # the stored report, not a copy of it
            carried = carried_report(session, row)
            assert row.pdf is None and carried is not None and carried.pdf == b"%PDF-1.4 ann"


# --- 14: control and bidi characters ------------------------------------------------


def test_escapes_and_bidi_overrides_are_stripped_from_announcements(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = "Sell \x1b[2J\x1b[31mERIE\u202e won \u200bnow\x07"
    press = f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}\n{evil}\nEND\n"
    assert run(world, mail(press, message_id="<esc@ann>")).verdict == "press"
    with transaction(world.engine) as session:
        [note] = [e for e in repo.events(session, world.game_id, 2) if isinstance(e, Announcement)]
    assert note.text == "Sell [2J[31mERIE won now"
    # The moderator's terminal: a detail quoting a sender's text arrives escaped.
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)
    raw = raw_mail(
        f"From: {ANN}\nMessage-ID: <esc2@ann>\nSubject: x\n",
        "RESEND game: \x1b]0;pwned\x07corpus player: 1 secret: x\n",
    )
    monkeypatch.setattr(sys, "stdin", _Stdin(raw))
    main(["mail", "ingest", "-"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out


def test_a_name_confusable_with_another_tycoons_is_refused() -> None:
    state = intake_world.state()
    state.turn = 1
    scenario = intake_world.scenario()
    vocab = Vocabulary.from_scenario(scenario, state)
    for name in ("Tycoon 4", "Tyc0on 4", "Туcoon 4", "Tycoon\u200b 4"):
        parsed = parse_turnsheet(f"{intake_world.HEADER}\nNAME {name}\nEND\n", vocab)
        result = check_orders(state, scenario, 3, parsed.lines)
        refused = [e.code for e in result.errors]
        if name == "Tycoon 4":
            assert refused == [] and result.warnings  # the same name: a historical one
        else:
            assert refused == [reasons.NAME_TAKEN], name


def test_submissions_keep_the_raw_bytes_of_hostile_mail(world: World) -> None:
    raw = raw_mail(f"From: {MALLORY}\nMessage-ID: <keep@m>\nSubject: \x1b[31m\n", "x")
    run(world, raw)
    with transaction(world.engine) as session:
        [row] = session.scalars(select(Submission)).all()
        assert row.raw == raw


def test_game_new_refuses_a_secret_weaker_than_a_generated_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path}/weak.db")
    players = tmp_path / "players.csv"
    for secret, code in (("gold", 2), ("aaaaaaaaaaaaaaaa", 2), ("gold-rush-1849", 0)):
        players.write_text(
            f"position,character,real_name,email,secret\n1,,Ann,ann@example.org,{secret}\n",
            encoding="utf-8",
        )
        name = f"weak-{code}-{len(secret)}"
        args = ["game", "new", "--scenario", "continental-rails", "--players", str(players)]
        assert main([*args, "--name", name]) == code, secret
        if code:
            assert "weaker than a generated secret" in capsys.readouterr().err


def test_migration_0003_adds_attempts_and_the_lock_out_and_can_be_undone(
    db_url: str,
) -> None:
    engine = db.create_db_engine(db_url)
    first_migrations._migrate(engine, "upgrade", "0002")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO submissions (message_id, sender, received_at, text, verdict,"
                " receipt) VALUES ('<old@x>', 'a@x', '2026-01-01 00:00:00+00:00', '',"
                " 'received', '')"
            )
        )
    first_migrations._migrate(engine, "upgrade", "0003_hostile_mail")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT attempts FROM submissions")).scalar() == 0
        columns = {c["name"] for c in inspect(connection).get_columns("players")}
        assert {"secret_locked_at", "unlock_hash", "wrong_secrets"} <= columns
    # 0006 takes the lock-out away again (forged mail could lock a player out).
    assert db.upgrade(engine)[1] == db.head_revision()
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("players")}
        assert not {"secret_locked_at", "unlock_hash", "wrong_secrets"} & columns
    first_migrations._migrate(engine, "downgrade", "0002")
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("submissions")}
        assert "attempts" not in columns
    assert db.upgrade(engine) == ("0002", db.head_revision())
    engine.dispose()


def test_imap_messages_carry_their_internaldate(mail_world: MailWorld) -> None:
    """A message the server received two hours ago (APPEND sets INTERNALDATE)."""
    url = imap_url(mail_world.imap_url("p3@example.org"))
    delivered = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    client = imaplib.IMAP4(url.host, url.port)
    client.login(url.user or "", url.password or "")
    status, _ = client.append(
        "INBOX", "", imaplib.Time2Internaldate(delivered), bytes(mail(sheet()))
    )
    client.logout()
    assert status == "OK"
    [incoming] = list(ImapSource(url).messages())
    assert incoming.received_at == delivered
