"""The batch: the only module that crosses layers (store, engine, render, mail).

A turn run is one database transaction: load the state at the start of the
turn, gather the orders in force and computer orders for every position
without them, resolve the turn, check the sanity gates, store the new state
with its events, rejections, ledger and standings, render one report per
position and queue the mail. Anything failing leaves the game untouched.
Sending mail happens later, from the outbox, after the commit.
"""

import csv
import difflib
import hashlib
import json
import secrets
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, NoReturn, Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from turnproc import __version__
from turnproc.core.errors import TurnprocError, UsageError
from turnproc.core.ledger import BANK, LedgerEntry, railroad_account, tycoon_account
from turnproc.cr.events import Event, ModeratorAdjustment, Rejection
from turnproc.cr.orders import PlayerOrders
from turnproc.cr.setup import PlayerSetup
from turnproc.cr.state import GameState
from turnproc.games import family_of
from turnproc.intake.auth import generate_secret, hash_secret, weak_secret
from turnproc.render.report import order_notes
from turnproc.scenario.loader import load_scenario, resolve_path, scenario_names
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.store.models import Game, Player, Report, StandbyPlayer
from turnproc.web.links import mail_footer

PROGRAM_VERSION = __version__


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


def utcnow() -> datetime:
    return datetime.now(UTC)


# --- wiring points: computer players, reports, secrets ------------------------


@cache
def scenario_for(name: str) -> Scenario:
    return load_scenario(name)


def computer_orders_for(scenario: Scenario, state: GameState, position: int) -> PlayerOrders:
    """Orders for a position nobody played this turn (the family's computer players)."""
    orders = family_of(scenario).computer_orders(scenario, state, position)
    return orders.model_copy(update={"source": "computer"})


@dataclass(frozen=True)
class PlayerInfo:
    position: int
    character: str
    real_name: str
    email: str | None
    phone: str
    human: bool
    share_email: bool = False  # 3.1: the player agreed to show his address


@dataclass(frozen=True)
class ReportInput:
    """Everything a report of one turn is made from."""

    scenario: Scenario
    game: str
    turn: int  # the turn whose results the report shows (0: the game's start)
    before: GameState
    after: GameState
    events: list[Event]
    rejections: list[Rejection]
    ledger: list[LedgerEntry]
    players: dict[int, PlayerInfo]
    anonymous: bool
    deadline: str = ""  # when orders for the next turn are due, as printed
    # Orders given for players who sent none (the missed-turn policy), by position.
    stood_in: dict[int, PlayerOrders] = field(default_factory=dict)


@dataclass(frozen=True)
class RenderedReport:
    text: str
    pdf: bytes | None
    json: str


class Reports(Protocol):
    """Reports being rendered (turnproc.render.batch.PendingReports): `result()`
    waits for them, `close()` abandons them."""

    def result(self) -> dict[int, RenderedReport]: ...
    def close(self) -> None: ...


@dataclass
class ReadyReports:
    """Reports rendered before the caller asked."""

    reports: dict[int, RenderedReport]

    def result(self) -> dict[int, RenderedReport]:
        return self.reports

    def close(self) -> None:
        pass


def start_reports(report: ReportInput, positions: Iterable[int] | None = None) -> Reports:
    """Start rendering the reports of `positions` (default: every position): the
    single place the batch calls the family's renderer. The renderer may work
    in other processes while the caller stores the turn."""
    start = family_of(report.scenario).report_renderer()
    wanted = None if positions is None else sorted(positions)
    pending: Reports = start(report, positions=wanted)
    return pending


def render_reports(
    report: ReportInput, positions: Iterable[int] | None = None
) -> dict[int, RenderedReport]:
    """The reports of `positions` (default: every position), rendered now."""
    pending = start_reports(report, positions)
    try:
        return pending.result()
    finally:
        pending.close()


def summary_reports(
    report: ReportInput, positions: Iterable[int] | None = None
) -> dict[int, RenderedReport]:
    """A plain report per position: cash, holdings, visible news and refused orders."""
    wanted = [t.position for t in report.after.tycoons] if positions is None else positions
    return {position: _summary_report(report, position) for position in wanted}


def start_summary_reports(report: ReportInput, positions: Iterable[int] | None = None) -> Reports:
    """`summary_reports` in the shape of `start_reports`."""
    return ReadyReports(summary_reports(report, positions))


def _visible_to(event: Event, position: int) -> bool:
    return event.visibility == "public" or event.position == position


def _summary_report(report: ReportInput, position: int) -> RenderedReport:
    tycoon = report.after.tycoon(position)
    news = [e.model_dump(mode="json") for e in report.events if _visible_to(e, position)]
    refused = [r.model_dump(mode="json") for r in report.rejections if r.position == position]
    data = {
        "game": report.game,
        "turn": report.turn,
        "position": position,
        "tycoon": tycoon.model_dump(mode="json"),
        "news": news,
        "rejections": refused,
    }
    lines = [
        f"{report.game}: turn {report.turn} results for position {position}, {tycoon.character}",
        f"Cash ${tycoon.cash:,}   Bank loan ${tycoon.loan:,}",
        "Holdings: "
        + (", ".join(f"{code} {n}" for code, n in sorted(tycoon.holdings.items())) or "none"),
        f"News items: {len(news)}   Orders refused or cut: {len(refused)}",
    ]
    lines += [f"  {r['code']}: {r['hint']}" for r in refused]
    return RenderedReport(text="\n".join(lines) + "\n", pdf=None, json=mapping.canonical_json(data))


# --- new games ---------------------------------------------------------------


@dataclass(frozen=True)
class PlayerEntry:
    """One line of the players file: position,character,real_name,email,secret."""

    position: int
    email: str
    character: str | None = None
    real_name: str = ""
    secret: str | None = None
    phone: str = ""
    share_email: bool = False  # 3.1: shown to the other players only if agreed


_YES = frozenset({"yes", "y", "true", "1"})
_NO = frozenset({"", "no", "n", "false", "0"})


def _agreed(path: Path, line: int, value: str | None) -> bool:
    """The players file's share_email column: yes/no (empty: no, not shown)."""
    answer = (value or "").strip().casefold()
    if answer not in _YES | _NO:
        raise UsageError(f"{path}:{line}: share_email must be yes or no, not {value!r}")
    return answer in _YES


def read_players_csv(path: Path, positions: int = 15) -> list[PlayerEntry]:
    """The players file; every problem is reported with its line number."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"{path}: not a readable CSV file ({exc})") from None
    entries: list[PlayerEntry] = []
    seen: set[int] = set()
    for line, row in enumerate(rows, start=2):
        if None in row or "position" not in row or "email" not in row:
            raise UsageError(
                f"{path}:{line}: expected columns position,character,real_name,email,secret"
            )
        raw = (row.get("position") or "").strip()
        if not raw.isdigit() or not 1 <= int(raw) <= positions:
            raise UsageError(f"{path}:{line}: position must be 1-{positions}, not {raw!r}")
        position = int(raw)
        if position in seen:
            raise UsageError(f"{path}:{line}: position {position} listed twice")
        seen.add(position)
        email = (row.get("email") or "").strip()
        if "@" not in email or " " in email:
            raise UsageError(f"{path}:{line}: {email!r} is not an email address")
        secret = (row.get("secret") or "").strip()
        if secret and (weak := weak_secret(secret)) is not None:
            raise UsageError(f"{path}:{line}: the secret of position {position} is {weak}")
        entries.append(
            PlayerEntry(
                position=position,
                email=email,
                character=(row.get("character") or "").strip() or None,
                real_name=(row.get("real_name") or "").strip(),
                secret=(row.get("secret") or "").strip() or None,
                phone=(row.get("phone") or "").strip(),
                share_email=_agreed(path, line, row.get("share_email")),
            )
        )
    return entries


@dataclass
class CreatedGame:
    game_id: int
    name: str
    seed: int
    secrets: dict[int, str]  # generated secrets, by position (also in the welcome mail)


def _scenario_key(name: str) -> str:
    """What the game row stores: a scenario's name, or the absolute path of a folder."""
    if name in scenario_names():
        return name
    return str(resolve_path(name).resolve())


def create_game(
    session: Session,
    *,
    scenario: str,
    players: Iterable[PlayerEntry] = (),
    seed: int | None = None,
    name: str | None = None,
    deadline_days: int = 7,
    grace_minutes: int = 0,
    early_run: bool = True,
    anonymous: bool = False,
    missed_turn_limit: int = 2,
    missed_turn_policy: str = "computer",
    reminders: str = "48,12",
    now: datetime,
) -> CreatedGame:
    """A new game at turn 1; humans for the listed positions, the computer elsewhere.
    Queues each human player's welcome mail with the turn-1 report."""
    key = _scenario_key(scenario)
    loaded = scenario_for(key)
    if deadline_days < 1:
        raise UsageError("--deadline-days must be at least 1")
    if missed_turn_limit < 0:
        raise UsageError("--missed-turn-limit cannot be negative (0: never hand a position over)")
    if missed_turn_policy not in MISSED_TURN_POLICIES:
        raise UsageError(f"--missed-turn-policy must be one of {', '.join(MISSED_TURN_POLICIES)}")
    seed = secrets.randbelow(2**31) if seed is None else seed
    name = name or f"{loaded.name}-{seed}"
    entries = sorted(players, key=lambda e: e.position)
    setups = [PlayerSetup(position=e.position, character=e.character, human=True) for e in entries]
    family = family_of(loaded)
    state = family.carry_records(
        family.new_game(loaded, seed, setups, name), repository.game_records(session)
    )
    if any(e.position > len(state.tycoons) for e in entries):
        raise UsageError(f"this scenario has positions 1-{len(state.tycoons)}")
    game = repository.create_game(
        session,
        name=name,
        scenario=key,
        seed=seed,
        current_turn=state.turn,
        status="active",
        deadline=now + timedelta(days=deadline_days),
        grace_minutes=grace_minutes,
        turn_days=deadline_days,
        reminder_hours=reminder_hours(reminders),
        missed_turn_limit=missed_turn_limit,
        missed_turn_policy=missed_turn_policy,
        anonymous=anonymous,
        early_run=early_run,
        created_at=now,
    )
    _store_state(session, game.id, state, loaded, now)
    generated: dict[int, str] = {}
    by_position = {e.position: e for e in entries}
    for tycoon in state.tycoons:
        entry = by_position.get(tycoon.position)
        secret = None
        if entry is not None:
            secret = entry.secret or generate_secret()
            if entry.secret is None:
                generated[tycoon.position] = secret
        repository.add_player(
            session,
            game_id=game.id,
            position=tycoon.position,
            character=tycoon.character,
            real_name=entry.real_name if entry else "",
            email=entry.email if entry else None,
            phone=entry.phone if entry else "",
            share_email=entry.share_email if entry else False,
            secret_hash=hash_secret(secret) if secret else None,
            human=entry is not None,
            missed_turns=0,
            standby=False,
        )
    session.flush()
    reports: dict[int, RenderedReport] = {}
    report_ids: dict[int, int] = {}
    if entries:
        opening = _report_input(
            session, game, loaded, state, state, [], [], [], turn=0, deadline=_when(game.deadline)
        )
        reports = render_reports(opening, [e.position for e in entries])
        report_ids = _store_reports(session, game.id, 0, reports, opening.deadline)
    for entry in entries:
        # The welcome tells every player his secret, made here or given in the players file.
        secret = entry.secret or generated.get(entry.position)
        _queue_welcome(session, game, state, entry, secret, reports, now, report_ids)
    repository.log_action(
        session,
        game_id=game.id,
        turn=state.turn,
        action="game_new",
        now=now,
        details={"scenario": key, "seed": seed, "humans": [e.position for e in entries]},
    )
    return CreatedGame(game_id=game.id, name=name, seed=seed, secrets=generated)


def _queue_welcome(
    session: Session,
    game: Game,
    state: GameState,
    entry: PlayerEntry,
    secret: str | None,
    reports: dict[int, RenderedReport],
    now: datetime,
    report_ids: dict[int, int] | None = None,
) -> None:
    """The welcome mail: the position's report in the body and attached; a
    report stored in `report_ids` is attached by reference, not copied."""
    tycoon = state.tycoon(entry.position)
    lines = [
        f"Welcome to {game.name}, {entry.real_name or tycoon.character}.",
        "",
        f"You play position {entry.position}, {tycoon.character}.",
        f"Orders for turn {game.current_turn} are due by {_when(game.deadline)}.",
        "Put the game name, turn and position at the top of your turnsheet.",
        missed_turn_rule(game),
    ]
    if secret is not None:
        lines += ["", f"Your secret (write it on every turnsheet): {secret}"]
    report = reports.get(entry.position)
    if report is not None:
        lines += ["", report.text]
    report_id = (report_ids or {}).get(entry.position)
    footer = mail_footer(game.id, repository.get_player(session, game.id, entry.position), now)
    repository.queue_mail(
        session,
        key=f"welcome/{game.id}/{entry.position}/{entry.email.lower()}",
        kind="welcome",
        to_address=entry.email,
        subject=f"[{game.name}] Welcome: position {entry.position}, {tycoon.character}",
        body="\n".join(lines) + "\n" + footer,
        now=now,
        game_id=game.id,
        turn=game.current_turn,
        position=entry.position,
        pdf=report.pdf if report and report_id is None else None,
        pdf_name=f"{game.name}-turn-{game.current_turn}-position-{entry.position}.pdf"
        if report and report.pdf
        else None,
        json_attachment=report.json if report and report_id is None else None,
        report_id=report_id,
    )


def reminder_hours(text: str) -> str:
    """A moderator's reminder marks ("48,12": 48 and 12 hours before the
    deadline; "" for none), checked and written in the stored form."""
    marks: list[int] = []
    for part in text.split(","):
        if not part.strip():
            continue
        if not part.strip().isdigit() or not 0 < int(part) <= 24 * 30:
            raise UsageError(
                f"--reminder-hours {text!r}: give hours before the deadline, like 48,12"
            )
        marks.append(int(part))
    return ",".join(str(h) for h in sorted(set(marks), reverse=True))


MISSED_TURN_WORDS = {
    "computer": "a computer player gives your position its orders",
    "idle": "your position gives no orders that turn",
    "standing": "the orders you last sent are used again",
}


def missed_turn_rule(game: Game) -> str:
    """What happens to a player who sends no orders, as the welcome mail says it."""
    rule = f"If you send no orders for a turn, {MISSED_TURN_WORDS[game.missed_turn_policy]}"
    if game.missed_turn_limit:
        rule += (
            f"; after {game.missed_turn_limit} missed turns in a row your position "
            "goes to a standby player"
        )
    return rule + "."


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "the moderator's call"


def _store_state(
    session: Session, game_id: int, state: GameState, scenario: Scenario, now: datetime
) -> str:
    text = mapping.state_json(state)
    repository.add_turn_state(session, game_id, state.turn, text, PROGRAM_VERSION, now)
    repository.replace_standings(
        session, game_id, state.turn, mapping.standings_rows(state, scenario)
    )
    return text


def _player_infos(session: Session, game_id: int) -> dict[int, PlayerInfo]:
    return {
        p.position: PlayerInfo(
            p.position, p.character, p.real_name, p.email, p.phone, p.human, p.share_email
        )
        for p in repository.players(session, game_id)
    }


def report_deadline(session: Session, game: Game, turn: int) -> str:
    """The deadline a report of `turn` prints for the next turn: for the last
    turn processed, the game's deadline as it stands (a schedule change moves
    it); for earlier ones, from stored facts only (when the turn was
    processed, the game's schedule), so a report rendered again later is the
    report first mailed."""
    if turn == game.current_turn - 1 and game.deadline is not None:
        return _when(game.deadline)
    if turn == 0:
        processed = game.created_at
    else:
        processed = repository.turn_state(session, game.id, turn + 1).processed_at
    return _when(processed + timedelta(days=game.turn_days))


def stored_report_input(
    session: Session, game: Game, turn: int, deadline: str | None = None
) -> ReportInput:
    """The stored facts of `turn` (0: the opening), for rendering its reports
    again; the players' contacts are today's. `deadline` replaces the printed
    deadline worked out from the stored facts (`report_deadline`)."""
    after = mapping.state_from_json(repository.turn_state(session, game.id, turn + 1).state)
    if turn == 0:
        before, events, rejections, ledger = after, [], [], []
    else:
        before = mapping.state_from_json(repository.turn_state(session, game.id, turn).state)
        events = list(repository.events(session, game.id, turn))
        rejections = list(repository.rejections(session, game.id, turn))
        ledger = list(repository.ledger(session, game.id, turn))
    return _report_input(
        session,
        game,
        scenario_for(game.scenario),
        before,
        after,
        events,
        rejections,
        ledger,
        turn=turn,
        deadline=report_deadline(session, game, turn) if deadline is None else deadline,
        stood_in=_stood_in(session, game, turn),
    )


def _stood_in(session: Session, game: Game, turn: int) -> dict[int, PlayerOrders]:
    """The stored orders given for human players who sent none for `turn`."""
    if turn == 0:
        return {}
    humans = {p.position for p in repository.players(session, game.id) if p.human}
    return {
        position: orders
        for position, orders in repository.orders_in_force(
            session, game.id, turn, include_computer=True
        ).items()
        if position in humans and orders.source != "player"
    }


def _report_input(
    session: Session,
    game: Game,
    scenario: Scenario,
    before: GameState,
    after: GameState,
    events: list[Event],
    rejections: list[Rejection],
    ledger: list[LedgerEntry],
    turn: int,
    deadline: str,
    stood_in: dict[int, PlayerOrders] | None = None,
) -> ReportInput:
    return ReportInput(
        scenario=scenario,
        game=game.name,
        turn=turn,
        before=before,
        after=after,
        events=events,
        rejections=rejections,
        ledger=ledger,
        players=_player_infos(session, game.id),
        anonymous=game.anonymous,
        deadline=deadline,
        stood_in=stood_in or {},
    )


# --- running a turn ----------------------------------------------------------


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


def is_due(session: Session, game: Game, now: datetime) -> bool:
    """A turn is due when its deadline plus grace has passed, or, in a game that
    allows early runs, once every human player has orders in force."""
    if game.status != "active":
        return False
    if game.deadline is not None and now >= game.deadline + timedelta(minutes=game.grace_minutes):
        return True
    if not game.early_run:
        return False
    humans = {p.position for p in repository.players(session, game.id) if p.human and not p.standby}
    if not humans:
        return False
    return humans <= repository.positions_with_orders(session, game.id, game.current_turn)


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
) -> TurnOutcome:
    """Resolve the game's current turn inside the caller's transaction.

    Runs only when the turn is due (or `force`); with `expected_turn`, a game
    already past that turn is left alone, so repeating a run is harmless.
    `preview` resolves and reports but writes nothing. `accept_missing` runs a
    turn the missing-orders gate would hold (see `missing_orders_problem`).
    `next_deadline` is the next turn's deadline (default: `now` plus the
    game's turn days); the reports print it.
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
            if player is not None and player.human and not player.standby:
                missed.append(tycoon.position)
                orders[tycoon.position] = _missed_turn_orders(
                    session, game, scenario, state, tycoon.position
                )
            else:
                orders[tycoon.position] = computer_orders_for(scenario, state, tycoon.position)
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
            reports = pending.result()
    finally:
        pending.close()
    expected_positions = {t.position for t in result.state.tycoons}
    if set(reports) != expected_positions:
        problems.append(
            f"reports rendered for {len(reports)} positions, expected {len(expected_positions)}"
        )
    if preview:
        outcome.refused = {
            position: [f"{note.text} {note.hint}" for note in notes]
            for position in sorted({r.position for r in result.rejections})
            if (notes := order_notes(result.rejections, position))
        }
        outcome.message = f"preview of {game.name} turn {turn}: nothing stored"
        return outcome
    if problems:
        _refuse(game, turn, problems)
    with _timed(timings, "store"):
        report_ids = _store_reports(session, game.id, turn, reports, report_input.deadline)
        _queue_reports(session, game, turn, players, reports, report_ids, now)
        game.current_turn = turn + 1
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
            },
        )
        session.flush()
    outcome.message = f"{game.name} turn {turn} processed; now at turn {turn + 1}"
    return outcome


def _refuse(game: Game, turn: int, problems: list[str]) -> NoReturn:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise SanityGateError(
        f"{game.name} turn {turn} refused by the sanity gate: {problems[0]}{more}"
    )


MISSED_TURN_POLICIES = ("computer", "idle", "standing")


def _missed_turn_orders(
    session: Session, game: Game, scenario: Scenario, state: GameState, position: int
) -> PlayerOrders:
    """The orders of a human player's position with none in force, by the game's
    missed-turn policy: `computer` plays it, `idle` gives no orders ("civil
    disorder"), `standing` repeats the orders the player last sent (checked
    again like any orders; the computer plays it if the player never sent any)."""
    if game.missed_turn_policy == "idle":
        return PlayerOrders(position=position, orders=[], source="computer")
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
    force. Returns the problem, or "" when the turn may run."""
    humans = [p for p in players.values() if p.human and not p.standby]
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


def _store_reports(
    session: Session, game_id: int, turn: int, reports: dict[int, RenderedReport], deadline: str
) -> dict[int, int]:
    """Store a turn's reports once (report ids by position)."""
    return repository.add_reports(
        session,
        game_id,
        turn,
        {position: (r.text, r.pdf, r.json) for position, r in reports.items()},
        deadline,
    )


def add_game_records(session: Session, scenario: Scenario, final: GameState) -> None:
    """11.3 A game has ended: its records join those over all games."""
    records = family_of(scenario).add_records(scenario, repository.game_records(session), final)
    repository.replace_game_records(session, records)


def rebuild_game_records(session: Session) -> None:
    """The records over all games worked out again from the final states of
    the ended games (after an ended game was rolled back)."""
    records: list[dict[str, Any]] = []
    for game in repository.ended_games(session):
        scenario = scenario_for(game.scenario)
        final = mapping.state_from_json(
            repository.turn_state(session, game.id, game.current_turn).state
        )
        records = family_of(scenario).add_records(scenario, records, final)
    repository.replace_game_records(session, records)


def _queue_reports(
    session: Session,
    game: Game,
    turn: int,
    players: dict[int, Player],
    reports: dict[int, RenderedReport],
    report_ids: dict[int, int],
    now: datetime,
) -> None:
    """The report mail of a turn, in one statement; each message carries its
    stored report by reference (text, JSON and PDF are not copied)."""
    messages = []
    for position, report in sorted(reports.items()):
        player = players.get(position)
        if player is None or not player.human or not player.email:
            continue
        digest = hashlib.sha256((report.text + report.json).encode()).hexdigest()[:16]
        messages.append(
            {
                "idempotency_key": f"report/{game.id}/{turn}/{position}/{digest}",
                "kind": "report",
                "to_address": player.email,
                "subject": f"[{game.name}] Turn {turn} report: position {position}",
                # Mailed after the report's text (see OutboxMessage).
                "body": mail_footer(game.id, player, now),
                "game_id": game.id,
                "turn": turn,
                "position": position,
                "pdf_name": f"{game.name}-turn-{turn}-position-{position}.pdf"
                if report.pdf
                else None,
                "report_id": report_ids[position],
            }
        )
    repository.queue_mails(session, messages, now)


def report_pdfs(session: Session, reports: Iterable[Report]) -> dict[int, bytes]:
    """The PDFs of stored reports (by report id), rendered again from the
    stored facts, one rendering per game, turn and printed deadline. A PDF
    that does not match the digest stored with its report (a program release
    that draws reports differently, a player's contact details changed since)
    is still the report of those facts, and is sent as rendered now."""
    groups: dict[tuple[int, int, str], list[Report]] = {}
    for report in reports:
        groups.setdefault((report.game_id, report.turn, report.deadline), []).append(report)
    pdfs: dict[int, bytes] = {}
    for (game_id, turn, deadline), wanted in groups.items():
        game = repository.get_game(session, game_id)
        data = stored_report_input(session, game, turn, deadline=deadline or None)
        rendered = render_reports(data, [r.position for r in wanted])
        for report in wanted:
            pdf = rendered[report.position].pdf
            if pdf is not None:
                pdfs[report.id] = pdf
    return pdfs


def _apply_missed_turn_policy(
    session: Session,
    game: Game,
    turn: int,
    players: dict[int, Player],
    computer: list[int],
    now: datetime,
) -> None:
    """Count missed turns (their orders came from the game's missed-turn policy).
    After `missed_turn_limit` misses in a row (0: never) the position is offered
    to a standby player: the first
    one waiting takes it at once; with nobody waiting, the computer goes on
    playing it until a standby player is added or its player sends orders again.
    Runs after the game has moved to the next turn."""
    for player in players.values():
        if not player.human:
            continue
        if player.position not in computer:  # orders came in
            if player.standby:
                player.standby = False
                repository.log_action(
                    session,
                    game_id=game.id,
                    turn=turn,
                    action="standby_withdrawn",
                    now=now,
                    reason="the player sent orders again",
                    details={"position": player.position},
                )
            player.missed_turns = 0
            continue
        player.missed_turns += 1
        if player.standby:
            continue  # offered already; nobody has taken it yet
        if game.missed_turn_limit and player.missed_turns >= game.missed_turn_limit:
            player.standby = True
            repository.log_action(
                session,
                game_id=game.id,
                turn=turn,
                action="standby_offered",
                now=now,
                details={"position": player.position, "missed_turns": player.missed_turns},
            )
    _fill_offered_positions(session, game, now)


def _fill_offered_positions(session: Session, game: Game, now: datetime) -> None:
    """Hand every position offered to a standby player to the next one waiting,
    lowest position first."""
    waiting = list(repository.standbys(session, game.id))
    offered = [p for p in repository.players(session, game.id) if p.human and p.standby]
    for player, standby in zip(offered, waiting, strict=False):
        _hand_over(session, game, player, standby, now)


def _tell_player_leaving(
    session: Session, game: Game, player: Player, subject: str, why: str, now: datetime
) -> None:
    """A notice to the player who no longer plays `player.position`."""
    if not player.email:
        return
    repository.queue_mail(
        session,
        key=f"leaving/{game.id}/{player.position}/{game.current_turn}/{player.email.lower()}",
        kind="notice",
        to_address=player.email,
        subject=f"[{game.name}] {subject}",
        body=(
            f"{why}\nYour secret no longer works for this game. If this is a mistake, "
            "write to the moderator.\n"
        ),
        now=now,
        game_id=game.id,
        turn=game.current_turn,
        position=player.position,
    )


def _hand_over(
    session: Session, game: Game, player: Player, standby: StandbyPlayer, now: datetime
) -> None:
    """9 The standby player takes over the position: a new secret and the welcome
    mail with the position's report go to them, a notice to the player replaced."""
    position, old_email = player.position, player.email
    _tell_player_leaving(
        session,
        game,
        player,
        f"Position {position} handed to a standby player",
        f"No orders came from you for position {position}, {player.character}, "
        f"for {player.missed_turns} turns in a row, so your position in {game.name} has "
        f"been handed to a standby player from turn {game.current_turn}.",
        now,
    )
    assign(
        session,
        game.id,
        position=position,
        email=standby.email,
        real_name=standby.real_name,
        now=now,
        tell_replaced=False,
    )
    standby.position = position
    standby.taken_turn = game.current_turn
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="standby_took_over",
        now=now,
        details={"position": position, "email": standby.email, "replaced": old_email},
    )


@dataclass(frozen=True)
class StandbyAdded:
    email: str
    position: int | None  # the offered position they took at once, if any


def add_standby(
    session: Session, game_key: str | int, *, email: str, now: datetime, real_name: str = ""
) -> StandbyAdded:
    """A volunteer joins the game's standby list; a position already offered
    is handed to them at once."""
    email = email.strip()
    if "@" not in email or " " in email or email.startswith("@") or email.endswith("@"):
        raise UsageError(f"{email!r} is not an email address")
    game = repository.get_game(session, game_key, lock=True)
    refusal = repository.standby_refusal(session, game, email)
    if refusal:
        raise UsageError(refusal)
    standby = repository.add_standby(session, game.id, email, real_name, now)
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="standby_added",
        now=now,
        details={"email": email},
    )
    _fill_offered_positions(session, game, now)
    session.flush()
    return StandbyAdded(email=email, position=standby.position)


def remove_standby(session: Session, game_key: str | int, *, email: str, now: datetime) -> None:
    """A volunteer leaves the standby list (one who took a position stays in it)."""
    game = repository.get_game(session, game_key, lock=True)
    found = [s for s in repository.standbys(session, game.id) if s.email.lower() == email.lower()]
    if not found:
        raise UsageError(f"{email} is not waiting on the standby list of {game.name}")
    repository.remove_standby(session, found[0])
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="standby_removed",
        now=now,
        details={"email": found[0].email},
    )


def standby_list(session: Session, game_key: str | int) -> dict[str, Any]:
    """Who is waiting, which positions are offered, and who took which."""
    game = repository.get_game(session, game_key)
    everyone = repository.standbys(session, game.id, waiting=False)
    return {
        "game": game.name,
        "missed_turn_limit": game.missed_turn_limit,
        "waiting": [
            {"email": s.email, "real_name": s.real_name, "added_at": s.added_at.isoformat()}
            for s in everyone
            if s.position is None
        ],
        "offered": [
            {"position": p.position, "character": p.character, "missed_turns": p.missed_turns}
            for p in repository.players(session, game.id)
            if p.human and p.standby
        ],
        "took_over": [
            {"email": s.email, "position": s.position, "turn": s.taken_turn}
            for s in everyone
            if s.position is not None
        ],
    }


def batch_turn(engine: Engine, game_key: str | int, now: datetime | None = None) -> TurnOutcome:
    """One whole batch turn in its own transaction (for `turnproc bench`):
    load, resolve, gate, store, render and queue mail, then commit."""
    start = time.perf_counter()
    with transaction(engine) as session:
        outcome = run_turn(session, game_key, now=now or utcnow(), force=True)
    outcome.timings["total"] = round(time.perf_counter() - start, 4)
    return outcome


# --- due games, many workers -------------------------------------------------


def due_games(session: Session, now: datetime) -> list[tuple[int, int, str]]:
    """(id, turn, name) of every game whose turn is due, earliest deadline first."""
    return repository.due_game_rows(session, now)


def run_due(
    engine: Engine,
    worker: str,
    now: Callable[[], datetime] = utcnow,
    on_game: Callable[[str, TurnOutcome | None, str], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    moderator: str | None = None,
) -> list[TurnOutcome]:
    """Process every due game once. Each game is claimed with a row lock
    (SKIP LOCKED on PostgreSQL) and checked to be still at the turn seen, so
    several workers on several machines never process a turn twice.
    `on_game(name, outcome, error)` follows progress: outcome None with an
    empty error means another worker took the game. A turn refused (a sanity
    gate, a failing engine) is logged and mailed to `moderator` once, however
    often the run is repeated."""
    with transaction(engine) as session:
        queue_reminders(session, now())
        due = due_games(session, now())
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


def queue_reminders(session: Session, now: datetime) -> int:
    """Reminder mail to human players without orders in force as a deadline nears
    (at the game's reminder hours, e.g. 48 and 12 hours before); each once.
    A few queries whatever the number of games: the games' deadlines, then the
    players still without orders and the reminders already queued for the
    games past a mark, then one INSERT."""
    marks: dict[int, tuple[int, int, str, datetime, int]] = {}
    for game_id, name, turn, deadline, hours_text in repository.deadlines_ahead(session, now):
        left = deadline - now
        hours = sorted(int(h) for h in hours_text.split(",") if h.strip().isdigit())
        passed = [h for h in hours if left <= timedelta(hours=h)]
        if passed:
            marks[game_id] = (game_id, turn, name, deadline, passed[0])
    if not marks:
        return 0
    until = max(deadline for _, _, _, deadline, _ in marks.values())
    waiting = [
        player
        for player in repository.humans_without_orders(session, now, until)
        if player.game_id in marks
    ]
    keys = {
        player.id: f"reminder/{player.game_id}/{marks[player.game_id][1]}/{player.position}/"
        f"{marks[player.game_id][4]}"
        for player in waiting
    }
    sent = repository.reminder_keys(session, now, until)
    messages = []
    for player in waiting:
        if keys[player.id] in sent:
            continue
        game_id, turn, name, deadline, mark = marks[player.game_id]
        messages.append(
            {
                "idempotency_key": keys[player.id],
                "kind": "reminder",
                "to_address": player.email,
                "subject": f"[{name}] Turn {turn}: orders due in {mark} hours",
                "body": (
                    f"We have no orders from position {player.position} "
                    f"({player.character}) for turn {turn} of {name}.\n"
                    f"The deadline is {_when(deadline)}. Without orders the computer "
                    "plays your position this turn.\n"
                ),
                "game_id": game_id,
                "turn": turn,
                "position": player.position,
            }
        )
    repository.queue_mails(session, messages, now)
    return len(messages)


# --- export, rollback, rerun -------------------------------------------------


def export(session: Session, game_key: str | int, turn: int | None = None) -> str:
    """The whole state at the start of `turn` (default: now) as deterministic JSON."""
    game = repository.get_game(session, game_key)
    row = repository.turn_state(session, game.id, turn or game.current_turn)
    return mapping.export_state(row.state)


def rollback(
    session: Session,
    game_key: str | int,
    to_turn: int,
    now: datetime,
    reason: str = "",
    carry_announcements: bool = True,
) -> Game:
    """Put the game back at the start of `to_turn`; later turns' results go, the
    players' orders and the raw submissions stay. Adjustments made to later
    turns are undone with them; announcements sent for later reports move to
    the next report (unless `carry_announcements` is False)."""
    game = repository.get_game(session, game_key, lock=True)
    if to_turn >= game.current_turn:
        raise UsageError(f"{game.name} is at turn {game.current_turn}; --to must be lower")
    if to_turn not in repository.stored_turns(session, game.id):
        raise UsageError(f"{game.name} has no stored turn {to_turn}")
    before = game.current_turn
    carried = [
        event
        for turn in range(to_turn + 1, before + 1)
        for event in repository.events(session, game.id, turn, origin="moderator")
        if carry_announcements and not isinstance(event, ModeratorAdjustment)
    ]
    repository.forget_turns_from(session, game.id, to_turn)
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
        action="rollback",
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


def rerun(session: Session, game_key: str | int, now: datetime) -> RerunResult:
    """Roll back the last turn and run it again from the same stored orders,
    then apply again the moderator's adjustments made since; the diff compares
    the exports before and after (empty: nothing changed)."""
    game = repository.get_game(session, game_key, lock=True)
    if game.current_turn <= 1:
        raise UsageError(f"{game.name} has not played a turn yet")
    old = mapping.export_state(repository.turn_state(session, game.id, game.current_turn).state)
    turn = game.current_turn - 1
    deadline = game.deadline
    later = repository.events(session, game.id, game.current_turn, origin="moderator")
    mailed = {
        m.position
        for m in repository.outbox(session, game.id, status="sent")
        if m.kind == "report" and m.turn == turn
    }
    rollback(session, game.id, turn, now, reason="rerun", carry_announcements=False)
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
    )
    for event in later:
        if not isinstance(event, ModeratorAdjustment):
            repository.add_events(session, game.id, turn + 1, [event], origin="moderator")
        else:
            adjust(
                session,
                game.id,
                reason=event.reason,
                now=now,
                position=event.position,
                railroad=event.railroad,
                cash=event.cash,
                shares=event.shares,
                issued=event.issued,
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
        session.flush()
    return RerunResult(game=game.name, turn=turn, diff=diff, outcome=outcome)


# --- moderator's corrections -------------------------------------------------


def adjust(
    session: Session,
    game_key: str | int,
    *,
    reason: str,
    now: datetime,
    position: int | None = None,
    railroad: str | None = None,
    cash: int = 0,
    shares: int = 0,
    issued: int = 0,
) -> ModeratorAdjustment:
    """A manual correction of the current state, balanced in the ledger against
    the bank, logged with its reason and shown in the next report's news."""
    if not reason.strip():
        raise UsageError("an adjustment needs --reason")
    if not (cash or shares or issued):
        raise UsageError("nothing to adjust: give --cash, --shares or --issued")
    game = repository.get_game(session, game_key, lock=True)
    if game.status != "active":
        raise TurnprocError(f"{game.name} is {game.status}")
    scenario = scenario_for(game.scenario)
    start = mapping.state_from_json(
        repository.turn_state(session, game.id, game.current_turn).state
    )
    state = start.model_copy(deep=True)
    if position is not None and not 1 <= position <= len(state.tycoons):
        raise UsageError(f"no position {position} in {game.name}")
    if railroad is not None and railroad not in state.railroads:
        known = ", ".join(sorted(state.railroads)) or "none"
        raise UsageError(f"no railroad {railroad!r} in {game.name} (railroads: {known})")
    if (shares or issued) and railroad is None:
        raise UsageError("--shares and --issued need --railroad")
    if shares and position is None:
        raise UsageError("--shares needs --position (whose holding changes)")
    if cash and (position is None) == (railroad is None):
        raise UsageError("--cash needs exactly one of --position or --railroad")
    entries: list[LedgerEntry] = []
    if cash:
        account = (
            tycoon_account(position) if position is not None else railroad_account(railroad or "")
        )
        if position is not None:
            holder: Any = state.tycoon(position)
        else:
            holder = state.railroads[railroad or ""]
        if holder.cash + cash < 0:
            raise UsageError(f"{account} has ${holder.cash:,}; cannot take ${-cash:,}")
        holder.cash += cash
        src, dst = (BANK, account) if cash > 0 else (account, BANK)
        entries.append(
            LedgerEntry(
                src=src,
                dst=dst,
                amount=abs(cash),
                reason="moderator_adjustment",
                ref=reason.strip()[:200],
            )
        )
    if shares:
        tycoon = state.tycoon(position or 0)
        code = railroad or ""
        held = tycoon.holdings.get(code, 0) + shares
        if held < 0:
            raise UsageError(
                f"position {position} holds {held - shares} {code}; cannot take {-shares}"
            )
        if held:
            tycoon.holdings[code] = held
        else:
            tycoon.holdings.pop(code, None)
    if issued:
        state.railroads[railroad or ""].issued += issued
    problems = family_of(scenario).turn_problems(start, state, entries)
    if problems:
        raise UsageError(f"adjustment refused: {problems[0]}")
    event = ModeratorAdjustment(
        position=position,
        railroad=railroad,
        cash=cash,
        shares=shares,
        issued=issued,
        reason=reason.strip(),
    )
    turn = game.current_turn
    repository.replace_turn_state(session, game.id, turn, mapping.state_json(state))
    repository.replace_standings(session, game.id, turn, mapping.standings_rows(state, scenario))
    repository.add_events(session, game.id, turn, [event], origin="moderator")
    repository.add_ledger(session, game.id, turn, entries, origin="moderator")
    repository.log_action(
        session,
        game_id=game.id,
        turn=turn,
        action="adjust",
        reason=reason.strip(),
        now=now,
        details=event.model_dump(mode="json"),
    )
    session.flush()
    return event


def parse_deadline(text: str) -> datetime:
    """A moderator's deadline: ISO date and time, UTC unless an offset is given."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"{text!r} is not a date and time; write it like 2026-12-08 18:00 (UTC)"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def schedule(
    session: Session,
    game_key: str | int,
    *,
    now: datetime,
    reason: str = "",
    deadline: datetime | None = None,
    extend_hours: float | None = None,
    turn_days: int | None = None,
    grace_minutes: int | None = None,
    missed_turn_limit: int | None = None,
    missed_turn_policy: str | None = None,
    early_run: bool | None = None,
    reminders: str | None = None,
    pause: bool = False,
    resume: bool = False,
) -> dict[str, tuple[Any, Any]]:
    """Change a game's deadline, schedule or missed-turn policy, or pause and
    resume it. Returns what changed (old, new); logged with `reason`. Human
    players are mailed a new deadline, a pause and a resumption."""
    game = repository.get_game(session, game_key, lock=True)
    if deadline is not None and extend_hours is not None:
        raise UsageError("give --deadline or --extend-hours, not both")
    if pause and resume:
        raise UsageError("give --pause or --resume, not both")
    if game.status == "ended":
        raise UsageError(f"{game.name} has ended; its schedule cannot change")
    if pause and game.status == "paused":
        raise UsageError(f"{game.name} is paused already")
    if resume and game.status != "paused":
        raise UsageError(f"{game.name} is not paused")
    if turn_days is not None and turn_days < 1:
        raise UsageError("--turn-days must be at least 1")
    if grace_minutes is not None and grace_minutes < 0:
        raise UsageError("--grace-minutes cannot be negative")
    if missed_turn_limit is not None and missed_turn_limit < 0:
        raise UsageError("--missed-turn-limit cannot be negative (0: never hand a position over)")
    if missed_turn_policy is not None and missed_turn_policy not in MISSED_TURN_POLICIES:
        raise UsageError(f"--missed-turn-policy must be one of {', '.join(MISSED_TURN_POLICIES)}")
    new_deadline = game.deadline
    if deadline is not None:
        new_deadline = deadline
    elif extend_hours is not None:
        new_deadline = (game.deadline or now) + timedelta(hours=extend_hours)
    if new_deadline != game.deadline and new_deadline is not None and new_deadline <= now:
        raise UsageError(
            f"the new deadline {_when(new_deadline)} has passed already "
            f"(turn run {game.name} --force runs the turn now)"
        )
    if resume and new_deadline is not None and new_deadline <= now:
        raise UsageError(
            f"the deadline {_when(new_deadline)} passed while {game.name} was paused; "
            "give --deadline or --extend-hours with --resume"
        )
    wanted: dict[str, Any] = {
        "deadline": new_deadline,
        "turn_days": turn_days,
        "grace_minutes": grace_minutes,
        "missed_turn_limit": missed_turn_limit,
        "missed_turn_policy": missed_turn_policy,
        "early_run": early_run,
        "reminder_hours": None if reminders is None else reminder_hours(reminders),
        "status": "paused" if pause else "active" if resume else None,
    }
    changes: dict[str, tuple[Any, Any]] = {}
    for name, value in wanted.items():
        if value is not None and value != getattr(game, name):
            changes[name] = (getattr(game, name), value)
            setattr(game, name, value)
    if not changes:
        return changes
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="schedule",
        reason=reason,
        now=now,
        details={name: [_plain(old), _plain(new)] for name, (old, new) in sorted(changes.items())},
    )
    if "deadline" in changes or "status" in changes:
        _tell_players_of_schedule(session, game, changes, reason, now)
    session.flush()
    return changes


def shown(value: Any) -> str:
    """A setting as the moderator reads it (deadlines to the minute, in UTC)."""
    return _when(value) if isinstance(value, datetime) else str(value)


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _tell_players_of_schedule(
    session: Session, game: Game, changes: dict[str, tuple[Any, Any]], reason: str, now: datetime
) -> None:
    if game.status == "paused":
        subject = f"[{game.name}] The game is paused"
        text = (
            f"{game.name} is paused at turn {game.current_turn}: no turn runs and no "
            "turnsheets are taken until the moderator resumes it."
        )
    else:
        resumed = "status" in changes
        subject = (
            f"[{game.name}] {'Resumed: o' if resumed else 'O'}rders for turn {game.current_turn}"
        )
        subject += f" now due {_when(game.deadline)}"
        text = (
            f"{'The game is running again. ' if resumed else ''}"
            f"Orders for turn {game.current_turn} of {game.name} are now due by "
            f"{_when(game.deadline)}."
        )
    if reason:
        text += f"\nThe moderator's reason: {reason}"
    if game.status == "paused":
        stamp = f"paused-{now.isoformat()}"
    else:
        resumed = "status" in changes
        stamp = f"{'resumed' if resumed else 'deadline'}-{_plain(game.deadline)}"
        stamp += f"-{now.isoformat()}" if resumed else ""
    for player in repository.players(session, game.id):
        if not player.human or player.standby or not player.email:
            continue
        repository.queue_mail(
            session,
            key=f"schedule/{game.id}/{game.current_turn}/{stamp}/{player.position}",
            kind="notice",
            to_address=player.email,
            subject=subject,
            body=text + "\n",
            now=now,
            game_id=game.id,
            turn=game.current_turn,
            position=player.position,
        )


def _set_tycoon(session: Session, game: Game, position: int, **fields: Any) -> GameState:
    row = repository.turn_state(session, game.id, game.current_turn)
    state = mapping.state_from_json(row.state)
    if not 1 <= position <= len(state.tycoons):
        raise UsageError(f"no position {position} in {game.name}")
    tycoon = state.tycoon(position)
    for key, value in fields.items():
        setattr(tycoon, key, value)
    repository.replace_turn_state(session, game.id, game.current_turn, mapping.state_json(state))
    return state


def assign(
    session: Session,
    game_key: str | int,
    *,
    position: int,
    email: str,
    now: datetime,
    character: str | None = None,
    real_name: str = "",
    secret: str | None = None,
    tell_replaced: bool = True,
) -> str | None:
    """A new player takes over a position (a computer one, or one offered to a
    standby player). Returns the generated secret, if one was made. A player
    replaced is told by mail (unless `tell_replaced` is off: the caller has)."""
    if "@" not in email or " " in email.strip():
        raise UsageError(f"{email!r} is not an email address")
    game = repository.get_game(session, game_key, lock=True)
    player = repository.get_player(session, game.id, position)
    state = mapping.state_from_json(
        repository.turn_state(session, game.id, game.current_turn).state
    )
    if character is not None:
        taken = {t.character.casefold() for t in state.tycoons if t.position != position}
        if not character.strip() or character.strip().casefold() in taken:
            raise UsageError(f"character name {character!r} is empty or taken")
    generated = None if secret else generate_secret()
    replaced = player.human and (player.email or "").lower() != email.strip().lower()
    if replaced and tell_replaced:
        _tell_player_leaving(
            session,
            game,
            player,
            f"Position {position} has a new player",
            f"The moderator has given position {position}, {player.character}, of "
            f"{game.name} to another player from turn {game.current_turn}.",
            now,
        )
    fields: dict[str, Any] = {"human": True}
    if character is not None:
        fields["character"] = character.strip()
    state = _set_tycoon(session, game, position, **fields)
    player.human = True
    player.email = email.strip()
    player.real_name = real_name
    player.character = state.tycoon(position).character
    player.secret_hash = hash_secret(secret or generated or "")
    player.missed_turns = 0
    player.standby = False
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="assign",
        now=now,
        details={"position": position, "email": player.email},
    )
    entry = PlayerEntry(position=position, email=player.email, real_name=real_name)
    # Joining a game under way: the last turn's report of the position, with
    # its news, and the turnsheet of the turn now open.
    last = game.current_turn - 1
    if last >= 1 and last + 1 in repository.stored_turns(session, game.id):
        report = stored_report_input(session, game, last, deadline=_when(game.deadline))
    else:
        report = _report_input(
            session,
            game,
            scenario_for(game.scenario),
            state,
            state,
            [],
            [],
            [],
            turn=0,
            deadline=report_deadline(session, game, 0),
        )
    _queue_welcome(
        session, game, state, entry, secret or generated, render_reports(report, [position]), now
    )
    session.flush()
    return generated


def drop(
    session: Session, game_key: str | int, *, position: int, now: datetime, reason: str = ""
) -> None:
    """The player leaves; the computer plays the position from this turn on."""
    game = repository.get_game(session, game_key, lock=True)
    player = repository.get_player(session, game.id, position)
    if not player.human:
        raise UsageError(f"position {position} of {game.name} is already played by the computer")
    _set_tycoon(session, game, position, human=False)
    _tell_player_leaving(
        session,
        game,
        player,
        f"You have left the game (position {position})",
        f"The moderator has taken you out of {game.name}: the computer plays position "
        f"{position}, {player.character}, from turn {game.current_turn}."
        + (f"\nThe moderator's reason: {reason}" if reason else ""),
        now,
    )
    repository.log_action(
        session,
        game_id=game.id,
        turn=game.current_turn,
        action="drop",
        reason=reason,
        now=now,
        details={"position": position, "email": player.email},
    )
    player.human = False
    player.email = None
    player.secret_hash = None
    player.standby = False
    player.missed_turns = 0
    repository.refresh_all_in(session, game.id, now)  # the others may all be in
    session.flush()


def status(session: Session, game_key: str | int, now: datetime) -> dict[str, Any]:
    """Where a game stands: turn, deadline, who has orders in, standings."""
    game = repository.get_game(session, game_key)
    turn = game.current_turn
    submitted = repository.positions_with_orders(session, game.id, turn)
    players = [
        {
            "position": p.position,
            "character": p.character,
            "human": p.human,
            "real_name": p.real_name,
            "email": p.email,
            "submitted": p.position in submitted,
            "missed_turns": p.missed_turns,
            "standby": p.standby,
        }
        for p in repository.players(session, game.id)
    ]
    standings = [
        {
            "position": s.position,
            "character": s.character,
            "cash": s.cash,
            "net_worth": s.net_worth,
            "vp_total": s.vp_total,
        }
        for s in repository.standings(session, game.id, turn)
    ]
    return {
        "id": game.id,
        "name": game.name,
        "scenario": game.scenario,
        "seed": game.seed,
        "status": game.status,
        "turn": turn,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "grace_minutes": game.grace_minutes,
        "due": is_due(session, game, now),
        "missed_turn_limit": game.missed_turn_limit,
        "missed_turn_policy": game.missed_turn_policy,
        "players": players,
        "standby_waiting": [s.email for s in repository.standbys(session, game.id)],
        "standings": standings,
    }


def replay_orders(session: Session, game_key: str | int) -> dict[int, dict[int, PlayerOrders]]:
    """Every turn's players' orders (not computer ones), for replaying a game."""
    game = repository.get_game(session, game_key)
    stored = repository.stored_turns(session, game.id)
    # Every turn from the first to the last stored, also those a prune
    # (`turnproc db prune`) took the states of.
    turns = range(stored[0], stored[-1] + 1) if stored else range(0)
    return {turn: repository.orders_in_force(session, game.id, turn) for turn in turns}


def export_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str)
