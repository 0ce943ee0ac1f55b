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
from pathlib import Path

import pytest

from .g18xx_mail_play import MailedGame, grouped, recorded_plan
from .mail_players import (
    as_attachment,
    as_html_only,
    as_quoted_reply,
    attachment,
    body_text,
    pdf_text,
)
from .mailservers import MailWorld

GAME = "ms-e2e"
BATCH = 30  # mails sent before each `mail ingest --imap`


def test_an_18ms_game_played_by_mail_to_its_end(
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan, expected_scores, _ = recorded_plan("18MS/67889.json", "18MS", {"edition": "18xx.games"})
    game = MailedGame(GAME, 3, mail_world, tmp_path, monkeypatch, capsys)
    game.start("18ms", "--edition", "18xx.games", "--move-hours", "72")
    listed = json.loads(game.cli("game", "list", "--json"))
    assert [(g["name"], g["scenario"], g["status"]) for g in listed] == [(GAME, "18ms", "active")]
    clients = game.clients
    for n, client in clients.items():
        assert len(client.find(rf"^\[{GAME}\] Welcome: player {n} of 18MS")) == 1

    # The opening, by answering each "your move" mail: one mail per player's
    # consecutive orders, the three ways players send a sheet.
    ways = [
        lambda mail, sheet: as_quoted_reply(mail, sheet),
        lambda mail, sheet: as_html_only(sheet),
        lambda mail, sheet: as_attachment(sheet),
    ]
    mails = grouped(plan)
    move = 1
    first_lay = next(i for i, (_, orders, _) in enumerate(mails) if orders.startswith("LAY"))
    assert first_lay > 4
    sent = ""  # the Message-ID of the last mail sent
    for index in range(first_lay + 1):
        seat, orders, actions = mails[index]
        if index and mails[index - 1].seat == seat:
            # his move again once the others passed without being asked: the
            # receipt of his last mail carries his sheet
            mail = game.receipt_mail(seat, sent)
            assert f"turn: {move} player: {seat} secret: ________" in body_text(mail)
        else:
            mail = game.your_move(seat, move)
            assert pdf_text(attachment(mail, ".pdf")) and json.loads(attachment(mail, ".json"))
        if index == first_lay:
            # An illegal tile lay: refused with its reason, nothing applied.
            sent = clients[seat].send(as_quoted_reply(mail, game.filled(mail, seat, "LAY 9 E11 0")))
            game.ingest({"rejected": 1})
            refusal = game.receipt_to(seat, sent)
            assert "REFUSED line 1: LAY 9 E11 0" in refusal
            # E11 holds a yellow tile by now (the log's first lay went there)
            assert "because: a yellow tile cannot replace a yellow one (4.2.1c)" in refusal
            assert f"turn: {move} player: {seat} secret: ________" in refusal
        sent = clients[seat].send(ways[index % 3](mail, game.filled(mail, seat, orders)))
        game.ingest({"accepted": 1})
        receipt = game.receipt_to(seat, sent)
        for line in orders.splitlines():
            assert f"applied: {line}" in receipt, receipt
        move += actions
        if index == 3:
            # A stray order: the moderator takes it back; every player is told.
            stray_seat = mails[index + 1].seat
            stray = game.your_move(stray_seat, move)
            clients[stray_seat].send(as_html_only(game.filled(stray, stray_seat, "PAR IC 90")))
            game.ingest({"accepted": 1})
            game.cli("18xx", "undo", GAME, "--to", str(move - 1), "--reason", "a slip")
            game.cli("mail", "send")
            for n, client in clients.items():
                told = client.find(rf"^\[{GAME}\] Moves taken back")
                assert len(told) == 1 and "a slip" in body_text(told[0]), n
            # The stray par and its taking back each take a move number: the
            # sheet of the position before the par is never valid again.
            exported = game.export()
            assert exported["moves"][-1]["undone"] and exported["move"] == move + 2
            assert exported["position"]["companies"]["IC"]["president"] is None
            assert len(clients[stray_seat].find(rf"^\[{GAME}\] Your move \(move {move},")) == 1
            move += 2
            assert len(clients[stray_seat].find(rf"^\[{GAME}\] Your move \(move {move},")) == 1
    # The rest of the game: sheets mailed in batches, in order.
    final = game.mail_in_batches(move, mails[first_lay + 1 :], BATCH)
    exported = game.export()
    assert exported["status"] == "ended"
    scores = exported["position"]["scores"]
    assert "The game is over (fixed_round). Final scores:" in final
    for seat, score in scores.items():
        assert f"player {seat}: ${score}" in final
    assert scores == expected_scores
    # Every player heard of each round's end, and of every move that was his.
    rounds = clients[1].find(rf"^\[{GAME}\] .* is over: ")
    assert len(rounds) >= 10 and rounds[-1]["Subject"].endswith("game over")
    listed = json.loads(game.cli("game", "list", "--json"))
    assert listed[0]["status"] == "ended"
    # Each RUN BEST receipt spells out the routes the engine chose.
    runs = [
        body_text(m)
        for client in clients.values()
        for m in client.inbox()
        if "applied: RUN BEST" in body_text(m)
    ]
    assert runs and all(re.search(r"RUN BEST   -> \S+ runs for \$\d+: \S+ ", r) for r in runs)
