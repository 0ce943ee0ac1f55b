"""Red-team holes of round three in the mail intake (issue 23), each with the
rule of docs/mail.md that closes it: forged mail never locks out a
position's owner; the sheet in force is the one that arrived last.

Runs on SQLite and PostgreSQL (the `world` fixture of test_mail_inbound.py).
"""

from datetime import timedelta

from turnproc.mail.inbound import ingest, retry
from turnproc.store import repository as repo
from turnproc.store.db import transaction

from . import test_mail_inbound as first_corpus
from .test_mail_inbound import ANN, GAME, MODERATOR, NOW, World, mail, replies, run, sheet

world = first_corpus.world  # the fixture: a game at turn 2, on SQLite and PostgreSQL


def orders_of_ann(world: World) -> list[object] | None:
    with transaction(world.engine) as session:
        found = repo.orders_in_force(session, world.game_id, 2).get(1)
        return list(found.orders) if found else None


# --- 7: forged wrong secrets never lock the owner out ---------------------------------


def test_forged_wrong_secrets_never_lock_out_the_owner(world: World) -> None:
    # Mallory writes Ann's address as the sender and guesses, again and again.
    for n in range(12):
        guess = run(world, mail(sheet(secret=f"guess-{n}"), message_id=f"<g{n}@forged>"))
        assert guess.verdict == "refused"
        assert "locked" not in guess.detail
    # Ann's own sheet, with the right secret, is accepted at once: no unlock needed.
    right = run(world, mail(sheet(order="BORROW 120"), message_id="<right@ann>"))
    assert right.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [120]  # type: ignore[attr-defined]
    # Nothing asks Ann to unlock anything.
    with transaction(world.engine) as session:
        subjects = [r.subject for r in repo.outbox(session) if r.to_address == ANN]
    assert not [s for s in subjects if "locked" in s]
    # The guesses were answered at first, then the sender (the forged address)
    # is no longer answered within the hour, and the moderator heard once.
    with transaction(world.engine) as session:
        alerts = [r for r in repo.outbox(session) if r.kind == "alert"]
    assert len(alerts) == 1 and alerts[0].to_address == MODERATOR


# --- 4: the sheet that arrived last is in force --------------------------------------


def test_an_older_sheet_processed_later_does_not_replace_a_newer_one(world: World) -> None:
    older = bytes(mail(sheet(order="BORROW 100"), message_id="<older@ann>"))
    newer = bytes(mail(sheet(order="BORROW 200"), message_id="<newer@ann>"))
    # The newer sheet (arrived at NOW) is processed first ...
    assert ingest(world.engine, newer, "test", NOW).verdict == "accepted"
    # ... the older one (arrived an hour before) only now, as `mail retry` would.
    late = ingest(world.engine, older, "test", NOW - timedelta(hours=1))
    assert late.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [200]  # type: ignore[attr-defined]
    [receipt] = replies(world, late)
    assert "<newer@ann>" not in receipt.body or "in force" in receipt.body
    assert "arrived later" in receipt.body


def test_mail_retry_of_an_older_stored_sheet_keeps_the_newer_in_force(world: World) -> None:
    older = bytes(mail(sheet(order="BORROW 100"), message_id="<a@ann>"))
    with transaction(world.engine) as session:
        row = repo.record_submission(
            session,
            received_at=NOW - timedelta(minutes=30),
            verdict="received",
            message_id="<a@ann>",
            sender=ANN,
            raw=older,
        )
        assert row is not None
        stored_id = row.id
    newer = run(world, mail(sheet(order="BORROW 200"), message_id="<b@ann>"))
    assert newer.verdict == "accepted"
    [outcome] = retry(world.engine, [stored_id])
    assert outcome.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [200]  # type: ignore[attr-defined]
    # A sheet that arrived later still replaces it.
    latest = ingest(
        world.engine,
        bytes(mail(sheet(order="BORROW 300"), message_id="<c@ann>")),
        "test",
        NOW + timedelta(minutes=1),
    )
    assert latest.verdict == "accepted"
    assert [o.amount for o in orders_of_ann(world) or []] == [300]  # type: ignore[attr-defined]
    assert GAME
