"""What a computer player expects of a move: the revenue a company's trains
would earn on a changed map or with other trains, how many more runs a train
will make before it rusts or the game ends, where a share price goes when the
company pays out, and what a share is worth to its buyer. The game is never
changed: each estimate runs on a shallow copy with its own map or trains.
"""

import copy
from dataclasses import replace

from turnproc.families.g18xx.engine.game import Game, Train
from turnproc.families.g18xx.engine.title import TrainType
from turnproc.families.g18xx.engine.track import HexState, split_coordinate

# A title without a last operating round (18GA) ends when the bank breaks or a
# share reaches the top of the market: about this many rounds, in our games.
EXPECTED_ROUNDS = 16
# Trains bought from the bank in a round, for each company that operates.
BUYING_RATE = 0.5


def distance(a: str, b: str, layout: str) -> int:
    """Hexes between two hexes of the map."""
    (ra, ca), (rb, cb) = split_coordinate(a), split_coordinate(b)
    if layout == "flat":
        ra, ca, rb, cb = ca, ra, cb, rb
    dr, dc = abs(ra - rb), abs(ca - cb)
    return dr + max(0, (dc - dr) // 2)


def probe_train(kind: TrainType, company: str) -> Train:
    """A train of this type as if the company owned it."""
    return Train(
        f"probe-{kind.name}",
        kind,
        kind.name,
        kind.price,
        kind.cities,
        kind.multiplier,
        owner=company,
    )


def revenue(
    game: Game,
    company: str,
    trains: list[Train] | None = None,
    hexes: dict[str, HexState] | None = None,
) -> int:
    """The company's best run with these trains (default: its own) on this map
    (default: the game's)."""
    if trains is None and hexes is None:
        return game.best_routes(company)[0]
    trial = copy.copy(game)
    if trains is not None:
        trial.trains = [t for t in game.trains if t.owner != company] + [
            replace(t, owner=company) for t in trains
        ]
    if hexes is not None:
        trial.hexes = hexes
        trial.map_version = -game.map_version - 1  # its own links, for the trial map
        trial.links_cache = None
    return trial.best_routes(company)[0]


def rounds_left(game: Game) -> int:
    """Operating rounds still to come after this one (an estimate where the
    title has no last round)."""
    last = game.title.last_operating_round
    if last:
        return max(0, last - game.operating_round)
    return max(2, EXPECTED_ROUNDS - game.operating_round)


def runs_left(game: Game, kind: TrainType) -> int:
    """How many more times a train of this type bought now will run: until it
    is obsolete (18MS), until the first train that rusts it is likely bought
    (18GA), or until the game ends."""
    runs = rounds_left(game)
    for rule in game.title.obsolete_after_operating_round or ():
        if rule.train == kind.name:
            runs = min(runs, max(0, rule.round - game.operating_round))
    killer = next((k for k in game.title.trains if k.rusts == kind.name), None)
    if killer is not None:
        if killer.name in game.types_bought:
            return 0
        names = [k.name for k in game.title.trains]
        before = sum(
            1
            for t in game.trains
            if t.owner is None
            and not t.rusted
            and t.sellable
            and names.index(t.type.name) < names.index(killer.name)
        )
        operating = max(1, sum(1 for s in game.companies.values() if s.floated))
        runs = min(runs, int(before / (operating * BUYING_RATE)) + 1)
    return runs


def rusting_soon(game: Game, company: str) -> list[Train]:
    """The company's trains that will not run in the next operating round."""
    return [t for t in game.trains_of(company) if runs_left(game, t.type) == 0]


def price_after(game: Game, company: str, payouts: int) -> int:
    """The share price after this many payouts in a row (4.2.4)."""
    return _after_payouts(game, *game.market.where[company], payouts)


def price_after_par(game: Game, par: int, payouts: int) -> int:
    """Where a company parred at this price now would stand after so many payouts."""
    row, col = next(
        (r, c)
        for r, cells in enumerate(game.market.grid)
        for c, cell in enumerate(cells)
        if cell.par and cell.price == par
    )
    return _after_payouts(game, row, col, payouts)


def _after_payouts(game: Game, row: int, col: int, payouts: int) -> int:
    for _ in range(payouts):
        row, col = game.market.right_of(row, col)
    return game.market.grid[row][col].price
