"""Secrets (salted scrypt hashes) and the rate limit on failed sheets."""

from datetime import UTC, datetime, timedelta

from turnproc.intake.auth import (
    FAILURE_WINDOW,
    FAILURES_BEFORE_SILENCE,
    failure_decision,
    generate_secret,
    hash_secret,
    verify_secret,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_hash_is_salted_and_verifies_forgivingly() -> None:
    first, second = hash_secret("River-Maple-42"), hash_secret("River-Maple-42")
    assert first != second  # salted
    assert first.startswith("scrypt$") and "River" not in first
    assert verify_secret("river-maple-42", first)
    assert verify_secret("  RIVER-MAPLE-42 ", second)
    assert not verify_secret("river-maple-43", first)
    assert not verify_secret("", first)


def test_malformed_or_missing_hashes_never_verify() -> None:
    for stored in (None, "", "plain", "scrypt$1$2$3$zz$zz", "scrypt$99999999$8$1$00$00", "md5$x"):
        assert not verify_secret("x", stored)


def test_hashes_made_before_case_folding_still_verify() -> None:
    import hashlib

    salt = bytes(16)
    key = hashlib.scrypt(b"MixedCase", salt=salt, n=2**14, r=8, p=1, dklen=32)
    stored = f"scrypt$16384$8$1${salt.hex()}${key.hex()}"
    assert verify_secret("MixedCase", stored)


def test_generated_secrets_are_readable_and_distinct() -> None:
    secrets = {generate_secret() for _ in range(50)}
    assert len(secrets) == 50
    for secret in secrets:
        assert len(secret) == 14 and secret.count("-") == 2
        assert not set(secret) & set("01ilo")


def test_failures_are_answered_then_silenced_and_reported() -> None:
    earlier: list[datetime] = []
    decisions = []
    for minute in range(8):
        now = NOW + timedelta(minutes=minute)
        decisions.append(failure_decision(earlier, now))
        earlier.append(now)
    assert [d.answer for d in decisions] == [True] * FAILURES_BEFORE_SILENCE + [False] * 3
    assert [d.report_to_moderator for d in decisions][:2] == [False, False]
    assert all(d.report_to_moderator for d in decisions[2:])
    assert decisions[-1].retry_after is not None and decisions[-1].retry_after > NOW


def test_old_failures_are_forgotten() -> None:
    old = [NOW - FAILURE_WINDOW - timedelta(minutes=1)] * 20
    decision = failure_decision(old, NOW)
    assert decision.answer and not decision.report_to_moderator
