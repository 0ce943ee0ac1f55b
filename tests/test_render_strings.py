"""Strings written straight into the page (report/strings.py) are the bytes
ReportLab's drawString, drawRightString and drawCentredString write, in any
script, across the embedded font's subsets, in a base font and empty, the
first time and again."""

import gc
import io
import weakref

from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report.strings import strings
from turnproc.families.continental_rails.report.typeface import (
    NARROW,
    NARROW_BOLD,
    SANS,
    register_fonts,
)

# More than 256 different characters beyond ASCII: the font's second subset
# is used too, and ASCII strings come between them.
_WIDE = "".join(chr(c) for c in range(0x0400, 0x0460)) + "".join(
    chr(c) for c in range(0x0391, 0x03C9)
)
TEXTS = [
    "Cash",
    "$1,234",
    "(a) \\ b)",
    "",
    "Pennsylvania – efficiency 3",
    "São Paulo · Zürich",
    *[_WIDE[i : i + 17] for i in range(0, len(_WIDE), 17)],
    "1850 tab\there",
    "nbsp\xa0here",
    "東京 is not in the font",
    *[chr(c) * 3 for c in range(0x0100, 0x0180)],
    "after them all",
]
FONTS = [
    (NARROW, 7.0, 8.4),
    (NARROW_BOLD, 7.0, 8.4),
    (SANS, 8.5, 10.6),
    ("Helvetica", 6, None),
    ("Symbol", 6, None),  # a base font whose ASCII is not itself
]


def _pdf(fast: bool) -> bytes:
    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1)
    written = strings(canvas)
    # Pages 0 and 1 the same (a string again once its characters are coded),
    # page 2 each string in another font.
    for page in range(3):
        for i, text in enumerate(TEXTS):
            name, size, leading = FONTS[(i + page // 2) % len(FONTS)]
            canvas.setFont(name, size, leading)
            x, y = 40 + i % 3, 800 - i * 3.3
            if fast:
                (written.left, written.right, written.centred)[i % 3](x, y, text)
            else:
                (canvas.drawString, canvas.drawRightString, canvas.drawCentredString)[i % 3](
                    x, y, text
                )
        canvas.showPage()
    for i, (name, size, leading) in enumerate(FONTS):  # ASCII in every font
        canvas.setFont(name, size, leading)
        for text in ("Cash (x) 12", "São"):
            if fast:
                (written.left, written.right, written.centred)[i % 3](50, 700 - i * 9, text)
            else:
                (canvas.drawString, canvas.drawRightString, canvas.drawCentredString)[i % 3](
                    50, 700 - i * 9, text
                )
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_strings_are_the_bytes_reportlab_writes() -> None:
    assert _pdf(True) == _pdf(False)


def test_on_a_recording_canvas_the_strings_go_through_reportlab() -> None:
    calls = []

    class Noting(Canvas):
        def drawString(self, *args: object, **kwargs: object) -> None:
            calls.append(args)
            super().drawString(*args, **kwargs)  # type: ignore[arg-type]

    register_fonts()
    canvas = Noting(io.BytesIO())
    canvas.setFont(NARROW, 7)
    strings(canvas).left(1, 2, "Cash")
    assert calls == [(1, 2, "Cash")]


def _lines_pdf(fast: bool) -> bytes:
    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1)
    lines = ["BID 3 NYC", "", "\tindented", "Zürich – Basel", *TEXTS, "", "last"]
    for _page in range(2):
        for name, size, leading in FONTS[:3]:
            if fast:
                assert strings(canvas).lines(30, 700, lines, name, size, leading)
            else:
                text = canvas.beginText(30, 700)
                text.setFont(name, size, leading)
                for line in lines:
                    text.textLine(line)
                canvas.drawText(text)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_lines_are_the_bytes_a_text_object_writes() -> None:
    assert _lines_pdf(True) == _lines_pdf(False)
    # Lines with no text name no font: ReportLab draws them.
    assert not strings(Canvas(io.BytesIO())).lines(30, 700, ["", ""], NARROW, 7, 8.4)


def test_a_canvas_is_not_kept_alive_by_its_writer() -> None:
    register_fonts()
    canvas = Canvas(io.BytesIO())
    canvas.setFont(NARROW, 7)
    strings(canvas).left(1, 2, "Cash")
    gone = weakref.ref(canvas)
    del canvas
    gc.collect()
    assert gone() is None
