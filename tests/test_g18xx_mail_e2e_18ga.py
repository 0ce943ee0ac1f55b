"""A three-player 18GA game played by mail to its end, against real mail
servers on 127.0.0.1, the moderator using only the command line (`game new`,
`mail ingest --imap`, `mail send`, `game export`).

The players' orders are those of a recorded game (18GA, ended by a
bankruptcy) written in the order language: the private auction and the first
stock round are played by reading each "your move" mail over IMAP and
answering it; a bid too low is refused with its reason; the first operating
turn's mail has a station order the rules refuse after a tile lay and a home
station they allow, so those stand and the rest waits; the rest of the game is mailed in
batches until a president who cannot buy his company a train goes bankrupt
and the last receipt gives the final scores."""

import json
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

GAME = "ga-e2e"
BATCH = 40  # mails sent before each `mail ingest --imap`


# Against mail-devel only: the 18MS game and the Continental Rails games are
# played against dovecot too, and a second 18GA game would add minutes to CI
# without another server behaviour.
@pytest.mark.parametrize("mail_world", ["mail-devel"], indirect=True)
def test_an_18ga_game_played_by_mail_to_its_end(
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan, expected_scores, end_reason = recorded_plan("18GA/18GA_game_end_bankrupt.json", "18GA")
    assert end_reason == "bankrupt"
    mails = grouped(plan)
    assert mails[0][:2] == (1, "BID W&SR 75")
    assert mails[-1][:2] == (3, "SELL 2 G&F\nBANKRUPT")
    game = MailedGame(GAME, 3, mail_world, tmp_path, monkeypatch, capsys)
    game.start("18ga", "--move-hours", "48")
    clients = game.clients
    for n, client in clients.items():
        assert len(client.find(rf"^\[{GAME}\] Welcome: player {n} of 18GA")) == 1

    ways = [
        lambda mail, sheet: as_quoted_reply(mail, sheet),
        lambda mail, sheet: as_html_only(sheet),
        lambda mail, sheet: as_attachment(sheet),
    ]
    move = 1
    first_lay = next(i for i, (_, orders, _) in enumerate(mails) if orders.startswith("LAY"))
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
        if index == 0:
            # A bid that does not beat the private's price: refused, with why.
            sent = clients[seat].send(as_quoted_reply(mail, game.filled(mail, seat, "BID W&SR 70")))
            game.ingest({"rejected": 1})
            refusal = game.receipt_to(seat, sent)
            assert "REFUSED line 1: BID W&SR 70" in refusal
            assert "because: bid at least $75 for W&SR (3.1b)" in refusal, refusal
            assert f"turn: {move} player: {seat} secret: ________" in refusal
        if index == first_lay:
            # The W&A's first turn: its Atlanta tile and home station, then a
            # station in Rome, which its track does not reach: the first two
            # orders are applied, the third refused with its reason.
            lines = orders.splitlines()
            assert lines[:2] == ["LAY 451a D4 0", "TOKEN D4 1"]
            tried = "\n".join([*lines[:2], "TOKEN C3"])
            sent = clients[seat].send(as_quoted_reply(mail, game.filled(mail, seat, tried)))
            game.ingest({"errors": 1})
            mail = game.receipt_mail(seat, sent)
            receipt = body_text(mail)
            assert "applied: LAY 451a D4 0" in receipt and "applied: TOKEN D4 1" in receipt
            assert "REFUSED line 3: TOKEN C3" in receipt
            assert "because: W&A's track does not reach the city on C3 (4.2.2a)" in receipt
            # still his move: the receipt carries the sheet for the next one
            move += 2
            assert f"turn: {move} player: {seat} secret: ________" in receipt
            orders = "\n".join(lines[2:])
            actions -= 2  # the two applied with the refused order
        sent = clients[seat].send(ways[index % 3](mail, game.filled(mail, seat, orders)))
        game.ingest({"accepted": 1})
        receipt = game.receipt_to(seat, sent)
        for line in orders.splitlines():
            assert f"applied: {line}" in receipt, receipt
        move += actions
    exported = game.export()
    assert exported["position"]["companies"]["W&A"]["president"] == 3
    # The rest of the game: sheets mailed in batches, in order.
    final = game.mail_in_batches(move, mails[first_lay + 1 :], BATCH)
    exported = game.export()
    assert exported["status"] == "ended"
    scores = exported["position"]["scores"]
    assert "The game is over (bankrupt). Final scores:" in final
    for seat, score in scores.items():
        assert f"player {seat}: ${score}" in final
    assert scores == expected_scores
    rounds = clients[1].find(rf"^\[{GAME}\] .* is over: ")
    assert rounds and rounds[-1]["Subject"].endswith("game over")
