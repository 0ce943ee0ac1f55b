"""Red-team holes of round three in the mail intake (issue 23), each with the
rule of docs/mail.md that closes it: forged mail never locks out a
position's owner; the sheet in force is the one that arrived last.

Runs on SQLite and PostgreSQL (the `world` fixture of test_mail_inbound.py).
"""

import imaplib
import io
import re
import sys
from datetime import datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from sqlalchemy import event, inspect

from turnproc.cli import main
from turnproc.mail import inbound
from turnproc.mail.inbound import ingest, retry
from turnproc.mail.urls import imap_url
from turnproc.pipeline.players import read_players_csv
from turnproc.store import repository as repo
from turnproc.store.db import transaction

from . import test_mail_inbound as first_corpus
from .mailservers import MailWorld
from .test_mail_hostile import _deadline_passed_20_s_ago
from .test_mail_inbound import (
    ANN,
    GAME,
    MODERATOR,
    NOW,
    World,
    mail,
    replies,
    run,
    sheet,
    stored,
)

world = first_corpus.world  # the fixture: a game at turn 2, on SQLite and PostgreSQL


def orders_of_ann(world: World) -> list[object] | None:
    with transaction(world.engine) as session:
        found = repo.orders_in_force(session, world.game_id, 2).get(1)
        return list(found.orders) if found else None


# --- 7: forged wrong secrets never lock the owner out ---------------------------------


def test_forged_wrong_secrets_never_lock_out_the_owner(world: World) -> None:
    # Mallory writes Ann's address as the sender and guesses, again and again.
    for n in range(12):
        guess = run(world, mail(sheet(secret=f"guess-{n}"), message_id=f"<g{n}@forged>"))
        assert guess.verdict == "refused"
        assert "locked" not in guess.detail
    # Ann's own sheet, with the right secret, is accepted at once: no unlock needed.
    right = run(world, mail(sheet(order="BORROW 120"), message_id="<right@ann>"))
    assert right.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [120]  # type: ignore[attr-defined]
    # Nothing asks Ann to unlock anything.
    with transaction(world.engine) as session:
        subjects = [r.subject for r in repo.outbox(session) if r.to_address == ANN]
    assert not [s for s in subjects if "locked" in s]
    # The guesses were answered at first, then the sender (the forged address)
    # is no longer answered within the hour, and the moderator heard once.
    with transaction(world.engine) as session:
        alerts = [r for r in repo.outbox(session) if r.kind == "alert"]
    assert len(alerts) == 1 and alerts[0].to_address == MODERATOR


# --- 4: the sheet that arrived last is in force --------------------------------------


def test_an_older_sheet_processed_later_does_not_replace_a_newer_one(world: World) -> None:
    older = bytes(mail(sheet(order="BORROW 100"), message_id="<older@ann>"))
    newer = bytes(mail(sheet(order="BORROW 200"), message_id="<newer@ann>"))
    # The newer sheet (arrived at NOW) is processed first ...
    assert ingest(world.engine, newer, "test", NOW).verdict == "accepted"
    # ... the older one (arrived an hour before) only now, as `mail retry` would.
    late = ingest(world.engine, older, "test", NOW - timedelta(hours=1))
    assert late.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [200]  # type: ignore[attr-defined]
    [receipt] = replies(world, late)
    assert "<newer@ann>" not in receipt.body or "in force" in receipt.body
    assert "arrived later" in receipt.body


def test_mail_retry_of_an_older_stored_sheet_keeps_the_newer_in_force(world: World) -> None:
    older = bytes(mail(sheet(order="BORROW 100"), message_id="<a@ann>"))
    with transaction(world.engine) as session:
        row = repo.record_submission(
            session,
            received_at=NOW - timedelta(minutes=30),
            verdict="received",
            message_id="<a@ann>",
            sender=ANN,
            raw=older,
        )
        assert row is not None
        stored_id = row.id
    newer = run(world, mail(sheet(order="BORROW 200"), message_id="<b@ann>"))
    assert newer.verdict == "accepted"
    [outcome] = retry(world.engine, [stored_id])
    assert outcome.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [200]  # type: ignore[attr-defined]
    # A sheet that arrived later still replaces it.
    latest = ingest(
        world.engine,
        bytes(mail(sheet(order="BORROW 300"), message_id="<c@ann>")),
        "test",
        NOW + timedelta(minutes=1),
    )
    assert latest.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [300]  # type: ignore[attr-defined]


# --- 9: the piped arrival time cannot be forged -----------------------------------------


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _pipe(monkeypatch: pytest.MonkeyPatch, data: bytes) -> str:
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    main(["mail", "ingest", "-"])
    return ""


def test_a_body_line_folded_into_our_received_header_is_not_believed(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """dovecot's LMTP adds its Received header on top of a message that has no
    header block of its own, without a blank line: the message's first line
    " ; <date>" then continues our header, and its date is the last one."""
    deadline = _deadline_passed_20_s_ago(world)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.setenv("TURNPROC_RECEIVED_BY", "turnproc.example.org")
    ours = format_datetime(deadline + timedelta(seconds=10))  # after the deadline
    forged = format_datetime(deadline - timedelta(hours=1))
    data = (
        "Received: from mx.example.org\r\n"
        f"\tby turnproc.example.org with LMTP id 4F2k; {ours}\r\n"
        f" ; {forged}\r\n"
    ).encode() + bytes(mail(sheet(), message_id="<folded@ann>"))
    _pipe(monkeypatch, data)
    [row] = stored(world)
    assert row.verdict == "refused" and row.received_at > deadline
    assert "more than one date" in capsys.readouterr().err


def test_a_received_header_not_added_by_our_server_is_not_believed(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that pipes without a Received header of its own leaves the
    sender's header on top, dated as he likes (within 12 hours before)."""
    deadline = _deadline_passed_20_s_ago(world)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    an_hour_before = format_datetime(deadline - timedelta(hours=1))
    senders_own = (
        "Received: from laptop (laptop [198.51.100.4])\r\n"
        f"\tby mx.forger.example with ESMTP id 1; {an_hour_before}\r\n"
    )
    # Not configured: no Received header is believed.
    monkeypatch.delenv("TURNPROC_RECEIVED_BY", raising=False)
    _pipe(monkeypatch, senders_own.encode() + bytes(mail(sheet(), message_id="<own1@ann>")))
    assert stored(world)[0].verdict == "refused"
    assert "no received_by is set" in capsys.readouterr().err
    # Configured: a header by another server is not ours.
    monkeypatch.setenv("TURNPROC_RECEIVED_BY", "turnproc.example.org")
    _pipe(monkeypatch, senders_own.encode() + bytes(mail(sheet(), message_id="<own2@ann>")))
    err = capsys.readouterr().err
    assert [row.verdict for row in stored(world)] == ["refused", "refused"]
    assert "not by turnproc.example.org" in err


# --- 3: forged STANDBY mail adds no one and buys no rules PDFs -------------------------


def test_forged_standby_mail_joins_no_list_and_stays_under_the_strangers_cap(
    world: World,
) -> None:
    flood = inbound.STRANGER_ANSWERS_PER_HOUR + 10
    outcomes = [
        run(
            world,
            mail(f"STANDBY game: {GAME}", sender=f"v{n}@forged.example", message_id=f"<f{n}@x>"),
        )
        for n in range(flood)
    ]
    # Nobody joins the list without confirming from the address itself.
    with transaction(world.engine) as session:
        assert repo.standbys(session, world.game_id) == []
    # The answers (confirmation requests) stay under the cap on strangers.
    assert sum(o.answered for o in outcomes) == inbound.STRANGER_ANSWERS_PER_HOUR
    # An address that was only asked to confirm is still a stranger: its RULES
    # gets no PDF, and is one more answer under the cap (which is full).
    rules = run(world, mail("RULES", sender="v0@forged.example", message_id="<r0@x>"))
    assert not rules.answered
    with transaction(world.engine) as session:
        rows = repo.outbox(session)
    assert [r for r in rows if r.kind in ("rules", "welcome")] == []
    assert all(r.pdf is None and r.pdf_name is None for r in rows)


def test_standby_requests_to_one_address_are_capped_per_day(world: World) -> None:
    outcomes = [
        run(world, mail(f"STANDBY game: {GAME}", sender="vic@example.net", message_id=f"<c{n}@v>"))
        for n in range(5)
    ]
    assert [o.answered for o in outcomes] == [True, True, True, False, False]


def test_a_strangers_rules_has_no_pdf_and_a_confirmed_volunteers_has(world: World) -> None:
    stranger = run(world, mail("RULES", sender="zed@example.net", message_id="<r1@z>"))
    assert stranger.answered
    [answer] = replies(world, stranger)
    assert answer.kind != "rules" and "STANDBY" in answer.body
    asked = run(world, mail(f"STANDBY game: {GAME}", sender="zed@example.net", message_id="<s@z>"))
    [question] = replies(world, asked)
    line = next(text for text in question.body.splitlines() if "code:" in text).strip()
    wrong = run(world, mail(line[:-2] + "zz", sender="zed@example.net", message_id="<w@z>"))
    assert wrong.verdict == "refused" and "wrong confirmation code" in wrong.detail
    # The code is the address's: from another address it is refused too.
    other = run(world, mail(line, sender="yan@example.net", message_id="<o@y>"))
    assert other.verdict == "refused"
    joined = run(world, mail(line, sender="zed@example.net", message_id="<j@z>"))
    assert joined.verdict == "standby"
    with transaction(world.engine) as session:
        assert [s.email for s in repo.standbys(session, world.game_id)] == ["zed@example.net"]
    pdf = run(world, mail("RULES", sender="zed@example.net", message_id="<r2@z>"))
    [with_pdf] = replies(world, pdf)
    assert with_pdf.kind == "rules"


def test_a_forged_standby_leave_removes_no_one(world: World) -> None:
    volunteer = "Val Oakes <val@example.net>"
    asked = run(world, mail(f"STANDBY game: {GAME}", sender=volunteer, message_id="<l0@v>"))
    [question] = replies(world, asked)
    line = next(text for text in question.body.splitlines() if "code:" in text).strip()
    assert run(world, mail(line, sender=volunteer, message_id="<l1@v>")).verdict == "standby"

    def on_the_list() -> list[str]:
        with transaction(world.engine) as session:
            return [s.email for s in repo.standbys(session, world.game_id)]

    # A leave written with the volunteer's address by someone else: the
    # question goes to the volunteer's own mailbox, and no one leaves.
    forged = run(world, mail(f"STANDBY game: {GAME} leave", sender=volunteer, message_id="<l2@x>"))
    assert forged.verdict == "standby"
    [to_volunteer] = replies(world, forged)
    assert to_volunteer.to_address == "val@example.net"
    assert on_the_list() == ["val@example.net"]
    # Guessing the code, or using the code of joining, removes no one either.
    for n, code in enumerate(("aaaa-bbbb", line.rsplit(" ", 1)[1])):
        guess = f"STANDBY game: {GAME} leave code: {code}"
        wrong = run(world, mail(guess, sender=volunteer, message_id=f"<l3{n}@x>"))
        assert wrong.verdict == "refused" and "wrong confirmation code" in wrong.detail
        assert on_the_list() == ["val@example.net"]
    # The code of another address's leave does not work for this one.
    leave_line = next(t for t in to_volunteer.body.splitlines() if "code:" in t).strip()
    assert run(world, mail(leave_line, sender="eve@example.net", message_id="<l4@x>")).verdict in (
        "refused",
        "ignored",
    )
    assert on_the_list() == ["val@example.net"]
    # The volunteer, who reads the mail, leaves with the line it holds.
    left = run(world, mail(leave_line, sender=volunteer, message_id="<l5@v>"))
    assert left.verdict == "standby" and "off the standby list" in left.detail
    assert on_the_list() == []


# --- 10: names from mail are cleaned before they are stored or printed ----------------


def test_a_standby_name_with_escapes_and_bidi_overrides_is_stored_clean(world: World) -> None:
    sender = "=?utf-8?q?Val=1B[2J=1B]0;pwned=07_=E2=80=AEsekaO?= <val@example.net>"

    def raw(body: str, message_id: str) -> bytes:
        head = f"From: {sender}\r\nTo: moderator@example.org\r\nMessage-ID: {message_id}\r\n"
        return (head + "Subject: standby\r\n\r\n" + body + "\r\n").encode()

    asked = run(world, raw(f"STANDBY game: {GAME}", "<n0@v>"))
    [answer] = replies(world, asked)
    # Confirmed with the line the answer holds (the code makes sure the address is real).
    line = next((text for text in answer.body.splitlines() if "code:" in text), None)
    if line is not None:
        assert run(world, raw(line.strip(), "<n1@v>")).verdict == "standby"
    with transaction(world.engine) as session:
        [standby] = repo.standbys(session, world.game_id)
    assert standby.real_name == "Val[2J]0;pwned sekaO"
    assert standby.real_name.isprintable()


def test_names_in_a_players_file_are_stored_clean(tmp_path: Path) -> None:
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n"
        '1,"Jay\x1b[31m Gould\u202e","Ann\u200b\tO\x07ak",ann@example.org,\n',
        encoding="utf-8",
    )
    [entry] = read_players_csv(players, 15)
    assert (entry.character, entry.real_name) == ("Jay[31m Gould", "Ann Oak")


# --- Message-IDs never repeat across databases ------------------------------------------


def _welcome_ids(
    url: str, folder: Path, players: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """The Message-IDs of the mail `mail send --dry-run` writes, by file name."""
    monkeypatch.setenv("TURNPROC_DATABASE_URL", url)
    monkeypatch.setenv("TURNPROC_MAIL_FROM", "moderator@example.org")
    assert main(["mail", "send", "--dry-run", str(folder)]) == 0
    found = {}
    for path in sorted(folder.glob("*.eml")):
        head = path.read_bytes().split(b"\n\n", 1)[0].decode()
        [line] = [x for x in head.splitlines() if x.lower().startswith("message-id:")]
        found[path.name.split("-")[1]] = line.split(":", 1)[1].strip()
    return found


def test_message_ids_differ_between_databases_and_repeat_within_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n1,,Ann,ann@example.org,\n", encoding="utf-8"
    )
    ids = []
    for name in ("first", "second"):
        url = f"sqlite:///{tmp_path / name}.db"
        monkeypatch.setenv("TURNPROC_DATABASE_URL", url)
        args = ["game", "new", "--scenario", "continental-rails", "--players", str(players)]
        assert main([*args, "--name", "east", "--seed", "3"]) == 0
        once = _welcome_ids(url, tmp_path / f"{name}-1", players, monkeypatch)
        again = _welcome_ids(url, tmp_path / f"{name}-2", players, monkeypatch)
        assert once == again and once  # a resend keeps its Message-ID
        ids.append(once)
    # The same game, player and address in two databases (the same outbox
    # keys): a mail program must not take the second welcome for the first.
    assert ids[0].keys() == ids[1].keys()
    assert not set(ids[0].values()) & set(ids[1].values())


# --- a turnsheet finds its game by an index, not by reading every game ----------------


def test_a_sheet_finds_its_game_by_an_indexed_lookup(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    statements: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(" ".join(statement.split()))

    # Processed in this process (not a budget's child), so its queries are seen.
    monkeypatch.setattr(inbound, "within_budget", lambda work, before=None: work())
    event.listen(world.engine, "before_cursor_execute", record)
    try:
        shouted = sheet().replace(f"game: {GAME}", f"game: {GAME.upper()}")
        outcome = run(world, mail(shouted, message_id="<upper@ann>"))
    finally:
        event.remove(world.engine, "before_cursor_execute", record)
    assert outcome.verdict == "accepted"
    reading_games = [s for s in statements if re.search(r"\bFROM games\b", s)]
    assert reading_games and all(" WHERE " in s for s in reading_games), reading_games
    with world.engine.connect() as connection:
        indexes = {i["name"]: i["column_names"] for i in inspect(connection).get_indexes("games")}
    assert ["name_key"] in indexes.values()


# --- 1: the due run reads what arrived before the deadline first ------------------------


def test_the_due_run_reads_mail_that_arrived_before_the_deadline_first(
    world: World, mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flood of junk kept `mail ingest` busy past the deadline, so the sheet
    that came in 6 s before it is still unread when `turn run --due` starts:
    the due run reads it (and the junk) first, and the sheet is in force for
    the turn it was meant for, not refused as for an old turn."""
    deadline = _deadline_passed_20_s_ago(world)
    address = "crails@example.org"
    url = mail_world.imap_url(address)
    server = imap_url(url)
    client = imaplib.IMAP4(server.host, server.port)
    client.login(server.user or "", server.password or "")

    def deliver(message: bytes, at: datetime) -> None:
        status, _ = client.append("INBOX", "", imaplib.Time2Internaldate(at), message)
        assert status == "OK"

    early = deadline - timedelta(minutes=10)
    for n in range(30):
        junk = mail(
            f"Cheap pills, offer {n}", sender=f"spam{n}@junk.example", message_id=f"<j{n}@x>"
        )
        deliver(bytes(junk), early + timedelta(seconds=n))
    deliver(
        bytes(mail(sheet(order="BORROW 150"), message_id="<ontime@ann>")),
        deadline - timedelta(seconds=6),
    )
    client.logout()
    monkeypatch.setenv("TURNPROC_DATABASE_URL", world.url)
    monkeypatch.setenv("TURNPROC_IMAP_URL", url)
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)
    assert main(["turn", "run", "--due"]) == 0
    # The next cron run's `mail ingest` finds nothing left that could be refused.
    assert main(["mail", "ingest", "--imap"]) == 0
    rows = {row.message_id: row for row in stored(world)}
    assert rows["<ontime@ann>"].verdict == "accepted" and rows["<ontime@ann>"].turn == 2
    assert len(rows) == 31
    with transaction(world.engine) as session:
        game = repo.get_game(session, world.game_id)
        in_force = repo.orders_in_force(session, world.game_id, 2)
    assert game.current_turn == 3
    assert [o.amount for o in in_force[1].orders] == [150]  # type: ignore[attr-defined]
