"""The player's side of a game by mail, against real mail servers on 127.0.0.1.

Three players make the mistakes players make, and each receipt or report says
the right thing, in its text and in its PDF read back:

- Ann (1), president of the Pennsylvania from turn 2, bids for a RoW below its
  minimum and orders a Grand Station the railroad cannot pay for: the receipt
  refuses both, with the minimum and the cash, before the turn runs;
- Bob (5) spies, which leaves too little cash for the shares he buys: the
  receipt's preview counts the spying and cuts the buy, and so does the report;
- Cy (9) answers Outlook-style (the sheet on top without END, the report
  unquoted below "-----Original Message-----"): only his orders are read; in
  turn 2 he sends nothing, and his report says at its top that the computer
  played his position, with the orders it gave.

Also: the welcome mail carries the rules PDF, a RULES mail is answered with
it, and a re-run of a turn that changes nothing queues no mail.
"""

import json
import re
from email.message import EmailMessage
from pathlib import Path

import pytest

from turnproc.families.continental_rails.engine.steps.rights_of_way import min_bid
from turnproc.families.continental_rails.report.rules_pdf import RULES_PDF_NAME
from turnproc.scenario.loader import load_scenario

from .mail_players import (
    MODERATOR,
    Client,
    Players,
    as_attachment,
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

GAME = "side"
ANN, BOB, CY = 1, 5, 9
PLAYERS: Players = {  # position: (address, secret)
    ANN: ("ann@example.org", "alphaOne1river"),
    BOB: ("bob@example.org", "bravoTwo2canal"),
    CY: ("cy@example.org", "charlie3tunnel"),
}
ROW = "PA6"  # a RoW touching the Pennsylvania's line (Philadelphia - Harrisburg)


def _plain(sheet: str) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "orders"
    message.set_content(sheet)
    return message


def _outlook_reply(original: EmailMessage, sheet: str, address: str) -> EmailMessage:
    """Outlook's reply: the sheet typed on top (no END line), then the report
    unquoted below its separator and header block."""
    without_end = re.sub(r"^END\s*$", "", sheet, flags=re.MULTILINE).rstrip()
    reply = EmailMessage()
    reply["Subject"] = f"RE: {original['Subject']}"
    reply.set_content(
        f"{without_end}\n\n-----Original Message-----\nFrom: {MODERATOR}\n"
        f"Sent: Tuesday, December 1, 2026 10:00 AM\nTo: {address}\n"
        f"Subject: {original['Subject']}\n\n{body_text(original)}\n"
    )
    return reply


def _receipt(client: Client, sent: str) -> EmailMessage:
    [receipt] = [m for m in client.inbox() if m["In-Reply-To"] == sent]
    return receipt


def _report(client: Client, turn: int, position: int) -> EmailMessage:
    reports = client.find(rf"^\[{GAME}\] Turn {turn} report: position {position}$")
    assert len(reports) == 1, f"position {position}: {len(reports)} turn {turn} reports"
    return reports[0]


@pytest.mark.slow
def test_receipts_and_reports_tell_players_what_went_wrong(
    mail_world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, clients = new_game_by_mail(mail_world, tmp_path, monkeypatch, capsys, GAME, PLAYERS)
    latest: dict[int, EmailMessage] = {}
    for pos, client in clients.items():
        [welcome] = client.find(rf"^\[{GAME}\] Welcome: position {pos},")
        rules = pdf_text(attachment(welcome, RULES_PDF_NAME))
        assert "Continental Rails — rules reference" in rules
        assert "Net worth at least VP a turn $2,500 1" in rules  # a table of 1.2, read back
        assert "The turnsheet: a player's guide" in rules
        assert "For moderators" not in rules
        latest[pos] = welcome

    def sheet_of(pos: int, orders: dict[str, str]) -> str:
        return fill(blank_sheet(body_text(latest[pos])), PLAYERS[pos][1], orders)

    # --- turn 1 -------------------------------------------------------------------
    start = game_state(capsys, GAME)
    tycoons = start["tycoons"]
    assert isinstance(tycoons, list)
    bob_cash = tycoons[BOB - 1]["cash"]
    railroads = start["railroads"]
    assert isinstance(railroads, dict)
    price = railroads["NYC"]["price"]
    wanted = bob_cash // price  # all his cash: the spying leaves too little for it
    sent = {
        ANN: clients[ANN].send(
            _plain(sheet_of(ANN, {"PRESIDENT": "PENN", "BUY": f"{tycoons[0]['cash'] // 18} PENN"}))
        ),
        BOB: clients[BOB].send(_plain(sheet_of(BOB, {"SPY": f"{ANN}", "BUY": f"{wanted} NYC"}))),
        CY: clients[CY].send(
            _outlook_reply(latest[CY], sheet_of(CY, {"BUY": "8 B&O"}), PLAYERS[CY][0])
        ),
    }
    ingested = json.loads(cli(capsys, "mail", "ingest", "--imap", "--json"))
    assert ingested["verdicts"] == {"accepted": 3}, ingested["messages"]
    cli(capsys, "mail", "send")

    bob = body_text(_receipt(clients[BOB], sent[BOB]))
    afford = (bob_cash - 100) // price
    assert re.search(r"^  spying\s+-\$100\s*$", bob, re.MULTILINE), bob  # CRLF over IMAP
    assert f"BUY {wanted} NYC" in bob and f"CUT TO BUY {afford} NYC" in bob, bob

    cy_receipt = _receipt(clients[CY], sent[CY])
    cy = body_text(cy_receipt)
    assert str(cy_receipt["Subject"]).startswith(f"[{GAME}] OK: "), cy
    assert "YOUR ORDERS AS READ (1)" in cy and "BUY 8 B&O" in cy
    assert "ERRORS" not in cy and len(cy.splitlines()) < 60, cy

    cli(capsys, "turn", "run", GAME)
    cli(capsys, "mail", "send")
    after = game_state(capsys, GAME)
    assert after["railroads"]["PENN"]["president"] == ANN  # type: ignore[index]
    for pos in PLAYERS:
        latest[pos] = _report(clients[pos], 1, pos)
    bob_pdf = pdf_text(attachment(latest[BOB], ".pdf"))
    said = f"BUY {wanted} NYC: cut to BUY {afford} NYC."
    assert said in body_text(latest[BOB]) and said in bob_pdf
    # Near the top of the private part: before the balance sheet.
    assert bob_pdf.index(said) < bob_pdf.index("Balance at end of turn")

    # --- turn 2 -------------------------------------------------------------------
    scenario = load_scenario("continental-rails")
    minimum = min_bid(scenario, ROW)
    penn_cash = after["railroads"]["PENN"]["cash"]  # type: ignore[index]
    section = r"^(RAILROAD \d+ PENN .*)$"
    bad, count = re.subn(
        section,
        rf"\1\nBID {ROW} {minimum // 2}\nTECHNOLOGY A Philadelphia",
        sheet_of(ANN, {}),
        count=1,
        flags=re.MULTILINE,
    )
    assert count == 1, "Ann's sheet has no section for the Pennsylvania"
    wrong = clients[ANN].send(_plain(bad))
    fixed = bad.replace(f"BID {ROW} {minimum // 2}\n", f"BID {ROW} {minimum}\n", 1)
    good = clients[ANN].send(_plain(fixed.replace("TECHNOLOGY A Philadelphia\n", "", 1)))
    clients[BOB].send(as_attachment(sheet_of(BOB, {"BUY": "1 PENN"})))
    rules_request = EmailMessage()
    rules_request["Subject"] = "rules please"
    rules_request.set_content("RULES\n")
    asked = clients[CY].send(rules_request)
    ingested = json.loads(cli(capsys, "mail", "ingest", "--imap", "--json"))
    assert ingested["verdicts"] == {"errors": 1, "accepted": 2, "rules": 1}, ingested["messages"]
    cli(capsys, "mail", "send")

    refused = body_text(_receipt(clients[ANN], wrong))
    assert "ERRORS: 2 errors" in refused, refused
    assert f"The smallest bid for {ROW} is ${minimum}." in refused
    assert f"This costs $10,000, paid from cash only; PENN has ${penn_cash:,}." in refused
    assert "RAILROAD PENN: CASH PREVIEW" in refused
    assert "OK: turnsheet accepted" in body_text(_receipt(clients[ANN], good))

    answer = _receipt(clients[CY], asked)
    assert str(answer["Subject"]).startswith("RULES")
    assert "Continental Rails — rules reference" in pdf_text(attachment(answer, RULES_PDF_NAME))

    # Cy sent nothing: the turn runs at the moderator's word, the computer plays him.
    cli(capsys, "turn", "run", GAME, "--force")
    cli(capsys, "mail", "send")
    cy_report = _report(clients[CY], 2, CY)
    text = body_text(cy_report)
    head = text.split("9.1 HEADLINES")[0]
    assert "YOU SENT NO ORDERS FOR TURN 2." in head, head
    assert "The computer played your position and gave these orders:" in head
    cy_pdf = pdf_text(attachment(cy_report, ".pdf"))
    assert "You sent no orders for turn 2." in cy_pdf
    assert cy_pdf.index("You sent no orders") < cy_pdf.index("9.1")
    ann_report = body_text(_report(clients[ANN], 2, ANN))
    assert "YOU SENT NO ORDERS" not in ann_report

    # The moderator moves the deadline, then re-runs the turn, which changes
    # nothing: nobody gets a second report, and the report prints the deadline.
    cli(capsys, "game", "schedule", GAME, "--deadline", "2027-01-15 18:00")
    cli(capsys, "mail", "send")
    cli(capsys, "turn", "rerun", GAME)
    queued = json.loads(cli(capsys, "mail", "send", "--dry-run", str(tmp_path / "eml"), "--json"))
    assert queued["written"] == []
    cli(capsys, "report", "render", GAME, "--player", str(CY), "--out", str(tmp_path / "out"))
    again = (tmp_path / "out" / "turn-2" / f"player-{CY}.txt").read_text(encoding="utf-8")
    assert "Orders for turn 3 due: 2027-01-15 18:00 UTC" in again
    assert "YOU SENT NO ORDERS FOR TURN 2." in again
