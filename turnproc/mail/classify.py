"""Which inbound messages must never be answered: bounces, auto-replies and
our own mail coming back (loop protection, RFC 3834)."""

from email.message import Message

LOOP_HEADER = "X-Turnproc-Loop"
LOOP_VALUE = "turnproc"

_AUTO_SUBJECTS = (
    "out of office",
    "automatic reply",
    "auto-reply",
    "autoreply",
    "auto reply",
    "away from my desk",
    "on vacation",
    "delivery status notification",
    "undeliverable",
    "undelivered mail",
    "mail delivery failed",
    "returned mail",
    "failure notice",
)


def silence_reason(message: Message) -> str | None:
    """Why `message` must be recorded but not answered, or None to answer it."""
    if (message.get(LOOP_HEADER) or "").strip().lower() == LOOP_VALUE:
        return "loop: our own message came back"
    auto = (message.get("Auto-Submitted") or "no").strip().lower()
    if not auto.startswith("no"):
        return f"auto-submitted ({auto})"
    content_type = message.get_content_type()
    if content_type == "multipart/report":
        return "bounce: delivery status report"
    sender = (message.get("Return-Path") or "").strip()
    if sender == "<>":
        return "bounce: null return path"
    from_ = (message.get("From") or "").lower()
    if "mailer-daemon" in from_ or "postmaster@" in from_:
        return "bounce: from the mail system"
    for header in ("X-Autoreply", "X-Autorespond"):
        if message.get(header) is not None:
            return f"auto-reply ({header})"
    precedence = (message.get("Precedence") or "").strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"precedence {precedence}"
    subject = (message.get("Subject") or "").strip().lower()
    if any(subject.startswith(s) or f": {s}" in subject for s in _AUTO_SUBJECTS):
        return "auto-reply (subject)"
    return None
