"""`submit_sheet` and `turnproc orders submit` against a real (SQLite) database:
authentication, replays, duplicates, the all-or-nothing rule, receipts."""

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from turnproc.cli import main
from turnproc.families.continental_rails.engine.orders import Borrow, BuyStock, RequestPresidency
from turnproc.intake.submit import SubmitOutcome, submit_sheet
from turnproc.pipeline import games, players
from turnproc.store import repository
from turnproc.store.db import transaction
from turnproc.store.models import Submission

from .store_support import NOW, fresh_database, open_fresh

SECRET = "river-maple-42"
HEADER = f"TURNSHEET game: demo turn: 1 player: 3 secret: {SECRET}"
AT = NOW + timedelta(hours=1)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    for url in fresh_database("sqlite", tmp_path):
        engine = open_fresh(url)
        with transaction(engine) as session:
            games.create_game(
                session,
                scenario="continental-rails",
                players=[
                    players.PlayerEntry(
                        position=3, email="Ann@Example.org", character="Jay Gould", secret=SECRET
                    )
                ],
                seed=7,
                name="demo",
                now=NOW,
            )
        yield engine


def submit(
    engine: Engine, text: str | bytes, sender: str | None = None, game: str | None = "demo"
) -> SubmitOutcome:
    with transaction(engine) as session:
        return submit_sheet(session, game, text, sender, AT)


def in_force(engine: Engine) -> list[object]:
    with transaction(engine) as session:
        orders = repository.orders_in_force(session, 1, 1).get(3)
    return list(orders.orders) if orders else []


def submissions(engine: Engine) -> list[str]:
    with transaction(engine) as session:
        return [s.verdict for s in session.scalars(select(Submission).order_by(Submission.id))]


def email(
    body: str, message_id: str = "<m1@example.org>", sender: str = "ann@example.org"
) -> bytes:
    return (
        f"From: Ann <{sender}>\r\nTo: moderator@turnproc.invalid\r\nSubject: orders\r\n"
        f"Message-ID: {message_id}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    ).encode()


GOOD = f"{HEADER}\nBORROW 500\nPRESIDENT NYC\nBUY 50 NYC\nEND\n"


def test_a_valid_sheet_is_put_in_force_with_an_ok_receipt(engine: Engine) -> None:
    outcome = submit(engine, GOOD)
    assert outcome.verdict == "accepted" and outcome.exit_code == 0
    assert outcome.receipt.text.startswith("OK: turnsheet accepted for demo turn 1 player 3")
    assert "ORDER CHECKING PREVIEW" in outcome.receipt.text
    assert "Deadline:" in outcome.receipt.text and "left" in outcome.receipt.text
    assert in_force(engine) == [
        Borrow(amount=500),
        RequestPresidency(railroad="NYC"),
        BuyStock(railroad="NYC", shares=50),
    ]
    assert outcome.reply_to == "Ann@Example.org"


def test_the_game_can_come_from_the_header(engine: Engine) -> None:
    assert submit(engine, GOOD, game=None).accepted
    assert submit(engine, GOOD.replace("demo", "DEMO"), game=None).accepted


def test_a_sheet_with_errors_leaves_the_earlier_orders_in_force(engine: Engine) -> None:
    assert submit(engine, GOOD).accepted
    outcome = submit(engine, f"{HEADER}\nBORROW 100\nBUY 5 XYZ\nEND\n")
    assert outcome.verdict == "errors" and outcome.exit_code == 1
    text = outcome.receipt.text
    assert text.startswith("ERRORS: 1 error in your turnsheet")
    assert "line   3  BUY 5 XYZ" in text
    assert "still those of submission #1" in text
    assert in_force(engine)[0] == Borrow(amount=500)


def test_a_later_valid_sheet_replaces_the_earlier(engine: Engine) -> None:
    submit(engine, GOOD)
    outcome = submit(engine, f"{HEADER}\nBORROW 100\nEND\n")
    assert outcome.accepted
    assert in_force(engine) == [Borrow(amount=100)]
    assert "submission #2" in outcome.receipt.text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (GOOD.replace(SECRET, "wrong-secret"), "wrong secret for player 3"),
        (GOOD.replace("game: demo", "game: other"), "this sheet is for game 'other'"),
        (GOOD.replace("turn: 1", "turn: 0"), "this sheet is for turn 0"),
        (GOOD.replace("turn: 1", "turn: 2"), "turn 2 has not begun"),
        (GOOD.replace("player: 3", "player: 9"), "player 9 of demo is not registered"),
        (GOOD.replace("player: 3", "player: 42"), "game demo has no player 42"),
        ("Hello, when is the deadline?", "no turnsheet found"),
    ],
)
def test_refusals_change_nothing(engine: Engine, text: str, reason: str) -> None:
    assert submit(engine, GOOD).accepted
    outcome = submit(engine, text)
    assert outcome.verdict == "refused" and outcome.exit_code == 1
    assert outcome.receipt.text.startswith("REFUSED: ")
    assert reason in outcome.receipt.text
    assert in_force(engine)[0] == Borrow(amount=500)
    assert submissions(engine) == ["accepted", "refused"]


def test_sender_must_be_the_registered_address(engine: Engine) -> None:
    outcome = submit(engine, email(GOOD, sender="mallory@example.org"))
    assert outcome.verdict == "refused"
    assert "mallory@example.org is not the registered address" in outcome.receipt.text
    assert in_force(engine) == []
    assert submit(engine, email(GOOD, message_id="<m2@x>")).accepted  # From: matches


def test_duplicate_message_ids_are_processed_once(engine: Engine) -> None:
    first = submit(engine, email(GOOD))
    again = submit(engine, email(GOOD.replace("BORROW 500", "BORROW 9")))
    assert first.accepted
    assert again.verdict == "duplicate" and not again.answer
    assert in_force(engine)[0] == Borrow(amount=500)
    assert submissions(engine) == ["accepted"]


def test_a_sheet_after_the_deadline_is_refused(engine: Engine) -> None:
    with transaction(engine) as session:
        late = repository.get_game(session, "demo").deadline + timedelta(minutes=1)
        outcome = submit_sheet(session, "demo", GOOD, None, late)
    assert outcome.verdict == "refused" and "deadline" in outcome.receipt.text


def test_repeated_failures_are_silenced_and_reported(engine: Engine) -> None:
    bad = GOOD.replace(SECRET, "guess")
    outcomes = [submit(engine, bad, sender="ann@example.org") for _ in range(7)]
    assert [o.answer for o in outcomes] == [True] * 5 + [False] * 2
    assert not outcomes[1].notify_moderator and outcomes[2].notify_moderator
    with transaction(engine) as session:
        count = session.scalar(select(func.count()).select_from(Submission))
    assert count == 7


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff\xfe binary \x00",
        b"From: x@y\r\nContent-Type: image/png\r\n\r\n\x89PNG",
        b"From: x@y\r\nMessage-ID: <" + b"z" * 5000 + b">\r\n\r\nhello",
        b"TURNSHEET game: demo turn: 1 player: 3 secret: " + b"x" * 300_000,
        ("TURNSHEET game: demo turn: 1 player: 3 secret: s\n" + "BUY 1 NYC\n" * 200_000).encode(),
        b"TURNSHEET game: demo turn: 99999999999 player: -3 secret: s\n",
    ],
)
def test_hostile_input_gets_a_clear_refusal(engine: Engine, raw: bytes) -> None:
    outcome = submit(engine, raw)
    assert outcome.verdict == "refused"
    first = outcome.receipt.text.splitlines()[0]
    assert first.startswith("REFUSED: ") and len(first) < 200
    assert in_force(engine) == []


def test_orders_submit_command(engine: Engine, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", str(engine.url))
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(GOOD)
    at = ["--at", AT.isoformat()]
    assert main(["orders", "submit", "demo", str(sheet), *at]) == 0
    assert capsys.readouterr().out.startswith("OK:")
    sheet.write_text(GOOD.replace(SECRET, "nope"))
    assert main(["orders", "submit", "demo", str(sheet), *at]) == 1
    assert capsys.readouterr().out.startswith("REFUSED:")
    raw = tmp_path / "mail.eml"
    raw.write_bytes(email(GOOD, message_id="<cli@x>"))
    assert main(["orders", "submit", "demo", str(raw), *at]) == 0
    assert capsys.readouterr().out.startswith("OK:")
    with pytest.raises(SystemExit) as usage:
        main(["orders", "submit"])
    assert usage.value.code == 2
    assert main(["orders", "submit", "demo", str(tmp_path / "missing.txt")]) == 2
    assert main(["orders", "sheet", "demo", "--position", "3", "--prefill"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("TURNSHEET game: demo turn: 1 player: 3 secret: ____")
    assert "BUY 50 NYC" in printed
