"""Message -> text: text/plain first, HTML converted, .txt attachments, hostile mail."""

import pytest

from turnproc.core.sheet_errors import NoTextFound, SheetTooLarge
from turnproc.intake.extract import looks_like_email, sheet_text, text_from_message

SHEET = "TURNSHEET game: g turn: 1 player: 3 secret: s\nBUY 1 NYC\nEND\n"


def test_plain_text_is_preferred_over_html() -> None:
    raw = (
        "From: a@b.c\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/alternative; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\n" + SHEET + "\r\n"
        "--b\r\nContent-Type: text/html\r\n\r\n<p>TURNSHEET html version</p>\r\n--b--\r\n"
    ).encode()
    assert "BUY 1 NYC" in text_from_message(raw)


def test_html_only_is_converted_without_wrapping() -> None:
    long_line = "BUY 1 NYC " + "# " + "x" * 200
    raw = (
        "From: a@b.c\r\nContent-Type: text/html\r\n\r\n"
        f"<div>TURNSHEET game: g</div><div>{long_line}</div>"
    ).encode()
    text = text_from_message(raw)
    assert long_line in text


def test_a_txt_attachment_with_the_sheet_wins_over_a_chatty_body() -> None:
    raw = (
        'From: a@b.c\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n"
        '--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="t.txt"'
        "\r\n\r\n" + SHEET + "\r\n--b--\r\n"
    ).encode()
    assert text_from_message(raw).startswith("TURNSHEET")


def test_unknown_charset_and_broken_mime_do_not_crash() -> None:
    raw = b"From: a@b.c\r\nContent-Type: text/plain; charset=x-unknown-99\r\n\r\nTURNSHEET\r\n"
    assert "TURNSHEET" in text_from_message(raw)
    raw = b'From: a@b.c\r\nContent-Type: multipart/mixed; boundary="never"\r\n\r\nno parts'
    with pytest.raises(NoTextFound, match="no text"):
        text_from_message(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"From: a@b.c\r\nContent-Type: image/png\r\n\r\n\x89PNG",
        b"From: a@b.c\r\n\r\n",
    ],
)
def test_no_text_is_a_clear_error(raw: bytes) -> None:
    with pytest.raises(NoTextFound):
        text_from_message(raw)


def test_huge_messages_are_refused() -> None:
    with pytest.raises(SheetTooLarge):
        text_from_message(b"From: a@b.c\r\n\r\n" + b"x" * (3 * 1024 * 1024))


def test_raw_email_or_bare_sheet() -> None:
    assert looks_like_email(b"From: a@b.c\nSubject: x\n\nbody")
    assert not looks_like_email(SHEET.encode())
    assert sheet_text(SHEET.encode()) == SHEET
    with pytest.raises(NoTextFound):
        sheet_text(b"\x00\x01binary")
