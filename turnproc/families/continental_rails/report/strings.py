"""9 Strings of the report's text pages written on the canvas as ReportLab
writes them, for less.

ReportLab's `drawString` makes a text object for each string, looks its font
up again, splits the text into the embedded font's subsets one character at a
time and joins the operators in several steps: for the tables' 1,500 cells a
report, most of the cost of its text pages. `Strings` writes the same
operators, byte for byte, straight into the page. A string in the printable
ASCII range is the same bytes in every document (ReportLab codes those
characters of an embedded font as themselves, `ttfAsciiReadable`), so its
escaped form is made once per process; any other string goes through the
font's own `splitString`, as ReportLab's would, so characters beyond ASCII
get the codes ReportLab gives them, in the same order.

In a base font (Helvetica on the maps) a string names no font (the canvas
did when the font was set) and printable ASCII is written as itself (where
the font's encoding writes it so: not in Symbol or ZapfDingbats); other
text in a base font, empty strings, and strings on any canvas but a plain
one (the bench's floor records the calls made to its canvas and replays
them, the web's maps are SVG) are drawn by ReportLab's own calls; so is
every string with a ReportLab release other than the one checked
(internals.py).
"""

import weakref
from functools import cache
from typing import Any

from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import unicode2T1
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import textobject
from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report import internals

# The escaped form of printable ASCII strings, by text (any embedded font).
_ESCAPED: dict[str, str] = {}
ESCAPED_KEPT = 50_000
_ASCII = frozenset(range(32, 127))
_ASCII_TEXT = frozenset(map(chr, _ASCII))


class _Face:
    """An embedded font as one document names and codes it."""

    __slots__ = ("ascii", "codes", "font", "known", "learnt", "name", "sizes", "table")

    def __init__(self, font: TTFont, name: str, codes: dict[int, int]) -> None:
        self.font = font
        self.name = name  # the PDF name of its first subset: "/F1+0"
        # Every printable ASCII character has a glyph: ReportLab codes it as itself.
        self.ascii = bool(font._asciiReadable) and _ASCII.issubset(font.face.charToGlyph)
        self.sizes: dict[tuple[float, float], str] = {}  # "7 Tf 8.4 TL" by size, leading
        self.codes = codes  # the document's codes by character (ReportLab's, it adds to them)
        # The characters beyond ASCII coded in the first subset, and their codes.
        self.table: dict[int, str] = {}
        self.known = _ASCII_TEXT
        self.learnt = 0  # how many codes `table` was made from

    def size(self, size: float, leading: float) -> str:
        made = self.sizes.get((size, leading))
        if made is None:
            made = self.sizes[size, leading] = f"{fp_str(size)} Tf {fp_str(leading)} TL"
        return made

    def learn(self) -> None:
        """Takes the characters coded since the last time into `table`."""
        if len(self.codes) == self.learnt:
            return
        self.learnt = len(self.codes)
        self.table = {c: chr(n) for c, n in self.codes.items() if c > 126 and n < 256}
        self.known = _ASCII_TEXT | frozenset(map(chr, self.table))


class Strings:
    """Draws strings in the canvas's current font, size and leading, as
    `canvas.drawString` (`left`), `canvas.drawRightString` (`right`) and
    `canvas.drawCentredString` (`centred`) do."""

    def __init__(self, canvas: Canvas) -> None:
        # Weakly: the writer is kept by its canvas's entry in `_OF`, which
        # goes when the canvas (and its document) does.
        self._canvas = weakref.ref(canvas)
        self.fast = (
            internals.PRIVATE
            and type(canvas) is Canvas
            and bool(canvas.bottomup)
            and not textobject.rtlSupport
        )
        self.faces: dict[str, _Face | None] = {}  # None: a base font
        # The canvas's font, size and leading the strings were last written in,
        # their face and what selects it ("/F1+0 7 Tf 8.4 TL").
        self.key: tuple[str, float, float] | None = None
        self.face: _Face | None = None
        self.select = ""
        self.base: Any = None  # the current font if it is one of the base fonts
        self.selected: dict[tuple[str, float, float], tuple[_Face | None, str, Any]] = {}

    @property
    def canvas(self) -> Canvas:
        canvas = self._canvas()
        assert canvas is not None
        return canvas

    def left(self, x: float, y: float, text: str) -> None:
        if not self._put(x, y, text, 0.0):
            self.canvas.drawString(x, y, text)

    def right(self, x: float, y: float, text: str) -> None:
        if not self._put(x, y, text, 1.0):
            self.canvas.drawRightString(x, y, text)

    def centred(self, x: float, y: float, text: str) -> None:
        """As `canvas.drawCentredString`."""
        if not self._put(x, y, text, 0.5):
            self.canvas.drawCentredString(x, y, text)

    def lines(
        self, x: float, y: float, lines: list[str], font: str, size: float, leading: float
    ) -> bool:
        """Writes `lines` one under another from (x, y) in an embedded font, as
        a text object in that font writes them line by line (`textLine`):
        the font is selected once, and again only where a line needs another
        of its subsets. False (nothing written) if ReportLab is to draw them,
        as it does lines with no text (which name no font)."""
        if not (self.fast and any(lines)):
            return False
        key = (font, size, leading)
        if key != self.key:
            self._select(key)
        face = self.face
        if face is None:
            return False
        code = ["BT", f"1 0 0 1 {fp_str(x, y)} Tm"]
        current = -1  # the subset selected
        for line in lines:
            if not line:
                code.append(" T*")  # an empty line writes no text
                continue
            if face.ascii and line.isascii() and line.isprintable():
                shown = f"({_escaped(line)}) Tj T*"
            elif face.ascii and face.known.issuperset(line):
                codes = line.translate(face.table).encode("latin-1")
                shown = f"({escapePDF(codes)}) Tj T*"
            else:
                text, current = self._split(face, line, current)
                face.learn()
                code.append(f"{text} T*")
                continue
            if current != 0:
                shown = f"{self.select} {shown}"
                current = 0
            code.append(shown)
        code.append("ET")
        self.canvas._code.append(" ".join(code))
        return True

    def _put(self, x: float, y: float, text: str, shift: float) -> bool:
        """Writes `text` with its left end `shift` of its width left of x;
        False if ReportLab is to draw it."""
        if not (self.fast and text):
            return False
        canvas = self.canvas
        key = (canvas._fontname, canvas._fontsize, canvas._leading)
        if key != self.key:
            self._select(key)
        face = self.face
        ascii = text.isascii() and text.isprintable()
        if face is None:
            # A base font selected by the canvas already: ASCII is written as itself.
            if self.base is None or not ascii:
                return False
            if shift:
                x -= shift * self.base.stringWidth(text, key[1])
            body = f"({_escaped(text)}) Tj"
        else:
            if shift:
                x -= shift * face.font.stringWidth(text, key[1])
            if face.ascii and ascii:
                body = f"{self.select} ({_escaped(text)}) Tj"
            elif face.ascii and face.known.issuperset(text):
                # Every character already coded, all in the first subset: one run.
                codes = text.translate(face.table).encode("latin-1")
                body = f"{self.select} ({escapePDF(codes)}) Tj"
            else:
                body = self._split(face, text)[0]
                face.learn()
        canvas._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {body} T* ET")
        return True

    def _select(self, key: tuple[str, float, float]) -> None:
        """Takes the canvas's font, size and leading `key` (tables switch
        between two fonts cell by cell)."""
        selected = self.selected.get(key)
        if selected is None:
            name, size, leading = key
            face = self.faces[name] if name in self.faces else self._face(name)
            select = "" if face is None else f"{face.name} {face.size(size, leading)}"
            font = pdfmetrics.getFont(name)
            # A base font writes no font selection in a string; the canvas did (setFont).
            base = font if face is None and ascii_as_itself(name) else None
            selected = self.selected[key] = (face, select, base)
        self.key = key
        self.face, self.select, self.base = selected

    def _face(self, name: str) -> _Face | None:
        """The font `name` in this document, at its first string here: its
        codes set up (if ReportLab has not yet) as its `splitString` sets
        them up, and named as ReportLab names it at its first string."""
        font = pdfmetrics.getFont(name)
        face = None
        if isinstance(font, TTFont) and font._dynamicFont:
            doc = self.canvas._doc
            if doc not in font.state:
                font.splitString("", doc)
            face = _Face(font, font.getSubsetInternalName(0, doc), font.state[doc].assignments)
        self.faces[name] = face
        return face

    def _split(self, face: _Face, text: str, current: int = -1) -> tuple[str, int]:
        """The operators of `text` as ReportLab's `_formatText` writes them
        for an embedded font (`current`: the subset selected already), and
        the subset selected after them: each run of one subset selects it
        first, unless it is selected already."""
        doc = self.canvas._doc
        font = face.font
        size = self.select.split(" ", 1)[1]
        parts: list[str] = []
        for subset, codes in font.splitString(text, doc):
            if subset != current:
                name = face.name if subset == 0 else font.getSubsetInternalName(subset, doc)
                parts.append(f"{name} {size}")
                current = subset
            parts.append(f"({escapePDF(codes)}) Tj")
        return " ".join(parts), current


@cache
def ascii_as_itself(name: str) -> bool:
    """Whether the font `name` is a base font that writes printable ASCII as
    itself, in one run of its own (Helvetica, not Symbol)."""
    font = pdfmetrics.getFont(name)
    if font._dynamicFont or font._multiByte or not font.face.builtIn:
        return False
    text = "".join(map(chr, sorted(_ASCII)))
    return bool(unicode2T1(text, [font, *font.substitutionFonts]) == [(font, text.encode())])


def _escaped(text: str) -> str:
    """A printable ASCII string as a PDF string's contents."""
    escaped = _ESCAPED.get(text)
    if escaped is None:
        if len(_ESCAPED) >= ESCAPED_KEPT:
            _ESCAPED.clear()
        escaped = _ESCAPED[text] = escapePDF(text.encode("ascii"))
    return escaped


_OF: "weakref.WeakKeyDictionary[Canvas, Strings]" = weakref.WeakKeyDictionary()


def strings(canvas: Canvas) -> Strings:
    """The canvas's string writer (one per canvas: it knows its fonts)."""
    made = _OF.get(canvas)
    if made is None:
        made = _OF[canvas] = Strings(canvas)
    return made
