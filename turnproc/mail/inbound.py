"""Inbound mail: every message stored raw before anything else, then answered
or deliberately left unanswered.

`ingest(engine, raw, origin, now)` first stores the message in its own
committed transaction (the `submissions` table, verdict "received"), keyed by
its Message-ID (or, when it has none, one made from the SHA-256 of its bytes):
a message already stored is a duplicate, processed once and not answered
again. Only then is the message read, in a second transaction:

- bounces, auto-replies and our own mail coming back: verdict "silenced",
  never answered (loop protection, RFC 3834);
- a turnsheet (a TURNSHEET header line): handed to the intake
  (`turnproc.intake.submit.submit_sheet`), its receipt queued in the outbox
  as a reply in the player's thread;
- a player command (HELP, RULES, RESEND, PRESS, CONTACT, STANDBY; see
  docs/mail.md): carried out and answered;
- anything else: verdict "ignored", not answered (no replies to spam);
- mail too large or unreadable: answered (verdict "refused") only when it
  comes from an address registered to a player, otherwise "ignored".

Any failure while reading a stored message leaves it stored with verdict
"error", the reason in its `receipt` column, and a note for the moderator.
A message whose processing was cut short (still "received") is picked up
again by `resume_pending`.

This module reads a message's header, routes it and authenticates a player
command once (`Letter.authenticate`); each command family is carried out in
a module of its own under turnproc/mail/commands/: turnsheets and 18xx moves
(sheets.py), HELP and RULES (guide.py), STANDBY (standby.py), RESEND
(resend.py), PRESS (press.py) and CONTACT (contact.py), on the verdicts,
answers and limits of commands/letter.py.
"""

import contextlib
import dataclasses
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.core.sheet_errors import TurnsheetError
from turnproc.core.text import clean, for_terminal
from turnproc.intake.extract import MAX_MESSAGE_BYTES, text_from_message
from turnproc.mail.alerts import tell_moderator
from turnproc.mail.classify import silence_reason
from turnproc.mail.commands import contact, guide, press, resend, sheets, standby
from turnproc.mail.commands.letter import (
    HELP_ANSWERS_PER_DAY,
    STRANGER_ANSWERS_PER_HOUR,
    IngestOutcome,
    Letter,
    Refused,
)
from turnproc.mail.commands.press import PRESS_PER_TURN
from turnproc.mail.commands.resend import RESEND_PER_TURN
from turnproc.mail.commands.syntax import Command, has_turnsheet, parse_command
from turnproc.mail.guard import BudgetExceeded, bound_headers, within_budget
from turnproc.mail.headers import address, header, parse_headers
from turnproc.mail.headers import message_id as message_id_of
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import Game, Player, Submission

__all__ = [
    "HELP_ANSWERS_PER_DAY",
    "PRESS_PER_TURN",
    "RESEND_PER_TURN",
    "STRANGER_ANSWERS_PER_HOUR",
    "IngestOutcome",
    "StoreFailed",
    "ingest",
    "resume_pending",
    "retry",
]

RESUME_AFTER = timedelta(minutes=10)
# A message whose processing is cut short (killed by the budget, or the whole
# process dying) this many times is quarantined instead of tried again.
MAX_ATTEMPTS = 2
# `delayed`: a sheet read after its turn ran, applied by a retry once the
# moderator has rolled the turn back.
RETRIED = ("error", "received", "quarantined", "delayed")

# The rooms: commands anyone may send, and commands of an authenticated player.
_ANYONES: dict[str, Callable[[Letter, Command], IngestOutcome]] = {
    "help": lambda letter, _: guide.answer_help(letter),
    "rules": lambda letter, _: guide.answer_rules(letter),
    "standby": standby.standby,
}
_PLAYERS: dict[str, Callable[[Letter, Command, Game, Player], IngestOutcome]] = {
    "resend": resend.resend,
    "contact": contact.contact,
    "press": press.press,
}


class StoreFailed(TurnprocError):
    """The message could not even be stored: the mail system should retry it.

    Exit code 75 is EX_TEMPFAIL, which makes an MTA or procmail keep the
    message and deliver it again later."""

    exit_code = 75


def ingest(
    engine: Engine,
    incoming_raw: bytes,
    origin: str,
    now: datetime,
    *,
    moderator: str | None = None,
    on_stored: Callable[[], None] | None = None,
    forked: bool = True,
) -> IngestOutcome:
    """Store one raw message, then process it (see the module docstring).

    `on_stored` runs once the message is safely stored (a source's
    acknowledgement: mark it seen, file it); `moderator` is the address that
    hears of failures. `forked=False` processes it in this process, without
    the budget's forked child: for a message this program built itself (the
    web form's), from a threaded server, where a fork would copy locks that
    other threads hold and the child could wait on them for ever."""
    head = parse_headers(bound_headers(incoming_raw).raw)
    message_id, synthetic = message_id_of(head, incoming_raw)
    sender = address(header(head, "From"))
    try:
        with transaction(engine) as session:
            row = repo.record_submission(
                session,
                received_at=now,
                verdict="received",
                message_id=message_id,
                sender=sender[:254],
                raw=incoming_raw,
            )
            stored = row.id if row is not None else None
    except IntegrityError:
        stored = None  # another intake stored the same Message-ID a moment ago
    except SQLAlchemyError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreFailed(f"{origin}: the message could not be stored ({first})") from None
    ack_problem = _acknowledge(on_stored)
    if stored is None:
        return IngestOutcome(
            origin=origin,
            message_id=message_id,
            submission_id=None,
            verdict="duplicate",
            detail="this Message-ID was received before; processed once, not answered again"
            + ack_problem,
            answered=False,
        )
    outcome = _attempt(
        engine, stored, incoming_raw, now, moderator, synthetic, origin, forked=forked
    )
    if ack_problem:
        return dataclasses.replace(outcome, detail=outcome.detail + ack_problem)
    return outcome


def resume_pending(
    engine: Engine, now: datetime, *, moderator: str | None = None
) -> list[IngestOutcome]:
    """Process messages stored earlier but never given a verdict (the intake
    stopped between storing and answering)."""
    with transaction(engine) as session:
        ids = [row.id for row in repo.pending_submissions(session, now - RESUME_AFTER)]
    return retry(engine, ids, moderator=moderator, by_moderator=False)


def retry(
    engine: Engine,
    submission_ids: list[int],
    *,
    moderator: str | None = None,
    by_moderator: bool = True,
) -> list[IngestOutcome]:
    """Process stored messages again: those that failed ("error") once the cause
    is fixed, that were quarantined, that were never processed ("received"), or
    sheets read after their turn ran ("delayed"), once it is rolled back.
    Each keeps its arrival time, so a sheet that arrived before the deadline
    still counts. `by_moderator`: the moderator asked (`mail retry`), so a
    quarantined message gets one more attempt under the same budget."""
    outcomes = []
    for submission_id in submission_ids:
        with transaction(engine) as session:
            row = repo.get_submission(session, submission_id)
            if row is None:
                raise TurnprocError(f"no stored message #{submission_id}")
            if row.verdict not in RETRIED:
                raise TurnprocError(
                    f"message #{submission_id} was processed already ({row.verdict}); "
                    "only messages that failed, were quarantined, were delayed or were "
                    "never processed are retried"
                )
            raw, received_at = row.raw or b"", row.received_at
        _, synthetic = message_id_of(parse_headers(bound_headers(raw).raw), raw)
        origin = f"stored:{submission_id}"
        outcomes.append(
            _attempt(
                engine,
                submission_id,
                raw,
                received_at,
                moderator,
                synthetic,
                origin,
                by_moderator=by_moderator,
            )
        )
    return outcomes


def _acknowledge(on_stored: Callable[[], None] | None) -> str:
    if on_stored is None:
        return ""
    try:
        on_stored()
    except Exception as exc:  # the message is stored; a repeat is a duplicate
        return f" (acknowledging it to the mailbox failed: {type(exc).__name__}: {exc})"
    return ""


def _attempt(
    engine: Engine,
    submission_id: int,
    raw: bytes,
    received_at: datetime,
    moderator: str | None,
    synthetic: bool,
    origin: str,
    *,
    by_moderator: bool = False,
    forked: bool = True,
) -> IngestOutcome:
    """One attempt at processing a stored message, within the per-message
    budget (turnproc/mail/guard.py; `forked=False`: in this process, see
    `ingest`). The attempt is counted (committed) before it starts, so even a
    crash of this whole process counts; a message cut short MAX_ATTEMPTS
    times is quarantined and the moderator told once."""
    with transaction(engine) as session:
        row = session.get(Submission, submission_id, with_for_update=True)
        if row is None:
            raise TurnprocError(f"no stored message #{submission_id}")
        if row.attempts >= MAX_ATTEMPTS and not by_moderator:
            return _quarantine(session, row, moderator, origin, "cut short twice before")
        row.attempts += 1
        attempts = row.attempts
        message_id = row.message_id or ""
    bounded = bound_headers(raw).raw

    def process() -> IngestOutcome:
        return _process(engine, submission_id, bounded, received_at, moderator, synthetic, origin)

    try:
        if not forked:
            return process()
        return within_budget(process, before=lambda: engine.dispose(close=False))
    except OperationalError:
        _uncount(engine, submission_id)  # the database failed, not the message
        raise
    except BudgetExceeded as exc:
        reason = f"processing was cut short: {exc.reason}"
        if attempts >= MAX_ATTEMPTS or by_moderator:
            with transaction(engine) as session:
                row = session.get(Submission, submission_id, with_for_update=True)
                assert row is not None
                return _quarantine(session, row, moderator, origin, reason)
        return IngestOutcome(
            origin=origin,
            message_id=message_id,
            submission_id=submission_id,
            verdict="received",
            detail=f"{reason}; tried once more by a run {RESUME_AFTER} from now, then quarantined",
            answered=False,
        )


def _uncount(engine: Engine, submission_id: int) -> None:
    """Take back an attempt the database cut short (if it is back already)."""
    with contextlib.suppress(SQLAlchemyError), transaction(engine) as session:
        row = session.get(Submission, submission_id, with_for_update=True)
        if row is not None and row.attempts > 0:
            row.attempts -= 1


def _quarantine(
    session: Session, row: Submission, moderator: str | None, origin: str, reason: str
) -> IngestOutcome:
    """Set a message aside for good: never processed again by `mail ingest`;
    the moderator is told once (the alert's key is the submission's)."""
    row.verdict = "quarantined"
    row.receipt = f"quarantined: {reason}"
    alert = tell_moderator(
        session,
        moderator,
        key=f"alert/quarantined/{row.id}",
        subject=f"turnproc: message #{row.id} quarantined",
        body=(
            f"Message {for_terminal(row.message_id or '?')} from "
            f"{for_terminal(row.sender or '?')} is stored as submission #{row.id}. Its "
            f"processing was cut short {row.attempts} time(s) ({reason}); it is set aside "
            "and not read again, so new mail goes on being processed. Nothing was "
            "answered.\n\nIf it holds orders, look at it and submit them by hand "
            "(turnproc orders submit --sender), or give it one more try with "
            f"`turnproc mail retry {row.id}`.\n"
        ),
        now=row.received_at,
    )
    return IngestOutcome(
        origin=origin,
        message_id=row.message_id or "",
        submission_id=row.id,
        verdict="quarantined",
        detail=f"quarantined: {reason}",
        answered=False,
        alert=alert,
    )


def _process(
    engine: Engine,
    submission_id: int,
    raw: bytes,
    received_at: datetime,
    moderator: str | None,
    synthetic: bool,
    origin: str,
) -> IngestOutcome:
    head = parse_headers(raw)
    message_id, _ = message_id_of(head, raw)
    try:
        with transaction(engine) as session:
            letter = Letter(
                session,
                submission_id,
                raw,
                head,
                received_at,
                moderator,
                synthetic,
                message_id,
                origin,
            )
            return _read(letter)
    except MemoryError:
        raise  # the budget's: counted as an attempt cut short
    except OperationalError:
        # The database, not the message: it stays "received" for the next run,
        # and the command line says what failed (exit 75).
        raise
    except Exception as exc:  # any failure: the raw message stays, the moderator hears
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        with transaction(engine) as session:
            repo.update_submission(
                session,
                submission_id,
                verdict="error",
                sender=address(header(head, "From"))[:254],
                receipt=f"error: {detail}",
            )
            alert = tell_moderator(
                session,
                moderator,
                key=f"alert/error/{submission_id}",
                subject=f"turnproc: message #{submission_id} could not be processed",
                body=(
                    f"Message {message_id} ({origin}) from {header(head, 'From') or '?'} "
                    f"is stored as submission #{submission_id} but could not be "
                    f"processed:\n\n  {detail}\n\nNothing was answered. Look at it, then "
                    "submit it by hand (turnproc orders submit) if it holds orders.\n"
                ),
                now=received_at,
            )
        return IngestOutcome(
            origin=origin,
            message_id=message_id,
            submission_id=submission_id,
            verdict="error",
            detail=detail,
            answered=False,
            alert=alert,
        )


def _read(letter: Letter) -> IngestOutcome:
    """Route one message to its room: silenced, refused as unreadable, a
    turnsheet, a player command (authenticated here, once, for the commands
    that need a player), or ignored."""
    try:
        silence = silence_reason(letter.head)
    except Exception:  # headers too broken to judge: never answer those
        silence = "unreadable headers"
    if silence is not None:
        return letter.settle("silenced", f"not answered: {silence}")
    if len(letter.raw) > MAX_MESSAGE_BYTES:
        size = len(letter.raw) / (1024 * 1024)
        return letter.unreadable(
            f"your message is {size:.1f} MB; the moderator reads messages of at most "
            f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MB",
            "send the turnsheet as plain text, without attachments",
        )
    unreadable: TurnsheetError | None = None
    try:
        text = text_from_message(letter.raw)
    except TurnsheetError as exc:
        text, unreadable = "", exc
    if has_turnsheet(text):
        return sheets.sequential_move(letter, text) or sheets.turnsheet(letter)
    command = parse_command(text, clean(header(letter.head, "Subject") or "")[:300])
    if command is None and unreadable is not None:
        return letter.unreadable(unreadable.message, unreadable.hint)
    if command is None:
        return letter.settle("ignored", "not answered: no turnsheet and no command")
    try:
        if command.name in _ANYONES:
            return _ANYONES[command.name](letter, command)
        game, player = letter.authenticate(command)
        return _PLAYERS[command.name](letter, command, game, player)
    except Refused as refusal:
        return letter.refuse(
            refusal.reason, refusal.hint, answer_anyone=refusal.real_game and letter.game_named
        )
