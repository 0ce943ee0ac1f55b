"""Typed turnsheet errors, one class per kind of mistake (like python-chess's
parse errors). Each carries the line number, the line as written, what is
wrong and a hint on how to fix it, so a receipt can list every one.
"""


class TurnsheetError(ValueError):
    """A problem with one line of a turnsheet, or with the sheet as a whole (line 0)."""

    code = "SYNTAX"

    def __init__(self, message: str, *, line_no: int = 0, line: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line_no = line_no
        self.line = line
        self.hint = hint

    def __str__(self) -> str:
        where = f"line {self.line_no}: " if self.line_no else ""
        return f"{where}{self.message}"


class SheetSyntaxError(TurnsheetError):
    """The line does not have the shape of an order (missing or extra words)."""

    code = "SYNTAX"


class UnknownAction(TurnsheetError):
    """The first word is no action of the turnsheet, not even a misspelt one."""

    code = "UNKNOWN_ACTION"


class AmbiguousAction(TurnsheetError):
    """The word could stand for more than one action."""

    code = "AMBIGUOUS_ACTION"


class BadAmount(TurnsheetError):
    """A number that is not a whole number, or outside the allowed range."""

    code = "BAD_AMOUNT"


class UnknownName(TurnsheetError):
    """A railroad, PC, RoW, town or technology that the game does not know."""

    code = "UNKNOWN_NAME"


class HeaderError(TurnsheetError):
    """The turnsheet header line is missing or incomplete."""

    code = "HEADER"


class SheetTooLarge(TurnsheetError):
    """The message is far larger than any turnsheet; refused unread."""

    code = "TOO_LARGE"


class NoTextFound(TurnsheetError):
    """The message holds no readable text (binary, empty or broken MIME)."""

    code = "NO_TEXT"


class OrderRefused(TurnsheetError):
    """The order is well formed but the live game does not allow it.

    `code` is the named reason of
    turnproc.families.continental_rails.engine.reasons (e.g. NOT_PRESIDENT).
    """

    def __init__(
        self, message: str, *, reason: str, line_no: int = 0, line: str = "", hint: str = ""
    ) -> None:
        super().__init__(message, line_no=line_no, line=line, hint=hint)
        self.code = reason
