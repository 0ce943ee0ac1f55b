"""Hex geometry and track: neighbours by printed coordinate, tiles placed with a
rotation, the connectivity a company's tokens reach, and the stops of a route
given as chains of hexes."""

import functools
import itertools
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from turnproc.families.g18xx.engine.title import Endpoint, Node

# Pointy-topped hexes lettered by row, numbered by doubled column: edge 0 is
# south-west and the edges go clockwise (west, north-west, north-east, east,
# south-east).
_POINTY = ((1, -1), (0, -2), (-1, -1), (-1, 1), (0, 2), (1, 1))
# Flat-topped hexes lettered by column, numbered by doubled row: edge 0 is
# south and the edges go clockwise.
_FLAT = ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1))


@functools.lru_cache(maxsize=4096)
def split_coordinate(name: str) -> tuple[int, int]:
    letters = name.rstrip("0123456789")
    if not letters or letters == name or len(letters) > 2:
        raise ValueError(f"not a hex coordinate: {name!r}")
    row = 0
    for ch in letters:
        row = row * 26 + (ord(ch.upper()) - 64)
    return row, int(name[len(letters) :])


def join_coordinate(letter: int, number: int) -> str:
    text = ""
    while letter > 0:
        letter, rem = divmod(letter - 1, 26)
        text = chr(65 + rem) + text
    return f"{text}{number}"


@functools.lru_cache(maxsize=65536)
def neighbour(name: str, edge: int, layout: str) -> str:
    letter, number = split_coordinate(name)
    if layout == "pointy":
        dl, dn = _POINTY[edge]
    else:
        dn, dl = _FLAT[edge][1], _FLAT[edge][0]
    return join_coordinate(letter + dl, number + dn)


def edge_towards(name: str, other: str, layout: str) -> int | None:
    for edge in range(6):
        if neighbour(name, edge, layout) == other:
            return edge
    return None


def rotate(
    track: Iterable[tuple[Endpoint, Endpoint]], rotation: int
) -> tuple[tuple[Endpoint, Endpoint], ...]:
    def turn(end: Endpoint) -> Endpoint:
        return (end + rotation) % 6 if isinstance(end, int) else end

    return tuple((turn(a), turn(b)) for a, b in track)


@dataclass
class HexState:
    """What lies on one hex now: its tile (or the printed hex), track, nodes and tokens."""

    name: str
    tile: str | None  # tile name, None for the printed hex
    tile_id: str  # "<tile>-<copy>", or "<hex>-0" for the printed hex
    colour: str
    rotation: int
    nodes: tuple[Node, ...]
    track: tuple[tuple[Endpoint, Endpoint], ...]
    tokens: list[list[str]] = field(default_factory=list)
    cost: int = 0

    def __deepcopy__(self, memo: dict[int, object]) -> "HexState":
        """A copy that shares the immutable nodes and track and copies the tokens."""
        return HexState(
            self.name,
            self.tile,
            self.tile_id,
            self.colour,
            self.rotation,
            self.nodes,
            self.track,
            [list(held) for held in self.tokens],
            self.cost,
        )

    def edges(self) -> set[int]:
        return {end for pair in self.track for end in pair if isinstance(end, int)}

    def node_edges(self, index: int) -> set[int]:
        """Edges reached from node `index` through the track of this hex."""
        name = f"n{index}"
        found: set[int] = set()
        seen = {name}
        todo = [name]
        while todo:
            here = todo.pop()
            for a, b in self.track:
                for x, y in ((a, b), (b, a)):
                    if x != here:
                        continue
                    if isinstance(y, int):
                        found.add(y)
                    elif y not in seen and not isinstance(y, int):
                        # through a town or another node only when they are joined directly
                        seen.add(y)
                        todo.append(y)
        return found

    def node_at_edge(self, edge: int) -> int | None:
        for a, b in self.track:
            for x, y in ((a, b), (b, a)):
                if x == edge and isinstance(y, str):
                    return int(y[1:])
        return None

    def blocked_for(self, index: int, company: str) -> bool:
        node = self.nodes[index]
        if node.kind != "city":
            return False
        held = self.tokens[index] if index < len(self.tokens) else []
        # a printed neutral station fills a circle but lets every train through
        return len(held) >= node.slots and company not in held and "neutral" not in held


def reachable_hexes(
    hexes: dict[str, HexState], layout: str, company: str, homes: Iterable[tuple[str, int]]
) -> set[str]:
    """Hexes whose track a company reaches from its tokens (4.2.1j): the search
    does not pass through a city full of other companies' tokens nor through an
    off-board area."""
    return _reach(hexes, layout, company, list(homes))[0]


def reachable_cities(
    hexes: dict[str, HexState], layout: str, company: str, homes: Iterable[tuple[str, int]]
) -> set[tuple[str, int]]:
    """The cities, towns and off-board areas (hex, node index) a company's track
    reaches from its tokens (4.2.2a), traced as for 4.2.1j."""
    seen = _reach(hexes, layout, company, list(homes))[1]
    return {(h, int(n[1:])) for h, n in seen if isinstance(n, str)}


def reach_and_exits(
    hexes: dict[str, HexState], layout: str, company: str, homes: Iterable[tuple[str, int]]
) -> tuple[set[str], set[tuple[str, int]]]:
    """The hexes a company's track reaches (as `reachable_hexes`) and every
    edge its search leaves a hex by, whether or not track meets it there: a
    tile on another hex connects when its track meets one of these (4.2.1j)."""
    reached, _, exits = _reach(hexes, layout, company, list(homes))
    return reached, exits


def _reach(
    hexes: dict[str, HexState], layout: str, company: str, homes: list[tuple[str, int]]
) -> tuple[set[str], set[tuple[str, Endpoint]], set[tuple[str, int]]]:
    exits: set[tuple[str, int]] = set()
    reached: set[str] = set()
    seen: set[tuple[str, Endpoint]] = set()
    todo: deque[tuple[str, Endpoint]] = deque()
    starts = {(h, f"n{i}") for h, i in homes}
    for hex_name, index in homes:
        todo.append((hex_name, f"n{index}"))
        seen.add((hex_name, f"n{index}"))
        reached.add(hex_name)
    while todo:
        hex_name, here = todo.popleft()
        state = hexes[hex_name]
        if isinstance(here, str):
            index = int(here[1:])
            start = (hex_name, here) in starts
            if not start and (
                state.nodes[index].kind == "offboard"
                or state.nodes[index].terminal
                or state.blocked_for(index, company)
            ):
                continue
        for a, b in state.track:
            for x, y in ((a, b), (b, a)):
                if x != here:
                    continue
                reached.add(hex_name)
                if isinstance(y, int):
                    exits.add((hex_name, y))
                    other = neighbour(hex_name, y, layout)
                    back = (y + 3) % 6
                    if other in hexes and back in hexes[other].edges():
                        key = (other, back)
                        if key not in seen:
                            seen.add(key)
                            reached.add(other)
                            todo.append(key)
                elif (hex_name, y) not in seen:
                    seen.add((hex_name, y))
                    todo.append((hex_name, y))
    return reached, seen, exits


def chain_stops(
    hexes: dict[str, HexState], layout: str, chain: tuple[str, ...]
) -> list[tuple[str, int]]:
    """The two stops a chain of hexes joins: a chain runs from a node in its
    first hex to a node in its last, or between two nodes of one hex."""
    if len(chain) == 1:
        state = hexes[chain[0]]
        joined = [
            (int(a[1:]), int(b[1:]))
            for a, b in state.track
            if isinstance(a, str) and isinstance(b, str)
        ]
        if not joined:
            raise ValueError(f"no track between two stops in {chain[0]}")
        a, b = joined[0]
        return [(chain[0], a), (chain[0], b)]
    ends: list[tuple[str, int]] = []
    for here, towards in ((chain[0], chain[1]), (chain[-1], chain[-2])):
        if here not in hexes or towards not in hexes:
            raise ValueError(f"route leaves the map at {here}")
        edge = edge_towards(here, towards, layout)
        if edge is None:
            raise ValueError(f"{here} and {towards} are not neighbours")
        node = hexes[here].node_at_edge(edge)
        if node is None:
            raise ValueError(f"no stop in {here} on the track towards {towards}")
        ends.append((here, node))
    for here, there in itertools.pairwise(chain):
        step = edge_towards(here, there, layout)
        if step is None:
            raise ValueError(f"{here} and {there} are not neighbours")
        if step not in hexes[here].edges() or (step + 3) % 6 not in hexes[there].edges():
            raise ValueError(f"no track between {here} and {there}")
    return ends
