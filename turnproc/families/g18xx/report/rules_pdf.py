"""Each 18xx title's rules by mail: its rules reference (docs/rules-18ms.md,
docs/rules-18ga.md) and the players' part of the order language
(docs/18xx.md, up to its part for moderators) as one PDF.

The welcome mail of an 18MS or 18GA game and the answer to a RULES command
from one of its players carry it, so a player who plays by mail alone has the
rules, the order language and its examples at hand. Set with the Markdown
reader of the Continental Rails rules PDF; reproducible and made once per
process for the same texts.
"""

import io
from functools import lru_cache

from reportlab.platypus import BaseDocTemplate, Frame, PageBreak, PageTemplate

from turnproc.families.continental_rails.report.pdf import MARGIN, PAGE, WIDTH
from turnproc.families.continental_rails.report.rules_pdf import (
    markdown_flowables,
    number_pages,
)
from turnproc.playerdocs import player_doc

ORDERS = "18xx.md"  # the order language, in docs/ (turnproc/playerdocs.py)
RULES = {"18MS": "rules-18ms.md", "18GA": "rules-18ga.md"}
# docs/18xx.md from this heading on is for moderators (replays, commands).
MODERATORS_HEADING = "## Recorded games"


def pdf_name(title: str) -> str:
    """The attachment's name, e.g. 18ms-rules.pdf."""
    return f"{title.lower()}-rules.pdf"


def title_of_pdf_name(name: str | None) -> str | None:
    """The title whose rules PDF is named `name`, if any."""
    return next((t for t in RULES if name == pdf_name(t)), None)


def order_language(text: str) -> str:
    """docs/18xx.md as players get it: without the part for moderators."""
    at = text.find(MODERATORS_HEADING)
    return text[:at].rstrip() + "\n" if at >= 0 else text


def _rules_pdf(title: str, rules: str, orders: str) -> bytes:
    buffer = io.BytesIO()
    doc = BaseDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=f"{title}: the rules and the order language",
        author="turnproc",
        creator="turnproc",
        invariant=1,
    )
    frame = Frame(MARGIN, MARGIN, WIDTH, PAGE[1] - 2 * MARGIN, id="body")
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=number_pages)])
    story = markdown_flowables(order_language(orders))
    story += [PageBreak(), *markdown_flowables(rules)]
    doc.build(story)
    return buffer.getvalue()


@lru_cache(maxsize=4)
def _cached(title: str, rules: str, orders: str) -> bytes:
    return _rules_pdf(title, rules, orders)


def title_rules_pdf(title: str) -> bytes:
    """The PDF of the title's docs as they stand: the order language first
    (what a player needs to move), then the rules reference."""
    return _cached(
        title,
        player_doc(RULES[title]).read_text(encoding="utf-8"),
        player_doc(ORDERS).read_text(encoding="utf-8"),
    )
