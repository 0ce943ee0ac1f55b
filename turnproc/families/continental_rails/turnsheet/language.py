"""10 The turnsheet: the plain-text order form a player fills in and emails back.

`parse_turnsheet(text, vocabulary)` reads a sheet into a `ParsedSheet`: the
header (game, turn, position, secret), the typed orders of
`turnproc.families.continental_rails.engine.orders` in the order written, every error (each a
`TurnsheetError` with line number, the line as written, what is wrong and a
hint) and notes such as "assuming you meant DIVIDEND". It keeps going after a
bad line so the player learns about every mistake at once.

It forgives what mail does to text: quoted `>` prefixes, signatures and
sign-offs (with a name after them, and the lines mail programs add, "Sent
from Outlook"; a line that reads as an order is always an order), the
separators mail programs put above the message replied to
("-----Original Message-----", "On ... wrote:", a "From:" block), Windows
line endings, tabs, capitals, extra spaces, abbreviations and misspelt
action words, amounts written `$1,500`. It only reads lines between the
header and the END line (or the first such separator). It never raises
anything but `SheetTooLarge`, and it runs in time linear in the length of
the text.

`format_order` writes an order back in the canonical form the parser reads,
so receipts and pre-filled sheets echo exactly what will be carried out.
"""

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic import ValidationError

from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.intake.errors import (
    AmbiguousAction,
    BadAmount,
    HeaderError,
    SheetSyntaxError,
    SheetTooLarge,
    TurnsheetError,
    UnknownAction,
    UnknownName,
)

MAX_SHEET_CHARS = 512 * 1024  # a full sheet is a few KB; quoted reports stay well under this
MAX_LINE_CHARS = 400
MAX_ORDERS = 200
MAX_AMOUNT = 1_000_000_000

_HEADER_RE = re.compile(r"^[\W_]*turn\s?sheet\b", re.IGNORECASE)
_HEADER_FIELD_RE = re.compile(
    r"\b(game|turn|player|position|pos|secret|password)\b\s*[:=#]?\s*([^\s,;]+)", re.IGNORECASE
)
_END_RE = re.compile(r"^[\W_]*end(\s+(of\s+)?turn\s?sheet)?[\W_]*$", re.IGNORECASE)
# Where a mail program starts the message replied to, or the writer signs off:
# the orders end there (Outlook, Gmail, Apple Mail and Thunderbird do not
# always quote the original with `>`, and their attribution line may wrap).
_REPLY_RE = re.compile(
    r"^(-{2,}\s*(original|forwarded) message\s*-{2,}"
    r"|_{10,}"
    r"|(from|sent|date|to|subject):\s.*"
    r"|begin forwarded message:"
    r"|.{0,300}\bwrote:"
    r"|sent from my \w+.*"
    r"|(thanks|thank you|many thanks|regards|kind regards|best regards|best wishes|best"
    r"|cheers|sincerely|yours|yours truly|yours sincerely|all the best|greetings)[\s,.!]*)\s*$",
    re.I,
)
# A sign-off with a name ("Thanks, Hetty", "Best regards, Hetty Green") or the
# line a mail program adds below the text ("Sent from Outlook", "Get Outlook
# for iOS", "Sent with Proton Mail"): the orders end there too, unless the
# line reads as an order (see `parse_turnsheet`).
_SIGN_OFF_RE = re.compile(
    r"^((sent from|get outlook for|sent (with|via|using))\s+\S.{0,200}"
    r"|(thanks|thank you|many thanks|thanks again|thx|ta|regards|kind regards|best regards"
    r"|warm regards|best wishes|best|cheers|sincerely|yours|yours truly|yours sincerely"
    r"|all the best|greetings|love|take care)[\s,.!-]+[^\W\d_][\w.'-]*"
    r"(\s+[^\W\d_][\w.'-]*){0,2}[\s.!]*)$",
    re.I,
)
_WROTE_END_RE = re.compile(r"\bwrote:\s*$", re.I)
_DECORATION_RE = re.compile(r"^[\s=*_~+.:|-]*$")
# ASCII digits only ("²" and "③" are digits to Python, not to a ledger), and
# few enough that int() stays cheap and within its limit on digits.
_AMOUNT_RE = re.compile(r"^\$?([0-9]{1,3}(?:,[0-9]{3}){1,4}|[0-9]{1,15})(?:\.0+)?\$?$")
_BLANK_RE = re.compile(r"^[_?.]+$")

PERSONAL = "personal"
RAILROAD = "railroad"

# Action words: the canonical spelling of each action first, then aliases.
# Words shared by both sections (BORROW, REPAY, BID, MERGE, SELL) mean the
# railroad's action inside a railroad section.
_PERSONAL_WORDS: dict[str, str] = {
    "NAME": "character_name",
    "CHARACTER": "character_name",
    "BORROW": "borrow",
    "LOAN": "borrow",
    "REPAY": "repay_loan",
    "BID": "bid_pc",
    "OFFER": "offer_pc",
    "INCORPORATE": "incorporate_pc",
    "INC": "incorporate_pc",
    "INCORP": "incorporate_pc",
    "MERGE": "merge_pc",
    "TREASURY": "buy_treasury",
    "LEND": "lend_to_railroad",
    "COLLECT": "collect_from_railroad",
    "PRODIGAL": "prodigal",
    "PROD": "prodigal",
    "SPEND": "prodigal",
    "SPY": "spy",
    "PRESIDENT": "request_presidency",
    "PRESIDENCY": "request_presidency",
    "PRES": "request_presidency",
    "CONTROL": "request_presidency",
    "BUY": "buy",
    "SELL": "sell",
    "SHORT": "short",
    "COVER": "cover",
}
_RAILROAD_WORDS: dict[str, str] = {
    "DIVIDEND": "dividend",
    "DIVIDENDS": "dividend",
    "DIV": "dividend",
    "BONDS": "issue_bonds",
    "REDEEM": "redeem_bonds",
    "LOAN": "short_loan",
    "BORROW": "short_loan",
    "REPAY": "repay_short_loan",
    "BID": "bid_row",
    "BUILD": "build_row",
    "LAND": "sell_land",
    "DOUBLE": "double_track",
    "LOCOMOTIVE": "upgrade_locomotive",
    "LOCO": "upgrade_locomotive",
    "ENGINE": "upgrade_locomotive",
    "UPGRADE": "upgrade_locomotive",
    "TECHNOLOGY": "buy_technology",
    "TECH": "buy_technology",
    "DONATE": "political_donation",
    "DONATION": "political_donation",
    "POLITICAL": "political_donation",
    "RATEWAR": "rate_war",
    "WAR": "rate_war",
    "IMPROVE": "capital_improvement",
    "IMPROVEMENT": "capital_improvement",
    "IMPROVEMENTS": "capital_improvement",
    "CAPITAL": "capital_improvement",
    "MERGE": "merge_railroads",
}
# Two-word spellings that name an action by their first word alone.
_SECOND_WORDS: dict[str, dict[str, str]] = {
    "ISSUE": {
        "STOCK": "issue_stock",
        "SHARES": "issue_stock",
        "BONDS": "issue_bonds",
        "BOND": "issue_bonds",
    },
    "RATE": {"WAR": "rate_war", "WARS": "rate_war"},
}
# Words a player may add that carry no meaning ("BUY 100 SHARES OF NYC").
_FILLER = frozenset(
    {
        "OF",
        "INTO",
        "WITH",
        "TO",
        "FOR",
        "ON",
        "AT",
        "IN",
        "SHARES",
        "SHARE",
        "SHS",
        "PER",
        "ACRES",
        "TRACK",
        "BONDS",
        "BOND",
        "LOAN",
        "PC",
        "ROW",
        "STOCK",
        "THE",
        "WAR",
        "LAND",
    }
)
_ALL_WORDS = sorted(set(_PERSONAL_WORDS) | set(_RAILROAD_WORDS) | set(_SECOND_WORDS))


@dataclass(frozen=True)
class SheetHeader:
    """The header line: which game, turn and position the sheet is for, and its secret."""

    game: str
    turn: int
    position: int
    secret: str
    line_no: int


@dataclass(frozen=True)
class Note:
    """Something the player should know that does not stop the sheet (a guess made)."""

    line_no: int
    line: str
    message: str


@dataclass(frozen=True)
class OrderLine:
    """One order as read: where it was written, the line as written, the typed order."""

    line_no: int
    line: str
    order: o.Order


@dataclass
class ParsedSheet:
    """Everything read from one turnsheet."""

    header: SheetHeader | None
    lines: list[OrderLine] = field(default_factory=list)
    errors: list[TurnsheetError] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    ended: bool = False  # an END line was found

    @property
    def orders(self) -> o.PlayerOrders:
        position = self.header.position if self.header else 0
        return o.PlayerOrders(position=position, orders=[line.order for line in self.lines])

    @property
    def ok(self) -> bool:
        return self.header is not None and not self.errors


@dataclass
class _Line:
    """One order line being read."""

    no: int
    text: str  # as written (without quote marks)
    vocab: Vocabulary
    railroad: str | None  # the section's railroad
    notes: list[Note]

    def fail(self, cls: type[TurnsheetError], message: str, hint: str = "") -> TurnsheetError:
        return cls(message, line_no=self.no, line=self.text, hint=hint)

    def note(self, message: str) -> None:
        self.notes.append(Note(self.no, self.text, message))


# --- reading the text ---------------------------------------------------------


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


# --- reading one order ----------------------------------------------------------


def _tokens(text: str) -> list[str]:
    for mark in ("#", "(", "@"):
        text = text.split(mark, 1)[0]
    return [t for t in (raw.strip(",;.") for raw in text.split()) if t]


def _match_word(line: _Line, word: str, scope: str) -> tuple[str, str] | None:
    """The action meant by `word` as (canonical word, action), noting any guess made."""
    if word in _PERSONAL_WORDS or word in _RAILROAD_WORDS or word in _SECOND_WORDS:
        return word, _meaning(word, scope)
    if len(word) < 3 or not word.isalpha():
        return None
    candidates = _candidates(word)
    if not candidates:
        return None
    meanings = {_meaning(w, scope) for w in candidates}
    if len(meanings) > 1:
        raise line.fail(
            AmbiguousAction,
            f"{word!r} could mean {' or '.join(sorted(candidates))}",
            "write the action word in full",
        )
    chosen = min(candidates, key=len)
    line.note(f"assuming you meant {chosen}")
    return chosen, _meaning(chosen, scope)


@lru_cache(maxsize=4096)
def _candidates(word: str) -> list[str]:
    """Action words `word` may abbreviate, else the ones it may misspell."""
    candidates = [w for w in _ALL_WORDS if w.startswith(word)]
    if candidates or len(word) > 20:
        return candidates
    # Misspellings keep the first letter or swap the first two; comparing only
    # with those words keeps a page of noise cheap to read.
    near = [
        w
        for w in _ALL_WORDS
        if abs(len(w) - len(word)) <= 3 and (w[0] == word[0] or w[1:2] == word[0])
    ]
    candidates = difflib.get_close_matches(word, near, n=3, cutoff=0.75)
    if len(candidates) > 1:
        best = difflib.SequenceMatcher(None, word, candidates[0]).ratio()
        runner = difflib.SequenceMatcher(None, word, candidates[1]).ratio()
        if best - runner >= 0.1:
            candidates = candidates[:1]
    return candidates


def _meaning(word: str, scope: str) -> str:
    if word in _SECOND_WORDS:
        return "?" + word
    if scope == RAILROAD and word in _RAILROAD_WORDS:
        return _RAILROAD_WORDS[word]
    return _PERSONAL_WORDS.get(word) or _RAILROAD_WORDS[word]


def _parse_order(line: _Line) -> o.Order | None:
    tokens = _tokens(line.text)
    if not tokens:
        return None
    railroad = line.railroad
    if tokens[0].endswith(":") and len(tokens) > 1:
        written = tokens[0].rstrip(":")
        prefix = line.vocab.code(written)
        if prefix is None or line.vocab.kinds.get(prefix) != "PC":
            raise line.fail(
                UnknownName,
                f"no railroad {written!r}",
                _suggest(written, line.vocab, "PC", "railroad"),
            )
        railroad = prefix
        tokens = tokens[1:]
    scope = RAILROAD if railroad else PERSONAL
    word = re.sub(r"[^A-Z]", "", tokens[0].upper())
    matched = _match_word(line, word, scope) if word else None
    if matched is None:
        raise line.fail(
            UnknownAction,
            f"{tokens[0]!r} is not an action of the turnsheet",
            "start each line with an action word such as BUY, SELL, BORROW, BID or "
            "DIVIDEND (see the list in the turnsheet guide)",
        )
    canonical, action = matched
    rest = tokens[1:]
    following = rest[0].upper() if rest else ""
    if action.startswith("?"):
        choices = _SECOND_WORDS[canonical]
        if following not in choices:
            raise line.fail(
                AmbiguousAction,
                f"{canonical} needs one of {', '.join(sorted(choices))} after it",
                f"write e.g. {canonical} {next(iter(choices))} ...",
            )
        action = choices[following]
        rest = rest[1:]
    elif canonical == "SELL" and following == "LAND":
        action, rest = "sell_land", rest[1:]
    elif canonical == "BUY" and following == "TREASURY":
        action, rest = "buy_treasury", rest[1:]
    elif canonical == "SPY" and following in ("RAILROAD", "RR"):
        action, rest = "spy_railroad", rest[1:]
    elif canonical == "SPY" and following == "PLAYER":
        action, rest = "spy_player", rest[1:]
    args = [t for t in rest if t.upper() not in _FILLER or line.vocab.code(t) is not None]
    if args and all(_BLANK_RE.match(a) for a in args):
        return None  # an unfilled line of the form
    if not args and action != "character_name":
        raise line.fail(
            SheetSyntaxError, f"{canonical} needs more words", _EXAMPLES.get(action, "")
        )
    blank = next((a for a in args if _BLANK_RE.match(a)), None)
    if blank is not None:
        raise line.fail(
            SheetSyntaxError,
            f"a blank {blank!r} is left on the line",
            "fill it in or delete the line",
        )
    try:
        if action in _RAILROAD_ONLY:
            return _railroad_order(line, action, args, railroad)
        return _BUILDERS[action](line, args, railroad, _rest_of_line(line.text, tokens[0]))
    except ValidationError as exc:
        raise line.fail(BadAmount, exc.errors()[0]["msg"], _EXAMPLES.get(action, "")) from None


def _rest_of_line(text: str, written: str) -> str:
    """The text after the action word, in the player's own case (for a name or a town)."""
    text = text.split("#", 1)[0].strip()
    found = re.search(rf"(?<!\S){re.escape(written)}(?!\S)", text, re.IGNORECASE)
    return text[found.end() :].strip() if found else ""


# --- argument readers -----------------------------------------------------------


def _amount(
    line: _Line, token: str, what: str = "amount", low: int = 0, high: int = MAX_AMOUNT
) -> int:
    cleaned = token.rstrip("%")
    match = _AMOUNT_RE.match(cleaned)
    if not match:
        raise line.fail(
            BadAmount,
            f"the {what} {token!r} is not a whole number",
            f"write the {what} as digits, e.g. 1500 or $1,500",
        )
    value = int(match.group(1).replace(",", ""))
    if not low <= value <= high:
        raise line.fail(
            BadAmount,
            f"the {what} {value} is outside {low}-{high}",
            f"write a {what} from {low} to {high}",
        )
    return value


def _is_number(token: str) -> bool:
    return bool(_AMOUNT_RE.match(token.rstrip("%")))


def _route(line: _Line, token: str, kind: str | None, what: str) -> str:
    code = line.vocab.code(token)
    if code is None:
        raise line.fail(
            UnknownName, f"no {what} {token!r}", _suggest(token, line.vocab, kind, what)
        )
    actual = line.vocab.kinds.get(code)
    if kind is not None and actual != kind:
        shown = "a PC (or railroad)" if actual == "PC" else "a RoW"
        raise line.fail(
            SheetSyntaxError, f"{code} is {shown}, not a {what}", _EXAMPLES.get(what, "")
        )
    return code


def _suggest(token: str, vocab: Vocabulary, kind: str | None, what: str) -> str:
    if token.isdigit():
        return f"no route has the number {token}; use the {what}'s abbreviation or number"
    named = vocab.by_name(token) if kind in (None, "PC") else []
    if named:
        return "did you mean " + " or ".join(f"{c} ({vocab.names[c]})" for c in named) + "?"
    close = difflib.get_close_matches(token.upper(), vocab.codes_of_kind(kind), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(close) + "?"
    return f"use the {what}'s abbreviation or number as printed in your report"


def _order_code_amount(
    line: _Line, args: list[str], what: str, amount_what: str, amount_first: bool
) -> tuple[str, str]:
    """Which of two words is the code and which the number (code, number).

    Either order is read; when both look like numbers the canonical order
    decides (the number first for stock orders, the code first otherwise).
    """
    if len(args) != 2:
        raise line.fail(
            SheetSyntaxError,
            f"expected {_a(what)} and {_a(amount_what)}, found {len(args)} word(s)",
            _EXAMPLES.get(what, ""),
        )
    first, second = args
    if _is_number(first) and _is_number(second):
        return (second, first) if amount_first else (first, second)
    if _is_number(first):
        return second, first
    if _is_number(second):
        return first, second
    raise line.fail(BadAmount, f"no {amount_what} given", _EXAMPLES.get(what, ""))


def _code_and_amount(
    line: _Line,
    args: list[str],
    kind: str | None,
    what: str,
    amount_what: str,
    amount_first: bool = False,
) -> tuple[str, int]:
    code_token, amount_token = _order_code_amount(line, args, what, amount_what, amount_first)
    return _route(line, code_token, kind, what), _amount(line, amount_token, amount_what)


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _locomotive(line: _Line, args: list[str]) -> int:
    """4.17 A locomotive type by number or by name, as reports write it: 3,
    AMERICAN, "American (3)"."""
    words = " ".join(args).replace("(", " ").replace(")", " ").split()
    if len(words) == 1 and _is_number(words[0]):
        return _amount(line, words[0], "locomotive number", 2, 9)
    names = line.vocab.locomotives
    name = " ".join(w for w in words if not w.isdigit()).casefold()
    if name in names:
        number = names[name]
        written = [int(w) for w in words if w.isdigit()]
        if written and written != [number]:
            raise line.fail(
                BadAmount,
                f"the {name.title()} is locomotive {number}, not {written[0]}",
                f"write LOCOMOTIVE {number}",
            )
        if number < 2:
            raise line.fail(
                BadAmount,
                f"the {name.title()} ({number}) is where every railroad starts",
                "upgrade to locomotive 2 or better",
            )
        return number
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.7)
    if close:
        raise line.fail(
            UnknownName,
            f"no locomotive called {' '.join(words)!r}",
            f"did you mean LOCOMOTIVE {close[0].upper()} ({names[close[0]]})?",
        )
    known = ", ".join(f"{n.title()} ({t})" for n, t in sorted(names.items(), key=lambda x: x[1]))
    raise line.fail(
        SheetSyntaxError,
        f"expected a locomotive number or name, found {' '.join(args)!r}",
        f"e.g. LOCOMOTIVE 3; the types: {known}" if known else _EXAMPLES["locomotive"],
    )


def _one(line: _Line, args: list[str], what: str) -> str:
    if len(args) != 1:
        raise line.fail(
            SheetSyntaxError,
            f"expected one {what}, found {len(args)} word(s)",
            _EXAMPLES.get(what, ""),
        )
    return args[0]


def _need_railroad(line: _Line, railroad: str | None, action: str) -> str:
    if railroad is None:
        raise line.fail(
            SheetSyntaxError,
            f"{_CANONICAL[action]} is a railroad action",
            f"write it under the RAILROAD section of the railroad, or as "
            f"'NYC: {_CANONICAL[action]} ...' with the railroad's abbreviation",
        )
    return railroad


_Builder = Callable[[_Line, list[str], str | None, str], o.Order]


def _b_name(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    rest = " ".join(rest.split())
    if not rest:
        raise line.fail(SheetSyntaxError, "NAME needs the character name", "e.g. NAME Jay Gould")
    if len(rest) > 40:
        raise line.fail(
            SheetSyntaxError, "the name is longer than 40 characters", "choose a shorter name"
        )
    return o.SetCharacterName(name=rest)


def _amount_order(cls: Callable[..., o.Order], what: str = "amount") -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        return cls(amount=_amount(line, _one(line, args, what), what))

    return build


def _b_bid(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    """10.1 BID for a PC, or 10.2 a railroad's BID for a RoW: the route's kind decides."""
    code_token, amount_token = _order_code_amount(line, args, "PC or RoW", "amount", False)
    code = _route(line, code_token, None, "PC or RoW")
    amount = _amount(line, amount_token)
    if line.vocab.kinds.get(code) == "RoW":
        return o.BidForRoW(
            railroad=_need_railroad(line, railroad, "bid_row"), row=code, amount=amount
        )
    return o.BidForPC(pc=code, amount=amount)


def _b_offer(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    pc, price = _code_and_amount(line, args, "PC", "PC", "asking price")
    return o.OfferPC(pc=pc, price=price)


def _b_incorporate(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.IncorporatePC(pc=_route(line, _one(line, args, "PC"), "PC", "PC"))


def _b_merge(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    if len(args) == 2:
        pc = _route(line, args[0], "PC", "PC")
        rr = _route(line, args[1], "PC", "railroad")
        return o.MergePC(pc=pc, railroad=rr)
    if len(args) == 1 and railroad is not None:
        other = _route(line, args[0], "PC", "railroad")
        return o.MergeRailroads(railroad=railroad, other=other)
    raise line.fail(
        SheetSyntaxError,
        "MERGE needs a PC and the railroad it merges into",
        "e.g. MERGE B&M INTO NYC (a PC), or MERGE ERIE under a railroad's section",
    )


def _b_treasury(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    if len(args) == 1 and railroad is not None:
        args = [railroad, *args]
    rr, shares = _code_and_amount(
        line, args, "PC", "railroad", "number of shares", amount_first=True
    )
    return o.BuyTreasuryStock(railroad=rr, shares=_positive(line, shares))


def _positive(line: _Line, value: int) -> int:
    if value <= 0:
        raise line.fail(BadAmount, "the number must be at least 1", "write a number of 1 or more")
    return value


def _rr_amount(cls: Callable[..., o.Order]) -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        if len(args) == 1 and railroad is not None:
            args = [railroad, *args]
        rr, amount = _code_and_amount(line, args, "PC", "railroad", "amount")
        return cls(railroad=rr, amount=amount)

    return build


def _b_spy(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    token = _one(line, args, "player number or railroad")
    if token.isascii() and token.isdigit():
        return o.SpyOnPlayer(target=_amount(line, token, "player number", 1, line.vocab.positions))
    return o.SpyOnRailroad(railroad=_route(line, token, "PC", "railroad"))


def _b_spy_player(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    token = _one(line, args, "player number")
    return o.SpyOnPlayer(target=_amount(line, token, "player number", 1, line.vocab.positions))


def _b_spy_railroad(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.SpyOnRailroad(railroad=_route(line, _one(line, args, "railroad"), "PC", "railroad"))


def _b_president(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.RequestPresidency(
        railroad=_route(line, _one(line, args, "railroad"), "PC", "railroad")
    )


def _stock(cls: Callable[..., o.Order]) -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        rr, shares = _code_and_amount(
            line, args, "PC", "railroad", "number of shares", amount_first=True
        )
        return cls(railroad=rr, shares=_positive(line, shares))

    return build


_BUILDERS: dict[str, _Builder] = {
    "character_name": _b_name,
    "borrow": _amount_order(o.Borrow),
    "repay_loan": _amount_order(o.RepayLoan),
    "bid_pc": _b_bid,
    "bid_row": _b_bid,
    "offer_pc": _b_offer,
    "incorporate_pc": _b_incorporate,
    "merge_pc": _b_merge,
    "merge_railroads": _b_merge,
    "buy_treasury": _b_treasury,
    "lend_to_railroad": _rr_amount(o.LendToRailroad),
    "collect_from_railroad": _rr_amount(o.CollectFromRailroad),
    "prodigal": _amount_order(o.ProdigalSpending),
    "spy": _b_spy,
    "spy_player": _b_spy_player,
    "spy_railroad": _b_spy_railroad,
    "request_presidency": _b_president,
    "buy": _stock(o.BuyStock),
    "sell": _stock(o.SellStock),
    "short": _stock(o.ShortSell),
    "cover": _stock(o.CoverShort),
}

_RAILROAD_ONLY = frozenset(
    {
        "dividend",
        "issue_stock",
        "issue_bonds",
        "redeem_bonds",
        "short_loan",
        "repay_short_loan",
        "build_row",
        "sell_land",
        "double_track",
        "upgrade_locomotive",
        "buy_technology",
        "political_donation",
        "rate_war",
        "capital_improvement",
    }
)


def _railroad_order(line: _Line, action: str, args: list[str], railroad: str | None) -> o.Order:
    """10.2 Railroad actions; outside a railroad section the railroad may come first."""
    expected = 2 if action == "rate_war" else 1
    if len(args) > expected:
        code = line.vocab.code(args[0])
        if code is not None and line.vocab.kinds.get(code) == "PC" and railroad in (None, code):
            railroad, args = code, args[1:]
    rr = _need_railroad(line, railroad, action)
    if action == "dividend":
        value = _amount(line, _one(line, args, "dividend"), "dividend", 0, 99)
        return o.SetDividend(railroad=rr, per_share=value)
    if action in ("issue_stock", "sell_land"):
        what = "number of shares" if action == "issue_stock" else "number of acres"
        value = _positive(line, _amount(line, _one(line, args, what), what))
        if action == "issue_stock":
            return o.IssueStock(railroad=rr, shares=value)
        return o.SellLand(railroad=rr, acres=value)
    amount_orders: dict[str, Callable[..., o.Order]] = {
        "issue_bonds": o.IssueBonds,
        "redeem_bonds": o.RedeemBonds,
        "short_loan": o.TakeShortLoan,
        "repay_short_loan": o.RepayShortLoan,
        "political_donation": o.PoliticalDonation,
        "capital_improvement": o.CapitalImprovement,
    }
    if action in amount_orders:
        value = _amount(line, _one(line, args, "amount"))
        return amount_orders[action](railroad=rr, amount=value)
    if action == "build_row":
        return o.BuildRoW(railroad=rr, row=_route(line, _one(line, args, "RoW"), "RoW", "RoW"))
    if action == "double_track":
        return o.DoubleTrack(railroad=rr, line=_route(line, _one(line, args, "line"), None, "line"))
    if action == "upgrade_locomotive":
        return o.UpgradeLocomotive(railroad=rr, locomotive=_locomotive(line, args))
    if action == "buy_technology":
        return _technology(line, args, rr)
    rival, percent = _code_and_amount(line, args, "PC", "railroad", "percent")
    if percent > 90:
        raise line.fail(BadAmount, f"a rate war of {percent}% is over 90%", "write 1 to 90")
    return o.DeclareRateWar(railroad=rr, rival=rival, percent=percent)


def _technology(line: _Line, args: list[str], rr: str) -> o.Order:
    letter = args[0].upper()
    if not re.fullmatch(r"[A-J]", letter):
        raise line.fail(
            UnknownName, f"no technology {args[0]!r}", "technologies are the letters A to J"
        )
    town: str | None = None
    if len(args) > 1:
        after = _rest_of_line(line.text, args[0])
        written = after.split("(", 1)[0].strip() or " ".join(args[1:])
        town = line.vocab.town(written)
        if town is None:
            raise line.fail(
                UnknownName, f"no town {written!r}", "write the town as named on the map"
            )
    return o.BuyTechnology(railroad=rr, technology=letter, town=town)


# --- writing orders back ------------------------------------------------------------

_CANONICAL: dict[str, str] = {
    "character_name": "NAME",
    "borrow": "BORROW",
    "repay_loan": "REPAY",
    "bid_pc": "BID",
    "offer_pc": "OFFER",
    "incorporate_pc": "INCORPORATE",
    "merge_pc": "MERGE",
    "buy_treasury": "TREASURY",
    "lend_to_railroad": "LEND",
    "collect_from_railroad": "COLLECT",
    "prodigal": "PRODIGAL",
    "spy": "SPY",
    "spy_player": "SPY PLAYER",
    "spy_railroad": "SPY RAILROAD",
    "request_presidency": "PRESIDENT",
    "buy": "BUY",
    "sell": "SELL",
    "short": "SHORT",
    "cover": "COVER",
    "dividend": "DIVIDEND",
    "issue_stock": "ISSUE STOCK",
    "issue_bonds": "ISSUE BONDS",
    "redeem_bonds": "REDEEM BONDS",
    "short_loan": "LOAN",
    "repay_short_loan": "REPAY LOAN",
    "bid_row": "BID",
    "build_row": "BUILD",
    "sell_land": "SELL LAND",
    "double_track": "DOUBLE TRACK",
    "upgrade_locomotive": "LOCOMOTIVE",
    "buy_technology": "TECHNOLOGY",
    "political_donation": "DONATE",
    "rate_war": "RATE WAR",
    "capital_improvement": "IMPROVE",
    "merge_railroads": "MERGE",
}

_EXAMPLES: dict[str, str] = {
    "borrow": "e.g. BORROW 1000",
    "repay_loan": "e.g. REPAY 500",
    "bid_pc": "e.g. BID B&M 650",
    "PC": "e.g. BID B&M 650, INCORPORATE B&M, MERGE B&M INTO NYC",
    "RoW": "e.g. BID NY1 300 or BUILD NY1 under the railroad's section",
    "railroad": "e.g. BUY 100 NYC, PRESIDENT NYC, LEND NYC 500",
    "line": "e.g. DOUBLE TRACK NYC",
    "amount": "write the amount in dollars, e.g. 1500",
    "dividend": "e.g. DIVIDEND 3 (dollars per share, 0 to 99)",
    "buy_technology": "e.g. TECHNOLOGY B, or TECHNOLOGY A Boston for a Grand Station",
    "player number": "e.g. SPY 7",
    "player number or railroad": "e.g. SPY 7 (a player) or SPY NYC (a railroad)",
    "locomotive": "e.g. LOCOMOTIVE 3",
    "number of shares": "e.g. ISSUE STOCK 100",
    "number of acres": "e.g. SELL LAND 100",
}


def format_order(order: o.Order, *, with_railroad: bool = True) -> str:
    """The canonical turnsheet line for `order`; railroad actions carry a
    `CODE:` prefix unless `with_railroad` is false (inside its own section)."""
    words = _CANONICAL[order.kind]
    match order:
        case o.SetCharacterName(name=name):
            return f"NAME {name}"
        case o.Borrow(amount=a) | o.RepayLoan(amount=a) | o.ProdigalSpending(amount=a):
            return f"{words} {a}"
        case o.BidForPC(pc=pc, amount=a):
            return f"BID {pc} {a}"
        case o.OfferPC(pc=pc, price=price):
            return f"OFFER {pc} {price}"
        case o.IncorporatePC(pc=pc):
            return f"INCORPORATE {pc}"
        case o.MergePC(pc=pc, railroad=rr):
            return f"MERGE {pc} INTO {rr}"
        case o.BuyTreasuryStock(railroad=rr, shares=n):
            return f"TREASURY {n} {rr}"
        case o.LendToRailroad(railroad=rr, amount=a) | o.CollectFromRailroad(railroad=rr, amount=a):
            return f"{words} {rr} {a}"
        case o.SpyOnPlayer(target=p):
            return f"SPY PLAYER {p}"
        case o.SpyOnRailroad(railroad=rr):
            return f"SPY RAILROAD {rr}"
        case o.RequestPresidency(railroad=rr):
            return f"PRESIDENT {rr}"
        case o.BuyStock() | o.SellStock() | o.ShortSell() | o.CoverShort():
            return f"{words} {order.shares} {order.railroad}"
    text = _railroad_words(order)
    railroad = getattr(order, "railroad", "")
    return f"{railroad}: {text}" if with_railroad else text


def _railroad_words(order: o.Order) -> str:
    words = _CANONICAL[order.kind]
    match order:
        case o.SetDividend(per_share=n):
            return f"{words} {n}"
        case o.IssueStock(shares=n):
            return f"{words} {n}"
        case o.SellLand(acres=n):
            return f"{words} {n}"
        case o.BidForRoW(row=row, amount=a):
            return f"{words} {row} {a}"
        case o.BuildRoW(row=row):
            return f"{words} {row}"
        case o.DoubleTrack(line=code):
            return f"{words} {code}"
        case o.UpgradeLocomotive(locomotive=n):
            return f"{words} {n}"
        case o.BuyTechnology(technology=t, town=town):
            return f"{words} {t}" + (f" {town}" if town else "")
        case o.DeclareRateWar(rival=rival, percent=p):
            return f"{words} {rival} {p}%"
        case o.MergeRailroads(other=other):
            return f"{words} {other}"
    amount = getattr(order, "amount", 0)
    return f"{words} {amount}"
