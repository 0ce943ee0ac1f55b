"""Players: the players file of a new game, welcome mail, a position given
to a new player or to the computer, and the standby list (pbem 9): missed
turns counted, positions offered and handed over.
"""

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from turnproc.core.errors import UsageError
from turnproc.core.text import clean_name
from turnproc.families.boundary import GameFamily
from turnproc.families.registry import family_of
from turnproc.intake.auth import generate_secret, hash_secret, weak_secret
from turnproc.pipeline.links import mail_footer
from turnproc.pipeline.reports import (
    RenderedReport,
    _report_input,
    render_reports,
    report_deadline,
    stored_report_input,
)
from turnproc.pipeline.schedule import _when, missed_turn_rule
from turnproc.pipeline.stored import scenario_for
from turnproc.store import mapping, repository
from turnproc.store.models import Game, Player, StandbyPlayer


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
                character=clean_name(row.get("character") or "", 80) or None,
                real_name=clean_name(row.get("real_name") or ""),
                secret=(row.get("secret") or "").strip() or None,
                phone=(row.get("phone") or "").strip(),
                share_email=_agreed(path, line, row.get("share_email")),
            )
        )
    return entries


def _queue_welcome(
    session: Session,
    game: Game,
    state: Any,
    entry: PlayerEntry,
    secret: str | None,
    reports: dict[int, RenderedReport],
    now: datetime,
    report_ids: dict[int, int] | None = None,
) -> None:
    """The welcome mail: the position's report in the body and attached; a
    report stored in `report_ids` is attached by reference, not copied."""
    character = _character(game, state, entry.position)
    lines = [
        f"Welcome to {game.name}, {entry.real_name or character}.",
        "",
        f"You play position {entry.position}, {character}.",
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
        subject=f"[{game.name}] Welcome: position {entry.position}, {character}",
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


def _character(game: Game, state: Any, position: int) -> str:
    """The character's name of `position` in the game's state."""
    holders = family_of(scenario_for(game.scenario)).holders(state)
    return str(next(h.character for h in holders if h.position == position))


def follow_character_names(
    players: list[Player], family: GameFamily[Any, Any, Any], state: Any
) -> None:
    """3.2 A character name chosen by order (on the first turn, or after a
    bankruptcy) is the position's name wherever players are listed (game
    status, the web's index and charts, mails): each player row takes the name
    of its holder in `state`, the state the game (of the `family`) is now at
    (after a turn, or after a rollback that undid the choice)."""
    holders = {h.position: h for h in family.holders(state)}
    for player in players:
        holder = holders.get(player.position)
        if holder is None or holder.character is None:
            continue
        if player.character != holder.character:
            player.character = holder.character


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


def _seat(
    session: Session, game: Game, position: int, *, human: bool, character: str | None = None
) -> Any:
    row = repository.turn_state(session, game.id, game.current_turn)
    state = mapping.state_from_json(row.state)
    family = family_of(scenario_for(game.scenario))
    if not 1 <= position <= len(family.holders(state)):
        raise UsageError(f"no position {position} in {game.name}")
    state = family.seat(state, position, character, human)
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
    real_name = clean_name(real_name)
    if character is not None:
        character = clean_name(character, 80)
        holders = family_of(scenario_for(game.scenario)).holders(state)
        taken = {str(h.character).casefold() for h in holders if h.position != position}
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
    chosen = None if character is None else character.strip()
    state = _seat(session, game, position, human=True, character=chosen)
    player.human = True
    player.email = email.strip()
    player.real_name = real_name
    player.character = _character(game, state, position)
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
    _seat(session, game, position, human=False)
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
