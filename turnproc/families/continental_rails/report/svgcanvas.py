"""An SVG drawer with the drawing calls of ReportLab's canvas that the map layout uses.

`mapdraw` and `maps.draw_page` lay out a map (projection, lines, towns, label
placement, legend corner) and draw it with canvas calls: on ReportLab's canvas
for the PDF report, on this one for the web, so both show the same map from one
layout. Text is measured with ReportLab's font metrics, as on the PDF, so the
labels are placed where the PDF places them.

Coordinates come in PDF fashion (points, y upwards) and are written with y
downwards, as SVG has it. Every text is XML-escaped: railroad names are chosen
by players.
"""

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from reportlab.lib.colors import Color
from reportlab.pdfbase.pdfmetrics import stringWidth

_CAPS = ("butt", "round", "square")
_JOINS = ("miter", "round", "bevel")
_FONTS = {
    "Helvetica": ("Helvetica, Arial, sans-serif", "normal"),
    "Helvetica-Bold": ("Helvetica, Arial, sans-serif", "bold"),
}


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _colour(value: Color | str) -> str:
    if isinstance(value, str):
        return value
    red, green, blue = (round(part * 255) for part in (value.red, value.green, value.blue))
    return f"#{red:02x}{green:02x}{blue:02x}"


class SvgPath:
    """A path under construction, as ReportLab's `beginPath()` gives."""

    def __init__(self, canvas: "SvgCanvas") -> None:
        self.canvas = canvas
        self.parts: list[str] = []

    def moveTo(self, x: float, y: float) -> None:  # ReportLab's method names, camelCase
        self.parts.append(f"M{_num(x)} {_num(self.canvas.flip(y))}")

    def lineTo(self, x: float, y: float) -> None:
        self.parts.append(f"L{_num(x)} {_num(self.canvas.flip(y))}")

    def close(self) -> None:
        self.parts.append("Z")

    def rect(self, x: float, y: float, width: float, height: float) -> None:
        self.moveTo(x, y)
        self.lineTo(x + width, y)
        self.lineTo(x + width, y + height)
        self.lineTo(x, y + height)
        self.close()

    def data(self) -> str:
        return "".join(self.parts)


class SvgText:
    """A text object, as ReportLab's `beginText()` gives: the map draws a label
    twice, stroked (its halo) then filled."""

    def __init__(self, canvas: "SvgCanvas", x: float, y: float) -> None:
        self.canvas = canvas
        self.x, self.y = x, y
        self.font = canvas.font
        self.size = canvas.font_size
        self.mode = 0
        self.fill = canvas.fill
        self.runs: list[tuple[float, float, str, str, int, str]] = []

    def setFont(self, name: str, size: float) -> None:
        self.font, self.size = name, size

    def setTextRenderMode(self, mode: int) -> None:
        self.mode = mode

    def setTextOrigin(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def setFillColor(self, value: Color | str) -> None:
        self.fill = _colour(value)

    def textOut(self, text: str) -> None:
        self.runs.append((self.x, self.y, self.font, text, self.mode, self.fill))
        self.x += stringWidth(text, self.font, self.size)


class SvgCanvas:
    """The canvas calls `mapdraw` and `maps` make, written as SVG elements."""

    def __init__(self, width: float, height: float, ids: str = "clip") -> None:
        """`ids`: the prefix of the clip paths' ids, so drawings put together differ."""
        self.width, self.height = width, height
        self.ids = ids
        self.out: list[str] = []
        self.fill = "#000000"
        self.stroke = "#000000"
        self.line_width = 1.0
        self.dash: tuple[float, ...] = ()
        self.dash_offset = 0.0
        self.cap = 0
        self.join = 0
        self.fill_alpha = 1.0
        self.font = "Helvetica"
        self.font_size = 10.0
        self._states: list[tuple[object, ...]] = []
        self._groups: list[int] = []  # open clip groups at each saved state
        self._open = 0
        self._clips = 0

    def flip(self, y: float) -> float:
        return self.height - y

    # --- state ------------------------------------------------------------------

    def saveState(self) -> None:
        self._states.append(
            (
                self.fill,
                self.stroke,
                self.line_width,
                self.dash,
                self.dash_offset,
                self.cap,
                self.join,
                self.fill_alpha,
                self.font,
                self.font_size,
            )
        )
        self._groups.append(self._open)

    def restoreState(self) -> None:
        (
            self.fill,
            self.stroke,
            self.line_width,
            self.dash,
            self.dash_offset,
            self.cap,
            self.join,
            self.fill_alpha,
            self.font,
            self.font_size,
        ) = self._states.pop()  # type: ignore[assignment]
        opened = self._groups.pop()
        while self._open > opened:
            self.out.append("</g>")
            self._open -= 1

    def setFillColor(self, value: Color | str) -> None:
        self.fill = _colour(value)

    def setStrokeColor(self, value: Color | str) -> None:
        self.stroke = _colour(value)

    def setLineWidth(self, width: float) -> None:
        self.line_width = width

    def setLineCap(self, cap: int) -> None:
        self.cap = cap

    def setLineJoin(self, join: int) -> None:
        self.join = join

    def setDash(self, array: Sequence[float] | float = (), phase: float = 0) -> None:
        # ReportLab takes setDash([on, off, ...]), setDash(on, off) or setDash().
        if isinstance(array, int | float):
            self.dash, self.dash_offset = (float(array), float(phase)), 0.0
        else:
            self.dash, self.dash_offset = tuple(float(part) for part in array), float(phase)

    def setFillAlpha(self, alpha: float) -> None:
        self.fill_alpha = alpha

    def setFont(self, name: str, size: float) -> None:
        self.font, self.font_size = name, size

    def stringWidth(self, text: str, font: str, size: float) -> float:
        return float(stringWidth(text, font, size))

    # --- shapes -----------------------------------------------------------------

    def _paint(self, stroke: int, fill: int) -> str:
        parts = [f'fill="{self.fill}"' if fill else 'fill="none"']
        if fill and self.fill_alpha < 1:
            parts.append(f'fill-opacity="{_num(self.fill_alpha)}"')
        if stroke:
            parts.append(f'stroke="{self.stroke}" stroke-width="{self.line_width:.2f}"')
            if self.cap:
                parts.append(f'stroke-linecap="{_CAPS[self.cap]}"')
            if self.join:
                parts.append(f'stroke-linejoin="{_JOINS[self.join]}"')
            if self.dash:
                parts.append(f'stroke-dasharray="{" ".join(_num(d) for d in self.dash)}"')
                if self.dash_offset:
                    parts.append(f'stroke-dashoffset="{_num(self.dash_offset)}"')
        return " ".join(parts)

    def beginPath(self) -> SvgPath:
        return SvgPath(self)

    def drawPath(self, path: SvgPath, stroke: int = 1, fill: int = 0, **_: object) -> None:
        self.out.append(f'<path d="{path.data()}" {self._paint(stroke, fill)}/>')

    def clipPath(self, path: SvgPath, stroke: int = 0, fill: int = 0, **_: object) -> None:
        self._clips += 1
        name = f"{self.ids}{self._clips}"
        self.out.append(f'<clipPath id="{name}"><path d="{path.data()}"/></clipPath>')
        self.out.append(f'<g clip-path="url(#{name})">')
        self._open += 1

    def rect(
        self, x: float, y: float, width: float, height: float, stroke: int = 1, fill: int = 0
    ) -> None:
        self.out.append(
            f'<rect x="{_num(x)}" y="{_num(self.flip(y + height))}" width="{_num(width)}" '
            f'height="{_num(height)}" {self._paint(stroke, fill)}/>'
        )

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.out.append(
            f'<line x1="{_num(x0)}" y1="{_num(self.flip(y0))}" x2="{_num(x1)}" '
            f'y2="{_num(self.flip(y1))}" {self._paint(1, 0)}/>'
        )

    def circle(self, x: float, y: float, radius: float, stroke: int = 1, fill: int = 0) -> None:
        self.out.append(
            f'<circle cx="{_num(x)}" cy="{_num(self.flip(y))}" r="{radius:.2f}" '
            f"{self._paint(stroke, fill)}/>"
        )

    # --- text -------------------------------------------------------------------

    def _text(
        self, x: float, y: float, text: str, font: str, size: float, paint: str, anchor: str = ""
    ) -> None:
        family, weight = _FONTS.get(font, _FONTS["Helvetica"])
        bold = ' font-weight="bold"' if weight == "bold" else ""
        self.out.append(
            f'<text x="{_num(x)}" y="{_num(self.flip(y))}" font-family={quoteattr(family)}'
            f'{bold} font-size="{size:.2f}" {paint}{anchor}>{escape(text)}</text>'
        )

    def drawString(self, x: float, y: float, text: str) -> None:
        self._text(x, y, text, self.font, self.font_size, f'fill="{self.fill}"')

    def drawCentredString(self, x: float, y: float, text: str) -> None:
        paint = f'fill="{self.fill}"'
        self._text(x, y, text, self.font, self.font_size, paint, ' text-anchor="middle"')

    def beginText(self, x: float, y: float) -> SvgText:
        return SvgText(self, x, y)

    def drawText(self, text: SvgText) -> None:
        for x, y, font, run, mode, fill in text.runs:
            if mode == 1:  # stroked only: the halo under a label
                paint = (
                    f'fill="none" stroke="{self.stroke}" stroke-width="{self.line_width:.2f}" '
                    'stroke-linejoin="round"'
                )
            else:
                paint = f'fill="{fill}"'
            self._text(x, y, run, font, text.size, paint)

    # --- the document -------------------------------------------------------------

    def body(self) -> str:
        """The elements drawn so far (every group closed), to put into another drawing."""
        while self._open:
            self.out.append("</g>")
            self._open -= 1
        return "".join(self.out)

    def svg(self, title: str = "") -> str:
        """The whole drawing as an SVG document."""
        body = self.body()
        head = (
            '<svg xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {_num(self.width)} {_num(self.height)}" '
            f'width="{_num(self.width)}" height="{_num(self.height)}">'
        )
        label = f"<title>{escape(title)}</title>" if title else ""
        return head + label + body + "</svg>"
