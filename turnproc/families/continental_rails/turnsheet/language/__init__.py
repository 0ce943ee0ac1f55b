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

The modules: `grammar` (the action words, their canonical spellings and the
limits of a sheet), `parsed` (what reading a sheet yields), `reading` (a
sheet's text: header, sections, where the orders end), `actions` (one order
line and its arguments) and `writing` (orders written back).
"""

# The errors reading a sheet reports, named here as well: the order checks and
# the receipt import them with the language.
from turnproc.core.sheet_errors import (
    AmbiguousAction,
    BadAmount,
    HeaderError,
    SheetSyntaxError,
    SheetTooLarge,
    TurnsheetError,
    UnknownAction,
    UnknownName,
)
from turnproc.core.sheet_header import MAX_LINE_CHARS, MAX_SHEET_CHARS, SheetHeader, order_lines
from turnproc.families.continental_rails.turnsheet.language.grammar import (
    MAX_AMOUNT,
    MAX_ORDERS,
    PERSONAL,
    RAILROAD,
)
from turnproc.families.continental_rails.turnsheet.language.parsed import (
    Note,
    OrderLine,
    ParsedSheet,
)
from turnproc.families.continental_rails.turnsheet.language.reading import parse_turnsheet
from turnproc.families.continental_rails.turnsheet.language.writing import format_order

__all__ = [
    "MAX_AMOUNT",
    "MAX_LINE_CHARS",
    "MAX_ORDERS",
    "MAX_SHEET_CHARS",
    "PERSONAL",
    "RAILROAD",
    "AmbiguousAction",
    "BadAmount",
    "HeaderError",
    "Note",
    "OrderLine",
    "ParsedSheet",
    "SheetHeader",
    "SheetSyntaxError",
    "SheetTooLarge",
    "TurnsheetError",
    "UnknownAction",
    "UnknownName",
    "format_order",
    "order_lines",
    "parse_turnsheet",
]
