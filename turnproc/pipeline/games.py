"""Games: a new game at turn 1 with its players, where a game stands, and
the moderator's corrections (balanced in the ledger against the bank).
"""

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.families.boundary import Adjustment, Seat
from turnproc.families.registry import family_of
from turnproc.intake.auth import generate_secret, hash_secret
from turnproc.pipeline.players import PlayerEntry, _queue_welcome
from turnproc.pipeline.policies import MISSED_TURN_POLICIES
from turnproc.pipeline.reports import (
    RenderedReport,
    _report_input,
    _store_reports,
    _stored,
    render_reports,
)
from turnproc.pipeline.schedule import _when, is_due, reminder_hours
from turnproc.pipeline.stored import _store_state, scenario_for
from turnproc.scenario.loader import resolve_path, scenario_names
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository


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
    seats = [Seat(position=e.position, character=e.character, human=True) for e in entries]
    family = family_of(loaded)
    state = family.carry_records(
        family.new_game(loaded, seed, seats, name), repository.game_records(session)
    )
    positions = len(family.holders(state))
    if any(e.position > positions for e in entries):
        raise UsageError(f"this scenario has positions 1-{positions}")
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
    for holder in family.holders(state):
        entry = by_position.get(holder.position)
        secret = None
        if entry is not None:
            secret = entry.secret or generate_secret()
            if entry.secret is None:
                generated[holder.position] = secret
        repository.add_player(
            session,
            game_id=game.id,
            position=holder.position,
            character=holder.character,
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
        mailed = {e.position for e in entries if e.email}
        report_ids = _store_reports(session, game.id, 0, _stored(reports), opening.deadline, mailed)
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


def add_game_records(session: Session, scenario: Scenario, final: Any) -> None:
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
) -> Any:
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
    family = family_of(scenario)
    state, entries, event = family.adjust(
        start,
        game.name,
        Adjustment(
            position=position,
            railroad=railroad,
            cash=cash,
            shares=shares,
            issued=issued,
            reason=reason.strip(),
        ),
    )
    problems = family.turn_problems(start, state, entries)
    if problems:
        raise UsageError(f"adjustment refused: {problems[0]}")
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
