"""18xx games played by mail through the mail intake (turnproc/sequential/):
a move is applied when its mail arrives, in the transaction that stores the
mail's verdict and queues the receipt and the next player's "your move"
mail; undo by the player and by the moderator; standing orders; the clock;
concurrent mails for one game on PostgreSQL; on SQLite and PostgreSQL."""

import io
import json
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from turnproc import sequential
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.mail.inbound import IngestOutcome, ingest
from turnproc.store import g18xx as store
from turnproc.store.db import open_database, transaction
from turnproc.store.models import Game, ModeratorLog, Move18xx, OutboxMessage, Submission

from .store_support import fresh_database

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
NAME = "ms1"
SEATS = {
    1: ("ann@example.org", "alpha1one2three3"),
    2: ("bob@example.org", "bravo2two3four4"),
    3: ("cy@example.org", "charlie3three4five5"),
}
MODERATOR = "mod@example.org"


@dataclass
class World:
    engine: Engine
    clock: datetime

    def mail(
        self, position: int, orders: str, move: int | None = None, secret: str = ""
    ) -> IngestOutcome:
        address, real = SEATS[position]
        if move is None:
            with transaction(self.engine) as session:
                move = _game(session).current_turn
        message = EmailMessage()
        message["From"] = address
        message["To"] = MODERATOR
        message["Subject"] = "my move"
        message["Message-ID"] = make_msgid(domain="example.org")
        message.set_content(
            f"TURNSHEET game: {NAME} turn: {move} player: {position} "
            f"secret: {secret or real}\n{orders}\nEND\n"
        )
        self.clock += timedelta(minutes=1)
        return ingest(self.engine, message.as_bytes(), "test", self.clock, moderator=MODERATOR)

    def outbox(self, to: str | None = None, kind: str | None = None) -> list[OutboxMessage]:
        with transaction(self.engine) as session:
            rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
            for row in rows:
                session.expunge(row)
        return [r for r in rows if (to is None or r.to_address == to) and (kind in (None, r.kind))]

    def to_move(self) -> int | None:
        with transaction(self.engine) as session:
            return store.load(session, NAME).game.to_move()


def _game(session: object) -> Game:
    from sqlalchemy.orm import Session

    assert isinstance(session, Session)
    game = session.scalar(select(Game).where(Game.name == NAME))
    assert game is not None
    return game


@pytest.fixture(params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    for url in fresh_database(request.param, tmp_path):
        engine = open_database(url)
        with transaction(engine) as session:
            sequential.create_game(
                session,
                scenario="18ms",
                seats=[sequential.Seat(p, a, f"P{p}", s) for p, (a, s) in SEATS.items()],
                name=NAME,
                seed=1,
                options={},
                move_hours=48,
                now=NOW,
            )
        yield World(engine, NOW)


def test_a_move_is_applied_at_once_and_the_next_player_is_told(world: World) -> None:
    welcome = world.outbox(kind="welcome")
    assert sorted(m.to_address for m in welcome) == sorted(a for a, _ in SEATS.values())
    first = world.outbox(kind="your-move")
    assert [m.to_address for m in first] == [SEATS[3][0]]  # 18MS: the draft starts with the last
    assert "TURNSHEET game: ms1 turn: 1 player: 3 secret: ________" in first[0].body
    # The family's report of the position rides along: the PDF and its JSON.
    assert first[0].pdf is not None and first[0].pdf.startswith(b"%PDF")
    assert first[0].json_attachment is not None and json.loads(first[0].json_attachment)

    out = world.mail(3, "BID AGS 30")
    assert out.verdict == "accepted" and out.answered
    receipt = world.outbox(to=SEATS[3][0], kind="receipt")[-1]
    assert "applied: BID AGS 30" in receipt.body and "Player 2 is to move." in receipt.body
    assert receipt.in_reply_to == out.message_id
    assert [m.to_address for m in world.outbox(kind="your-move")][-1] == SEATS[2][0]

    # Not his move, an old sheet, a wrong secret: refused, nothing applied.
    wrong = world.mail(1, "BID BS 40")
    assert wrong.verdict == "rejected" and "player 2's move" in wrong.detail
    stale = world.mail(2, "BID BS 40", move=1)
    assert stale.verdict == "rejected" and "move 1, but the game is at move 2" in stale.detail
    forged = world.mail(2, "BID BS 40", secret="guess")
    assert forged.verdict == "refused" and "wrong secret" in forged.detail
    assert world.to_move() == 2

    # Orders apply up to the first refusal, which says why.
    partial = world.mail(2, "BID BS 40\nBID XYZ 10")
    assert partial.verdict == "errors"
    body = world.outbox(to=SEATS[2][0], kind="receipt")[-1].body
    assert "applied: BID BS 40" in body and "REFUSED line 2: BID XYZ 10" in body
    assert "no private XYZ; privates: " in body
    assert world.to_move() == 1


def test_undo_by_the_player_and_by_the_moderator(world: World) -> None:
    world.mail(3, "BID AGS 30")
    world.mail(2, "BID BS 40")
    taken = world.mail(2, "UNDO")
    assert taken.verdict == "accepted", taken.detail
    assert world.to_move() == 2
    told = world.outbox(kind="notice")  # player 1, whose move it had become
    assert [m.to_address for m in told] == [SEATS[1][0]]
    world.mail(2, "BID M&M 50")
    world.mail(1, "BID BS 40")
    late = world.mail(2, "UNDO")
    assert late.verdict == "rejected" and "another player has acted" in late.detail

    with transaction(world.engine) as session:
        undone = sequential.moderator_undo(session, NAME, 1, "a slip of the pen", NOW)
        log = session.scalars(select(ModeratorLog).where(ModeratorLog.action == "18xx_undo")).one()
        assert log.reason == "a slip of the pen"
    assert len(undone) == 2
    assert world.to_move() == 2
    notices = [m for m in world.outbox(kind="notice") if "slip of the pen" in m.body]
    assert sorted(m.to_address for m in notices) == sorted(a for a, _ in SEATS.values())
    with transaction(world.engine) as session:
        # Four moves stored and three taken back: the next move is number 8.
        assert _game(session).current_turn == 8
        undone_rows = session.scalars(select(Move18xx).where(Move18xx.undone_at.is_not(None)))
        assert len(list(undone_rows)) == 3  # kept, not replayed


def _to_stock_round(world: World) -> None:
    for position, order in ((3, "BID AGS 30"), (2, "BID BS 40"), (1, "BID M&M 50")):
        assert world.mail(position, order).verdict == "accepted"


def test_standing_orders_and_round_notices(world: World) -> None:
    _to_stock_round(world)
    notices = [m for m in world.outbox(kind="notice") if "is over" in m.subject]
    assert len(notices) == 3 and "Private company draft is over" in notices[0].subject
    assert world.mail(3, "STANDING PASS ALWAYS").verdict == "accepted"
    assert world.to_move() == 1
    world.mail(1, "PAR WRA 80")
    world.mail(2, "PAR GMO 75")  # 3 passes by his standing order
    assert world.to_move() == 1
    with transaction(world.engine) as session:
        origins = [m.origin for m in store.live_moves(session, store.load(session, NAME).row)]
    assert origins[-1] == "standing"
    assert world.mail(2, "STANDING BUY GMO").verdict == "accepted"
    for _ in range(4):
        world.mail(1, "BUY WRA")  # 2 buys GMO by his standing order, 3 passes
    with transaction(world.engine) as session:
        game = store.load(session, NAME).game
        assert game.companies["GMO"].floated and game.companies["WRA"].floated
        assert json.loads(store.load(session, NAME).row.standing) == {"3": {"kind": "pass-always"}}
    ended = [m for m in world.outbox(to=SEATS[2][0], kind="notice") if "standing" in m.subject]
    assert ended and "GMO has floated" in ended[-1].body


def test_a_standing_order_fits_any_move_and_is_carried_out_at_once(world: World) -> None:
    _to_stock_round(world)
    early = world.mail(2, "STANDING PASS", move=1)  # not his move, an old sheet
    assert early.verdict == "accepted", early.detail
    assert world.to_move() == 1
    now = world.mail(1, "STANDING PASS ALWAYS")  # his move: he passes, then 2 by his order
    assert now.verdict == "accepted", now.detail
    assert world.to_move() == 3
    body = world.outbox(to=SEATS[1][0], kind="receipt")[-1].body
    assert "player 1's standing order: PASS" in body and "player 2's standing order: PASS" in body
    assert world.outbox(kind="your-move")[-1].to_address == SEATS[3][0]


def test_the_clock_reminds_then_passes_or_plays_for_the_player(world: World) -> None:
    with transaction(world.engine) as session:
        assert sequential.tick(session, NOW + timedelta(hours=30), MODERATOR) == []
        assert sequential.tick(session, NOW + timedelta(hours=37), MODERATOR) == [
            f"{NAME}: player 3 reminded"
        ]
        # A draft must buy: no pass; the computer player buys for him.
        done = sequential.tick(session, NOW + timedelta(hours=49), MODERATOR)
        assert done and "player 3 missed his move; the computer moved for him: BID" in done[0]
    assert world.outbox(to=SEATS[3][0], kind="reminder")
    assert "Your move was missed" in world.outbox(to=SEATS[3][0], kind="notice")[-1].subject
    assert world.outbox(kind="your-move")[-1].to_address == SEATS[2][0]
    assert world.to_move() == 2
    for position, order in ((2, "BID M&O 70"), (1, "BID AGS 30")):
        assert world.mail(position, order).verdict == "accepted"
    with transaction(world.engine) as session:
        due = store.load(session, NAME).row.move_due
        assert due is not None
        done = sequential.tick(session, due + timedelta(minutes=1), MODERATOR)
    assert done == [f"{NAME}: player 1 missed his move; passed for him: PASS (pass)"]
    assert world.to_move() == 2


def test_a_missed_move_nobody_can_make_goes_to_the_moderator(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from turnproc.families.g18xx.family import G18XX
    from turnproc.families.registry import SEQUENTIAL

    monkeypatch.setitem(SEQUENTIAL, G18XX.name, replace(G18XX, computer_move=lambda: None))
    with transaction(world.engine) as session:
        done = sequential.tick(session, NOW + timedelta(hours=49), MODERATOR)
        assert "the moderator is told" in done[0]
        assert sequential.tick(session, NOW + timedelta(hours=50), MODERATOR) == []
    alert = world.outbox(to=MODERATOR, kind="alert")
    assert len(alert) == 1 and "turnproc 18xx move ms1 --player 3" in alert[0].body
    assert world.to_move() == 3


def test_stored_moves_replay_byte_identically_and_export(world: World) -> None:
    _to_stock_round(world)
    world.mail(1, "PAR WRA 80\n")
    with transaction(world.engine) as session:
        loaded = store.load(session, NAME)
        rows = store.live_moves(session, loaded.row)
        for row in rows:
            again = parse_action(json.loads(row.action)).model_dump(
                exclude_none=True, exclude={"auto_actions"}
            )
            assert json.dumps(again) == row.action
        data = sequential.export(session, _game(session))
    assert data["to_move"] == 2 and data["title"] == "18MS"
    assert [m["seq"] for m in data["moves"]] == [r.seq for r in rows]
    assert data["position"]["companies"]["WRA"]["president"] == 1


def test_concurrent_mails_for_one_game_are_applied_one_after_the_other(world: World) -> None:
    """Two mails from the player to move, for the same move, at once: the
    row lock applies one; the other then finds the game moved on."""
    if world.engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers itself; the row lock is PostgreSQL's")
    outcomes: list[IngestOutcome] = []
    barrier = threading.Barrier(2)

    def send(order: str) -> None:
        barrier.wait()
        outcomes.append(world.mail(3, order, move=1))

    threads = [threading.Thread(target=send, args=(o,)) for o in ("BID AGS 30", "BID BS 40")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(o.verdict for o in outcomes) == ["accepted", "rejected"], outcomes
    with transaction(world.engine) as session:
        assert len(store.live_moves(session, store.load(session, NAME).row)) == 1


def test_the_moderator_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from turnproc.cli import main

    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n"
        + "".join(f"{p},,P{p},{a},{s}\n" for p, (a, s) in SEATS.items())
    )
    new = ["game", "new", "--scenario", "18ms", "--players", str(players), "--name", NAME]
    assert main([*new, "--edition", "1.1"]) == 2
    assert "18MS has no option edition=1.1" in capsys.readouterr().err
    assert main(new) == 0
    assert main(["game", "status", NAME]) == 0
    out = capsys.readouterr().out
    assert "18MS, move 1, active, player 3 to move" in out and "Private company draft" in out
    assert main(["18xx", "clock", NAME, "--move-hours", "0"]) == 2
    assert main(["18xx", "clock", NAME, "--move-hours", "24"]) == 0
    assert main(["18xx", "tick", "--json"]) == 0
    assert "[]" in capsys.readouterr().out
    assert main(["18xx", "undo", NAME, "--to", "0", "--reason", "x"]) == 2  # nothing to undo
    # The moderator moves for a player: through the same pipeline as a mail.
    orders = tmp_path / "orders.txt"
    orders.write_text("BID BS 40\n")
    assert main(["18xx", "move", NAME, "--player", "3", str(orders)]) == 0
    capsys.readouterr()
    assert main(["game", "export", NAME, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["move"] == 2 and data["to_move"] == 2 and data["moves"][0]["origin"] == "moderator"
    # CR's turn runner leaves a sequential game alone.
    assert main(["turn", "run", "--due"]) == 0


def _held_once_stored(
    path: Path, message_id: str, process: "subprocess.Popen[bytes]"
) -> sqlite3.Connection | None:
    """Waits until the intake run `process` has stored the message, then
    returns a connection holding SQLite's write lock, so the run cannot
    commit the move it is applying (None if the run ended first). Without the
    lock a loaded machine can finish the move between two looks."""
    held = sqlite3.connect(path, timeout=30, isolation_level=None)
    while process.poll() is None:
        held.execute("BEGIN IMMEDIATE")
        found = held.execute("SELECT 1 FROM submissions WHERE message_id = ?", (message_id,))
        if found.fetchone() is not None:
            return held
        held.execute("ROLLBACK")
        time.sleep(0.005)
    held.close()
    return None


def test_a_killed_intake_applies_a_move_whole_or_not_at_all(tmp_path: Path) -> None:
    """`mail ingest -` killed with SIGKILL at random moments: the move, the
    mail's verdict and its receipt are committed together or not at all; a
    message stored but not processed is processed by the next run."""
    import os
    import random
    import signal
    import sys

    from turnproc.mail.inbound import retry

    url = f"sqlite:///{tmp_path / 'kill.db'}"
    engine = open_database(url)
    with transaction(engine) as session:
        sequential.create_game(
            session,
            scenario="18ms",
            seats=[sequential.Seat(p, a, f"P{p}", s) for p, (a, s) in SEATS.items()],
            name=NAME,
            seed=1,
            options={},
            move_hours=48,
            now=NOW,
        )
    env = dict(os.environ, TURNPROC_DATABASE_URL=url)
    command = [sys.executable, "-m", "turnproc", "mail", "ingest", "-"]
    moves = [(3, "BID BS 40"), (2, "BID M&O 70"), (1, "BID AGS 30\nPAR L&N 75"), (2, "PASS")]
    draw = random.Random(20261201)
    killed = processed_after_a_kill = 0
    for number, (position, orders) in enumerate(moves, 1):
        message = EmailMessage()
        message["From"] = SEATS[position][0]
        message["To"] = MODERATOR
        message["Subject"] = "move"
        message["Message-ID"] = make_msgid(domain="example.org")
        message.set_content(
            f"TURNSHEET game: {NAME} turn: {number if number < 4 else 5} player: {position} "
            f"secret: {SEATS[position][1]}\n{orders}\nEND\n"
        )
        raw = message.as_bytes()
        for attempt in range(4):  # up to three killed runs, then one to the end
            process = subprocess.Popen(command, stdin=subprocess.PIPE, env=env)
            assert process.stdin is not None
            process.stdin.write(raw)
            process.stdin.close()
            held = None
            if attempt == 0:  # anywhere, mostly before the message is stored
                time.sleep(draw.uniform(0.2, 3.0))
            elif attempt < 3:  # once the message is stored: while its move is being applied
                held = _held_once_stored(tmp_path / "kill.db", message["Message-ID"], process)
                time.sleep(draw.uniform(0, 0.02))
            if attempt < 3 and process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed += 1
            process.wait(timeout=120)
            if held is not None:
                held.execute("ROLLBACK")
                held.close()
            with transaction(engine) as session:
                row = session.scalar(
                    select(Submission).where(Submission.message_id == message["Message-ID"])
                )
                applied = len(store.live_moves(session, store.load(session, NAME).row))
                answered = session.scalars(
                    select(OutboxMessage).where(OutboxMessage.in_reply_to == message["Message-ID"])
                ).all()
                verdict, row_id = (row.verdict, row.id) if row is not None else (None, None)
            expected_before = number - 1 if number < 4 else 4
            if verdict == "accepted":
                assert applied == expected_before + len(orders.splitlines()) and len(answered) == 1
                break
            assert verdict in (None, "received"), verdict
            assert applied == expected_before and not answered
            if verdict == "received":
                processed_after_a_kill += 1
                outcome = retry(engine, [row_id])[0]
                assert outcome.verdict == "accepted", outcome
                break
        else:
            pytest.fail(f"move {number} never went through")
    with transaction(engine) as session:
        game = store.load(session, NAME).game
        assert game.round == "stock" and game.companies["L&N"].president == 1
    assert killed >= 1 and processed_after_a_kill >= 1


def test_an_offer_for_a_private_is_told_to_every_player(world: World) -> None:
    """3.2b: at the table everyone hears an offer; by mail the next player's
    "your move" mail and the receipts show the standing offers, not only the
    "what you may do" of the player it is made to."""
    for position, order in ((3, "BID AGS 30"), (2, "BID BS 40"), (1, "BID M&M 50")):
        assert world.mail(position, order).verdict == "accepted"
    offerer = world.to_move()
    assert offerer is not None
    with transaction(world.engine) as session:
        game = store.load(session, NAME).game
        private = next(p.data.id for p in game.privates.values() if p.owner == offerer)
        following = game.next_player(offerer)
        told = game.next_player(following)  # the offer goes past the next player
    out = world.mail(offerer, f"OFFER {private} TO {told} FOR 25\nPASS")
    assert out.verdict == "accepted"
    words = f"player {offerer} offers {private} to player {told} for $25"
    assert world.to_move() == following
    your_move = world.outbox(to=SEATS[following][0], kind="your-move")[-1]
    assert "Standing offers for privates:" in your_move.body
    assert f"{words}; player {told} takes it with BUY PRIVATE {private} 25" in your_move.body
    assert your_move.json_attachment is not None
    offers = json.loads(your_move.json_attachment)["offers"]
    assert [(o["private"], o["buyer"], o["price"]) for o in offers] == [(private, str(told), 25)]
    receipt = world.outbox(to=SEATS[offerer][0], kind="receipt")[-1]
    assert words in receipt.body


def test_the_clock_does_not_pass_for_a_player_whose_clock_just_started(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`18xx tick` finds player 3's move overdue; before it takes the game's
    row lock, player 3's move arrives and player 2's clock starts. The tick
    judges the clock again under the lock and leaves player 2 alone."""
    if world.engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers itself; the row lock is PostgreSQL's")
    late = NOW + timedelta(hours=49)
    real_load = store.load
    raced: list[IngestOutcome] = []
    racing: list[bool] = []

    def load_after_a_move(session: object, name: str, lock: bool = False) -> store.Loaded:
        if lock and not racing:  # the tick's first lock; the mail's own loads pass through
            racing.append(True)
            world.clock = late - timedelta(minutes=1)
            raced.append(world.mail(3, "BID AGS 30"))  # committed by another connection
        return real_load(session, name, lock)  # type: ignore[arg-type]

    monkeypatch.setattr(sequential.store, "load", load_after_a_move)
    with transaction(world.engine) as session:
        done = sequential.tick(session, late, MODERATOR)
    assert raced and raced[0].verdict == "accepted", raced
    assert done == []
    assert world.to_move() == 2
    with transaction(world.engine) as session:
        origins = [m.origin for m in store.live_moves(session, store.load(session, NAME).row)]
    assert origins == ["mail"]
    assert not [m for m in world.outbox(kind="notice") if "missed" in m.subject]


def test_a_sheet_written_before_an_undo_is_refused_with_the_reason(world: World) -> None:
    """A move number is never used twice: the number goes up with every action
    applied and every action taken back, so a sheet written for the position
    before an UNDO never applies to the position after it."""
    assert world.mail(3, "BID AGS 30").verdict == "accepted"
    stale = 2  # player 2's sheet, in his "your move" mail
    assert f"turn: {stale} player: 2" in world.outbox(to=SEATS[2][0], kind="your-move")[-1].body
    assert world.mail(3, "UNDO").verdict == "accepted"
    again = world.mail(3, "BID BS 40")  # on the sheet of the UNDO's receipt
    assert again.verdict == "accepted", again.detail
    refused = world.mail(2, "BID M&M 50", move=stale)
    assert refused.verdict == "rejected"
    assert f"this sheet is for move {stale}" in refused.detail
    assert "taken back" in world.outbox(to=SEATS[2][0], kind="receipt")[-1].body
    assert world.to_move() == 2
    with transaction(world.engine) as session:
        live = store.live_moves(session, store.load(session, NAME).row)
        assert [json.loads(m.action)["company"] for m in live] == ["BS"]


def test_undo_is_bounded_and_so_are_the_mails_it_causes(world: World) -> None:
    """A player may take back his move twice a round (docs/18xx.md); each
    UNDO mails his receipt and tells the player whose move it had become."""
    before = len(world.outbox())
    verdicts = []
    for _ in range(20):
        verdicts.append(world.mail(3, "BID AGS 30").verdict)
        verdicts.append(world.mail(3, "UNDO").verdict)
    assert verdicts[:4] == ["accepted"] * 4
    assert verdicts[4:6] == ["accepted", "rejected"]
    assert "at most 2 times a round" in world.outbox(to=SEATS[3][0])[-1].body
    assert world.to_move() == 2
    sent = world.outbox()[before:]
    assert not [m for m in sent if m.to_address == SEATS[1][0]]  # not his business
    # Two moves taken back (4 mails each), the third move (2) and its refused
    # UNDO (1), then 17 moves and UNDOs refused (at most an answer each).
    assert len(sent) <= 2 * 4 + 3 + 17 * 2, [(m.to_address, m.subject) for m in sent]


def _command(world: World, position: int, text: str) -> IngestOutcome:
    message = EmailMessage()
    message["From"] = SEATS[position][0]
    message["To"] = MODERATOR
    message["Subject"] = text
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(text + "\n")
    world.clock += timedelta(minutes=1)
    return ingest(world.engine, message.as_bytes(), "test", world.clock, moderator=MODERATOR)


def test_an_18ms_player_gets_the_18ms_rules_and_order_language(world: World) -> None:
    """The welcome and the answer to RULES carry the 18MS rules with the order
    language (read from the PDF); HELP gives the order language; nothing of
    Continental Rails reaches him."""
    from pypdf import PdfReader

    from turnproc.mail.outbound import outgoing

    def pdfs(row: OutboxMessage) -> dict[str, str]:
        mailed = outgoing(row, "an-installation-key", row.pdf)  # the key only names the Message-ID
        texts = {}
        for part in mailed.attachments:
            if part.filename.endswith(".pdf"):
                reader = PdfReader(io.BytesIO(part.content))
                texts[part.filename] = " ".join(
                    " ".join(page.extract_text() or "" for page in reader.pages).split()
                )
        return texts

    welcome = world.outbox(to=SEATS[1][0], kind="welcome")[0]
    assert "docs/18xx.md" not in welcome.body and "18ms-rules.pdf" in welcome.body
    assert _command(world, 1, "RULES").verdict == "rules"
    rules = world.outbox(to=SEATS[1][0], kind="rules")[-1]
    assert _command(world, 1, "HELP").verdict == "help"
    help_mail = world.outbox(to=SEATS[1][0], kind="help")[-1]
    for row in (welcome, rules):
        texts = pdfs(row)
        assert list(texts) == ["18ms-rules.pdf"], row.kind
        text = texts["18ms-rules.pdf"]
        assert "LAY 57 D4 2" in text and "New Orleans bonus" in text and "10.III" in text
        assert "Continental" not in text and "tycoon" not in text.lower()
        assert "Continental" not in row.body
    assert "RULES: the rules of 18MS" in rules.subject
    assert "PAR GMO 75" in help_mail.body and "LAY 57 D4 2" in help_mail.body
    assert "Continental" not in help_mail.body and "RESEND" not in help_mail.body


def test_a_players_refused_moves_are_always_answered_with_his_legal_moves(world: World) -> None:
    """Ten illegal moves in an hour from the player to move: each answered,
    tagged with the game, with the reason and the legal moves; none counts
    toward the refusal limits (no alert); a stranger's still do."""
    for attempt in range(10):
        out = world.mail(3, f"BID AGS {31 + attempt}")
        assert out.verdict == "rejected" and out.answered and out.alert is None, out
    answers = world.outbox(to=SEATS[3][0], kind="receipt")
    assert len(answers) == 10
    for answer in answers:
        assert answer.subject.startswith("[ms1] REFUSED: ")
        assert "because: AGS costs $30" in answer.body
        assert "BID AGS 30 (Alabama Great Southern Railroad" in answer.body
        assert "turn: 1 player: 3 secret: ________" in answer.body
        assert "PASS" not in answer.body  # 18MS: each player buys a private (3.1)
    assert not world.outbox(to=MODERATOR, kind="alert")
    assert world.mail(3, "BID AGS 30").verdict == "accepted"


def test_the_legal_moves_of_a_stock_round_turn(world: World) -> None:
    """The player to move is told each par and purchase he may make, at its
    price, and that PASS buys nothing; no purchase he cannot make."""
    _to_stock_round(world)
    first = world.outbox(to=SEATS[1][0], kind="receipt")[-1].body  # he bought last, moves first
    assert "It is still your move. Your legal moves now:" in first
    assert "PAR GMO 70 (or par 75, 80, 90; the president's 20% for twice the par" in first
    assert "PASS (buy nothing this turn)" in first and "BUY GMO" not in first
    world.mail(1, "PAR WRA 80")
    body = world.outbox(to=SEATS[2][0], kind="your-move")[-1].body
    assert "BUY WRA IPO (10% for $80 from the initial offering)" in body
    assert "PAR WRA" not in body and "SELL" not in body  # no sales in the first stock round


def test_every_move_mail_carries_the_log_since_the_readers_last_move(world: World) -> None:
    """The "your move" mail and its PDF tell what the others did since the
    reader's last move, in words; the receipt what the mail did; a player who
    chose NOTIFY EVERY gets each move as it happens, one who did not only
    his own turns."""
    from .mail_players import pdf_text

    _to_stock_round(world)
    assert world.mail(3, "NOTIFY EVERY").verdict == "accepted"
    before = len(world.outbox(to=SEATS[3][0], kind="notice"))
    assert world.mail(1, "PAR WRA 80").verdict == "accepted"
    mail = world.outbox(to=SEATS[2][0], kind="your-move")[-1]
    assert "Since your last move:\n  P1 bought M&M for $50\n  P1 started WRA at par $80" in (
        mail.body
    )
    assert mail.pdf is not None and "P1 started WRA at par $80 for $160" in pdf_text(mail.pdf)
    receipt = world.outbox(to=SEATS[1][0], kind="receipt")[-1].body
    assert "What happened:\n    P1 started WRA at par $80 for $160" in receipt
    told = world.outbox(to=SEATS[3][0], kind="notice")[before:]
    assert len(told) == 1 and "P1 started WRA at par $80 for $160" in told[0].body
    assert not [m for m in world.outbox(to=SEATS[2][0], kind="notice") if "started" in m.body]


def test_game_status_gives_the_deadline_to_the_minute_with_its_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    from turnproc.cli import main

    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    players = tmp_path / "players.csv"
    players.write_text(
        "position,character,real_name,email,secret\n"
        + "".join(f"{p},,P{p},{a},{s}\n" for p, (a, s) in SEATS.items())
    )
    assert (
        main(["game", "new", "--scenario", "18ms", "--players", str(players), "--name", NAME]) == 0
    )
    capsys.readouterr()
    assert main(["game", "status", NAME]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert re.search(r"player 3 to move by \d{4}-\d\d-\d\d \d\d:\d\d UTC$", first), first
