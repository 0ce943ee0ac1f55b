"""The text of a turnsheet in an email: `text_from_message(raw) -> str`.

The text comes back cleaned (`turnproc.core.text.clean`): no control
characters but line breaks and tabs, no bidi overrides or zero-width
characters, so nothing a player writes can reach a receipt, a report or the
moderator's terminal as an escape sequence.

Pure (bytes in, text out) so the mail intake and `turnproc orders submit`
share it. Preference: the text/plain part holding a turnsheet header, else a
.txt attachment holding one, else the HTML part converted to text, else any
text part. Broken MIME, unknown charsets and binary mail give a clear
`NoTextFound`, never a traceback.
"""

import email
import email.policy
import re
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from turnproc.core.sheet_errors import NoTextFound, SheetTooLarge
from turnproc.core.text import clean

MAX_MESSAGE_BYTES = 2 * 1024 * 1024  # a turnsheet mail is a few KB; attachments are not read
# Mail programs nest multiparts a few levels deep (forwards add some); far deeper
# nesting is hostile, and counting boundaries first avoids parsing it at all.
MAX_NESTING = 20
MAX_BOUNDARIES = 200
_HEADER_LINE = re.compile(rb"^(From |[A-Za-z0-9-]{1,60}:)")
# A turnsheet's header line (possibly quoted), not just the word: a body saying
# "my turnsheet is attached" must not win over the attachment holding the sheet.
_SHEET = re.compile(
    r"^[\W_]*turn\s?sheet\b[^\n]*\b(game|turn|player|position|secret)\b",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class MessageMeta:
    """What the intake needs from the envelope."""

    message_id: str | None
    sender: str  # the From address, lower-cased
    subject: str
    reply_to: str | None


def looks_like_email(data: bytes) -> bool:
    """Whether `data` starts like an RFC 822 message (headers, a blank line, a body)."""
    head = data[:4096].lstrip(b"\r\n")
    return bool(_HEADER_LINE.match(head)) and (b"\n\n" in data or b"\r\n\r\n" in data)


def _parse(raw: bytes) -> EmailMessage:
    if len(raw) > MAX_MESSAGE_BYTES:
        raise SheetTooLarge(
            f"the message is {len(raw) // 1024} KB; a turnsheet mail is a few KB",
            hint="send the turnsheet as plain text without large attachments",
        )
    if raw.lower().count(b"boundary=") > MAX_BOUNDARIES:
        raise NoTextFound(
            f"the message has more than {MAX_BOUNDARIES} MIME parts",
            hint="send the turnsheet as plain text in the body of the mail",
        )
    message = email.message_from_bytes(raw, policy=email.policy.default)
    if not isinstance(message, EmailMessage):
        raise NoTextFound("the message could not be read")
    if _depth(message, MAX_NESTING + 1) > MAX_NESTING:
        raise NoTextFound(
            f"the message nests MIME parts more than {MAX_NESTING} levels deep",
            hint="send the turnsheet as plain text in the body of the mail",
        )
    return message


def message_meta(raw: bytes) -> MessageMeta:
    """Message-ID, sender address and subject (robust to malformed headers)."""
    try:
        message = _parse(raw)
        message_id = _printable(_header(message, "Message-ID"))
        sender = _printable(parseaddr(_header(message, "From") or "")[1].strip().lower()) or ""
        reply = getaddresses([_header(message, "Reply-To") or ""])
        return MessageMeta(
            message_id=message_id.strip() or None if message_id else None,
            sender=sender,
            subject=_header(message, "Subject") or "",
            reply_to=reply[0][1] if reply and reply[0][1] else None,
        )
    except SheetTooLarge:
        raise
    except Exception:  # a hostile header must not stop the receipt
        return MessageMeta(message_id=None, sender="", subject="", reply_to=None)


def _printable(value: str | None) -> str | None:
    """`value`, or None if it holds control characters (a NUL cannot even be stored)."""
    return value if value is None or value.isprintable() else None


def _header(message: Message, name: str) -> str | None:
    try:
        value = message.get(name)
    except Exception:  # malformed header values raise from the policy's parser
        value = None
    return str(value) if value is not None else None


def _decode(part: Message) -> str:
    """The part's text: its declared charset if the bytes fit it, else UTF-8, else
    Windows-1252 (mail programs often declare the wrong charset or none at all).
    NUL characters are dropped: they mean nothing in a turnsheet, and PostgreSQL
    refuses to store them in text."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    for charset in (part.get_content_charset(), "utf-8"):
        if charset:
            try:
                return payload.decode(charset).replace("\x00", "")
            except (LookupError, UnicodeDecodeError):
                continue
    return payload.decode("cp1252", errors="replace").replace("\x00", "")


def _depth(message: Message, limit: int) -> int:
    """How deeply multiparts nest in `message`, counting no further than `limit`."""
    deepest = 0
    stack: list[tuple[Message, int]] = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth >= limit:
            break
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((c, depth + 1) for c in payload if isinstance(c, Message))
    return deepest


class _HtmlLines(HTMLParser):
    """The lines of an HTML mail as its writer saw them: each block element
    (`div`, `p`, `li`, a table row) or `<br>` ends a line, and an empty block
    (`<div><br></div>`) is one blank line, so a receipt's line numbers match
    what the player typed. Text inside `blockquote` is quoted with `>` as a
    plain-text reply would be; styles and scripts are dropped."""

    _BLOCKS = frozenset(
        {"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "ul", "ol"}
    )
    _HIDDEN = frozenset({"style", "script", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote = 0
        self.hidden = 0

    def _end_line(self, always: bool) -> None:
        raw = "".join(self.current)
        text = raw.replace("\xa0", " ")
        # A block holding only a typed space (Outlook's `<p>&nbsp;</p>`) is a blank line.
        if text.strip() or always or "\xa0" in raw:
            self.lines.append("> " * self.quote + text.strip())
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self._end_line(always=True)
        elif tag in self._BLOCKS or tag == "blockquote":
            self._end_line(always=False)
            if tag == "blockquote":
                self.quote += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self._BLOCKS or tag == "blockquote":
            self._end_line(always=False)
            if tag == "blockquote":
                self.quote = max(0, self.quote - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.current.append(" ".join(data.split("\n")))


def _html_to_text(html: str) -> str:
    parser = _HtmlLines()
    parser.feed(html)
    parser.close()
    parser._end_line(always=False)
    return "\n".join(parser.lines) + "\n"


def text_from_message(raw: bytes) -> str:
    """The turnsheet text of a raw email message (see the module docstring)."""
    try:
        message = _parse(raw)
        plain: list[str] = []
        attached: list[str] = []
        html: list[str] = []
        for part in message.walk():
            if part.is_multipart():
                continue
            kind = part.get_content_type()
            filename = (part.get_filename() or "").lower()
            disposition = part.get_content_disposition()
            if filename.endswith(".txt") or (disposition == "attachment" and kind == "text/plain"):
                attached.append(_decode(part))
            elif disposition == "attachment":
                continue
            elif kind == "text/plain":
                plain.append(_decode(part))
            elif kind == "text/html":
                html.append(_html_to_text(_decode(part)))
    except (SheetTooLarge, NoTextFound):
        raise
    except Exception as exc:  # malformed MIME: answer clearly rather than crash
        raise NoTextFound(
            f"the message could not be read ({type(exc).__name__})",
            hint="send the turnsheet as plain text in the body of the mail",
        ) from None
    for candidates in (plain, attached, html):
        for text in candidates:
            if _SHEET.search(text):
                return clean(text)
    for text in (*plain, *html, *attached):
        if text.strip():
            return clean(text)
    raise NoTextFound(
        "the message holds no text",
        hint="send the turnsheet as plain text in the body of the mail",
    )


def sheet_text(data: bytes) -> str:
    """The text of a submission given as a whole raw email or as the sheet itself."""
    if looks_like_email(data):
        return text_from_message(data)
    if len(data) > MAX_MESSAGE_BYTES:
        raise SheetTooLarge(f"the sheet is {len(data) // 1024} KB; a turnsheet is a few KB")
    if b"\x00" in data[:65536]:
        raise NoTextFound("the file is binary, not a turnsheet", hint="send plain text")
    return clean(data.decode("utf-8", errors="replace"))
