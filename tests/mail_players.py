"""Players' side of the mail tests: a mail client that reads its IMAP inbox and
sends over SMTP, and the three ways players send a turnsheet back (a reply
quoting the report, an HTML-only mail, a .txt attachment)."""

import email
import email.policy
import html
import imaplib
import io
import json
import re
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from pypdf import PdfReader

from turnproc.cli import main
from turnproc.mail.urls import imap_url

from .mailservers import MailWorld

MODERATOR = "moderator@example.org"
Players = dict[int, tuple[str, str]]  # position: (address, secret)


class Client:
    """One player's mail program: IMAP for the inbox, SMTP to send."""

    def __init__(self, world: MailWorld, address: str) -> None:
        self.world = world
        self.address = address

    def inbox(self) -> list[EmailMessage]:
        """Every message in the inbox, oldest first (nothing is marked read)."""
        imap = imaplib.IMAP4("127.0.0.1", self.world.imap_port, timeout=30)
        try:
            server = imap_url(self.world.imap_url(self.address))
            imap.login(server.user or "", server.password or "")
            imap.select("INBOX")
            _, data = imap.uid("SEARCH", "ALL")
            messages = []
            for uid in (data[0] or b"").decode().split():
                _, parts = imap.uid("FETCH", uid, "(BODY.PEEK[])")
                raw = next(p[1] for p in parts if isinstance(p, tuple))
                parsed = email.message_from_bytes(raw, policy=email.policy.default)
                assert isinstance(parsed, EmailMessage)
                messages.append(parsed)
            return messages
        finally:
            imap.logout()

    def find(self, subject_pattern: str) -> list[EmailMessage]:
        return [m for m in self.inbox() if re.search(subject_pattern, str(m["Subject"] or ""))]

    def send(self, message: EmailMessage) -> str:
        """Send `message` to the moderator; returns its Message-ID."""
        message["From"] = self.address
        message["To"] = MODERATOR
        message["Message-ID"] = make_msgid(domain=self.address.split("@")[1])
        with smtplib.SMTP("127.0.0.1", self.world.smtp_port, timeout=30) as smtp:
            smtp.send_message(message)
        return str(message["Message-ID"])


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run `turnproc ARGV` as the moderator would; its output (it must exit 0)."""
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, f"turnproc {' '.join(argv)} exited {code}: {out.out}{out.err}"
    return out.out


def game_state(capsys: pytest.CaptureFixture[str], game: str) -> dict[str, object]:
    data = json.loads(cli(capsys, "game", "export", game, "--json"))
    assert isinstance(data, dict)
    return data


def new_game_by_mail(
    world: MailWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    game: str,
    players: Players,
    options: tuple[str, ...] = ("--scenario", "continental-rails", "--seed", "11"),
) -> tuple[dict[str, object], dict[int, Client]]:
    """The moderator starts a game by mail in `tmp_path` against `world`'s
    servers: the settings, a players file of `players` (the other positions
    computer-played), `game new` with `options`, and the welcome mail sent.
    Returns what `game new --json` printed and each player's mail client."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'game.db'}")
    monkeypatch.setenv("TURNPROC_SMTP_URL", world.smtp_url())
    monkeypatch.setenv("TURNPROC_IMAP_URL", world.imap_url(MODERATOR))
    monkeypatch.setenv("TURNPROC_MAIL_FROM", MODERATOR)
    monkeypatch.delenv("TURNPROC_MODERATOR_EMAIL", raising=False)
    players_csv = tmp_path / "players.csv"
    players_csv.write_text(
        "position,character,real_name,email,secret\n"
        + "".join(f"{pos},,Player {pos},{a},{secret}\n" for pos, (a, secret) in players.items())
    )
    created = json.loads(
        cli(
            capsys,
            *("game", "new", *options, "--players", str(players_csv)),
            *("--name", game, "--json"),
        )
    )
    cli(capsys, "mail", "send")
    clients = {pos: Client(world, address) for pos, (address, _) in players.items()}
    return created, clients


def body_text(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None, f"no text/plain body in {message['Subject']}"
    content = part.get_content()
    assert isinstance(content, str)
    return content


def attachment(message: EmailMessage, suffix: str) -> bytes:
    for part in message.iter_attachments():
        if (part.get_filename() or "").endswith(suffix):
            content = part.get_content()
            return content if isinstance(content, bytes) else content.encode("utf-8")
    raise AssertionError(f"no {suffix} attachment in {message['Subject']}")


def pdf_text(data: bytes) -> str:
    """The PDF's text with all whitespace runs made single spaces."""
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


def blank_sheet(report_body: str) -> str:
    """The turnsheet printed at the end of a report or welcome mail."""
    match = re.search(r"^TURNSHEET game:.*?^END\s*$", report_body, re.MULTILINE | re.DOTALL)
    assert match, "the mail holds no turnsheet"
    return match.group(0)


def fill(sheet: str, secret: str, orders: dict[str, str]) -> str:
    """The sheet with the secret written in and the blank `ACTION ____` lines of
    `orders` (action -> what to write after it) filled in."""
    filled = re.sub(r"secret:\s*_+", f"secret: {secret}", sheet, count=1)
    for action, words in orders.items():
        filled, count = re.subn(
            rf"^{re.escape(action)} ____( ____)?[^\n]*$",
            f"{action} {words}",
            filled,
            count=1,
            flags=re.MULTILINE,
        )
        assert count == 1, f"no blank {action} line on the sheet"
    return filled


def as_quoted_reply(original: EmailMessage, sheet: str) -> EmailMessage:
    """A reply with the filled sheet on top and the whole report quoted below."""
    reply = EmailMessage()
    reply["Subject"] = f"Re: {original['Subject']}"
    reply["In-Reply-To"] = str(original["Message-ID"])
    reply["References"] = str(original["Message-ID"])
    quoted = "\n".join(f"> {line}" for line in body_text(original).splitlines())
    reply.set_content(
        f"Here are my orders.\n\n{sheet}\n\nRegards\n\n"
        f"On {original['Date']}, {original['From']} wrote:\n{quoted}\n"
    )
    return reply


def as_html_only(sheet: str) -> EmailMessage:
    """An HTML-only mail, one <div> per line, as web mail programs write."""
    lines = "".join(
        f"<div>{html.escape(line) if line.strip() else '<br>'}</div>" for line in sheet.splitlines()
    )
    message = EmailMessage()
    message["Subject"] = "orders"
    message.set_content(
        f"<html><body><div>My orders:</div><div><br></div>{lines}</body></html>", subtype="html"
    )
    return message


def as_attachment(sheet: str) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "my turnsheet"
    message.set_content("My turnsheet is attached.\n")
    message.add_attachment(
        sheet.encode("utf-8"), maintype="text", subtype="plain", filename="turnsheet.txt"
    )
    return message
