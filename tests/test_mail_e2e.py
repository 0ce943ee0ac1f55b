"""A game played by mail from end to end, against real mail servers on 127.0.0.1.

Three human players (the other twelve positions computer-played) get their
welcome mail with the turn-1 turnsheet over IMAP, fill it in and send it with
smtplib (one as a reply quoting the report, one as HTML only, one as a .txt
attachment); the moderator runs only the command line (`mail ingest --imap`,
`mail send`, `turn run`), exactly as cron would; receipts arrive threaded
under the player's message; each player fetches the report over IMAP and
reads in its PDF their own private report and holdings. One player also
mails an anonymous announcement (PRESS), which every report of that turn
prints. Then a second turn, each player switching to another way of sending.
"""

import json
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest

from .mail_players import (
    Players,
    as_attachment,
    as_html_only,
    as_quoted_reply,
    attachment,
    blank_sheet,
    body_text,
    cli,
    fill,
    game_state,
    new_game_by_mail,
    pdf_text,
)
from .mailservers import MailWorld

GAME = "e2e"
PLAYERS: Players = {  # position: (address, secret)
    1: ("ann@example.org", "alpha-one-1841"),
    5: ("bob@example.org", "bravo-two-1842"),
    9: ("cy@example.org", "charlie-three-1843"),
}
Sender = Callable[[EmailMessage, str], EmailMessage]
PRESS = "The Erie is not for sale, whatever Vanderbilt offers."


def _reply(original: EmailMessage, sheet: str) -> EmailMessage:
    return as_quoted_reply(original, sheet)


def _html(original: EmailMessage, sheet: str) -> EmailMessage:
    return as_html_only(sheet)


def _attached(original: EmailMessage, sheet: str) -> EmailMessage:
    return as_attachment(sheet)


# Turn by turn: how each position sends its sheet, and the one order it adds.
TURNS: list[dict[int, tuple[Sender, str, str]]] = [
    {1: (_reply, "BUY", "NYC 10"), 5: (_html, "BUY", "PENN 5"), 9: (_attached, "BUY", "B&O 8")},
    {1: (_html, "SELL", "NYC 5"), 5: (_attached, "BUY", "SCL 4"), 9: (_reply, "BUY", "N&W 3")},
]


def _tycoon(state: dict[str, object], position: int) -> dict[str, object]:
    tycoons = state["tycoons"]
    assert isinstance(tycoons, list)
    found = tycoons[position - 1]
    assert isinstance(found, dict) and found["position"] == position
    return found


@pytest.mark.slow
def test_two_turns_played_by_mail(
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    created, clients = new_game_by_mail(mail_world, tmp_path, monkeypatch, capsys, GAME, PLAYERS)
    assert created["name"] == GAME
    latest = {}
    for pos, client in clients.items():
        welcome = client.find(rf"^\[{GAME}\] Welcome: position {pos},")
        assert len(welcome) == 1, f"position {pos} got {len(welcome)} welcome mails"
        latest[pos] = welcome[0]

    for turn, plan in enumerate(TURNS, start=1):
        before = game_state(capsys, GAME)
        assert before["turn"] == turn
        sent: dict[int, str] = {}
        for pos, (make, action, words) in plan.items():
            sheet = blank_sheet(body_text(latest[pos]))
            assert sheet.startswith(f"TURNSHEET game: {GAME} turn: {turn} player: {pos} ")
            filled = fill(sheet, PLAYERS[pos][1], {action: words})
            sent[pos] = clients[pos].send(make(latest[pos], filled))
        expected = {"accepted": 3}
        if turn == 1:
            press = EmailMessage()
            press["Subject"] = "press"
            press.set_content(
                f"PRESS game: {GAME} player: 1 secret: {PLAYERS[1][1]} anonymous\n{PRESS}\nEND\n"
            )
            clients[1].send(press)
            expected["press"] = 1

        ingested = json.loads(cli(capsys, "mail", "ingest", "--imap", "--json"))
        assert ingested["verdicts"] == expected, ingested["messages"]
        assert ingested["answered"] == sum(expected.values())
        # Acknowledged: a second run finds nothing new in the moderator's mailbox.
        again = json.loads(cli(capsys, "mail", "ingest", "--imap", "--json"))
        assert again["messages"] == []
        cli(capsys, "mail", "send")
        for pos, (_, action, words) in plan.items():
            receipts = [m for m in clients[pos].inbox() if m["In-Reply-To"] == sent[pos]]
            assert len(receipts) == 1, f"position {pos}: {len(receipts)} receipts"
            receipt = receipts[0]
            assert str(receipt["Subject"]).startswith(f"[{GAME}] OK: "), receipt["Subject"]
            assert receipt["References"] == sent[pos]
            assert f"{action} {words}" in body_text(receipt)

        # Every human is in, so the turn is due without --force (early run).
        cli(capsys, "turn", "run", GAME)
        after = game_state(capsys, GAME)
        assert after["turn"] == turn + 1
        cli(capsys, "mail", "send")

        for pos, (_, action, words) in plan.items():
            code = words.split()[0]
            held_before = _tycoon(before, pos)["holdings"]
            tycoon = _tycoon(after, pos)
            holdings = tycoon["holdings"]
            assert isinstance(held_before, dict) and isinstance(holdings, dict)
            change = holdings.get(code, 0) - held_before.get(code, 0)
            assert change > 0 if action == "BUY" else change < 0, (pos, action, code, change)
            reports = clients[pos].find(rf"^\[{GAME}\] Turn {turn} report: position {pos}$")
            assert len(reports) == 1, f"position {pos}: {len(reports)} turn {turn} reports"
            report = reports[0]
            character = tycoon["character"]
            body = body_text(report)
            assert f"Report for {character} (player #{pos})" in body
            assert f"TURNSHEET game: {GAME} turn: {turn + 1} player: {pos} " in body
            assert f"Orders for turn {turn + 1} due: " in body
            assert json.loads(attachment(report, ".json"))
            text = pdf_text(attachment(report, ".pdf"))
            assert f"Private Report {character} (#{pos})" in text
            assert f"End cash ${tycoon['cash']:,}" in text
            own = ", ".join(f"{c} {n}" for c, n in sorted(holdings.items()) if n)
            assert re.search(rf"{re.escape(str(character))} (\(\w+\) )?{re.escape(own)}", text), (
                f"position {pos}'s holdings {own!r} are not in the PDF"
            )
            assert (PRESS in text) == (turn == 1), f"announcement in turn {turn} report"
            # The anonymous announcement has its own section and names no author.
            assert (f"anonymous: {PRESS}" in body) == (turn == 1), body
            for other in PLAYERS:
                if other != pos:
                    other_name = _tycoon(after, other)["character"]
                    assert f"Private Report {other_name} (#{other})" not in text
            latest[pos] = report
