"""The web page of an 18xx game (sequential play; everything in it is public):
whose move it is, the map, the stock market, the charters, the players, the
private companies and the log of every move. The game is the replay of its
stored moves (turnproc/store/g18xx.py); the page is the family's own report
of the position for a reader who is no player (`build_report`), and the map
and market are drawn by the PDF report's own layout (`MapFlowable`,
`MarketFlowable` in families/g18xx/report/pdf.py) on an SVG canvas. A page is
kept until a move is made or undone (its key holds the game's live moves)."""

import json
from collections.abc import Hashable
from dataclasses import dataclass

from markupsafe import Markup, escape
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from turnproc.families.continental_rails.report.svgcanvas import SvgCanvas, SvgPath, _num
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.report.model import Report, bank_words, build_report
from turnproc.families.g18xx.report.pdf import PAGE, MapFlowable, MarketFlowable
from turnproc.store import g18xx as store
from turnproc.store.models import Game, Game18xx, Move18xx
from turnproc.web.pages import _Cache

MAP_WIDTH, MAP_HEIGHT = PAGE[0] - 56, PAGE[1] - 56  # the PDF's map page, margins off
MARKET_WIDTH = 1000.0

_PAGES = _Cache(64)  # key (below) -> Page18xx
_MAPS = _Cache(256, max_bytes=64 * 1024 * 1024)


class _Path(SvgPath):
    """A path with ReportLab's Bézier curve (the map's track between edges)."""

    def curveTo(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:
        flip = self.canvas.flip
        self.parts.append(
            f"C{_num(x1)} {_num(flip(y1))} {_num(x2)} {_num(flip(y2))} {_num(x3)} {_num(flip(y3))}"
        )


class Canvas18xx(SvgCanvas):
    """The SVG canvas with the two calls the 18xx map and market make beyond
    the Continental Rails map's: curves and rounded rectangles."""

    def beginPath(self) -> _Path:
        return _Path(self)

    def roundRect(
        self,
        x: float,
        y: float,
        width: float,
        height: float,
        radius: float,
        stroke: int = 1,
        fill: int = 0,
    ) -> None:
        self.out.append(
            f'<rect x="{_num(x)}" y="{_num(self.flip(y + height))}" width="{_num(width)}" '
            f'height="{_num(height)}" rx="{_num(radius)}" {self._paint(stroke, fill)}/>'
        )


@dataclass(frozen=True)
class Page18xx:
    """What the page shows, kept until the game's moves change."""

    row_id: int
    report: Report
    moves: int
    names: dict[str, str]  # player id -> name
    market: Markup
    key: Hashable


def _names(row: Game18xx) -> dict[str, str]:
    return {
        str(p["id"]): str(p.get("name") or f"player {p['id']}") for p in json.loads(row.players)
    }


def key_of(session: Session, row: Game18xx) -> Hashable:
    """The game's live moves: their count and newest id (a move made or undone changes it)."""
    count, newest = session.execute(
        select(func.count(), func.max(Move18xx.id)).where(
            Move18xx.game_id == row.id, Move18xx.undone_at.is_(None)
        )
    ).one()
    return (row.id, int(count), newest)


def row_of_game(session: Session, game: Game) -> Game18xx | None:
    """The 18xx row of a game made by `game new` (None: not an 18xx game)."""
    return session.scalar(select(Game18xx).where(Game18xx.game_id == game.id))


def load_page(session: Session, game_id: int) -> Page18xx | None:
    """The page of 18xx game `game_id`, or None if there is no such game."""
    row = session.get(Game18xx, game_id)
    if row is None:
        return None
    key = key_of(session, row)

    def build() -> Page18xx:
        loaded = store.load(session, row.name)
        actions = [parse_action(json.loads(m.action)) for m in store.live_moves(session, row)]
        report = build_report(loaded.game, None, actions, 0)
        market = MarketFlowable(report, MARKET_WIDTH)
        canvas = Canvas18xx(market.width, market.height, ids="market")
        market.canv = canvas  # drawn by the PDF layout's own calls, on SVG
        market.draw()
        return Page18xx(row.id, report, loaded.moves, _names(row), Markup(canvas.svg("")), key)

    return _PAGES.get(key, build)


def map_svg(page: Page18xx, title: str) -> str:
    """The map of the position, drawn as the PDF's map page is."""

    def draw() -> str:
        flowable = MapFlowable(page.report, MAP_WIDTH, MAP_HEIGHT)
        canvas = Canvas18xx(MAP_WIDTH, MAP_HEIGHT, ids="map")
        flowable.canv = canvas
        flowable.draw()
        return canvas.svg(title)

    return _MAPS.get(page.key, draw)


LAY_MAP_WIDTH, LAY_MAP_HEIGHT = 640.0, 900.0  # the frame a player's map is fitted in


def lay_map_svg(report: Report) -> Markup:
    """The map as the reader's report draws it, his tile lays outlined, each
    of those hexes covered by a polygon that picks it in his move form
    (`data-hex`; site.js), for an SVG inline in his page."""
    flowable = MapFlowable(report, LAY_MAP_WIDTH, LAY_MAP_HEIGHT, legend_below=True, trim=True)
    canvas = Canvas18xx(flowable.width, flowable.height, ids="laymap")
    flowable.canv = canvas
    flowable.draw()
    picks = []
    for lay in report.lays:
        x, y = flowable._at(lay.hex)
        points = " ".join(
            f"{_num(px)},{_num(canvas.flip(py))}" for px, py in flowable.geo.corners(x, y)
        )
        place = f"{lay.hex} {lay.name}" if lay.name else lay.hex
        picks.append(
            f'<polygon class="pick" data-hex="{escape(lay.hex)}" points="{points}">'
            f"<title>{escape(place)}: tiles {escape(', '.join(lay.tiles))}</title></polygon>"
        )
    svg = canvas.svg("your map: the hexes you may lay or upgrade are outlined")
    svg = svg.replace("<svg ", '<svg class="lay-map" ', 1)
    return Markup(svg.removesuffix("</svg>") + "".join(picks) + "</svg>")


def bank(report: Report) -> str:
    return bank_words(report.bank)
