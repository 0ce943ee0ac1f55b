"""9 The turn report as a PDF (ReportLab platypus), with the reader's map pages.

The page is A4 wide and US Letter tall, so it prints unscaled on either paper.
Every string a player or the data supplied passes through `typeface.para`
(Paragraph markup escaped, missing glyphs shown as code points), or is drawn
as plain text (table cells, news items) through `typeface.printable`. The PDF
is reproducible: `invariant=1` keeps timestamps and document ids constant.
"""

import io
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.fonts import tt2ps
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Preformatted,
    Spacer,
    Table,
    TableStyle,
)

from turnproc.core.money import money
from turnproc.families.continental_rails.report import internals
from turnproc.families.continental_rails.report.embedding import report_canvas
from turnproc.families.continental_rails.report.grid import Band, Grid, Look, Pair, Rule
from turnproc.families.continental_rails.report.maps import MapPages
from turnproc.families.continental_rails.report.model import CashFlow, PlayerReport
from turnproc.families.continental_rails.report.strings import strings
from turnproc.families.continental_rails.report.typeface import (
    MONO,
    NARROW,
    NARROW_BOLD,
    SANS,
    SANS_BOLD,
    para,
    printable,
    register_fonts,
)

PAGE = (595.27, 792.0)  # A4 width x Letter height: fits both papers
LANDSCAPE = (PAGE[1], PAGE[0])
MARGIN = 34.0
WIDTH = PAGE[0] - 2 * MARGIN

_GRID = colors.HexColor("#9a9a9a")
_HEAD = colors.HexColor("#e4e0d4")
_MINE = colors.HexColor("#fff4cc")
_LINES = colors.HexColor("#f6f6f6")


def _styles() -> dict[str, ParagraphStyle]:
    register_fonts()
    base = ParagraphStyle("body", fontName=SANS, fontSize=8.5, leading=10.6)
    return {
        "title": ParagraphStyle("title", parent=base, fontName=SANS_BOLD, fontSize=15, leading=19),
        "h1": ParagraphStyle(
            "h1",
            parent=base,
            fontName=SANS_BOLD,
            fontSize=11.5,
            leading=14,
            spaceBefore=9,
            spaceAfter=4,
            textColor=colors.HexColor("#5a2a0a"),
        ),
        "h2": ParagraphStyle(
            "h2",
            parent=base,
            fontName=SANS_BOLD,
            fontSize=9,
            leading=11.5,
            spaceBefore=5,
            spaceAfter=1,
            keepWithNext=1,  # never the last line of a page
        ),
        "body": base,
        "item": ParagraphStyle("item", parent=base, leftIndent=10, firstLineIndent=-7),
        "cell": ParagraphStyle("cell", fontName=NARROW, fontSize=7, leading=8.4),
        "cellb": ParagraphStyle("cellb", fontName=NARROW_BOLD, fontSize=7, leading=8.4),
        "num": ParagraphStyle("num", fontName=NARROW, fontSize=7, leading=8.4, alignment=TA_RIGHT),
        "mono": ParagraphStyle("mono", fontName=MONO, fontSize=7.2, leading=8.8),
        "note": ParagraphStyle(
            "note", parent=base, fontSize=7.5, leading=9.2, textColor=colors.HexColor("#444444")
        ),
    }


STYLES = _styles()


class _Cell(NamedTuple):
    """Table text that wraps to its column. Tables draw it as plain lines broken
    here: much faster than a Paragraph per cell, and no markup to escape."""

    text: str
    bold: bool = False


def _p(text: str, style: str = "cell") -> _Cell:
    return _Cell(text, style == "cellb")


@lru_cache(maxsize=8192)
def _lines(text: str, font: str, width: float) -> str:
    """`text` broken into lines of at most `width` points; over-long words are cut.
    Cached: most cells (railroads' lines, PCs, names) repeat in every reader's report."""
    size = 7
    out: list[str] = []
    for paragraph in printable(text).split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if stringWidth(candidate, font, size) <= width:
                line = candidate
                continue
            if line:
                out.append(line)
            line = ""
            while stringWidth(word, font, size) > width and len(word) > 1:
                cut = len(word) - 1
                while cut > 1 and stringWidth(word[:cut], font, size) > width:
                    cut -= 1
                out.append(word[:cut])
                word = word[cut:]
            line = word
        out.append(line)
    return "\n".join(out)


@lru_cache(maxsize=4096)
def _item_lines(text: str, font: str, size: float, first: float, rest: float) -> tuple[str, ...]:
    """`text` broken into lines: the first at most `first` points wide, the others
    `rest`; a word longer than a line stands alone on it."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if not line or stringWidth(candidate, font, size) <= (rest if lines else first):
            line = candidate
            continue
        lines.append(line)
        line = word
    lines.append(line)
    return tuple(lines)


class _Item(Flowable):
    """Bulleted lines of plain text with a hanging indent, one after another,
    laid out as the "item" style lays out a Paragraph each. News items print the
    same in every reader's report, so their line breaks are worked out once
    (cached) instead of parsing and breaking a Paragraph per reader; plain text
    has no markup to escape or obey. A part split onto the next page keeps the
    lines `start` to `stop` of them all."""

    def __init__(
        self,
        text: str | Sequence[str],
        style: ParagraphStyle = STYLES["item"],
        start: int = 0,
        stop: int | None = None,
    ):
        super().__init__()
        texts = [text] if isinstance(text, str) else text
        self.texts = tuple(printable(t) for t in texts)
        self.style = style
        self.start, self.stop = start, stop
        self.lines: list[tuple[bool, str]] = []

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    def _break(self, width: float) -> list[tuple[bool, str]]:
        """Each line and whether it is the first of its item (hanging)."""
        st = self.style
        rest = width - st.leftIndent - st.rightIndent
        lines: list[tuple[bool, str]] = []
        for text in self.texts:
            broken = _item_lines(text, st.fontName, st.fontSize, rest - st.firstLineIndent, rest)
            lines += [(i == 0, line) for i, line in enumerate(broken)]
        return lines[self.start : self.stop]

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.lines = self._break(avail_width)
        self.width, self.height = avail_width, len(self.lines) * self.style.leading
        return self.width, self.height

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        count = len(self._break(avail_width))
        fit = int(avail_height // self.style.leading)
        if fit <= 0 or fit >= count:
            return []
        cut = self.start + fit
        return [self._part(self.start, cut), self._part(cut, self.stop)]

    def _part(self, start: int, stop: int | None) -> "_Item":
        """The lines `start` to `stop` of this one (a part split off)."""
        return type(self)(self.texts, self.style, start, stop)

    def draw(self) -> None:
        st = self.style
        canvas: Canvas = self.canv
        canvas.setFillColor(st.textColor)
        canvas.setFont(st.fontName, st.fontSize, st.leading)
        draw = strings(canvas).left
        y = self.height - st.fontSize  # the first baseline, as in a Paragraph
        for first, line in self.lines:
            draw(st.leftIndent + (st.firstLineIndent if first else 0), y, line)
            y -= st.leading

    def getSpaceBefore(self) -> float:
        return float(self.style.spaceBefore)

    def getSpaceAfter(self) -> float:
        return float(self.style.spaceAfter)


class _Plain(_Item):
    """A paragraph of plain text in one font (a heading, a note), laid out as
    a Paragraph of that style: no markup to parse, its lines cached. Like a
    Paragraph it leaves no single first line at the foot of a page."""

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        if avail_height // self.style.leading < 2 and not self.style.allowOrphans:
            return []
        return super().split(avail_width, avail_height)


@lru_cache(maxsize=4096)
def _dated_lines(
    year: str, text: str, fonts: tuple[str, str], size: float, first: float, rest: float
) -> tuple[str, ...]:
    """`text` after the bold `year` broken into lines as a Paragraph breaks
    "<b>year</b> text": the first line at most `first` points wide, the others
    `rest`, the spaces of a line allowed to shrink by `spaceShrinkage` (5%).
    The first line holds the text after the year (perhaps nothing)."""
    bold, regular = fonts
    space = stringWidth(" ", regular, size)
    shrink = space * rl_config.spaceShrinkage
    lines: list[str] = []
    words: list[str] = []
    width = stringWidth(year, bold, size)
    gaps = 0  # spaces on the line, the one after the year included
    for word in text.split():
        wide = stringWidth(word, regular, size)
        if width + space + wide <= (rest if lines else first) + (gaps + 1) * shrink:
            words.append(word)
            width += space + wide
            gaps += 1
        else:
            lines.append(" ".join(words))
            words, width, gaps = [word], wide, 0
    lines.append(" ".join(words))
    return tuple(lines)


class _Dated(_Plain):
    """A news item led by its year in bold ("<b>1850</b> text" as a Paragraph
    of the "item" style would print it), without parsing markup: the world
    news is the same in every reader's report, so its lines are broken once."""

    def __init__(
        self,
        year: str,
        text: str,
        style: ParagraphStyle = STYLES["item"],
        start: int = 0,
        stop: int | None = None,
    ):
        super().__init__(text, style, start, stop)
        self.year = printable(year)
        self.numbered: list[tuple[int, str]] = []

    def _break(self, width: float) -> list[tuple[bool, str]]:
        st = self.style
        rest = width - st.leftIndent - st.rightIndent
        fonts = (tt2ps(st.fontName, 1, 0), st.fontName)
        broken = _dated_lines(
            self.year, self.texts[0], fonts, st.fontSize, rest - st.firstLineIndent, rest
        )
        return [(i == 0, line) for i, line in enumerate(broken)][self.start : self.stop]

    def _part(self, start: int, stop: int | None) -> _Item:
        return _Dated(self.year, self.texts[0], self.style, start, stop)

    def draw(self) -> None:
        st = self.style
        canvas: Canvas = self.canv
        canvas.setFillColor(st.textColor)
        y = self.height - st.fontSize  # the first baseline, as in a Paragraph
        bold = tt2ps(st.fontName, 1, 0)
        draw = strings(canvas).left
        for first, line in self.lines:
            x = st.leftIndent + (st.firstLineIndent if first else 0)
            if first:
                canvas.setFont(bold, st.fontSize, st.leading)
                draw(x, y, self.year)
                x += stringWidth(self.year, bold, st.fontSize)
                line = " " + line if line else line
            canvas.setFont(st.fontName, st.fontSize, st.leading)
            if line:
                draw(x, y, line)
            y -= st.leading


Run = tuple[bool, str]  # bold or not, and the text
# A Paragraph counts the spaces that may shrink on a line of mixed type a
# little differently; a line that ends within this many points of full is
# left to a Paragraph to break.
_CLOSE = 1.0


@lru_cache(maxsize=4096)
def _run_lines(
    runs: tuple[Run, ...], fonts: tuple[str, str], size: float, first: float, rest: float
) -> tuple[tuple[Run, ...], ...] | None:
    """Runs of regular and bold text broken into lines as a Paragraph of them
    ("• <b>bold</b> regular") breaks: a space is as wide as in the word before
    it, and the spaces of a line may shrink by `spaceShrinkage`. Each line is
    its runs, a run ending in the space before the next. None if a word is too
    long for a line (a Paragraph would cut it) or a line is all but full."""
    regular, bold = fonts
    shrinkage = rl_config.spaceShrinkage
    spaces = {False: stringWidth(" ", regular, size), True: stringWidth(" ", bold, size)}
    lines: list[list[tuple[bool, str]]] = []
    words: list[tuple[bool, str]] = []
    width = gaps = 0.0  # the line's width, and its spaces' widths
    for is_bold, text in runs:
        for word in text.split():
            wide = stringWidth(word, bold if is_bold else regular, size)
            if wide > rest:
                return None
            if not words:
                words, width = [(is_bold, word)], wide
                continue
            space = spaces[words[-1][0]]
            over = width + space + wide - (rest if lines else first) - (gaps + space) * shrinkage
            if abs(over) < _CLOSE:
                return None
            if over <= 0:
                words.append((is_bold, word))
                width += space + wide
                gaps += space
            else:
                lines.append(words)
                words, width, gaps = [(is_bold, word)], wide, 0.0
    lines.append(words)
    out = []
    for line in lines:
        parts: list[tuple[bool, list[str]]] = []
        for is_bold, word in line:
            if parts and parts[-1][0] == is_bold:
                parts[-1][1].append(word)
            else:
                parts.append((is_bold, [word]))
        out.append(
            tuple(
                (is_bold, " ".join(part) + (" " if i < len(parts) - 1 else ""))
                for i, (is_bold, part) in enumerate(parts)
            )
        )
    return tuple(out)


def _runs(runs: Sequence[Run], style: ParagraphStyle = STYLES["item"]) -> Flowable:
    """Plain text in runs of regular and bold type, as the Paragraph
    "run <b>run</b> run" of `style` would print it, without parsing markup
    (an engine's hint, a player's announcement). A word too long for a line
    goes to a Paragraph, which cuts it."""
    printed = tuple((is_bold, printable(text)) for is_bold, text in runs)
    words = "".join(text for _, text in printed)
    if "\xad" in words or "\xa0" in words:  # soft hyphens, hard spaces: a Paragraph's
        markup = "".join(f"<b>{escape(t)}</b>" if b else escape(t) for b, t in printed)
        return Paragraph(markup, style)
    return _Runs(printed, style)


class _Runs(_Plain):
    """Lines of `_run_lines`, laid out and split as a Paragraph would be."""

    def __init__(
        self,
        runs: tuple[Run, ...],
        style: ParagraphStyle = STYLES["item"],
        start: int = 0,
        stop: int | None = None,
    ):
        super().__init__("".join(text for _, text in runs), style, start, stop)
        self.runs = runs
        self.parts: list[tuple[Run, ...]] = []
        self.fallback: Paragraph | None = None

    def _broken(self, width: float) -> tuple[tuple[Run, ...], ...] | None:
        st = self.style
        rest = width - st.leftIndent - st.rightIndent
        fonts = (st.fontName, tt2ps(st.fontName, 1, 0))
        return _run_lines(self.runs, fonts, st.fontSize, rest - st.firstLineIndent, rest)

    def _break(self, width: float) -> list[tuple[bool, str]]:
        broken = self._broken(width) or ()
        self.parts = list(broken[self.start : self.stop])
        lines = [(i == 0, "".join(t for _, t in line)) for i, line in enumerate(broken)]
        return lines[self.start : self.stop]

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        if self._broken(avail_width) is None:
            markup = "".join(f"<b>{escape(t)}</b>" if b else escape(t) for b, t in self.runs)
            self.fallback = Paragraph(markup, self.style)
            return self.fallback.wrap(avail_width, avail_height)
        return super().wrap(avail_width, avail_height)

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        if self._broken(avail_width) is None:
            markup = "".join(f"<b>{escape(t)}</b>" if b else escape(t) for b, t in self.runs)
            return Paragraph(markup, self.style).split(avail_width, avail_height)
        return super().split(avail_width, avail_height)

    def _part(self, start: int, stop: int | None) -> _Item:
        return _Runs(self.runs, self.style, start, stop)

    def draw(self) -> None:
        if self.fallback is not None:
            self.fallback.drawOn(self.canv, 0, 0)
            return
        st = self.style
        canvas: Canvas = self.canv
        canvas.setFillColor(st.textColor)
        fonts = (st.fontName, tt2ps(st.fontName, 1, 0))
        font = ""
        draw = strings(canvas).left
        y = self.height - st.fontSize  # the first baseline, as in a Paragraph
        for (first, _), line in zip(self.lines, self.parts, strict=True):
            x = st.leftIndent + (st.firstLineIndent if first else 0)
            for is_bold, text in line:
                if fonts[is_bold] != font:
                    font = fonts[is_bold]
                    canvas.setFont(font, st.fontSize, st.leading)
                draw(x, y, text)
                x += stringWidth(text, font, st.fontSize)
            y -= st.leading


class _Preformatted(Preformatted):
    """A Preformatted (the turnsheet) whose lines are written by the string
    writer, as a Preformatted's text object writes them, when it can."""

    def draw(self) -> None:
        style = self.style
        canvas: Canvas = self.canv
        if type(canvas) is not Canvas:  # the bench's floor notes ReportLab's calls
            super().draw()
            return
        canvas.addLiteral("%PreformattedPara")
        if style.textColor:
            canvas.setFillColor(style.textColor)
        y = self.height - style.fontSize
        written = strings(canvas).lines(
            style.leftIndent, y, self.lines, style.fontName, style.fontSize, style.leading
        )
        if not written:
            text = canvas.beginText(style.leftIndent, y)
            text.setFont(style.fontName, style.fontSize, style.leading)
            for line in self.lines:
                text.textLine(line)
            canvas.drawText(text)

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        return [
            _Preformatted("\n".join(part.lines), part.style)
            for part in super().split(avail_width, avail_height)
        ]


class _Together(KeepTogether):
    """Flowables kept on one page, measured without the document's frame:
    a KeepTogether copies the frame on every measuring (in case a flowable
    adds content to it), and the report's never do."""

    def wrap(self, aW: float, aH: float) -> tuple[float, float]:
        # KeepTogether's own measuring, less the frame's copy: private to
        # ReportLab, so only with the release checked (internals.py).
        from reportlab.platypus.flowables import _listWrapOn

        dims: list[tuple[float, float]] = []
        width, self._H = _listWrapOn(self._content, aW, None, dims=dims)
        self._H0 = dims[0][1] if dims else 0
        self._wrapInfo = aW, aH
        return width, 0xFFFFFF  # always split, as a KeepTogether does


def _n(value: int | None, dollars: bool = False) -> str:
    if value is None:
        return "–"
    return money(value) if dollars else f"{value:,}"


def _table(
    header: Sequence[str],
    rows: list[list[Any]],
    widths: Sequence[float],
    numeric_from: int = 99,
    mine: Sequence[int] = (),
    extra: Sequence[tuple[Any, ...]] = (),
    code_column: bool = False,
) -> Grid:
    """A report table: grey header repeated on each page, numbers right-aligned,
    rows in `mine` (the reader's own) shaded. `extra` holds TableStyle-like
    commands: ALIGN (RIGHT), FONT (bold), SPAN (the rest of a row),
    BACKGROUND and LINEABOVE of whole rows."""
    columns = len(widths)
    spans: dict[int, tuple[int, int]] = {}
    for command in extra:
        if command[0] == "SPAN":
            (c0, r0), (c1, _) = command[1], command[2]
            spans[r0] = (c0, c1 % columns)
    cells: list[list[str | None]] = [
        [_lines(h, NARROW_BOLD, w - 5) for h, w in zip(header, widths, strict=True)]
    ]
    bold = [[True] * columns] + [[False] * columns for _ in rows]
    right = [[False] * columns] + [[c >= numeric_from for c in range(columns)] for _ in rows]
    for r, row in enumerate(rows, start=1):
        span = spans.get(r)
        texts: list[str | None] = []
        for c, cell in enumerate(row):
            if span is not None and span[0] < c <= span[1]:
                texts.append(None)  # under the spanned cell
            elif isinstance(cell, _Cell):
                font = NARROW_BOLD if cell.bold else NARROW
                width = sum(widths[c : span[1] + 1]) if span and span[0] == c else widths[c]
                texts.append(_lines(cell.text, font, width - 5))
                bold[r][c] = cell.bold
            else:
                texts.append(cell)
        cells.append(texts)
        # A spanned row (a railroad's lines) keeps the regular font.
        if code_column and span is None:
            bold[r][1] = True
    bands = [Band(0, _HEAD)] + [Band(r, _MINE) for r in mine]
    rules = [Rule(0, 0, 0.6, _GRID), Rule(1, len(rows), 0.25, _GRID)]
    for command in extra:
        name = command[0]
        if name in ("ALIGN", "FONT"):
            (c0, r0), (c1, r1) = command[1], command[2]
            for r in range(r0 % len(cells), r1 % len(cells) + 1):
                for c in range(c0 % columns, c1 % columns + 1):
                    if name == "ALIGN":
                        right[r][c] = command[3] == "RIGHT"
                    else:
                        bold[r][c] = command[3] == NARROW_BOLD
        elif name == "BACKGROUND":
            bands.append(Band(command[1][1], command[3]))
        elif name == "LINEABOVE":
            rules.append(Rule(command[1][1], command[2][1], command[3], command[4], above=True))
        elif name != "SPAN":
            raise ValueError(f"a report table has no {name} command")
    looks = [_row_looks(tuple(b), tuple(r)) for b, r in zip(bold, right, strict=True)]
    return Grid(cells, looks, widths, bands, rules, spans)


# The four types of a table cell: 7-point narrow type, bold or not, left or
# right aligned.
_LOOKS = {
    (b, r): Look(NARROW_BOLD if b else NARROW, r) for b in (False, True) for r in (False, True)
}


@lru_cache(maxsize=1024)
def _row_looks(bold: tuple[bool, ...], right: tuple[bool, ...]) -> tuple[Look, ...]:
    """A row's cell types (a few kinds of row in all the tables)."""
    return tuple(_LOOKS[b, r] for b, r in zip(bold, right, strict=True))


# Room a section needs at the foot of a page: its heading, a note, a table's
# header and a few rows; with less, it starts on the next page.
SECTION_ROOM = 110


def _section(title: str) -> list[Flowable]:
    return [CondPageBreak(SECTION_ROOM), _Plain(title, STYLES["h1"])]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Header:
    """Running head and page numbers on every page."""

    def __init__(self, report: PlayerReport):
        years = "-".join(str(y) for y in (report.years[0], report.years[-1]))
        turn = "Game start" if report.turn == 0 else f"Turn {report.turn}"
        # Shortened so that the two never meet, however long the names.
        self.left = printable(_short(f"{report.game} · {turn} ({years})", 60))
        self.right = printable(_short(report.character, 40) + f" (#{report.reader})")

    def __call__(self, canvas: Canvas, doc: BaseDocTemplate) -> None:
        width, height = doc.pageTemplate.pagesize  # this page's: the maps lie landscape
        canvas.saveState()
        canvas.setFont(NARROW, 7)
        canvas.setFillColor(colors.HexColor("#555555"))
        written = strings(canvas)
        written.left(MARGIN, height - 22, self.left)
        written.right(width - MARGIN, height - 22, self.right)
        written.centred(width / 2, 16, f"page {doc.page}")
        canvas.restoreState()


def _headlines(report: PlayerReport) -> list[Flowable]:
    out: list[Flowable] = [_Plain("9.1 Headlines", STYLES["h1"])]
    out.append(_Plain("World & National News", STYLES["h2"]))
    for year, lines in report.headlines.items():
        for line in lines:
            out.append(_Dated(str(year), line))
    out.append(_Plain("Railroad News", STYLES["h2"]))
    if not report.news:
        out.append(_Plain("A quiet turn: no railroad news.", STYLES["note"]))
    for group in report.news:
        # The title and the first two items on one page; the rest as lines.
        items = ["• " + item.text for item in group.items]
        block: list[Flowable] = [_Plain(group.title, STYLES["h2"])]
        block += [_Item(text) for text in items[:2]]
        out.append(_Together(block))
        if items[2:]:
            out.append(_Item(items[2:]))
    if report.announcements:
        out.append(_Plain("Announcements", STYLES["h2"]))
        for note in report.announcements:
            out.append(_runs([(True, f"{note.author}:"), (False, " " + note.text)]))
    if report.adjustments:
        out.append(_Plain("Moderator Adjustments", STYLES["h2"]))
        out.append(_Item(["• " + text for text in report.adjustments]))
    out.append(_Plain("Victory Points: the top five", STYLES["h2"]))
    header = [table.title for table in report.vp]
    rows = []
    for place in range(max(1, *(len(table.top) for table in report.vp))):
        row: list[Any] = []
        for table in report.vp:
            if place < len(table.top):
                entry = table.top[place]
                # Points first: a long name wraps, the figure stays beside the rank.
                who = f"{entry.character} (#{entry.position})"
                row.append(_p(f"{entry.rank}. {entry.points} – {who}"))
            else:
                row.append(_p("nobody has points yet") if place == 0 else "")
        rows.append(row)
    rows.append([_p(f"You: {t.reader_points}", "cellb") for t in report.vp])
    out.append(_table(header, rows, [WIDTH / 6] * 6, mine=[len(rows)]))
    return out


def _players(report: PlayerReport) -> list[Flowable]:
    header = [
        "Rank",
        "#",
        "Character",
        "Presides",
        "PCs",
        "Stock you may see",
        "Net worth",
        "Cash",
        "Real name, e-mail",
        "Phone",
    ]
    widths = [24, 18, 88, 46, 46, 100, 40, 38, 82, 41]
    rows = []
    mine = []
    for i, p in enumerate(report.players, start=1):
        who = p.character + ("" if p.human else " (computer)") + (" – spied" if p.spied else "")
        holdings = ", ".join(f"{code} {n}" for code, n in p.holdings.items())
        rows.append(
            [
                str(p.rank),
                str(p.position),
                _p(who),
                _p(", ".join(p.presides)),
                _p(", ".join(p.pcs)),
                _p(holdings),
                _n(p.net_worth, True),
                _n(p.cash, True),
                _p(" ".join(x for x in (p.real_name, p.email) if x)),
                _p(p.phone),
            ]
        )
        if p.position == report.reader:
            mine.append(i)
    return [
        *_section("9.2 Player Summary"),
        _Plain(
            "All positions by net worth, highest first. Stock holdings are shown for your "
            "own position, for railroads you preside over, and for players and railroads you "
            "spied on this turn.",
            STYLES["note"],
        ),
        _table(header, rows, widths, mine=mine, extra=[("ALIGN", (6, 1), (7, -1), "RIGHT")]),
    ]


def _railroads(report: PlayerReport) -> list[Flowable]:
    header = [
        "No",
        "RR",
        "Track",
        "Revenues",
        "Op. Exp.",
        "Bond Debt",
        "Loan Debt",
        "Pft/sh",
        "Div/sh",
        "Land",
        "Grant",
        "Pres",
        "Chr",
        "Other Directors",
    ]
    widths = [20, 36, 30, 42, 40, 40, 40, 30, 28, 36, 34, 26, 26, 75]
    rows: list[list[Any]] = []
    extra: list[tuple[Any, ...]] = [("ALIGN", (2, 1), (10, -1), "RIGHT")]
    mine = []
    for rr in report.railroads:
        rows.append(
            [
                str(rr.number),
                printable(rr.code),
                _n(rr.track),
                _n(rr.revenues, True),
                _n(rr.op_expense, True),
                _n(rr.bond_debt, True),
                _n(rr.loan_debt, True),
                _n(rr.profit_per_share),
                _n(rr.dividend_per_share),
                _n(rr.land),
                _n(rr.grant),
                _n(rr.president),
                _n(rr.chairman),
                _p(", ".join(str(d) for d in rr.directors)),
            ]
        )
        if rr.reader_role:
            mine.append(len(rows))
        lines = "; ".join(
            f"{line.code} {line.towns} {line.length}"
            + (" (double)" if line.double else "")
            + ("" if line.built else " (RoW, unbuilt)")
            for line in rr.lines
        )
        detail = (
            f"{rr.name} – efficiency {rr.efficiency}, locomotive {rr.locomotive}, "
            f"technologies {''.join(rr.technologies) or 'none'}. Lines: {lines}"
        )
        rows.append(["", _p(detail), *[""] * 12])
        row = len(rows)
        extra += [("SPAN", (1, row), (-1, row)), ("BACKGROUND", (0, row), (-1, row), _LINES)]
    return [
        *_section("9.3 Railroad Summary"),
        _table(header, rows, widths, mine=mine, extra=extra, code_column=True),
    ]


def _stocks(report: PlayerReport) -> list[Flowable]:
    spied = report.spied_players
    header = [
        "No",
        "RR",
        "Start",
        "High",
        "Low",
        "End",
        "Volume",
        "Issued",
        "Treasury",
        "You bought",
        "You sold",
        "Short",
        "You own",
        "Max bid",
    ]
    header += [f"#{pos} owns" for pos in spied]
    fixed = [20, 34, 30, 30, 30, 30, 36, 38, 40, 38, 36, 34, 38, 36]
    spare = WIDTH - sum(fixed)
    widths = fixed + [max(30.0, spare / max(1, len(spied)))] * len(spied)
    if spied:
        scale = WIDTH / sum(widths)
        widths = [w * scale for w in widths]
    rows = []
    mine = []
    for s in report.stocks:
        rows.append(
            [
                str(s.number),
                printable(s.code),
                _n(s.start_price),
                _n(s.high),
                _n(s.low),
                _n(s.end_price),
                _n(s.volume),
                _n(s.issued),
                _n(s.treasury),
                _n(s.bought + s.covered),
                _n(s.sold + s.shorted),
                _n(s.short),
                _n(s.holding),
                _n(s.max_bid),
                *[_n(s.spied.get(pos, 0)) for pos in spied],
            ]
        )
        if s.holding or s.bought or s.sold or s.short:
            mine.append(len(rows))
    return [
        *_section("9.4 Stock Report"),
        _Plain(
            "Prices in dollars a share; the end price is after splits and mergers. Max bid: "
            "the most shares you may bid for next turn.",
            STYLES["note"],
        ),
        _table(header, rows, widths, numeric_from=2, mine=mine, code_column=True),
    ]


def _pcs(report: PlayerReport) -> list[Flowable]:
    header = ["No", "PC", "Name", "Route", "Miles", "Asking price", "Offered by"]
    widths = [22, 40, 120, 175, 36, 56, 74]
    rows = [
        [
            str(pc.number),
            printable(pc.code),
            _p(pc.name),
            _p(pc.towns),
            _n(pc.length),
            _n(pc.asking_price, True),
            "" if pc.owner is None else f"#{pc.owner}",
        ]
        for pc in report.pcs
    ]
    out: list[Flowable] = _section("9.5 PCs Available")
    if rows:
        out.append(
            _table(
                header, rows, widths, extra=[("ALIGN", (4, 1), (5, -1), "RIGHT")], code_column=True
            )
        )
    else:
        out.append(_Plain("No PCs are available this turn.", STYLES["note"]))
    return out


def _cash_flow(flow: CashFlow, width: float = 290) -> Grid:
    rows: list[list[Any]] = [[_p("Cash at start of turn"), _n(flow.opening, True)]]
    rows += [[_p(item.text), _n(item.amount, True)] for item in flow.items]
    rows.append([_p("End cash", "cellb"), _n(flow.closing, True)])
    return _table(
        [flow.title, "Amount"],
        rows,
        [width - 60, 60],
        numeric_from=1,
        extra=[
            ("LINEABOVE", (0, len(rows)), (-1, len(rows)), 0.8, colors.black),
            ("FONT", (1, len(rows)), (1, len(rows)), NARROW_BOLD, 7),
        ],
    )


def _private(report: PlayerReport) -> list[Flowable]:
    private = report.private
    sheet = private.balance
    out: list[Flowable] = [CondPageBreak(120), _Plain("9.6 Private Report", STYLES["h1"])]
    if private.orders:
        out.append(_Plain("Your orders refused or cut", STYLES["h2"]))
        for o in private.orders:
            out.append(_runs([(False, "• "), (True, o.text), (False, " " + o.hint)]))
        out.append(Spacer(1, 6))
    out += [_cash_flow(private.cash_flow), Spacer(1, 6)]
    rows = [
        ["Cash", money(sheet.cash)],
        ["Stock at market prices", money(sheet.stock)],
        ["PCs", money(sheet.pcs)],
        ["Loans to railroads", money(sheet.loans_to_railroads)],
        ["Short-sale collateral", money(sheet.short_collateral)],
        ["Less cost to cover shorts", money(-sheet.shorts)],
        ["Assets", money(sheet.assets)],
        ["Bank loan (debt)", money(sheet.loan)],
        ["Net worth", money(sheet.net_worth)],
        ["Credit limit", money(sheet.credit_limit)],
    ]
    out.append(_table(["Balance at end of turn", ""], rows, [220, 70], numeric_from=1))
    if private.notes:
        out.append(_Plain("Private notes", STYLES["h2"]))
        out.append(_Item(["• " + n.text for n in private.notes]))
    if private.railroads:
        out.append(_Plain("Railroads you direct or spied on", STYLES["h2"]))
        half = WIDTH / 2
        if any(len(flow.items) > 40 for flow in private.railroads):
            # A nested table cannot split across pages: long books go one under another.
            for flow in private.railroads:
                out += [_cash_flow(flow), Spacer(1, 6)]
            return out
        flows = [_cash_flow(flow, half - 8) for flow in private.railroads]
        for i in range(0, len(flows), 2):
            right = flows[i + 1] if i + 1 < len(flows) else None
            out += [Pair(flows[i], right, half), Spacer(1, 6)]
    return out


def _closing(report: PlayerReport) -> list[Flowable]:
    out: list[Flowable] = []
    if report.final is not None:
        out += [PageBreak(), _Plain("Final Results", STYLES["h1"])]
        rows = [
            [
                _p(w.title, "cellb"),
                _n(w.points),
                _p(", ".join(f"{e.character} (#{e.position})" for e in w.winners)),
            ]
            for w in report.final.winners
        ]
        out.append(
            _table(
                ["Category", "VP", "Winner"],
                rows,
                [90, 40, 300],
                extra=[("ALIGN", (1, 1), (1, -1), "RIGHT")],
            )
        )
        out.append(_Plain("Records over all games", STYLES["h2"]))
        rows = [
            [_p(r.title), _n(r.score), _p(r.character), _p(r.game)] for r in report.final.records
        ]
        if rows:
            out.append(
                _table(
                    ["Category", "Score", "Holder", "Game"],
                    rows,
                    [90, 40, 170, 130],
                    extra=[("ALIGN", (1, 1), (1, -1), "RIGHT")],
                )
            )
    elif report.turnsheet:
        out += [
            PageBreak(),
            _Plain(f"Turnsheet for turn {report.next_turn}", STYLES["h1"]),
            _Preformatted(printable(report.turnsheet), STYLES["mono"]),
        ]
    return out


def _front(report: PlayerReport) -> list[Flowable]:
    years = " and ".join(str(y) for y in report.years)
    lines = [
        f"The start of the game: turn 1 covers the years {years}"
        if report.turn == 0
        else f"Turn {report.turn}: the years {years}",
        f"Report for {report.character} (player #{report.reader})",
        f"Economy: {report.climate_start} during the turn, {report.climate_end} now "
        f"(loan interest {report.loan_rate}%)",
    ]
    if report.deadline:
        lines.append(f"Orders for turn {report.next_turn} due: {report.deadline}")
    out: list[Flowable] = [
        _Plain(f"{report.game} – {report.scenario}", STYLES["title"]),
        *[_Plain(line, STYLES["body"]) for line in lines],
    ]
    if report.replaces is not None:
        out.append(
            Paragraph(f"<b>{para(report.replaces.sentence(report.turn))}</b>", STYLES["body"])
        )
    stood_in = report.stood_in
    if stood_in is not None:
        if stood_in.source == "standing":
            said = "The orders you last sent were carried out again:"
        elif stood_in.orders:
            said = "The computer played your position and gave these orders:"
        else:
            said = "Your position gave no orders this turn."
        cell = [
            Paragraph(
                f"<b>You sent no orders for turn {report.turn}.</b> {para(said)}", STYLES["body"]
            )
        ]
        if stood_in.orders:
            cell.append(Paragraph(para("   ·   ".join(stood_in.orders)), STYLES["mono"]))
        box = Table([[cell]], colWidths=[WIDTH])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), _MINE),
                    ("BOX", (0, 0), (-1, -1), 0.6, _GRID),
                    ("TOPPADDING", (0, 0), (-1, -1), 4),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                ]
            )
        )
        out += [Spacer(1, 4), box]
    return out


def render_pdf(
    report: PlayerReport, maps: MapPages | None = None, canvasmaker: Any = report_canvas
) -> bytes:
    """The whole report as PDF bytes; `maps` adds the reader's map pages.
    `canvasmaker`: makes the canvas (the bench's floor records the drawing);
    by default ReportLab's, embedding each font subset once per process."""
    buffer = io.BytesIO()
    header = _Header(report)
    doc = BaseDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=printable(f"{report.game} turn {report.turn}: report for #{report.reader}"),
        author="turnproc",
        creator="turnproc",
        invariant=1,
        # A heading kept with what follows it, measured without copying the frame.
        keepTogetherClass=_Together if internals.PRIVATE else KeepTogether,
    )
    templates = [
        PageTemplate(
            id="report",
            frames=[Frame(MARGIN, MARGIN, WIDTH, PAGE[1] - 2 * MARGIN, id="body")],
            onPage=header,
            pagesize=PAGE,
        )
    ]
    story: list[Flowable] = _front(report)
    story += _headlines(report)
    story += _players(report)
    story += _railroads(report)
    story += _stocks(report)
    story += _pcs(report)
    story += _private(report)
    if maps is not None:
        templates.append(maps.page_template(onPage=header))
        story += [NextPageTemplate("map"), PageBreak(), *maps.flowables(report)]
        story += [NextPageTemplate("report")]
    story += _closing(report)
    doc.addPageTemplates(templates)
    doc.build(story, canvasmaker=canvasmaker)
    return buffer.getvalue()
