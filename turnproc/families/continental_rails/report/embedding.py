"""9 The report's embedded fonts, each subset made once per process.

A PDF report embeds the parts (subsets) of the DejaVu fonts it uses: on
saving, ReportLab builds each subset's TrueType file, its widths and its
ToUnicode map, and compresses the two streams, in every report again. The
reports of a turn use the same characters, first met in the same order (ASCII
first, then the same dashes and bullets), so nearly all their subsets are the
same: here each distinct subset is built and compressed once per process
(`_made`) and every report that has it gets the same objects, written as
ReportLab writes them, in the same order, to the same bytes.

Its pages' own streams (the text, tables and the maps' per-reader parts) are
deflated at zlib's fastest level (`PAGE_LEVEL`) rather than ReportLab's
default 6, and not then written in ASCII85 as ReportLab does by default
(`rl_config.useA85`; the mail carries the PDF in base64 anyway): the same
drawing, the PDF 3% smaller, the turn's 15 reports 0.09 CPU-s faster (0.89
-> 0.80 in one process).

`report_canvas` is the canvas a report is drawn on; the bench's floor, which
replays the report's drawing calls on ReportLab's own canvas, leaves the
fonts to ReportLab, as every report does with a ReportLab release other than
the one checked (internals.py), and deflates its pages as the report does
(`deflate_pages_fast`).
"""

import zlib
from dataclasses import dataclass
from typing import Any

from reportlab.pdfbase import pdfdoc
from reportlab.pdfbase.ttfonts import (
    FF_NONSYMBOLIC,
    FF_SYMBOLIC,
    SUBSETN,
    TTFont,
    makeToUnicodeCMap,
)
from reportlab.pdfgen.canvas import Canvas

from turnproc.families.continental_rails.report import internals


@dataclass(frozen=True)
class _Subset:
    """One subset's objects as ReportLab makes them, the streams compressed."""

    widths: list[int]
    cmap: bytes  # the ToUnicode map, compressed
    file: bytes  # the TrueType file, compressed
    file_length: int  # its length before compressing


_MADE: dict[tuple[str, str, tuple[int, ...]], _Subset] = {}
SUBSETS_KEPT = 64


def _made(font: TTFont, base_name: str, subset: tuple[int, ...]) -> _Subset:
    key = (font.fontName, base_name, subset)
    made = _MADE.get(key)
    if made is None:
        face = font.face
        file = face.makeSubset(list(subset))
        cmap = makeToUnicodeCMap(base_name, list(subset))
        made = _Subset(
            widths=list(map(face.getCharWidth, subset)),
            cmap=zlib.compress(cmap.encode("utf8") if isinstance(cmap, str) else cmap),
            file=zlib.compress(file),
            file_length=len(file),
        )
        if len(_MADE) >= SUBSETS_KEPT:
            del _MADE[next(iter(_MADE))]
        _MADE[key] = made
    return made


def _compressed(content: bytes) -> pdfdoc.PDFStream:
    """A stream already compressed, as ReportLab writes it once compressed."""
    stream = pdfdoc.PDFStream(content=content)
    stream.dictionary["Filter"] = pdfdoc.PDFArray([pdfdoc.PDFName(pdfdoc.PDFZCompress.pdfname)])
    return stream


class _Embedded:
    """An embedded font in a report's list of fonts to write: its subsets
    written as `TTFont.addObjects` writes them, from `_made`."""

    def __init__(self, font: TTFont) -> None:
        self.font = font

    def addObjects(self, doc: pdfdoc.PDFDocument) -> None:
        font, face = self.font, self.font.face
        if not doc.compression:
            font.addObjects(doc)
            return
        try:
            state = font.state[doc]
        except KeyError:
            state = font.state[doc] = TTFont.State(font._asciiReadable)
        state.frozen = 1
        for n, subset in enumerate(state.subsets):
            internal = font.getSubsetInternalName(n, doc)[1:]
            base_name = (b"".join((SUBSETN(n), b"+", face.name, face.subfontNameX))).decode(
                "pdfdoc"
            )
            made = _made(font, base_name, tuple(subset))
            pdf_font = pdfdoc.PDFTrueTypeFont()
            pdf_font.__Comment__ = f"Font {font.fontName} subset {n}"
            pdf_font.Name = internal
            pdf_font.BaseFont = base_name
            pdf_font.FirstChar = 0
            pdf_font.LastChar = len(subset) - 1
            pdf_font.Widths = pdfdoc.PDFArray(list(made.widths))
            pdf_font.ToUnicode = doc.Reference(_compressed(made.cmap), "toUnicodeCMap:" + base_name)
            pdf_font.FontDescriptor = self._descriptor(doc, base_name, made)
            doc.Reference(pdf_font, internal)
            doc.idToObject["BasicFonts"].dict[internal] = pdf_font
        del font.state[doc]

    def _descriptor(self, doc: pdfdoc.PDFDocument, base_name: str, made: _Subset) -> Any:
        """As `TTFontFace.addSubsetObjects`, with the subset's file made already."""
        face = self.font.face
        file = _compressed(made.file)
        file.dictionary["Length1"] = made.file_length
        file_ref = doc.Reference(file, f"fontFile:{face.filename}({base_name})")
        flags = (face.flags & ~FF_NONSYMBOLIC) | FF_SYMBOLIC
        descriptor = pdfdoc.PDFDictionary(
            {
                "Type": "/FontDescriptor",
                "Ascent": face.ascent,
                "CapHeight": face.capHeight,
                "Descent": face.descent,
                "Flags": flags,
                "FontBBox": pdfdoc.PDFArray(face.bbox),
                "FontName": pdfdoc.PDFName(base_name),
                "ItalicAngle": face.italicAngle,
                "StemV": face.stemV,
                "FontFile2": file_ref,
                "MissingWidth": face.defaultWidth,
            }
        )
        return doc.Reference(descriptor, "fontDescriptor:" + base_name)


class _Fonts(list[Any]):
    """A document's fonts to write on saving (`PDFDocument.delayedFonts`): the
    embedded ones (ReportLab's own `TTFont`) go in as `_Embedded`."""

    def append(self, font: Any) -> None:
        if type(font) is TTFont:
            font = _Embedded(font)
        super().append(font)


PAGE_LEVEL = 1  # zlib's level for a report page's own stream


class _FastFlate:
    """ReportLab's FlateDecode filter (`pdfdoc.PDFZCompress`) at `PAGE_LEVEL`."""

    pdfname = pdfdoc.PDFZCompress.pdfname

    def encode(self, text: str | bytes) -> bytes:
        data = text.encode("utf8") if isinstance(text, str) else text
        return zlib.compress(data, PAGE_LEVEL)

    def decode(self, encoded: bytes) -> bytes:
        return zlib.decompress(encoded)


_FAST_FLATE = _FastFlate()


def _add_page(doc: pdfdoc.PDFDocument, page: pdfdoc.PDFPage) -> None:
    """`PDFDocument.addPage`, the page's stream made as `PDFPage.check_format`
    makes it on saving, with the faster filter alone (no ASCII85)."""
    if page.compression and not page.Contents and page.stream:
        stream = pdfdoc.PDFStream()
        stream.filters = [_FAST_FLATE]
        stream.content = page.stream
        stream.__Comment__ = "page stream"
        page.Contents = stream
    pdfdoc.PDFDocument.addPage(doc, page)


def deflate_pages_fast(canvas: Canvas) -> None:
    """The pages `canvas` makes from now on deflated at `PAGE_LEVEL`, not in
    ASCII85 (with the checked ReportLab release; else as ReportLab writes them)."""
    if internals.PRIVATE:
        doc = canvas._doc
        doc.addPage = lambda page: _add_page(doc, page)


def report_canvas(*args: Any, **kwargs: Any) -> Canvas:
    """ReportLab's canvas, whose document embeds fonts through `_made` and
    deflates its pages faster (with the checked ReportLab release; else
    ReportLab embeds and deflates them)."""
    canvas = Canvas(*args, **kwargs)
    if not internals.PRIVATE:
        return canvas
    doc = canvas._doc
    if doc.delayedFonts:  # fonts are named at their first string, never before
        raise RuntimeError("a new canvas has fonts to write already")
    doc.delayedFonts = _Fonts()
    deflate_pages_fast(canvas)
    return canvas
