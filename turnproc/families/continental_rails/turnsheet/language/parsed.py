"""10 What reading a turnsheet yields: its header, the orders with the lines
they were read from, notes and errors."""

from dataclasses import dataclass, field

from turnproc.core.sheet_errors import TurnsheetError
from turnproc.core.sheet_header import SheetHeader
from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary


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
