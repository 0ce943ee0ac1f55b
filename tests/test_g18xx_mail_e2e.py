"""A three-player 18MS game played by mail to its end, against real mail
servers on 127.0.0.1, the moderator using only the command line (`game new`,
`mail ingest --imap`, `mail send`, `18xx undo`, `game export`).

The players' orders are those of a recorded game (18MS/67889, 18xx.games
edition) written in the order language: the opening is played by reading
each "your move" mail over IMAP and answering it (as a quoted reply, an
HTML-only mail, a .txt attachment); an illegal tile lay is refused with its
reason; a stray par is taken back by the moderator, every player told; the
rest of the game is mailed in batches, each sheet carrying the move number
its "your move" mail would carry, until the game ends and the last receipt
gives the final scores."""

import json
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.g18xx_fixtures import load_recorded
from tests.g18xx_orders_from_log import mail_orders
from turnproc.families.g18xx.replay import standing_actions
from turnproc.families.g18xx.titles.load import new_game

from .mail_players import (
    Players,
    as_attachment,
    as_html_only,
    as_quoted_reply,
    attachment,
    body_text,
    cli,
    new_game_by_mail,
    pdf_text,
)
from .mailservers import MailWorld

GAME = "ms-e2e"
PLAYERS: Players = {  # seat: (address, secret)
    1: ("ann@example.org", "alpha1one2three3"),
    2: ("bob@example.org", "bravo2two3four4"),
    3: ("cy@example.org", "charlie3three4five5"),
}
BATCH = 30  # mails sent before each `mail ingest --imap`


def _plan() -> tuple[list[tuple[int, str]], dict[str, int]]:
    """The recorded game's orders, seats numbered 1-3 in the log's order."""
    data = load_recorded("18MS/67889.json")
    seat = {p["id"]: n for n, p in enumerate(data["players"], 1)}

    def renumber(action: dict[str, Any]) -> dict[str, Any]:
        action = dict(action)
        if action["entity_type"] == "player":
            action["entity"] = seat[action["entity"]]
        action["auto_actions"] = [renumber(a) for a in action.get("auto_actions", [])]
        return action

    game = new_game("18MS", [1, 2, 3], {"edition": "18xx.games"})
    game.recorded_revenue_stands = True
    plan = mail_orders(game, [renumber(a) for a in standing_actions(data["actions"])])
    assert game.ended
    return plan, {str(p): s for p, s in game.scores().items()}


def _sheet(move: int, seat: int, orders: str) -> str:
    return (
        f"TURNSHEET game: {GAME} turn: {move} player: {seat} secret: {PLAYERS[seat][1]}\n"
        f"{orders}\nEND\n"
    )


def _filled(your_move: EmailMessage, seat: int, orders: str) -> str:
    found = re.search(r"^TURNSHEET game:.*?^END\s*$", body_text(your_move), re.M | re.S)
    assert found, "the your-move mail holds no sheet"
    blank = found.group(0)
    assert f"player: {seat} secret: ________" in blank
    filled = re.sub(r"secret:\s*_+", f"secret: {PLAYERS[seat][1]}", blank, count=1)
    return filled.replace("\nEND", f"\n{orders}\nEND", 1)


def test_an_18ms_game_played_by_mail_to_its_end(
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan, expected_scores = _plan()
    options = ("--scenario", "18ms", "--edition", "18xx.games", "--move-hours", "72")
    _, clients = new_game_by_mail(mail_world, tmp_path, monkeypatch, capsys, GAME, PLAYERS, options)
    listed = json.loads(cli(capsys, "game", "list", "--json"))
    assert [(g["name"], g["scenario"], g["status"]) for g in listed] == [(GAME, "18ms", "active")]
    for n, client in clients.items():
        assert len(client.find(rf"^\[{GAME}\] Welcome: player {n} of 18MS")) == 1

    def ingest(expected: dict[str, int]) -> list[dict[str, Any]]:
        done = json.loads(cli(capsys, "mail", "ingest", "--imap", "--json"))
        assert done["verdicts"] == expected, done["messages"]
        cli(capsys, "mail", "send")
        messages: list[dict[str, Any]] = done["messages"]
        return messages

    def your_move(seat: int, move: int) -> EmailMessage:
        found = clients[seat].find(rf"^\[{GAME}\] Your move \(move {move},")
        assert found, f"player {seat} has no your-move mail for move {move}"
        return found[-1]

    def receipt_to(seat: int, sent: str) -> str:
        replies = [m for m in clients[seat].inbox() if m["In-Reply-To"] == sent]
        assert len(replies) == 1, f"player {seat}: {len(replies)} receipts"
        return body_text(replies[0])

    # The opening, by answering each "your move" mail: one mail per player's
    # consecutive orders, the three ways players send a sheet.
    ways = [
        lambda mail, sheet: as_quoted_reply(mail, sheet),
        lambda mail, sheet: as_html_only(sheet),
        lambda mail, sheet: as_attachment(sheet),
    ]
    mails = _grouped(plan)
    move = 1
    first_lay = next(i for i, (_, orders) in enumerate(mails) if orders.startswith("LAY"))
    assert first_lay > 4
    for index in range(first_lay + 1):
        seat, orders = mails[index]
        mail = your_move(seat, move)
        assert pdf_text(attachment(mail, ".pdf")) and json.loads(attachment(mail, ".json"))
        if index == first_lay:
            # An illegal tile lay: refused with its reason, nothing applied.
            sent = clients[seat].send(as_quoted_reply(mail, _filled(mail, seat, "LAY 9 E11 0")))
            ingest({"refused": 1})
            refusal = receipt_to(seat, sent)
            assert "REFUSED line 1: LAY 9 E11 0" in refusal
            # E11 holds a yellow tile by now (the log's first lay went there)
            assert "because: a yellow tile cannot replace a yellow one (4.2.1c)" in refusal
            assert f"turn: {move} player: {seat} secret: ________" in refusal
        sent = clients[seat].send(ways[index % 3](mail, _filled(mail, seat, orders)))
        ingest({"accepted": 1})
        receipt = receipt_to(seat, sent)
        for line in orders.splitlines():
            assert f"applied: {line}" in receipt, receipt
        move += len(orders.splitlines())
        if index == 3:
            # A stray order: the moderator takes it back; every player is told.
            stray_seat, _ = mails[index + 1]
            stray = your_move(stray_seat, move)
            clients[stray_seat].send(as_html_only(_filled(stray, stray_seat, "PAR IC 90")))
            ingest({"accepted": 1})
            cli(capsys, "18xx", "undo", GAME, "--to", str(move - 1), "--reason", "a slip")
            cli(capsys, "mail", "send")
            for n, client in clients.items():
                told = client.find(rf"^\[{GAME}\] Moves taken back")
                assert len(told) == 1 and "a slip" in body_text(told[0]), n
            exported = json.loads(cli(capsys, "game", "export", GAME, "--json"))
            assert exported["moves"][-1]["undone"] and exported["move"] == move
            assert exported["position"]["companies"]["IC"]["president"] is None
            assert len(clients[stray_seat].find(rf"^\[{GAME}\] Your move \(move {move},")) == 2
    # The rest of the game: sheets mailed in batches, in order.
    rest = mails[first_lay + 1 :]
    for start in range(0, len(rest), BATCH):
        chunk = rest[start : start + BATCH]
        sent_ids = []
        for seat, orders in chunk:
            message = EmailMessage()
            message["Subject"] = f"move {move}"
            message.set_content(_sheet(move, seat, orders))
            sent_ids.append((seat, clients[seat].send(message)))
            move += len(orders.splitlines())
        messages = ingest({"accepted": len(chunk)})
        assert [m["message_id"] for m in messages] == [sent for _, sent in sent_ids]
    last_seat, last_sent = sent_ids[-1]
    final = receipt_to(last_seat, last_sent)
    exported = json.loads(cli(capsys, "game", "export", GAME, "--json"))
    assert exported["status"] == "ended"
    scores = exported["position"]["scores"]
    assert "The game is over (fixed_round). Final scores:" in final
    for seat, score in scores.items():
        assert f"player {seat}: ${score}" in final
    assert scores == expected_scores
    # Every player heard of each round's end, and of every move that was his.
    rounds = clients[1].find(rf"^\[{GAME}\] .* is over: ")
    assert len(rounds) >= 10 and rounds[-1]["Subject"].endswith("game over")
    listed = json.loads(cli(capsys, "game", "list", "--json"))
    assert listed[0]["status"] == "ended"
    # Each RUN BEST receipt spells out the routes the engine chose.
    runs = [
        body_text(m)
        for client in clients.values()
        for m in client.inbox()
        if "applied: RUN BEST" in body_text(m)
    ]
    assert runs and all(re.search(r"RUN BEST   -> \S+ runs for \$\d+: \S+ ", r) for r in runs)


def _grouped(plan: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Consecutive orders of one player in one mail."""
    mails: list[tuple[int, str]] = []
    for seat, order in plan:
        if mails and mails[-1][0] == seat:
            mails[-1] = (seat, mails[-1][1] + "\n" + order)
        else:
            mails.append((seat, order))
    return mails
