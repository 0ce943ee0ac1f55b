"""9 The report's tables, drawn straight on the canvas.

Every cell of a report table is plain text already broken into lines for its
column (`pdf._lines`), in one of four styles (regular or bold, left or right
aligned). So a row's height is its tallest cell's line count times the
leading, and drawing is a string per line: a general table (ReportLab's
`Table`, which styles each cell one command at a time and measures every
cell again) spends most of its time on what is known here beforehand.

A `Grid` lays out, splits and draws as a `Table` of the same cells and
commands would (header row repeated on each page, row backgrounds, rules
below rows, one spanned cell a row at most), and writes the same drawing
operators, minus the empty strings and unused font selections a `Table`
writes.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable

from turnproc.families.continental_rails.report.strings import strings

LEADING = 8.4
FONT_SIZE = 7.0
PAD_TOP = 1.5
PAD_BOTTOM = 1.5
PAD_SIDE = 2.5
PADS = PAD_BOTTOM + PAD_TOP


@dataclass(frozen=True)
class Look:
    """A cell's type: its font and whether it is right-aligned."""

    font: str
    right: bool = False


@dataclass(frozen=True)
class Rule:
    """A horizontal rule under each of the rows `first` to `last`, or with
    `above`, over row `first` (= `last`)."""

    first: int
    last: int
    weight: float
    colour: Color
    above: bool = False


@dataclass(frozen=True)
class Band:
    """A row's background."""

    row: int
    colour: Color


class Grid(Flowable):
    """A table of pre-broken plain text; row 0 is the header, repeated on
    every page the table runs onto.

    `cells[r][c]` is the cell's text (lines joined by newlines), None where a
    spanned cell covers it; `spans[r]` = (first column, last column) of the
    one spanned cell of row r. `bands` and `rules` are drawn in their order."""

    def __init__(
        self,
        cells: Sequence[Sequence[str | None]],
        looks: Sequence[Sequence[Look]],
        widths: Sequence[float],
        bands: Sequence[Band] = (),
        rules: Sequence[Rule] = (),
        spans: dict[int, tuple[int, int]] | None = None,
        heights: Sequence[float] | None = None,
    ) -> None:
        """`heights`: the rows' heights, if already measured (a part split off)."""
        super().__init__()
        self.cells = cells
        self.looks = looks
        self.widths = list(widths)
        self.bands = list(bands)
        self.rules = list(rules)
        self.spans = spans or {}
        self.columns = [0.0]
        for w in self.widths:
            self.columns.append(self.columns[-1] + w)
        self.width = self.columns[-1]
        if heights is None:
            heights = [
                LEADING * (1 + max([text.count("\n") for text in row if text])) + PADS
                if any(row)
                else LEADING + PADS
                for row in cells
            ]
        self.heights = list(heights)
        self.rows = self._positions(self.heights)
        self.height = self.rows[0]

    @staticmethod
    def _positions(heights: list[float]) -> list[float]:
        """Each row's top (and the bottom), from the top down, summed from the
        bottom with compensation as ReportLab's Table sums them (same floats)."""
        out: list[float] = []
        height = c = 0.0
        for h in reversed(heights):
            out.append(height)
            y = h - c
            t = height + y
            c = (t - height) - y
            height = t
        out.append(height)
        out.reverse()
        return out

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        """As many rows as fit (at least one under the header), then the rest
        under a repeated header; nothing if not even one row fits."""
        fit, used = 0, 0.0
        for h in self.heights:
            if used + h > avail_height:
                break
            used += h
            fit += 1
        if fit <= 1:
            return []
        if fit == len(self.heights):
            return [self]
        # A rule across the split is also drawn at the split, as a split Table does.
        rules: list[Rule] = []
        for rule in self.rules:
            if not rule.above and rule.first < fit <= rule.last + 1:
                rules.append(replace(rule, first=fit, last=fit, above=True))
            elif rule.above and rule.first <= fit <= rule.last:
                rules.append(replace(rule, first=fit - 1, last=fit - 1, above=False))
            rules.append(rule)
        top = [replace(r, last=min(r.last, fit - 1)) for r in rules if r.first < fit]
        rest: list[Rule] = []
        for rule in rules:
            if rule.first == 0:
                rest.append(replace(rule, last=0))
            if rule.last >= fit:
                first = max(rule.first - fit, 0) + 1
                rest.append(replace(rule, first=first, last=rule.last - fit + 1))
        below = [0, *range(fit, len(self.cells))]
        return [self._part(list(range(fit)), top), self._part(below, rest)]

    def _part(self, keep: list[int], rules: list[Rule]) -> "Grid":
        """The rows `keep` (the header first) with `rules`."""
        new = {old: i for i, old in enumerate(keep)}
        return Grid(
            [self.cells[r] for r in keep],
            [self.looks[r] for r in keep],
            self.widths,
            [Band(new[b.row], b.colour) for b in self.bands if b.row in new],
            rules,
            {new[r]: span for r, span in self.spans.items() if r in new},
            [self.heights[r] for r in keep],
        )

    def draw(self) -> None:
        canvas: Canvas = self.canv
        columns, rows = self.columns, self.rows
        canvas.saveState()
        for band in self.bands:
            canvas.setFillColor(band.colour)
            x0, y0 = columns[0], rows[band.row]
            canvas.rect(x0, y0, columns[-1] - x0, rows[band.row + 1] - y0, stroke=0, fill=1)
        spans = self.spans
        spanned = bool(spans)
        widths = self.widths
        heights = self.heights
        written = strings(canvas)
        draw_left, draw_right = written.left, written.right
        font = ""
        for r, (row, looks) in enumerate(zip(self.cells, self.looks, strict=True)):
            span = spans.get(r) if spanned else None
            bottom = rows[r + 1]
            # A table with a spanned cell measures every cell from its grid lines.
            height = rows[r] - bottom if spanned else heights[r]
            top = bottom + height - PAD_TOP - FONT_SIZE
            for c, text in enumerate(row):
                if not text:
                    continue
                look = looks[c]
                if look.font != font:
                    if not font:
                        canvas.setFillColor(_BLACK)
                    canvas.setFont(look.font, FONT_SIZE, LEADING)
                    font = look.font
                if look.right:
                    last = span[1] if span is not None and span[0] == c else c
                    width = columns[last + 1] - columns[c] if spanned else widths[c]
                    x = columns[c] + width - PAD_SIDE
                    if "\n" not in text:
                        draw_right(x, top, text)
                        continue
                    y = top
                    for line in text.split("\n"):
                        draw_right(x, y, line)
                        y -= LEADING
                else:
                    x = columns[c] + PAD_SIDE
                    if "\n" not in text:
                        draw_left(x, top, text)
                        continue
                    y = top
                    for line in text.split("\n"):
                        draw_left(x, y, line)
                        y -= LEADING
        canvas.saveState()
        weight: float | None = None
        colour: Color | None = None
        for i, rule in enumerate(self.rules):
            if i == 0:
                canvas.setLineCap(1)
                canvas.setLineJoin(1)
            if rule.above:
                ys = rows[rule.first : rule.last + 1]
            else:
                ys = rows[rule.first + 1 : rule.last + 2]
            if not ys:
                continue
            if rule.colour != colour:
                canvas.setStrokeColor(rule.colour)
                colour = rule.colour
            if rule.weight != weight:
                canvas.setLineWidth(rule.weight)
                weight = rule.weight
            for y in ys:
                canvas.line(columns[0], y, columns[-1], y)
        canvas.restoreState()
        canvas.restoreState()


_BLACK = Color(0, 0, 0)


class Pair(Flowable):
    """Two tables side by side, tops level, each in a column of `column`
    points, with `pad` points above and below (it does not split)."""

    def __init__(self, left: Grid, right: Grid | None, column: float, pad: float = 3.0) -> None:
        super().__init__()
        self.grids = [g for g in (left, right) if g is not None]
        self.column = column
        self.pad = pad
        self.width = column * len(self.grids)
        self.height = max(g.height for g in self.grids) + 2 * pad

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas: Canvas = self.canv
        canvas.saveState()
        for i, grid in enumerate(self.grids):
            grid.drawOn(canvas, self.column * i, self.height - self.pad - grid.height)
        canvas.restoreState()
