"""Computer players for 18xx titles (18MS, 18GA): each move is one line of the
order language (docs/18xx.md), so a computer player's move goes through the
same parser and engine checks as a player's mail.

The player is simple and sensible: it buys a private, pars a company it can
float and buys it to floating, then adds shares of companies that pay; as
president it lays track toward revenue centres it does not yet reach,
stations in the best free city on its network, runs the engine's best routes,
pays out unless it needs the money for a train, and buys a train when it has
room and the money (or must, having none). Chance comes only from a stream
seeded with the game's seed and the move number.
"""

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import (
    IPO,
    POOL,
    ActionRefused,
    Game,
    Holder,
    PrivateState,
)
from turnproc.families.g18xx.engine.track import HexState, neighbour, split_coordinate
from turnproc.families.g18xx.orders import apply_orders, parse_order


class NoMove(RuntimeError):
    """The computer player found no legal move: a bug in it or in the engine."""


REVENUE_CHECKS = 4
UPGRADE = {"white": "yellow", "yellow": "green", "green": "brown", "brown": "gray"}


def rng_for(seed: int, move: int) -> random.Random:
    return random.Random(f"18xx:{seed}:{move}")


def _legal(game: Game, player: int, line: str) -> bool:
    """Whether the engine would take this order now (tried on a copy)."""
    trial = copy.deepcopy(game, {id(game.title): game.title, id(game.rules): game.rules})
    try:
        action, _ = parse_order(trial, player, line)
        trial.apply_unchecked(action)
    except (ValueError, ActionRefused):
        return False
    return True


def _distance(a: str, b: str, layout: str) -> int:
    (ra, ca), (rb, cb) = split_coordinate(a), split_coordinate(b)
    if layout == "flat":
        ra, ca, rb, cb = ca, ra, cb, rb
    dr, dc = abs(ra - rb), abs(ca - cb)
    return dr + max(0, (dc - dr) // 2)


def next_order(game: Game, player: int, seed: int, move: int) -> str:
    """The computer's order for `player`, who is to move."""
    rng = rng_for(seed, move)
    for line in _candidates(game, player, rng):
        if _legal(game, player, line):
            return line
    raise NoMove(f"no legal move for player {player} in the {game.round} round")


def _candidates(game: Game, player: int, rng: random.Random) -> Iterator[str]:
    if game.discards:
        # over the train limit after a phase change: the shortest train goes
        trains = game.trains_of(game.discards[0])
        for train in sorted(trains, key=lambda t: (t.cities * t.multiplier, t.price)):
            yield f"DISCARD {train.id}"
        return
    if game.round == "draft":
        unsold = [p for p in game.privates.values() if p.owner is None and not p.closed]
        rng.shuffle(unsold)
        for private in unsold:
            yield f"BID {private.data.id} {private.data.value}"
        return
    if game.round == "auction":
        yield from _auction(game, player)
        return
    if game.round == "stock":
        yield from _stock(game, player, rng)
        return
    yield from _operate(game, player, rng)


def _auction(game: Game, player: int) -> Iterator[str]:
    auction = game.auction
    if auction.contest is None and auction.unsold:
        cheapest = auction.unsold[0]
        price = auction.price[cheapest]
        if game.cash[player] - price >= 2 * max(game.title.par_prices):
            yield f"BID {cheapest} {price}"
    yield "PASS"


def _stock(game: Game, player: int, rng: random.Random) -> Iterator[str]:
    cash = game.cash[player]
    companies = list(game.companies.items())
    # first: bring our own companies to floating
    for company, state in companies:
        if state.president == player and not state.floated:
            yield f"BUY {company}"
    # a new company when we can float it ourselves
    unparred = [c for c, s in companies if s.par is None]
    rng.shuffle(unparred)
    floats = game.title.float_percent // 10
    presidencies = sum(1 for _, s in companies if s.president == player)
    if unparred and presidencies < 2:
        for price in sorted(game.title.par_prices, reverse=True):
            if price * floats <= cash:
                yield f"PAR {unparred[0]} {price}"
                break
    # shares of companies that run trains, best price first
    buyable = sorted(
        (
            (game.market.price(c), c)
            for c, s in companies
            if s.par is not None and s.floated and game.trains_of(c)
        ),
        reverse=True,
    )
    for price, company in buyable:
        if price > cash:
            continue
        if any(not x.president for x in game.shares_of(IPO, company)):
            yield f"BUY {company} IPO"
        if game.shares_of(POOL, company):
            yield f"BUY {company} MARKET"
    for company, state in companies:
        if state.par is not None and not state.floated and state.par <= cash:
            yield f"BUY {company}"
    yield "PASS"


@dataclass
class _Plan:
    company: str
    cash: int
    trains: int
    limit: int
    cheapest: int | None
    steps: list[str] = field(default_factory=list)


def _operate(game: Game, player: int, rng: random.Random) -> Iterator[str]:
    company = game.operating_company()
    assert company is not None
    turn = game.turn if game.turn is not None and game.turn.company == company else None
    cash = game.cash[company]
    trains = game.trains_of(company)
    on_sale = sorted(game.available_trains(), key=lambda t: t.type.price)
    cheapest = on_sale[0].type.price if on_sale else None
    limit = game.title.phases[game.phase_index].train_limit
    ran = turn is not None and turn.ran
    revenue_known = turn is not None and turn.revenue is not None
    if not ran and not revenue_known:
        if turn is None or not turn.lays:
            reserve = 0 if trains else (cheapest or 0) // 2
            yield from _tile_lays(game, company, rng, max(cash - reserve, 0))
        if turn is None or not turn.tokens:
            yield from _tokens(game, company)
        if trains:
            yield "RUN BEST"
    if not ran and revenue_known:
        assert turn is not None
        revenue = turn.revenue or 0
        # keep the money when every train it has rusts with the next types sold
        names = [k.name for k in game.title.trains]
        upcoming = {t.type.name for t in on_sale}
        if on_sale:
            upcoming.update(names[names.index(on_sale[-1].type.name) + 1 :][:1])
        doomed = {k.rusts for k in game.title.trains if k.name in upcoming and k.rusts}
        needs_train = (
            cheapest is not None
            and cash < cheapest
            and all(t.name in doomed or t.type.name in doomed for t in trains)
        )
        yield "WITHHOLD" if needs_train and revenue else "PAYOUT"
        yield "WITHHOLD"
    if len(trains) < limit and on_sale:
        train = on_sale[0]
        must = not trains
        if must or (cash >= train.type.price and (len(trains) < 2 or rng.random() < 0.5)):
            for private in _owned_privates(game, company, "train_discount"):
                ability = private.data.ability
                if ability is not None and train.type.name in ability.trains:
                    yield f"USE {private.data.id} BUY TRAIN {train.type.name}"
            yield f"BUY TRAIN {train.type.name}"
        if must:
            president_cash = game.cash[player]
            if cash + president_cash < train.type.price:
                for held in game.companies:
                    if held != company and game.percent_of(player, held):
                        yield f"SELL 1 {held}"
                yield "BANKRUPT"
    if trains and ran:
        yield from _buy_privates(game, company, player, cash - (cheapest or 0) // 2)
    yield "DONE"


def _owned_privates(game: Game, owner: Holder, kind: str | None = None) -> list[PrivateState]:
    return [
        p
        for p in game.privates.values()
        if p.owner == owner
        and not p.closed
        and (kind is None or (p.data.ability is not None and p.data.ability.kind == kind))
    ]


def _buy_privates(game: Game, company: str, president: int, spare: int) -> Iterator[str]:
    """A company with money to spare buys its president's privates at the
    highest price the rules allow (4.2g): their revenue and abilities go to
    the company, the money to the president."""
    for private in _owned_privates(game, president):
        price = private.data.value * 3 // 2
        if price <= spare:
            yield f"BUY PRIVATE {private.data.id} {price}"


def _tile_lays(game: Game, company: str, rng: random.Random, budget: int) -> Iterator[str]:
    """Tile lays in order of use: new track toward a revenue centre the company
    does not reach yet, upgrades of cities it serves."""
    reached = game.reachable(company)
    layout = game.title.layout
    targets = [
        name
        for name, state in game.hexes.items()
        if name not in reached and any(n.kind in ("city", "offboard") for n in state.nodes)
    ]
    colours = game.title.phases[game.phase_index].tiles
    free_tiles = {
        name: tile
        for name, tile in game.title.tiles.items()
        if tile.colour in colours
        and any(f"{name}-{i}" not in game.tiles_on_map for i in range(tile.count))
    }
    scored: list[tuple[float, str, str, HexState]] = []
    near = set(reached) | {game.companies[company].home}
    for hex_name in reached:
        for edge in range(6):
            near.add(neighbour(hex_name, edge, layout))
    for hex_name in sorted(near):
        state = game.hexes.get(hex_name)
        if state is None or state.colour in ("red", "gray") or state.cost > budget:
            continue
        stations = sum(1 for held in state.tokens if company in held)
        kinds = sorted(n.kind for n in state.nodes)
        upgrade = UPGRADE.get(state.colour)
        for name, tile in free_tiles.items():
            # what the engine would refuse at once: the wrong colour or stops
            if tile.colour != upgrade or sorted(n.kind for n in tile.nodes) != kinds:
                continue
            for rotation in range(6):
                reason, new = game.tile_refusal(company, hex_name, name, rotation)
                if reason is not None or new is None:
                    continue
                new_edges = new.edges() - state.edges()
                score = 0.0

                for edge in new_edges:
                    other = neighbour(hex_name, edge, layout)
                    if targets and other in game.hexes:
                        score += 10 - min(_distance(other, t, layout) for t in targets)
                score += 15 * len(tile.nodes) + 25 * stations
                score -= state.cost / 10
                score += rng.random()
                scored.append((score, f"LAY {name} {hex_name} {rotation}", hex_name, new))
    scored.sort(key=lambda item: item[0], reverse=True)
    best = scored[:8]
    if game.trains_of(company):
        # the few most promising lays are weighed by what the trains would earn
        now = game.best_routes(company)[0]
        weighed = [
            (_revenue_with(game, company, hex_name, new) - now, score, line)
            for score, line, hex_name, new in best[:REVENUE_CHECKS]
        ]
        weighed.sort(reverse=True)
        for _, _, line in weighed:
            yield line
        best = best[REVENUE_CHECKS:]
    for _, line, _, _ in best:
        yield line


def _revenue_with(game: Game, company: str, hex_name: str, new: HexState) -> int:
    """The company's best run with one hex changed (the game is not touched)."""
    trial = copy.copy(game)
    trial.hexes = dict(game.hexes)
    trial.hexes[hex_name] = new
    trial.map_version = game.map_version + 1  # its own links, built for the trial map
    return trial.best_routes(company)[0]


def _tokens(game: Game, company: str) -> Iterator[str]:
    state = game.companies[company]
    if state.tokens_used >= len(state.token_costs):
        return
    cost = state.token_costs[state.tokens_used]
    if game.cash[company] < cost + 40:
        return
    reached = game.reachable(company)
    options = []
    for hex_name in reached:
        hex_state = game.hexes[hex_name]
        if any(company in held for held in hex_state.tokens):
            continue
        for index, node in enumerate(hex_state.nodes):
            if node.kind == "city" and len(hex_state.tokens[index]) < node.slots:
                options.append((game.node_revenue(hex_name, index), hex_name, index))
    for _, hex_name, index in sorted(options, reverse=True)[:3]:
        yield f"TOKEN {hex_name} {index}"


@dataclass
class Outcome:
    title: str
    players: list[int]
    moves: int
    ended: bool
    end_reason: str | None
    scores: dict[int, int]
    money_conserved: bool
    refused: list[str]
    actions: list[act.Action] = field(repr=False)


def play(game: Game, seed: int, max_moves: int = 5000) -> Outcome:
    """Play a game to its end with computer players in every seat."""
    refused: list[str] = []
    actions: list[act.Action] = []
    conserved = True
    moves = 0
    while not game.ended and moves < max_moves:
        player = game.to_move()
        if player is None:
            break
        line = next_order(game, player, seed, moves)
        receipt = apply_orders(game, player, line)
        if receipt.refused is not None:
            refused.append(str(receipt.refused))
            break
        actions.extend(receipt.actions)
        moves += 1
        conserved = conserved and game.money_is_conserved()
    game.finish()
    return Outcome(
        game.title.title,
        list(game.players),
        moves,
        game.ended,
        game.end_reason,
        game.scores(),
        conserved,
        refused,
        actions,
    )
