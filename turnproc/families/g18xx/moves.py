"""The legal moves of the player to move, in the order language (docs/18xx.md).

A "your move" mail, a receipt that leaves the player to move and a refused
move's answer list every order the player may write now, grouped by kind:
the tile lays (each hex, the tiles that fit with their rotations, the tiles
left of each number), the stations (cities and costs), the trains (bank,
open market, other companies, prices), the stock-round purchases and sales
(prices and the certificate limit), the privates. Each line starts with a
complete order as the player writes it; alternatives follow in brackets.

Every order listed is one the engine takes now: each candidate is tried on a
copy of the game (a tile lay is checked with the engine's own 4.2.1 test).
"""

import re
from dataclasses import dataclass, field

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.engine.state import (
    BID_STEP,
    TILE_ABILITIES,
    ActionRefused,
    PrivateState,
)
from turnproc.families.g18xx.engine.track import neighbour
from turnproc.families.g18xx.orders import parse_order

_ORDER = re.compile(r" \(|  \[")  # where a line's order ends and its note begins
UPGRADE = {"white": "yellow", "yellow": "green", "green": "brown", "brown": "gray"}


@dataclass
class Moves:
    """The legal moves, in sections: (heading, lines)."""

    sections: list[tuple[str, list[str]]] = field(default_factory=list)
    only_pass: bool = False  # nothing but PASS is legal

    def text(self) -> str:
        out: list[str] = []
        for heading, lines in self.sections:
            out.append(heading)
            out += [f"  {line}" for line in lines]
        return "\n".join(out)

    def orders(self) -> list[str]:
        """The complete order that starts each line."""
        return [_ORDER.split(line, maxsplit=1)[0] for _, lines in self.sections for line in lines]

    def choices(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Each section's complete orders, each with its line: the order that
        starts a line, then the alternatives its note names as complete
        orders ("or rotation 1, 3", "or par 67, 71", "or 2, 3 shares"), each
        with the line's note less those alternatives. Amounts a note leaves
        open ("or more, by $5 steps", "any price from $1") are not spelled
        out: such orders are written."""
        out: list[tuple[str, list[tuple[str, str]]]] = []
        for heading, lines in self.sections:
            options = []
            for line in lines:
                orders = alternatives(line)
                note = line[len(orders[0]) :]
                if len(orders) > 1:  # each its own line: the note without "or ..."
                    note = _OR_CLAUSE.sub(lambda m: "(" if m.group(1) == ";" else "", note)
                    note = note.replace("  [", " [").rstrip()
                options += [(order, order + note) for order in orders]
            out.append((heading, options))
        return out


_OR_CLAUSE = re.compile(r"\(or [^;)]*(;|\)) ?")  # a note's "(or rotation 1, 3)", "(or par 75; "
_ROTATIONS = re.compile(r"\(or rotation ([\d, ]+)\)")
_PARS = re.compile(r"\(or par ([\d, ]+);")
_SHARES = re.compile(r"\(or ([\d, ]+) shares;")


def alternatives(line: str) -> list[str]:
    """The complete orders a line of the legal moves lists: its first order,
    then those its note names."""
    first = _ORDER.split(line, maxsplit=1)[0]
    words = first.split()
    out = [first]
    for pattern, place in ((_ROTATIONS, -1), (_PARS, -1), (_SHARES, 1)):
        found = pattern.search(line)
        if found is None:
            continue
        for value in found.group(1).split(","):
            other = list(words)
            other[place if place >= 0 else len(other) + place] = value.strip()
            out.append(" ".join(other))
    return out


def money(amount: int) -> str:
    return f"${amount:,}"


def legal(game: Game, player: int, line: str) -> bool:
    """Whether the engine takes this order now (tried on a copy)."""
    trial = game.copy()
    try:
        action, _ = parse_order(trial, player, line)
        trial.apply_unchecked(action)
    except (ValueError, ActionRefused):
        return False
    return True


def legal_moves(game: Game, player: int) -> Moves:
    """Every order `player` may write now (he is to move)."""
    moves = Moves()
    if game.ended or game.to_move() != player:
        return moves
    if game.discards:
        _discards(game, player, moves)
    elif game.round == "stock":
        _stock(game, player, moves)
    elif game.round in ("draft", "auction"):
        _privates_sale(game, player, moves)
    elif game.round == "operating":
        _operating(game, player, moves)
    orders = moves.orders()
    moves.only_pass = orders == ["PASS"]
    return moves


def _first_legal(game: Game, player: int, orders: list[str]) -> list[str]:
    return [order for order in orders if legal(game, player, order)]


def _discards(game: Game, player: int, moves: Moves) -> None:
    company = game.discards[0]
    trains = sorted({t.name for t in game.trains_of(company)})
    lines = [f"DISCARD {name}" for name in trains if legal(game, player, f"DISCARD {name}")]
    moves.sections.append(
        (f"{company} is over its train limit of {game.train_limit()}; discard a train:", lines)
    )


# --- the privates' sale at the start ------------------------------------------------


def _privates_sale(game: Game, player: int, moves: Moves) -> None:
    lines: list[str] = []
    if game.round == "draft":
        for private in game.privates.values():
            order = f"BID {private.data.id} {private.data.value}"
            if private.owner is None and legal(game, player, order):
                lines.append(
                    f"{order} ({private.data.name}, revenue {money(private.data.revenue)})"
                )
        moves.sections.append(("Buy one private at its price (each player buys one):", lines))
        return
    auction = game.auction
    if auction.contest is not None:
        bids = auction.bids.get(auction.contest, {})
        least = max(bids.values()) + BID_STEP
        order = f"BID {auction.contest} {least}"
        if legal(game, player, order):
            lines.append(f"{order} (or more, by $5 steps; highest bid {money(least - BID_STEP)})")
        if legal(game, player, "PASS"):
            lines.append("PASS (leave the contest this time)")
        moves.sections.append((f"{auction.contest} is auctioned between its bidders:", lines))
        return
    for index, name in enumerate(auction.unsold):
        private = game.privates[name]
        bids = auction.bids.get(name, {})
        if index == 0:
            order = f"BID {name} {auction.price[name]}"
            note = "buy it at its price"
        else:
            least = max([auction.price[name], *bids.values()]) + BID_STEP
            order = f"BID {name} {least}"
            note = "or more; the highest bid buys it when the cheaper ones are sold"
        if legal(game, player, order):
            lines.append(f"{order} ({private.data.name}; {note})")
    if legal(game, player, "PASS"):
        lines.append("PASS")
    moves.sections.append(("The privates' auction (3.1):", lines))


# --- stock rounds -------------------------------------------------------------------


def _stock(game: Game, player: int, moves: Moves) -> None:
    limit = game.cert_limit
    held = game.certificate_count(player)
    heading = (
        f"Stock round: you have {money(game.cash[player])} and {held} of your {limit} certificates."
    )
    buys: list[str] = []
    if game.stock_bought_this_turn:
        heading += " You have bought this turn; you may still sell, then PASS ends your turn."
    for company, state in game.companies.items():
        if state.par is None:
            pars = [p for p in game.title.par_prices if legal(game, player, f"PAR {company} {p}")]
            if pars:
                others = f"or par {', '.join(str(p) for p in pars[1:])}; " if pars[1:] else ""
                buys.append(
                    f"PAR {company} {pars[0]} ({others}the president's 20% for twice the par;"
                    f" home {state.home})"
                )
            continue
        for source, where in (("IPO", "initial offering"), ("MARKET", "open market")):
            order = f"BUY {company} {source}"
            if legal(game, player, order):
                price = state.par if source == "IPO" else game.market.price(company)
                buys.append(f"{order} (10% for {money(price or 0)} from the {where})")
    sells: list[str] = []
    for company in game.companies:
        own = game.percent_of(player, company) // 10
        counts = [n for n in range(1, own + 1) if legal(game, player, f"SELL {n} {company}")]
        if counts:
            others = f"or {', '.join(str(n) for n in counts[1:])} shares; " if counts[1:] else ""
            sells.append(
                f"SELL {counts[0]} {company} ({others}{money(game.market.price(company))} a"
                " share; the price drops a row for each share sold)"
            )
    privates = _private_trades(game, player)
    if buys:
        moves.sections.append(("Buy (one purchase a turn):", buys))
    if sells:
        moves.sections.append(("Sell (any number of sales, before or after your purchase):", sells))
    if privates:
        moves.sections.append(("Privates between players:", privates))
    if legal(game, player, "PASS"):
        end = "end your turn" if game.stock_bought_this_turn else "buy nothing this turn"
        moves.sections.append(("Or:", [f"PASS ({end})"]))
    moves.sections.insert(0, (heading, []))


def _private_trades(game: Game, player: int) -> list[str]:
    """Offers open to the player, and the offers he may make (3.2b, 3.2c4):
    for another player's private, or his own to another player."""
    lines = []
    if game.rules.players_trade_privates(game):
        for name, private in game.privates.items():
            if private.closed or not isinstance(private.owner, int):
                continue
            price = private.data.value
            if private.owner != player:
                order = f"OFFER {price} FOR {name}"
                note = f"offer player {private.owner} any price of at least $1 for it"
            else:
                other = next((p for p in game.players if p != player), None)
                order = f"OFFER {name} TO {other} FOR {price}"
                note = "or to another player or a company, at any price of at least $1"
            if legal(game, player, order):
                lines.append(f"{order} ({note}; not a move: your turn goes on)")
    for offer in game.offers_to(player):
        if offer.buyer == player:
            order = f"BUY PRIVATE {offer.private} {offer.price}"
        elif isinstance(offer.buyer, int):
            order = f"SELL PRIVATE {offer.private} TO {offer.buyer} FOR {offer.price}"
        else:
            continue
        if legal(game, player, order):
            lines.append(order)
    return lines


# --- operating rounds ---------------------------------------------------------------


def _operating(game: Game, player: int, moves: Moves) -> None:
    company = game.operating_company()
    if company is None:
        return
    game = _begun(game, company)
    trains = ", ".join(t.name for t in game.trains_of(company)) or "none"
    moves.sections.append(
        (
            f"For {company}: treasury {money(game.cash[company])}, trains {trains}, "
            f"train limit {game.train_limit()}.",
            [],
        )
    )
    lays, left = _tile_lays(game, company)
    if lays:
        moves.sections.append((f"Track (tiles left: {left}):", lays))
    tokens = _tokens(game, player, company)
    if tokens:
        moves.sections.append(("Stations:", tokens))
    runs = _runs(game, player, company)
    if runs:
        moves.sections.append(("Run and pay:", runs))
    trains_lines = _trains(game, player, company)
    if trains_lines:
        moves.sections.append(("Trains:", trains_lines))
    privates = _company_privates(game, player, company)
    if privates:
        moves.sections.append(("Privates:", privates))
    abilities = _abilities(game, player, company)
    if abilities:
        moves.sections.append((f"The abilities of {company}'s privates (USE):", abilities))
    ends = [order for order in ("DONE", "BANKRUPT") if legal(game, player, order)]
    lines = ["DONE (end the company's turn)"] if "DONE" in ends else []
    if "BANKRUPT" in ends and "DONE" not in ends:
        lines.append(
            "BANKRUPT (the company must buy a train that it and you cannot pay for; 4.2.5.2)"
        )
    if lines:
        moves.sections.append(("Or:", lines))


def _begun(game: Game, company: str) -> Game:
    """The game with the company's turn begun (its home station placed, the
    privates paid), as its first order begins it: a copy, if it had not."""
    if game.turn is not None and game.turn.company == company:
        return game
    trial = game.copy()
    try:
        trial.apply_unchecked(act.Pass(type="pass", entity=company, entity_type="corporation"))
    except ActionRefused:
        return game
    return trial


@dataclass(frozen=True)
class Lay:
    """A hex the company may lay or upgrade, a tile that fits and its
    rotations (4.2.1)."""

    hex: str
    tile: str
    rotations: tuple[int, ...]
    cost: int
    upgrade: bool


def tile_lays(game: Game, player: int) -> list[Lay]:
    """The tile lays open to the player's company now (he is to move in an
    operating round), hex by hex."""
    company = game.operating_company()
    if game.round != "operating" or company is None or game.to_move() != player:
        return []
    return _lays(_begun(game, company), company)


def _tiles_left(game: Game) -> dict[str, int]:
    colours = game.title.phases[game.phase_index].tiles
    left: dict[str, int] = {}
    for name, tile in game.title.tiles.items():
        if tile.colour in colours:
            count = sum(1 for i in range(tile.count) if f"{name}-{i}" not in game.tiles_on_map)
            if count:
                left[name] = count
    return left


def _lays(game: Game, company: str, private: PrivateState | None = None) -> list[Lay]:
    """The company's own tile lays, or with `private` those of the private's
    ability (its hexes and tiles, free where the ability makes it free)."""
    turn = game.turn
    if turn is None:
        return []
    ability = private.data.ability if private is not None else None
    if ability is None and all(
        game.rules.tile_lay_refusal(game, turn, upgrade) for upgrade in (False, True)
    ):
        return []
    left = _tiles_left(game)
    if ability is not None and ability.tiles:
        left = {name: count for name, count in left.items() if name in ability.tiles}
    if ability is not None and ability.hexes:
        near = set(ability.hexes)
    else:
        near = set(game.reachable(company)) | {game.companies[company].home}
        for hex_name in list(near):
            for edge in range(6):
                near.add(neighbour(hex_name, edge, game.title.layout))
    free = private is not None and game.rules.ability_lay_is_free(private)
    out: list[Lay] = []
    for hex_name in sorted(near, key=_hex_order):
        hex_state = game.hexes.get(hex_name)
        if hex_state is None or hex_state.colour in ("red", "gray"):
            continue
        upgrade = hex_state.tile is not None
        if private is None and game.rules.tile_lay_refusal(game, turn, upgrade) is not None:
            continue
        cost = 0 if free else hex_state.cost
        if game.cash[company] < cost:
            continue
        wanted = UPGRADE.get(hex_state.colour)
        kinds = sorted(n.kind for n in hex_state.nodes)
        for name in left:
            tile = game.title.tiles[name]
            if tile.colour != wanted or sorted(n.kind for n in tile.nodes) != kinds:
                continue
            rotations = game.legal_rotations(company, hex_name, name, private)
            if rotations:
                out.append(Lay(hex_name, name, tuple(rotations), cost, upgrade))
    return out


def _tile_lays(game: Game, company: str) -> tuple[list[str], str]:
    """Each hex the company may lay or upgrade now, each tile that fits with
    its rotations (4.2.1), and the tiles left of each number."""
    left = _tiles_left(game)
    tiles_left = ", ".join(f"{name} x{count}" for name, count in left.items()) or "none"
    return [_lay_line(lay) for lay in _lays(game, company)], tiles_left


def _lay_line(lay: Lay, prefix: str = "") -> str:
    others = (
        f" (or rotation {', '.join(str(r) for r in lay.rotations[1:])})"
        if lay.rotations[1:]
        else ""
    )
    what = "upgrade" if lay.upgrade else "lay"
    price = f", terrain {money(lay.cost)}" if lay.cost else ""
    return (
        f"{prefix}LAY {lay.tile} {lay.hex} {lay.rotations[0]}{others}  [{what} on {lay.hex}{price}]"
    )


def _hex_order(name: str) -> tuple[str, int]:
    letters = name.rstrip("0123456789")
    number = name[len(letters) :]
    return letters, int(number) if number.isdigit() else 0


def _tokens(game: Game, player: int, company: str) -> list[str]:
    state = game.companies[company]
    lines = []
    home = game.hexes.get(state.home)
    if not state.home_placed and home is not None:
        # a home of several cities: the president picks the city (18GA Atlanta)
        for index, node in enumerate(home.nodes):
            order = f"TOKEN {state.home} {index}"
            if node.kind == "city" and legal(game, player, order):
                lines.append(f"{order} (the home station, in city {index} of {state.home})")
    if state.tokens_used >= len(state.token_costs):
        return lines
    cost = state.token_costs[state.tokens_used]
    for hex_name, index in sorted(game.reachable_cities(company)):
        hex_state = game.hexes[hex_name]
        cities = [i for i, n in enumerate(hex_state.nodes) if n.kind == "city"]
        order = f"TOKEN {hex_name}" + (f" {index}" if len(cities) > 1 else "")
        if index not in cities or not legal(game, player, order):
            continue
        lines.append(f"{order} ({money(cost)}; {len(state.token_costs) - state.tokens_used} left)")
    return lines


def _runs(game: Game, player: int, company: str) -> list[str]:
    turn = game.turn
    lines = []
    if turn is not None and turn.company == company and turn.revenue is not None:
        revenue = turn.revenue
        per_share = revenue // game.title.shares_per_company
        if legal(game, player, "PAYOUT"):
            lines.append(
                f"PAYOUT ({money(per_share)} a share of the {money(revenue)} run; "
                "the price moves right)"
            )
        if legal(game, player, "WITHHOLD"):
            lines.append(f"WITHHOLD ({company} keeps {money(revenue)}; the price moves left)")
        return lines
    if game.trains_of(company) and legal(game, player, "RUN BEST"):
        total, _ = game.best_routes(company)
        lines.append(f"RUN BEST (the best runs earn {money(total)}; then PAYOUT or WITHHOLD)")
    return lines


def _trains(game: Game, player: int, company: str) -> list[str]:
    lines: list[str] = []
    seen: set[str] = set()
    for train in game.available_trains():
        kinds = [(train.type.name, train.type.price)]
        kinds += [(v.name, v.price) for v in train.type.variants]
        for name, price in kinds:
            where = "open market" if train.discarded else "bank"
            key = f"{name}/{where}"
            if key in seen:
                continue
            seen.add(key)
            order = f"BUY TRAIN {name}"
            if legal(game, player, order):
                lines.append(f"{order} ({money(price)} from the {where})")
    for other in game.companies:
        if other == company:
            continue
        for train in game.trains_of(other):
            order = f"BUY TRAIN {train.name} FROM {other} 1"
            key = f"{train.name}/{other}"
            if key in seen or not legal(game, player, order):
                continue
            seen.add(key)
            most = game.cash[company]
            lines.append(
                f"BUY TRAIN {train.name} FROM {other} {min(train.price, most)}"
                f" (any price from $1 to {money(most)}, agreed with {other}'s president)"
            )
    return lines


def _company_privates(game: Game, player: int, company: str) -> list[str]:
    lines = []
    for name, private in game.privates.items():
        if private.closed or private.owner != player:
            continue
        prices = _price_range(game, player, f"BUY PRIVATE {name}", private.data.value)
        if prices is not None:
            low, high = prices
            lines.append(
                f"BUY PRIVATE {name} {private.data.value} ({company} buys it from you, at any"
                f" price from {money(low)} to {money(high)})"
            )
    return lines


def _price_range(game: Game, player: int, order: str, price: int) -> tuple[int, int] | None:
    """The prices from lowest to highest at which `order <price>` is legal,
    found by halving from a legal `price` (the rules allow a range)."""
    if not legal(game, player, f"{order} {price}"):
        return None
    low, high = 1, price  # the lowest legal price is in [low, high]
    while low < high:
        middle = (low + high) // 2
        if legal(game, player, f"{order} {middle}"):
            high = middle
        else:
            low = middle + 1
    lowest = low
    low, high = price, max(price, game.cash[game.operating_company() or player])
    while low < high:  # the highest legal price is in [low, high]
        middle = (low + high + 1) // 2
        if legal(game, player, f"{order} {middle}"):
            low = middle
        else:
            high = middle - 1
    return lowest, low


def _abilities(game: Game, player: int, company: str) -> list[str]:
    """What the privates the company owns may still do for it now, each as a
    USE order (docs/18xx.md): the extra or free tile lays (on their hexes,
    with their tiles), the discounted or free stations, the discounted
    trains. Abilities that act by themselves (a share, a train given) are
    not orders and are not listed."""
    lines: list[str] = []
    for name, private in game.privates.items():
        ability = private.data.ability
        if private.owner != company or private.closed or ability is None:
            continue
        if private.uses >= ability.count:
            continue
        use = f"USE {name} "
        if ability.kind in TILE_ABILITIES:
            lays = _lays(game, company, private)
            lines += [
                _lay_line(lay, use) for lay in lays if legal(game, player, _lay_order(use, lay))
            ]
        elif ability.kind in ("token_discount", "free_token"):
            lines += _ability_tokens(game, player, company, private)
        elif ability.kind == "train_discount":
            for kind, price in _bank_train_kinds(game):
                order = f"{use}BUY TRAIN {kind}"
                if kind in ability.trains and legal(game, player, order):
                    paid = price - game.rules.train_discount(private)
                    lines.append(f"{order} ({money(paid)} from the bank; {name} closes)")
    return lines


def _lay_order(prefix: str, lay: Lay) -> str:
    return f"{prefix}LAY {lay.tile} {lay.hex} {lay.rotations[0]}"


def _ability_tokens(game: Game, player: int, company: str, private: PrivateState) -> list[str]:
    """The stations a private's ability places: in its hexes (W&SR's free
    station need not connect, 12.III), else in the cities the company reaches."""
    ability = private.data.ability
    state = game.companies[company]
    if ability is None or state.tokens_used >= len(state.token_costs):
        return []
    if ability.hexes:
        places = [
            (hex_name, index)
            for hex_name in ability.hexes
            for index, node in enumerate(game.hexes[hex_name].nodes)
            if node.kind == "city"
        ]
    else:
        places = sorted(game.reachable_cities(company))
    cost = state.token_costs[state.tokens_used]
    paid = 0 if ability.kind == "free_token" else cost * (100 - ability.percent) // 100
    lines = []
    for hex_name, index in places:
        cities = [i for i, n in enumerate(game.hexes[hex_name].nodes) if n.kind == "city"]
        if index not in cities:
            continue
        order = f"USE {private.data.id} TOKEN {hex_name}" + (f" {index}" if len(cities) > 1 else "")
        if legal(game, player, order):
            lines.append(f"{order} ({money(paid)} instead of {money(cost)})")
    return lines


def _bank_train_kinds(game: Game) -> list[tuple[str, int]]:
    """The trains the bank sells now, each kind and variant once, with its price."""
    kinds: dict[str, int] = {}
    for train in game.available_trains():
        if train.discarded:
            continue
        kinds.setdefault(train.type.name, train.type.price)
        for variant in train.type.variants:
            kinds.setdefault(variant.name, variant.price)
    return list(kinds.items())
