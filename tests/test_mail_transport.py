"""Outbound SMTP and inbound IMAP/Maildir against real servers on 127.0.0.1."""

import email
import email.policy
import mailbox
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from turnproc.core.errors import TurnprocError
from turnproc.mail.classify import LOOP_HEADER, silence_reason
from turnproc.mail.compose import Attachment, Outgoing, compose, message_id
from turnproc.mail.sources import ImapSource, from_maildir
from turnproc.mail.transport import SmtpTransport, envelope
from turnproc.mail.urls import MailConfigError, imap_url, smtp_url

from .mailservers import MailWorld

WHEN = datetime(1853, 6, 1, 12, 0, tzinfo=UTC)


def _report(to: str) -> Outgoing:
    return Outgoing(
        key="game-1/turn-7/report/3",
        to=to,
        subject="Continental Rails game 1, turn 7 report",
        body="Your report is attached.\nVanderbilt buys B&O.\n",
        created=WHEN,
        in_reply_to="<abc@player.example>",
        attachments=(Attachment("turn-7.pdf", b"%PDF-1.4 fake\x00\xff", "application", "pdf"),),
    )


def test_urls_are_percent_decoded() -> None:
    server = smtp_url("smtp://moderator%40example.org:p%40ss%3Aw@mail.example.org:2525")
    assert (server.user, server.password, server.port) == (
        "moderator@example.org",
        "p@ss:w",
        2525,
    )
    assert imap_url("imaps://u:p@h/Turns").mailbox == "Turns"
    assert imap_url("imaps://u:p@h").port == 993
    with pytest.raises(MailConfigError, match="smtp://"):
        smtp_url("http://example.org")


def test_composed_message_has_threading_loop_and_stable_id() -> None:
    msg = compose(_report("p3@example.org"), "moderator@example.org")
    assert msg["Message-ID"] == message_id("game-1/turn-7/report/3", "moderator@example.org", "")
    assert msg["Message-ID"] == compose(_report("x@y"), "moderator@example.org")["Message-ID"]
    assert msg["In-Reply-To"] == "<abc@player.example>"
    assert msg["References"] == "<abc@player.example>"
    assert msg[LOOP_HEADER] == "turnproc"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert silence_reason(msg) is not None  # our own mail coming back is never answered


def test_send_over_smtp_and_fetch_over_imap(mail_world: MailWorld) -> None:
    with SmtpTransport(smtp_url(mail_world.smtp_url())) as transport:
        transport.send(compose(_report("p3@example.org"), "moderator@example.org"))
    source = ImapSource(imap_url(mail_world.imap_url("p3@example.org")))
    fetched = list(source.messages())
    assert len(fetched) == 1
    msg = email.message_from_bytes(fetched[0].raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    assert msg["Subject"] == "Continental Rails game 1, turn 7 report"
    body = msg.get_body(("plain",))
    assert body is not None and "Vanderbilt buys B&O." in body.get_content()
    pdfs = [part for part in msg.iter_attachments() if part.get_filename() == "turn-7.pdf"]
    assert pdfs[0].get_content() == b"%PDF-1.4 fake\x00\xff"
    # Unacknowledged, the message is read again; acknowledged, it is not.
    again = list(source.messages())
    assert len(again) == 1
    for incoming in ImapSource(source.server).messages():
        incoming.ack()
    assert list(ImapSource(source.server).messages()) == []


def test_a_body_beyond_ascii_arrives_as_sent(mail_world: MailWorld) -> None:
    """A receipt naming a route "Memphis–Grenada" goes out 7-bit clean (the
    envelope declares no 8BITMIME), so no server converts it: it arrives in
    the encoding it was sent in, its lines as written. Sent as undeclared
    8-bit, mail-devel stored it as base64 of CRLF lines, and the players of
    an 18MS game by mail no longer found the sheet in their mails."""
    text = "  ran 2+ Memphis–Grenada for $50\n\nTURNSHEET game: g turn: 72 player: 1 secret: ___\n"
    out = Outgoing(key="k/1", to="p1@example.org", subject="OK", body=text, created=WHEN)
    message = compose(out, "moderator@example.org")
    assert envelope(message)[2].isascii()
    with SmtpTransport(smtp_url(mail_world.smtp_url())) as transport:
        transport.send(message)
    (fetched,) = ImapSource(imap_url(mail_world.imap_url("p1@example.org"))).messages()
    got = email.message_from_bytes(fetched.raw, policy=email.policy.default)
    assert isinstance(got, EmailMessage)
    assert got["Content-Transfer-Encoding"] == message["Content-Transfer-Encoding"]
    body = got.get_body(("plain",))
    assert body is not None
    assert body.get_content().replace("\r\n", "\n") == text


def test_imap_login_failure_is_one_clear_line(mail_world: MailWorld) -> None:
    url = mail_world.imap_url("p3@example.org").replace("s3cret", "wrong")
    with pytest.raises(TurnprocError, match="cannot log in"):
        list(ImapSource(imap_url(url)).messages())


def test_maildir_messages_are_marked_seen_only_when_acknowledged(tmp_path: Path) -> None:
    box = mailbox.Maildir(tmp_path / "in", create=True)
    for n in range(3):
        msg = EmailMessage()
        msg["From"] = f"p{n}@example.org"
        msg["Subject"] = f"sheet {n}"
        msg.set_content("TURNSHEET")
        box.add(msg)
    first = list(from_maildir(tmp_path / "in"))
    assert len(first) == 3
    first[0].ack()
    remaining = list(from_maildir(tmp_path / "in"))
    assert len(remaining) == 2
    assert len(list((tmp_path / "in" / "cur").iterdir())) == 1


def test_a_folder_that_is_not_a_maildir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TurnprocError, match="not a Maildir"):
        list(from_maildir(tmp_path))


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Auto-Submitted": "auto-replied"}, "auto-submitted"),
        ({"Subject": "Out of Office: back Monday"}, "auto-reply"),
        ({"Subject": "Automatic reply: turn 7"}, "auto-reply"),
        ({"From": "MAILER-DAEMON@mx.example.org"}, "bounce"),
        ({"Return-Path": "<>"}, "bounce"),
        ({"Precedence": "bulk"}, "precedence"),
        ({"X-Autoreply": "yes"}, "auto-reply"),
        ({LOOP_HEADER: "turnproc"}, "loop"),
    ],
)
def test_mail_that_must_not_be_answered(headers: dict[str, str], expected: str) -> None:
    msg = EmailMessage()
    msg["From"] = headers.pop("From", "player@example.org")
    msg["Subject"] = headers.pop("Subject", "Turnsheet")
    for name, value in headers.items():
        msg[name] = value
    msg.set_content("hello")
    reason = silence_reason(msg)
    assert reason is not None and expected in reason


def test_an_ordinary_reply_is_answered() -> None:
    msg = EmailMessage()
    msg["From"] = "player@example.org"
    msg["Subject"] = "Re: Continental Rails game 1, turn 7 report"
    msg["Auto-Submitted"] = "no"
    msg.set_content("> quoted\nTURNSHEET ...")
    assert silence_reason(msg) is None


def _as_smtplib_flattens(message: EmailMessage, policy: email.policy.Policy) -> bytes:
    from email.generator import BytesGenerator
    from io import BytesIO

    buffer = BytesIO()
    BytesGenerator(buffer, policy=policy).flatten(message)
    return buffer.getvalue()


@pytest.mark.parametrize("to", ["ann@example.org", "zoë@example.org"], ids=["ascii", "utf8"])
def test_a_message_is_flattened_to_the_bytes_the_standard_generator_gives(to: str) -> None:
    from turnproc.mail.transport import envelope

    pdf = bytes(range(256)) * 2000  # 512 KB: about 9,000 lines of base64
    out = Outgoing(
        key="report/1/15/3",
        to=to,
        subject="Turn 15 report: Ünion Pacific",
        body="Lines\r\nof every\rend\nand none",
        created=datetime(2026, 1, 1, tzinfo=UTC),
        attachments=(
            Attachment("turn15.pdf", pdf, "application", "pdf"),
            Attachment("turn15.txt", b"a\r\nb\rc\n.d\n", "text", "plain"),
        ),
        installation="k",
    )
    message = compose(out, "gm@example.com")
    policy = email.policy.SMTP if to.isascii() else email.policy.SMTPUTF8
    _, _, text, _ = envelope(message)
    assert text == _as_smtplib_flattens(message, policy)
    assert len(text) > len(pdf)
    # A part whose text keeps every kind of line end, as a message read in does.
    message.get_body().set_payload("one\rtwo\r\nthree\n\r\nfour")  # type: ignore[union-attr]
    _, _, text, _ = envelope(message)
    assert text == _as_smtplib_flattens(message, policy)
    assert b"one\r\ntwo\r\nthree\r\n\r\nfour" in text


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b".",
        b"..\r\n",
        b"From: a\r\n\r\n.one\r\ntwo\r\n",
        b"a\nb\rc\r\nd\r\r\ne\n\rf.\n.\r.g\r\n\r\n",
        b"\r\n.\n.\r.",
        b"no end",
    ],
)
def test_the_data_block_is_what_rfc_5321_asks(text: bytes) -> None:
    import re

    from turnproc.mail.transport import data_block

    # RFC 5321 4.5.2: CRLF line ends, a leading dot doubled, a line of one dot at the end.
    expected = re.sub(rb"^\.", b"..", re.sub(rb"\r\n|\r|\n", b"\r\n", text), flags=re.MULTILINE)
    expected += b"" if expected.endswith(b"\r\n") else b"\r\n"
    assert data_block(text) == expected + b".\r\n"
