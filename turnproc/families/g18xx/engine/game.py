"""One 18xx game: its position, and the frame that applies actions one at a time.

The rounds (engine/rounds) are sequences of steps (engine/steps); a title's
rules (engine/rules.py) are hooks and steps of its own. The frame hands each
action to the step that takes it after the round has moved on as the action
requires, checks that the step's actors include whoever acts, and restores the
game when a step refuses. Every dollar moves between the bank, the players and
the companies through `pay`, so the total never changes.
"""

import copy
from collections.abc import Iterable

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.market import Market, parse_market
from turnproc.families.g18xx.engine.rounds import operating, stock
from turnproc.families.g18xx.engine.routes import Link, Route, Stop
from turnproc.families.g18xx.engine.rules import TitleRules
from turnproc.families.g18xx.engine.state import (
    BANK,
    BID_STEP,
    IPO,
    POOL,
    ActionRefused,
    Auction,
    Cert,
    CompanyState,
    Holder,
    Offer,
    PrivateState,
    Train,
    Turn,
    printed_hex,
)
from turnproc.families.g18xx.engine.steps import bankrupt, privates, routes, track, trains
from turnproc.families.g18xx.engine.steps.base import Notes, Step
from turnproc.families.g18xx.engine.title import Title
from turnproc.families.g18xx.engine.track import HexState

__all__ = [
    "BANK",
    "BID_STEP",
    "IPO",
    "POOL",
    "ActionRefused",
    "Cert",
    "Game",
    "Holder",
    "Offer",
    "PrivateState",
    "TitleRules",
    "Train",
    "Turn",
    "printed_hex",
]


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
        self.links_cache: tuple[int, dict[Stop, list[Link]]] | None = None
        # the operating company's reach and exits (steps/track.current_reach)
        self.reach_cache: tuple[tuple[int, str], set[str], set[tuple[str, int]]] | None = None
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

    def move_cert(self, cert: Cert, to: Holder) -> None:
        self.holdings[(cert.owner, cert.company)].remove(cert)
        self.shares_of(to, cert.company).append(cert)
        cert.owner = to

    def _distance(self, a: int | None, b: int) -> int:
        if a is None:
            return 0
        ia, ib = self.players.index(a), self.players.index(b)
        return ib - ia if ia < ib else ib - (ia - len(self.players))

    def transfer(self, certs: list[Cert], source: Holder, to: Holder, percent: int) -> None:
        """3.5: move certificates, then hand the presidency to the largest holder
        (ties go to the first clockwise from the outgoing president)."""
        company = certs[0].company
        state = self.companies[company]
        previous = state.president
        self.percent[(source, company)] = self.percent_of(source, company) - percent
        self.percent[(to, company)] = self.percent_of(to, company) + percent
        for cert in certs:
            self.move_cert(cert, to)
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
            self.move_cert(cert, swap_to)
        self.move_cert(top, president)
        given = sum(c.percent for c in certs)
        for _ in range((given - percent) // 10):
            self.move_cert(self.shares_of(POOL, company)[0], source)

    def certificate_count(self, player: int) -> int:
        count = sum(1 for p in self.privates.values() if p.owner == player and not p.closed)
        for company in self.companies:
            if self.market.where.get(company) and self.market.cell(company).yellow:
                continue
            count += len(self.shares_of(player, company))
        return count

    # --- turn flow -------------------------------------------------------------

    # --- the frame: an action to its step ---------------------------------------

    def acting_company(self, action: act.Action) -> str | None:
        if action.entity_type == "corporation":
            return str(action.entity)
        if action.entity_type == "company":
            private = self.privates.get(str(action.entity))
            if private is None or not isinstance(private.owner, str):
                raise ActionRefused(f"{action.entity} is not owned by a company")
            return private.owner
        return None

    def actor_of(self, action: act.Action) -> Holder:
        """Who takes the action: a player, or the company acting (for a
        private it owns, its owner)."""
        company = self.acting_company(action)
        return company if company is not None else self.player_of(action)

    def shared(self) -> dict[int, object]:
        """What a deep copy of the game shares with it rather than copies: the
        title and its rules, and the caches, which are replaced, never changed."""
        return {id(x): x for x in (self.title, self.rules, self.links_cache, self.reach_cache)}

    def copy(self) -> "Game":
        """A copy to try actions on."""
        return copy.deepcopy(self, self.shared())

    def apply(self, action: act.Action) -> None:
        """Apply one action and its recorded automatic follow-ups; a refused
        action leaves the game as it was."""
        snapshot = copy.deepcopy(self.__dict__, self.shared())
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
        step = self.step_for(action)
        step.process(self, action)
        self.rules.rounds.rounds[self.round].after(self, action)
        self._check_end_triggers()
        for follow in action.auto_actions:
            self.apply_unchecked(follow)

    def step_for(self, action: act.Action) -> Step:
        """The step that takes the action, once the round has moved on as the
        action requires; refused unless the actor is among the step's actors."""
        table = self.rules.rounds
        if action.type not in table.actions:
            raise ActionRefused(f"{action.type} is not an 18xx move")
        standing = next((s for s in table.standing if action.type in s.actions), None)
        if standing is not None:
            if isinstance(standing, Notes):
                return standing  # notes change nothing, whoever writes them
            return self._checked(standing, action)
        blocker = next((s for s in table.blocking if s.blocks(self)), None)
        if blocker is not None:
            blocker.admit(self, action)
            if action.type in blocker.actions:
                return self._checked(blocker, action)
        elif action.type not in table.round_actions:
            raise ActionRefused(self._nothing_blocks(action))
        else:
            table.rounds[self.round].enter(self, action)
        current = table.rounds[self.round]
        step = current.step_for(action)
        if step is None:
            raise ActionRefused(f"no {action.type} in the {current.name} round")
        return self._checked(step, action)

    def _checked(self, step: Step, action: act.Action) -> Step:
        actor = self.actor_of(action)
        if actor not in step.actors(self):
            raise ActionRefused(step.refusal(self, actor))
        return step

    def _nothing_blocks(self, action: act.Action) -> str:
        """An action of a blocking step (outside every round) while it does not block."""
        if action.type == "discard_train":
            return "no company is over its train limit; none discards at will (4.2.5)"
        return f"no {action.type} now"

    def _check_end_triggers(self) -> None:
        """A company at the top of the market or a broken bank ends the game
        with the operating round in progress."""
        if self.end_pending is not None or self.rules.last_operating_round():
            return
        if any(self.market.cell(c).end for c in self.market.where):
            self.end_pending = "stock_market"
        elif self.cash[BANK] < 0:
            self.end_pending = "bank"

    # --- whose move ------------------------------------------------------------

    def player_of(self, action: act.Action) -> int:
        if (
            action.entity_type != "player"
            or not isinstance(action.entity, int)
            or action.entity not in self.players
        ):
            raise ActionRefused(f"{action.entity} is not a player in this game")
        return action.entity

    def next_player(self, player: int) -> int:
        """The player on his left."""
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def current_company(self, action: act.Action) -> str:
        """The company whose turn it is, if it is the one acting."""
        company = self.acting_company(action)
        if company is None or self.turn is None or self.turn.company != company:
            raise ActionRefused(f"it is not {action.entity}'s turn")
        return company

    def check_cash(self, holder: Holder, amount: int) -> None:
        if self.cash[holder] < amount:
            raise ActionRefused(f"costs ${amount}; cash is ${self.cash[holder]}")

    def cert(self, share_id: str) -> Cert:
        found = self.certs.get(share_id)
        if found is None:
            raise ActionRefused(f"no share {share_id}")
        return found

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
        return self.rules.rounds.rounds[self.round].to_move(self)

    def operating_company(self) -> str | None:
        """The company operating now, or the next to operate in this round."""
        if self.round != "operating":
            return None
        if self.turn is not None:
            return self.turn.company
        waiting = [c for c in self.order if c not in self.done]
        return waiting[0] if waiting else None

    # --- rounds' turns, for the steps --------------------------------------------

    def start_stock_round(self, after_interlude: bool = False) -> None:
        """The next stock round, after any round the title puts before it."""
        interlude = None if after_interlude else self.rules.round_before_stock(self)
        if interlude is not None:
            self.rules.rounds.rounds[interlude].start(self)
            return
        stock.start(self)

    def start_operating_round(self) -> None:
        operating.start(self)

    def stock_turn_done(self, player: int, passed: bool) -> None:
        stock.turn_done(self, player, passed)

    def reorder_waiting(self) -> None:
        operating.reorder_waiting(self)

    def finish(self) -> None:
        """End a replay: close the operating round in progress once every
        company has operated (a game ending with it is over)."""
        operating.finish(self)

    # --- what the steps know, for players and reports ----------------------------

    def trains_of(self, company: str) -> list[Train]:
        return [t for t in self.trains if t.owner == company and not t.rusted]

    def trains_counted(self, company: str) -> int:
        """The company's trains that count against the limit: not obsolete ones."""
        return sum(1 for t in self.trains_of(company) if not t.obsolete)

    def train_limit(self) -> int:
        return self.title.phases[self.phase_index].train_limit

    def available_trains(self) -> list[Train]:
        return trains.available_trains(self)

    def offers_to(self, holder: Holder) -> list[Offer]:
        return privates.offers_to(self, holder)

    def legal_rotations(
        self, company: str, hex_name: str, name: str, private: PrivateState | None = None
    ) -> list[int]:
        return track.legal_rotations(self, company, hex_name, name, private)

    def tile_refusal(
        self,
        company: str,
        hex_name: str,
        name: str,
        rotation: int,
        private: PrivateState | None = None,
    ) -> tuple[str | None, HexState | None]:
        return track.tile_refusal(self, company, hex_name, name, rotation, private)

    def blocking_private(self, hex_name: str) -> PrivateState | None:
        return track.blocking_private(self, hex_name)

    def reachable(self, company: str) -> set[str]:
        return track.reachable(self, company)

    def reachable_cities(self, company: str) -> set[tuple[str, int]]:
        return track.reachable_cities(self, company)

    def links(self) -> dict[Stop, list[Link]]:
        return routes.links(self)

    def stop_value(self, company: str, stops: Iterable[Stop], train: Train) -> int | None:
        return routes.stop_value(self, company, stops, train)

    def best_routes(self, company: str) -> tuple[int, dict[str, Route]]:
        return routes.best_routes(self, company)

    def route_revenue(self, company: str, route: act.Route) -> int:
        return routes.route_revenue(self, company, route)

    def emergency_power(self, player: int, operating: str) -> int:
        return bankrupt.emergency_power(self, player, operating)

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
