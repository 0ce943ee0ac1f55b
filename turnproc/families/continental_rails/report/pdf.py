"""9 The turn report as a PDF (ReportLab platypus), with the reader's map pages.

The page is A4 wide and US Letter tall, so it prints unscaled on either paper.
Every string a player or the data supplied passes through `typeface.para`
(Paragraph markup escaped, missing glyphs shown as code points), or is drawn
as plain text (table cells, news items) through `typeface.printable`. The PDF
is reproducible: `invariant=1` keeps timestamps and document ids constant.
"""

import io
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from turnproc.core.money import money
from turnproc.families.continental_rails.report import internals
from turnproc.families.continental_rails.report.embedding import report_canvas
from turnproc.families.continental_rails.report.flowables import (
    STYLES,
    Dated,
    Item,
    Plain,
    Together,
    WrittenPreformatted,
    runs,
)
from turnproc.families.continental_rails.report.grid import Band, Grid, Look, Pair, Rule
from turnproc.families.continental_rails.report.maps import MapPages
from turnproc.families.continental_rails.report.model import CashFlow, PlayerReport
from turnproc.families.continental_rails.report.strings import strings
from turnproc.families.continental_rails.report.typeface import (
    NARROW,
    NARROW_BOLD,
    para,
    printable,
)

PAGE = (595.27, 792.0)  # A4 width x Letter height: fits both papers
LANDSCAPE = (PAGE[1], PAGE[0])
MARGIN = 34.0
WIDTH = PAGE[0] - 2 * MARGIN

_GRID = colors.HexColor("#9a9a9a")
_HEAD = colors.HexColor("#e4e0d4")
_MINE = colors.HexColor("#fff4cc")
_LINES = colors.HexColor("#f6f6f6")


class _Cell(NamedTuple):
    """Table text that wraps to its column. Tables draw it as plain lines broken
    here: much faster than a Paragraph per cell, and no markup to escape."""

    text: str
    bold: bool = False


def _p(text: str, style: str = "cell") -> _Cell:
    return _Cell(text, style == "cellb")


@lru_cache(maxsize=8192)
def _lines(text: str, font: str, width: float) -> str:
    """`text` broken into lines of at most `width` points; over-long words are cut.
    Cached: most cells (railroads' lines, PCs, names) repeat in every reader's report."""
    size = 7
    out: list[str] = []
    for paragraph in printable(text).split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if stringWidth(candidate, font, size) <= width:
                line = candidate
                continue
            if line:
                out.append(line)
            line = ""
            while stringWidth(word, font, size) > width and len(word) > 1:
                cut = len(word) - 1
                while cut > 1 and stringWidth(word[:cut], font, size) > width:
                    cut -= 1
                out.append(word[:cut])
                word = word[cut:]
            line = word
        out.append(line)
    return "\n".join(out)


def _n(value: int | None, dollars: bool = False) -> str:
    if value is None:
        return "–"
    return money(value) if dollars else f"{value:,}"


def _table(
    header: Sequence[str],
    rows: list[list[Any]],
    widths: Sequence[float],
    numeric_from: int = 99,
    mine: Sequence[int] = (),
    extra: Sequence[tuple[Any, ...]] = (),
    code_column: bool = False,
) -> Grid:
    """A report table: grey header repeated on each page, numbers right-aligned,
    rows in `mine` (the reader's own) shaded. `extra` holds TableStyle-like
    commands: ALIGN (RIGHT), FONT (bold), SPAN (the rest of a row),
    BACKGROUND and LINEABOVE of whole rows."""
    columns = len(widths)
    spans: dict[int, tuple[int, int]] = {}
    for command in extra:
        if command[0] == "SPAN":
            (c0, r0), (c1, _) = command[1], command[2]
            spans[r0] = (c0, c1 % columns)
    cells: list[list[str | None]] = [
        [_lines(h, NARROW_BOLD, w - 5) for h, w in zip(header, widths, strict=True)]
    ]
    bold = [[True] * columns] + [[False] * columns for _ in rows]
    right = [[False] * columns] + [[c >= numeric_from for c in range(columns)] for _ in rows]
    for r, row in enumerate(rows, start=1):
        span = spans.get(r)
        texts: list[str | None] = []
        for c, cell in enumerate(row):
            if span is not None and span[0] < c <= span[1]:
                texts.append(None)  # under the spanned cell
            elif isinstance(cell, _Cell):
                font = NARROW_BOLD if cell.bold else NARROW
                width = sum(widths[c : span[1] + 1]) if span and span[0] == c else widths[c]
                texts.append(_lines(cell.text, font, width - 5))
                bold[r][c] = cell.bold
            else:
                texts.append(cell)
        cells.append(texts)
        # A spanned row (a railroad's lines) keeps the regular font.
        if code_column and span is None:
            bold[r][1] = True
    bands = [Band(0, _HEAD)] + [Band(r, _MINE) for r in mine]
    rules = [Rule(0, 0, 0.6, _GRID), Rule(1, len(rows), 0.25, _GRID)]
    for command in extra:
        name = command[0]
        if name in ("ALIGN", "FONT"):
            (c0, r0), (c1, r1) = command[1], command[2]
            for r in range(r0 % len(cells), r1 % len(cells) + 1):
                for c in range(c0 % columns, c1 % columns + 1):
                    if name == "ALIGN":
                        right[r][c] = command[3] == "RIGHT"
                    else:
                        bold[r][c] = command[3] == NARROW_BOLD
        elif name == "BACKGROUND":
            bands.append(Band(command[1][1], command[3]))
        elif name == "LINEABOVE":
            rules.append(Rule(command[1][1], command[2][1], command[3], command[4], above=True))
        elif name != "SPAN":
            raise ValueError(f"a report table has no {name} command")
    looks = [_row_looks(tuple(b), tuple(r)) for b, r in zip(bold, right, strict=True)]
    return Grid(cells, looks, widths, bands, rules, spans)


# The four types of a table cell: 7-point narrow type, bold or not, left or
# right aligned.
_LOOKS = {
    (b, r): Look(NARROW_BOLD if b else NARROW, r) for b in (False, True) for r in (False, True)
}


@lru_cache(maxsize=1024)
def _row_looks(bold: tuple[bool, ...], right: tuple[bool, ...]) -> tuple[Look, ...]:
    """A row's cell types (a few kinds of row in all the tables)."""
    return tuple(_LOOKS[b, r] for b, r in zip(bold, right, strict=True))


# Room a section needs at the foot of a page: its heading, a note, a table's
# header and a few rows; with less, it starts on the next page.
SECTION_ROOM = 110


def _section(title: str) -> list[Flowable]:
    return [CondPageBreak(SECTION_ROOM), Plain(title, STYLES["h1"])]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Header:
    """Running head and page numbers on every page."""

    def __init__(self, report: PlayerReport):
        years = "-".join(str(y) for y in (report.years[0], report.years[-1]))
        turn = "Game start" if report.turn == 0 else f"Turn {report.turn}"
        # Shortened so that the two never meet, however long the names.
        self.left = printable(_short(f"{report.game} · {turn} ({years})", 60))
        self.right = printable(_short(report.character, 40) + f" (#{report.reader})")

    def __call__(self, canvas: Canvas, doc: BaseDocTemplate) -> None:
        width, height = doc.pageTemplate.pagesize  # this page's: the maps lie landscape
        canvas.saveState()
        canvas.setFont(NARROW, 7)
        canvas.setFillColor(colors.HexColor("#555555"))
        written = strings(canvas)
        written.left(MARGIN, height - 22, self.left)
        written.right(width - MARGIN, height - 22, self.right)
        written.centred(width / 2, 16, f"page {doc.page}")
        canvas.restoreState()


def _headlines(report: PlayerReport) -> list[Flowable]:
    out: list[Flowable] = [Plain("9.1 Headlines", STYLES["h1"])]
    out.append(Plain("World & National News", STYLES["h2"]))
    for year, lines in report.headlines.items():
        for line in lines:
            out.append(Dated(str(year), line))
    out.append(Plain("Railroad News", STYLES["h2"]))
    if not report.news:
        out.append(Plain("A quiet turn: no railroad news.", STYLES["note"]))
    for group in report.news:
        # The title and the first two items on one page; the rest as lines.
        items = ["• " + item.text for item in group.items]
        block: list[Flowable] = [Plain(group.title, STYLES["h2"])]
        block += [Item(text) for text in items[:2]]
        out.append(Together(block))
        if items[2:]:
            out.append(Item(items[2:]))
    if report.announcements:
        out.append(Plain("Announcements", STYLES["h2"]))
        for note in report.announcements:
            out.append(runs([(True, f"{note.author}:"), (False, " " + note.text)]))
    if report.adjustments:
        out.append(Plain("Moderator Adjustments", STYLES["h2"]))
        out.append(Item(["• " + text for text in report.adjustments]))
    out.append(Plain("Victory Points: the top five", STYLES["h2"]))
    header = [table.title for table in report.vp]
    rows = []
    for place in range(max(1, *(len(table.top) for table in report.vp))):
        row: list[Any] = []
        for table in report.vp:
            if place < len(table.top):
                entry = table.top[place]
                # Points first: a long name wraps, the figure stays beside the rank.
                who = f"{entry.character} (#{entry.position})"
                row.append(_p(f"{entry.rank}. {entry.points} – {who}"))
            else:
                row.append(_p("nobody has points yet") if place == 0 else "")
        rows.append(row)
    rows.append([_p(f"You: {t.reader_points}", "cellb") for t in report.vp])
    out.append(_table(header, rows, [WIDTH / 6] * 6, mine=[len(rows)]))
    return out


def _players(report: PlayerReport) -> list[Flowable]:
    header = [
        "Rank",
        "#",
        "Character",
        "Presides",
        "PCs",
        "Stock you may see",
        "Net worth",
        "Cash",
        "Real name, e-mail",
        "Phone",
    ]
    widths = [24, 18, 88, 46, 46, 100, 40, 38, 82, 41]
    rows = []
    mine = []
    for i, p in enumerate(report.players, start=1):
        who = p.character + ("" if p.human else " (computer)") + (" – spied" if p.spied else "")
        holdings = ", ".join(f"{code} {n}" for code, n in p.holdings.items())
        rows.append(
            [
                str(p.rank),
                str(p.position),
                _p(who),
                _p(", ".join(p.presides)),
                _p(", ".join(p.pcs)),
                _p(holdings),
                _n(p.net_worth, True),
                _n(p.cash, True),
                _p(" ".join(x for x in (p.real_name, p.email) if x)),
                _p(p.phone),
            ]
        )
        if p.position == report.reader:
            mine.append(i)
    return [
        *_section("9.2 Player Summary"),
        Plain(
            "All positions by net worth, highest first. Stock holdings are shown for your "
            "own position, for railroads you preside over, and for players and railroads you "
            "spied on this turn.",
            STYLES["note"],
        ),
        _table(header, rows, widths, mine=mine, extra=[("ALIGN", (6, 1), (7, -1), "RIGHT")]),
    ]


def _railroads(report: PlayerReport) -> list[Flowable]:
    header = [
        "No",
        "RR",
        "Track",
        "Revenues",
        "Op. Exp.",
        "Bond Debt",
        "Loan Debt",
        "Pft/sh",
        "Div/sh",
        "Land",
        "Grant",
        "Pres",
        "Chr",
        "Other Directors",
    ]
    widths = [20, 36, 30, 42, 40, 40, 40, 30, 28, 36, 34, 26, 26, 75]
    rows: list[list[Any]] = []
    extra: list[tuple[Any, ...]] = [("ALIGN", (2, 1), (10, -1), "RIGHT")]
    mine = []
    for rr in report.railroads:
        rows.append(
            [
                str(rr.number),
                printable(rr.code),
                _n(rr.track),
                _n(rr.revenues, True),
                _n(rr.op_expense, True),
                _n(rr.bond_debt, True),
                _n(rr.loan_debt, True),
                _n(rr.profit_per_share),
                _n(rr.dividend_per_share),
                _n(rr.land),
                _n(rr.grant),
                _n(rr.president),
                _n(rr.chairman),
                _p(", ".join(str(d) for d in rr.directors)),
            ]
        )
        if rr.reader_role:
            mine.append(len(rows))
        lines = "; ".join(
            f"{line.code} {line.towns} {line.length}"
            + (" (double)" if line.double else "")
            + ("" if line.built else " (RoW, unbuilt)")
            for line in rr.lines
        )
        detail = (
            f"{rr.name} – efficiency {rr.efficiency}, locomotive {rr.locomotive}, "
            f"technologies {''.join(rr.technologies) or 'none'}. Lines: {lines}"
        )
        rows.append(["", _p(detail), *[""] * 12])
        row = len(rows)
        extra += [("SPAN", (1, row), (-1, row)), ("BACKGROUND", (0, row), (-1, row), _LINES)]
    return [
        *_section("9.3 Railroad Summary"),
        _table(header, rows, widths, mine=mine, extra=extra, code_column=True),
    ]


def _stocks(report: PlayerReport) -> list[Flowable]:
    spied = report.spied_players
    header = [
        "No",
        "RR",
        "Start",
        "High",
        "Low",
        "End",
        "Volume",
        "Issued",
        "Treasury",
        "You bought",
        "You sold",
        "Short",
        "You own",
        "Max bid",
    ]
    header += [f"#{pos} owns" for pos in spied]
    fixed = [20, 34, 30, 30, 30, 30, 36, 38, 40, 38, 36, 34, 38, 36]
    spare = WIDTH - sum(fixed)
    widths = fixed + [max(30.0, spare / max(1, len(spied)))] * len(spied)
    if spied:
        scale = WIDTH / sum(widths)
        widths = [w * scale for w in widths]
    rows = []
    mine = []
    for s in report.stocks:
        rows.append(
            [
                str(s.number),
                printable(s.code),
                _n(s.start_price),
                _n(s.high),
                _n(s.low),
                _n(s.end_price),
                _n(s.volume),
                _n(s.issued),
                _n(s.treasury),
                _n(s.bought + s.covered),
                _n(s.sold + s.shorted),
                _n(s.short),
                _n(s.holding),
                _n(s.max_bid),
                *[_n(s.spied.get(pos, 0)) for pos in spied],
            ]
        )
        if s.holding or s.bought or s.sold or s.short:
            mine.append(len(rows))
    return [
        *_section("9.4 Stock Report"),
        Plain(
            "Prices in dollars a share; the end price is after splits and mergers. Max bid: "
            "the most shares you may bid for next turn.",
            STYLES["note"],
        ),
        _table(header, rows, widths, numeric_from=2, mine=mine, code_column=True),
    ]


def _pcs(report: PlayerReport) -> list[Flowable]:
    header = ["No", "PC", "Name", "Route", "Miles", "Asking price", "Offered by"]
    widths = [22, 40, 120, 175, 36, 56, 74]
    rows = [
        [
            str(pc.number),
            printable(pc.code),
            _p(pc.name),
            _p(pc.towns),
            _n(pc.length),
            _n(pc.asking_price, True),
            "" if pc.owner is None else f"#{pc.owner}",
        ]
        for pc in report.pcs
    ]
    out: list[Flowable] = _section("9.5 PCs Available")
    if rows:
        out.append(
            _table(
                header, rows, widths, extra=[("ALIGN", (4, 1), (5, -1), "RIGHT")], code_column=True
            )
        )
    else:
        out.append(Plain("No PCs are available this turn.", STYLES["note"]))
    return out


def _cash_flow(flow: CashFlow, width: float = 290) -> Grid:
    rows: list[list[Any]] = [[_p("Cash at start of turn"), _n(flow.opening, True)]]
    rows += [[_p(item.text), _n(item.amount, True)] for item in flow.items]
    rows.append([_p("End cash", "cellb"), _n(flow.closing, True)])
    return _table(
        [flow.title, "Amount"],
        rows,
        [width - 60, 60],
        numeric_from=1,
        extra=[
            ("LINEABOVE", (0, len(rows)), (-1, len(rows)), 0.8, colors.black),
            ("FONT", (1, len(rows)), (1, len(rows)), NARROW_BOLD, 7),
        ],
    )


def _private(report: PlayerReport) -> list[Flowable]:
    private = report.private
    sheet = private.balance
    out: list[Flowable] = [CondPageBreak(120), Plain("9.6 Private Report", STYLES["h1"])]
    if private.orders:
        out.append(Plain("Your orders refused or cut", STYLES["h2"]))
        for o in private.orders:
            out.append(runs([(False, "• "), (True, o.text), (False, " " + o.hint)]))
        out.append(Spacer(1, 6))
    out += [_cash_flow(private.cash_flow), Spacer(1, 6)]
    rows = [
        ["Cash", money(sheet.cash)],
        ["Stock at market prices", money(sheet.stock)],
        ["PCs", money(sheet.pcs)],
        ["Loans to railroads", money(sheet.loans_to_railroads)],
        ["Short-sale collateral", money(sheet.short_collateral)],
        ["Less cost to cover shorts", money(-sheet.shorts)],
        ["Assets", money(sheet.assets)],
        ["Bank loan (debt)", money(sheet.loan)],
        ["Net worth", money(sheet.net_worth)],
        ["Credit limit", money(sheet.credit_limit)],
    ]
    out.append(_table(["Balance at end of turn", ""], rows, [220, 70], numeric_from=1))
    if private.notes:
        out.append(Plain("Private notes", STYLES["h2"]))
        out.append(Item(["• " + n.text for n in private.notes]))
    if private.railroads:
        out.append(Plain("Railroads you direct or spied on", STYLES["h2"]))
        half = WIDTH / 2
        if any(len(flow.items) > 40 for flow in private.railroads):
            # A nested table cannot split across pages: long books go one under another.
            for flow in private.railroads:
                out += [_cash_flow(flow), Spacer(1, 6)]
            return out
        flows = [_cash_flow(flow, half - 8) for flow in private.railroads]
        for i in range(0, len(flows), 2):
            right = flows[i + 1] if i + 1 < len(flows) else None
            out += [Pair(flows[i], right, half), Spacer(1, 6)]
    return out


def _closing(report: PlayerReport) -> list[Flowable]:
    out: list[Flowable] = []
    if report.final is not None:
        out += [PageBreak(), Plain("Final Results", STYLES["h1"])]
        rows = [
            [
                _p(w.title, "cellb"),
                _n(w.points),
                _p(", ".join(f"{e.character} (#{e.position})" for e in w.winners)),
            ]
            for w in report.final.winners
        ]
        out.append(
            _table(
                ["Category", "VP", "Winner"],
                rows,
                [90, 40, 300],
                extra=[("ALIGN", (1, 1), (1, -1), "RIGHT")],
            )
        )
        out.append(Plain("Records over all games", STYLES["h2"]))
        rows = [
            [_p(r.title), _n(r.score), _p(r.character), _p(r.game)] for r in report.final.records
        ]
        if rows:
            out.append(
                _table(
                    ["Category", "Score", "Holder", "Game"],
                    rows,
                    [90, 40, 170, 130],
                    extra=[("ALIGN", (1, 1), (1, -1), "RIGHT")],
                )
            )
    elif report.turnsheet:
        out += [
            PageBreak(),
            Plain(f"Turnsheet for turn {report.next_turn}", STYLES["h1"]),
            WrittenPreformatted(printable(report.turnsheet), STYLES["mono"]),
        ]
    return out


def _front(report: PlayerReport) -> list[Flowable]:
    years = " and ".join(str(y) for y in report.years)
    lines = [
        f"The start of the game: turn 1 covers the years {years}"
        if report.turn == 0
        else f"Turn {report.turn}: the years {years}",
        f"Report for {report.character} (player #{report.reader})",
        f"Economy: {report.climate_start} during the turn, {report.climate_end} now "
        f"(loan interest {report.loan_rate}%)",
    ]
    if report.deadline:
        lines.append(f"Orders for turn {report.next_turn} due: {report.deadline}")
    out: list[Flowable] = [
        Plain(f"{report.game} – {report.scenario}", STYLES["title"]),
        *[Plain(line, STYLES["body"]) for line in lines],
    ]
    if report.replaces is not None:
        out.append(
            Paragraph(f"<b>{para(report.replaces.sentence(report.turn))}</b>", STYLES["body"])
        )
    stood_in = report.stood_in
    if stood_in is not None:
        if stood_in.source == "standing":
            said = "The orders you last sent were carried out again:"
        elif stood_in.orders:
            said = "The computer played your position and gave these orders:"
        else:
            said = "Your position gave no orders this turn."
        cell = [
            Paragraph(
                f"<b>You sent no orders for turn {report.turn}.</b> {para(said)}", STYLES["body"]
            )
        ]
        if stood_in.orders:
            cell.append(Paragraph(para("   ·   ".join(stood_in.orders)), STYLES["mono"]))
        box = Table([[cell]], colWidths=[WIDTH])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), _MINE),
                    ("BOX", (0, 0), (-1, -1), 0.6, _GRID),
                    ("TOPPADDING", (0, 0), (-1, -1), 4),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                ]
            )
        )
        out += [Spacer(1, 4), box]
    return out


def render_pdf(
    report: PlayerReport, maps: MapPages | None = None, canvasmaker: Any = report_canvas
) -> bytes:
    """The whole report as PDF bytes; `maps` adds the reader's map pages.
    `canvasmaker`: makes the canvas (the bench's floor records the drawing);
    by default ReportLab's, embedding each font subset once per process."""
    buffer = io.BytesIO()
    header = _Header(report)
    doc = BaseDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=printable(f"{report.game} turn {report.turn}: report for #{report.reader}"),
        author="turnproc",
        creator="turnproc",
        invariant=1,
        # A heading kept with what follows it, measured without copying the frame.
        keepTogetherClass=Together if internals.PRIVATE else KeepTogether,
    )
    templates = [
        PageTemplate(
            id="report",
            frames=[Frame(MARGIN, MARGIN, WIDTH, PAGE[1] - 2 * MARGIN, id="body")],
            onPage=header,
            pagesize=PAGE,
        )
    ]
    story: list[Flowable] = _front(report)
    story += _headlines(report)
    story += _players(report)
    story += _railroads(report)
    story += _stocks(report)
    story += _pcs(report)
    story += _private(report)
    if maps is not None:
        templates.append(maps.page_template(onPage=header))
        story += [NextPageTemplate("map"), PageBreak(), *maps.flowables(report)]
        story += [NextPageTemplate("report")]
    story += _closing(report)
    doc.addPageTemplates(templates)
    doc.build(story, canvasmaker=canvasmaker)
    return buffer.getvalue()
