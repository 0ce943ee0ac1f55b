"""A new sequential game: the games list row, its seats, the family's row, the
welcome mails and the first "your move" mail."""

import json
import secrets as random_secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from turnproc.core.errors import UsageError
from turnproc.families.g18xx.report.rules_pdf import pdf_name as rules_pdf_name
from turnproc.families.g18xx.titles.load import new_game
from turnproc.families.registry import sequential_family
from turnproc.intake.auth import generate_secret, hash_secret
from turnproc.sequential.change import after_change
from turnproc.sequential.clock import MAX_MOVE_HOURS
from turnproc.sequential.position import describe, missed_rule, page_link
from turnproc.store import g18xx as store
from turnproc.store import repository as repo
from turnproc.store.models import Game, Game18xx, Player


@dataclass(frozen=True)
class Seat:
    position: int
    email: str
    real_name: str = ""
    secret: str | None = None


def create_game(
    session: Session,
    *,
    scenario: str,
    seats: list[Seat],
    name: str | None,
    seed: int | None,
    options: dict[str, str],
    move_hours: int,
    now: datetime,
) -> tuple[Game, dict[int, str]]:
    """A new game in the games list and its engine row; the welcome mails and
    the first "your move" mail queued. Returns the game and generated secrets."""
    family = sequential_family(scenario)
    if family is None:
        raise UsageError(f"{scenario!r} is not a sequential game")
    title = family.titles[scenario.lower()]
    allowed = family.options.get(title, {})
    for key, value in options.items():
        if key not in allowed or value not in allowed[key]:
            choices = "; ".join(f"{k}: {', '.join(v)}" for k, v in allowed.items()) or "none"
            raise UsageError(f"{title} has no option {key}={value} (options: {choices})")
    if not 1 <= move_hours <= MAX_MOVE_HOURS:
        raise UsageError(f"--move-hours must be 1-{MAX_MOVE_HOURS}")
    seats = sorted(seats, key=lambda s: s.position)
    try:
        new_game(title, [s.position for s in seats], options)
    except (ValueError, KeyError) as exc:
        raise UsageError(f"{title}: {exc}") from None
    seed = random_secrets.randbelow(2**31) if seed is None else seed
    name = name or f"{scenario.lower()}-{seed}"
    if session.scalar(select(Game).where(Game.name == name)) is not None or session.scalar(
        select(Game18xx).where(Game18xx.name == name)
    ):
        raise UsageError(f"a game named {name!r} exists already")
    game = Game(
        name=name,
        scenario=scenario.lower(),
        seed=seed,
        current_turn=1,
        status="active",
        reminder_hours="",
        missed_turn_limit=0,
        created_at=now,
    )
    session.add(game)
    session.flush()
    generated: dict[int, str] = {}
    players: dict[int, Player] = {}
    for seat in seats:
        secret = seat.secret
        if secret is None:
            secret = generated[seat.position] = generate_secret()
        players[seat.position] = Player(
            game_id=game.id,
            position=seat.position,
            character=seat.real_name or f"Player {seat.position}",
            real_name=seat.real_name,
            email=seat.email,
            secret_hash=hash_secret(secret),
            human=True,
        )
        session.add(players[seat.position])
    row = Game18xx(
        name=name,
        title=title,
        options=json.dumps(options, sort_keys=True),
        players=json.dumps([{"id": s.position, "name": s.real_name} for s in seats]),
        status="active",
        created_at=now,
        game_id=game.id,
        move_hours=move_hours,
        standing="{}",
    )
    session.add(row)
    session.flush()
    repo.log_action(
        session,
        game_id=game.id,
        turn=1,
        action="game_created",
        now=now,
        details={"scenario": scenario.lower(), "title": title, "options": options},
    )
    loaded = store.load(session, name)
    for seat in seats:
        lines = [
            f"Welcome to {name}, a game of {title}"
            + (f" ({options['edition']} edition)" if "edition" in options else "")
            + ".",
            "",
            f"You are player {seat.position}. Players move in turn; each move is applied",
            "when its mail arrives, and you get a mail when it is your move.",
            f"You have {move_hours} hours for each move; {missed_rule()}",
            f"The order language and the rules of {title} are attached "
            f"({rules_pdf_name(title)}); mail HELP for the order language, RULES for "
            "the PDF again.",
        ]
        if seat.secret is None:
            lines += ["", f"Your secret (write it on every sheet): {generated[seat.position]}"]
        lines += ["", describe(loaded.game)]
        repo.queue_mail(
            session,
            key=f"welcome/{game.id}/{seat.position}/{seat.email.lower()}",
            kind="welcome",
            to_address=seat.email,
            subject=f"[{name}] Welcome: player {seat.position} of {title}",
            body="\n".join(lines) + "\n" + page_link(game, players[seat.position], now),
            now=now,
            game_id=game.id,
            turn=1,
            position=seat.position,
            pdf_name=rules_pdf_name(title),  # the outbox attaches the title's rules
        )
    after_change(session, game, loaded, now, tag="start", before=None)
    return game, generated
