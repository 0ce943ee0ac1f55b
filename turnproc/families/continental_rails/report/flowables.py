"""The report's own flowables: plain text laid out as ReportLab's Paragraph
lays it out, with the lines worked out once and written by the string writer
(`strings.py`), and the paragraph styles of the report.

Headlines, news items, announcements and the turnsheet print the same in
every reader's report, so their line breaks are cached; a flowable here
draws the same page as the Paragraph or Preformatted it stands for.
`maps.py` titles its pages with `Plain`, `pdf.py` lays out the rest.
"""

from collections.abc import Sequence
from functools import lru_cache
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.fonts import tt2ps
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Preformatted

from turnproc.families.continental_rails.report.strings import strings
from turnproc.families.continental_rails.report.typeface import (
    MONO,
    NARROW,
    NARROW_BOLD,
    SANS,
    SANS_BOLD,
    printable,
    register_fonts,
)


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


class Item(Flowable):
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

    def _part(self, start: int, stop: int | None) -> "Item":
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


class Plain(Item):
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


class Dated(Plain):
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

    def _part(self, start: int, stop: int | None) -> Item:
        return Dated(self.year, self.texts[0], self.style, start, stop)

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


def runs(runs: Sequence[Run], style: ParagraphStyle = STYLES["item"]) -> Flowable:
    """Plain text in runs of regular and bold type, as the Paragraph
    "run <b>run</b> run" of `style` would print it, without parsing markup
    (an engine's hint, a player's announcement). A word too long for a line
    goes to a Paragraph, which cuts it."""
    printed = tuple((is_bold, printable(text)) for is_bold, text in runs)
    words = "".join(text for _, text in printed)
    if "\xad" in words or "\xa0" in words:  # soft hyphens, hard spaces: a Paragraph's
        markup = "".join(f"<b>{escape(t)}</b>" if b else escape(t) for b, t in printed)
        return Paragraph(markup, style)
    return Runs(printed, style)


class Runs(Plain):
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

    def _part(self, start: int, stop: int | None) -> Item:
        return Runs(self.runs, self.style, start, stop)

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


class WrittenPreformatted(Preformatted):
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
            WrittenPreformatted("\n".join(part.lines), part.style)
            for part in super().split(avail_width, avail_height)
        ]


class Together(KeepTogether):
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
