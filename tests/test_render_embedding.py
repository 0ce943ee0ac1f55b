"""A report's fonts embedded from subsets made once per process
(report/embedding.py) are the bytes ReportLab writes for them: the first
time and from the cache, with a second subset, in a document of other
characters, and uncompressed."""

import io
from collections.abc import Callable
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report import embedding
from turnproc.families.continental_rails.report.typeface import (
    MONO,
    NARROW,
    SANS_BOLD,
    register_fonts,
)

_WIDE = "".join(chr(c) for c in range(0x0400, 0x0500))  # beyond one subset


def _pdf(maker: Callable[..., Canvas], texts: list[str], compress: int = 1) -> bytes:
    register_fonts()
    buffer = io.BytesIO()
    canvas: Any = maker(buffer, invariant=1, pageCompression=compress)
    for i, text in enumerate(texts):
        canvas.setFont((NARROW, SANS_BOLD, MONO, "Helvetica")[i % 4], 8)
        canvas.drawString(30, 800 - 12 * i, text)
    canvas.showPage()
    canvas.save()
    return bytes(buffer.getvalue())


def test_embedded_fonts_are_the_bytes_reportlab_writes() -> None:
    embedding._MADE.clear()
    plain = ["Cash – $1,234", "São Paulo · Zürich", "(a) \\ b", "• news", "ascii only"]
    wide = [*plain, _WIDE[:150], _WIDE[150:], "after them"]
    for texts in (plain, plain, wide, wide, plain[::-1]):
        assert _pdf(embedding.report_canvas, texts) == _pdf(Canvas, texts)
    assert embedding._MADE  # made once, then taken from the cache
    assert _pdf(embedding.report_canvas, wide, compress=0) == _pdf(Canvas, wide, compress=0)
