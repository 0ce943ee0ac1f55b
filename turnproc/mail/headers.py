"""Reading a message's headers robustly: a malformed header is no header,
an address with control characters is no address, and a message without a
usable Message-ID gets one made from its bytes."""

import email.parser
import email.policy
import hashlib
from email.message import Message
from email.utils import parseaddr

SYNTHETIC_DOMAIN = "sha256.turnproc.invalid"


def parse_headers(raw: bytes) -> Message:
    """The header block of a raw message (the body is not read)."""
    parser = email.parser.BytesParser(policy=email.policy.default)
    return parser.parsebytes(raw, headersonly=True)


def header(message: Message, name: str) -> str | None:
    """One header's value, or None when it is missing or cannot be read."""
    try:
        value = message.get(name)
    except Exception:  # a malformed header value raises from the policy's parser
        return None
    return str(value).strip() if value is not None else None


def address(value: str | None) -> str:
    """The address of a From-like header, lower case; "" when unanswerable."""
    found = parseaddr(value or "")[1].strip().lower()
    return found if found.isprintable() else ""  # control characters: unanswerable


def message_id(head: Message, raw: bytes) -> tuple[str, bool]:
    """The message's Message-ID, or one made from its bytes (True: made up)."""
    value = " ".join((header(head, "Message-ID") or "").split())
    if value and len(value) <= 900 and value.isprintable():
        return value, False
    return f"<{hashlib.sha256(raw).hexdigest()}@{SYNTHETIC_DOMAIN}>", True
