"""The order form: the live check as a player types, and Submit through the mail intake.

The check is the receipt's own (`intake.check.evaluate`: errors, notes, the
6.1 cash walk) against the live state, for the player's own position only: a
sheet headed with another position is not checked, so the form never tells
anyone another tycoon's cash or holdings.

Submit builds the mail the player could have sent (From his registered
address, the sheet as its body, the form's id as its Message-ID) and hands
it to `mail.inbound.ingest`, exactly as a mail from him: stored raw first,
checked, its orders put in force, its receipt queued for mailing, the same
refusal limits, and a form sent twice is a duplicate Message-ID, taken once.
"""

import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from turnproc.config import Settings
from turnproc.core.money import money
from turnproc.core.sheet_errors import SheetTooLarge
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.turnsheet.check import Evaluation, Preview, evaluate
from turnproc.families.continental_rails.turnsheet.language import format_order
from turnproc.families.continental_rails.turnsheet.render import (
    SECRET_PLACEHOLDER,
    render_turnsheet,
)
from turnproc.families.continental_rails.turnsheet.templating import signed
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.mail.inbound import ingest
from turnproc.store import mapping
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player
from turnproc.web.pages import _Cache, scenario_for

MAX_SHEET_CHARS = 64 * 1024  # a full sheet is a few KB
MAX_SECRET_CHARS = 64
WEB_DOMAIN = "web.turnproc.invalid"
STAND_IN_SECRET = "given-in-the-form"  # what the live check puts in a blank header
_SECRET_RE = re.compile(r"(\bsecret\b\s*[:=#]?\s*)(\S*)", re.IGNORECASE)
_HEADER_RE = re.compile(r"^[\s*_>]*TURNSHEET\b(?!\s+FOR\b).*$", re.IGNORECASE | re.MULTILINE)

_STATES = _Cache(16)


def live_state(session: Session, game: Game) -> tuple[GameState, Vocabulary]:
    """The state orders are checked against (the open turn's start), cached by digest."""
    row = repo.turn_state(session, game.id, game.current_turn)

    def load() -> tuple[GameState, Vocabulary]:
        state = mapping.state_from_json(row.state)
        return state, Vocabulary.from_scenario(scenario_for(game.scenario), state)

    return _STATES.get((game.id, game.current_turn, row.sha256), load)


def blank_sheet(session: Session, game: Game, player: Player) -> str:
    """The player's turnsheet for the open turn, as his report printed it."""
    state, _ = live_state(session, game)
    deadline = f"{game.deadline:%Y-%m-%d %H:%M} UTC" if game.deadline else None
    return render_turnsheet(
        state, scenario_for(game.scenario), player.position, game=game.name, deadline=deadline
    )


def without_secret(text: str) -> str:
    """A sheet's text with the secret in its header line blanked out."""
    match = _HEADER_RE.search(text)
    if match is None:
        return text
    line = _SECRET_RE.sub(lambda m: m.group(1) + SECRET_PLACEHOLDER, match.group(0), count=1)
    return text[: match.start()] + line + text[match.end() :]


def with_secret(text: str, secret: str, only_blank: bool = False) -> str:
    """The sheet with `secret` written into its header line (`only_blank`: only
    where the header has none or the blank of a printed sheet)."""
    match = _HEADER_RE.search(text)
    if match is None or not secret:
        return text
    line = match.group(0)
    found = _SECRET_RE.search(line)
    if found and only_blank and found.group(2).strip("_"):
        return text
    if found:
        line = _SECRET_RE.sub(lambda m: m.group(1) + secret, line, count=1)
    else:
        line = f"{line.rstrip()} secret: {secret}"
    return text[: match.start()] + line + text[match.end() :]


@dataclass
class Problem:
    line_no: int
    line: str
    message: str
    hint: str = ""


@dataclass
class Check:
    """What the form shows while the player types."""

    errors: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    orders: list[tuple[int, str]] = field(default_factory=list)
    preview: Preview | None = None

    @property
    def verdict(self) -> str:
        return "errors" if self.errors else "ok"

    money = staticmethod(money)
    signed = staticmethod(signed)


def check_sheet(session: Session, game: Game, player: Player, text: str) -> Check:
    """The receipt's check of `text` for this player, nothing stored or sent."""
    if len(text) > MAX_SHEET_CHARS:
        return Check(errors=[Problem(0, "", f"the sheet is longer than {MAX_SHEET_CHARS} bytes")])
    state, vocabulary = live_state(session, game)
    # The secret goes in its own field of the form, not in the sheet's header.
    text = with_secret(text, STAND_IN_SECRET, only_blank=True)
    try:
        evaluation = evaluate(text, state, scenario_for(game.scenario), vocabulary)
    except SheetTooLarge as exc:
        return Check(errors=[Problem(0, "", exc.message, exc.hint)])
    header = evaluation.sheet.header
    if header is not None:
        wrong = _wrong_header(game, player, header.game, header.turn, header.position)
        if wrong:
            # Not checked at all: another position's check would tell his cash.
            return Check(errors=[Problem(0, "", wrong, "use the sheet this page gives you")])
    return _shown(evaluation)


def _wrong_header(game: Game, player: Player, name: str, turn: int, position: int) -> str:
    if position != player.position:
        return f"this sheet is headed for player {position}; you are player {player.position}"
    if name.casefold() not in (game.name.casefold(), str(game.id)):
        return f"this sheet is headed for game {name!r}, not {game.name!r}"
    if turn != game.current_turn:
        return f"this sheet is for turn {turn}; the game is at turn {game.current_turn}"
    return ""


def _shown(evaluation: Evaluation) -> Check:
    errors = sorted(evaluation.errors, key=lambda e: e.line_no)
    return Check(
        errors=[Problem(e.line_no, e.line, f"{e.message} [{e.code}]", e.hint) for e in errors],
        notes=[Problem(n.line_no, n.line, n.message) for n in evaluation.notes],
        orders=[(line.line_no, format_order(line.order)) for line in evaluation.sheet.lines],
        preview=evaluation.check.preview if evaluation.check else None,
    )


@dataclass(frozen=True)
class Submitted:
    """What became of a submitted form: the intake's verdict and its receipt."""

    verdict: str
    detail: str
    receipt: str
    mailed: bool


def submit_sheet_by_web(
    engine: Engine,
    reader: Engine,
    settings: Settings,
    game: Game,
    player: Player,
    text: str,
    secret: str,
    form_id: str,
    now: datetime,
) -> Submitted:
    """Submit the form's sheet as the player's mail would be (see the module
    docstring); `reader` reads its receipt (web/reading.py)."""
    message = EmailMessage()
    message["From"] = player.email or ""
    message["To"] = settings.mail_from
    message["Subject"] = f"Turnsheet for {game.name} turn {game.current_turn} (web form)"
    message["Date"] = format_datetime(now)
    message["Message-ID"] = f"<{form_id}.{game.id}.{player.position}@{WEB_DOMAIN}>"
    message.set_content(with_secret(text, secret))
    # In this process: the form's message is built here, and the server is threaded (no fork).
    outcome = ingest(
        engine,
        message.as_bytes(),
        "web",
        now,
        moderator=settings.moderator_email or None,
        forked=False,
    )
    receipt = ""
    if outcome.submission_id is not None:
        with Session(reader) as session:
            row = repo.get_submission(session, outcome.submission_id)
            receipt = row.receipt if row is not None else ""
    return Submitted(outcome.verdict, outcome.detail, receipt, outcome.answered)
