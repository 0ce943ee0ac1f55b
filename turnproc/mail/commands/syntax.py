"""What a player command looks like in a mail (docs/mail.md, section 4): the
command on the first written line of the body (or in the subject), its
fields (`game:`, `player:`, `secret:`, ...) and the lines it carries, and
the list of commands players are sent."""

import re
from dataclasses import dataclass

from turnproc.core.sheet_errors import SheetTooLarge
from turnproc.core.sheet_header import has_header

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


@dataclass(frozen=True)
class Command:
    """A player command read from a mail."""

    name: str  # help, rules, resend, press, contact, standby (move: an 18xx sheet)
    fields: dict[str, str]
    flags: set[str]
    body: list[str]  # the lines after the command line (PRESS: the announcement)


def has_turnsheet(text: str) -> bool:
    """Whether `text` holds a turnsheet header line (complete or not)."""
    try:
        return has_header(text)
    except SheetTooLarge:
        return "turnsheet" in text.lower()  # the intake refuses it with the reason


def parse_command(text: str, subject: str) -> Command | None:
    """The command on the first written line of the body, or in the subject."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for index, line in enumerate(lines):
        if line.strip():
            found = _make_command(line, _body(lines[index + 1 :]))
            if found is not None:
                return found
            break
    return _make_command(_REPLY_PREFIX_RE.sub("", subject), _body(lines))


def _make_command(line: str, body: list[str]) -> Command | None:
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
        return Command(name, {}, set(), body) if not rest.strip(" .!?") else None
    if name == "standby":
        words = {word.lower().strip(".,;!") for word in rest.split()}
        return Command("standby", fields, words, body) if "game" in fields else None
    if len(fields.keys() & {"game", "player", "secret"}) < 2:
        return None
    flags = {word.lower() for word in rest.split()}
    return Command("press" if name.startswith("announce") else name, fields, flags, body)


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
