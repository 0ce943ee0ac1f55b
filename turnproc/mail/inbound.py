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
- a player command (HELP, RESEND, PRESS; see docs/mail.md): carried out and
  answered;
- anything else: verdict "ignored", not answered (no replies to spam);
- mail too large or unreadable: answered (verdict "refused") only when it
  comes from an address registered to a player, otherwise "ignored".

Any failure while reading a stored message leaves it stored with verdict
"error", the reason in its `receipt` column, and a note for the moderator.
A message whose processing was cut short (still "received") is picked up
again by `resume_pending`.
"""

import contextlib
import dataclasses
import email.parser
import email.policy
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message
from email.utils import parseaddr

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.core.text import clean, clean_name, for_terminal, neutralised
from turnproc.families.continental_rails.turnsheet.language import order_lines, parse_turnsheet
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.families.registry import sequential_family
from turnproc.intake.auth import (
    FAILURE_WINDOW,
    FAILURES_BEFORE_SILENCE,
    FAILURES_TO_REPORT,
    confirmation_code,
    confirmation_matches,
    failure_decision,
)
from turnproc.intake.errors import SheetTooLarge, TurnsheetError
from turnproc.intake.extract import MAX_MESSAGE_BYTES, text_from_message
from turnproc.intake.secret import secret_problem, secret_used_elsewhere
from turnproc.mail.classify import silence_reason
from turnproc.mail.guard import BudgetExceeded, bound_headers, within_budget
from turnproc.playerdocs import player_doc, players_guide
from turnproc.store import repository as repo
from turnproc.store.db import transaction
from turnproc.store.models import Game, OutboxMessage, Player, Submission

SYNTHETIC_DOMAIN = "sha256.turnproc.invalid"
MAX_ANNOUNCEMENT_CHARS = 2000
# HELP is answered to anyone (a new player has no secret yet), at most this
# often per address, so forged mail cannot turn the program into a spammer.
HELP_ANSWERS_PER_DAY = 3
# STANDBY game: NAME leave (or remove, off, withdraw): off the standby list.
STANDBY_LEAVE_WORDS = frozenset({"leave", "remove", "off", "withdraw"})
RESUME_AFTER = timedelta(minutes=10)
# Answers (receipts, refusals, HELP, STANDBY) to addresses that no player
# registered, over all of them together: forged senders cannot make the
# program a source of backscatter beyond this.
STRANGER_ANSWERS_PER_HOUR = 20
STRANGER_WINDOW = timedelta(hours=1)
# Per player and turn: announcements printed, reports resent.
PRESS_PER_TURN = 3
RESEND_PER_TURN = 3
# A message whose processing is cut short (killed by the budget, or the whole
# process dying) this many times is quarantined instead of tried again.
MAX_ATTEMPTS = 2
RETRIED = ("error", "received", "quarantined")

_COMMAND_RE = re.compile(
    r"^[\s*_]*(help|rules|resend|press|announce|announcement|standby|contact)\b[\s:]*(.*)$",
    re.IGNORECASE,
)
_FIELD_RE = re.compile(
    r"\b(game|turn|player|position|pos|secret|password|code)\b\s*[:=#]?\s*([^\s,;]+)",
    re.IGNORECASE,
)
_END_RE = re.compile(r"^[\W_]*end[\W_]*$", re.IGNORECASE)
_REPLY_PREFIX_RE = re.compile(r"^\s*((re|aw|sv|fwd?)\s*:\s*)+", re.IGNORECASE)
_WROTE_RE = re.compile(r"^on\b.{0,300}\bwrote:\s*$", re.IGNORECASE)

RULES_ANSWER = """\
The rules of the game, with their tables, and the players' guide to the
turnsheet are attached as a PDF. Mail HELP for the commands you can send.
"""

COMMANDS_HELP = """\
Commands you can mail to the moderator (one per message, on the first line):

  HELP
      this guide.
  RULES
      the rules of the game, with their tables, and this guide as a PDF.
  RESEND game: NAME player: N secret: YOUR-SECRET [turn: T]
      your latest report again (or the report of turn T), with its PDF.
  PRESS game: NAME player: N secret: YOUR-SECRET [anonymous]
      an announcement for the next report's news: write it on the lines
      below the PRESS line and end it with a line END; "anonymous" hides
      your name.
  CONTACT game: NAME player: N secret: YOUR-SECRET share|withhold
      "share": the other players' reports show your e-mail address (in a
      game that is not anonymous); "withhold": they do not (the default).
  STANDBY game: NAME [leave]
      put yourself on the game's standby list: you take over the next
      position whose player stops sending orders, and get its report,
      turnsheet and secret by mail. The answer asks you to confirm with a
      line to send back. With "leave": off the list again, confirmed
      the same way.

A turnsheet is sent as it is: the filled-in sheet from your report, starting
with its TURNSHEET line, in the body of the mail or as a .txt attachment.
"""

# RULES from an address no player registered and no standby player confirmed:
# no PDF to an address that may be forged.
STRANGER_RULES = """\
The rules of the game come as a PDF to the players of a game and to the
volunteers on a game's standby list (send STANDBY game: NAME, then the line
of the mail that asks you to confirm). Mail HELP for the commands you can
send.
"""

# HELP to an address no player registered: the commands, not the whole guide
# (about a kilobyte, so forged HELP mail buys little backscatter).
STRANGER_HELP = (
    COMMANDS_HELP
    + "\nThe full turnsheet guide comes with the welcome mail of a game, and with HELP\n"
    "sent from the address a game has registered for you.\n"
)


def _shown(text: str) -> str:
    """A sender's text quoted in a reply: short, one line, printable."""
    short = " ".join(for_terminal(text).split())[:40]
    return repr(short if len(text) <= 40 else short + "...")


class StoreFailed(TurnprocError):
    """The message could not even be stored: the mail system should retry it.

    Exit code 75 is EX_TEMPFAIL, which makes an MTA or procmail keep the
    message and deliver it again later."""

    exit_code = 75


@dataclass(frozen=True)
class IngestOutcome:
    """What happened to one inbound message."""

    origin: str
    message_id: str
    submission_id: int | None  # None: a duplicate, stored before under that id
    verdict: str
    detail: str  # one line for the moderator
    answered: bool  # a reply was queued in the outbox
    alert: str | None = None  # what the moderator was told, if anything

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


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
    head = _headers(bound_headers(incoming_raw).raw)
    message_id, synthetic = _message_id(head, incoming_raw)
    sender = _address(_header(head, "From"))
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
    is fixed, that were quarantined, or that were never processed ("received").
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
                    "only messages that failed, were quarantined or were never processed "
                    "are retried"
                )
            raw, received_at = row.raw or b"", row.received_at
        _, synthetic = _message_id(_headers(bound_headers(raw).raw), raw)
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
    alert = _alert(
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
    head = _headers(raw)
    message_id, _ = _message_id(head, raw)
    try:
        with transaction(engine) as session:
            reader = _Reader(
                session, submission_id, raw, head, received_at, moderator, synthetic, message_id
            )
            return reader.run(origin)
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
                sender=_address(_header(head, "From"))[:254],
                receipt=f"error: {detail}",
            )
            alert = _alert(
                session,
                moderator,
                key=f"alert/error/{submission_id}",
                subject=f"turnproc: message #{submission_id} could not be processed",
                body=(
                    f"Message {message_id} ({origin}) from {_header(head, 'From') or '?'} "
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


def _alert(
    session: Session, moderator: str | None, *, key: str, subject: str, body: str, now: datetime
) -> str:
    """Tell the moderator (by mail if an address is set); returns the one-line note."""
    if moderator:
        repo.queue_mail(
            session,
            key=key,
            kind="alert",
            to_address=moderator,
            subject=subject,
            body=body,
            now=now,
        )
    return subject


def refusal_digest(
    session: Session,
    moderator: str | None,
    sender: str,
    submission_id: int,
    reason: str,
    now: datetime,
) -> str | None:
    """Repeated refusals from one sender: one alert per sender and burst (the
    hour the refusals fall in), a digest that lists each refusal while it
    waits in the outbox. Returns the note for the moderator's terminal the
    first time only, None for the rest of the burst."""
    line = f"  #{submission_id}  {now:%Y-%m-%d %H:%M:%S} UTC  {for_terminal(reason)[:200]}\n"
    bucket = now.replace(minute=0, second=0, microsecond=0)
    digest = hashlib.sha256(sender.encode("utf-8", "replace")).hexdigest()[:16]
    key = f"alert/refusals/{digest}/{bucket:%Y%m%d%H}"
    subject = f"turnproc: repeated refusals for {for_terminal(sender)[:120]}"
    if not moderator:
        count = len(repo.recent_refusals(session, since=now - FAILURE_WINDOW, sender=sender))
        return subject if count + 1 == FAILURES_TO_REPORT else None
    existing = repo.mail_by_key(session, key)
    if existing is not None:
        if existing.status == "queued":
            existing.body += line
        return None
    repo.queue_mail(
        session,
        key=key,
        kind="alert",
        to_address=moderator,
        subject=subject,
        body=(
            f"Messages from {for_terminal(sender)[:254]} are being refused: "
            f"{FAILURES_TO_REPORT} within {FAILURE_WINDOW}. From the "
            f"{FAILURES_BEFORE_SILENCE + 1}th on they are no longer answered. This alert "
            "comes once per sender and hour; the refusals until it is sent are listed "
            "here (all of them: `turnproc mail ingest` prints each, the submissions "
            "table keeps them):\n\n" + line
        ),
        now=now,
    )
    return subject


# --- reading headers robustly -------------------------------------------------


def _headers(raw: bytes) -> Message:
    parser = email.parser.BytesParser(policy=email.policy.default)
    return parser.parsebytes(raw, headersonly=True)


def _header(message: Message, name: str) -> str | None:
    try:
        value = message.get(name)
    except Exception:  # a malformed header value raises from the policy's parser
        return None
    return str(value).strip() if value is not None else None


def _address(value: str | None) -> str:
    address = parseaddr(value or "")[1].strip().lower()
    return address if address.isprintable() else ""  # control characters: unanswerable


def _message_id(head: Message, raw: bytes) -> tuple[str, bool]:
    """The message's Message-ID, or one made from its bytes (True: made up)."""
    value = " ".join((_header(head, "Message-ID") or "").split())
    if value and len(value) <= 900 and value.isprintable():
        return value, False
    return f"<{hashlib.sha256(raw).hexdigest()}@{SYNTHETIC_DOMAIN}>", True


# --- what a message is --------------------------------------------------------


@dataclass(frozen=True)
class _Command:
    name: str  # help, resend, press
    fields: dict[str, str]
    flags: set[str]
    body: list[str]  # the lines after the command line (PRESS: the announcement)


class _Refused(Exception):
    def __init__(self, reason: str, hint: str = "", *, real_game: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.real_game = real_game  # False: the message names no game of ours


class _Reader:
    """One stored message on its way to a verdict, inside one transaction."""

    def __init__(
        self,
        session: Session,
        submission_id: int,
        raw: bytes,
        head: Message,
        received_at: datetime,
        moderator: str | None,
        synthetic: bool,
        message_id: str,
    ) -> None:
        self.session = session
        self.submission_id = submission_id
        self.raw = raw
        self.head = head
        self.received_at = received_at
        self.moderator = moderator
        self.message_id = message_id
        self.in_reply_to = None if synthetic else message_id
        sender = _address(_header(head, "From"))
        self.sender = sender if len(sender) <= 254 else ""  # no answer to what cannot be stored
        self.origin = ""
        self.game_named = False  # the message named one of our games

    def run(self, origin: str) -> IngestOutcome:
        self.origin = origin
        try:
            silence = silence_reason(self.head)
        except Exception:  # headers too broken to judge: never answer those
            silence = "unreadable headers"
        if silence is not None:
            return self._settle("silenced", f"not answered: {silence}")
        if len(self.raw) > MAX_MESSAGE_BYTES:
            size = len(self.raw) / (1024 * 1024)
            return self._unreadable(
                f"your message is {size:.1f} MB; the moderator reads messages of at most "
                f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MB",
                "send the turnsheet as plain text, without attachments",
            )
        unreadable: TurnsheetError | None = None
        try:
            text = text_from_message(self.raw)
        except TurnsheetError as exc:
            text, unreadable = "", exc
        if _has_turnsheet(text):
            return self._sequential_move(text) or self._turnsheet()
        command = _command(text, clean(_header(self.head, "Subject") or "")[:300])
        if command is None and unreadable is not None:
            return self._unreadable(unreadable.message, unreadable.hint)
        if command is None:
            return self._settle("ignored", "not answered: no turnsheet and no command")
        try:
            if command.name == "help":
                return self._help()
            if command.name == "rules":
                return self._rules()
            if command.name == "standby":
                return self._standby(command)
            game, player = self._authenticate(command)
            if command.name == "resend":
                return self._resend(command, game, player)
            if command.name == "contact":
                return self._contact(command, game, player)
            return self._press(command, game, player)
        except _Refused as refusal:
            return self._refuse(
                refusal.reason, refusal.hint, answer_anyone=refusal.real_game and self.game_named
            )

    # --- verdicts -----------------------------------------------------------------

    def _settle(
        self,
        verdict: str,
        detail: str,
        *,
        answered: bool = False,
        game: Game | None = None,
        position: int | None = None,
        alert: str | None = None,
    ) -> IngestOutcome:
        repo.update_submission(
            self.session,
            self.submission_id,
            verdict=verdict,
            game_id=game.id if game else None,
            turn=game.current_turn if game else None,
            position=position,
            sender=self.sender[:254],
            receipt=detail,
        )
        return IngestOutcome(
            origin=self.origin,
            message_id=self.message_id,
            submission_id=self.submission_id,
            verdict=verdict,
            detail=detail.splitlines()[0] if detail else "",
            answered=answered,
            alert=alert,
        )

    def _reply(
        self,
        subject: str,
        body: str,
        *,
        kind: str = "receipt",
        to: str | None = None,
        game: Game | None = None,
        position: int | None = None,
        turn: int | None = None,
        pdf: bytes | None = None,
        pdf_name: str | None = None,
        json_attachment: str | None = None,
        report_id: int | None = None,
    ) -> None:
        repo.queue_mail(
            self.session,
            key=f"{kind}/inbound/{self.submission_id}",
            kind=kind,
            to_address=to or self.sender,
            subject=subject[:300],
            body=body,
            now=self.received_at,
            game_id=game.id if game else None,
            turn=turn if turn is not None else (game.current_turn if game else None),
            position=position,
            pdf=pdf,
            pdf_name=pdf_name,
            json_attachment=json_attachment,
            in_reply_to=self.in_reply_to,
            report_id=report_id,
        )

    def _refuse(
        self, reason: str, hint: str, *, answer_anyone: bool, receipt: str | None = None
    ) -> IngestOutcome:
        """Refused: answered (rate-limited) if the sender may be answered.
        Someone who registered no address is answered only about one of our
        games (`answer_anyone`), within the global cap on such answers.
        `receipt`: the answer's text, when the refusal has its own."""
        registered = self._registered()
        text = receipt or (
            f"REFUSED: {reason}\n" + (f"\n{hint[:1].upper()}{hint[1:]}.\n" if hint else "")
        )
        if registered:
            text += f"\nYour message: {self.message_id}\n"
        if answer_anyone:
            text += f"\n{COMMANDS_HELP}"
        if not self.sender or not (answer_anyone or registered):
            return self._settle("ignored", f"not answered (unknown sender): {reason}")
        earlier = repo.recent_refusals(
            self.session, since=self.received_at - FAILURE_WINDOW, sender=self.sender
        )
        decision = failure_decision(earlier, self.received_at)
        alert = None
        if decision.report_to_moderator:
            alert = refusal_digest(
                self.session,
                self.moderator,
                self.sender,
                self.submission_id,
                reason,
                self.received_at,
            )
        answered = decision.answer and (registered or self._stranger_may_be_answered())
        if answered:
            self._reply(f"REFUSED: {reason}", text)
        return self._settle("refused", text, answered=answered, alert=alert)

    def _stranger_may_be_answered(self) -> bool:
        """The global cap on answers to addresses no player registered."""
        since = self.received_at - STRANGER_WINDOW
        return repo.answers_to_strangers(self.session, since) < STRANGER_ANSWERS_PER_HOUR

    def _unreadable(self, reason: str, hint: str) -> IngestOutcome:
        return self._refuse(reason, hint, answer_anyone=False)

    def _registered(self) -> bool:
        return bool(self.sender) and bool(repo.players_by_email(self.session, self.sender))

    def _known(self) -> bool:
        """A player's address, or a standby player's, confirmed by reply: not
        a stranger's."""
        return self._registered() or (
            bool(self.sender) and repo.waits_on_a_standby_list(self.session, self.sender)
        )

    # --- a turnsheet --------------------------------------------------------------

    def _turnsheet(self) -> IngestOutcome:
        # The turnsheet's checks load the rules engine: imported for a sheet
        # alone, so a command or junk mail starts without it.
        from turnproc.intake.submit import submit_sheet

        outcome = submit_sheet(
            self.session, None, self.raw, None, self.received_at, submission_id=self.submission_id
        )
        game = repo.get_game(self.session, outcome.game_id) if outcome.game_id else None
        answered = bool(outcome.answer and outcome.reply_to)
        if answered and not repo.players_by_email(self.session, outcome.reply_to or ""):
            answered = self._stranger_may_be_answered()
        if answered:
            self._reply(
                outcome.receipt.subject,
                outcome.receipt.text,
                to=outcome.reply_to,
                game=game,
                position=outcome.position,
                turn=outcome.turn,
            )
        alert = None
        if outcome.notify_moderator and self.sender:
            alert = refusal_digest(
                self.session,
                self.moderator,
                self.sender,
                self.submission_id,
                outcome.receipt.subject,
                self.received_at,
            )
        return IngestOutcome(
            origin=self.origin,
            message_id=self.message_id,
            submission_id=self.submission_id,
            verdict=outcome.verdict,
            detail=outcome.receipt.subject,
            answered=answered,
            alert=alert,
        )

    # --- a move in a sequential game (the 18xx games) ------------------------------

    def _sequential_move(self, text: str) -> IngestOutcome | None:
        """A sheet naming a sequential game: authenticated like a command, its
        orders applied at once (turnproc/sequential.py). None: not such a sheet."""
        probe = parse_turnsheet(text, Vocabulary(kinds={}, numbers={}))
        header = probe.header
        if header is None:
            return None
        game = repo.find_game(self.session, header.game)
        if game is None or sequential_family(game.scenario) is None:
            return None
        # Imported for a sequential game's sheet alone: the 18xx engine and
        # reports are not loaded for the other mail.
        from turnproc import sequential

        fields = {"game": game.name, "player": str(header.position), "secret": header.secret}
        try:
            _, player = self._authenticate(_Command("move", fields, set(), []))
        except _Refused as refusal:
            return self._refuse(refusal.reason, refusal.hint, answer_anyone=False)
        outcome = sequential.submit(
            self.session,
            game,
            player,
            header.turn,
            "\n".join(order_lines(text)),
            self.received_at,
            self.submission_id,
        )
        if outcome.verdict == "refused":
            # The player himself, authenticated: always answered, with the
            # reason and his legal moves, and not counted toward the limits
            # on refusals, which are for strangers and floods (docs/mail.md).
            self._reply(outcome.subject, outcome.text, game=game, position=player.position)
            return self._settle(
                "rejected",
                outcome.subject + "\n" + outcome.text,
                answered=True,
                game=game,
                position=player.position,
            )
        self._reply(outcome.subject, outcome.text, game=game, position=player.position)
        return self._settle(
            outcome.verdict,
            outcome.subject + "\n" + outcome.text,
            answered=True,
            game=game,
            position=player.position,
        )

    # --- commands -----------------------------------------------------------------

    def _answered_too_often(self, verdict: str) -> IngestOutcome | None:
        """Commands anyone may send are answered at most HELP_ANSWERS_PER_DAY
        times a day per address, so forged mail cannot make us a spammer."""
        since = self.received_at - timedelta(days=1)
        count = repo.recent_verdicts(
            self.session, sender=self.sender, verdicts=(verdict,), since=since
        )
        if self.sender and count < HELP_ANSWERS_PER_DAY:
            return None
        detail = f"not answered: {verdict.upper()} sent too often from this address"
        return self._settle("ignored", detail)

    def _help(self) -> IngestOutcome:
        """HELP: players get the commands and the turnsheet guide; an address
        no player registered gets the commands only (about 1 KB, no more
        than a HELP mail's own size many times over), within the global cap."""
        if (ignored := self._answered_too_often("help")) is not None:
            return ignored
        title = self._title()
        if title is not None:
            from turnproc import sequential

            self._reply(
                f"HELP: how to play {title} by mail", sequential.help_text(title), kind="help"
            )
            return self._settle(
                "help", f"HELP answered with the {title} order language", answered=True
            )
        if self._registered():
            guide = players_guide(player_doc("turnsheet.md").read_text(encoding="utf-8"))
            self._reply("HELP: how to play by mail", f"{COMMANDS_HELP}\n{guide}", kind="help")
            return self._settle("help", "HELP answered with the turnsheet guide", answered=True)
        if not self._stranger_may_be_answered():
            return self._settle("ignored", "not answered: the cap on answers to strangers")
        self._reply("HELP: how to play by mail", STRANGER_HELP, kind="help")
        return self._settle("help", "HELP answered with the list of commands", answered=True)

    def _title(self) -> str | None:
        """The 18xx title of the newest game the sender plays, if that game is
        a sequential one: HELP and RULES answer with that title's material."""
        if not self.sender:
            return None
        games = [
            g
            for g in (
                self.session.get(Game, p.game_id)
                for p in repo.players_by_email(self.session, self.sender)
            )
            if g is not None
        ]
        if not games:
            return None
        newest = max([g for g in games if g.status == "active"] or games, key=lambda g: g.id)
        family = sequential_family(newest.scenario)
        return family.titles.get(newest.scenario) if family is not None else None

    def _rules(self) -> IngestOutcome:
        """RULES: the rules and the players' guide as a PDF (the sender
        attaches it to every mail of kind "rules"); limited like HELP. Only
        addresses shown to be real get the PDF (players, and standby players,
        who confirmed theirs): a stranger's RULES, which may be forged, is
        answered with a few lines, within the cap on answers to strangers."""
        if (ignored := self._answered_too_often("rules")) is not None:
            return ignored
        if self._known():
            title = self._title()
            if title is not None:
                from turnproc import sequential

                self._reply(
                    f"RULES: the rules of {title}",
                    sequential.rules_answer(title),
                    kind="rules",
                    pdf_name=sequential.rules_pdf_name(title),  # the outbox attaches them
                )
                return self._settle(
                    "rules", f"RULES answered with the {title} rules PDF", answered=True
                )
            self._reply("RULES: the rules of the game", RULES_ANSWER, kind="rules")
            return self._settle("rules", "RULES answered with the rules PDF", answered=True)
        if not self._stranger_may_be_answered():
            return self._settle("ignored", "not answered: the cap on answers to strangers")
        self._reply("RULES: the rules of the game", STRANGER_RULES, kind="help")
        return self._settle("rules", "RULES answered without the PDF (a stranger)", answered=True)

    def _standby(self, command: _Command) -> IngestOutcome:
        """STANDBY: the sender joins a game's standby list (anyone may; the
        moderator can take them off with `game standby --remove`), once the
        address is confirmed: the first STANDBY is answered with a line
        holding a code, and only that line sent back puts the sender on the
        list. A forged sender never sees the code, so forged STANDBY mail
        adds no one, and the answers it draws stay strangers' answers, under
        their caps (docs/mail.md, section 5)."""
        game = self._game(command.fields["game"])
        if command.flags & STANDBY_LEAVE_WORDS:
            return self._leave_standby(command, game)
        refusal = repo.standby_refusal(self.session, game, self.sender)
        if refusal:
            raise _Refused(refusal)
        if not self._known() and not self._stranger_may_be_answered():
            return self._settle("ignored", "not answered: the cap on answers to strangers")
        purpose = f"standby/{game.id}/{self.sender}"
        key = repo.installation_key(self.session)
        code = command.fields.get("code")
        if code is None:
            # The requests are what a forged sender can draw: at most
            # HELP_ANSWERS_PER_DAY STANDBY answers a day per address.
            if (ignored := self._answered_too_often("standby")) is not None:
                return ignored
            line = f"STANDBY game: {game.name} code: {confirmation_code(key, purpose)}"
            self._reply(
                f"[{game.name}] Confirm: the standby list",
                f"To join the standby list of {game.name}, send this line back as the first\n"
                f"line of a mail, from this address:\n\n  {line}\n\n"
                "If you did not ask to join, ignore this mail: nothing else will come.\n",
                game=game,
            )
            detail = f"STANDBY: {self.sender} asked to confirm for {game.name}"
            return self._settle("standby", detail, answered=True, game=game)
        if not confirmation_matches(key, purpose, code):
            raise _Refused(
                "wrong confirmation code",
                "send the STANDBY line of the mail that asked you to confirm, as it is",
            )
        name = clean_name(parseaddr(_header(self.head, "From") or "")[0])
        waiting = len(repo.standbys(self.session, game.id))
        repo.add_standby(self.session, game.id, self.sender, name, self.received_at)
        repo.log_action(
            self.session,
            game_id=game.id,
            turn=game.current_turn,
            action="standby_added",
            now=self.received_at,
            details={"email": self.sender, "by": "mail", "submission": self.submission_id},
        )
        ahead = f" ({waiting} before you)" if waiting else ""
        reply = (
            f"OK: you are on the standby list of {game.name}{ahead}.\n\n"
            "When a player stops sending orders, the next volunteer on the list takes over\n"
            "the position as a turn ends, and gets a welcome mail with its report,\n"
            f"turnsheet and secret. To leave the list, send STANDBY game: {game.name} leave\n"
            "and then the line of the mail that asks you to confirm.\n"
        )
        self._reply(f"[{game.name}] OK: you are on the standby list", reply, game=game)
        detail = f"STANDBY: {self.sender} on the standby list of {game.name}"
        return self._settle("standby", detail, answered=True, game=game)

    def _leave_standby(self, command: _Command, game: Game) -> IngestOutcome:
        """STANDBY ... leave: off the list, confirmed like joining. A From line
        is easy to forge, so the first leave is answered (to the volunteer's
        own address) with a line holding a code, and only that line sent back
        takes the volunteer off the list (docs/mail.md, section 5)."""
        waiting = [
            s for s in repo.standbys(self.session, game.id) if s.email.lower() == self.sender
        ]
        if not waiting:
            raise _Refused(f"{self.sender} is not waiting on the standby list of {game.name}")
        purpose = f"standby-leave/{game.id}/{self.sender}"
        key = repo.installation_key(self.session)
        code = command.fields.get("code")
        if code is None:
            # What a forged leave can draw: a question to the volunteer's own
            # address, at most HELP_ANSWERS_PER_DAY STANDBY answers a day.
            if (ignored := self._answered_too_often("standby")) is not None:
                return ignored
            line = f"STANDBY game: {game.name} leave code: {confirmation_code(key, purpose)}"
            self._reply(
                f"[{game.name}] Confirm: leaving the standby list",
                f"To leave the standby list of {game.name}, send this line back as the first\n"
                f"line of a mail, from this address:\n\n  {line}\n\n"
                "If you did not ask to leave, ignore this mail: you stay on the list.\n",
                game=game,
            )
            detail = f"STANDBY: {self.sender} asked to confirm leaving {game.name}"
            return self._settle("standby", detail, answered=True, game=game)
        if not confirmation_matches(key, purpose, code):
            raise _Refused(
                "wrong confirmation code",
                "send the STANDBY line of the mail that asked you to confirm, as it is",
            )
        repo.remove_standby(self.session, waiting[0])
        repo.log_action(
            self.session,
            game_id=game.id,
            turn=game.current_turn,
            action="standby_removed",
            now=self.received_at,
            details={"email": self.sender, "by": "mail", "submission": self.submission_id},
        )
        self._reply(
            f"[{game.name}] OK: you are off the standby list",
            f"OK: you are off the standby list of {game.name}.\n",
            game=game,
        )
        detail = f"STANDBY: {self.sender} off the standby list of {game.name}"
        return self._settle("standby", detail, answered=True, game=game)

    def _authenticate(self, command: _Command) -> tuple[Game, Player]:
        """The same checks as a turnsheet's header: game, player, sender, secret."""
        example = f"{command.name.upper()} game: NAME player: 3 secret: YOUR-SECRET"
        missing = [k for k in ("game", "player", "secret") if not command.fields.get(k)]
        if missing:
            raise _Refused(
                f"{command.name.upper()} needs {', '.join(missing)}",
                f"write it as: {example}",
            )
        game = self._game(command.fields["game"])
        number = command.fields["player"]
        if not (number.isascii() and number.isdigit()) or len(number) > 3:
            raise _Refused(
                f"the player {_shown(number)} is not a number", f"write it as: {example}"
            )
        position = int(number)
        try:
            player = repo.get_player(self.session, game.id, position)
        except repo.NotFound:
            raise _Refused(f"game {game.name} has no player {position}") from None
        if not player.human or not player.secret_hash:
            raise _Refused(f"player {position} of {game.name} is not registered to a person")
        if (player.email or "").strip().lower() != self.sender:
            if self.sender:
                secret_used_elsewhere(
                    self.session,
                    game,
                    player,
                    command.fields["secret"],
                    self.sender,
                    self.received_at,
                )
            raise _Refused(
                f"{self.sender or 'this address'} is not the registered address of "
                f"player {position}",
                "send it from the address you registered",
            )
        problem = secret_problem(player, command.fields["secret"])
        if problem is not None:
            raise _Refused(problem, "copy the secret from your welcome mail")
        return game, player

    def _game(self, key: str) -> Game:
        """The game named, its row locked (a turn run holds the same lock: an
        announcement or a standby volunteer lands in the turn that runs next)."""
        game = repo.find_game(self.session, key, lock=True)
        if game is None:
            raise _Refused(
                f"there is no game {_shown(key)}",
                "write the game's name as on your turnsheet",
                real_game=False,
            )
        self.game_named = True
        return game

    def _resend(self, command: _Command, game: Game, player: Player) -> IngestOutcome:
        """RESEND: the latest report (or turn T's) again, with its attachments."""
        wanted = command.fields.get("turn")
        if wanted is not None and not (wanted.isascii() and wanted.isdigit() and len(wanted) < 6):
            raise _Refused(f"the turn {_shown(wanted)} is not a number")
        turn = int(wanted) if wanted else game.current_turn - 1
        position = player.position
        self._within_turn_cap("resend", game, position, RESEND_PER_TURN, "reports resent")
        report = repo.get_report(self.session, game.id, turn, position) if turn >= 1 else None
        # A report's PDF may be kept by its digest only: the sender finds the
        # report (by game, turn and position, or the welcome's `report_id`)
        # and renders it again.
        if report is not None:
            subject = f"[{game.name}] Turn {turn} report (again): position {position}"
            # The outbox names the stored report (game, turn, position) and
            # `mail send` attaches its PDF: no copy of the PDF per RESEND.
            body, pdf = report.text, None
            data: str | None = report.json
            name = f"{game.name}-turn-{turn}-position-{position}.pdf"
            report_id: int | None = None
            has_pdf = pdf is not None or report.pdf_sha256 is not None
        else:
            welcome = self._welcome(game, position) if turn < 1 else None
            if welcome is None:
                raise _Refused(f"{game.name} has no report of turn {turn} for player {position}")
            subject = f"{welcome.subject} (again)"
            body, pdf, data = welcome.body, welcome.pdf, welcome.json_attachment
            name = welcome.pdf_name or f"{game.name}-start.pdf"
            report_id = welcome.report_id
            has_pdf = welcome.pdf_name is not None
        self._reply(
            subject,
            body,
            kind="report",
            game=game,
            position=position,
            turn=turn,
            pdf=pdf,
            pdf_name=name if has_pdf else None,
            json_attachment=data,
            report_id=report_id,
        )
        repo.log_action(
            self.session,
            game_id=game.id,
            turn=game.current_turn,
            action="player_resend",
            now=self.received_at,
            details={"position": position, "turn": turn, "submission": self.submission_id},
        )
        what = f"turn {turn} report" if turn >= 1 else "welcome mail"
        detail = f"RESEND: {what} queued for player {position}"
        return self._settle("resend", detail, answered=True, game=game, position=position)

    def _within_turn_cap(
        self, verdict: str, game: Game, position: int, cap: int, what: str
    ) -> None:
        done = repo.commands_this_turn(self.session, game.id, game.current_turn, position, verdict)
        if done >= cap:
            raise _Refused(
                f"player {position} has had {cap} {what} this turn, the most a player may",
                f"try again after the turn {game.current_turn} deadline",
            )

    def _welcome(self, game: Game, position: int) -> OutboxMessage | None:
        for message in repo.outbox(self.session, game.id):
            if message.kind == "welcome" and message.position == position:
                return message
        return None

    def _contact(self, command: _Command, game: Game, player: Player) -> IngestOutcome:
        """CONTACT: agree to show the e-mail address to the other players, or
        withdraw (3.1, 9.2); from the next report on."""
        choice = command.flags & {"share", "withhold"}
        if len(choice) != 1:
            raise _Refused(
                "CONTACT needs one of share or withhold",
                f"write it as: CONTACT game: {game.name} player: {player.position} "
                "secret: YOUR-SECRET share",
            )
        player.share_email = choice == {"share"}
        repo.log_action(
            self.session,
            game_id=game.id,
            turn=game.current_turn,
            action="contact_consent",
            now=self.received_at,
            details={"position": player.position, "share_email": player.share_email},
        )
        if player.share_email:
            said = f"the other players' reports show your address {player.email}"
        else:
            said = "the other players' reports do not show your e-mail address"
        if game.anonymous:
            said += " (this game is anonymous: only a spy would see it)"
        self._reply(
            f"[{game.name}] OK: contact details",
            f"OK: from the next report on, {said}.\n",
            game=game,
            position=player.position,
        )
        detail = f"CONTACT: player {player.position} share_email={player.share_email}"
        return self._settle("contact", detail, answered=True, game=game, position=player.position)

    def _press(self, command: _Command, game: Game, player: Player) -> IngestOutcome:
        """PRESS: an announcement for the next report's news (9.1)."""
        if game.status != "active":
            raise _Refused(f"game {game.name} is {game.status}; it prints no more news")
        self._within_turn_cap("press", game, player.position, PRESS_PER_TURN, "announcements")
        text = neutralised("\n".join(clean(line) for line in command.body).strip())
        if not text:
            raise _Refused(
                "the announcement is empty", "write it on the lines after the PRESS line"
            )
        if len(text) > MAX_ANNOUNCEMENT_CHARS:
            raise _Refused(
                f"the announcement has {len(text)} characters; at most "
                f"{MAX_ANNOUNCEMENT_CHARS} are printed",
                "shorten it",
            )
        from turnproc.families.continental_rails.engine.events import Announcement

        anonymous = "anonymous" in command.flags or game.anonymous
        event = Announcement(
            position=None if anonymous else player.position, text=text, anonymous=anonymous
        )
        repo.add_events(self.session, game.id, game.current_turn, [event], origin="moderator")
        repo.log_action(
            self.session,
            game_id=game.id,
            turn=game.current_turn,
            action="announcement",
            now=self.received_at,
            details={
                "position": player.position,
                "anonymous": anonymous,
                "submission": self.submission_id,
            },
        )
        who = "anonymously" if anonymous else f"as {player.character} (#{player.position})"
        reply = (
            f"OK: your announcement will be printed in the turn {game.current_turn} report, "
            f"{who}:\n\n" + "\n".join(f"  {line}" for line in text.splitlines()) + "\n"
        )
        self._reply(
            f"[{game.name}] OK: announcement for the turn {game.current_turn} report",
            reply,
            game=game,
            position=player.position,
        )
        detail = f"PRESS: announcement from player {player.position} for turn {game.current_turn}"
        return self._settle("press", detail, answered=True, game=game, position=player.position)


def _has_turnsheet(text: str) -> bool:
    """Whether `text` holds a turnsheet header line (complete or not)."""
    try:
        probe = parse_turnsheet(text, Vocabulary(kinds={}, numbers={}))
    except SheetTooLarge:
        return "turnsheet" in text.lower()  # the intake refuses it with the reason
    return probe.header is not None or any(error.line_no > 0 for error in probe.errors)


def _command(text: str, subject: str) -> _Command | None:
    """The command on the first written line of the body, or in the subject."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for index, line in enumerate(lines):
        if line.strip():
            found = _make_command(line, _body(lines[index + 1 :]))
            if found is not None:
                return found
            break
    return _make_command(_REPLY_PREFIX_RE.sub("", subject), _body(lines))


def _make_command(line: str, body: list[str]) -> _Command | None:
    """The command `line` holds, if it is one. To keep ordinary mail ("Help me
    with...", "Press release") from being taken for a command and answered, HELP
    must stand alone and RESEND/PRESS must name at least two of game, player and
    secret, as a turnsheet's header line does."""
    match = _COMMAND_RE.match(line)
    if match is None:
        return None
    name = match.group(1).lower()
    rest = match.group(2)
    fields: dict[str, str] = {}
    for field in _FIELD_RE.finditer(rest):
        key = field.group(1).lower()
        key = {"position": "player", "pos": "player", "password": "secret"}.get(key, key)
        fields.setdefault(key, field.group(2))
    if name in ("help", "rules"):
        return _Command(name, {}, set(), body) if not rest.strip(" .!?") else None
    if name == "standby":
        words = {word.lower().strip(".,;!") for word in rest.split()}
        return _Command("standby", fields, words, body) if "game" in fields else None
    if len(fields.keys() & {"game", "player", "secret"}) < 2:
        return None
    flags = {word.lower() for word in rest.split()}
    return _Command("press" if name.startswith("announce") else name, fields, flags, body)


def _body(lines: list[str]) -> list[str]:
    """The lines a command carries: up to END, a signature or quoted text."""
    kept: list[str] = []
    for line in lines:
        stripped = line.strip()
        if _END_RE.match(stripped) or stripped == "--" or stripped.startswith(">"):
            break
        if _WROTE_RE.match(stripped):
            break
        kept.append(line.rstrip())
    return kept
