"""10 A turnsheet as mail carries it, the same for every family: the header
line (game, turn, position, secret), the best header among quoted replies,
and the lines written under it up to END. What the lines mean is the
family's order language (Continental Rails' turnsheet, the 18xx orders);
mail reads the header to find the game before it knows the family."""

import re
from dataclasses import dataclass

from turnproc.core.sheet_errors import HeaderError, SheetTooLarge, TurnsheetError

MAX_SHEET_CHARS = 512 * 1024  # a full sheet is a few KB; quoted reports stay well under this
MAX_LINE_CHARS = 400

HEADER_RE = re.compile(r"^[\W_]*turn\s?sheet\b", re.IGNORECASE)
HEADER_FIELD_RE = re.compile(
    r"\b(game|turn|player|position|pos|secret|password)\b\s*[:=#]?\s*([^\s,;]+)", re.IGNORECASE
)
END_RE = re.compile(r"^[\W_]*end(\s+(of\s+)?turn\s?sheet)?[\W_]*$", re.IGNORECASE)
# A field left as printed on the blank sheet.
BLANK_RE = re.compile(r"^[_?.]+$")


@dataclass(frozen=True)
class SheetHeader:
    """The header line: which game, turn and position the sheet is for, and its secret."""

    game: str
    turn: int
    position: int
    secret: str
    line_no: int


def unquote(raw: str) -> tuple[int, str]:
    """Quote depth of a mail line and its text without the `>` marks."""
    text = raw.replace("\t", " ").lstrip()
    depth = 0
    while text.startswith(">"):
        depth += 1
        text = text[1:].lstrip()
    return depth, text


def is_header(content: str) -> bool:
    if not HEADER_RE.match(content):
        return False
    keys = {m.group(1).lower() for m in HEADER_FIELD_RE.finditer(content[:MAX_LINE_CHARS])}
    return len(keys) >= 2


def sheet_lines(
    text: str, prefer: frozenset[int] = frozenset()
) -> tuple[list[tuple[int, str]], int]:
    """The lines that may belong to the turnsheet (number, text) and the header's number.

    The sheet starts at the best header: one naming a position of `prefer`
    (the sender's), then one whose secret is filled in, then the shallowest
    quote depth, then the first. It is read from the lines at that depth or
    shallower: a reply that quotes the blank sheet and also carries a
    filled-in one is read from the filled-in one; a sheet filled in inside
    the quoted text is read there, together with any orders typed unquoted
    between its lines. A header-like line quoted from a report (text another
    player wrote) loses to the player's own sheet.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    unquoted = [unquote(line) for line in lines]
    candidates = [i for i, (_, content) in enumerate(unquoted) if is_header(content)]
    if not candidates:
        return [], 0
    header_at = min(candidates, key=lambda i: _header_rank(unquoted[i], prefer, i))
    depth = unquoted[header_at][0]
    kept = [(i + 1, content) for i, (d, content) in enumerate(unquoted) if d <= depth]
    return kept, header_at + 1


def _header_rank(line: tuple[int, str], prefer: frozenset[int], index: int) -> tuple[int, ...]:
    depth, content = line
    values: dict[str, str] = {}
    for match in HEADER_FIELD_RE.finditer(content[:MAX_LINE_CHARS]):
        key = match.group(1).lower()
        key = {"position": "player", "pos": "player", "password": "secret"}.get(key, key)
        values.setdefault(key, match.group(2))
    number = values.get("player", "")
    mine = number.isascii() and number.isdigit() and len(number) < 6 and int(number) in prefer
    secret = values.get("secret", "")
    filled = bool(secret) and not BLANK_RE.match(secret)
    return (0 if mine else 1, 0 if filled else 1, depth, index)


def parse_header(line_no: int, text: str, errors: list[TurnsheetError]) -> SheetHeader | None:
    """The header on line `line_no`; None, with a `HeaderError` in `errors`,
    when a field is missing or not a number."""
    values: dict[str, str] = {}
    for match in HEADER_FIELD_RE.finditer(text):
        key = match.group(1).lower()
        key = {"position": "player", "pos": "player", "password": "secret"}.get(key, key)
        values.setdefault(key, match.group(2))
    example = "TURNSHEET game: NAME turn: 7 player: 3 secret: YOUR-SECRET"
    problems: list[str] = []
    for key in ("game", "turn", "player", "secret"):
        value = values.get(key, "")
        if not value or BLANK_RE.match(value):
            problems.append(f"the {key} is missing")
    numbers: dict[str, int] = {}
    for key in ("turn", "player"):
        value = values.get(key, "")
        if value and not BLANK_RE.match(value):
            if value.isascii() and value.isdigit() and len(value) < 6:
                numbers[key] = int(value)
            else:
                problems.append(f"the {key} {value!r} is not a number")
    if problems:
        errors.append(
            HeaderError(
                "turnsheet header: " + "; ".join(problems),
                line_no=line_no,
                line=text,
                hint=f"write the header as on the sheet you received: {example}",
            )
        )
        return None
    return SheetHeader(
        game=values["game"],
        turn=numbers["turn"],
        position=numbers["player"],
        secret=values["secret"],
        line_no=line_no,
    )


def check_size(text: str) -> None:
    """Raises `SheetTooLarge` for a message too long to be a turnsheet."""
    if len(text) > MAX_SHEET_CHARS:
        raise SheetTooLarge(
            f"the message is {len(text) // 1024} KB long; a turnsheet is a few KB",
            hint="send only the filled-in turnsheet as plain text, without attachments",
        )


def has_header(text: str) -> bool:
    """Whether `text` holds a turnsheet header line (complete or not).
    Raises `SheetTooLarge` as reading the sheet would."""
    check_size(text)
    return bool(sheet_lines(text)[0])


def read_header(text: str) -> SheetHeader | None:
    """The header of the sheet in `text`, as reading the sheet finds it; None
    without a header or with an incomplete one. Raises `SheetTooLarge` as
    reading the sheet would."""
    check_size(text)
    lines, header_no = sheet_lines(text)
    for line_no, content in lines:
        if line_no == header_no:
            return parse_header(line_no, content.strip(), [])
    return None


def order_lines(text: str) -> list[str]:
    """The lines written between the turnsheet header and END (or a signature,
    or a second header), read as the sheet is read: for a family with its own
    order language (the 18xx games)."""
    lines, header_no = sheet_lines(text[:MAX_SHEET_CHARS])
    kept: list[str] = []
    for line_no, content in lines:
        if line_no <= header_no:
            continue
        stripped = content.strip()
        if END_RE.match(stripped) or stripped == "--" or is_header(stripped):
            break
        kept.append(stripped)
    return kept
