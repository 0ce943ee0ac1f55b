"""The report's tables drawn straight on the canvas (report/grid.py): laid out
and split across pages as ReportLab's Table lays out and splits the same
cells, the header repeated on every page, each row printed once."""

import io

from pypdf import PdfReader
from reportlab.platypus import SimpleDocTemplate, Table, TableStyle
from reportlab.platypus.tables import CellStyle

from turnproc.families.continental_rails.report import grid as g
from turnproc.families.continental_rails.report.grid import Grid, Look
from turnproc.families.continental_rails.report.pdf import _GRID, _table

WIDTHS = [30.0, 120.0, 40.0]


def _rows(count: int) -> list[list[str]]:
    # Every fifth row wraps onto two lines, so rows differ in height.
    return [
        [str(i), f"row {i}" + (" with a long name that wraps" * 2 if i % 5 == 0 else ""), "$1"]
        for i in range(1, count + 1)
    ]


def _cell_style(look: Look) -> CellStyle:
    style = CellStyle("cell")
    style.fontname, style.fontsize, style.leading = look.font, g.FONT_SIZE, g.LEADING
    style.alignment = "RIGHT" if look.right else "LEFT"
    style.valign = "TOP"
    style.topPadding, style.bottomPadding = g.PAD_TOP, g.PAD_BOTTOM
    style.leftPadding = style.rightPadding = g.PAD_SIDE
    return style


def _reportlab_table(rows: list[list[str]]) -> Table:
    """The same cells as a ReportLab Table with the report's cell style."""
    grid = _table(["No", "Name", "Cash"], rows, WIDTHS, numeric_from=2)
    styles = [[_cell_style(look) for look in looks] for looks in grid.looks]
    table = Table(
        [list(cells) for cells in grid.cells],
        colWidths=WIDTHS,
        repeatRows=1,
        cellStyles=styles,
    )
    table.setStyle(TableStyle([("LINEBELOW", (0, 1), (-1, -1), 0.25, _GRID)]))
    return table


def _rows_of(flowable: Grid | Table) -> int:
    return len(flowable.cells) if isinstance(flowable, Grid) else len(flowable._cellvalues)


def test_a_grid_is_as_tall_and_splits_where_a_table_would() -> None:
    rows = _rows(60)
    grid = _table(["No", "Name", "Cash"], rows, WIDTHS, numeric_from=2)
    table = _reportlab_table(rows)
    assert grid.wrap(500, 10_000) == table.wrap(500, 10_000)
    for height in (100.0, 173.3, 250.0):
        grid_parts = [_rows_of(p) for p in grid.split(500, height)]
        table.wrap(500, height)
        table_parts = [_rows_of(p) for p in table.split(500, height)]
        assert grid_parts == table_parts
        assert len(grid_parts) == 2 and grid_parts[1] > 1  # the rest starts with the header
    # Not even one row under the header fits: no split, as with a Table.
    assert grid.split(500, 15.0) == []


def test_a_long_table_repeats_its_header_and_prints_every_row_once() -> None:
    rows = _rows(120)
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=(300, 300), invariant=1)
    doc.build([_table(["No", "Name", "Cash"], rows, WIDTHS, numeric_from=2, mine=[7])])
    pages = [page.extract_text() for page in PdfReader(buffer).pages]
    assert len(pages) >= 4
    assert all(text.split()[:3] == ["No", "Name", "Cash"] for text in pages)
    numbers = [int(line) for text in pages for line in text.splitlines() if line.isdigit()]
    assert numbers == list(range(1, 121))
