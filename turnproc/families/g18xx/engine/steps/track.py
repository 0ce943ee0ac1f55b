"""4.2.1: lay or upgrade track."""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine import track as tracks
from turnproc.families.g18xx.engine.state import (
    BANK,
    TILE_ABILITIES,
    ActionRefused,
    Holder,
    PrivateState,
)
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.steps.privates import may_buy_private
from turnproc.families.g18xx.engine.title import Node
from turnproc.families.g18xx.engine.track import HexState, neighbour, rotate

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def _exits(track: Iterable[tuple[object, object]], node: str) -> set[int]:
    """The edges the track of a hex joins to this node."""
    return {x for a, b in track for x, y in ((a, b), (b, a)) if y == node and isinstance(x, int)}


def _tokens_following_track(
    old: HexState, nodes: tuple[Node, ...], track: tuple[tuple[object, object], ...]
) -> list[list[str]]:
    """4.2.1: an upgrade keeps each station in the city its track leads to on
    the new tile (a city with no track yet keeps its place in the order)."""
    tokens: list[list[str]] = [[] for _ in nodes]
    taken: set[int] = set()
    for index, held in enumerate(old.tokens):
        exits = _exits(old.track, f"n{index}")
        target = next(
            (
                j
                for j in range(len(nodes))
                if exits and j not in taken and exits <= _exits(track, f"n{j}")
            ),
            None,
        )
        if target is None:
            target = index if index < len(nodes) and index not in taken else None
        if target is None:
            target = next(j for j in range(len(nodes)) if j not in taken)
        taken.add(target)
        tokens[target].extend(held)
    return tokens


def tile(game: "Game", tile_id: str) -> str:
    """The tile's name, refusing a copy that does not exist or is on the map."""
    name, _, copy = tile_id.rpartition("-")
    tile = game.title.tiles.get(name)
    if tile is None or not copy.isdigit() or int(copy) >= tile.count:
        raise ActionRefused(f"no tile {tile_id}")
    if tile_id in game.tiles_on_map:
        raise ActionRefused(f"tile {tile_id} is already on the map at {game.tiles_on_map[tile_id]}")
    return name


def lay_tile(game: "Game", action: act.LayTile) -> None:
    """4.2.1: lay or upgrade a tile; the first tile on a hex pays its terrain cost."""
    company = game.current_company(action)
    assert game.turn is not None
    private = None
    if action.entity_type == "company":
        private = game.privates[str(action.entity)]
        ability = private.data.ability
        if (
            ability is None
            or ability.kind not in ("extra_yellow_tiles", "free_tile_lay")
            or private.uses >= ability.count
        ):
            raise ActionRefused(f"{action.entity} has no tile lay left")
        if ability.hexes and action.hex not in ability.hexes:
            raise ActionRefused(f"{action.entity} lays only in {', '.join(ability.hexes)}")
        if ability.tiles and action.tile.rpartition("-")[0] not in ability.tiles:
            raise ActionRefused(f"{action.entity} lays only tiles {', '.join(ability.tiles)}")
    name = tile(game, action.tile)
    existing = game.hexes.get(action.hex)
    upgrade = existing is not None and existing.tile is not None
    if private is None:
        limit = game.rules.tile_lay_refusal(game, game.turn, upgrade)
        if limit is not None:
            raise ActionRefused(limit)
    reason, new_state = tile_refusal(game, company, action.hex, name, action.rotation, private)
    if reason is not None:
        rotations = legal_rotations(game, company, action.hex, name, private)
        if rotations and rotations != [action.rotation]:
            reason += f"; legal rotations of {name} on {action.hex}: {rotations}"
        raise ActionRefused(reason)
    assert new_state is not None
    hex_state = game.hexes[action.hex]
    free = private is not None and game.rules.ability_lay_is_free(private)
    cost = 0 if free else hex_state.cost
    if game.cash[company] < cost:
        raise ActionRefused(f"{company} cannot pay ${cost}")
    if private is not None:
        private.uses += 1
    else:
        game.turn.lays.append(upgrade)
    game.pay(company, BANK, cost)
    new_state.tile_id = action.tile
    if not hex_state.track and game.rules.lift_untracked_homes():
        lift_homes(game, new_state, company)
    if hex_state.tile is not None:
        del game.tiles_on_map[hex_state.tile_id]
    game.tiles_on_map[action.tile] = action.hex
    game.hexes[action.hex] = new_state
    game.map_version += 1
    game.rules.after_tile_laid(game, company, action.hex)


def lift_homes(game: "Game", new_state: HexState, chooser: str) -> None:
    """The first track in a hex of several cities: a home station placed
    there before any track is lifted, and the company that laid the tile
    chooses its city on the new tile at once (the site's edition)."""
    if sum(1 for n in new_state.nodes if n.kind == "city") < 2:
        return
    for held in new_state.tokens:
        for company in [c for c in held if c in game.companies]:
            held.remove(company)
            state = game.companies[company]
            state.home_placed = False
            state.tokens_used -= 1
            game.pending_homes.append((company, chooser))


def legal_rotations(
    game: "Game", company: str, hex_name: str, name: str, private: PrivateState | None = None
) -> list[int]:
    """4.2.1: the rotations in which the tile may go on the hex."""
    return [
        r for r in range(6) if tile_refusal(game, company, hex_name, name, r, private)[0] is None
    ]


def tile_refusal(
    game: "Game",
    company: str,
    hex_name: str,
    name: str,
    rotation: int,
    private: PrivateState | None = None,
) -> tuple[str | None, HexState | None]:
    """Why this tile may not go on this hex with this rotation (4.2.1), or
    None and the hex as it would be."""
    tile = game.title.tiles[name]
    hex_state = game.hexes.get(hex_name)
    if hex_state is None or hex_state.colour in ("red", "gray"):
        return f"no tile may be laid on {hex_name} (4.2.1c)", None
    if tile.colour not in game.title.phases[game.phase_index].tiles:
        return f"{tile.colour} tiles are not available in phase {game.phase}", None
    order = ["white", "yellow", "green", "brown", "gray"]
    if order.index(tile.colour) != order.index(hex_state.colour) + 1:
        return f"a {tile.colour} tile cannot replace a {hex_state.colour} one (4.2.1c)", None
    if private is not None and tile.colour != "yellow" and not game.rules.private_upgrades():
        return "the private lays yellow tiles only", None
    blocker = blocking_private(game, hex_name)
    if blocker is not None:
        return (
            f"{hex_name} is the home of {blocker.data.id} ({blocker.data.name}): no tile until"
            f" a company buys it from player {blocker.owner} or it closes (4.2.1k)",
            None,
        )
    only = game.title.only_upgrades.get(hex_name, {}).get(hex_state.colour)
    if only is not None and name not in only:
        return f"{hex_name} takes only tile {', '.join(only)}", None
    if tile.label and not any(
        name in names for names in game.title.only_upgrades.get(hex_name, {}).values()
    ):
        return f"tile {name} belongs to another city", None
    if sorted(n.kind for n in hex_state.nodes) != sorted(n.kind for n in tile.nodes):
        return f"tile {name} does not match the cities and towns on {hex_name} (4.2.1d)", None
    track = rotate(tile.track, rotation)
    tokens = _tokens_following_track(hex_state, tile.nodes, track)
    new_state = HexState(
        hex_name, name, f"{name}-?", tile.colour, rotation, tile.nodes, track, tokens, 0
    )
    if not hex_state.edges() <= new_state.edges():
        return f"tile {name} rotation {rotation} drops track on {hex_name} (4.2.1h)", None
    for edge in new_state.edges() - hex_state.edges():
        other = neighbour(hex_name, edge, game.title.layout)
        there = game.hexes.get(other)
        if there is None or (
            there.colour in ("red", "gray") and (edge + 3) % 6 not in there.edges()
        ):
            return (
                f"tile {name} rotation {rotation} runs off the map or into a blank side (4.2.1i)",
                None,
            )
    needs_link = not (
        private is not None
        and private.data.ability
        and private.data.ability.kind == "free_tile_lay"
    )
    home = game.companies[company].home
    if needs_link and hex_name != home and not _connects(game, company, hex_name, new_state):
        return (
            f"tile {name} rotation {rotation} on {hex_name} does not connect to a"
            f" {company} station (4.2.1j)",
            None,
        )
    return None, new_state


def _connects(game: "Game", company: str, hex_name: str, new_state: HexState) -> bool:
    """4.2.1j: whether the tile's hex is on the company's track once laid.
    Since a tile keeps the track it replaces, that is so when the company's
    track reaches the hex now, or leaves a neighbour by an edge the new
    tile's track meets: the first way into the hex never passes through it."""
    layout = game.title.layout
    reached, exits = current_reach(game, company)
    if hex_name in reached:
        return True
    return any((neighbour(hex_name, e, layout), (e + 3) % 6) in exits for e in new_state.edges())


def current_reach(game: "Game", company: str) -> tuple[set[str], set[tuple[str, int]]]:
    """The company's reach and exits on the map as it is, kept until a tile
    or a station changes it (each bumps `map_version`)."""
    key = (game.map_version, company)
    if game.reach_cache is None or game.reach_cache[0] != key:
        stations = [
            (name, i)
            for name, state in game.hexes.items()
            for i, held in enumerate(state.tokens)
            if company in held
        ]
        found = tracks.reach_and_exits(game.hexes, game.title.layout, company, stations)
        game.reach_cache = (key, *found)
    return game.reach_cache[1], game.reach_cache[2]


def blocking_private(game: "Game", hex_name: str) -> PrivateState | None:
    """The private owned by a player whose home this hex is (4.2.1k)."""
    for private in game.privates.values():
        if private.data.home == hex_name and isinstance(private.owner, int) and not private.closed:
            return private
    return None


def reachable(game: "Game", company: str) -> set[str]:
    """4.2.1j: the hexes the company's track reaches from its stations."""
    homes = [
        (name, i)
        for name, h in game.hexes.items()
        for i, held in enumerate(h.tokens)
        if company in held
    ]
    return tracks.reachable_hexes(game.hexes, game.title.layout, company, homes)


def reachable_cities(game: "Game", company: str) -> set[tuple[str, int]]:
    """The stops (hex, node index) the company's track reaches (4.2.2a)."""
    stations = [
        (name, i)
        for name, h in game.hexes.items()
        for i, held in enumerate(h.tokens)
        if company in held
    ]
    return tracks.reachable_cities(game.hexes, game.title.layout, company, stations)


def operating(game: "Game") -> frozenset[Holder]:
    """The company whose turn it is."""
    return frozenset((game.turn.company,)) if game.turn is not None else frozenset()


class LayTrack(Step):
    """4.2.1: the operating company (or a private it owns) lays a tile."""

    name = "lay track"
    actions = frozenset(("lay_tile",))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return operating(game)

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.LayTile)
        lay_tile(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open while a lay is left, or a private the company owns or could
        buy may still lay a tile."""
        turn = game.turn
        assert turn is not None
        company = turn.company
        return (
            any(game.rules.tile_lay_refusal(game, turn, u) is None for u in (False, True))
            or any(
                p.owner == company and not p.closed and p.uses < p.data.ability.count
                for p in game.privates.values()
                if p.data.ability is not None and p.data.ability.kind in TILE_ABILITIES
            )
            or (
                game.rules.privates_for_sale_in_phase(game)
                and may_buy_private(game, company, TILE_ABILITIES)
            )
        )
