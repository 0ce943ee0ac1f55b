"""A player's own page of an 18xx game (`/play/TOKEN` of an 18xx seat): the
position as his report shows it, the moves since his last, and — when it is
his move — a form offering the moves the engine takes now.

The moves offered are those his "your move" mail lists (moves.py), in the
same sections and the same words, each alternative a line names ("or
rotation 1, 3", "or par 67, 71") offered as an order of its own. Tile lays
have a picker of their own: pick a hex, then see the tiles that fit there,
each drawn in each rotation the rules allow, with the terrain cost. Orders
whose amount is open (a bid above the least, a train bought from another
company at an agreed price, an offer for a private) and any other order are
written in the form's text box, as in a mail. Whatever the player picks or
writes, Submit builds the sheet his mail would carry and hands it to the
mail intake (orders.submit_sheet_by_web): the move is applied, refused or
answered exactly as the same sheet by mail.
"""

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from markupsafe import Markup
from sqlalchemy.orm import Session

from turnproc.core.money import money
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.engine.title import Tile
from turnproc.families.g18xx.moves import legal_moves, tile_lays
from turnproc.families.g18xx.report.model import (
    Report,
    build_report,
    since_last_move,
    tile_number,
)
from turnproc.sequential import sheet
from turnproc.store import g18xx as store
from turnproc.store.models import Game, Player
from turnproc.web.g18xx import key_of, lay_map_svg, row_of_game
from turnproc.web.pages import _Cache

_CHOICES = _Cache(256)  # (game key, position) -> the moves offered
_LAY_MAPS = _Cache(64, max_bytes=32 * 1024 * 1024)  # (game key, position) -> his map


@dataclass(frozen=True)
class Rotation:
    """One way to lay a tile: its order, and the tile drawn so turned."""

    rotation: int
    order: str
    picture: Markup


@dataclass(frozen=True)
class TileChoice:
    tile: str
    rotations: tuple[Rotation, ...]


@dataclass(frozen=True)
class HexChoice:
    """A hex the company may lay or upgrade now, with what fits there."""

    hex: str
    name: str | None  # the city's or town's name printed on the map
    upgrade: str | None  # the tile it upgrades, or None on an empty hex
    cost: int
    tiles: tuple[TileChoice, ...]

    @property
    def label(self) -> str:
        place = f"{self.hex} {self.name}" if self.name else self.hex
        what = f"upgrade of tile {self.upgrade}" if self.upgrade else "lay"
        cost = f", terrain {money(self.cost)}" if self.cost else ""
        count = len(self.tiles)
        return f"{place} ({what}{cost}; {count} tile{'s' if count > 1 else ''})"


@dataclass(frozen=True)
class Section:
    """A section of the legal moves: its heading, and the orders offered as
    (order, its line in the mail, less the alternatives offered on their own)."""

    heading: str
    options: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Choices:
    """The moves the form offers: the sections of the mail's list (its tile
    lays taken out), and the tile lays hex by hex."""

    sections: tuple[Section, ...] = ()
    track: tuple[HexChoice, ...] = ()
    tiles_left: str = ""

    def orders(self) -> list[str]:
        out = [order for section in self.sections for order, _ in section.options]
        for hex_choice in self.track:
            out += [r.order for t in hex_choice.tiles for r in t.rotations]
        return out


@dataclass(frozen=True)
class Seat18xx:
    """What a player's page of an 18xx game shows."""

    row_id: int
    title: str
    report: Report
    my_move: bool
    choices: Choices
    sheet_head: str  # the sheet's first line, as his mail carries it
    lay_map: Markup | None = None  # his map, a click on a lay hex picks it


def seat(session: Session, game: Game, player: Player) -> Seat18xx | None:
    """The page of `player`'s seat, or None if `game` is no 18xx game."""
    row = row_of_game(session, game)
    if row is None:
        return None
    loaded = store.load(session, row.name)
    actions = [parse_action(json.loads(m.action)) for m in store.live_moves(session, row)]
    engine = loaded.game
    report = build_report(
        engine, player.position, actions, since_last_move(engine, player.position, actions)
    )
    mine = engine.to_move() == player.position and row.status == "active"
    choices = Choices()
    lay_map = None
    if mine:
        key = (key_of(session, row), player.position)
        choices = _CHOICES.get(key, lambda: form_choices(engine, player.position))
        if choices.track:
            lay_map = _LAY_MAPS.get(key, lambda: lay_map_svg(report))
    head = sheet(game, player.position).splitlines()[0]
    return Seat18xx(row.id, row.title, report, mine, choices, head, lay_map)


def form_choices(game: Engine18xx, player: int) -> Choices:
    """The moves the form offers `player`, from the list his mail carries."""
    sections: list[Section] = []
    tiles_left = ""
    for heading, options in legal_moves(game, player).choices():
        if heading.startswith("Track (tiles left: "):
            tiles_left = heading.removeprefix("Track (tiles left: ").removesuffix("):")
            options = [(order, line) for order, line in options if not order.startswith("LAY ")]
            if not options:
                continue
        sections.append(Section(heading, tuple(options)))
    by_hex: dict[str, list[TileChoice]] = {}
    costs: dict[str, int] = {}
    for lay in tile_lays(game, player):
        tile = game.title.tiles[lay.tile]
        rotations = tuple(
            Rotation(
                r, f"LAY {lay.tile} {lay.hex} {r}", tile_svg(lay.tile, tile, r, game.title.layout)
            )
            for r in lay.rotations
        )
        by_hex.setdefault(lay.hex, []).append(TileChoice(lay.tile, rotations))
        costs[lay.hex] = lay.cost
    printed = {h.hex: h.name for h in game.title.hexes}
    track = tuple(
        HexChoice(h, printed.get(h), tile_number(game.hexes[h].tile), costs[h], tuple(t))
        for h, t in by_hex.items()
    )
    return Choices(tuple(sections), track, tiles_left)


def legal_orders(game: Engine18xx, player: int) -> Iterator[str]:
    """Every order the form offers `player` now."""
    yield from form_choices(game, player).orders()


_FILL = {"yellow": "#f5d940", "green": "#5fb350", "brown": "#b07a46", "gray": "#b5b5b5"}


def tile_svg(name: str, tile: Tile, rotation: int, layout: str, size: int = 80) -> Markup:
    """The tile turned by `rotation`, as a small SVG: its colour, its track
    from edge to edge or to its stops, its towns and cities, its number. The
    edges are numbered as the map's (0 south-west on pointy maps, south on
    flat ones, clockwise)."""
    r = size / 2 - 1
    c = size / 2
    start = 30 if layout == "pointy" else 0
    corners = " ".join(
        f"{c + r * math.cos(math.radians(start + 60 * k)):.1f},"
        f"{c + r * math.sin(math.radians(start + 60 * k)):.1f}"
        for k in range(6)
    )
    base = 240 if layout == "pointy" else 270

    def edge(e: int) -> tuple[float, float]:
        angle = math.radians(base - 60 * ((e + rotation) % 6))
        d = r * math.sqrt(3) / 2
        return c + d * math.cos(angle), c - d * math.sin(angle)  # SVG's y runs down

    stops = _stop_points(tile, rotation, edge, c)
    paths = []
    for a, b in tile.track:
        ends = [edge(e) if isinstance(e, int) else stops[int(e[1:])] for e in (a, b)]
        (x1, y1), (x2, y2) = ends
        if isinstance(a, int) and isinstance(b, int):
            k = 0.55
            paths.append(
                f'<path d="M{x1:.1f},{y1:.1f} C{x1 + (c - x1) * k:.1f},{y1 + (c - y1) * k:.1f}'
                f' {x2 + (c - x2) * k:.1f},{y2 + (c - y2) * k:.1f} {x2:.1f},{y2:.1f}"/>'
            )
        else:
            paths.append(f'<path d="M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}"/>')
    marks = []
    for (x, y), node in zip(stops, tile.nodes, strict=True):
        if node.kind == "city":
            marks.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.22:.1f}" fill="#fff" '
                'stroke="#1a1a1a" stroke-width="1.5"/>'
            )
        else:
            marks.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.12:.1f}" fill="#1a1a1a"/>')
    label = tile.label or ""
    return Markup(
        f'<svg class="tile" viewBox="0 0 {size} {size}" width="{size}" height="{size}" '
        f'role="img" aria-label="tile {_esc(name)} rotation {rotation}">'
        f'<polygon points="{corners}" fill="{_FILL.get(tile.colour, "#f3ecd8")}" '
        'stroke="#6b6b6b" stroke-width="1"/>'
        f'<g fill="none" stroke="#1a1a1a" stroke-width="{r * 0.16:.1f}">{"".join(paths)}</g>'
        f"{''.join(marks)}"
        f'<text x="{c + r * 0.42:.1f}" y="{c + r * 0.58:.1f}" font-size="{r * 0.36:.1f}" '
        f'text-anchor="middle" font-family="sans-serif" font-weight="bold">{_esc(name)}</text>'
        + (
            f'<text x="{c - r * 0.55:.1f}" y="{c - r * 0.5:.1f}" font-size="{r * 0.3:.1f}" '
            f'text-anchor="middle" font-family="sans-serif">{_esc(label)}</text>'
            if label
            else ""
        )
        + "</svg>"
    )


def _esc(text: str) -> str:
    return str(Markup.escape(text))


def _stop_points(
    tile: Tile, rotation: int, edge: Callable[[int], tuple[float, float]], c: float
) -> list[tuple[float, float]]:
    """One stop sits in the centre; several sit towards the edges their
    track leaves by (as on the report's map)."""
    count = len(tile.nodes)
    if count <= 1:
        return [(c, c)] * count
    out = []
    for index in range(count):
        name = f"n{index}"
        edges = [b if a == name else a for a, b in tile.track if name in (a, b)]
        points = [edge(e) for e in edges if isinstance(e, int)]
        if points:
            x = sum(p[0] for p in points) / len(points)
            y = sum(p[1] for p in points) / len(points)
            out.append((c + (x - c) * 0.5, c + (y - c) * 0.5))
        else:
            angle = math.radians(90 + 360 * index / count)
            out.append((c + c * 0.4 * math.cos(angle), c + c * 0.4 * math.sin(angle)))
    return out


def orders_sheet(game: Game, player: Player, orders: str) -> str:
    """The sheet a mail of these orders carries (the secret in its own field)."""
    return sheet(game, player.position, orders.strip())
