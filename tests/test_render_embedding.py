"""A report's fonts embedded from subsets made once per process
(report/embedding.py) are the bytes ReportLab writes for them: the first
time and from the cache, with a second subset, in a document of other
characters, and uncompressed. The pages of both are deflated alike
(`embedding.deflate_pages_fast`), so only the fonts can differ; that the
faster pages hold the same drawing is checked apart."""

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


def _reportlab_canvas(*args: Any, **kwargs: Any) -> Canvas:
    """ReportLab's own canvas and font embedding, its pages deflated as a
    report's are."""
    canvas = Canvas(*args, **kwargs)
    embedding.deflate_pages_fast(canvas)
    return canvas


def _page_contents(pdf: bytes) -> list[bytes]:
    from pypdf import PdfReader

    return [page.get_contents().get_data() for page in PdfReader(io.BytesIO(pdf)).pages]


def test_faster_pages_hold_the_drawing_reportlab_writes() -> None:
    texts = ["Cash – $1,234", "São Paulo · Zürich", _WIDE[:40]]
    fast, plain = _pdf(_reportlab_canvas, texts), _pdf(Canvas, texts)
    assert _page_contents(fast) == _page_contents(plain)
    assert b"/ASCII85Decode" in plain
    if embedding.internals.PRIVATE:
        assert b"/ASCII85Decode" not in fast


def test_embedded_fonts_are_the_bytes_reportlab_writes() -> None:
    embedding._MADE.clear()
    plain = ["Cash – $1,234", "São Paulo · Zürich", "(a) \\ b", "• news", "ascii only"]
    wide = [*plain, _WIDE[:150], _WIDE[150:], "after them"]
    for texts in (plain, plain, wide, wide, plain[::-1]):
        assert _pdf(embedding.report_canvas, texts) == _pdf(_reportlab_canvas, texts)
    assert embedding._MADE  # made once, then taken from the cache
    uncompressed = _pdf(embedding.report_canvas, wide, compress=0)
    assert uncompressed == _pdf(_reportlab_canvas, wide, compress=0)
