"""10 Reading a turnsheet's text: the header, the sections, and where the
orders end (quoted replies, signatures, separators)."""

import re

from turnproc.core.sheet_errors import (
    HeaderError,
    SheetSyntaxError,
    SheetTooLarge,
    TurnsheetError,
    UnknownName,
)
from turnproc.families.continental_rails.turnsheet.language.actions import _parse_order, _suggest
from turnproc.families.continental_rails.turnsheet.language.grammar import (
    _BLANK_RE,
    _DECORATION_RE,
    _END_RE,
    _HEADER_FIELD_RE,
    _HEADER_RE,
    _REPLY_RE,
    _SIGN_OFF_RE,
    _WROTE_END_RE,
    MAX_LINE_CHARS,
    MAX_ORDERS,
    MAX_SHEET_CHARS,
)
from turnproc.families.continental_rails.turnsheet.language.parsed import (
    Note,
    OrderLine,
    ParsedSheet,
    SheetHeader,
    _Line,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary


def _unquote(raw: str) -> tuple[int, str]:
    """Quote depth of a mail line and its text without the `>` marks."""
    text = raw.replace("\t", " ").lstrip()
    depth = 0
    while text.startswith(">"):
        depth += 1
        text = text[1:].lstrip()
    return depth, text


def _is_header(content: str) -> bool:
    if not _HEADER_RE.match(content):
        return False
    keys = {m.group(1).lower() for m in _HEADER_FIELD_RE.finditer(content[:MAX_LINE_CHARS])}
    return len(keys) >= 2


def _sheet_lines(
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
    unquoted = [_unquote(line) for line in lines]
    candidates = [i for i, (_, content) in enumerate(unquoted) if _is_header(content)]
    if not candidates:
        return [], 0
    header_at = min(candidates, key=lambda i: _header_rank(unquoted[i], prefer, i))
    depth = unquoted[header_at][0]
    kept = [(i + 1, content) for i, (d, content) in enumerate(unquoted) if d <= depth]
    return kept, header_at + 1


def _header_rank(line: tuple[int, str], prefer: frozenset[int], index: int) -> tuple[int, ...]:
    depth, content = line
    values: dict[str, str] = {}
    for match in _HEADER_FIELD_RE.finditer(content[:MAX_LINE_CHARS]):
        key = match.group(1).lower()
        key = {"position": "player", "pos": "player", "password": "secret"}.get(key, key)
        values.setdefault(key, match.group(2))
    number = values.get("player", "")
    mine = number.isascii() and number.isdigit() and len(number) < 6 and int(number) in prefer
    secret = values.get("secret", "")
    filled = bool(secret) and not _BLANK_RE.match(secret)
    return (0 if mine else 1, 0 if filled else 1, depth, index)


def _wrapped_wrote(lines: list[tuple[int, str]], index: int) -> bool:
    """Gmail's "On <date> <name> <" wraps its "address> wrote:" onto the next line."""
    if not lines[index][1].lstrip().lower().startswith("on ") or index + 1 >= len(lines):
        return False
    return bool(_WROTE_END_RE.search(lines[index + 1][1][:MAX_LINE_CHARS]))


def _parse_header(line_no: int, text: str, errors: list[TurnsheetError]) -> SheetHeader | None:
    values: dict[str, str] = {}
    for match in _HEADER_FIELD_RE.finditer(text):
        key = match.group(1).lower()
        key = {"position": "player", "pos": "player", "password": "secret"}.get(key, key)
        values.setdefault(key, match.group(2))
    example = "TURNSHEET game: NAME turn: 7 player: 3 secret: YOUR-SECRET"
    problems: list[str] = []
    for key in ("game", "turn", "player", "secret"):
        value = values.get(key, "")
        if not value or _BLANK_RE.match(value):
            problems.append(f"the {key} is missing")
    numbers: dict[str, int] = {}
    for key in ("turn", "player"):
        value = values.get(key, "")
        if value and not _BLANK_RE.match(value):
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


def order_lines(text: str) -> list[str]:
    """The lines written between the turnsheet header and END (or a signature,
    or a second header), read as `parse_turnsheet` reads them: for a family
    with its own order language (the 18xx games)."""
    lines, header_no = _sheet_lines(text[:MAX_SHEET_CHARS])
    kept: list[str] = []
    for line_no, content in lines:
        if line_no <= header_no:
            continue
        stripped = content.strip()
        if _END_RE.match(stripped) or stripped == "--" or _is_header(stripped):
            break
        kept.append(stripped)
    return kept


def parse_turnsheet(
    text: str, vocabulary: Vocabulary, prefer: frozenset[int] = frozenset()
) -> ParsedSheet:
    """10 Read a turnsheet. Raises only `SheetTooLarge`; every other problem is listed.
    `prefer`: the sender's positions, whose header wins over others."""
    if len(text) > MAX_SHEET_CHARS:
        raise SheetTooLarge(
            f"the message is {len(text) // 1024} KB long; a turnsheet is a few KB",
            hint="send only the filled-in turnsheet as plain text, without attachments",
        )
    lines, header_no = _sheet_lines(text, prefer)
    if not lines:
        sheet = ParsedSheet(header=None)
        sheet.errors.append(
            HeaderError(
                "no turnsheet found in the message",
                hint="copy the turnsheet from your report, starting with its TURNSHEET line "
                "and ending with END, and fill it in",
            )
        )
        return sheet
    errors: list[TurnsheetError] = []
    sheet = ParsedSheet(header=None, errors=errors)
    railroad: str | None = None
    section_ok = True
    started = False
    for index, (line_no, content) in enumerate(lines):
        if line_no < header_no:
            continue
        if line_no == header_no:
            sheet.header = _parse_header(line_no, content.strip(), errors)
            started = True
            continue
        if not started:
            continue
        stripped = content.strip()
        if _END_RE.match(stripped):
            sheet.ended = True
            break
        if stripped == "--" or _REPLY_RE.match(stripped) or _wrapped_wrote(lines, index):
            break  # a signature, a sign-off or the message replied to follows
        if _SIGN_OFF_RE.match(stripped) and not _reads_as_order(
            line_no, stripped, vocabulary, railroad
        ):
            sheet.notes.append(
                Note(line_no, stripped, "read as a sign-off: the orders end above this line")
            )
            break
        if _is_header(stripped):
            sheet.notes.append(
                Note(line_no, stripped, "a second turnsheet header; read only the first sheet")
            )
            break
        if _DECORATION_RE.match(stripped):
            continue
        if len(stripped) > MAX_LINE_CHARS:
            errors.append(
                SheetSyntaxError(
                    f"line is {len(stripped)} characters long",
                    line_no=line_no,
                    line=stripped[:80] + "...",
                    hint="write one order per line",
                )
            )
            continue
        section = _section(line_no, stripped, vocabulary, errors)
        if section is not None:
            railroad, section_ok = section
            continue
        line = _Line(line_no, stripped, vocabulary, railroad, sheet.notes)
        if not section_ok:
            errors.append(
                line.fail(
                    SheetSyntaxError,
                    "not read: the railroad of this section is unknown",
                    "correct the RAILROAD line above it",
                )
            )
            continue
        try:
            order = _parse_order(line)
        except TurnsheetError as exc:
            errors.append(exc)
            continue
        if order is None:
            continue
        if len(sheet.lines) >= MAX_ORDERS:
            errors.append(line.fail(SheetSyntaxError, f"more than {MAX_ORDERS} orders"))
            break
        sheet.lines.append(OrderLine(line_no, stripped, order))
    if not sheet.ended:
        sheet.notes.append(
            Note(0, "", "no END line found: read the sheet to the end of the message")
        )
    if not sheet.lines and not errors:
        sheet.notes.append(
            Note(0, "", "the sheet holds no orders: if accepted, you order nothing this turn")
        )
    return sheet


def _reads_as_order(line_no: int, text: str, vocab: Vocabulary, railroad: str | None) -> bool:
    """Whether `text` reads as an order (or a section line): such a line is
    never taken for a sign-off, however it begins."""
    if _section(line_no, text, vocab, []) is not None:
        return True
    try:
        return _parse_order(_Line(line_no, text, vocab, railroad, [])) is not None
    except TurnsheetError:
        return False


def _section(
    line_no: int, text: str, vocab: Vocabulary, errors: list[TurnsheetError]
) -> tuple[str | None, bool] | None:
    """A section line: (railroad or None for personal, whether it is usable); else None."""
    words = re.sub(r"[\[\]=*:|]", " ", text).split()
    if not words:
        return None
    first = words[0].upper()
    if first == "PERSONAL":
        return None, True
    if first not in ("RAILROAD", "RR", "RAILWAY"):
        return None
    if len(words) < 2:
        errors.append(
            SheetSyntaxError(
                "RAILROAD section without a railroad",
                line_no=line_no,
                line=text,
                hint="write RAILROAD followed by its abbreviation or number, e.g. RAILROAD NYC",
            )
        )
        return None, False
    token = words[1].strip("(),.;")
    code = vocab.code(token)
    if code is None or vocab.kinds.get(code) != "PC":
        errors.append(
            UnknownName(
                f"no railroad {token!r}",
                line_no=line_no,
                line=text,
                hint=_suggest(token, vocab, "PC", "railroad"),
            )
        )
        return None, False
    return code, True
