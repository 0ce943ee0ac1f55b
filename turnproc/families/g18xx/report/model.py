"""The report model: a plain, JSON-ready picture of one 18xx position as one
player sees it (18xx games have no secrets, so every reader sees the same map,
market and charters; the reader changes "what you may do now")."""

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import BANK, IPO, POOL, Game, Holder, Offer
from turnproc.families.g18xx.moves import legal_moves, tile_lays

# Company colours as printed on the charters (presentation only, not rules).
COLOURS = {
    "GMO": "#d81e3e",
    "IC": "#1f7a3a",
    "L&N": "#1e5fb3",
    "Fr": "#7a1f5c",
    "WRA": "#e0a400",
    "ACL": "#111111",
    "CoG": "#d81e3e",
    "G&F": "#1e5fb3",
    "GA": "#e07b00",
    "W&A": "#1f7a3a",
    "SAL": "#c9a000",
}
DEFAULT_COLOUR = "#555555"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class NodeView(_Model):
    kind: str  # city, town, offboard
    revenue: int  # in the current phase
    revenues: dict[str, int]  # by tile colour, for off-board areas that change
    slots: int
    tokens: tuple[str, ...]


class HexView(_Model):
    hex: str
    name: str | None
    colour: str  # white, yellow, green, brown, gray, red
    tile: str | None
    rotation: int
    cost: int
    terrain: str | None
    nodes: tuple[NodeView, ...]
    track: tuple[tuple[int | str, int | str], ...]  # edges 0-5, nodes "n<i>"


class LayView(_Model):
    """A hex the reader's company may lay or upgrade now, with the tiles that
    fit and their rotations ("57 r0,3"), drawn on his map and listed in the
    table "Your tile lays now"."""

    hex: str
    tiles: tuple[str, ...]
    name: str | None = None  # the city's or town's name printed on the map
    cost: int = 0  # the terrain cost the company pays
    upgrade: str | None = None  # the number of the tile it replaces


class MarketCell(_Model):
    price: int
    yellow: bool
    par: bool
    end: bool
    companies: tuple[str, ...]


class Holding(_Model):
    holder: str
    percent: int
    president: bool


class CompanyView(_Model):
    id: str
    name: str
    colour: str
    home: str
    par: int | None
    price: int | None
    floated: bool
    president: str | None
    cash: int
    trains: tuple[str, ...]
    tokens_left: tuple[int, ...]  # costs of the station tokens not yet placed
    stations: tuple[str, ...]  # hexes with its tokens
    holders: tuple[Holding, ...]
    ipo_percent: int
    market_percent: int
    privates: tuple[str, ...]


class PrivateView(_Model):
    id: str
    name: str
    value: int
    revenue: int
    owner: str | None
    closed: bool


class PlayerView(_Model):
    id: str
    cash: int
    certificates: int
    shares: dict[str, int]  # company -> percent
    presidencies: tuple[str, ...]
    privates: tuple[str, ...]
    score: int


class OfferView(_Model):
    """A standing offer for a private (3.2b): everyone at the table hears it."""

    private: str
    seller: str
    buyer: str
    price: int
    by: str
    words: str


class TrainStock(_Model):
    name: str
    price: int
    left: int


class Report(_Model):
    title: str
    layout: str
    reader: str | None
    round: str
    operating_round: int
    set_number: int
    phase: str
    train_limit: int
    tiles: tuple[str, ...]  # tile colours available in this phase
    to_move: str | None
    operating: str | None
    ended: bool
    end_reason: str | None
    bank: int
    certificate_limit: int
    hexes: tuple[HexView, ...]
    market: tuple[tuple[MarketCell, ...], ...]
    companies: tuple[CompanyView, ...]
    players: tuple[PlayerView, ...]
    privates: tuple[PrivateView, ...]
    offers: tuple[OfferView, ...]
    trains_for_sale: tuple[TrainStock, ...]
    log_since: int  # -1: the log since the reader's last move, in words
    lays: tuple[LayView, ...] = ()
    log: tuple[str, ...]
    may_do: tuple[str, ...]


def _holder(holder: Holder | None) -> str | None:
    if holder is None:
        return None
    if holder == IPO:
        return "IPO"
    if holder == POOL:
        return "market"
    return str(holder)


def bank_words(cash: int) -> str:
    """The bank's cash. A bank that cannot pay has broken (18GA 5a; in 18MS
    the game end does not depend on it, 1.4): the players improvise the money
    it lacks, which the accounts keep as what the bank paid beyond its cash,
    never shown as a negative balance."""
    if cash < 0:
        return f"the bank has broken: ${-cash:,} paid beyond its cash"
    return f"bank ${cash:,}"


def _party(holder: Holder) -> str:
    return f"player {holder}" if isinstance(holder, int) else str(holder)


def offer_words(offer: Offer) -> str:
    """A standing offer in words, with the order that takes it up (docs/18xx.md)."""
    if offer.by == offer.seller:
        taker = (
            _party(offer.buyer)
            if isinstance(offer.buyer, int)
            else f"{offer.buyer}'s president on its turn"
        )
        return (
            f"{_party(offer.seller)} offers {offer.private} to {_party(offer.buyer)} for"
            f" ${offer.price}; {taker} takes it with BUY PRIVATE {offer.private} {offer.price}"
        )
    return (
        f"{_party(offer.buyer)} offers {_party(offer.seller)} ${offer.price} for"
        f" {offer.private}; {_party(offer.seller)} takes it with SELL PRIVATE"
        f" {offer.private} TO {offer.buyer} FOR {offer.price}"
    )


def standing_offers(game: Game) -> list[Offer]:
    """The offers for privates still open, in the order they were made."""
    return [o for o in game.offers if not game.privates[o.private].closed]


def _offers(game: Game) -> tuple[OfferView, ...]:
    return tuple(
        OfferView(
            private=o.private,
            seller=str(o.seller),
            buyer=str(o.buyer),
            price=o.price,
            by=str(o.by),
            words=offer_words(o),
        )
        for o in standing_offers(game)
    )


def _hexes(game: Game) -> tuple[HexView, ...]:
    printed = {h.hex: h for h in game.title.hexes}
    out = []
    for name in sorted(game.hexes, key=_hex_key):
        state = game.hexes[name]
        data = printed[name]
        nodes = []
        for index, node in enumerate(state.nodes):
            revenues = node.revenue if isinstance(node.revenue, dict) else {}
            held = state.tokens[index] if index < len(state.tokens) else []
            nodes.append(
                NodeView(
                    kind=node.kind,
                    revenue=game.node_revenue(name, index),
                    revenues=dict(revenues),
                    slots=node.slots,
                    tokens=tuple(held),
                )
            )
        out.append(
            HexView(
                hex=name,
                name=data.name,
                colour=state.colour,
                tile=state.tile,
                rotation=state.rotation,
                cost=state.cost if state.tile is None else 0,
                terrain=data.terrain if state.tile is None else None,
                nodes=tuple(nodes),
                track=tuple(state.track),
            )
        )
    return tuple(out)


def _hex_key(name: str) -> tuple[str, int]:
    letters = name.rstrip("0123456789")
    return letters.rjust(2), int(name[len(letters) :])


def _companies(game: Game) -> tuple[CompanyView, ...]:
    out = []
    names = {c.id: c.name for c in game.title.companies}
    for company, state in game.companies.items():
        holders = [
            Holding(
                holder=str(p),
                percent=game.percent_of(p, company),
                president=state.president == p,
            )
            for p in game.players
            if game.percent_of(p, company)
        ]
        stations = tuple(
            sorted(
                name
                for name, hex_state in game.hexes.items()
                if any(company in held for held in hex_state.tokens)
            )
        )
        out.append(
            CompanyView(
                id=company,
                name=names[company],
                colour=COLOURS.get(company, DEFAULT_COLOUR),
                home=state.home,
                par=state.par,
                price=game.market.price(company) if company in game.market.where else None,
                floated=state.floated,
                president=_holder(state.president),
                cash=game.cash[company],
                trains=tuple(t.name for t in game.trains_of(company)),
                tokens_left=state.token_costs[state.tokens_used :],
                stations=stations,
                holders=tuple(holders),
                ipo_percent=game.percent_of(IPO, company),
                market_percent=game.percent_of(POOL, company),
                privates=tuple(
                    p for p, s in game.privates.items() if s.owner == company and not s.closed
                ),
            )
        )
    return tuple(out)


def _players(game: Game) -> tuple[PlayerView, ...]:
    scores = game.scores()
    return tuple(
        PlayerView(
            id=str(p),
            cash=game.cash[p],
            certificates=game.certificate_count(p),
            shares={c: game.percent_of(p, c) for c in game.companies if game.percent_of(p, c)},
            presidencies=tuple(c for c, s in game.companies.items() if s.president == p),
            privates=tuple(k for k, v in game.privates.items() if v.owner == p and not v.closed),
            score=scores[p],
        )
        for p in game.players
    )


def _trains_for_sale(game: Game) -> tuple[TrainStock, ...]:
    left: dict[str, int] = {}
    for train in game.trains:
        if train.owner is None and not train.rusted and train.sellable:
            left[train.type.name] = left.get(train.type.name, 0) + 1
    return tuple(
        TrainStock(name=kind.name, price=kind.price, left=left[kind.name])
        for kind in game.title.trains
        if left.get(kind.name)
    )


def _stops(route: act.Route) -> list[str]:
    """The hexes a route stops in, in the order its legs name them."""
    stops: list[str] = []
    for chain in route.connections:
        for hex_name in (chain[0], chain[-1]):
            if hex_name not in stops:
                stops.append(hex_name)
    return stops


def describe(action: act.Action) -> str:
    """One action in words, for the log."""
    who = f"player {action.entity}" if action.entity_type == "player" else str(action.entity)
    match action:
        case act.Bid():
            return f"{who} bids ${action.price} for {action.company}"
        case act.Par():
            return f"{who} pars {action.corporation} at ${action.share_price.split(',')[0]}"
        case act.BuyShares():
            return f"{who} buys {action.percent}% ({', '.join(action.shares)})"
        case act.SellShares():
            company = action.shares[0].rpartition("_")[0]
            return f"{who} sells {action.percent}% of {company}"
        case act.Pass():
            return f"{who} passes"
        case act.BuyCompany():
            return f"{who} buys private {action.company} for ${action.price}"
        case act.OfferCompany() if action.price == 0:
            return f"{who} withdraws his offers on {action.company}"
        case act.OfferCompany():
            to = f" to {action.to}" if action.to is not None else ""
            return f"{who} offers {action.company}{to} for ${action.price}"
        case act.SellCompany():
            return f"{who} sells private {action.company} to player {action.to} for ${action.price}"
        case act.DiscardTrain():
            return f"{who} discards train {action.train} to the open market"
        case act.LayTile():
            tile = action.tile.rpartition("-")[0]
            return f"{who} lays tile {tile} on {action.hex} rotation {action.rotation}"
        case act.PlaceToken():
            return f"{who} places a station in {action.city.rpartition('-')[0]}"
        case act.RunRoutes():
            parts = [
                f"{r.train} {'-'.join(_stops(r))}"
                + (f" ${r.revenue}" if r.revenue is not None else "")
                for r in action.routes
            ]
            return f"{who} runs {'; '.join(parts) or 'no train'}"
        case act.Dividend():
            return f"{who} {'pays out' if action.kind == 'payout' else 'withholds'}"
        case act.BuyTrain():
            return f"{who} buys train {action.train} for ${action.price}"
        case act.EndTurn():
            return f"{who} ends its turn"
        case act.Bankrupt():
            return f"{who}'s president goes bankrupt"
    return f"{who}: {action.type}"


def _may_do(game: Game, reader: int | None) -> tuple[str, ...]:
    """The orders open to the reader now: his legal moves when it is his move
    (moves.py), else who is to move."""
    if game.ended:
        return ("The game is over.",)
    mover = game.to_move()
    if reader is None or mover != reader:
        return (f"Player {mover} is to move; you wait.",) if mover is not None else ()
    return tuple(legal_moves(game, reader).text().splitlines())


def _lay_views(game: Game, reader: int | None) -> tuple[LayView, ...]:
    if reader is None or game.ended:
        return ()
    by_hex: dict[str, list[str]] = {}
    costs: dict[str, int] = {}
    for lay in tile_lays(game, reader):
        rotations = ",".join(str(r) for r in lay.rotations)
        by_hex.setdefault(lay.hex, []).append(f"{lay.tile} r{rotations}")
        costs[lay.hex] = lay.cost
    printed = {h.hex: h.name for h in game.title.hexes}
    return tuple(
        LayView(
            hex=h,
            tiles=tuple(t),
            name=printed.get(h),
            cost=costs[h],
            upgrade=tile_number(game.hexes[h].tile),
        )
        for h, t in by_hex.items()
    )


def tile_number(tile: str | None) -> str | None:
    """The number of a tile on the map ("57" of its copy "57-1")."""
    return (tile.rpartition("-")[0] or tile) if tile else None


def build_report(
    game: Game,
    reader: int | None = None,
    actions: Sequence[act.Action] = (),
    since: int = 0,
    log: Sequence[str] | None = None,
) -> Report:
    """The position as `reader` sees it; `actions` are the moves applied so far
    (the log shows those from index `since` on), or `log` the log in words
    (story.py) since the reader's last move."""
    phase = game.title.phases[game.phase_index]
    market = tuple(
        tuple(
            MarketCell(
                price=cell.price,
                yellow=cell.yellow,
                par=cell.par,
                end=cell.end,
                companies=tuple(game.market.stacks.get((r, c), ())),
            )
            for c, cell in enumerate(row)
        )
        for r, row in enumerate(game.market.grid)
    )
    in_words = log is not None
    if log is None:
        log = tuple(
            f"{index + 1}. {describe(action)}"
            for index, action in enumerate(actions)
            if index >= since and action.type not in ("message", "log")
        )
    return Report(
        title=game.title.title,
        layout=game.title.layout,
        reader=str(reader) if reader is not None else None,
        round=game.round,
        operating_round=game.operating_round,
        set_number=game.set_number,
        phase=phase.name,
        train_limit=phase.train_limit,
        tiles=tuple(phase.tiles),
        to_move=_holder(game.to_move()),
        operating=game.operating_company(),
        ended=game.ended,
        end_reason=game.end_reason,
        bank=game.cash[BANK],
        certificate_limit=game.cert_limit,
        hexes=_hexes(game),
        market=market,
        companies=_companies(game),
        players=_players(game),
        privates=tuple(
            PrivateView(
                id=p.data.id,
                name=p.data.name,
                value=p.data.value,
                revenue=game.rules.private_revenue(p.data),
                owner=_holder(p.owner),
                closed=p.closed,
            )
            for p in game.privates.values()
        ),
        offers=_offers(game),
        trains_for_sale=_trains_for_sale(game),
        log_since=-1 if in_words else since,
        lays=_lay_views(game, reader),
        log=tuple(log),
        may_do=_may_do(game, reader),
    )


def since_last_move(game: Game, reader: int, actions: Sequence[act.Action]) -> int:
    """The index just after the reader's last move (his own actions and those
    of the companies he presides), so that his log shows what happened since."""
    mine = {c for c, s in game.companies.items() if s.president == reader}
    for index in range(len(actions) - 1, -1, -1):
        action = actions[index]
        if action.entity == reader or (
            action.entity_type == "corporation" and str(action.entity) in mine
        ):
            return index + 1
    return 0
