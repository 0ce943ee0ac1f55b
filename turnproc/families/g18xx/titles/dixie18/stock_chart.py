"""Moves of a major's price marker on 18Dixie's stock chart (3.1a, 3.7, 4.5),
on the family's market grid with this title's cells."""

from dataclasses import dataclass

from turnproc.families.g18xx.engine.market import Market, parse_market
from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused

_MARKER = "marker"


@dataclass(frozen=True)
class Position:
    row: int
    column: int
    price: int
    ends_game: bool  # the $300 cell (4.5, 6b)


def _market(title: DixieTitle, row: int, column: int) -> Market:
    market = Market(parse_market(title.market))
    try:
        market.place(_MARKER, row, column)
    except ValueError as exc:
        raise Refused("NO_SUCH_CELL", "1.5", str(exc)) from exc
    return market


def _position(market: Market) -> Position:
    row, column = market.where[_MARKER]
    cell = market.cell(_MARKER)
    return Position(row, column, cell.price, cell.end)


def after_sale(title: DixieTitle, row: int, column: int, shares: int) -> Position:
    """3.1a: down one row for each share sold, stopping at the bottom."""
    market = _market(title, row, column)
    for _ in range(shares):
        market.move_down(_MARKER)
    return _position(market)


def after_operating(title: DixieTitle, row: int, column: int, paid_out: bool) -> Position:
    """4.5: a payout moves right (up at the end of a row); withholding or no
    run moves left (down from the leftmost column; the lower-left corner
    stays)."""
    market = _market(title, row, column)
    if paid_out:
        market.move_right(_MARKER)
    else:
        market.move_left(_MARKER)
    return _position(market)


def after_stock_round(title: DixieTitle, row: int, column: int) -> Position:
    """3.7: a major wholly owned by players moves up a row; at the top it
    stays."""
    market = _market(title, row, column)
    market.move_up(_MARKER)
    return _position(market)


def par_cell(title: DixieTitle, par: int) -> Position:
    """3.2c1: the par value's red-outlined cell on the chart."""
    for r, row in enumerate(parse_market(title.market)):
        for c, cell in enumerate(row):
            if cell.par and cell.price == par:
                return Position(r, c, cell.price, cell.end)
    raise Refused("NOT_A_PAR", "3.2c1", f"par is one of {', '.join(map(str, title.par_prices))}")
