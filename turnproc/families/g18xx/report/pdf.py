"""The report as a PDF: the map page (hexes at their printed coordinates,
terrain and costs, tiles with their track, cities with revenues and stations in
company colours, off-board values), the stock market with company markers,
then the charters, holdings and the log. Deterministic: `invariant=1` keeps
ReportLab's dates and document id fixed, so a re-render is byte-identical."""

import io
import math

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
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

from turnproc.families.g18xx.report.model import CompanyView, HexView, LayView, Report, bank_words

PAGE = landscape(A4)
MARGIN = 28
SQRT3 = math.sqrt(3)
FILL = {
    "white": "#f3ecd8",
    "yellow": "#f5d940",
    "green": "#5fb350",
    "brown": "#b07a46",
    "gray": "#b5b5b5",
    "red": "#d2483c",
}
TRACK = colors.HexColor("#1a1a1a")


def _hex_colour(value: str) -> colors.Color:
    return colors.HexColor(value)


def _split(name: str) -> tuple[int, int]:
    letters = name.rstrip("0123456789")
    row = 0
    for ch in letters:
        row = row * 26 + ord(ch.upper()) - 64
    return row, int(name[len(letters) :])


class _Geometry:
    """Hex centres, corners and edge midpoints for the map's layout: pointy hexes
    are lettered by row and numbered by doubled column (edge 0 south-west,
    clockwise); flat hexes lettered by column, numbered by doubled row (edge 0
    south, clockwise)."""

    def __init__(self, layout: str, radius: float) -> None:
        self.layout = layout
        self.r = radius

    def centre(self, name: str) -> tuple[float, float]:
        letter, number = _split(name)
        if self.layout == "pointy":
            return number * SQRT3 * self.r / 2, -letter * 1.5 * self.r
        return letter * 1.5 * self.r, -number * SQRT3 * self.r / 2

    def corners(self, x: float, y: float) -> list[tuple[float, float]]:
        start = 30 if self.layout == "pointy" else 0
        return [
            (
                x + self.r * math.cos(math.radians(start + 60 * k)),
                y + self.r * math.sin(math.radians(start + 60 * k)),
            )
            for k in range(6)
        ]

    def edge_angle(self, edge: int) -> float:
        base = 240 if self.layout == "pointy" else 270
        return math.radians(base - 60 * edge)

    def edge_point(self, x: float, y: float, edge: int) -> tuple[float, float]:
        d = self.r * SQRT3 / 2
        a = self.edge_angle(edge)
        return x + d * math.cos(a), y + d * math.sin(a)


def _node_positions(
    hex_view: HexView, geo: _Geometry, x: float, y: float
) -> list[tuple[float, float]]:
    """One stop sits in the centre; several sit towards the edges their track
    leaves by."""
    count = len(hex_view.nodes)
    if count <= 1:
        return [(x, y)] * count
    out = []
    for index in range(count):
        name = f"n{index}"
        edges = [
            b if a == name else a
            for a, b in hex_view.track
            if name in (a, b) and isinstance(b if a == name else a, int)
        ]
        if edges:
            vx = sum(math.cos(geo.edge_angle(int(e))) for e in edges)
            vy = sum(math.sin(geo.edge_angle(int(e))) for e in edges)
            length = math.hypot(vx, vy)
            if length < 1e-6:
                angle = geo.edge_angle(int(edges[0]))
                vx, vy, length = math.cos(angle), math.sin(angle), 1.0
        else:
            angle = math.radians(90 + 360 * index / count)
            vx, vy, length = math.cos(angle), math.sin(angle), 1.0
        out.append((x + 0.45 * geo.r * vx / length, y + 0.45 * geo.r * vy / length))
    return out


LAY_COLOUR = colors.HexColor("#c0007a")  # the reader's legal tile lays
LEGEND_DOT = 9.0
LEGEND_FONT = 8.0


def _legend_label(company: CompanyView) -> str:
    label = f"{company.id} {company.name}"
    if company.price is not None:
        label += f"  ${company.price}"
    return label


def _lay_label(lay: LayView) -> list[str]:
    """What a hex of the reader's tile lays says on the map: each tile with
    its rotations ("57 r0,3") when there are three tiles or fewer, else the
    tile numbers, three a line."""
    if len(lay.tiles) <= 3:
        return list(lay.tiles)
    numbers = [tile.split(" r")[0] for tile in lay.tiles]
    return [" ".join(numbers[i : i + 3]) for i in range(0, len(numbers), 3)]


def lay_rows(report: Report) -> list[list[object]]:
    """The table "Your tile lays now": a row for each hex, the tiles that
    fit there each with its rotations, and the terrain cost."""
    rows: list[list[object]] = [["Hex", "Lay or upgrade", "Tiles (rotations)", "Cost"]]
    for lay in report.lays:
        tiles = []
        for tile in lay.tiles:
            number, _, rotations = tile.partition(" r")
            tiles.append(f"{number} ({rotations.replace(',', ', ')})")
        rows.append(
            [
                f"{lay.hex} {lay.name}" if lay.name else lay.hex,
                f"upgrade of tile {lay.upgrade}" if lay.upgrade else "lay",
                ", ".join(tiles),
                f"${lay.cost:,}" if lay.cost else "none",
            ]
        )
    return rows


class MapFlowable(Flowable):
    """The whole map scaled to the frame."""

    def __init__(
        self,
        report: Report,
        width: float,
        height: float,
        legend_below: bool = False,
        room_below: float = 0,
        trim: bool = False,
    ) -> None:
        """`legend_below`: the legend under the map (a portrait page), else
        in a column of its own to the left. `room_below`: the height of what
        is to follow the map on its page (the reader's tile lays): the map
        shrinks, if it must, to leave it room. `trim` (as `room_below`
        does): the flowable is only as high as the map and its legend."""
        super().__init__()
        self.report = report
        self.width = width
        self.height = height
        unit = _Geometry(report.layout, 1.0)
        points = [unit.centre(h.hex) for h in report.hexes]
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        span_x = max(xs) - min(xs) + SQRT3
        span_y = max(ys) - min(ys) + 2
        # the legend has a column of its own, so no map fills its corner
        self.legend_width = max(
            (
                LEGEND_DOT + 4 + stringWidth(_legend_label(c), "Helvetica", LEGEND_FONT)
                for c in report.companies
            ),
            default=0,
        )
        room = width - self.legend_width - 8
        tall = height
        if legend_below:
            room = width
            tall = height - len(report.companies) * (LEGEND_DOT + 4) - 8
        self.scale = min(room / span_x, tall / span_y)
        if room_below:
            # the map takes the height it needs, shrunk by a tenth at most
            # to leave room for what follows, which else goes to the next page
            fits = min(room / span_x, (tall - room_below) / span_y)
            if fits >= 0.9 * self.scale:
                self.scale = min(self.scale, fits)
        if room_below or trim:
            self.height = height = min(height, span_y * self.scale + height - tall)
        self.geo = _Geometry(report.layout, self.scale)
        self.origin = (
            -min(xs) * self.scale
            + self.scale * SQRT3 / 2
            + width
            - room
            + (room - span_x * self.scale) / 2,
            -max(ys) * self.scale + height - self.scale,
        )

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def _at(self, name: str) -> tuple[float, float]:
        x, y = self.geo.centre(name)
        return x + self.origin[0], y + self.origin[1]

    def draw(self) -> None:
        companies = {c.id: c for c in self.report.companies}
        for hex_view in self.report.hexes:
            self._draw_hex(hex_view)
        for hex_view in self.report.hexes:
            self._draw_track(hex_view)
        for hex_view in self.report.hexes:
            self._draw_stops(hex_view, companies)
            self._draw_labels(hex_view)
        for lay in self.report.lays:
            self._draw_lay(lay)
        self._draw_legend()

    def _draw_lay(self, lay: LayView) -> None:
        """A hex the reader may lay or upgrade now: outlined, with the tiles
        that fit written across it, and their rotations when they fit in
        three lines ("57 r0,3"); the table "Your tile lays now" gives them all."""
        canvas = self.canv
        x, y = self._at(lay.hex)
        r = self.geo.r
        canvas.saveState()
        canvas.setStrokeColor(LAY_COLOUR)
        canvas.setLineWidth(max(1.2, r * 0.08))
        canvas.setDash(r * 0.18, r * 0.1)
        path = canvas.beginPath()
        corners = self.geo.corners(x, y)
        path.moveTo(*corners[0])
        for corner in corners[1:]:
            path.lineTo(*corner)
        path.close()
        canvas.drawPath(path, stroke=1, fill=0)
        size = r * 0.22
        lines = _lay_label(lay)
        top = y + size * 1.1 * (len(lines) - 1) / 2 - size * 0.35
        canvas.setFont("Helvetica-Bold", size)
        for index, text in enumerate(lines):
            width = stringWidth(text, "Helvetica-Bold", size)
            line_y = top - index * size * 1.1
            canvas.setFillColor(colors.white)
            canvas.rect(
                x - width / 2 - 1, line_y - size * 0.25, width + 2, size * 1.05, stroke=0, fill=1
            )
            canvas.setFillColor(LAY_COLOUR)
            canvas.drawCentredString(x, line_y, text)
        canvas.restoreState()

    def _draw_legend(self) -> None:
        """Company colours, bottom left, in a column beside the map."""
        canvas = self.canv
        size = LEGEND_DOT
        for index, company in enumerate(self.report.companies):
            y = 4 + (len(self.report.companies) - 1 - index) * (size + 4)
            canvas.setFillColor(_hex_colour(company.colour))
            canvas.circle(size / 2, y + size / 2, size / 2, stroke=0, fill=1)
            canvas.setFillColor(colors.black)
            canvas.setFont("Helvetica", LEGEND_FONT)
            canvas.drawString(size + 4, y + 2, _legend_label(company))

    def _draw_hex(self, hex_view: HexView) -> None:
        canvas = self.canv
        x, y = self._at(hex_view.hex)
        path = canvas.beginPath()
        corners = self.geo.corners(x, y)
        path.moveTo(*corners[0])
        for corner in corners[1:]:
            path.lineTo(*corner)
        path.close()
        canvas.setFillColor(_hex_colour(FILL.get(hex_view.colour, FILL["white"])))
        canvas.setStrokeColor(colors.HexColor("#6b6b6b"))
        canvas.setLineWidth(0.6)
        canvas.drawPath(path, fill=1, stroke=1)

    def _draw_track(self, hex_view: HexView) -> None:
        canvas = self.canv
        x, y = self._at(hex_view.hex)
        nodes = _node_positions(hex_view, self.geo, x, y)
        canvas.setStrokeColor(TRACK)
        canvas.setLineWidth(self.geo.r * 0.11)
        canvas.setLineCap(0)
        for a, b in hex_view.track:
            ends = [
                self.geo.edge_point(x, y, end) if isinstance(end, int) else nodes[int(end[1:])]
                for end in (a, b)
            ]
            if isinstance(a, int) and isinstance(b, int):
                (x1, y1), (x2, y2) = ends
                k = 0.55
                path = canvas.beginPath()
                path.moveTo(x1, y1)
                path.curveTo(
                    x1 + (x - x1) * k,
                    y1 + (y - y1) * k,
                    x2 + (x - x2) * k,
                    y2 + (y - y2) * k,
                    x2,
                    y2,
                )
                canvas.drawPath(path, fill=0, stroke=1)
            else:
                canvas.line(ends[0][0], ends[0][1], ends[1][0], ends[1][1])

    def _draw_stops(self, hex_view: HexView, companies: dict[str, CompanyView]) -> None:
        canvas = self.canv
        r = self.geo.r
        x, y = self._at(hex_view.hex)
        nodes = _node_positions(hex_view, self.geo, x, y)
        for (nx, ny), node in zip(nodes, hex_view.nodes, strict=True):
            if node.kind == "town":
                canvas.setFillColor(TRACK)
                canvas.circle(nx, ny, r * 0.11, stroke=0, fill=1)
                if node.revenue:
                    self._revenue(nx + r * 0.2, ny + r * 0.2, node.revenue)
                continue
            if node.kind == "offboard":
                values = "/".join(str(v) for v in node.revenues.values()) or str(node.revenue)
                self._revenue(nx, ny, values, wide=True)
                continue
            slot = r * min(0.24, 0.62 / max(node.slots, 1))
            width = slot * 2 * node.slots
            for index in range(node.slots):
                sx = nx - width / 2 + slot + index * 2 * slot
                canvas.setFillColor(colors.white)
                canvas.setStrokeColor(TRACK)
                canvas.setLineWidth(0.8)
                canvas.circle(sx, ny, slot, stroke=1, fill=1)
                if index < len(node.tokens):
                    token = node.tokens[index]
                    company = companies.get(token)
                    fill = company.colour if company else "#808080"
                    canvas.setFillColor(_hex_colour(fill))
                    canvas.circle(sx, ny, slot * 0.85, stroke=0, fill=1)
                    canvas.setFillColor(colors.white)
                    label = token if company else ""
                    size = max(3.5, min(slot * 0.8, slot * 2.6 / max(len(label), 1)))
                    canvas.setFont("Helvetica-Bold", size)
                    canvas.drawCentredString(sx, ny - size * 0.35, label)
            if node.revenue:
                self._revenue(nx - width / 2 - r * 0.08, ny + slot * 0.9, node.revenue)

    def _revenue(self, x: float, y: float, value: object, wide: bool = False) -> None:
        canvas = self.canv
        text = str(value)
        size = self.geo.r * (0.26 if wide else 0.24)
        canvas.setFont("Helvetica-Bold", size)
        width = canvas.stringWidth(text, "Helvetica-Bold", size)
        canvas.setFillColor(colors.white)
        canvas.setStrokeColor(TRACK)
        canvas.setLineWidth(0.5)
        pad = size * 0.25
        canvas.roundRect(
            x - width / 2 - pad, y - size * 0.35 - pad, width + 2 * pad, size + pad, pad, 1, 1
        )
        canvas.setFillColor(colors.black)
        canvas.drawCentredString(x, y - size * 0.2, text)

    def _draw_labels(self, hex_view: HexView) -> None:
        canvas = self.canv
        r = self.geo.r
        x, y = self._at(hex_view.hex)
        canvas.setFillColor(colors.HexColor("#444444"))
        canvas.setFont("Helvetica", r * 0.2)
        canvas.drawCentredString(x, y + r * 0.68, hex_view.hex)
        if hex_view.name:
            # on a pale ground, so track under the name does not hide it
            name, size = hex_view.name[:16], r * 0.19
            width = stringWidth(name, "Helvetica", size)
            canvas.setFillColor(colors.white)
            canvas.setFillAlpha(0.75)
            canvas.roundRect(
                x - width / 2 - 1, y - r * 0.8 - size * 0.3, width + 2, size * 1.15, 1, 0, 1
            )
            canvas.setFillAlpha(1)
            canvas.setFillColor(colors.black)
            canvas.setFont("Helvetica", size)
            canvas.drawCentredString(x, y - r * 0.8, name)
        if hex_view.tile:
            canvas.setFillColor(colors.black)
            # the tile's number, legible at print size
            canvas.setFont("Helvetica-Bold", r * 0.26)
            canvas.drawString(x + r * 0.3, y - r * 0.5, hex_view.tile)
        if hex_view.cost:
            label = f"${hex_view.cost}"
            if hex_view.terrain:
                label = f"{hex_view.terrain} {label}"
            canvas.setFillColor(
                colors.HexColor("#1d5fa8" if hex_view.terrain == "river" else "#6b4a1f")
            )
            canvas.setFont("Helvetica-Bold", r * 0.2)
            canvas.drawCentredString(x, y - r * 0.55, label)


class MarketFlowable(Flowable):
    """The stock market grid with each company's marker on its price."""

    def __init__(self, report: Report, width: float) -> None:
        super().__init__()
        self.report = report
        columns = max(len(row) for row in report.market)
        self.cell_w = width / columns
        self.cell_h = min(48.0, self.cell_w * 0.9)
        self.width = width
        self.height = self.cell_h * len(report.market)

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        colour = {c.id: c.colour for c in self.report.companies}
        w, h = self.cell_w, self.cell_h
        for r, row in enumerate(self.report.market):
            for c, cell in enumerate(row):
                x, y = c * w, self.height - (r + 1) * h
                fill = "#f5e37a" if cell.yellow else "#ffffff"
                if cell.end:
                    fill = "#e8a0a0"
                canvas.setFillColor(colors.HexColor(fill))
                canvas.setStrokeColor(colors.HexColor("#555555"))
                canvas.setLineWidth(1.6 if cell.par else 0.5)
                canvas.rect(x, y, w, h, stroke=1, fill=1)
                canvas.setFillColor(colors.black)
                canvas.setFont("Helvetica-Bold" if cell.par else "Helvetica", 8)
                canvas.drawString(x + 2, y + h - 9, f"{cell.price}" + (" par" if cell.par else ""))
                for k, company in enumerate(cell.companies):
                    mx, my = x + 3 + (k % 2) * (w / 2 - 1), y + h - 22 - (k // 2) * 11
                    canvas.setFillColor(colors.HexColor(colour.get(company, "#555555")))
                    canvas.roundRect(mx, my, w / 2 - 4, 10, 2, stroke=0, fill=1)
                    canvas.setFillColor(colors.white)
                    canvas.setFont("Helvetica-Bold", 6.5)
                    canvas.drawCentredString(mx + (w / 2 - 4) / 2, my + 2.6, company)


def _styles() -> dict[str, ParagraphStyle]:
    return {
        "h1": ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=14, leading=17),
        "h2": ParagraphStyle(
            "h2", fontName="Helvetica-Bold", fontSize=11, leading=14, spaceBefore=6
        ),
        "body": ParagraphStyle("body", fontName="Helvetica", fontSize=8.5, leading=10.5),
        "cell": ParagraphStyle("cell", fontName="Helvetica", fontSize=7.5, leading=9),
        "step": ParagraphStyle(
            "step", fontName="Helvetica-Bold", fontSize=8.5, leading=10.5, spaceBefore=3
        ),
        "order": ParagraphStyle(
            "order", fontName="Courier", fontSize=8.5, leading=10.5, leftIndent=14
        ),
    }


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _esc(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _grid(
    rows: list[list[object]], widths: list[float], colours: list[str | None] | None = None
) -> Table:
    style = _styles()["cell"]
    white = ParagraphStyle("white", parent=style, textColor=colors.white)
    data = [
        [
            Paragraph(_esc(v), white if colours and i > 0 and k == 0 and colours[i - 1] else style)
            for k, v in enumerate(row)
        ]
        for i, row in enumerate(rows)
    ]
    table = Table(data, colWidths=widths, repeatRows=1)
    commands: list[tuple[object, ...]] = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dddddd")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    for index, colour in enumerate(colours or []):
        if colour:
            commands.append(("BACKGROUND", (0, index + 1), (0, index + 1), colors.HexColor(colour)))
    table.setStyle(TableStyle(commands))
    return table


def _heading(report: Report) -> str:
    parts = [f"{report.title}: {report.round} round"]
    if report.operating_round:
        parts.append(f"OR {report.operating_round}")
    parts.append(f"phase {report.phase}")
    if report.ended:
        parts.append(f"game over ({report.end_reason})")
    elif report.to_move:
        parts.append(
            f"player {report.to_move} to move"
            + (f" for {report.operating}" if report.operating else "")
        )
    if report.reader:
        parts.append(f"report for player {report.reader}")
    return ", ".join(parts)


def _market_key(report: Report) -> str:
    """What the cells' colours and frames mean."""
    key = "Yellow: certificates that do not count against the limit (3.3b). Framed: par values."
    if any(cell.end for row in report.market for cell in row):
        key += " Red: a company reaching it ends the game."
    return key


def _heading_height(report: Report, width: float) -> float:
    """The room the report's heading takes above the map."""
    _, height = Paragraph(_esc(_heading(report)), _styles()["h1"]).wrap(width - 12, 1000)
    return float(height) + 4


def _map_is_wide(report: Report) -> bool:
    """Whether the map is wider than tall, as the landscape page is."""
    unit = _Geometry(report.layout, 1.0)
    points = [unit.centre(h.hex) for h in report.hexes]
    span_x = max(p[0] for p in points) - min(p[0] for p in points) + SQRT3
    span_y = max(p[1] for p in points) - min(p[1] for p in points) + 2
    return span_x >= span_y


LAY_WIDTHS = (0.17, 0.17, 0.56, 0.1)  # of the table's width


def _lay_parts(report: Report, width: float) -> list[Flowable]:
    """The heading "Your tile lays now", its table and how to write a lay."""
    if not report.lays:
        return []
    s = _styles()
    table = _grid(lay_rows(report), [width * share for share in LAY_WIDTHS])
    table.hAlign = "LEFT"
    number, _, rotations = report.lays[0].tiles[0].partition(" r")
    example = f"LAY {number} {report.lays[0].hex} {rotations.split(',')[0]}"
    how = f"Write LAY &lt;tile&gt; &lt;hex&gt; &lt;rotation&gt;, e.g. {_esc(example)}."
    return [Paragraph("Your tile lays now", s["h2"]), table, Paragraph(how, s["body"])]


def _lay_table(report: Report, width: float) -> list[Flowable]:
    """The reader's tile lays under the map, kept together (on the next page
    if they do not fit under it)."""
    parts = _lay_parts(report, width)
    return [Spacer(1, 6), KeepTogether(parts)] if parts else []


def _lays_height(report: Report, width: float) -> float:
    """The height the reader's tile lays take under the map."""
    parts = _lay_parts(report, width)
    return sum(p.wrap(width, 10_000)[1] + p.getSpaceBefore() for p in parts) + 6 * bool(parts)


def render_pdf(report: Report) -> bytes:
    """The report as PDF bytes, the same bytes for the same report."""
    buffer = io.BytesIO()
    width = PAGE[0] - 2 * MARGIN
    # A map taller than wide (18MS) gets a portrait page of its own, so that
    # it fills the page; the tables keep the landscape pages.
    map_page = PAGE if _map_is_wide(report) else A4
    doc = BaseDocTemplate(
        buffer,
        pagesize=map_page,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=f"{report.title} report",
        author="turnproc",
        creator="turnproc",
        invariant=1,
    )
    doc.addPageTemplates(
        [
            PageTemplate(
                id=name,
                pagesize=size,
                frames=[Frame(MARGIN, MARGIN, size[0] - 2 * MARGIN, size[1] - 2 * MARGIN)],
            )
            for name, size in (("map", map_page), ("tables", PAGE))
        ]
    )
    s = _styles()
    map_width, map_height = map_page[0] - 2 * MARGIN, map_page[1] - 2 * MARGIN
    story: list[Flowable] = [
        NextPageTemplate("tables"),
        Paragraph(_esc(_heading(report)), s["h1"]),
        Spacer(1, 4),
        MapFlowable(
            report,
            map_width - 12,
            map_height - 12 - _heading_height(report, map_width),
            legend_below=map_page is not PAGE,
            room_below=_lays_height(report, map_width - 12),
        ),
        *_lay_table(report, map_width - 12),
        PageBreak(),
        Paragraph("Stock market", s["h1"]),
        Spacer(1, 4),
        MarketFlowable(report, width - 12),
        Spacer(1, 8),
        Paragraph(
            _esc(
                _market_key(report)
                + f" {_capital(bank_words(report.bank))}. Trains for sale: "
                + (
                    ", ".join(
                        f"{t.name} ${t.price} ({t.left} left)" for t in report.trains_for_sale
                    )
                    or "none"
                )
                + f". Phase {report.phase}: {'/'.join(report.tiles)} tiles,"
                + f" train limit {report.train_limit}."
            ),
            s["body"],
        ),
        PageBreak(),
        Paragraph("Charters", s["h1"]),
        Spacer(1, 4),
    ]
    rows: list[list[object]] = [
        [
            "Company",
            "Par / price",
            "Cash",
            "President",
            "Trains",
            "Stations",
            "Tokens left",
            "Share holders",
            "Privates",
        ]
    ]
    for c in report.companies:
        parts = [
            f"{h.holder}: {h.percent}%{' president' if h.president else ''}" for h in c.holders
        ]
        if c.ipo_percent and c.par is not None:
            parts.append(f"initial offering: {c.ipo_percent}%")
        if c.market_percent:
            parts.append(f"open market: {c.market_percent}%")
        holders = ", ".join(parts) or "-"
        rows.append(
            [
                f"{c.id} {c.name}",
                "not started"
                if c.par is None
                else f"${c.par} / ${c.price}" + ("" if c.floated else " (not floated)"),
                f"${c.cash}",
                c.president or "-",
                " ".join(c.trains) or "none",
                " ".join(c.stations) or f"home {c.home}",
                " ".join(f"${t}" for t in c.tokens_left) or "none",
                holders,
                " ".join(c.privates) or "-",
            ]
        )
    story.append(
        _grid(rows, [120, 70, 45, 50, 60, 70, 60, 200, 50], [c.colour for c in report.companies])
    )
    story += [Paragraph("Players", s["h2"]), Spacer(1, 2)]
    rows = [["Player", "Cash", "Certificates", "Shares", "Privates", "Value"]]
    for p in report.players:
        shares = ", ".join(
            f"{c} {pct}%{' president' if c in p.presidencies else ''}"
            for c, pct in p.shares.items()
        )
        rows.append(
            [
                p.id + (" (you)" if p.id == report.reader else ""),
                f"${p.cash}",
                f"{p.certificates} / {report.certificate_limit}",
                shares or "-",
                " ".join(p.privates) or "-",
                f"${p.score}",
            ]
        )
    story.append(_grid(rows, [80, 60, 70, 300, 120, 60]))
    story += [Paragraph("Private companies", s["h2"]), Spacer(1, 2)]
    rows = [["Private", "Value", "Revenue", "Owner"]]
    for pv in report.privates:
        rows.append(
            [
                f"{pv.id} {pv.name}",
                f"${pv.value}",
                f"${pv.revenue}",
                "closed" if pv.closed else pv.owner or "unsold",
            ]
        )
    story.append(_grid(rows, [260, 60, 60, 120]))
    if report.offers:
        story += [Paragraph("Standing offers for privates", s["h2"])]
        story += [Paragraph(_esc(_capital(o.words)), s["body"]) for o in report.offers]
    if report.may_do:
        story += [Paragraph("What you may do now", s["h2"])]
        # a heading of the step, then its orders as the player copies them
        story += [
            Paragraph(_esc(line.strip()), s["order" if line.startswith("  ") else "step"])
            for line in report.may_do
        ]
    if report.log:
        heading = (
            "Since your last move"
            if report.log_since < 0
            else f"Log from action {report.log_since + 1}"
        )
        story += [Paragraph(heading, s["h2"])]
        story += [Paragraph(_esc(line), s["body"]) for line in report.log]
    doc.build(story)
    return buffer.getvalue()
