"""A player's own page of an 18xx game (`/play/TOKEN` of an 18xx seat): the
position as his report shows it, the moves since his last, and — when it is
his move — a form offering the moves the engine takes now.

The offered moves are order lines in the order language of the mail
(docs/18xx.md), each tried on a copy of the game before it is offered, so
the list holds only moves the engine would take: the bids of the draft and
auction, the stock round's pars, buys and sales, and in an operating turn
the tile lays (each tile with a copy left on each hex the company reaches or
borders, in each rotation that fits), the station tokens, RUN BEST, PAYOUT
or WITHHOLD, the trains on sale and DONE. Other orders (a private's ability,
a route of one's own) are written in the form's text box, as in a mail.
Whatever the player picks or writes, Submit builds the sheet his mail would
carry and hands it to the mail intake (orders.submit_sheet_by_web): the move
is applied, refused or answered exactly as the same sheet by mail.
"""

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy.orm import Session

from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import ActionRefused
from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.engine.track import neighbour
from turnproc.families.g18xx.orders import parse_order
from turnproc.families.g18xx.report.model import Report, build_report, since_last_move
from turnproc.sequential import sheet
from turnproc.store import g18xx as store
from turnproc.store.models import Game, Player
from turnproc.web.g18xx import key_of, row_of_game
from turnproc.web.pages import _Cache

_CHOICES = _Cache(256)  # (game key, position) -> the moves offered


@dataclass(frozen=True)
class Seat18xx:
    """What a player's page of an 18xx game shows."""

    row_id: int
    title: str
    report: Report
    my_move: bool
    choices: tuple[str, ...]
    sheet_head: str  # the sheet's first line, as his mail carries it

    @property
    def groups(self) -> list[tuple[str, list[str]]]:
        """The moves offered by kind, tile lays by hex: pick a hex, see its
        tiles and rotations."""
        grouped: dict[str, list[str]] = {}
        for line in self.choices:
            grouped.setdefault(_group(line), []).append(line)
        return list(grouped.items())


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
    choices: tuple[str, ...] = ()
    if mine:
        key = (key_of(session, row), player.position)
        choices = _CHOICES.get(key, lambda: tuple(legal_orders(engine, player.position)))
    head = sheet(game, player.position).splitlines()[0]
    return Seat18xx(row.id, row.title, report, mine, choices, head)


_GROUPS = {
    "BID": "bids",
    "PAR": "start a company",
    "BUY": "buy",
    "SELL": "sell",
    "TOKEN": "stations",
    "DISCARD": "discard a train",
}


def _group(line: str) -> str:
    words = line.split()
    if words[0] == "LAY":
        return f"tiles on {words[2]}"
    if words[:2] == ["BUY", "TRAIN"]:
        return "trains"
    return _GROUPS.get(words[0], "the turn")


def orders_sheet(game: Game, player: Player, orders: str) -> str:
    """The sheet a mail of these orders carries (the secret in its own field)."""
    return sheet(game, player.position, orders.strip())


def legal_orders(game: Engine18xx, player: int) -> Iterator[str]:
    """The order lines of the step `player` is in that the engine takes now."""
    seen: set[str] = set()
    for line in _candidates(game, player):
        if line not in seen and _takes(game, player, line):
            seen.add(line)
            yield line


def _takes(game: Engine18xx, player: int, line: str) -> bool:
    trial = copy.deepcopy(game, {id(game.title): game.title, id(game.rules): game.rules})
    try:
        action, _ = parse_order(trial, player, line)
        trial.apply_unchecked(action)
    except (ValueError, KeyError, ActionRefused):
        return False
    return True


def _candidates(game: Engine18xx, player: int) -> Iterator[str]:
    if game.discards:
        for train in game.trains_of(game.discards[0]):
            yield f"DISCARD {train.id}"
        return
    if game.round in ("draft", "auction"):
        auction = game.auction if game.round == "auction" else None
        if auction is not None and auction.contest is not None:
            price = auction.price.get(auction.contest)
            if price is not None:
                yield f"BID {auction.contest} {price}"
        for private in game.privates.values():
            if private.owner is None and not private.closed:
                price = auction.price.get(private.data.id) if auction else None
                yield f"BID {private.data.id} {price or private.data.value}"
        yield "PASS"
        return
    if game.round == "stock":
        for company, state in game.companies.items():
            if state.par is None:
                for price in game.title.par_prices:
                    yield f"PAR {company} {price}"
                continue
            yield f"BUY {company} IPO"
            yield f"BUY {company} MARKET"
            for count in range(1, game.percent_of(player, company) // 10 + 1):
                yield f"SELL {count} {company}"
        yield "PASS"
        return
    operating = game.operating_company()
    if operating is None:
        return
    state = game.companies[operating]
    yield from _tile_lays(game, operating)
    homes = {state.home} if state.home else set()
    for hex_name in sorted(homes | game.reachable(operating)):
        hex_state = game.hexes.get(hex_name)
        if hex_state is None:
            continue
        for index, node in enumerate(hex_state.nodes):
            if node.kind == "city":
                yield f"TOKEN {hex_name} {index}"
    yield "RUN BEST"
    yield "PAYOUT"
    yield "WITHHOLD"
    on_sale = {t.type.name for t in game.trains if t.owner is None and not t.rusted and t.sellable}
    for kind in sorted(on_sale):
        yield f"BUY TRAIN {kind}"
    yield "DONE"
    yield "PASS"


def _tile_lays(game: Engine18xx, company: str) -> Iterator[str]:
    """Tiles of the phase's colours with a copy left, on the hexes the company
    reaches or borders, in the rotations the rules allow (4.2.1,
    `tile_refusal`); the caller tries each on a copy of the game, which also
    holds the turn's own limits (one lay, its cost). A company whose home
    station is placed only as its first turn begins is judged by the copy
    alone around its home, since `tile_refusal` does not see that station yet."""
    layout = game.title.layout
    colours = game.title.phases[game.phase_index].tiles
    free = [
        name
        for name, tile in game.title.tiles.items()
        if tile.colour in colours
        and any(f"{name}-{i}" not in game.tiles_on_map for i in range(tile.count))
    ]
    home = game.companies[company].home
    stations = {name for name, h in game.hexes.items() if any(company in t for t in h.tokens)}
    near = game.reachable(company) | stations | {home}
    for hex_name in list(near):
        near |= {neighbour(hex_name, edge, layout) for edge in range(6)}
    unplaced = not game.companies[company].home_placed
    around_home = {home} | {neighbour(home, edge, layout) for edge in range(6)}
    for hex_name in sorted(near):
        if hex_name not in game.hexes:
            continue
        for name in free:
            for rotation in range(6):
                if (unplaced and hex_name in around_home) or game.tile_refusal(
                    company, hex_name, name, rotation
                )[0] is None:
                    yield f"LAY {name} {hex_name} {rotation}"
