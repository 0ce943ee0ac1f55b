"""Deadlines and the calendar: when a turn is due (deadline plus grace, or
early once every human player is in), the moderator's schedule changes
(deadline, turn length, pause and resume, missed-turn policy) told to the
players, and the reminders sent as a deadline nears.
"""

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from turnproc.core.errors import UsageError
from turnproc.pipeline.policies import MISSED_TURN_POLICIES
from turnproc.store import repository
from turnproc.store.models import Game


def utcnow() -> datetime:
    return datetime.now(UTC)


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


def due_games(session: Session, now: datetime) -> list[tuple[int, int, str]]:
    """(id, turn, name) of every game whose turn is due, earliest deadline first."""
    return repository.due_game_rows(session, now)


# The longest hold of `turn run --due --grace`: as long as an arrival time
# from our own server's Received header is believed (mail.sources), and
# short enough that a typing slip ("--grace 10h" for 10 m) costs no more
# than half a day.
GRACE_LIMIT = timedelta(hours=12)

_GRACE_UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_grace(text: str) -> timedelta:
    """The due run's grace: "10m", "90s", "2h" or "1h30m", at most GRACE_LIMIT."""
    parts = re.fullmatch(r"(?:\d{1,6}[smh])+", text.strip().lower())
    if parts is None:
        raise UsageError(f"--grace {text!r}: give a length like 10m, 90s or 2h")
    seconds = sum(
        int(number) * _GRACE_UNITS[unit]
        for number, unit in re.findall(r"(\d+)([smh])", text.strip().lower())
    )
    grace = timedelta(seconds=seconds)
    if grace > GRACE_LIMIT:
        raise UsageError(
            f"--grace {text}: at most 12h; mail held longer than that by a mail server "
            "is not waited for (move the deadline with `turnproc game schedule` instead)"
        )
    return grace


def due_and_held(
    session: Session, now: datetime, grace: timedelta
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """The games of `due_games(now)` split into those to run and those held
    for `grace`: a game whose deadline (plus its own grace) has passed waits
    until `grace` more has passed, for mail our server took in before the
    deadline and has not handed over yet. A game due early (every human
    player's orders in) is not held. Both lists earliest deadline first."""
    due = due_games(session, now)
    if not grace:
        return due, []
    # Due `grace` ago, or due early now: two reads of the same index scans.
    ready = {row[0] for row in due_games(session, now - grace)}
    return [row for row in due if row[0] in ready], [row for row in due if row[0] not in ready]


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
