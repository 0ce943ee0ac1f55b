"""The receipt answering every turnsheet (pbem.md point 2).

Its first line (and the mail subject) says OK, ERRORS or REFUSED; then the
orders as read, normalised, line by line; every error with its line, what is
wrong and how to fix it; the notes (guesses made, warnings); the orders now
in force and which submission they come from; the 6.1 order-checking
preview; and the time left before the deadline. Pure: every fact comes in as
an argument, the wording is templates/receipt.txt.j2.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from turnproc.core.money import money
from turnproc.core.sheet_errors import TurnsheetError
from turnproc.families.continental_rails.turnsheet.check import Preview
from turnproc.families.continental_rails.turnsheet.foresee import RAILROAD_KINDS, AccountWalk
from turnproc.families.continental_rails.turnsheet.language import (
    Note,
    OrderLine,
    ParsedSheet,
    format_order,
)
from turnproc.families.continental_rails.turnsheet.templating import signed, template

# A receipt fits a screen or two: past this many errors or notes it summarises.
SHOWN = 12

# `delayed`: a sheet that arrived before its turn closed but was read after
# the turn ran (the mail reached the program late); kept, not applied.
Verdict = Literal["accepted", "errors", "refused", "duplicate", "delayed"]

_FIRST = {
    "accepted": "OK",
    "errors": "ERRORS",
    "refused": "REFUSED",
    "duplicate": "DUPLICATE",
    "delayed": "DELAYED",
}


@dataclass(frozen=True)
class InForce:
    """The orders in force for the position after this submission."""

    lines: list[str]
    source: str  # e.g. "submission #3, received 2026-11-30 10:02 UTC"


@dataclass
class ReceiptFacts:
    """Everything a receipt says."""

    verdict: Verdict
    game: str
    turn: int | None = None
    position: int | None = None
    character: str = ""
    received_at: datetime | None = None
    message_id: str | None = None
    sheet: ParsedSheet | None = None
    errors: list[TurnsheetError] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    refusal: str = ""  # why a refused sheet was refused
    hint: str = ""
    in_force: InForce | None = None
    in_force_withheld: bool = False  # not the sender's position: say nothing of its orders
    # An accepted sheet that arrived before the sheet in force: which that is
    # (the sheet that arrived last is in force, whatever the order of reading).
    arrived_later: str = ""
    preview: Preview | None = None
    railroads: dict[str, AccountWalk] = field(default_factory=dict)
    deadline: datetime | None = None
    now: datetime | None = None
    # A delayed sheet: when its turn took its last sheet, and when it ran.
    closed_at: datetime | None = None
    ran_at: datetime | None = None


@dataclass(frozen=True)
class Receipt:
    verdict: Verdict
    subject: str
    text: str


def time_left(deadline: datetime, now: datetime) -> str:
    """'3 days 4 hours left', '35 minutes left' or 'passed'."""
    seconds = int((deadline - now).total_seconds())
    if seconds <= 0:
        return "the deadline has passed"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = []
    if days:
        parts.append(f"{days} day{'s' if days != 1 else ''}")
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if not days and (minutes or not parts):
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    return " ".join(parts) + " left"


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def build_receipt(facts: ReceiptFacts) -> Receipt:
    """The receipt's subject and text."""
    where = f"{facts.game}" + (f" turn {facts.turn}" if facts.turn is not None else "")
    if facts.position is not None:
        where += f" player {facts.position}"
    if facts.verdict == "accepted" and facts.arrived_later:
        headline = f"OK: turnsheet read for {where}; a sheet that arrived later is in force"
    elif facts.verdict == "accepted":
        headline = f"OK: turnsheet accepted for {where}"
    elif facts.verdict == "errors":
        count = len(facts.errors)
        headline = f"ERRORS: {count} error{'s' if count != 1 else ''} in your turnsheet for {where}"
    elif facts.verdict == "duplicate":
        headline = f"DUPLICATE: this message was processed before ({where})"
    elif facts.verdict == "delayed":
        headline = (
            f"DELAYED: your turnsheet for {where} arrived before the deadline, "
            "but reached us after the turn was resolved"
        )
    else:
        headline = f"REFUSED: {facts.refusal}"
    orders = [_echo(line) for line in (facts.sheet.lines if facts.sheet else [])]
    errors = sorted(facts.errors, key=lambda e: e.line_no)
    # The railroads this sheet gives orders to: their cash is walked through the turn.
    ordered = {
        getattr(line.order, "railroad", "")
        for line in (facts.sheet.lines if facts.sheet else [])
        if line.order.kind in RAILROAD_KINDS
    }
    notes = sorted(facts.notes, key=lambda n: n.line_no)
    in_force = facts.in_force
    if facts.in_force_withheld:
        summary = "this sheet was not put in force."
    elif in_force is None or not in_force.lines:
        summary = "no orders are in force for you this turn yet."
    else:
        summary = f"the orders in force are still those of {in_force.source}."
    context = {
        "first_line": headline,
        "verdict": facts.verdict,
        "refusal": facts.refusal,
        "hint": facts.hint,
        "in_force_summary": summary,
        "arrived_later": facts.arrived_later,
        "game": facts.game,
        "turn": facts.turn,
        "position": facts.position,
        "character": facts.character,
        "received": _when(facts.received_at) if facts.received_at else "now",
        "message_id": facts.message_id,
        "orders": orders,
        "errors": [_error(e) for e in errors[:SHOWN]],
        "errors_left": _flood(errors[SHOWN:]),
        "errors_total": len(errors),
        "notes": notes[:SHOWN],
        "notes_left": len(notes[SHOWN:]),
        "in_force": in_force.lines if in_force else [],
        "in_force_source": in_force.source if in_force else "",
        "preview": facts.preview,
        "railroads": [
            _railroad_walk(code, walk, facts.sheet)
            for code, walk in facts.railroads.items()
            if code in ordered
        ],
        "closed_at": _when(facts.closed_at) if facts.closed_at else "",
        "ran_at": _when(facts.ran_at) if facts.ran_at else "",
        "deadline": _when(facts.deadline) if facts.deadline else None,
        "time_left": time_left(facts.deadline, facts.now) if facts.deadline and facts.now else None,
        "money": money,
        "signed": signed,
    }
    text = template("receipt.txt.j2").render(context)
    # The [game] tag leads every mail of a game, so a player's filter keeps them together.
    subject = f"[{facts.game}] {headline}" if facts.game else headline
    return Receipt(verdict=facts.verdict, subject=subject[:200], text=_tidy(text))


def _railroad_walk(code: str, walk: AccountWalk, sheet: ParsedSheet | None) -> dict[str, object]:
    """A railroad's cash through the steps before the market, for the receipt."""
    lines = sheet.lines if sheet else []
    steps = []
    for step in walk.steps:
        if step.code:
            index = step.order_index
            line = lines[index] if 0 <= index < len(lines) else None
            label = format_order(line.order, with_railroad=False) if line else "an order"
            where = f"line {line.line_no}: " if line else ""
            verdict = "CUT" if step.cut else "REFUSED"
            steps.append({"label": f"{where}{label}", "amount": "", "left": verdict})
        else:
            steps.append(
                {"label": step.label, "amount": signed(step.amount), "left": money(step.cash_after)}
            )
    return {
        "code": code,
        "cash": walk.cash,
        "steps": steps,
        "cash_left": walk.cash_left,
        "bonds": walk.bonds,
        "loan": walk.loan,
        "bond_room": walk.bond_room,
        "loan_room": walk.loan_room,
    }


def _flood(errors: list[TurnsheetError]) -> str:
    """One line for the errors not shown: how many, of which kinds, from which line."""
    if not errors:
        return ""
    kinds: dict[str, int] = {}
    for error in errors:
        kinds[error.code] = kinds.get(error.code, 0) + 1
    listed = ", ".join(f"{count} {code}" for code, count in sorted(kinds.items()))
    first = errors[0].line_no
    return (
        f"... and {len(errors)} more from line {first} on ({listed}). So many errors usually "
        "mean the mail goes on past the orders: end them with a line saying END."
    )


def _echo(line: OrderLine) -> dict[str, object]:
    text = format_order(line.order)
    squeezed = " ".join(line.line.split("#", 1)[0].split()).upper()
    return {
        "line_no": line.line_no,
        "text": text,
        "written": line.line,
        "show_written": squeezed not in (text.upper(), text.upper().split(": ", 1)[-1]),
    }


def _error(error: TurnsheetError) -> dict[str, object]:
    return {
        "line_no": error.line_no,
        "line": error.line if error.line else "",
        "message": f"{error.message} [{error.code}]",
        "hint": error.hint,
    }


def _tidy(text: str) -> str:
    """No runs of blank lines, no trailing spaces."""
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"
