"""One 18xx game: state, and actions applied one at a time.

Rounds follow the rules' order: the private companies' sale, then stock rounds
and sets of operating rounds. A company's operating turn is the steps of 4.2 in
order (home token, track, token, run, dividend, trains, with private purchases
and abilities at any time); an action for a later step or for the next company
closes the steps it skips, as the rules would (a company that does not run
trains withholds, 4.2.4). Every dollar moves between the bank, the players and
the companies through `_pay`, so the total never changes.
"""

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.market import Market, parse_market
from turnproc.families.g18xx.engine.routes import (
    Link,
    Route,
    Stop,
    best_runs,
    build_links,
    enumerate_routes,
)
from turnproc.families.g18xx.engine.title import Hex, Node, Private, Title, TrainType
from turnproc.families.g18xx.engine.track import (
    HexState,
    chain_stops,
    neighbour,
    reachable_cities,
    reachable_hexes,
    rotate,
)

BANK = "bank"
IPO = "ipo"
POOL = "market"
Holder = int | str
BID_STEP = 5  # bids rise by at least $5 (3.1b, 3.1.1)
# the steps of an operating turn (4.2), in order; a pass ends the step the
# company is at, and a step with nothing the company could do is skipped
TRACK, TOKEN, ROUTE, DIVIDEND, TRAINS, PRIVATES, END = range(7)
TILE_ABILITIES = frozenset(("extra_yellow_tiles", "free_tile_lay"))
STEP_OF = {
    "lay_tile": TRACK,
    "place_token": TOKEN,
    "run_routes": ROUTE,
    "dividend": DIVIDEND,
    "buy_train": TRAINS,
}
# standing orders, notes and offers: actions outside the order of play
NOTES = frozenset(
    (
        "program_share_pass",
        "program_buy_shares",
        "program_disable",
        "program_close_pass",
        "log",
        "message",
        "offer_company",
    )
)


def printed_hex(h: Hex) -> HexState:
    """A hex as the map prints it, before any tile."""
    return HexState(
        name=h.hex,
        tile=None,
        tile_id=f"{h.hex}-0",
        colour=h.colour,
        rotation=0,
        nodes=h.nodes,
        track=h.track,
        tokens=[["neutral"] if h.neutral_token else [] for _ in h.nodes],
        cost=h.cost,
    )


def _exits(track: Iterable[tuple[object, object]], node: str) -> set[int]:
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


class ActionRefused(ValueError):
    """An action the rules do not allow now; the game is unchanged."""


@dataclass
class Cert:
    id: str
    company: str
    percent: int
    president: bool
    owner: Holder = IPO


@dataclass
class Train:
    id: str
    type: TrainType
    name: str
    price: int
    cities: int
    multiplier: int
    owner: str | None = None  # company id; None while in the bank
    rusted: bool = False
    sellable: bool = True
    discarded: bool = False  # in the bank's open market (4.2.5g)
    obsolete: bool = False  # runs once more, then leaves play (18GA 4.2.5.2)


@dataclass
class CompanyState:
    """A major company's charter."""

    id: str
    home: str
    token_costs: tuple[int, ...]
    par: int | None = None
    floated: bool = False
    president: int | None = None
    tokens_used: int = 0
    home_placed: bool = False
    route_bonus: dict[str, int] = field(default_factory=dict)  # hex -> extra revenue per run
    operated: bool = False
    home_city_chosen: bool = False


@dataclass
class PrivateState:
    data: Private
    owner: Holder | None = None
    closed: bool = False
    uses: int = 0


@dataclass
class Offer:
    """A standing offer for a private between its owner (`seller`) and a
    player or company (`buyer`), made by one of them (3.2b, 3.2c4, 4.2.6)."""

    private: str
    seller: Holder
    buyer: Holder
    price: int
    by: Holder


@dataclass
class Turn:
    """Where the operating company is in its turn."""

    company: str
    first: bool = False  # the company's first operating turn
    ran: bool = False
    revenue: int | None = None
    bank_trains: int = 0
    lays: list[bool] = field(default_factory=list)  # each normal tile lay: an upgrade?
    tokens: int = 0
    step: int = 0  # the step of 4.2 the turn has reached (TRACK ... PRIVATES, END)


@dataclass
class Auction:
    """A waterfall auction of the privates (3.1): the cheapest is bought at its
    price, the others take bids and are settled in order as the cheaper ones
    go; a private with several bids is auctioned among its bidders (3.1.1)."""

    unsold: list[str]
    price: dict[str, int]
    bids: dict[str, dict[int, int]] = field(default_factory=dict)
    contest: str | None = None
    passes: int = 0  # players in a row who passed in the stock round's turns
    next: int | None = None  # the player whose stock turn it is
    bidder: int | None = None  # the bidder to move in a contest
    contest_passes: int = 0  # bidders in a row who passed in the contest


class TitleRules:
    """A title's special rules; the defaults are the general 18xx ones."""

    def __init__(self, title: Title, options: dict[str, str]) -> None:
        self.title = title
        self.options = options

    def bank_cash(self) -> int:
        return self.title.bank

    def setup(self, game: "Game") -> None:
        """Hook after the game is laid out."""

    def private_revenue(self, private: Private) -> int:
        return private.revenue

    def start_operating_round(self, game: "Game") -> None:
        """Hook at the start of each operating round, before privates pay."""

    def private_sale_refusal(
        self, game: "Game", company: str, private: PrivateState, price: int
    ) -> str | None:
        """Companies buy privates in phases that allow it, at half to one and a
        half times face value."""
        if not game.title.phases[game.phase_index].companies_buy_privates:
            return f"companies may not buy private companies in phase {game.phase}"
        value = private.data.value
        low, high = (value + 1) // 2, value * 3 // 2
        if not low <= price <= high:
            return f"{private.data.id} sells for ${low} to ${high}"
        return None

    def after_private_bought(self, game: "Game", company: str, private: PrivateState) -> None:
        """Hook after a company buys a private."""

    def after_tile_laid(self, game: "Game", company: str, hex_name: str) -> None:
        """Hook after a tile lay is paid for."""

    def after_token_placed(self, game: "Game", company: str, hex_name: str) -> None:
        """Hook after a station token is placed and paid for."""

    def ability_lay_is_free(self, private: PrivateState) -> bool:
        return private.data.ability is not None and private.data.ability.free

    def train_discount(self, private: PrivateState) -> int:
        return private.data.ability.discount if private.data.ability else 0

    def president_assist(
        self, game: "Game", company: str, train: Train, price: int
    ) -> tuple[int, int]:
        """(amount the president adds, fee) when the title lets a president help."""
        return (0, 0)

    def loan_fee(self, debt: int) -> int:
        return 0

    def allows_loans(self) -> bool:
        """Whether a president short of cash for a forced train borrows from the bank."""
        return False

    def bank_trains_per_turn(self, game: "Game") -> int | None:
        """How many trains a company may buy from the bank in one turn (None: any)."""
        return 1 if game.title.phases[game.phase_index].one_bank_train else None

    def bankrupt_with_trains(self) -> bool:
        """Whether a president may go bankrupt when his company has a train
        but cannot pay for the cheapest one in the bank (the site's edition);
        by the rules only a forced purchase bankrupts (4.2.5.1)."""
        return False

    def share_goes_with_private(self) -> bool:
        """Whether a player who buys a private from another gets the share it
        came with again, wherever it is (the site's edition); by the rules the
        share is the first owner's own certificate."""
        return False

    def sales_agreed_off_record(self) -> bool:
        """Whether a private's sale between a player and another player or a
        company needs no standing offer: the site's logs record only the sale."""
        return False

    def used_cards_turn(self) -> bool:
        """Whether a two-sided train bought from another company may be turned
        to its other side (the site's edition)."""
        return False

    def privates_for_sale_in_phase(self, game: "Game") -> bool:
        """Whether the phase opens the sale of privates to companies in
        general (a sale the rules allow in one round only does not count)."""
        return game.title.phases[game.phase_index].companies_buy_privates

    def private_upgrades(self) -> bool:
        """Whether a private's extra tiles may be upgrades (the site's
        edition); by the rules they are yellow."""
        return False

    def lift_untracked_homes(self) -> bool:
        """Whether the first tile in a hex of several cities lifts the home
        stations placed before it, for their companies to choose again (the
        site's edition)."""
        return False

    def first_city_without_track(self) -> bool:
        """Whether a home of several cities with no track yet takes the first
        city without the president's choice (the site's edition)."""
        return False

    def after_run(self, game: "Game", company: str) -> None:
        """Hook after a company runs its trains."""

    def extra_homes(self, company: str) -> tuple[str, ...]:
        """Hexes where the company places a second home station with its first."""
        return ()

    def obsolete_not_rusted(self, train: str) -> bool:
        """Whether companies' trains of this name become obsolete (run once
        more) rather than leave play when they are made so."""
        return False

    def president_funds_used_train(self) -> bool:
        """4.2.5.2: a president's cash pays only for a train from the bank;
        True for the edition where it may pay for another company's train."""
        return False

    def president_sells_in_train_step(self) -> bool:
        """4.2.5.2: a president sells shares in the operating round only to
        pay for a train the company must buy; True for the edition where he
        may sell in the company's train step at will."""
        return False

    def lowest_bidder_moves(self) -> bool:
        """3.1.1: in a contest for a private the bidders move clockwise from
        the highest, and one who passed may bid again; True for the edition in
        which the lowest bidder moves and a pass leaves the contest."""
        return False

    def tile_lay_refusal(self, game: "Game", turn: Turn, upgrade: bool) -> str | None:
        """4.2.1: one tile lay or upgrade a turn."""
        return "one tile a turn (4.2b)" if turn.lays else None

    def private_sellers(self, game: "Game", company: str) -> set[Holder]:
        """Who may sell a private to the company: any player by default."""
        return set(game.players)

    def players_trade_privates(self, game: "Game") -> bool:
        """Whether players may sell privates to each other now (3.2b)."""
        return game.title.phases[game.phase_index].players_trade_privates

    def phase_changed(self, game: "Game") -> None:
        """Hook after the phase advances."""

    def first_train_bought(self, game: "Game", kind: TrainType) -> None:
        """Hook after the first train of a type leaves the bank."""

    def end_of_set(self, game: "Game") -> None:
        """Hook after a set of operating rounds, before the next stock round."""

    def last_operating_round(self) -> int | None:
        """The operating round that ends the game, if the title fixes one."""
        return self.title.last_operating_round

    def operating_rounds_in_set(self, game: "Game", rounds: int) -> int:
        """How many operating rounds follow the stock round just ended."""
        return rounds


class Game:
    """The live position of one game."""

    def __init__(self, title: Title, rules: TitleRules, players: list[int]) -> None:
        seats = title.players.get(str(len(players)))
        if seats is None:
            raise ActionRefused(f"{title.title} is for {', '.join(title.players)} players")
        self.title = title
        self.rules = rules
        self.players = list(players)
        self.cert_limit = seats.certificates
        self.cash: dict[Holder, int] = {BANK: rules.bank_cash()}
        self.total_cash = self.cash[BANK]
        for player in players:
            self.cash[player] = 0
            self.pay(BANK, player, seats.cash)
        self.market = Market(parse_market(title.market))
        self.companies: dict[str, CompanyState] = {}
        self.certs: dict[str, Cert] = {}
        self.holdings: dict[tuple[Holder, str], list[Cert]] = {}
        self.percent: dict[tuple[Holder, str], int] = {}
        for data in title.companies:
            self.companies[data.id] = CompanyState(
                data.id, data.home, data.tokens, home_city_chosen=data.home_city_chosen
            )
            self.cash[data.id] = 0
            for index in range(title.shares_per_company - 1):
                share = Cert(f"{data.id}_{index}", data.id, 20 if index == 0 else 10, index == 0)
                self.certs[share.id] = share
                self.holdings.setdefault((IPO, data.id), []).append(share)
            self.percent[(IPO, data.id)] = 100
        self.privates = {p.id: PrivateState(p) for p in title.privates}
        self.trains: list[Train] = []
        for kind in title.trains:
            for index in range(kind.count):
                self.trains.append(
                    Train(
                        f"{kind.name}-{index}",
                        kind,
                        kind.name,
                        kind.price,
                        kind.cities,
                        kind.multiplier,
                    )
                )
        self.phase_index = 0
        self.hexes = self._build_map()
        self.tiles_on_map: dict[str, str] = {}  # tile id -> hex
        self.round = "draft"  # "auction", "stock", "operating"
        self.operating_round = 0  # counts all operating rounds so far
        self.round_in_set = 0
        self.set_number = 0
        self.order: list[str] = []
        self.turn: Turn | None = None
        self.done: set[str] = set()
        self.ended = False
        self.end_reason: str | None = None
        self.flags: dict[str, bool] = {}
        self.sold_this_round: dict[int, set[str]] = {}
        self.priority = self.players[0]  # the priority deal
        self.stock_next = self.priority
        self.stock_passes = 0
        self.stock_last_actor: int | None = None
        self.stock_bought_this_turn = False
        self.stock_sold_this_turn = False
        self.map_version = 0
        self._links_cache: tuple[int, dict[Stop, list[Link]]] | None = None
        self.types_bought: set[str] = set()
        self.ors_in_set = title.operating_rounds_per_set
        self.end_pending: str | None = None
        self.bankrupt: set[int] = set()
        self.discards: list[str] = []  # companies over their train limit, in turn (4.2.5g)
        # home stations lifted by a first tile: (their company, the company
        # whose president chooses their city on the new tile)
        self.pending_homes: list[tuple[str, str]] = []
        self.offers: list[Offer] = []
        self.auction = Auction(
            [p.id for p in title.privates],
            {p.id: p.value for p in title.privates},
            next=self.priority,
        )
        if title.private_sale == "waterfall":
            self.round = "auction"
        # Replays of recorded games pay the revenue stored with each route, as
        # the site that recorded them does; differences from ours are kept.
        self.recorded_revenue_stands = False
        self.revenue_differences: list[tuple[int | None, str, int, int]] = []
        rules.setup(self)

    # --- the map -------------------------------------------------------------

    def _build_map(self) -> dict[str, HexState]:
        return {h.hex: printed_hex(h) for h in self.title.hexes if h.colour != "none"}

    @property
    def phase(self) -> str:
        return self.title.phases[self.phase_index].name

    def advance_phase(self, name: str) -> None:
        names = [p.name for p in self.title.phases]
        index = names.index(name)
        if index > self.phase_index:
            self.phase_index = index
            self.rules.phase_changed(self)

    def node_revenue(self, hex_name: str, index: int) -> int:
        revenue = self.hexes[hex_name].nodes[index].revenue
        if isinstance(revenue, int):
            return revenue
        for colour in reversed(self.title.phases[self.phase_index].tiles):
            if colour in revenue:
                return revenue[colour]
        return revenue["yellow"]

    # --- money and shares ----------------------------------------------------

    def pay(self, payer: Holder, payee: Holder, amount: int) -> None:
        """Move money; the only way money moves, so the total stays the same."""
        if amount < 0:
            raise ActionRefused(f"negative payment {amount}")
        self.cash[payer] -= amount
        self.cash[payee] = self.cash.get(payee, 0) + amount

    def money_is_conserved(self) -> bool:
        return sum(self.cash.values()) == self.total_cash

    def percent_of(self, holder: Holder, company: str) -> int:
        return self.percent.get((holder, company), 0)

    def shares_of(self, holder: Holder, company: str) -> list[Cert]:
        return self.holdings.setdefault((holder, company), [])

    def _move_cert(self, cert: Cert, to: Holder) -> None:
        self.holdings[(cert.owner, cert.company)].remove(cert)
        self.shares_of(to, cert.company).append(cert)
        cert.owner = to

    def _distance(self, a: int | None, b: int) -> int:
        if a is None:
            return 0
        ia, ib = self.players.index(a), self.players.index(b)
        return ib - ia if ia < ib else ib - (ia - len(self.players))

    def _transfer(self, certs: list[Cert], source: Holder, to: Holder, percent: int) -> None:
        """3.5: move certificates, then hand the presidency to the largest holder
        (ties go to the first clockwise from the outgoing president)."""
        company = certs[0].company
        state = self.companies[company]
        previous = state.president
        self.percent[(source, company)] = self.percent_of(source, company) - percent
        self.percent[(to, company)] = self.percent_of(to, company) + percent
        for cert in certs:
            self._move_cert(cert, to)
        best = max(self.percent_of(p, company) for p in self.players)
        leaders = [p for p in self.players if self.percent_of(p, company) == best]
        if previous in leaders:
            return
        able = [p for p in leaders if self.percent_of(p, company) >= 20]
        if not able:
            return
        president = min(able, key=lambda p: self._distance(previous, p))
        state.president = president
        if source == president or previous is None:
            return
        bundle_has_president = any(c.president for c in certs)
        top = next(c for c in self.certs.values() if c.company == company and c.president)
        if not bundle_has_president and top.owner != previous:
            return
        swap_to: Holder = previous if self.percent_of(previous, company) >= top.percent else POOL
        for cert in self.shares_of(president, company)[: top.percent // 10]:
            self._move_cert(cert, swap_to)
        self._move_cert(top, president)
        given = sum(c.percent for c in certs)
        for _ in range((given - percent) // 10):
            self._move_cert(self.shares_of(POOL, company)[0], source)

    def certificate_count(self, player: int) -> int:
        count = sum(1 for p in self.privates.values() if p.owner == player and not p.closed)
        for company in self.companies:
            if self.market.where.get(company) and self.market.cell(company).yellow:
                continue
            count += len(self.shares_of(player, company))
        return count

    # --- turn flow -------------------------------------------------------------

    def acting_company(self, action: act.Action) -> str | None:
        if action.entity_type == "corporation":
            return str(action.entity)
        if action.entity_type == "company":
            private = self.privates.get(str(action.entity))
            if private is None or not isinstance(private.owner, str):
                raise ActionRefused(f"{action.entity} is not owned by a company")
            return private.owner
        return None

    def apply(self, action: act.Action) -> None:
        """Apply one action and its recorded automatic follow-ups; a refused
        action leaves the game as it was."""
        snapshot = copy.deepcopy(
            self.__dict__, {id(self.title): self.title, id(self.rules): self.rules}
        )
        try:
            self.apply_unchecked(action)
        except ActionRefused:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    def apply_unchecked(self, action: act.Action) -> None:
        """Apply an action without keeping a copy to return to: for replays,
        which stop at the first refusal anyway."""
        if self.ended:
            raise ActionRefused("the game is over")
        handler = self._handlers().get(action.type)
        if handler is None:
            raise ActionRefused(f"{action.type} is not an 18xx move")
        if action.type not in NOTES:
            if self.pending_homes:
                self._check_pending_home(action)
            elif self.discards:
                self._check_discard(action)
            elif action.type == "discard_train":
                raise ActionRefused(
                    "no company is over its train limit; none discards at will (4.2.5)"
                )
            else:
                self._enter_round(action)
        handler(action)
        if (
            self.round == "operating"
            and self.turn is not None
            and action.entity_type == "corporation"
            and action.entity == self.turn.company
        ):
            self._track_step(action)
        self._check_end_triggers()
        for follow in action.auto_actions:
            self.apply_unchecked(follow)

    def _check_end_triggers(self) -> None:
        """A company at the top of the market or a broken bank ends the game
        with the operating round in progress."""
        if self.end_pending is not None or self.rules.last_operating_round():
            return
        if any(self.market.cell(c).end for c in self.market.where):
            self.end_pending = "stock_market"
        elif self.cash[BANK] < 0:
            self.end_pending = "bank"

    def _handlers(self) -> dict[str, Callable[[act.Action], None]]:
        return {
            "bid": self._bid,  # type: ignore[dict-item]
            "par": self._par,  # type: ignore[dict-item]
            "buy_shares": self._buy_shares,  # type: ignore[dict-item]
            "sell_shares": self._sell_shares,  # type: ignore[dict-item]
            "pass": self._pass,
            "bankrupt": self._bankrupt,  # type: ignore[dict-item]
            "end_turn": self._end_turn,
            "program_share_pass": self._nothing,
            "program_buy_shares": self._nothing,
            "program_disable": self._nothing,
            "program_close_pass": self._nothing,
            "log": self._nothing,
            "message": self._nothing,
            "buy_company": self._buy_company,  # type: ignore[dict-item]
            "offer_company": self._offer_company,  # type: ignore[dict-item]
            "sell_company": self._sell_company,  # type: ignore[dict-item]
            "lay_tile": self._lay_tile,  # type: ignore[dict-item]
            "place_token": self._place_token,  # type: ignore[dict-item]
            "run_routes": self._run_routes,  # type: ignore[dict-item]
            "dividend": self._dividend,  # type: ignore[dict-item]
            "buy_train": self._buy_train,  # type: ignore[dict-item]
            "discard_train": self._discard_train,  # type: ignore[dict-item]
        }

    def _nothing(self, action: act.Action) -> None:
        return None

    def _track_step(self, action: act.Action) -> None:
        """Where the operating company is in its turn after its action (4.2):
        a pass ends the step it is at; an action puts it at that action's
        step (after its one token or run, at the next); steps it could do
        nothing in are skipped, and past the last its turn is over."""
        turn = self.turn
        assert turn is not None
        step = STEP_OF.get(action.type)
        if action.type == "place_token" and not turn.tokens:
            step = None  # the home station, placed before the track (4.2a)
        if action.type == "pass":
            while turn.step < END and not self._step_open(turn.step):
                turn.step += 1
            turn.step += 1
        elif step is not None:
            turn.step = max(turn.step, step + (1 if step in (TOKEN, ROUTE, DIVIDEND) else 0))
        while turn.step < END and not self._step_open(turn.step):
            turn.step += 1
        if turn.step > DIVIDEND:
            self._pass_dividend_step()

    def _has_route(self, company: str) -> bool:
        """Whether track links one of the company's stations to another stop."""
        links = self._links()
        return any(
            links.get((h, i))
            for h, hex_state in self.hexes.items()
            for i, held in enumerate(hex_state.tokens)
            if company in held
        )

    def _step_open(self, step: int) -> bool:
        """Whether the operating company could still act in this step of its
        turn (what a player would be asked for, so a pass may end it)."""
        turn = self.turn
        assert turn is not None
        company = turn.company
        state = self.companies[company]
        cash = self.cash[company]
        if step == TRACK:
            # a private the company owns or could buy may still lay a tile
            return (
                any(self.rules.tile_lay_refusal(self, turn, u) is None for u in (False, True))
                or any(
                    p.owner == company and not p.closed and p.uses < p.data.ability.count
                    for p in self.privates.values()
                    if p.data.ability is not None and p.data.ability.kind in TILE_ABILITIES
                )
                or (
                    self.rules.privates_for_sale_in_phase(self)
                    and self._may_buy_private(company, TILE_ABILITIES)
                )
            )
        if step == TOKEN:
            if turn.tokens or not state.home_placed or state.tokens_used >= len(state.token_costs):
                return False
            if any(
                p.owner == company
                and not p.closed
                and p.data.ability is not None
                and p.data.ability.kind == "free_token"
                and p.uses < p.data.ability.count
                and any(
                    n.kind == "city"
                    and len(self.hexes[h].tokens[i]) < n.slots
                    and company not in self.hexes[h].tokens[i]
                    for h in p.data.ability.hexes
                    for i, n in enumerate(self.hexes[h].nodes)
                )
                for p in self.privates.values()
            ):
                return True  # a private's free station may still go down
            if cash < state.token_costs[state.tokens_used]:
                return False
            # a circle is kept for each home station not yet placed (4.2.2)
            kept = [
                s.home
                for c, s in self.companies.items()
                if c != company
                and not s.home_placed
                and sum(1 for n in self.hexes[s.home].nodes if n.kind == "city") == 1
            ]
            return any(
                self.hexes[h].nodes[i].kind == "city"
                and not any(company in held for held in self.hexes[h].tokens)
                and len(self.hexes[h].tokens[i]) + kept.count(h) < self.hexes[h].nodes[i].slots
                for h, i in self.reachable_cities(company)
            )
        if step == ROUTE:
            if turn.revenue is not None or turn.ran or not self.trains_of(company):
                return False
            return self._has_route(company)
        if step == DIVIDEND:
            return not turn.ran and bool(turn.revenue)
        if step == TRAINS:
            mine = self.trains_of(company)
            if self.trains_counted(company) >= self.train_limit():
                return False
            per_turn = self.rules.bank_trains_per_turn(self)
            discounts = [
                p
                for p in self.privates.values()
                if p.owner == company
                and not p.closed
                and p.data.ability is not None
                and p.data.ability.kind == "train_discount"
            ]
            bank = [
                t.price
                - max(
                    (
                        self.rules.train_discount(p)
                        for p in discounts
                        if p.data.ability is not None and t.name in p.data.ability.trains
                    ),
                    default=0,
                )
                for t in self.available_trains()
                if per_turn is None or turn.bank_trains < per_turn
            ]
            if bank and cash >= min(bank):
                return True
            if cash >= 1 and any(
                t.sellable and t.owner != company and t.owner is not None and not t.rusted
                for t in self.trains
            ):
                return True
            # 4.2.5.2: a company with a route and no train must buy one
            return not mine and bool(self.available_trains()) and self._has_route(company)
        if step == PRIVATES:
            # also open while a private it owns has an ability left to use at
            # any time of the turn
            for_sale = self.rules.privates_for_sale_in_phase(self)
            return (for_sale and self._may_buy_private(company)) or any(
                p.owner == company and not p.closed and p.uses < p.data.ability.count
                for p in self.privates.values()
                if p.data.ability is not None and p.data.ability.any_time
            )
        return False

    def _may_buy_private(self, company: str, kinds: frozenset[str] | None = None) -> bool:
        """Whether the company could buy a private now (of these abilities)."""
        sellers = self.rules.private_sellers(self, company)
        cash = self.cash[company]
        for private in self.privates.values():
            if private.closed or private.owner not in sellers:
                continue
            ability = private.data.ability
            if kinds is not None and (ability is None or ability.kind not in kinds):
                continue
            value = private.data.value
            for price in sorted({value // 2, (value + 1) // 2, value}):
                if price <= cash and not self.rules.private_sale_refusal(
                    self, company, private, price
                ):
                    return True
        return False

    def _pass(self, action: act.Action) -> None:
        if self.round == "auction":
            self._auction_pass(self._player(action))
        elif self.round == "stock":
            self._stock_turn_done(self._player(action), passed=True)

    def _after(self, player: int) -> int:
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def to_move(self) -> int | None:
        """The player whose move it is in a stock round or the privates' sale
        (in a contest for a private, the bidder to move), or the president of
        the company operating."""
        if self.ended:
            return None
        if self.pending_homes:
            return self.companies[self.pending_homes[0][1]].president
        if self.discards:
            return self.companies[self.discards[0]].president
        if self.round == "stock":
            return self.stock_next
        if self.round == "auction":
            if self.auction.contest is not None:
                return self.auction.bidder
            return self.auction.next
        if self.round == "draft":
            bought = sum(1 for p in self.privates.values() if p.owner is not None)
            return self.players[len(self.players) - 1 - bought]
        if self.round == "operating":
            if self.turn is not None:
                return self.companies[self.turn.company].president
            waiting = [c for c in self.order if c not in self.done]
            if waiting:
                return self.companies[waiting[0]].president
        return None

    def operating_company(self) -> str | None:
        """The company operating now, or the next to operate in this round."""
        if self.round != "operating":
            return None
        if self.turn is not None:
            return self.turn.company
        waiting = [c for c in self.order if c not in self.done]
        return waiting[0] if waiting else None

    def _end_turn(self, action: act.Action) -> None:
        """The president ends the company's turn; the round or set moves on
        when it was the last company."""
        self._current(action)
        self._finish_turn()
        if [c for c in self.order if c not in self.done]:
            return
        if self.round_in_set < self.ors_in_set:
            self._close_operating_round()
            if not self.ended:
                self._start_operating_round()
            return
        self._finish_operating_round()
        if not self.ended:
            self._start_stock_round()

    def _stock_turn_done(self, player: int, passed: bool) -> None:
        """A pass ends a stock turn; so does a buy, unless the player may still
        sell (3.2: one buy, before or after all sales). The round's last
        actor's left-hand neighbour gets the priority deal (3.6)."""
        if passed and not (self.stock_bought_this_turn or self.stock_sold_this_turn):
            self.stock_passes += 1
        elif passed:
            # ending a turn in which he bought or sold is no pass (3.6)
            self.stock_passes = 0
        else:
            self.stock_passes = 0
            self.stock_last_actor = player
            if not self.stock_sold_this_turn and self._may_sell_any(player):
                self.stock_bought_this_turn = True
                return
        self.stock_next = self._after(player)
        self.stock_bought_this_turn = False
        self.stock_sold_this_turn = False
        self._pass_idle_players()

    def _pass_idle_players(self) -> None:
        """A player who can neither buy nor sell passes without being asked;
        when everyone has passed in a row the operating rounds begin (3.6)."""
        for _ in self.players:
            if self._can_act_in_stock(self.stock_next) or self.stock_passes >= len(self.players):
                break
            self.stock_passes += 1
            self.stock_next = self._after(self.stock_next)
        if self.stock_passes >= len(self.players) and self.round == "stock":
            self._end_stock_round()
            self._start_operating_round()

    def _can_act_in_stock(self, player: int) -> bool:
        return self._may_sell_any(player) or self._may_buy_any(player)

    def _may_buy_any(self, player: int) -> bool:
        """Whether the player could buy a certificate or a private now (3.2)."""
        cash = self.cash[player]
        trade = self.rules.players_trade_privates(self)
        if (
            cash > 0
            and trade
            and any(
                isinstance(p.owner, int) and p.owner != player and not p.closed
                for p in self.privates.values()
            )
        ):
            # another player's private may be bought for any amount
            return True
        if trade and any(
            o.seller == player and isinstance(o.buyer, int) for o in self.offers_to(player)
        ):
            # a player's offer for one of his privates may be taken up
            return True
        full = self.certificate_count(player) >= self.cert_limit
        for company, state in self.companies.items():
            if company in self.sold_this_round.get(player, set()):
                continue
            if state.par is None:
                if not full and 2 * min(self.title.par_prices) <= cash:
                    return True
                continue
            yellow = self.market.cell(company).yellow
            if (full and not yellow) or (
                self.percent_of(player, company) + 10 > self.title.holding_limit_percent
                and not yellow
            ):
                continue
            if any(not c.president for c in self.shares_of(IPO, company)) and state.par <= cash:
                return True
            if self.shares_of(POOL, company) and self.market.price(company) <= cash:
                return True
        return False

    def _may_sell_any(self, player: int) -> bool:
        if self.set_number == 0:
            return False
        for company, state in self.companies.items():
            own = self.percent_of(player, company)
            if not own or state.par is None:
                continue
            if self.percent_of(POOL, company) + 10 > self.title.market_pool_limit_percent:
                continue
            others = max(self.percent_of(p, company) for p in self.players if p != player)
            if state.president != player or own - 10 >= 20 or others >= 20:
                return True
        return False

    def _enter_round(self, action: act.Action) -> None:
        company = self.acting_company(action)
        if self.round == "draft":
            if company is not None or action.type != "bid":
                raise ActionRefused("each player first buys one private company (3.1)")
            return
        if self.round == "auction":
            if company is not None or action.type not in ("bid", "pass"):
                raise ActionRefused("the private companies are being auctioned")
            player, due = self._player(action), self.to_move()
            if player != due:
                if self.auction.contest is not None:
                    raise ActionRefused(
                        f"{self.auction.contest} is being auctioned: it is bidder {due}'s"
                        f" turn, not {player}'s (3.1.1)"
                    )
                raise ActionRefused(f"it is player {due}'s turn, not {player}'s (3.1)")
            return
        if self.round == "stock":
            if company is None:
                if action.type in (
                    "buy_shares",
                    "par",
                    "sell_shares",
                    "pass",
                    "buy_company",
                    "sell_company",
                ):
                    player = self._player(action)
                    if player != self.stock_next:
                        raise ActionRefused(
                            f"it is player {self.stock_next}'s turn, not {player}'s"
                        )
                return
            raise ActionRefused(f"the stock round goes on: player {self.stock_next} is to move")
        if company is None:
            if action.type == "sell_shares" and self._raising_cash(int(action.entity)):
                operating = self.operating_company()
                assert operating is not None
                self._advance_to(operating)
                return
            self._finish_operating_round()
            if self.ended:
                raise ActionRefused("the game is over")
            self._start_stock_round()
            return
        if action.type == "end_turn" and self.turn is not None and self.turn.company == company:
            return  # the president ends the turn in progress, over or not
        step = STEP_OF.get(action.type) if action.entity_type == "corporation" else None
        self._advance_to(company, step)

    def _raising_cash(self, player: int) -> bool:
        """4.2.5.2d: the operating company's president sells to buy a train
        (also as the first thing of its turn, once the one before has ended)."""
        company = self.operating_company()
        if company is None or self.companies[company].president != player:
            return False
        turn = self.turn
        if turn is not None and turn.company == company and turn.step >= END:
            return False  # its turn is over: a sale now is a stock round's
        if not self.trains_of(company):
            return True
        return (
            turn is not None
            and turn.company == company
            and (self.rules.president_sells_in_train_step())
        )

    def _start_stock_round(self) -> None:
        self.round = "stock"
        self.sold_this_round = {p: set() for p in self.players}
        self.stock_next = self.priority
        self.stock_passes = 0
        self.stock_last_actor = None
        self.stock_bought_this_turn = False
        self.stock_sold_this_turn = False
        self._pass_idle_players()

    def _end_stock_round(self) -> None:
        """3.6: companies all in players' hands move up, highest price first."""
        if self.stock_last_actor is not None:
            self.priority = self._after(self.stock_last_actor)
        sold_out = [
            c
            for c, s in self.companies.items()
            if s.par is not None and sum(self.percent_of(p, c) for p in self.players) >= 100
        ]
        for company in sorted(sold_out, key=self.market.order_key):
            self.market.move_up(company)
        self.ors_in_set = self.rules.operating_rounds_in_set(
            self,
            self.title.phases[self.phase_index].operating_rounds
            or self.title.operating_rounds_per_set,
        )

    def _start_operating_round(self) -> None:
        if self.round == "stock":
            self.set_number += 1
            self.round_in_set = 0
        self.round = "operating"
        self.operating_round += 1
        self.round_in_set += 1
        self.rules.start_operating_round(self)
        for private in self.privates.values():
            if private.owner is not None and not private.closed:
                self.pay(BANK, private.owner, self.rules.private_revenue(private.data))
        floated = [c for c, s in self.companies.items() if s.floated]
        self.order = sorted(floated, key=self.market.order_key)
        self.done = set()
        self.turn = None
        if not self.order:
            # 4: with no company floated the round is its privates' revenue
            # alone; the next round of the set, or the stock round, follows
            self._close_operating_round()
            if self.ended:
                return
            if self.round_in_set < self.ors_in_set:
                self._start_operating_round()
            else:
                self.rules.end_of_set(self)
                self._start_stock_round()

    def _reorder_waiting(self) -> None:
        """4b: the companies still to operate go in order of their market
        value as it is now (a sale during the round can change it)."""
        current = self.turn.company if self.turn is not None else None
        settled = [c for c in self.order if c in self.done or c == current]
        waiting = [c for c in self.order if c not in settled]
        self.order = settled + sorted(waiting, key=self.market.order_key)

    def _begin_turn(self, company: str) -> None:
        state = self.companies[company]
        self.turn = Turn(company, first=not state.operated)
        untracked = not self.hexes[state.home].track and self.rules.first_city_without_track()
        if not state.home_placed and (not state.home_city_chosen or untracked):
            self._place_home(company)

    def _place_home(self, company: str) -> None:
        state = self.companies[company]
        for home in (state.home, *self.rules.extra_homes(company)):
            hex_state = self.hexes[home]
            index = next(i for i, n in enumerate(hex_state.nodes) if n.kind == "city")
            hex_state.tokens[index].append(company)
            state.tokens_used += 1
        state.home_placed = True

    def _pass_dividend_step(self) -> None:
        """4.2.4: a company that runs no train withholds nothing and moves left,
        as soon as its turn goes past the dividend step."""
        if self.turn is not None and not self.turn.ran:
            self.turn.ran = True
            self._retire_obsolete(self.turn.company)
            self.market.move_left(self.turn.company)

    def _finish_turn(self) -> None:
        if self.turn is None:
            return
        self._pass_dividend_step()
        self.companies[self.turn.company].operated = True
        self.done.add(self.turn.company)
        self.turn = None

    def _advance_to(self, company: str, step: int | None = None) -> None:
        """Begin the company's turn unless it is operating. The company last
        in one round and first in the next starts its new turn when its
        current one is over (4.2) or the action belongs to a step it is past."""
        turn = self.turn
        if turn is not None and turn.company == company:
            others = [c for c in self.order if c not in self.done and c != company]
            over = turn.step >= END or (step is not None and step < turn.step)
            if others or not over or self.round_in_set >= self.ors_in_set:
                return
        if company not in self.order:
            raise ActionRefused(f"{company} does not operate in this round")
        while True:
            if self.turn is not None:
                self._finish_turn()
            waiting = [c for c in self.order if c not in self.done]
            if company in waiting:
                if waiting[0] != company:
                    raise ActionRefused(f"{waiting[0]} operates before {company} (4b)")
                self._begin_turn(company)
                return
            if waiting:
                raise ActionRefused(f"{waiting[0]} has not operated yet in this round")
            if self.round_in_set >= self.ors_in_set:
                # the set is over; a stock round in which no one can move
                # passes at once (3.6) and the next set begins
                self._finish_operating_round()
                if self.ended:
                    raise ActionRefused("the game is over")
                self._start_stock_round()
                if self.round != "operating":
                    raise ActionRefused(f"{company} has already operated in this set of rounds")
            else:
                self._close_operating_round()
                if self.ended:
                    raise ActionRefused("the game is over")
                self._start_operating_round()
            if company not in self.order:
                raise ActionRefused(f"{company} does not operate in this round")

    def _close_operating_round(self) -> None:
        current = self.turn.company if self.turn is not None else None
        idle = [c for c in self.order if c not in self.done and c != current]
        if idle:
            raise ActionRefused(f"{idle[0]} has not operated yet in this round")
        self._finish_turn()
        for rule in self.title.obsolete_after_operating_round:
            if rule.round == self.operating_round:
                self._rust(rule.train, rule.salvage)
        last = self.rules.last_operating_round()
        if last and self.operating_round >= last:
            self.ended = True
            self.end_reason = self.title.end_reason
        elif self.end_pending is not None:
            self.ended = True
            self.end_reason = self.end_pending

    def _finish_operating_round(self) -> None:
        """Close the current round and, at the end of a set, the set itself."""
        if self.round != "operating":
            return
        self._close_operating_round()
        if not self.ended and self.round_in_set < self.ors_in_set:
            raise ActionRefused("a stock move during a set of operating rounds")
        if not self.ended:
            self.rules.end_of_set(self)

    def finish(self) -> None:
        """End a replay: close the operating round in progress once every
        company has operated (a game ending with it is over)."""
        if self.round != "operating" or self.ended:
            return
        current = self.turn.company if self.turn is not None else None
        if all(c in self.done or c == current for c in self.order):
            self._close_operating_round()

    def _rust(self, name: str, salvage: int) -> None:
        for train in self.trains:
            if train.name == name and not train.rusted:
                if train.owner is not None and train.owner in self.companies:
                    self.pay(BANK, train.owner, salvage)
                train.rusted = True
                train.owner = None

    # --- the private companies' sale and stock rounds --------------------------

    def _player(self, action: act.Action) -> int:
        if (
            action.entity_type != "player"
            or not isinstance(action.entity, int)
            or action.entity not in self.players
        ):
            raise ActionRefused(f"{action.entity} is not a player in this game")
        return action.entity

    def _bid(self, action: act.Bid) -> None:
        """3.1: each player buys one private at its list price."""
        if self.round == "auction":
            self._auction_bid(self._player(action), action.company, action.price)
            return
        player = self._player(action)
        private = self.privates.get(action.company)
        if private is None or private.owner is not None:
            raise ActionRefused(f"{action.company} is not for sale")
        if any(p.owner == player for p in self.privates.values()):
            raise ActionRefused("each player buys exactly one private company")
        bought = sum(1 for p in self.privates.values() if p.owner is not None)
        due = self.players[len(self.players) - 1 - bought]
        if player != due:
            # 3.1: counter-clockwise from the player to the right of the priority holder
            raise ActionRefused(f"it is player {due}'s turn to buy a private")
        if action.price != private.data.value:
            raise ActionRefused(f"{action.company} costs ${private.data.value}")
        self._spend(player, action.price)
        self.pay(player, BANK, action.price)
        private.owner = player
        self.priority = player  # the last to buy holds the priority deal (3.1)
        if all(any(p.owner == pl for p in self.privates.values()) for pl in self.players):
            for other in self.privates.values():
                if other.owner is None:
                    other.closed = True
            self._start_stock_round()

    def _auction_bid(self, player: int, company: str, price: int) -> None:
        """3.1a: buy the cheapest private at its price (its bids and those on
        the next ones are then settled), or 3.1b: bid at least $5 over the last
        bid (or the par value) on another; 3.1.1: raise in a contest."""
        auction = self.auction
        if company not in auction.unsold:
            raise ActionRefused(f"{company} is not for sale")
        bids = auction.bids.setdefault(company, {})
        if auction.contest is not None:
            if company != auction.contest:
                raise ActionRefused(f"{auction.contest} is being auctioned between its bidders")
            least = max(bids.values()) + BID_STEP
            if price < least:
                raise ActionRefused(f"bid at least ${least} for {company} (3.1.1), or PASS")
            self._spend(player, price + self._committed(player, company))
            bids.pop(player, None)  # a raised bid goes to the end, as the newest
            bids[player] = price
            auction.contest_passes = 0
            auction.bidder = self._next_bidder(player)
            return
        auction.passes = 0
        if company == auction.unsold[0]:
            if price != auction.price[company]:
                raise ActionRefused(f"{company} is bought at ${auction.price[company]} (3.1a)")
            self._private_purchase(player, company, price)
            return
        least = max([auction.price[company], *bids.values()]) + BID_STEP
        if price < least:
            raise ActionRefused(
                f"bid at least ${least} for {company} (3.1b); {auction.unsold[0]} is bought"
                f" at ${auction.price[auction.unsold[0]]}"
            )
        self._spend(player, price + self._committed(player, company))
        bids[player] = price
        auction.next = self._after(player)

    def _private_purchase(self, player: int, company: str, price: int) -> None:
        """3.1a: the buyer takes the cheapest private; the turn passes to his
        left-hand neighbour once the auctions it sets off are over."""
        self._sell_private(company, player, price)
        self.auction.next = self.priority = self._after(player)
        self._settle_auction()

    def _committed(self, player: int, company: str) -> int:
        """What the player has set aside for bids on the other privates (3.1b)."""
        return sum(b.get(player, 0) for c, b in self.auction.bids.items() if c != company)

    def _next_bidder(self, player: int) -> int:
        """The next bidder clockwise in the contest (3.1.1); in the edition
        where the lowest bidder moves, he (the earliest of equal bids)."""
        auction = self.auction
        assert auction.contest is not None
        bidders = auction.bids[auction.contest]
        if self.rules.lowest_bidder_moves():
            return min(bidders, key=lambda p: bidders[p])
        start = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(start + step) % len(self.players)]
            if candidate in bidders:
                return candidate
        return player

    def _auction_pass(self, player: int) -> None:
        auction = self.auction
        if auction.contest is not None:
            # 3.1.1: the contest ends when all but the high bidder pass in a row
            bids = auction.bids[auction.contest]
            if self.rules.lowest_bidder_moves():
                # the passing bidder leaves the contest; the last one left wins
                del bids[player]
                if len(bids) > 1:
                    auction.bidder = self._next_bidder(player)
                    return
                auction.contest_passes = len(bids) - 1
            else:
                auction.contest_passes += 1
            if auction.contest_passes < len(bids) - 1:
                auction.bidder = self._next_bidder(player)
                return
            winner = max(bids, key=lambda p: bids[p])
            self._sell_private(auction.contest, winner, bids[winner])
            self._settle_auction()
            return
        auction.passes += 1
        auction.next = self._after(player)
        if auction.passes < len(self.players):
            return
        # 3.1.2: everyone passed in a row; the round ends
        auction.passes = 0
        first = self.title.privates[0].id
        if first not in auction.unsold:
            # the privates sold pay their revenue, as in an operating round (4a)
            for private in self.privates.values():
                if private.owner is not None and not private.closed:
                    self.pay(BANK, private.owner, self.rules.private_revenue(private.data))
            return
        # the first private gets $5 cheaper; free, the next player must take it
        auction.price[first] = max(0, auction.price[first] - BID_STEP)
        if auction.price[first] == 0:
            self._private_purchase(auction.next, first, 0)

    def _settle_auction(self) -> None:
        """Sell the cheapest privates in turn while they have bids: one bid
        wins outright, several start a contest (3.1.1)."""
        auction = self.auction
        auction.contest = None
        auction.bidder = None
        while auction.unsold:
            cheapest = auction.unsold[0]
            bids = auction.bids.get(cheapest, {})
            if not bids:
                return
            if len(bids) > 1:
                # 3.1.1: the bidders take turns from the one after the highest
                auction.contest = cheapest
                auction.contest_passes = 0
                auction.bidder = self._next_bidder(max(bids, key=lambda p: bids[p]))
                return
            ((winner, price),) = bids.items()
            self._sell_private(cheapest, winner, price)
        self._start_stock_round()

    def _sell_private(self, company: str, player: int, price: int) -> None:
        self._spend(player, price)
        self.pay(player, BANK, price)
        self.privates[company].owner = player
        self.auction.unsold.remove(company)
        self.auction.bids.pop(company, None)
        ability = self.privates[company].data.ability
        if ability is not None and ability.kind == "share" and ability.share:
            share = self._cert(ability.share)
            self._transfer([share], share.owner, player, share.percent)

    def _spend(self, player: int, amount: int) -> None:
        if self.cash[player] < amount:
            raise ActionRefused(f"costs ${amount}; cash is ${self.cash[player]}")

    def _par(self, action: act.Par) -> None:
        """3.2c1: buy the president's certificate and set the par value."""
        player = self._player(action)
        state = self.companies.get(action.corporation)
        if state is None or state.par is not None:
            raise ActionRefused(f"{action.corporation} cannot be started")
        try:
            price, row, col = (int(x) for x in action.share_price.split(","))
        except ValueError:
            raise ActionRefused(f"bad par value {action.share_price!r}") from None
        cell = (
            self.market.grid[row][col]
            if 0 <= row < len(self.market.grid) and 0 <= col < len(self.market.grid[row])
            else None
        )
        if (
            cell is None
            or not cell.par
            or cell.price != price
            or price not in self.title.par_prices
        ):
            raise ActionRefused(
                f"par values are {', '.join(f'${p}' for p in self.title.par_prices)}"
            )
        self._check_buy_limits(player, action.corporation, 20)
        self._spend(player, 2 * price)
        state.par = price
        self.market.place(action.corporation, row, col)
        top = self.certs[f"{action.corporation}_0"]
        self.pay(player, BANK, 2 * price)
        self._transfer([top], IPO, player, top.percent)
        state.president = player
        self._stock_turn_done(player, passed=False)

    def _check_buy_limits(self, player: int, company: str, percent: int) -> None:
        if self.round == "stock" and self.stock_bought_this_turn:
            # 3.2: one purchase a turn; a player who bought may still sell
            raise ActionRefused("one certificate bought a turn (3.2); sell or PASS")
        if company in self.sold_this_round.get(player, set()):
            raise ActionRefused(f"no buying {company} after selling it this round (3.2)")
        yellow = self.market.where.get(company) is not None and self.market.cell(company).yellow
        if (
            self.percent_of(player, company) + percent > self.title.holding_limit_percent
            and not yellow
        ):
            raise ActionRefused(
                f"no player may hold more than {self.title.holding_limit_percent}% (3.3a)"
            )
        if not yellow and self.certificate_count(player) >= self.cert_limit:
            raise ActionRefused(f"certificate limit {self.cert_limit} reached (3.3b)")

    def _buy_shares(self, action: act.BuyShares) -> None:
        player = self._player(action)
        certs = [self._cert(s) for s in action.shares]
        company = certs[0].company
        source = certs[0].owner
        if source not in (IPO, POOL) or any(
            c.owner != source or c.company != company for c in certs
        ):
            raise ActionRefused(f"{', '.join(action.shares)} not for sale")
        state = self.companies[company]
        if state.par is None:
            raise ActionRefused(f"{company} has no par value yet")
        per_share = state.par if source == IPO else self.market.price(company)
        price = per_share * action.percent // 10
        self._check_buy_limits(player, company, action.percent)
        self._spend(player, price)
        self.pay(player, BANK, price)
        self._transfer(certs, source, player, action.percent)
        if not state.floated and self.percent_of(IPO, company) <= 100 - self.title.float_percent:
            state.floated = True
            self.pay(BANK, company, state.par * self.title.shares_per_company)
        self._stock_turn_done(player, passed=False)

    def _cert(self, share_id: str) -> Cert:
        cert = self.certs.get(share_id)
        if cert is None:
            raise ActionRefused(f"no share {share_id}")
        return cert

    def _sell_shares(self, action: act.SellShares) -> None:
        """3.2a: sell to the open market at the market value, then one row down per share."""
        player = self._player(action)
        certs = [self._cert(s) for s in action.shares]
        company = certs[0].company
        if any(c.owner != player or c.company != company for c in certs):
            raise ActionRefused(f"{', '.join(action.shares)} are not yours to sell")
        if (
            action.percent <= 0
            or action.percent > sum(c.percent for c in certs)
            or action.percent % 10
        ):
            raise ActionRefused(f"cannot sell {action.percent}%")
        if self.round == "stock" and self.set_number == 0:
            raise ActionRefused("no selling in the first stock round (3.2a1)")
        if self.percent_of(POOL, company) + action.percent > self.title.market_pool_limit_percent:
            raise ActionRefused(
                f"the open market may hold at most {self.title.market_pool_limit_percent}% (3.2a2)"
            )
        if self.round == "operating":
            self._pass_dividend_step()
        self._sell_bundle(player, certs, action.percent)
        if self.round == "operating":
            self._reorder_waiting()

    def _sell_bundle(self, player: int, certs: list[Cert], percent: int) -> None:
        company = certs[0].company
        price = self.market.price(company) * percent // 10
        self.pay(BANK, player, price)
        self._transfer(certs, player, POOL, percent)
        if self.round == "stock":
            self.sold_this_round[player].add(company)
            self.stock_passes = 0
            self.stock_last_actor = player
            self.stock_sold_this_turn = True
            # a player left with nothing more to do in his turn is passed on
            # without being asked
            if not self._may_sell_any(player) and (
                self.stock_bought_this_turn or not self._may_buy_any(player)
            ):
                self._stock_turn_done(player, passed=False)
        for _ in range(percent // 10):
            self.market.move_down(company)

    # --- operating rounds ---------------------------------------------------------

    def trains_of(self, company: str) -> list[Train]:
        return [t for t in self.trains if t.owner == company and not t.rusted]

    def trains_counted(self, company: str) -> int:
        """The company's trains that count against the limit: not obsolete ones."""
        return sum(1 for t in self.trains_of(company) if not t.obsolete)

    def _retire_obsolete(self, company: str) -> None:
        """Obsolete trains leave play once the company has run them (or let
        its run pass)."""
        for train in self.trains_of(company):
            if train.obsolete:
                train.rusted = True
                train.owner = None

    def _current(self, action: act.Action) -> str:
        company = self.acting_company(action)
        if company is None or self.turn is None or self.turn.company != company:
            raise ActionRefused(f"it is not {action.entity}'s turn")
        return company

    def _buy_company(self, action: act.BuyCompany) -> None:
        """4.2g: a company buys a private from its president (or, where the
        title lets it, from another player who offered it); 3.2c4: a player
        buys one another player offered him."""
        if action.entity_type == "player":
            self._player_buys_private(action)
            return
        company = self._current(action)
        private = self.privates.get(action.company)
        sellers = self.rules.private_sellers(self, company)
        if private is None or private.closed or private.owner not in sellers:
            raise ActionRefused(f"{action.company} is not for sale to {company}")
        reason = self.rules.private_sale_refusal(self, company, private, action.price)
        if reason:
            raise ActionRefused(reason)
        if self.cash[company] < action.price:
            raise ActionRefused(f"{company} has ${self.cash[company]}")
        seller = private.owner
        assert seller is not None
        if seller != self.companies[company].president:
            # the seller is not the buyer's president: he must have agreed
            self._agreed(private.data.id, seller, company, action.price, seller)
        self._trade_private(private, seller, company, action.price)
        self.rules.after_private_bought(self, company, private)

    def _trade_private(
        self, private: PrivateState, seller: Holder, buyer: Holder, price: int
    ) -> None:
        self.pay(buyer, seller, price)
        private.owner = buyer
        self.offers = [o for o in self.offers if o.private != private.data.id]

    def offers_to(self, holder: Holder) -> list[Offer]:
        """The standing offers this player or company may take up."""
        return [
            o
            for o in self.offers
            if holder in (o.seller, o.buyer)
            and o.by != holder
            and not self.privates[o.private].closed
        ]

    def _agreed(self, private: str, seller: Holder, buyer: Holder, price: int, by: Holder) -> None:
        """Refuse a sale the other side has not offered (3.2b: a price the two
        agree); in a log of the site, which records only the sale, the two
        agreed off the record."""
        if self.rules.sales_agreed_off_record():
            return
        for offer in self.offers:
            if (offer.private, offer.seller, offer.buyer, offer.price, offer.by) == (
                private,
                seller,
                buyer,
                price,
                by,
            ):
                return
        standing = [
            f"{o.private} for ${o.price} from {o.by}"
            for o in self.offers_to(buyer if by == seller else seller)
            if o.private == private
        ]
        what = "offered" if by == seller else "offered to buy"
        raise ActionRefused(
            f"{by} has not {what} {private} for ${price} (3.2b: a price both agree);"
            f" standing offers: {', '.join(standing) or 'none'}"
        )

    def _trade_refusal(self, private: PrivateState | None, name: str) -> str | None:
        if not self.rules.players_trade_privates(self):
            return "players may not sell private companies to each other now"
        if self.round != "stock":
            return "players sell private companies to each other in stock rounds (3.2b)"
        if private is None or private.closed or not isinstance(private.owner, int):
            return f"{name} is not a private company owned by a player"
        return None

    def _player_buys_private(self, action: act.BuyCompany) -> None:
        """3.2c4: the buyer's one purchase of the turn, at the price the owner
        offered him."""
        player = self._player(action)
        private = self.privates.get(action.company)
        reason = self._trade_refusal(private, action.company)
        if reason:
            raise ActionRefused(reason)
        assert private is not None and private.owner is not None
        seller = private.owner
        if seller == player:
            raise ActionRefused(f"{action.company} is yours already")
        self._check_private_buyer(player, action.price)
        self._agreed(action.company, seller, player, action.price, seller)
        self._trade_private(private, seller, player, action.price)
        ability = private.data.ability
        if ability is not None and ability.share and self.rules.share_goes_with_private():
            share = self._cert(ability.share)
            if share.owner != player:
                self._transfer([share], share.owner, player, share.percent)
        self._stock_turn_done(player, passed=False)

    def _check_private_buyer(self, player: int, price: int) -> None:
        if self.round == "stock" and self.stock_bought_this_turn and self.stock_next == player:
            raise ActionRefused("one certificate bought a turn (3.2); sell or PASS")
        if self.certificate_count(player) >= self.cert_limit:
            raise ActionRefused(
                f"player {player} is at the certificate limit {self.cert_limit} (3.3c)"
            )
        if price < 1:
            raise ActionRefused("a private sells for at least $1 (3.2b)")
        if self.cash[player] < price:
            raise ActionRefused(f"player {player} has ${self.cash[player]}")

    def _sell_company(self, action: act.SellCompany) -> None:
        """3.2b: on his turn the owner sells a private to a player who offered
        to buy it; not a purchase, so his turn goes on."""
        player = self._player(action)
        private = self.privates.get(action.company)
        reason = self._trade_refusal(private, action.company)
        if reason:
            raise ActionRefused(reason)
        assert private is not None
        if private.owner != player:
            raise ActionRefused(f"{action.company} is not yours to sell")
        if action.to not in self.players or action.to == player:
            raise ActionRefused(f"{action.to} is not another player in this game")
        self._agreed(action.company, player, action.to, action.price, action.to)
        self._check_private_buyer(action.to, action.price)
        self._trade_private(private, player, action.to, action.price)
        self.stock_passes = 0
        self.stock_last_actor = player
        self.stock_sold_this_turn = True

    def _offer_company(self, action: act.OfferCompany) -> None:
        """An offer stands until taken up, withdrawn (price 0) or the private
        changes hands; a new offer between the same two replaces the old."""
        player = self._player(action)
        private = self.privates.get(action.company)
        if private is None or private.closed or not isinstance(private.owner, int):
            raise ActionRefused(f"{action.company} is not a private company owned by a player")
        if action.price == 0:
            self.offers = [
                o for o in self.offers if not (o.private == action.company and o.by == player)
            ]
            return
        to = action.to
        if private.owner == player:
            if to == player or (to not in self.players and to not in self.companies):
                raise ActionRefused("offer a private to another player or to a company")
            if to in self.players and not self.rules.players_trade_privates(self):
                raise ActionRefused("players may not sell private companies to each other now")
            if to in self.companies and player not in self.rules.private_sellers(self, str(to)):
                raise ActionRefused(f"{to} buys private companies only from its president")
            assert to is not None
            seller, buyer = player, to
        else:
            if to not in (None, private.owner):
                raise ActionRefused(f"{action.company} belongs to player {private.owner}")
            if not self.rules.players_trade_privates(self):
                raise ActionRefused("players may not sell private companies to each other now")
            seller, buyer = private.owner, player
        self.offers = [
            o
            for o in self.offers
            if (o.private, o.seller, o.buyer, o.by) != (action.company, seller, buyer, player)
        ]
        self.offers.append(Offer(action.company, seller, buyer, action.price, player))

    def _tile(self, tile_id: str) -> str:
        name, _, copy = tile_id.rpartition("-")
        tile = self.title.tiles.get(name)
        if tile is None or not copy.isdigit() or int(copy) >= tile.count:
            raise ActionRefused(f"no tile {tile_id}")
        if tile_id in self.tiles_on_map:
            raise ActionRefused(
                f"tile {tile_id} is already on the map at {self.tiles_on_map[tile_id]}"
            )
        return name

    def _lay_tile(self, action: act.LayTile) -> None:
        """4.2.1: lay or upgrade a tile; the first tile on a hex pays its terrain cost."""
        company = self._current(action)
        assert self.turn is not None
        private = None
        if action.entity_type == "company":
            private = self.privates[str(action.entity)]
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
        name = self._tile(action.tile)
        existing = self.hexes.get(action.hex)
        upgrade = existing is not None and existing.tile is not None
        if private is None:
            limit = self.rules.tile_lay_refusal(self, self.turn, upgrade)
            if limit is not None:
                raise ActionRefused(limit)
        reason, new_state = self.tile_refusal(company, action.hex, name, action.rotation, private)
        if reason is not None:
            rotations = self.legal_rotations(company, action.hex, name, private)
            if rotations and rotations != [action.rotation]:
                reason += f"; legal rotations of {name} on {action.hex}: {rotations}"
            raise ActionRefused(reason)
        assert new_state is not None
        hex_state = self.hexes[action.hex]
        free = private is not None and self.rules.ability_lay_is_free(private)
        cost = 0 if free else hex_state.cost
        if self.cash[company] < cost:
            raise ActionRefused(f"{company} cannot pay ${cost}")
        if private is not None:
            private.uses += 1
        else:
            self.turn.lays.append(upgrade)
        self.pay(company, BANK, cost)
        new_state.tile_id = action.tile
        if not hex_state.track and self.rules.lift_untracked_homes():
            self._lift_homes(new_state, company)
        if hex_state.tile is not None:
            del self.tiles_on_map[hex_state.tile_id]
        self.tiles_on_map[action.tile] = action.hex
        self.hexes[action.hex] = new_state
        self.map_version += 1
        self.rules.after_tile_laid(self, company, action.hex)

    def _lift_homes(self, new_state: HexState, chooser: str) -> None:
        """The first track in a hex of several cities: a home station placed
        there before any track is lifted, and the company that laid the tile
        chooses its city on the new tile at once (the site's edition)."""
        if sum(1 for n in new_state.nodes if n.kind == "city") < 2:
            return
        for held in new_state.tokens:
            for company in [c for c in held if c in self.companies]:
                held.remove(company)
                state = self.companies[company]
                state.home_placed = False
                state.tokens_used -= 1
                self.pending_homes.append((company, chooser))

    def legal_rotations(
        self, company: str, hex_name: str, name: str, private: PrivateState | None = None
    ) -> list[int]:
        return [
            r for r in range(6) if self.tile_refusal(company, hex_name, name, r, private)[0] is None
        ]

    def tile_refusal(
        self,
        company: str,
        hex_name: str,
        name: str,
        rotation: int,
        private: PrivateState | None = None,
    ) -> tuple[str | None, HexState | None]:
        """Why this tile may not go on this hex with this rotation (4.2.1), or
        None and the hex as it would be."""
        tile = self.title.tiles[name]
        hex_state = self.hexes.get(hex_name)
        if hex_state is None or hex_state.colour in ("red", "gray"):
            return f"no tile may be laid on {hex_name} (4.2.1c)", None
        if tile.colour not in self.title.phases[self.phase_index].tiles:
            return f"{tile.colour} tiles are not available in phase {self.phase}", None
        order = ["white", "yellow", "green", "brown", "gray"]
        if order.index(tile.colour) != order.index(hex_state.colour) + 1:
            return f"a {tile.colour} tile cannot replace a {hex_state.colour} one (4.2.1c)", None
        if private is not None and tile.colour != "yellow" and not self.rules.private_upgrades():
            return "the private lays yellow tiles only", None
        blocker = self.blocking_private(hex_name)
        if blocker is not None:
            return (
                f"{hex_name} is the home of {blocker.data.id} ({blocker.data.name}): no tile until"
                f" a company buys it from player {blocker.owner} or it closes (4.2.1k)",
                None,
            )
        only = self.title.only_upgrades.get(hex_name, {}).get(hex_state.colour)
        if only is not None and name not in only:
            return f"{hex_name} takes only tile {', '.join(only)}", None
        if tile.label and not any(
            name in names for names in self.title.only_upgrades.get(hex_name, {}).values()
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
            other = neighbour(hex_name, edge, self.title.layout)
            there = self.hexes.get(other)
            if there is None or (
                there.colour in ("red", "gray") and (edge + 3) % 6 not in there.edges()
            ):
                return (
                    f"tile {name} rotation {rotation} runs off the map or into a blank side"
                    " (4.2.1i)",
                    None,
                )
        needs_link = not (
            private is not None
            and private.data.ability
            and private.data.ability.kind == "free_tile_lay"
        )
        if needs_link and hex_name != self.companies[company].home:
            trial = dict(self.hexes)
            trial[hex_name] = new_state
            stations = [
                (h, i)
                for h, state in trial.items()
                for i, held in enumerate(state.tokens)
                if company in held
            ]
            if hex_name not in reachable_hexes(trial, self.title.layout, company, stations):
                return (
                    f"tile {name} rotation {rotation} on {hex_name} does not connect to a"
                    f" {company} station (4.2.1j)",
                    None,
                )
        return None, new_state

    def blocking_private(self, hex_name: str) -> PrivateState | None:
        """The private owned by a player whose home this hex is (4.2.1k)."""
        for private in self.privates.values():
            if (
                private.data.home == hex_name
                and isinstance(private.owner, int)
                and not private.closed
            ):
                return private
        return None

    def reachable(self, company: str) -> set[str]:
        homes = [
            (name, i)
            for name, h in self.hexes.items()
            for i, held in enumerate(h.tokens)
            if company in held
        ]
        return reachable_hexes(self.hexes, self.title.layout, company, homes)

    def reachable_cities(self, company: str) -> set[tuple[str, int]]:
        """The stops (hex, node index) the company's track reaches (4.2.2a)."""
        stations = [
            (name, i)
            for name, h in self.hexes.items()
            for i, held in enumerate(h.tokens)
            if company in held
        ]
        return reachable_cities(self.hexes, self.title.layout, company, stations)

    def _place_token(self, action: act.PlaceToken) -> None:
        """4.2.2: a station token in a free circle, $40 then $100."""
        choosing = (
            bool(self.pending_homes) and self.acting_company(action) == (self.pending_homes[0][1])
        )
        company = self.pending_homes[0][0] if choosing else self._current(action)
        state = self.companies[company]
        tile_id, _, index_text = action.city.rpartition("-")
        hex_name = next((h for h, s in self.hexes.items() if s.tile_id == tile_id), None)
        if hex_name is None or not index_text.isdigit():
            raise ActionRefused(f"no city {action.city} on the map")
        hex_state = self.hexes[hex_name]
        index = int(index_text)
        if index >= len(hex_state.nodes) or hex_state.nodes[index].kind != "city":
            raise ActionRefused(f"no city {action.city} on the map")
        if any(company in held for held in hex_state.tokens):
            raise ActionRefused(f"{company} already has a station in {hex_name} (4.2.2b)")
        single = sum(1 for n in hex_state.nodes if n.kind == "city") == 1
        kept = sum(
            1
            for c, s in self.companies.items()
            if c != company and s.home == hex_name and not s.home_placed and single
        )
        if len(hex_state.tokens[index]) + kept >= hex_state.nodes[index].slots:
            # 4.2.2: a circle is kept for each home station not yet placed
            raise ActionRefused(f"{action.city} is full" + (" (a home kept free)" if kept else ""))
        if state.tokens_used >= len(state.token_costs):
            raise ActionRefused(f"{company} has no station token left")
        cost = state.token_costs[state.tokens_used]
        home = hex_name == state.home and not state.home_placed
        assert self.turn is not None
        if not home and self.turn.tokens:
            raise ActionRefused("one station token a turn (4.2c)")
        free_token = False
        if action.entity_type == "company":
            private = self.privates[str(action.entity)]
            ability = private.data.ability
            free_token = ability is not None and ability.kind == "free_token"
            if (
                ability is None
                or ability.kind not in ("token_discount", "free_token")
                or private.uses >= ability.count
            ):
                raise ActionRefused(f"{action.entity} gives no token now")
            if ability.hexes and hex_name not in ability.hexes:
                raise ActionRefused(
                    f"{action.entity} places a token only in {', '.join(ability.hexes)}"
                )
            private.uses += 1
            cost = 0 if ability.kind == "free_token" else cost * (100 - ability.percent) // 100
        if not home and not state.home_placed:
            raise ActionRefused(f"{company} places its home station in {state.home} first (4.2a)")
        if not home and not free_token and (hex_name, index) not in self.reachable_cities(company):
            # a private's free station (W&SR) need not connect (12.III)
            raise ActionRefused(f"{company}'s track does not reach the city on {hex_name} (4.2.2a)")
        if self.cash[company] < cost:
            raise ActionRefused(f"{company} cannot pay ${cost}")
        self.pay(company, BANK, cost)
        hex_state.tokens[index].append(company)
        state.tokens_used += 1
        if choosing:
            self.pending_homes.pop(0)
        if home:
            state.home_placed = True
        else:
            self.turn.tokens += 1
        self.rules.after_token_placed(self, company, hex_name)

    def _links(self) -> dict[Stop, list[Link]]:
        """The map's links, rebuilt only when a tile is laid."""
        if self._links_cache is None or self._links_cache[0] != self.map_version:
            self._links_cache = (self.map_version, build_links(self.hexes, self.title.layout))
        return self._links_cache[1]

    def stop_value(self, company: str, stops: Iterable[Stop], train: Train) -> int | None:
        """A train's earnings on these stops (4.2.3i, 4.2.3.1), None if too long."""
        stops = list(stops)
        towns = sum(1 for h, i in stops if self.hexes[h].nodes[i].kind == "town")
        counted = len(stops) - towns if train.type.towns_free else len(stops)
        if counted > train.cities:
            return None
        revenue = sum(self.node_revenue(h, i) for h, i in stops) * train.multiplier
        bonus = self.companies[company].route_bonus
        return revenue + sum(bonus.get(h, 0) for h in {h for h, _ in stops})

    def best_routes(self, company: str) -> tuple[int, dict[str, Route]]:
        """The routes earning most for the company's trains (4.2.3.1)."""
        trains = {t.id: t for t in self.trains_of(company)}
        if not trains:
            return 0, {}
        widest = max(t.cities for t in trains.values())
        longest = max((t.cities for t in trains.values() if not t.type.towns_free), default=0)
        most_stops = 99 if any(t.type.towns_free for t in trains.values()) else longest
        routes = enumerate_routes(self.hexes, self._links(), company, widest, most_stops)
        return best_runs(
            routes,
            sorted(trains),
            lambda route, train: self.stop_value(company, route.stops, trains[train]),
        )

    def route_revenue(self, company: str, route: act.Route) -> int:
        """4.2.3: the stops a route joins, their values, the train's limit."""
        train = next((t for t in self.trains_of(company) if t.id == route.train), None)
        if train is None:
            raise ActionRefused(f"{company} has no train {route.train}")
        stops: list[tuple[str, int]] = []
        try:
            for chain in route.connections:
                for stop in chain_stops(self.hexes, self.title.layout, chain):
                    if stop not in stops:
                        stops.append(stop)
        except ValueError as exc:
            raise ActionRefused(f"route of {route.train}: {exc}") from None
        if len(stops) < 2:
            raise ActionRefused(f"route of {route.train} needs two stops (4.2.3j)")
        if not any(
            company in self.hexes[h].tokens[i] for h, i in stops if i < len(self.hexes[h].tokens)
        ):
            raise ActionRefused(f"route of {route.train} has no station of {company} (4.2.3f)")
        revenue = self.stop_value(company, stops, train)
        if revenue is None:
            raise ActionRefused(
                f"a {train.name} train reaches at most {train.cities} stops (4.2.3i)"
            )
        return revenue

    def _run_routes(self, action: act.RunRoutes) -> None:
        company = self._current(action)
        assert self.turn is not None
        if self.turn.ran:
            raise ActionRefused(f"{company} has already run its trains")
        used = [r.train for r in action.routes]
        if len(set(used)) != len(used):
            raise ActionRefused("each train runs once")
        total = 0
        for route in action.routes:
            revenue = self.route_revenue(company, route)
            if route.revenue is not None and route.revenue != revenue:
                if not self.recorded_revenue_stands:
                    raise ActionRefused(
                        f"route of {route.train} earns ${revenue}, not ${route.revenue}"
                    )
                # A recorded game's stored revenue is what its players were paid.
                self.revenue_differences.append((action.id, route.train, revenue, route.revenue))
                revenue = route.revenue
            total += revenue
        self.turn.revenue = total
        self.rules.after_run(self, company)

    def _dividend(self, action: act.Dividend) -> None:
        """4.2.4: pay out (open-market shares pay the company) or withhold."""
        company = self._current(action)
        assert self.turn is not None
        if self.turn.ran:
            raise ActionRefused(f"{company} has already paid or withheld")
        revenue = self.turn.revenue or 0
        self.turn.ran = True
        self._retire_obsolete(company)
        if action.kind == "withhold" or revenue == 0:
            self.pay(BANK, company, revenue)
            self.market.move_left(company)
            return
        if action.kind != "payout":
            raise ActionRefused("pay out or withhold")
        per_share = revenue // self.title.shares_per_company
        holders: list[Holder] = [*self.players, POOL]
        for holder in holders:
            amount = self.percent_of(holder, company) // 10 * per_share
            if amount:
                self.pay(BANK, company if holder == POOL else holder, amount)
        self.market.move_right(company)

    def available_trains(self) -> list[Train]:
        """4.2.5b: trains leave the bank in order; some wait for a phase. The
        trains discarded to the open market are on sale too (4.2.5c)."""
        waiting = [t for t in self.trains if t.owner is None and not t.rusted and t.sellable]
        out = [t for t in waiting if t.discarded]
        waiting = [t for t in waiting if not t.discarded]
        if not waiting:
            return out
        first = waiting[0].type.name
        names = [p.name for p in self.title.phases]
        for train in waiting:
            kind = train.type
            if kind.name == first or (
                kind.after_phase and names.index(kind.after_phase) <= self.phase_index
            ):
                out.append(train)
        return out

    def _buy_train(self, action: act.BuyTrain) -> None:
        """4.2.5: from the bank in order (one a turn) or from another company."""
        company = self._current(action)
        assert self.turn is not None
        self._pass_dividend_step()
        train = next((t for t in self.trains if t.id == action.train and not t.rusted), None)
        if train is None:
            raise ActionRefused(f"no train {action.train}")
        limit = self.title.phases[self.phase_index].train_limit
        if self.trains_counted(company) >= limit:
            raise ActionRefused(f"{company} already has {limit} trains (4.2.5g)")
        if train.owner is not None:
            side = None
            if action.variant and action.variant != train.name:
                side = self._card_side(train, action.variant)
            self._buy_used_train(company, train, action.price)
            if side is not None:
                train.name, train.price, train.cities, train.multiplier = side
            return
        if train not in self.available_trains():
            raise ActionRefused(f"train {action.train} is not on sale yet")
        most = self.rules.bank_trains_per_turn(self)
        if most is not None and self.turn.bank_trains >= most:
            raise ActionRefused(f"{most} train(s) from the bank a turn (4.2.5f)")
        price, name, cities, multiplier = (
            train.type.price,
            train.type.name,
            train.type.cities,
            train.type.multiplier,
        )
        if train.discarded:
            # 4.7g: a discarded train keeps the side it was bought as
            price, name, cities, multiplier = (
                train.price,
                train.name,
                train.cities,
                train.multiplier,
            )
            if action.variant and action.variant != train.name:
                raise ActionRefused(f"train {train.id} is a {train.name} train")
        elif action.variant and action.variant != train.type.name:
            variant = next((v for v in train.type.variants if v.name == action.variant), None)
            if variant is None:
                raise ActionRefused(f"no {action.variant} variant of {train.type.name}")
            price, name, cities, multiplier = (
                variant.price,
                variant.name,
                variant.cities,
                variant.multiplier,
            )
        if action.entity_type == "company":
            private = self.privates[str(action.entity)]
            ability = private.data.ability
            if ability is None or ability.kind != "train_discount" or name not in ability.trains:
                raise ActionRefused(f"{action.entity} gives no discount on a {name} train")
            price -= self.rules.train_discount(private)
            private.closed = True
        if action.price != price:
            raise ActionRefused(f"a {name} train costs ${price}")
        president = self.companies[company].president
        assert president is not None
        assist, fee = self.rules.president_assist(self, company, train, price)
        if assist:
            self.pay(president, BANK, assist + fee)
            self.pay(BANK, company, assist)
        if price > self.cash[company]:
            if self.trains_of(company):
                raise ActionRefused(f"{company} has ${self.cash[company]}")
            shortfall = price - self.cash[company]
            if self.cash[president] >= shortfall:
                self.pay(president, company, shortfall)
            elif not self.rules.allows_loans():
                raise ActionRefused(
                    f"{company} and its president have ${self.cash[company] + self.cash[president]}"
                )
            else:
                # 4.2.5.2: the president borrows what he cannot raise
                own = max(self.cash[president], 0)
                debt = shortfall - own
                self.pay(BANK, company, debt)
                self.pay(president, company, own)
                fee = self.rules.loan_fee(debt)
                self.pay(president, BANK, debt + fee)  # into debt
        self.pay(company, BANK, price)
        train.owner = company
        train.discarded = False
        train.name, train.price, train.cities, train.multiplier = name, price, cities, multiplier
        self.turn.bank_trains += 1
        if train.type.name not in self.types_bought:
            self._first_of_type(train.type)

    def _first_of_type(self, kind: TrainType) -> None:
        """The first train of a type bought: a new phase, rusting, privates closing."""
        self.types_bought.add(kind.name)
        if kind.phase:
            self.advance_phase(kind.phase)
        if kind.rusts:
            soft = self.rules.obsolete_not_rusted(kind.rusts)
            for old in self.trains:
                if old.name == kind.rusts and not old.rusted:
                    if soft and old.owner is not None:
                        # a company's train runs once more; the bank's go now
                        old.obsolete = True
                        old.sellable = False
                        continue
                    old.rusted = True
                    old.owner = None
        if kind.closes_privates:
            for private in self.privates.values():
                private.closed = True
        self.rules.first_train_bought(self, kind)
        self._check_train_limits()

    def train_limit(self) -> int:
        return self.title.phases[self.phase_index].train_limit

    def _check_train_limits(self) -> None:
        """4.2.5g: after a phase change every company over the new limit must
        discard, in operating order; until then no one else acts."""
        order = sorted(
            (c for c, s in self.companies.items() if s.floated), key=self.market.order_key
        )
        self.discards = [c for c in order if self.trains_counted(c) > self.train_limit()]

    def _check_pending_home(self, action: act.Action) -> None:
        owner, chooser = self.pending_homes[0]
        acting = self.acting_company(action)
        if action.type == "place_token" and acting == chooser:
            return
        operating = self.turn is not None and self.turn.company == chooser
        if action.type == "buy_company" and acting == chooser and operating:
            return  # privates may be bought at any time of the turn (4.2)
        raise ActionRefused(
            f"{chooser}'s president, player {self.companies[chooser].president}, first chooses"
            f" the city of {owner}'s home station in {self.companies[owner].home} (TOKEN)"
        )

    def _check_discard(self, action: act.Action) -> None:
        company = self.discards[0]
        if action.type == "discard_train" and self.acting_company(action) == company:
            return
        trains = ", ".join(t.name for t in self.trains_of(company))
        raise ActionRefused(
            f"{company} has {len(self.trains_of(company))} trains ({trains}) and the limit is now"
            f" {self.train_limit()}: its president, player {self.companies[company].president},"
            f" first discards one (DISCARD <train>, 4.2.5g)"
        )

    def _discard_train(self, action: act.DiscardTrain) -> None:
        """4.2.5g: the train goes to the open market without compensation."""
        company = self.discards[0]
        train = next((t for t in self.trains_of(company) if t.id == action.train), None)
        if train is None:
            trains = ", ".join(t.id for t in self.trains_of(company))
            raise ActionRefused(f"{company} has no train {action.train}; its trains: {trains}")
        train.owner = None
        train.discarded = True
        if self.trains_counted(company) <= self.train_limit():
            self.discards.pop(0)

    def _card_side(self, train: Train, side: str) -> tuple[str, int, int, int]:
        """The other side of a two-sided train card bought from another
        company, in the edition that lets the buyer turn it (4.2.5b: the side
        is chosen when the card leaves the bank)."""
        sides = [
            (train.type.name, train.type.price, train.type.cities, train.type.multiplier),
            *((v.name, v.price, v.cities, v.multiplier) for v in train.type.variants),
        ]
        chosen = next((s for s in sides if s[0] == side), None)
        if chosen is None or not self.rules.used_cards_turn():
            raise ActionRefused(f"train {train.id} is a {train.name} train")
        return chosen

    def _buy_used_train(self, company: str, train: Train, price: int) -> None:
        seller = train.owner
        assert seller is not None
        if seller == company:
            raise ActionRefused(f"{company} already owns {train.id}")
        if not train.sellable:
            raise ActionRefused(f"train {train.id} may not be sold")
        if price < 1:
            raise ActionRefused(f"a train is sold for at least $1, not ${price}")
        president = self.companies[company].president
        assert president is not None
        assist, fee = self.rules.president_assist(self, company, train, price)
        shortfall = price - self.cash[company] - assist
        if shortfall > 0:
            # the edition that lets a president pay for another company's
            # train when his own company must buy one, up to its face value
            forced = not self.trains_of(company) and self.rules.president_funds_used_train()
            if not forced or price > train.price or self.cash[president] < shortfall:
                raise ActionRefused(f"{company} cannot pay ${price} for {train.id}")
        if assist:
            self.pay(president, BANK, assist + fee)
            self.pay(BANK, company, assist)
        if shortfall > 0:
            self.pay(president, company, shortfall)
        self.pay(company, seller, price)
        train.owner = company

    # --- the end ----------------------------------------------------------------

    def _bankrupt(self, action: act.Bankrupt) -> None:
        """The president of a company that must buy a train and cannot goes
        bankrupt: he sells what the market takes, gives up his cash, and the
        game ends."""
        company = self._current(action)
        player = self.companies[company].president
        assert player is not None
        cheapest = min((t.price for t in self.available_trains()), default=0)
        power = self.emergency_power(player, company)
        forced = not self.trains_of(company) or self.rules.bankrupt_with_trains()
        if not forced or power >= cheapest:
            raise ActionRefused(
                f"{company} and its president can raise ${power};"
                f" the cheapest train costs ${cheapest}"
            )
        # the site's edition sells shares only when bankruptcy comes in the
        # train step, where selling is open
        sells = not self.rules.bankrupt_with_trains() or (
            self.turn is not None and self.turn.step == TRAINS
        )
        for held in self.companies if sells else ():
            if self.market.where.get(held) is None or not self.shares_of(player, held):
                continue
            self._sell_most(player, held, keep_presidency=held == company)
        if self.cash[player] > 0:
            self.pay(player, BANK, self.cash[player])
        self.bankrupt.add(player)
        self.ended = True
        self.end_reason = "bankrupt"

    def emergency_power(self, player: int, operating: str) -> int:
        """What the company and its president can raise for a forced train
        (4.2.5.2d): their cash and the shares the president may sell without
        giving up the operating company."""
        power = self.cash[operating] + self.cash[player]
        cheapest = min((t.price for t in self.available_trains()), default=0)
        # the site's edition counts, of each company, only the shares needed:
        # no more than make up what the cheapest train still lacks
        needed = cheapest - power if self.rules.bankrupt_with_trains() else None
        if needed is not None and (self.turn is None or self.turn.step != TRAINS):
            return power  # shares are sold only in the train step
        for company, state in self.companies.items():
            own = self.percent_of(player, company)
            if not own or company not in self.market.where:
                continue
            room = self.title.market_pool_limit_percent - self.percent_of(POOL, company)
            others = max(
                (self.percent_of(p, company) for p in self.players if p != player), default=0
            )
            most = min(own, room) // 10 * 10
            if state.president == player:
                keep = max(others, 20) if company == operating else 20
                if company == operating or others < 20:
                    most = min(most, max(own - keep, 0) // 10 * 10)
            price = self.market.price(company)
            if needed is not None:
                enough = max(needed - 1, 0) // price + 1 if needed > 0 else 0
                most = min(most, enough * 10)
            power += price * most // 10
        return power

    def _sell_most(self, player: int, company: str, keep_presidency: bool = False) -> None:
        """The largest sale the market allows (pool limit; the presidency only
        to a player holding enough, and not that of the company operating,
        4.2.5.2)."""
        own = self.percent_of(player, company)
        room = self.title.market_pool_limit_percent - self.percent_of(POOL, company)
        others = max((self.percent_of(p, company) for p in self.players if p != player), default=0)
        president = self.companies[company].president == player
        for percent in range(min(own, room) // 10 * 10, 0, -10):
            if president and keep_presidency and own - percent < max(others, 20):
                continue
            keeps_top = own - percent >= 20
            if president and not keeps_top and others < 20:
                continue
            certs = sorted(self.shares_of(player, company), key=lambda c: c.president)
            chosen: list[Cert] = []
            for cert in certs:
                if sum(c.percent for c in chosen) >= percent:
                    break
                if cert.president and keeps_top:
                    continue
                chosen.append(cert)
            if sum(c.percent for c in chosen) >= percent:
                self._sell_bundle(player, chosen, percent)
                return

    def scores(self) -> dict[int, int]:
        """5: cash (less loans), shares at market value, privates at list price."""
        out = {}
        for player in self.players:
            value = self.cash[player]
            for company, state in self.companies.items():
                if state.par is not None:
                    value += self.percent_of(player, company) // 10 * self.market.price(company)
            value += sum(
                p.data.value for p in self.privates.values() if p.owner == player and not p.closed
            )
            out[player] = value
        return out
