"""Turn runs: one database transaction per turn.

Load the state at the start of the turn, gather the orders in force and
orders for every position without them (computer players, or the game's
missed-turn policy), resolve the turn, check the sanity gates, store the
new state with its events, rejections, ledger and standings, render one
report per position and queue the mail. Anything failing leaves the game
untouched; mail is sent later, from the outbox, after the commit. Also:
due games claimed by many workers, rollback and rerun.
"""

import difflib
import hashlib
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, NoReturn

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.families.registry import family_of
from turnproc.pipeline.games import add_game_records, adjust, rebuild_game_records
from turnproc.pipeline.players import _apply_missed_turn_policy, follow_character_names
from turnproc.pipeline.reports import (
    _queue_reports,
    _report_input,
    _store_reports,
    _stored,
    mailed_positions,
    start_reports,
)
from turnproc.pipeline.reruns import RERUN_LOG, rerun_reason
from turnproc.pipeline.schedule import _when, due_and_held, is_due, queue_reminders, utcnow
from turnproc.pipeline.stored import PROGRAM_VERSION, scenario_for
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.store.models import Game, Player


class NotDue(TurnprocError):
    """The turn's deadline has not passed and not every human player is in."""


class SanityGateError(TurnprocError):
    """The resolved turn broke a conservation check; nothing was stored."""


class EngineFailure(TurnprocError):
    """The rules engine raised while resolving a turn (a bug); nothing was stored.
    `details` keeps the traceback for the moderator's log."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message)
        self.details = details


def computer_orders_for(scenario: Scenario, state: Any, position: int) -> Any:
    """Orders for a position nobody played this turn (the family's computer players)."""
    orders = family_of(scenario).computer_orders(scenario, state, position)
    return orders.model_copy(update={"source": "computer"})


@dataclass
class TurnOutcome:
    """What `run_turn` did (or, for a preview, would do)."""

    game: str
    game_id: int
    turn: int
    processed: bool
    preview: bool = False
    message: str = ""
    missed: list[int] = field(default_factory=list)
    computer: list[int] = field(default_factory=list)
    events: int = 0
    rejections: int = 0
    ledger_entries: int = 0
    problems: list[str] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)
    export_sha256: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    # A preview's orders that would be refused or cut, by position, in words.
    refused: dict[int, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def _timed(timings: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timings[name] = round(timings.get(name, 0.0) + time.perf_counter() - start, 4)


def run_turn(
    session: Session,
    game_key: str | int,
    *,
    now: datetime,
    force: bool = False,
    preview: bool = False,
    expected_turn: int | None = None,
    game: Game | None = None,
    accept_missing: bool = False,
    next_deadline: datetime | None = None,
    closed_at: datetime | None = None,
) -> TurnOutcome:
    """Resolve the game's current turn inside the caller's transaction.

    Runs only when the turn is due (or `force`); with `expected_turn`, a game
    already past that turn is left alone, so repeating a run is harmless.
    `preview` resolves and reports but writes nothing. `accept_missing` runs a
    turn the missing-orders gate would hold (see `missing_orders_problem`).
    `next_deadline` is the next turn's deadline (default: `now` plus the
    game's turn days); the reports print it. `closed_at`: when the turn took
    its last sheet (default: its deadline plus grace, or `now` if earlier),
    logged so that a sheet that arrived by then but is read after the run is
    known as delayed, not late (intake/submit.py).
    """
    timings: dict[str, float] = {}
    with _timed(timings, "load"):
        if game is None:
            game = repository.get_game(session, game_key, lock=not preview)
        turn = game.current_turn
        if expected_turn is not None and turn != expected_turn:
            if turn > expected_turn:
                return TurnOutcome(
                    game.name,
                    game.id,
                    expected_turn,
                    processed=False,
                    message=f"turn {expected_turn} was already processed; "
                    f"{game.name} is at turn {turn}",
                )
            raise TurnprocError(f"{game.name} is at turn {turn}, not {expected_turn}")
        if game.status != "active":
            raise TurnprocError(f"{game.name} is {game.status}; no turn to run")
        if not (force or preview or is_due(session, game, now)):
            raise NotDue(
                f"{game.name} turn {turn} is not due until {_when(game.deadline)} "
                "(--force runs it now, --preview shows it)"
            )
        scenario = scenario_for(game.scenario)
        state = mapping.state_from_json(repository.turn_state(session, game.id, turn).state)
        orders = repository.orders_in_force(session, game.id, turn)
        players = {p.position: p for p in repository.players(session, game.id)}
    computer: list[int] = []
    missed: list[int] = []
    with _timed(timings, "computer_orders"):
        for tycoon in state.tycoons:
            if tycoon.position in orders:
                continue
            computer.append(tycoon.position)
            player = players.get(tycoon.position)
            if player is None or not player.human:
                orders[tycoon.position] = computer_orders_for(scenario, state, tycoon.position)
                continue
            # A position offered to standby players is still its player's: he
            # missed the turn (his report says so), and the computer plays it
            # until a standby player takes it (docs/turnsheet.md).
            missed.append(tycoon.position)
            if player.standby:
                orders[tycoon.position] = computer_orders_for(scenario, state, tycoon.position)
            else:
                orders[tycoon.position] = _missed_turn_orders(
                    session, game, scenario, state, tycoon.position
                )
    in_order = {position: orders[position] for position in sorted(orders)}
    with _timed(timings, "resolve"):
        try:
            result = family_of(scenario).resolve_turn(scenario, state, in_order)
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [""])[0]
            raise EngineFailure(
                f"{game.name} turn {turn}: the rules engine failed "
                f"({type(exc).__name__}: {first}); nothing stored",
                traceback.format_exc(),
            ) from exc
    with _timed(timings, "gates"):
        problems = family_of(scenario).turn_problems(state, result.state, result.ledger)
        if not accept_missing:
            held = missing_orders_problem(session, game, players, missed)
            if held:
                problems.append(held)
    if problems and not preview:
        _refuse(game, turn, problems)  # before the reports: nothing will be stored
    moderator_events = repository.events(session, game.id, turn, origin="moderator")
    replaces = rerun_reason(repository.log_entries_of(session, game.id, RERUN_LOG), turn)
    with _timed(timings, "render"):
        report_input = _report_input(
            session,
            game,
            scenario,
            state,
            result.state,
            moderator_events + list(result.events),
            result.rejections,
            result.ledger,
            turn=turn,
            deadline=_when(next_deadline or now + timedelta(days=game.turn_days)),
            stood_in={position: orders[position] for position in missed},
            replaces=replaces,
        )
        pending = start_reports(report_input)
    new_json = mapping.state_json(result.state)
    outcome = TurnOutcome(
        game=game.name,
        game_id=game.id,
        turn=turn,
        processed=not preview,
        preview=preview,
        missed=missed,
        computer=computer,
        events=len(result.events),
        rejections=len(result.rejections),
        ledger_entries=len(result.ledger),
        problems=problems,
        standings=mapping.standings_rows(result.state, scenario),
        export_sha256=hashlib.sha256(mapping.export_state(new_json).encode()).hexdigest(),
        timings=timings,
    )
    try:
        if not preview and not problems:
            # While the reports render: the turn's state and records. A refusal
            # below raises, and the caller's transaction rolls all of it back.
            with _timed(timings, "store"):
                repository.add_turn_state(
                    session, game.id, turn + 1, new_json, PROGRAM_VERSION, now
                )
                repository.replace_standings(session, game.id, turn + 1, outcome.standings)
                repository.add_events(session, game.id, turn, result.events, origin="turn")
                repository.add_rejections(session, game.id, turn, result.rejections)
                repository.add_ledger(session, game.id, turn, result.ledger, origin="turn")
                repository.add_computer_orders(
                    session, game.id, turn, [in_order[position] for position in computer], now
                )
                session.flush()
        with _timed(timings, "render"):
            stored = _stored(pending.result(), pending.finished())
    finally:
        pending.close()
    expected_positions = {t.position for t in result.state.tycoons}
    if set(stored) != expected_positions:
        problems.append(
            f"reports rendered for {len(stored)} positions, expected {len(expected_positions)}"
        )
    if preview:
        outcome.refused = {
            position: [f"{note.text} {note.hint}" for note in notes]
            for position in sorted({r.position for r in result.rejections})
            if (notes := family_of(scenario).order_notes(result.rejections, position))
        }
        outcome.message = f"preview of {game.name} turn {turn}: nothing stored"
        return outcome
    if problems:
        _refuse(game, turn, problems)
    with _timed(timings, "store"):
        report_ids = _store_reports(
            session, game.id, turn, stored, report_input.deadline, mailed_positions(players)
        )
        _queue_reports(session, game, turn, players, stored, report_ids, now)
        closes = closed_at or _closing(game, now)
        game.current_turn = turn + 1
        follow_character_names(list(players.values()), family_of(scenario), result.state)
        game.deadline = next_deadline or now + timedelta(days=game.turn_days)
        worker = game.claimed_by  # None: run by hand
        game.claimed_by = None
        game.claimed_at = None
        if result.state.ended:
            game.status = "ended"
            add_game_records(session, scenario, result.state)
        else:
            _apply_missed_turn_policy(session, game, turn, players, computer, now)
        repository.refresh_all_in(session, game.id, now)
        repository.log_action(
            session,
            game_id=game.id,
            turn=turn,
            action="turn_run",
            now=now,
            details={
                "program_version": PROGRAM_VERSION,
                "worker": worker,
                "computer": computer,
                "missed": missed,
                "events": len(result.events),
                "export_sha256": outcome.export_sha256,
                "replaces": replaces,
                "closed_at": closes.isoformat(),
            },
        )
        session.flush()
    outcome.message = f"{game.name} turn {turn} processed; now at turn {turn + 1}"
    return outcome


def _closing(game: Game, now: datetime) -> datetime:
    """When a turn run at `now` took its last sheet: the deadline plus the
    game's grace, or `now` for a turn run before then (or without a deadline)."""
    if game.deadline is None:
        return now
    return min(game.deadline + timedelta(minutes=game.grace_minutes or 0), now)


def _refuse(game: Game, turn: int, problems: list[str]) -> NoReturn:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise SanityGateError(
        f"{game.name} turn {turn} refused by the sanity gate: {problems[0]}{more}"
    )


def _missed_turn_orders(
    session: Session, game: Game, scenario: Scenario, state: Any, position: int
) -> Any:
    """The orders of a human player's position with none in force, by the game's
    missed-turn policy: `computer` plays it, `idle` gives no orders ("civil
    disorder"), `standing` repeats the orders the player last sent (checked
    again like any orders; the computer plays it if the player never sent any)."""
    if game.missed_turn_policy == "idle":
        return family_of(scenario).idle_orders(position)
    if game.missed_turn_policy == "standing":
        last = repository.last_player_orders(session, game.id, position, before=game.current_turn)
        if last is not None:
            return last.model_copy(update={"source": "standing"})
    return computer_orders_for(scenario, state, position)


# The missing-orders gate: at least this many human players without orders...
MISSING_GATE_MINIMUM = 3


# ... and this many more than the most missing in any of the last few turns.
MISSING_GATE_MARGIN = 2


MISSING_GATE_TURNS = 4


def missing_orders_problem(
    session: Session, game: Game, players: dict[int, Player], missed: list[int]
) -> str:
    """pbem 8: more players missing than usual suggests lost mail, not lost
    interest. The turn is held when at least 3 human players, more than half of
    them, and at least 2 more than in any of the last 4 turns, have no orders in
    force. Positions offered to standby players count among both (they miss
    every turn until taken, in the last turns too). Returns the problem, or ""
    when the turn may run."""
    humans = [p for p in players.values() if p.human]
    usual = max(repository.recent_missed_counts(session, game.id, MISSING_GATE_TURNS), default=0)
    count = len(missed)
    if count < MISSING_GATE_MINIMUM or 2 * count <= len(humans):
        return ""
    if count < usual + MISSING_GATE_MARGIN:
        return ""
    return (
        f"{count} of {len(humans)} human players have no orders in force "
        f"(at most {usual} in the last turns): is mail arriving? Check the intake "
        "(turnproc mail ingest) or extend the deadline (turnproc game schedule); "
        "turn run --accept-missing runs the turn anyway"
    )


def batch_turn(engine: Engine, game_key: str | int, now: datetime | None = None) -> TurnOutcome:
    """One whole batch turn in its own transaction (for `turnproc bench`):
    load, resolve, gate, store, render and queue mail, then commit."""
    start = time.perf_counter()
    with transaction(engine) as session:
        outcome = run_turn(session, game_key, now=now or utcnow(), force=True)
    outcome.timings["total"] = round(time.perf_counter() - start, 4)
    return outcome


def run_due(
    engine: Engine,
    worker: str,
    now: Callable[[], datetime] = utcnow,
    on_game: Callable[[str, TurnOutcome | None, str], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    moderator: str | None = None,
    due_by: datetime | None = None,
    grace: timedelta = timedelta(0),
) -> list[TurnOutcome]:
    """Process every due game once. Each game is claimed with a row lock
    (SKIP LOCKED on PostgreSQL) and checked to be still at the turn seen, so
    several workers on several machines never process a turn twice.
    `on_game(name, outcome, error)` follows progress: outcome None with an
    empty error means another worker took the game. A turn refused (a sanity
    gate, a failing engine) is logged and mailed to `moderator` once, however
    often the run is repeated. `due_by`: only games due by then (the moment
    up to which the mailbox was read first); default now. `grace`: a game
    past its deadline waits that much longer (`due_and_held`)."""
    with transaction(engine) as session:
        queue_reminders(session, now())
        due, _held = due_and_held(session, due_by or now(), grace)
    if on_start is not None:
        on_start(len(due))
    outcomes: list[TurnOutcome] = []
    for game_id, turn, name in due:
        outcome: TurnOutcome | None = None
        note = ""
        try:
            with transaction(engine) as session:
                game = repository.claim_game(session, game_id, turn, worker, now())
                if game is not None:  # None: another worker has it, or has done it
                    outcome = run_turn(session, game_id, now=now(), force=True, game=game)
        except TurnprocError as exc:
            note = str(exc)
            with transaction(engine) as session:
                _report_refusal(session, game_id, turn, exc, now(), moderator)
        if outcome is not None:
            outcomes.append(outcome)
        if on_game is not None:
            on_game(name, outcome, note)
    return outcomes


def _report_refusal(
    session: Session,
    game_id: int,
    turn: int,
    exc: TurnprocError,
    now: datetime,
    moderator: str | None,
) -> None:
    """Log a refused turn and tell the moderator, once for each distinct reason."""
    note = str(exc)
    last = repository.last_log_entry(session, game_id)
    if last is not None and (last.action, last.turn, last.reason) == ("turn_refused", turn, note):
        return  # the same refusal as at the last attempt: logged and mailed already
    repository.log_action(
        session,
        game_id=game_id,
        turn=turn,
        action="turn_refused",
        reason=note,
        now=now,
        details={"traceback": exc.details} if isinstance(exc, EngineFailure) else {},
    )
    if moderator:
        game = repository.get_game(session, game_id)
        digest = hashlib.sha256(note.encode()).hexdigest()[:16]
        repository.queue_mail(
            session,
            key=f"refused/{game_id}/{turn}/{digest}",
            kind="alert",
            to_address=moderator,
            subject=f"[{game.name}] Turn {turn} was not run",
            body=f"{note}\n\nThe game stays at turn {turn} until the moderator acts; "
            f"`turnproc game log {game.name}` has the details.\n",
            now=now,
            game_id=game_id,
            turn=turn,
        )


def rollback(
    session: Session,
    game_key: str | int,
    to_turn: int,
    now: datetime,
    reason: str = "",
    carry_announcements: bool = True,
    action: str = "rollback",
) -> Game:
    """Put the game back at the start of `to_turn`; later turns' results go, the
    players' orders and the raw submissions stay. Adjustments made to later
    turns are undone with them; announcements sent for later reports move to
    the next report (unless `carry_announcements` is False). `reason` is
    logged (as `action`) and printed in the reports of the turns run again."""
    game = repository.get_game(session, game_key, lock=True)
    if to_turn >= game.current_turn:
        raise UsageError(f"{game.name} is at turn {game.current_turn}; --to must be lower")
    if to_turn not in repository.stored_turns(session, game.id):
        raise UsageError(f"{game.name} has no stored turn {to_turn}")
    before = game.current_turn
    family = family_of(scenario_for(game.scenario))
    carried = [
        event
        for turn in range(to_turn + 1, before + 1)
        for event in repository.events(session, game.id, turn, origin="moderator")
        if carry_announcements and family.adjustment_of(event) is None
    ]
    repository.forget_turns_from(session, game.id, to_turn)
    follow_character_names(
        list(repository.players(session, game.id)),
        family,
        mapping.state_from_json(repository.turn_state(session, game.id, to_turn).state),
    )
    repository.add_events(session, game.id, to_turn, carried, origin="moderator")
    game.current_turn = to_turn
    ended, game.status = game.status == "ended", "active"
    if ended:  # its records no longer count until it ends again
        session.flush()
        rebuild_game_records(session)
    repository.refresh_all_in(session, game.id, now)  # the players' orders are kept
    repository.log_action(
        session,
        game_id=game.id,
        turn=to_turn,
        action=action,
        reason=reason,
        now=now,
        details={"from_turn": before, "to_turn": to_turn},
    )
    session.flush()
    return game


@dataclass
class RerunResult:
    game: str
    turn: int
    diff: str
    outcome: TurnOutcome


def rerun(session: Session, game_key: str | int, now: datetime, reason: str = "") -> RerunResult:
    """Roll back the last turn and run it again from the same stored orders,
    then apply again the moderator's adjustments made since; the diff compares
    the exports before and after (empty: nothing changed). `reason` is logged
    and printed in the new reports."""
    game = repository.get_game(session, game_key, lock=True)
    if game.current_turn <= 1:
        raise UsageError(f"{game.name} has not played a turn yet")
    old = mapping.export_state(repository.turn_state(session, game.id, game.current_turn).state)
    turn = game.current_turn - 1
    deadline = game.deadline
    # The turn run again took its sheets until the first run's closing time.
    times = repository.turn_run_times(session, game.id, turn)
    later = repository.events(session, game.id, game.current_turn, origin="moderator")
    mailed = {
        m.position
        for m in repository.outbox(session, game.id, status="sent")
        if m.kind == "report" and m.turn == turn
    }
    rollback(session, game.id, turn, now, reason=reason, carry_announcements=False, action="rerun")
    # The turn was let through once already: the missing-orders gate does not hold it
    # again; the deadline stays the game's (the reports print it).
    outcome = run_turn(
        session,
        game.id,
        now=now,
        force=True,
        game=game,
        accept_missing=True,
        next_deadline=deadline,
        closed_at=times[0] if times else None,
    )
    family = family_of(scenario_for(game.scenario))
    for event in later:
        made = family.adjustment_of(event)
        if made is None:
            repository.add_events(session, game.id, turn + 1, [event], origin="moderator")
        else:
            adjust(
                session,
                game.id,
                reason=made.reason,
                now=now,
                position=made.position,
                railroad=made.railroad,
                cash=made.cash,
                shares=made.shares,
                issued=made.issued,
            )
    new = mapping.export_state(repository.turn_state(session, game.id, turn + 1).state)
    diff = "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"turn-{turn + 1}-before.json",
            tofile=f"turn-{turn + 1}-rerun.json",
        )
    )
    if not diff:
        # Nothing changed: a player who has his report already gets no second one.
        for message in repository.outbox(session, game.id, status="queued"):
            if message.kind == "report" and message.turn == turn and message.position in mailed:
                message.status = "cancelled"
        repository.drop_pdfs_not_mailed(session, game.id, turn)
    return RerunResult(game=game.name, turn=turn, diff=diff, outcome=outcome)
