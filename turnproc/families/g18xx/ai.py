"""Computer players for 18xx titles (18MS, 18GA): each move is one line of the
order language (docs/18xx.md), so a computer player's move goes through the
same parser and engine checks as a player's mail.

The player looks one step ahead with the engine's route finder (appraisal.py):
in stock rounds it floats its own companies, then buys the certificate worth
most over the rounds left (dividends and the price to come, less its cost) and
starts a company while there is time for it to earn; as president it lays the
track and places the stations that raise what its trains (and the next train
it could buy) would earn, runs the engine's best routes, buys the train that
best repays its price over the runs it will make, replaces trains before they
rust, and pays out unless withholding buys that replacement now. A president
whose company will need a train neither can pay for hands it on by selling,
or sells other shares to pay, rather than borrow or go bankrupt. Chance comes
only from a stream seeded with the game's seed and the move number.
"""

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from turnproc.families.g18xx import appraisal
from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import (
    IPO,
    POOL,
    ActionRefused,
    Game,
    Holder,
    PrivateState,
    Train,
)
from turnproc.families.g18xx.engine.title import TrainType
from turnproc.families.g18xx.engine.track import HexState, neighbour
from turnproc.families.g18xx.orders import apply_orders, parse_order


class NoMove(RuntimeError):
    """The computer player found no legal move: a bug in it or in the engine."""


UPGRADE = {"white": "yellow", "yellow": "green", "green": "brown", "brown": "gray"}
LAY_CHECKS = 8  # the most promising tile lays weighed by what the trains would earn
# ...fewer on a large map, where each weighing costs more (18Dixie: 143 hexes)
LAY_CHECKS_BY_TITLE = {"18Dixie": 3}
CITY_WORTH = 20  # a city without a tile, as a target for track
TOWN_WORTH = 5
PAR_ROUNDS = 3  # a company is started only with this many operating rounds to come
MAX_PRESIDENCIES = 2
PAR_SHARES = 4  # without the cash to float a company alone, enough for this many shares
NEW_COMPANY_REVENUE = 60  # a company without trains yet, as a guess
RESERVE_RUNS = 1  # a company saves for its next train when its trains run no longer than this
BUY_RATIO = 60  # a train is bought when its runs earn this percent of its price
SOLO_SHARE = 50  # a new train earns at least this percent of what it would alone
PAR_BONUS = 30  # a company of one's own is worth more than a share of another
FLOAT_ALONE_BONUS = 100  # ...the more when its president can float it himself
# titles whose privates are nominated and auctioned one at a time, and the
# private that carries a company's president's certificate (18Dixie 3.3.1, P6)
NOMINATED_AUCTIONS = {"18Dixie": {"P6": "SOU", "P10": "WRA"}}
BID_STEP = 5
# stations that pay the company (18MS 4.2.2.1: $100 and $10 a run in New Orleans)
TOKEN_BONUS = {("18MS", "I1"): 60}


def rng_for(seed: int, move: int) -> random.Random:
    return random.Random(f"18xx:{seed}:{move}")


def _legal(game: Game, player: int, line: str) -> bool:
    """Whether the engine would take this order now (tried on a copy)."""
    trial = game.copy()
    try:
        action, _ = parse_order(trial, player, line)
        trial.apply_unchecked(action)
    except (ValueError, ActionRefused):
        return False
    return True


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
    if game.round == "auction" and game.title.title in NOMINATED_AUCTIONS:
        yield from _nominated_auction(game, player, rng)
        return
    if game.round == "auction":
        yield from _auction(game, player)
        return
    if game.round == "stock" and game.title.title in NOMINATED_AUCTIONS:
        # 18Dixie 3.3.2: an auction of P8-P10 in progress, or a par owed
        yield from _nominated_auction(game, player, rng, in_stock_round=True)
    if game.round == "stock":
        yield from _stock(game, player, rng)
        return
    yield from _operate(game, player, rng)


def _nominated_auction(
    game: Game, player: int, rng: random.Random, in_stock_round: bool = False
) -> Iterator[str]:
    """18Dixie 3.3.1: the buyer of the private that carries a president's
    certificate sets its par; a nominator bids the list price on a private;
    a bidder raises while the price is within a quarter over the list."""
    auction = game.auction
    for private in game.privates.values():
        share = NOMINATED_AUCTIONS[game.title.title].get(private.data.id)
        if share and private.owner == player and game.companies[share].par is None:
            for price in sorted(game.title.par_prices, reverse=True):
                yield f"PAR {share} {price}"
    if auction.contest is None and in_stock_round:
        return
    if auction.contest is None:
        unsold = list(auction.unsold)
        rng.shuffle(unsold)
        for company in unsold:
            yield f"BID {company} {game.privates[company].data.value}"
        return
    value = game.privates[auction.contest].data.value
    high = max(auction.bids[auction.contest].values())
    if high + BID_STEP <= value + value // 4 and rng.random() < 0.5:
        yield f"BID {auction.contest} {high + BID_STEP}"
    yield "PASS"


def _auction(game: Game, player: int) -> Iterator[str]:
    auction = game.auction
    if auction.contest is None and auction.unsold:
        cheapest = auction.unsold[0]
        price = auction.price[cheapest]
        if game.cash[player] - price >= 2 * max(game.title.par_prices):
            yield f"BID {cheapest} {price}"
    yield "PASS"


def _stock(game: Game, player: int, rng: random.Random) -> Iterator[str]:
    """3.2: float our own companies first; then the certificate worth most
    over the rounds left (its dividends and where its price goes, less what
    it costs); a new company when there is time for it to earn."""
    yield from _sales(game, player)
    cash = game.cash[player] - _president_reserve(game, player)
    companies = list(game.companies.items())
    for company, state in companies:
        if state.president == player and not state.floated:
            yield f"BUY {company}"
    left = appraisal.rounds_left(game)
    options: list[tuple[float, str]] = []
    for company, state in companies:
        if state.par is None:
            continue
        income, payouts = _prospects(game, company)
        final = appraisal.price_after(game, company, payouts)
        worth = income * left / 10 + final
        if any(not c.president for c in game.shares_of(IPO, company)) and state.par <= cash:
            options.append((worth - state.par, f"BUY {company} IPO"))
        if game.shares_of(POOL, company) and game.market.price(company) <= cash:
            options.append((worth - game.market.price(company), f"BUY {company} MARKET"))
    unparred = sorted(
        (c for c, s in companies if s.par is None),
        key=lambda c: (-_home_worth(game, c), rng.random()),
    )
    presidencies = sum(1 for _, s in companies if s.president == player)
    floats = game.title.float_percent // 10
    if unparred and left >= PAR_ROUNDS and presidencies < MAX_PRESIDENCIES:
        prices = sorted(game.title.par_prices, reverse=True)
        # the highest par it can float alone, else the lowest, most shares for the money
        alone = [p for p in prices if p * floats <= cash]
        able = alone or [p for p in reversed(prices) if p * PAR_SHARES <= cash]
        if able:
            price = able[0]
            final = appraisal.price_after_par(game, price, left - 1)
            worth = NEW_COMPANY_REVENUE * (left - 1) / 10 + final + PAR_BONUS
            worth += FLOAT_ALONE_BONUS if alone else 0
            options.append((worth - price, f"PAR {unparred[0]} {price}"))
    for private in game.privates.values():
        share = NOMINATED_AUCTIONS.get(game.title.title, {}).get(private.data.id)
        if share and private.owner == player and not private.closed:
            options.append((PAR_BONUS, f"PAR {share} {max(game.title.par_prices)}"))
        if game.title.title in NOMINATED_AUCTIONS and private.owner is None and not private.closed:
            # a private in the open market at its printed price (18Dixie
            # 3.3.1), or auctioned in the second stock round (3.3.2); one that
            # carries a president's certificate floats its company at once
            earns = game.rules.private_revenue(private.data) * 2 * left
            if share and game.companies[share].par is None:
                earns += PAR_BONUS + FLOAT_ALONE_BONUS + private.data.value
            if private.data.value <= cash:
                price, name = private.data.value, private.data.id
                options.append((earns - price, f"BUY PRIVATE {name} {price}"))
                options.append((earns - price, f"BID {name} {price}"))
    options.sort(reverse=True)
    for value, line in options:
        if value > 0:
            yield line
    yield "PASS"


def _sales(game: Game, player: int) -> Iterator[str]:
    """3.2a, 4.2.5.2: a president whose company must soon buy a train it
    cannot pay for, and who cannot pay the rest himself, hands the presidency
    to a player holding enough by selling below him (3.5); failing that he
    sells other shares, the least promising first, to raise the money in the
    stock round rather than borrow (18MS) or go bankrupt (18GA) later."""
    if game.set_number == 0:
        return
    short = 0
    for company, state in game.companies.items():
        if state.president != player or not state.floated:
            continue
        need = _train_reserve(game, company) - game.cash[company]
        if need <= game.cash[player]:
            continue
        own = game.percent_of(player, company)
        others = max(game.percent_of(p, company) for p in game.players if p != player)
        room = game.title.market_pool_limit_percent - game.percent_of(POOL, company)
        count = (own - others) // 10 + 1
        if others >= 20 and count * 10 <= room:
            yield f"SELL {count} {company}"
        short = max(short, need - game.cash[player])
    if short > 0:
        yield from _shares_to_sell(game, player, exclude=None)


def _shares_to_sell(game: Game, player: int, exclude: str | None) -> Iterator[str]:
    """One share of each company the player holds and does not preside, the
    least promising first (what it earns a round for its price)."""
    held = []
    for company, state in game.companies.items():
        if company == exclude or state.president == player or state.par is None:
            continue
        if not game.percent_of(player, company):
            continue
        income, _ = _prospects(game, company)
        held.append((income * 100 // max(game.market.price(company), 1), company))
    for _, company in sorted(held):
        yield f"SELL 1 {company}"


def _prospects(game: Game, company: str) -> tuple[int, int]:
    """What the company is likely to earn a round and how many more times it
    will pay out."""
    state = game.companies[company]
    left = appraisal.rounds_left(game)
    if game.trains_of(company):
        return game.best_routes(company)[0], left
    if not state.floated:
        return NEW_COMPANY_REVENUE, max(0, left - 1)
    return NEW_COMPANY_REVENUE, max(0, left - 1)


def _home_worth(game: Game, company: str) -> float:
    """How rich a company's home is: the revenue centres near it."""
    home = game.companies[company].home
    layout = game.title.layout
    worth = 0.0
    for name, state in game.hexes.items():
        value = 0
        for index, node in enumerate(state.nodes):
            if node.kind in ("city", "offboard"):
                value += game.node_revenue(name, index) or CITY_WORTH
            else:
                value += TOWN_WORTH
        if value:
            worth += value / (1 + appraisal.distance(home, name, layout))
    return worth


def _president_reserve(game: Game, player: int) -> int:
    """Cash a president keeps for a train one of his companies will have to
    buy and cannot pay for."""
    reserve = 0
    for company, state in game.companies.items():
        if state.president == player and state.floated:
            need = _train_reserve(game, company)
            reserve = max(reserve, need - game.cash[company])
    return max(0, reserve)


def _operate(game: Game, player: int, rng: random.Random) -> Iterator[str]:
    company = game.operating_company()
    assert company is not None
    turn = game.turn if game.turn is not None and game.turn.company == company else None
    cash = game.cash[company]
    trains = game.trains_of(company)
    ran = turn is not None and turn.ran
    revenue_known = turn is not None and turn.revenue is not None
    if not ran and not revenue_known:
        if not game.companies[company].home_placed:
            yield from _tokens(game, company)
        if turn is None or game.rules.tile_lay_refusal(game, turn, upgrade=False) is None:
            yield from _tile_lays(game, company, rng, max(cash - _train_reserve(game, company), 0))
        if turn is None or not turn.tokens:
            yield from _tokens(game, company)
        if trains:
            yield "RUN BEST"
    if not ran and revenue_known:
        assert turn is not None
        yield "WITHHOLD" if _withholds(game, company, turn.revenue or 0) else "PAYOUT"
        yield "WITHHOLD"
    yield from _train_buys(game, company, player)
    if ran or not trains:
        yield from _buy_privates(game, company, player, cash - _train_reserve(game, company))
    yield "DONE"


def _cheapest_train(game: Game) -> int | None:
    on_sale = game.available_trains()
    return min((t.type.price for t in on_sale), default=None)


def _train_reserve(game: Game, company: str) -> int:
    """Cash the company keeps for the train it will need: when none of its
    trains will run more than RESERVE_RUNS more rounds, the price of the first
    train to come that would run longer."""
    left = appraisal.rounds_left(game)
    horizon = min(RESERVE_RUNS, left)
    if left == 0 or any(
        appraisal.runs_left(game, t.type) > horizon for t in game.trains_of(company)
    ):
        return 0
    unsold = {t.type.name for t in game.trains if t.owner is None and not t.rusted and t.sellable}
    for kind in game.title.trains:
        if kind.name in unsold and appraisal.runs_left(game, kind) > horizon:
            return kind.price
    return _cheapest_train(game) or 0


def _withholds(game: Game, company: str, revenue: int) -> bool:
    """4.2.4: pay out, unless every train the company has stops running after
    the next round and keeping this revenue lets it buy, now, a train that
    runs longer (a round without a train costs the company as much)."""
    if revenue == 0 or appraisal.rounds_left(game) < 2:
        return False
    if any(appraisal.runs_left(game, t.type) > 1 for t in game.trains_of(company)):
        return False
    cash = game.cash[company]
    prices = [
        price
        for _, price, kind, _ in _train_options(game, company)
        if appraisal.runs_left(game, kind) > 1
    ]
    return bool(prices) and cash < min(prices) <= cash + revenue


def _train_options(game: Game, company: str) -> list[tuple[str, int, TrainType, int]]:
    """(order, price, type, cities) of each train the company may buy from the bank now."""
    options: list[tuple[str, int, TrainType, int]] = []
    seen: set[str] = set()
    for train in sorted(game.available_trains(), key=lambda t: t.type.price):
        kind = train.type
        if kind.name in seen:
            continue
        seen.add(kind.name)
        discount = None
        for private in _owned_privates(game, company, "train_discount"):
            ability = private.data.ability
            if ability is not None and kind.name in ability.trains:
                discount = private
        if discount is not None:
            price = kind.price - game.rules.train_discount(discount)
            options.append((f"USE {discount.data.id} BUY TRAIN {kind.name}", price, kind, 0))
        options.append((f"BUY TRAIN {kind.name}", kind.price, kind, 0))
        for variant in kind.variants:
            options.append((f"BUY TRAIN {variant.name}", variant.price, kind, variant.cities))
    return options


def _train_buys(game: Game, company: str, player: int) -> Iterator[str]:
    """4.2.5: the train that earns most for its price over the runs it will
    make; the cheapest when the company must have one; the last of a type
    when the company will soon need the next type, which it opens."""
    trains = game.trains_of(company)
    limit = game.title.phases[game.phase_index].train_limit
    options = _train_options(game, company)
    if not options or len(trains) >= limit:
        return
    cash = game.cash[company]
    lasting = [t for t in trains if appraisal.runs_left(game, t.type) > 0]
    soon = [t for t in trains if appraisal.runs_left(game, t.type) > 1]
    # the company's trains run together until the first of them stops
    first_stop = min((appraisal.runs_left(game, t.type) for t in lasting), default=0)
    later = [t for t in lasting if appraisal.runs_left(game, t.type) > first_stop]
    now = appraisal.revenue(game, company, lasting) if lasting else 0
    now_later = appraisal.revenue(game, company, later) if later else 0
    bank = [t for t in game.trains if t.owner is None and not t.rusted and t.sellable]
    # money left in a company when the game ends is worth nothing to anyone
    spend_all = game.title.last_operating_round is not None and appraisal.rounds_left(game) <= 2
    scored = []
    for line, price, kind, cities in options:
        if price > cash and trains:
            continue
        probe = appraisal.probe_train(kind, company)
        if cities:
            probe = replace(probe, cities=cities, multiplier=2)
        runs = appraisal.runs_left(game, kind)
        # track still to come gives a new train routes of its own
        floor = appraisal.revenue(game, company, [probe]) * SOLO_SHARE // 100
        kept = [t for t in lasting if t.name != kind.rusts and t.type.name != kind.rusts]
        gain = max(appraisal.revenue(game, company, [*kept, probe]) - now, floor)
        worth = gain * min(runs, first_stop)
        if runs > first_stop:
            kept = [t for t in later if t.name != kind.rusts and t.type.name != kind.rusts]
            gain_later = appraisal.revenue(game, company, [*kept, probe]) - now_later
            worth += max(gain_later, floor) * (runs - first_stop)
        last_of_type = sum(1 for t in bank if t.type.name == kind.name) == 1
        if last_of_type and not soon and runs < 2 and appraisal.rounds_left(game) > 2:
            worth += price  # opens the next type before the company's trains rust
        scored.append((worth - price * BUY_RATIO // 100, -price, line, price, gain))
    must = not trains
    if must:
        # the best the company can pay for itself, else the cheapest
        scored.sort(key=lambda item: (item[3] > cash, item[3] if item[3] > cash else -item[0]))
        if scored and scored[0][3] > cash + max(game.cash[player], 0):
            # 4.2.5.2: sell shares to pay the rest rather than borrow at interest
            yield from _shares_to_sell(game, player, exclude=company)
    else:
        scored.sort(reverse=True)
    for value, _, line, _, gain in scored:
        if must or value >= 0 or (spend_all and gain > 0):
            yield line
    if must:
        cheapest = min(price for _, _, _, price, _ in scored) if scored else 0
        if cash + game.cash[player] < cheapest:
            for held in game.companies:
                if held != company and game.percent_of(player, held):
                    yield f"SELL 1 {held}"
            yield "BANKRUPT"


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


def _targets(game: Game, reached: set[str]) -> list[tuple[str, int]]:
    """Revenue centres the company does not reach yet, with what each is worth
    (a city without a tile counts as a yellow one would)."""
    out = []
    for name, state in game.hexes.items():
        if name in reached:
            continue
        worth = 0
        for index, node in enumerate(state.nodes):
            if node.kind in ("city", "offboard"):
                worth += game.node_revenue(name, index) or CITY_WORTH
            elif node.kind == "town":
                worth += TOWN_WORTH
        if worth:
            out.append((name, worth))
    return out


def _tile_lays(game: Game, company: str, rng: random.Random, budget: int) -> Iterator[str]:
    """Tile lays in order of use: those that raise what the company's trains
    earn (with the next train it could buy, too), then track toward the
    richest revenue centres it does not reach yet."""
    reached = game.reachable(company)
    layout = game.title.layout
    targets = _targets(game, reached)
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
                score = 0.0
                for edge in new.edges() - state.edges():
                    other = neighbour(hex_name, edge, layout)
                    there = game.hexes.get(other)
                    if there is None:
                        continue
                    if there.colour in ("red", "gray") and other not in reached:
                        score += 30  # track into an off-board area or a gray city
                    score += max(
                        (w / (1 + appraisal.distance(other, t, layout)) for t, w in targets),
                        default=0,
                    )
                score += 5 * len(tile.nodes) + 10 * stations
                score -= state.cost / 5
                score += rng.random()
                scored.append((score, f"LAY {name} {hex_name} {rotation}", hex_name, new))
    scored.sort(key=lambda item: item[0], reverse=True)
    checks = LAY_CHECKS_BY_TITLE.get(game.title.title, LAY_CHECKS)
    best = scored[:checks]
    probes = _probe_trains(game, company)
    now = appraisal.revenue(game, company, probes)
    weighed = []
    for score, line, hex_name, new in best:
        hexes = dict(game.hexes)
        hexes[hex_name] = new
        gain = appraisal.revenue(game, company, probes, hexes) - now
        weighed.append((gain * 2 + score, line))
    weighed.sort(reverse=True)
    for _, line in weighed:
        yield line
    for _, line, _, _ in scored[checks:]:
        yield line


def _probe_trains(game: Game, company: str) -> list[Train]:
    """The trains a company's track is judged by: those that will still run
    next round, and the next it could buy."""
    lasting = [t for t in game.trains_of(company) if appraisal.runs_left(game, t.type) > 0]
    on_sale = sorted(game.available_trains(), key=lambda t: t.type.price)
    if on_sale:
        lasting.append(appraisal.probe_train(on_sale[0].type, company))
    return lasting


def _tokens(game: Game, company: str) -> Iterator[str]:
    """4.2.2: a station where it raises the run most (or holds a city the
    company's routes go through); none when the money is needed for a train."""
    state = game.companies[company]
    if not state.home_placed:
        # a home in a city of several: the president places it (18GA Atlanta)
        home = game.hexes[state.home]
        for index, node in enumerate(home.nodes):
            if node.kind == "city" and len(home.tokens[index]) < node.slots:
                yield f"TOKEN {state.home} {index}"
        return
    if state.tokens_used >= len(state.token_costs):
        return
    cost = state.token_costs[state.tokens_used]
    if game.cash[company] < cost + _train_reserve(game, company):
        return
    reached = game.reachable(company)
    probes = _probe_trains(game, company)
    now = appraisal.revenue(game, company, probes)
    options = []
    for hex_name in sorted(reached):
        hex_state = game.hexes[hex_name]
        if any(company in held for held in hex_state.tokens):
            continue
        for index, node in enumerate(hex_state.nodes):
            if node.kind == "city" and len(hex_state.tokens[index]) < node.slots:
                trial = copy.copy(hex_state)
                trial.tokens = [list(held) for held in hex_state.tokens]
                trial.tokens[index].append(company)
                hexes = dict(game.hexes)
                hexes[hex_name] = trial
                gain = appraisal.revenue(game, company, probes, hexes) - now
                bonus = TOKEN_BONUS.get((game.title.title, hex_name), 0)
                options.append((gain + bonus, game.node_revenue(hex_name, index), hex_name, index))
    options.sort(reverse=True)
    for gain, worth, hex_name, index in options[:3]:
        if gain > 0 or (cost <= 40 and worth >= 30):
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
