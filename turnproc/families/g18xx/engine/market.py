"""The stock market grid: cells by (row, column), price moves (3.2a, 3.6, 4.2.4)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    price: int
    yellow: bool
    par: bool
    end: bool = False


def parse_market(rows: tuple[tuple[str, ...], ...]) -> list[list[Cell]]:
    grid = []
    for row in rows:
        cells = []
        for text in row:
            parts = text.split()
            flags = parts[1:]
            cells.append(Cell(int(parts[0]), "yellow" in flags, "par" in flags, "end" in flags))
        grid.append(cells)
    return grid


class Market:
    """Where each company's marker stands; a marker entering an occupied cell
    goes under those already there."""

    def __init__(self, grid: list[list[Cell]]) -> None:
        self.grid = grid
        self.stacks: dict[tuple[int, int], list[str]] = {}
        self.where: dict[str, tuple[int, int]] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> "Market":
        """A copy that shares the grid, which never changes."""
        copy = Market(self.grid)
        copy.stacks = {cell: list(names) for cell, names in self.stacks.items()}
        copy.where = dict(self.where)
        return copy

    def cell(self, company: str) -> Cell:
        row, col = self.where[company]
        return self.grid[row][col]

    def price(self, company: str) -> int:
        return self.cell(company).price

    def _exists(self, row: int, col: int) -> bool:
        return 0 <= row < len(self.grid) and 0 <= col < len(self.grid[row])

    def place(self, company: str, row: int, col: int) -> None:
        if not self._exists(row, col):
            raise ValueError(f"no market cell at row {row}, column {col}")
        old = self.where.get(company)
        if old is not None:
            if old == (row, col):
                return
            self.stacks[old].remove(company)
        self.where[company] = (row, col)
        self.stacks.setdefault((row, col), []).append(company)

    def right_of(self, row: int, col: int) -> tuple[int, int]:
        """The cell a marker at (row, col) moves to on a payout (4.2.4): one to
        the right, or up at the end of its row, or nowhere at the top corner."""
        if self._exists(row, col + 1):
            return row, col + 1
        if self._exists(row - 1, col):
            return row - 1, col
        return row, col

    def move_right(self, company: str) -> None:
        self.place(company, *self.right_of(*self.where[company]))

    def move_left(self, company: str) -> None:
        row, col = self.where[company]
        if col > 0:
            self.place(company, row, col - 1)
        else:
            self.move_down(company)

    def move_up(self, company: str) -> None:
        row, col = self.where[company]
        if self._exists(row - 1, col):
            self.place(company, row - 1, col)

    def move_down(self, company: str) -> None:
        row, col = self.where[company]
        if self._exists(row + 1, col):
            self.place(company, row + 1, col)

    def order_key(self, company: str) -> tuple[int, int, int, int]:
        """Operating order (4b): higher price, then farther right, then higher
        row, then earlier arrival in the cell."""
        row, col = self.where[company]
        return (-self.grid[row][col].price, -col, row, self.stacks[(row, col)].index(company))
