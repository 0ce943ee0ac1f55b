"""The rules by mail: docs/rules.md and the players' guide as one PDF.

The welcome mail and the answer to a RULES command carry it, so a player who
plays by mail alone has the rules' tables at hand. The Markdown the docs use is
small (headings, paragraphs, lists, pipe tables, code blocks, **bold** and
`code`), and is set here with ReportLab like the reports. The guide's part for
moderators is left out (`playerdocs.players_guide`). The PDF is reproducible and made once
per process for the same texts.
"""

import io
import re
from functools import lru_cache

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    PageBreak,
    PageTemplate,
    Paragraph,
    Preformatted,
    Spacer,
    Table,
    TableStyle,
)

from turnproc.families.continental_rails.report.pdf import MARGIN, PAGE, STYLES, WIDTH
from turnproc.families.continental_rails.report.typeface import MONO, para
from turnproc.playerdocs import player_doc, players_guide

RULES_PDF_NAME = "continental-rails-rules.pdf"

_HEADINGS = {1: "title", 2: "h1", 3: "h2", 4: "h2"}
_CELL = ParagraphStyle("rulecell", parent=STYLES["body"], fontSize=7.5, leading=9)
_CELL_HEAD = ParagraphStyle("rulecellb", parent=_CELL, fontName=STYLES["h2"].fontName)
_GRID = colors.HexColor("#9a9a9a")
_HEAD = colors.HexColor("#e4e0d4")
_INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`|\[([^\]]+)\]\([^)]*\)")
_LIST_ITEM = re.compile(r"^(\s*)([-*]|\d+\.)\s+(.*)$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def inline(text: str) -> str:
    """Paragraph markup for one Markdown text: **bold**, `code`, [links](...)."""
    out: list[str] = []
    last = 0
    for match in _INLINE.finditer(text):
        out.append(para(text[last : match.start()]))
        bold, code, link = match.groups()
        if bold is not None:
            out.append(f"<b>{inline(bold)}</b>")
        elif code is not None:
            out.append(f'<font face="{MONO}">{para(code)}</font>')
        else:
            out.append(para(link or ""))
        last = match.end()
    out.append(para(text[last:]))
    return "".join(out)


def _table(rows: list[list[str]]) -> Table:
    """A pipe table, its columns as wide as their longest words allow."""
    cells = [
        [Paragraph(inline(c), _CELL_HEAD if i == 0 else _CELL) for c in row]
        for i, row in enumerate(rows)
    ]
    count = max(len(row) for row in rows)
    for row in cells:
        row += [Paragraph("", _CELL)] * (count - len(row))
    longest = [
        max(min(len(row[i]) if i < len(row) else 0, 60) for row in rows) + 2 for i in range(count)
    ]
    widths = [WIDTH * n / sum(longest) for n in longest]
    table = Table(cells, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.4, _GRID),
                ("BACKGROUND", (0, 0), (-1, 0), _HEAD),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
            ]
        )
    )
    return table


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def markdown_flowables(text: str) -> list[Flowable]:
    """The flowables of a Markdown document as the docs write them."""
    lines = _COMMENT.sub("", text).splitlines()
    out: list[Flowable] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(Paragraph(inline(" ".join(paragraph)), STYLES["body"]))
            out.append(Spacer(1, 3))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            block: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                block.append(lines[i])
                i += 1
            out.append(Preformatted("\n".join(block), STYLES["mono"]))
            out.append(Spacer(1, 3))
        elif stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            out.append(
                Paragraph(inline(stripped.lstrip("#").strip()), STYLES[_HEADINGS[min(level, 4)]])
            )
        elif stripped.startswith("|"):
            flush()
            rows: list[list[str]] = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                row = _cells(lines[i])
                if not all(set(c) <= set("-: ") for c in row):
                    rows.append(row)
                i += 1
            if rows:
                out += [_table(rows), Spacer(1, 4)]
            continue
        elif match := _LIST_ITEM.match(line):
            flush()
            item = [match.group(3)]
            depth = len(match.group(1))
            i += 1
            while (
                i < len(lines)
                and lines[i].strip()
                and not _LIST_ITEM.match(lines[i])
                and lines[i].startswith(" ")
            ):
                item.append(lines[i].strip())
                i += 1
            bullet = "•" if match.group(2) in "-*" else match.group(2)
            style = ParagraphStyle("li", parent=STYLES["item"], leftIndent=10 + depth * 6)
            out.append(Paragraph(f"{para(bullet)} {inline(' '.join(item))}", style))
            continue
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return out


def number_pages(canvas: Canvas, doc: BaseDocTemplate) -> None:
    canvas.saveState()
    canvas.setFont(STYLES["note"].fontName, 7)
    canvas.drawRightString(PAGE[0] - MARGIN, MARGIN / 2, f"page {doc.page}")
    canvas.restoreState()


def rules_pdf(rules: str, guide: str) -> bytes:
    """The rules reference, then the players' guide, as PDF bytes."""
    buffer = io.BytesIO()
    doc = BaseDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title="Continental Rails: the rules and the players' guide",
        author="turnproc",
        creator="turnproc",
        invariant=1,
    )
    frame = Frame(MARGIN, MARGIN, WIDTH, PAGE[1] - 2 * MARGIN, id="body")
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=number_pages)])
    story = markdown_flowables(rules)
    story += [PageBreak(), *markdown_flowables(players_guide(guide))]
    doc.build(story)
    return buffer.getvalue()


@lru_cache(maxsize=2)
def _cached(rules: str, guide: str) -> bytes:
    return rules_pdf(rules, guide)


def game_rules_pdf() -> bytes:
    """The PDF of the docs as they stand (made once per process for the same texts)."""
    rules = player_doc("rules.md").read_text(encoding="utf-8")
    return _cached(rules, player_doc("turnsheet.md").read_text(encoding="utf-8"))
