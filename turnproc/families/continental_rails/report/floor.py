"""The bare-canvas floor of the report renderer, for `turnproc bench`.

A report is rendered once on a canvas that records every drawing call made to
it from outside (platypus' layout, the tables, the map pages): the strings,
lines, paths, fonts, colours and map forms of the finished PDF. Replaying
those calls on a plain ReportLab canvas and writing the PDF is what the report
would cost with no layout at all: the floor `render_reports_s` is compared
with. The replayed PDF has the report's size to within a few bytes (checked
by the bench). Paths are replayed as built (not built again), so the floor
is, if anything, a little low.
"""

import functools
import inspect
import io
from collections.abc import Callable
from typing import Any

from reportlab.pdfbase.pdfdoc import (
    PDFDictionary,
    PDFObjectReference,
    PDFStream,
    xObjectName,
)
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import PDFTextObject

from turnproc.families.continental_rails.report.embedding import deflate_pages_fast
from turnproc.families.continental_rails.report.model import PlayerReport
from turnproc.families.continental_rails.report.pdf import PAGE, render_pdf

Op = tuple[str, tuple[Any, ...], dict[str, Any]]
# Calls not replayed: they write or query, they do not draw (or are noted below).
_UNRECORDED = {
    "save",
    "getpdfdata",
    "stringWidth",
    "getAvailableFonts",
    "hasForm",
    "doForm",
    "beginText",
    "drawText",
}
# What platypus' paragraphs call on a text object to draw.
_TEXT_CALLS = (
    "setTextOrigin",
    "setFont",
    "_setFont",
    "setWordSpace",
    "setCharSpace",
    "setHorizScale",
    "setLeading",
    "setRise",
    "setXPos",
    "moveCursor",
    "setFillColor",
    "setStrokeColor",
    "setTextRenderMode",
    "textOut",
    "_textOut",
    "textLine",
    "textLines",
)


class _RecordingText(PDFTextObject):
    """A text object whose drawing calls are noted in its canvas's list."""

    def __init__(self, canvas: "_Recording", index: int, *args: Any) -> None:
        self.index = index
        canvas.depth += 1
        try:
            super().__init__(canvas, *args)
        finally:
            canvas.depth -= 1


class _Recording(Canvas):
    """A canvas that notes each call made to it from outside (not the calls
    its own methods make to each other)."""

    ops: list[Op]
    depth: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.ops, self.depth = [], 1
        super().__init__(*args, **kwargs)
        deflate_pages_fast(self)  # as the report's own canvas
        self.depth = 0

    def beginText(self, x: float = 0, y: float = 0, direction: Any = None) -> PDFTextObject:
        if self.depth:
            return super().beginText(x, y, direction)
        index = sum(1 for op in self.ops if op[0] == "__text__")
        self.ops.append(("__text__", (index, x, y, direction), {}))
        return _RecordingText(self, index, x, y, direction)

    def drawText(self, text: PDFTextObject) -> None:
        if self.depth == 0 and isinstance(text, _RecordingText):
            self.ops.append(("__draw_text__", (text.index,), {}))
        self.depth += 1
        try:
            super().drawText(text)
        finally:
            self.depth -= 1

    def doForm(self, name: str) -> None:
        """A map form: the form object itself (and its fonts) go with the call."""
        if self.depth == 0:
            doc = self._doc
            form = doc.idToObject[xObjectName(name)]
            by_internal = {internal.lstrip("/"): ps for ps, internal in doc.fontMapping.items()}
            fonts = {
                local: by_internal[ref.name]
                for local, ref in form.dictionary.dict["Resources"].dict["Font"].dict.items()
            }
            self.ops.append(("__form__", (name, form, fonts), {}))
        self.depth += 1
        try:
            super().doForm(name)
        finally:
            self.depth -= 1


def _text_recorded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: _RecordingText, *args: Any, **kwargs: Any) -> Any:
        canvas = self._canvas
        if canvas.depth == 0:
            canvas.ops.append(("__text_call__", (self.index, name, args), kwargs))
        canvas.depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            canvas.depth -= 1

    return call


for _name in _TEXT_CALLS:
    setattr(_RecordingText, _name, _text_recorded(_name, getattr(PDFTextObject, _name)))


def _recorded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: _Recording, *args: Any, **kwargs: Any) -> Any:
        if self.depth == 0:
            self.ops.append((name, args, kwargs))
        self.depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self.depth -= 1

    return call


for _name, _method in inspect.getmembers(Canvas, inspect.isfunction):
    if not _name.startswith("_") and _name not in _UNRECORDED:
        setattr(_Recording, _name, _recorded(_name, _method))


def record(report: PlayerReport, maps: Any = None) -> tuple[bytes, list[Op]]:
    """The report's PDF and the drawing calls that made it."""
    made: list[_Recording] = []

    def maker(*args: Any, **kwargs: Any) -> _Recording:
        made.append(_Recording(*args, **kwargs))
        return made[-1]

    pdf = render_pdf(report, maps, canvasmaker=maker)
    return pdf, made[0].ops


def replay(ops: list[Op]) -> bytes:
    """The same drawing calls on a plain canvas, written as a PDF."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=PAGE, invariant=1)
    deflate_pages_fast(canvas)  # as the report's own canvas
    texts: dict[int, PDFTextObject] = {}
    for name, args, kwargs in ops:
        if name == "__text__":
            index, x, y, direction = args
            texts[index] = canvas.beginText(x, y, direction)
        elif name == "__text_call__":
            index, call, call_args = args
            getattr(texts[index], call)(*call_args, **kwargs)
        elif name == "__draw_text__":
            canvas.drawText(texts[args[0]])
        elif name == "__form__":
            form_name, form, fonts = args
            doc = canvas._doc  # a shared map layer: recorded with ReportLab's internals
            if not doc.hasForm(form_name):
                copy = PDFStream(content=form.content)
                copy.dictionary.dict.update(form.dictionary.dict)
                refs = {
                    local: PDFObjectReference(str(doc.getInternalFontName(ps)).lstrip("/"))
                    for local, ps in fonts.items()
                }
                copy.dictionary.dict["Resources"] = PDFDictionary({"Font": PDFDictionary(refs)})
                doc.Reference(copy, xObjectName(form_name))
            canvas.doForm(form_name)
        else:
            getattr(canvas, name)(*args, **kwargs)
    canvas.save()
    return buffer.getvalue()


def record_turn(data: Any) -> list[tuple[bytes, list[Op]]]:
    """Every position's report of one turn (a `render.batch.TurnInput`), as
    `render_turn_reports` renders it: its PDF and its drawing calls."""
    from turnproc.families.continental_rails.engine.resolve import TurnResult
    from turnproc.families.continental_rails.report.maps import MapPages
    from turnproc.families.continental_rails.report.model import build_report
    from turnproc.families.continental_rails.report.render import meta_of
    from turnproc.families.continental_rails.report.wording import load_wording
    from turnproc.families.continental_rails.turnsheet.render import render_turnsheet

    result = TurnResult(
        state=data.after,
        events=list(data.events),
        rejections=list(data.rejections),
        ledger=list(data.ledger),
    )
    meta = meta_of(data)
    wording = load_wording(data.scenario, data.after)
    positions = [t.position for t in data.after.tycoons]
    pages = MapPages(data.scenario)
    pages.prepare(build_report(data.scenario, data.before, result, meta, positions[0]))
    recorded = []
    for position in positions:
        sheet = None
        if not result.state.ended:
            sheet = render_turnsheet(
                result.state,
                data.scenario,
                position,
                game=meta.name or None,
                deadline=meta.deadline or None,
            )
        report = build_report(
            data.scenario,
            data.before,
            result,
            meta,
            position,
            turnsheet=sheet,
            wording=wording,
            opening=data.turn == 0,
        )
        recorded.append(record(report, pages))
    return recorded
