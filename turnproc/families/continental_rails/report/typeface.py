"""Fonts for the PDF report: DejaVu Sans (shipped in fonts/, licence in LICENSE-DejaVu.txt).

DejaVu covers Latin, Greek, Cyrillic and many symbols. Characters it has no
glyph for (CJK, for instance) are printed as a visible code point such as
``[U+6771]`` instead of an empty box, so a name is never silently garbled.
"""

from functools import cache, lru_cache
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"

SANS = "DejaVuSans"
SANS_BOLD = "DejaVuSans-Bold"
NARROW = "DejaVuSansCondensed"
NARROW_BOLD = "DejaVuSansCondensed-Bold"
MONO = "DejaVuSansMono"

_FILES = {
    SANS: "DejaVuSans.ttf",
    SANS_BOLD: "DejaVuSans-Bold.ttf",
    NARROW: "DejaVuSansCondensed.ttf",
    NARROW_BOLD: "DejaVuSansCondensed-Bold.ttf",
    MONO: "DejaVuSansMono.ttf",
}


@cache
def register_fonts() -> frozenset[int]:
    """Register the fonts once per process; returns the code points DejaVu Sans covers."""
    for name, filename in _FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / filename)))
    addMapping(SANS, 0, 0, SANS)
    addMapping(SANS, 1, 0, SANS_BOLD)
    addMapping(SANS, 0, 1, SANS)
    addMapping(SANS, 1, 1, SANS_BOLD)
    addMapping(NARROW, 0, 0, NARROW)
    addMapping(NARROW, 1, 0, NARROW_BOLD)
    addMapping(NARROW, 0, 1, NARROW)
    addMapping(NARROW, 1, 1, NARROW_BOLD)
    face = pdfmetrics.getFont(SANS).face
    return frozenset(face.charToGlyph)


def printable(text: str) -> str:
    """`text` with every character the font lacks replaced by its code point."""
    register_fonts()
    if text.isascii() and (
        text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable()
    ):
        # DejaVu Sans covers every printable ASCII character; line breaks and
        # tabs are kept (a turnsheet is thousands of characters of them).
        return text
    return _beyond_ascii(text)


@lru_cache(maxsize=8192)
def _beyond_ascii(text: str) -> str:
    """`printable` of text with characters beyond ASCII (names with accents,
    dashes in news items): looked up once, the same strings come in every
    reader's report."""
    covered = register_fonts()
    if covered.issuperset(map(ord, text)):
        return text
    return "".join(
        ch if ord(ch) in covered or ch in "\n\t" else f"[U+{ord(ch):04X}]" for ch in text
    )


def para(text: str) -> str:
    """Text a player or the game supplied, made safe for a ReportLab Paragraph:
    markup characters print literally, missing glyphs become code points."""
    return escape(printable(text))
