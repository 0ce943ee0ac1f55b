"""10 Reading a turnsheet's text: the header, the sections, and where the
orders end (quoted replies, signatures, separators)."""

import re

from turnproc.core.sheet_errors import (
    HeaderError,
    SheetSyntaxError,
    TurnsheetError,
    UnknownName,
)
from turnproc.core.sheet_header import (
    END_RE,
    MAX_LINE_CHARS,
    check_size,
    is_header,
    parse_header,
    sheet_lines,
)
from turnproc.families.continental_rails.turnsheet.language.actions import _parse_order, _suggest
from turnproc.families.continental_rails.turnsheet.language.grammar import (
    _DECORATION_RE,
    _REPLY_RE,
    _SIGN_OFF_RE,
    _WROTE_END_RE,
    MAX_ORDERS,
)
from turnproc.families.continental_rails.turnsheet.language.parsed import (
    Note,
    OrderLine,
    ParsedSheet,
    _Line,
)
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary


def _wrapped_wrote(lines: list[tuple[int, str]], index: int) -> bool:
    """Gmail's "On <date> <name> <" wraps its "address> wrote:" onto the next line."""
    if not lines[index][1].lstrip().lower().startswith("on ") or index + 1 >= len(lines):
        return False
    return bool(_WROTE_END_RE.search(lines[index + 1][1][:MAX_LINE_CHARS]))


def parse_turnsheet(
    text: str, vocabulary: Vocabulary, prefer: frozenset[int] = frozenset()
) -> ParsedSheet:
    """10 Read a turnsheet. Raises only `SheetTooLarge`; every other problem is listed.
    `prefer`: the sender's positions, whose header wins over others."""
    check_size(text)
    lines, header_no = sheet_lines(text, prefer)
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
            sheet.header = parse_header(line_no, content.strip(), errors)
            started = True
            continue
        if not started:
            continue
        stripped = content.strip()
        if END_RE.match(stripped):
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
        if is_header(stripped):
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
