"""Players' secrets and the refusal of sheets that do not authenticate.

A secret is stored only as a salted scrypt hash (hashlib, standard library):
`hash_secret` makes the stored string, `verify_secret` checks a secret
against it in constant time. Secrets are compared without regard to case or
surrounding spaces, since players retype them from a printed sheet.

Repeated failures are counted by the store; `failure_decision` is the pure
rule that turns a count into "answer or stay silent" and "tell the moderator".
"""

import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

_N, _R, _P = 2**14, 8, 1  # scrypt cost: ~16 MB and tens of milliseconds per check
_SALT_BYTES = 16
_KEY_BYTES = 32
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read from paper
_PREFIX = "scrypt"

FAILURE_WINDOW = timedelta(hours=1)
FAILURES_BEFORE_SILENCE = 5  # after this many failures in the window, stop answering
FAILURES_TO_REPORT = 3  # tell the moderator from this many failures on


def _normalise(secret: str) -> bytes:
    return secret.strip().casefold().encode("utf-8")


def hash_secret(secret: str) -> str:
    """The string to store for `secret`: scrypt$N$r$p$salt$hash (hex)."""
    salt = secrets.token_bytes(_SALT_BYTES)
    key = hashlib.scrypt(_normalise(secret), salt=salt, n=_N, r=_R, p=_P, dklen=_KEY_BYTES)
    return f"{_PREFIX}${_N}${_R}${_P}${salt.hex()}${key.hex()}"


def verify_secret(secret: str, stored: str | None) -> bool:
    """Whether `secret` matches the stored hash; False for a missing or malformed hash."""
    if not stored:
        return False
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != _PREFIX:
        return False
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, expected = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
        if n > 2**20 or r > 32 or p > 16 or not 16 <= len(expected) <= 64:
            return False  # a stored hash never asks for more than this; refuse a costly one
        match = False
        # Also the secret as typed: hashes made before secrets were case-folded.
        for candidate in {_normalise(secret), secret.strip().encode("utf-8")}:
            key = hashlib.scrypt(candidate[:1024], salt=salt, n=n, r=r, p=p, dklen=len(expected))
            match = hmac.compare_digest(key, expected) or match
    except (ValueError, TypeError, MemoryError):
        return False
    return match


def confirmation_code(key: str, purpose: str) -> str:
    """A code such as `k7fm-q2xe` for `purpose` (e.g. an address joining a
    standby list), keyed with the installation's secret `key`: it can be
    known only by reading the mail it was sent in, and needs no storing."""
    digest = hmac.new(key.encode(), purpose.encode("utf-8", "replace"), hashlib.sha256).digest()
    letters = "".join(_ALPHABET[byte % len(_ALPHABET)] for byte in digest[:8])
    return f"{letters[:4]}-{letters[4:]}"


def confirmation_matches(key: str, purpose: str, code: str) -> bool:
    """Whether `code` (as typed: any case, spaces around) is the code for `purpose`."""
    typed = code.strip().casefold().encode("utf-8", "replace")
    return hmac.compare_digest(typed, confirmation_code(key, purpose).encode())


def generate_secret(groups: int = 3, size: int = 4) -> str:
    """A new secret such as `k7fm-q2xe-w9hd` (about 60 bits), easy to copy from a sheet."""
    return "-".join("".join(secrets.choice(_ALPHABET) for _ in range(size)) for _ in range(groups))


def _bits(secret: str) -> float:
    """A generous estimate of a secret's strength: its letters and digits, each
    worth as many bits as the alphabet it draws from allows (a typed secret is
    never more random than that; repeated characters count once per kind)."""
    text = "".join(ch for ch in secret.strip().casefold() if ch.isalnum())
    if not text:
        return 0.0
    pool = (10 if any(c.isdigit() for c in text) else 0) + (
        26 if any(c.isalpha() for c in text) else 0
    )
    distinct = len(set(text))
    return min(len(text), 2 * distinct) * math.log2(pool)


# `generate_secret` gives 12 characters of 31 (about 59 bits); as measured by
# `_bits`, a generated secret that happens to hold no digit scores 12 letters'
# worth (56 bits), so that is the floor.
GENERATED_BITS = 12 * math.log2(26)


def weak_secret(secret: str) -> str | None:
    """Why `secret` is weaker than a generated one, or None if it is not."""
    if _bits(secret) < GENERATED_BITS - 1e-9:
        return (
            "weaker than a generated secret: use at least 12 letters and digits (or leave "
            "it empty and a secret is generated and mailed)"
        )
    return None


@dataclass(frozen=True)
class FailureDecision:
    """What to do about one more failed sheet from the same sender or position."""

    answer: bool  # send the refusal receipt (False: record it, stay silent)
    report_to_moderator: bool
    retry_after: datetime | None  # when answers resume, if silenced


def failure_decision(earlier_failures: list[datetime], now: datetime) -> FailureDecision:
    """Rate limit for failed authentication: the earlier failures' times (any
    order) decide whether this one is still answered and whether the
    moderator hears of it. Answers stop after FAILURES_BEFORE_SILENCE failures
    within FAILURE_WINDOW, so a guesser gets no feedback and a mail loop dies."""
    recent = sorted(t for t in earlier_failures if now - t < FAILURE_WINDOW)
    count = len(recent) + 1
    silenced = count > FAILURES_BEFORE_SILENCE
    retry_after = recent[-FAILURES_BEFORE_SILENCE] + FAILURE_WINDOW if silenced else None
    return FailureDecision(
        answer=not silenced,
        report_to_moderator=count >= FAILURES_TO_REPORT,
        retry_after=retry_after,
    )
