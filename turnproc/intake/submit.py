"""Receiving one turnsheet: `submit_sheet(session, game, raw, sender, received_at)`.

The one entry point the command line (`turnproc orders submit`) and the mail
intake share. It records every submission (with its verdict and receipt),
puts a valid sheet's orders in force and never changes anything else:

- duplicate Message-ID: processed once; a repeat gets no new answer;
- unreadable message, no turnsheet, wrong game, unknown player, wrong
  secret, a sender address not registered for the player, an older or later
  turn, a game not running, a sheet after the deadline: REFUSED, recorded,
  nothing changes;
- a sheet for a turn that has run, which arrived before that turn closed
  (read late: a mail server held it): DELAYED, recorded, nothing changes;
  `mail retry` applies it once the turn is rolled back;
- any line with an error: ERRORS, recorded, the orders in force stay as they
  were (all-or-nothing: see docs/turnsheet.md for why);
- otherwise: OK, and the sheet's orders replace those in force.

Repeated refusals from one sender or for one position are rate-limited
(`auth.failure_decision`): the outcome says whether to answer and whether
to tell the moderator. The caller owns the transaction and sends the receipt.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError
from turnproc.core.sheet_errors import TurnsheetError
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.turnsheet.check import Evaluation, evaluate
from turnproc.families.continental_rails.turnsheet.language import format_order, parse_turnsheet
from turnproc.families.continental_rails.turnsheet.receipt import (
    InForce,
    Receipt,
    ReceiptFacts,
    Verdict,
    build_receipt,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.intake.auth import FAILURE_WINDOW, failure_decision
from turnproc.intake.extract import MessageMeta, looks_like_email, message_meta, sheet_text
from turnproc.intake.secret import secret_problem, secret_used_elsewhere
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario
from turnproc.store import mapping
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player, Submission


@dataclass(frozen=True)
class SubmitOutcome:
    """What happened to one submission, and what to send back."""

    verdict: Verdict
    receipt: Receipt
    game_id: int | None
    turn: int | None
    position: int | None
    submission_id: int | None
    message_id: str | None
    reply_to: str | None  # where the receipt goes (None: nowhere known)
    answer: bool  # False: rate-limited or a duplicate: record only, send nothing
    notify_moderator: bool

    @property
    def accepted(self) -> bool:
        return self.verdict == "accepted"

    @property
    def exit_code(self) -> int:
        return 0 if self.accepted else 1


def _shown(text: str) -> str:
    """A sender's text quoted in a reply: short, one line, printable."""
    short = " ".join(text.split())[:40]
    return repr(short if len(text) <= 40 else short + "...")


@cache
def _scenario(name: str) -> Scenario:
    return load_scenario(name)


class _Refusal(Exception):
    """Internal: stop and refuse with `reason` (one line) and a hint."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


def submit_sheet(
    session: Session,
    game: str | int | None,
    raw: bytes | str,
    sender: str | None,
    received_at: datetime,
    submission_id: int | None = None,
) -> SubmitOutcome:
    """Receive one turnsheet: a whole raw email or just the sheet's text.

    `game` is the game it was sent to (id or name), or None to take it from
    the sheet's header (mail to a shared address). `sender` is the address it
    came from, if known; a raw email's From is used when `sender` is None. A
    sheet given without any sender (the moderator typing it in) skips the
    sender check. `submission_id` names a row the mail intake already stored
    for this raw message (turnproc/mail/inbound.py): the verdict and receipt
    go into that row instead of a new one.
    """
    data = raw.encode("utf-8", errors="replace") if isinstance(raw, str) else raw
    meta = (
        message_meta(data)
        if looks_like_email(data)
        else MessageMeta(message_id=None, sender="", subject="", reply_to=None)
    )
    # Column sizes of the submissions table: a hostile header must not break the insert.
    address = (sender or meta.sender or "").strip().lower()[:254]
    message_id = meta.message_id[:998] if meta.message_id else None
    if message_id is not None and submission_id is None:
        seen = repo.submission_by_message_id(session, message_id)
        if seen is not None:
            name = repo.get_game(session, seen.game_id).name if seen.game_id else "?"
            return _duplicate(
                seen.receipt, name, seen.game_id, seen.turn, seen.position, message_id
            )
    intake = _Intake(session, data, address, message_id, received_at, submission_id)
    try:
        if not address and (submission_id is not None or looks_like_email(data)):
            # An address check skipped is a secret check alone: refuse instead.
            raise _Refusal(
                "the mail has no usable sender address (From)",
                "send the turnsheet from the address you registered; the moderator can "
                "submit a sheet by hand with `turnproc orders submit --sender`",
            )
        return intake.run(game)
    except _Refusal as refusal:
        return intake.refuse(refusal.reason, refusal.hint)


def _duplicate(
    stored: str,
    game: str,
    game_id: int | None,
    turn: int | None,
    position: int | None,
    message_id: str,
) -> SubmitOutcome:
    facts = ReceiptFacts(verdict="duplicate", game=game, turn=turn, position=position)
    receipt = build_receipt(facts)
    text = receipt.text + ("\nThe receipt sent the first time:\n\n" + stored if stored else "")
    return SubmitOutcome(
        verdict="duplicate",
        receipt=Receipt("duplicate", receipt.subject, text),
        game_id=game_id,
        turn=turn,
        position=position,
        submission_id=None,
        message_id=message_id,
        reply_to=None,
        answer=False,
        notify_moderator=False,
    )


class _Intake:
    """One submission on its way through the checks."""

    def __init__(
        self,
        session: Session,
        data: bytes,
        sender: str,
        message_id: str | None,
        received_at: datetime,
        submission_id: int | None = None,
    ) -> None:
        self.session = session
        self.data = data
        self.sender = sender
        self.message_id = message_id
        self.received_at = received_at
        self.text = ""
        self.game: Game | None = None
        self.position: int | None = None
        self.player: Player | None = None
        self.submission_id = submission_id

    def run(self, game_key: str | int | None) -> SubmitOutcome:
        try:
            self.text = sheet_text(self.data)
            self.game = self._game(game_key if game_key is not None else self._header_game())
            state, scenario = self._state()
            evaluation = evaluate(
                self.text, state, scenario, prefer=self._senders_positions(self.game.id)
            )
        except TurnsheetError as exc:
            raise _Refusal(exc.message, exc.hint) from None
        header = evaluation.sheet.header
        if header is None:
            first = evaluation.sheet.errors[0] if evaluation.sheet.errors else None
            raise _Refusal(
                first.message if first else "no turnsheet found", first.hint if first else ""
            )
        self._authenticate(header.game, header.position, header.secret)
        delayed = self._delayed(header.turn, evaluation)
        if delayed is not None:
            return delayed
        self._check_turn(header.turn)
        return self._decide(evaluation, state)

    def _senders_positions(self, game_id: int | None = None) -> frozenset[int]:
        """The positions the sender plays (in one game, or in any)."""
        if not self.sender:
            return frozenset()
        return frozenset(
            p.position
            for p in repo.players_by_email(self.session, self.sender)
            if game_id is None or p.game_id == game_id
        )

    def _header_game(self) -> str:
        """The game named in the sheet's header (mail sent to a shared address)."""
        probe = parse_turnsheet(
            self.text, Vocabulary(kinds={}, numbers={}), self._senders_positions()
        )
        if probe.header is None:
            first = probe.errors[0] if probe.errors else None
            raise _Refusal(
                first.message if first else "no turnsheet found", first.hint if first else ""
            )
        return probe.header.game

    # --- the checks, in order --------------------------------------------------

    def _game(self, key: str | int) -> Game:
        """The game, its row locked until the transaction ends: a turn run
        holds the same lock, so a sheet is either in force for the turn that
        runs or checked against the turn after it (refused as late), never
        both (on PostgreSQL a row lock; SQLite has one writer at a time)."""
        game = repo.find_game(self.session, str(key), lock=True)
        if game is None:
            raise _Refusal(
                f"there is no game {_shown(str(key))}",
                "write the game's name as on your turnsheet",
            )
        return game

    def _state(self) -> tuple[GameState, Scenario]:
        assert self.game is not None
        row = repo.turn_state(self.session, self.game.id, self.game.current_turn)
        return mapping.state_from_json(row.state), _scenario(self.game.scenario)

    def _authenticate(self, game_name: str, position: int, secret: str) -> None:
        game = self.game
        assert game is not None
        if game_name.casefold() not in (game.name.casefold(), str(game.id)):
            raise _Refusal(
                f"this sheet is for game {game_name!r}, not {game.name!r}",
                "send each game's sheet to that game",
            )
        try:
            player = repo.get_player(self.session, game.id, position)
        except TurnprocError:
            raise _Refusal(f"game {game.name} has no player {position}") from None
        self.position = position
        self.player = player
        if not player.secret_hash or not player.human:
            raise _Refusal(
                f"player {position} of {game.name} is not registered to a person",
                "ask the moderator to assign you a position",
            )
        if self.sender and (player.email or "").strip().lower() != self.sender:
            secret_used_elsewhere(self.session, game, player, secret, self.sender, self.received_at)
            raise _Refusal(
                f"{self.sender} is not the registered address of player {position}",
                "send your turnsheet from the address you registered, or ask the moderator "
                "to change it",
            )
        problem = secret_problem(player, secret)
        if problem is not None:
            raise _Refusal(
                problem, "copy the secret from your welcome mail; it is not case-sensitive"
            )

    def _check_turn(self, turn: int) -> None:
        game = self.game
        assert game is not None
        if game.status != "active":
            raise _Refusal(f"game {game.name} is {game.status}; it takes no turnsheets")
        if turn < game.current_turn:
            raise _Refusal(
                f"this sheet is for turn {turn}, but the game is at turn {game.current_turn}",
                "use the turnsheet of your latest report",
            )
        if turn > game.current_turn:
            raise _Refusal(f"turn {turn} has not begun; the game is at turn {game.current_turn}")
        if game.deadline is not None:
            closes = game.deadline + timedelta(minutes=game.grace_minutes or 0)
            if self.received_at > closes:
                raise _Refusal(
                    f"the deadline of turn {turn} passed at {closes:%Y-%m-%d %H:%M} UTC",
                    "the turn is being processed; your next report will come soon",
                )

    # --- verdicts ------------------------------------------------------------------

    def _delayed(self, turn: int, evaluation: Evaluation) -> SubmitOutcome | None:
        """A sheet for a turn that has run, which arrived before that turn took
        its last sheet: the mail reached us late (held by a mail server, read
        behind a flood). It is kept with verdict `delayed`, the player told,
        and logged once; after `turn rollback` to its turn, `mail retry`
        applies it (docs/mail.md, Late delivery). None: not such a sheet."""
        game, position = self.game, self.position
        assert game is not None and position is not None
        if turn >= game.current_turn:
            return None
        times = repo.turn_run_times(self.session, game.id, turn)
        if times is None or self.received_at > times[0]:
            return None
        closed, ran = times
        row = self._record(
            verdict="delayed",
            game_id=game.id,
            turn=turn,
            position=position,
        )
        if row is None:  # the same Message-ID arrived meanwhile
            return _duplicate("", game.name, game.id, turn, position, self.message_id or "")
        facts = ReceiptFacts(
            verdict="delayed",
            game=game.name,
            turn=turn,
            position=position,
            character=self.player.character if self.player else "",
            received_at=self.received_at,
            message_id=self.message_id,
            sheet=evaluation.sheet,
            closed_at=closed,
            ran_at=ran,
        )
        receipt = build_receipt(facts)
        repo.set_receipt(self.session, row.id, "delayed", receipt.text)
        reason = (
            f"submission #{row.id} of player {position} for turn {turn} arrived "
            f"{self.received_at:%Y-%m-%d %H:%M:%S} UTC, before the turn closed "
            f"({closed:%Y-%m-%d %H:%M:%S} UTC), and was read after it ran "
            f"({ran:%Y-%m-%d %H:%M:%S} UTC)"
        )
        if not repo.logged_before(self.session, "sheet_delayed", game.id, reason):
            repo.log_action(
                self.session,
                game_id=game.id,
                turn=turn,
                action="sheet_delayed",
                reason=reason,
                now=self.received_at,
                details={"submission": row.id, "position": position, "sender": self.sender},
            )
        player = self.player
        return SubmitOutcome(
            verdict="delayed",
            receipt=receipt,
            game_id=game.id,
            turn=turn,
            position=position,
            submission_id=row.id,
            message_id=self.message_id,
            reply_to=(player.email if player and player.email else self.sender) or None,
            answer=True,
            notify_moderator=False,
        )

    def _decide(self, evaluation: Evaluation, state: GameState) -> SubmitOutcome:
        game, position = self.game, self.position
        assert game is not None and position is not None
        sheet = evaluation.sheet
        verdict: Verdict = "accepted" if not evaluation.errors else "errors"
        row = self._record(
            verdict=verdict,
            game_id=game.id,
            turn=game.current_turn,
            position=position,
        )
        if row is None:  # the same Message-ID arrived meanwhile
            return _duplicate(
                "", game.name, game.id, game.current_turn, position, self.message_id or ""
            )
        later = self._arrived_later()
        if verdict == "accepted" and not later:
            orders = PlayerOrders(position=position, orders=sheet.orders.orders, source="player")
            repo.set_orders_in_force(
                self.session,
                game.id,
                game.current_turn,
                orders,
                self.received_at,
                submission_id=row.id,
                source="player",
            )
        check = evaluation.check
        facts = ReceiptFacts(
            verdict=verdict,
            game=game.name,
            turn=game.current_turn,
            position=position,
            character=state.tycoon(position).character,
            received_at=self.received_at,
            message_id=self.message_id,
            sheet=sheet,
            errors=evaluation.errors,
            notes=evaluation.notes,
            in_force=self._in_force(),
            arrived_later=later,
            preview=check.preview if check else None,
            railroads=check.railroads if check else {},
            deadline=game.deadline,
            now=self.received_at,
        )
        receipt = build_receipt(facts)
        repo.set_receipt(self.session, row.id, verdict, receipt.text)
        player = self.player
        return SubmitOutcome(
            verdict=verdict,
            receipt=receipt,
            game_id=game.id,
            turn=game.current_turn,
            position=position,
            submission_id=row.id,
            message_id=self.message_id,
            reply_to=(player.email if player and player.email else self.sender) or None,
            answer=True,
            notify_moderator=False,
        )

    def _record(self, **fields: Any) -> Submission | None:
        """Store the verdict with this sheet's arrival, sender and text: in the
        row the mail intake stored, or in a new one."""
        fields.update(
            received_at=self.received_at,
            message_id=self.message_id,
            sender=self.sender,
            raw=self.data,
            text=self.text,
        )
        if self.submission_id is None:
            return repo.record_submission(self.session, **fields)
        for stored in ("received_at", "message_id", "raw"):
            fields.pop(stored, None)
        return repo.update_submission(self.session, self.submission_id, **fields)

    def _arrived_later(self) -> str:
        """The sheet in force, if it arrived after this one (else ""): the sheet
        that arrived last is in force, whatever the order in which they are
        read (an older message retried, or read late behind a flood)."""
        game, position = self.game, self.position
        assert game is not None and position is not None
        row = repo.orders_row(self.session, game.id, game.current_turn, position)
        if row is None or row.source == "computer" or row.recorded_at <= self.received_at:
            return ""
        when = row.recorded_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        if row.submission_id is not None:
            return f"submission #{row.submission_id} (received {when})"
        return f"the {row.source} orders recorded {when}"

    def _in_force(self) -> InForce | None:
        game, position = self.game, self.position
        if game is None or position is None:
            return None
        row = repo.orders_row(self.session, game.id, game.current_turn, position)
        if row is None:
            return None
        orders = PlayerOrders.model_validate_json(row.orders)
        when = row.recorded_at.strftime("%Y-%m-%d %H:%M UTC")
        if row.submission_id is not None:
            source = f"submission #{row.submission_id}, received {when}"
        else:
            source = f"{row.source} orders recorded {when}"
        return InForce(lines=[format_order(order) for order in orders.orders], source=source)

    def refuse(self, reason: str, hint: str) -> SubmitOutcome:
        """Record a refused submission; nothing else changes."""
        game = self.game
        turn = game.current_turn if game else None
        decision = failure_decision(self._earlier_failures(), self.received_at)
        facts = ReceiptFacts(
            verdict="refused",
            game=game.name if game else "?",
            turn=turn,
            position=self.position,
            received_at=self.received_at,
            message_id=self.message_id,
            refusal=reason,
            hint=hint,
            in_force=self._in_force() if self._senders_own() else None,
            in_force_withheld=self.player is not None and not self._senders_own(),
        )
        receipt = build_receipt(facts)
        row = self._record(
            verdict="refused",
            game_id=game.id if game else None,
            turn=turn,
            position=self.position,
            receipt=receipt.text,
        )
        return SubmitOutcome(
            verdict="refused",
            receipt=receipt,
            game_id=game.id if game else None,
            turn=turn,
            position=self.position,
            submission_id=row.id if row else None,
            message_id=self.message_id,
            reply_to=self.sender or None,
            answer=decision.answer and bool(self.sender) and not self._stranger_without_game(),
            notify_moderator=decision.report_to_moderator,
        )

    def _senders_own(self) -> bool:
        """Whether the position named is the sender's (or the moderator's, with
        no sender): only then may a refusal show the orders in force."""
        player = self.player
        return player is not None and (
            not self.sender or (player.email or "").strip().lower() == self.sender
        )

    def _stranger_without_game(self) -> bool:
        """A sheet naming no real game from an address no player registered:
        forged senders must not be sent refusals about made-up games."""
        return self.game is None and not repo.players_by_email(self.session, self.sender)

    def _earlier_failures(self) -> list[datetime]:
        """The sender's recent refusals: the sender is throttled, never the
        position it names (a stranger must not silence the player). Guessing
        a position's secret is answered by its strength (intake/secret.py)."""
        if not self.sender:
            return []
        return repo.recent_refusals(
            self.session, since=self.received_at - FAILURE_WINDOW, sender=self.sender
        )
