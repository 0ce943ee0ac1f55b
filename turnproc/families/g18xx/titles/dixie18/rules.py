"""18Dixie on the family engine: the title's data read into the engine's
`Title` (`engine_data`) and the rules the engine's defaults do not give
(`Rules`): the initial stock round's nominated auctions of P1-P7 (3.3.1),
the unsold privates in the open market at their printed price, P6 and the
Southern, no sale of a major that has not operated (3.1a1), two tile lays and
one extra yellow on the first turn (4.2), privates closing when phase 6
begins (12.1).

The second stock round's auctions of P8-P10 and P10's WRA are played too.
What the engine does not play yet, each listed in docs/rules-18dixie.md
("Played on the engine"): minors and their closures, preferred shares (the
nine certificates of the engine stand for all ten shares), the private
abilities other than P6's and P10's, the SCL/ICG merger, spare parts and
salvage.
"""

from typing import TYPE_CHECKING, Any

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import (
    BANK,
    IPO,
    POOL,
    ActionRefused,
    Holder,
    TitleRules,
    Turn,
)
from turnproc.families.g18xx.engine.rounds.auction import AuctionRound
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.rounds.stock import StockRound
from turnproc.families.g18xx.engine.steps import privates as private_steps
from turnproc.families.g18xx.engine.steps import shares
from turnproc.families.g18xx.engine.steps import trains as train_steps
from turnproc.families.g18xx.engine.steps.auction import next_among
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.title import Title

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game

BID_STEP = 5  # 3.2a
SOUTHERN = "SOU"
P6 = "P6"
SOUTHERN_TO_MARKET = 3  # 12.3 P6: three regular shares to the open market
# 12.3 P6, 12.4 P10: the privates that carry a major's president's certificate
PRESIDENCIES = {"P6": "SOU", "P10": "WRA"}
INITIAL = ("P1", "P2", "P3", "P4", "P5", "P6", "P7")
LATER = ("P8", "P9", "P10")  # 3.3.2: auctioned in the second stock round
SECOND_SET = 1  # the stock round after the first set of operating rounds (SR2)
OFFERED = "dixie_offered:"  # flag per private auctioned in this stock round
PASSED = "dixie_auction_passed:"  # flag per player who passed on the private being auctioned
PAR_DUE = "dixie_par_due:"  # flag naming the private whose buyer sets a par now
OPEN_MARKET = "dixie_open_market:"  # flag per private in the open market (3.3.1)
LEAVE_AFTER_SET = 3  # 3.3.3: unsold privates leave the game after SR3
# the engine's phase and train fields this title's data fills
_TITLE_KEYS = (
    "title",
    "layout",
    "bank",
    "shares_per_company",
    "float_percent",
    "holding_limit_percent",
    "market_pool_limit_percent",
    "par_prices",
    "market",
    "operating_rounds_per_set",
    "only_upgrades",
)


def _number(private_id: str) -> int:
    return int(private_id.lstrip("PM"))


def engine_data(data: dict[str, Any]) -> dict[str, Any]:
    """The title's data (title.json) as the engine's `Title` reads it: what
    the engine plays, without what it does not (see the module's note)."""
    out: dict[str, Any] = {k: data[k] for k in _TITLE_KEYS}
    out["players"] = {
        n: {"cash": s["cash"], "certificates": s["certificates"]}
        for n, s in data["players"].items()
    }
    out["private_sale"] = "waterfall"  # the round starts as "auction"; Rules sets it up
    out["end_reason"] = "bank"
    out["phases"] = [
        {
            "name": p["name"],
            "tiles": p["tiles"],
            "train_limit": p["train_limit"],
            "operating_rounds": data["operating_rounds_per_set"],
            # 4.7f: one train from the bank a turn until the first 6+1
            "one_bank_train": not p.get("several_bank_trains", False),
            # 3.2b: players sell privates to each other (not in SR1: Rules)
            "players_trade_privates": True,
        }
        for p in data["phases"]
    ]
    rusted_by = {t["rusted_by"]: t["name"] for t in data["trains"] if "rusted_by" in t}
    closing_phase = next(p["name"] for p in data["phases"] if p.get("closes_privates"))
    out["trains"] = [
        {
            "name": t["name"],
            "count": t["count"],
            "price": t["price"],
            "cities": t["cities"],
            # 4.4h-i: towns do not count for the 2- to 5-trains; an n+m
            # train stops at n cities and n+m places; a D train counts every stop
            "towns_free": not t.get("counts_towns", False) and not t.get("towns", 0),
            "towns": t.get("towns", 0),
            "multiplier": t.get("multiplier", 1),
            "phase": t.get("phase"),
            "after_phase": t.get("after_phase"),
            "rusts": rusted_by.get(t["name"]),
            "salvage": t.get("salvage", 0),
            "closes_privates": t.get("phase") == closing_phase,
            "variants": [
                {
                    "name": v["name"],
                    "price": v["price"],
                    "cities": v["cities"],
                    "multiplier": v.get("multiplier", 1),
                }
                for v in t.get("variants", ())
            ],
        }
        for t in data["trains"]
    ]
    out["privates"] = [
        {"id": p["id"], "name": p["name"], "value": p["value"], "revenue": p["revenue"]}
        for p in data["privates"]
    ]
    out["companies"] = [
        {"id": c["id"], "name": c["name"], "home": c["home"], "tokens": c["tokens"]}
        for c in data["companies"]
    ]
    out["hexes"] = [{k: v for k, v in h.items() if k != "label"} for h in data["hexes"]]
    return out


def owns_initial_private(game: "Game", player: int) -> bool:
    """3.3.1: whether the player has bought one of P1-P7 (P6 counts though
    discarded, ambiguity 7)."""
    return any(p.owner == player for i, p in game.privates.items() if i in INITIAL)


def _bidders(game: "Game") -> list[int]:
    """Who bids: in the initial auctions only players without a private
    (ambiguity 6); in the second stock round's, everyone (3.3.2)."""
    if game.round != "auction":
        return list(game.players)
    return [p for p in game.players if not owns_initial_private(game, p)]


def par_due(game: "Game") -> str | None:
    """The private whose buyer must set its major's par before anything else."""
    return next((k[len(PAR_DUE) :] for k in game.flags if k.startswith(PAR_DUE)), None)


def _owner(game: "Game", private: str) -> int:
    owner = game.privates[private].owner
    assert isinstance(owner, int)
    return owner


def _sell(game: "Game", company: str, player: int, price: int) -> None:
    """3.2a: the winner pays the bank; P6 and P10 give a president's
    certificate, its par to set at once (12.3, 12.4)."""
    auction = game.auction
    game.check_cash(player, price)
    game.pay(player, BANK, price)
    game.privates[company].owner = player
    if company in auction.unsold:
        auction.unsold.remove(company)
    auction.bids.pop(company, None)
    auction.contest = None
    auction.bidder = None
    for key in [k for k in game.flags if k.startswith(PASSED)]:
        del game.flags[key]
    game.flags.pop(f"{OFFERED}{company}", None)
    if company in PRESIDENCIES:
        game.flags[f"{PAR_DUE}{company}"] = True
        return
    _after_sale(game)


def _after_sale(game: "Game") -> None:
    """3.3.1: the next player without a private nominates; once each owns
    one, the buyer of the lowest numbered gets the priority deal, the highest
    numbered unsold private leaves the game and the others go to the open
    market, and the stock round goes on. 3.2a: in a later stock round the
    auction was the nominator's purchase."""
    auction = game.auction
    assert auction.next is not None
    if game.round != "auction":
        game.stock_turn_done(auction.next, passed=False)
        return
    waiting = _bidders(game)
    if waiting:
        nominator = auction.next if auction.next in waiting else None
        auction.next = nominator or next_among(game, auction.next, waiting)
        return
    bought = [p for i, p in game.privates.items() if i in INITIAL and p.owner in game.players]
    lowest = min(bought, key=lambda p: _number(p.data.id))
    assert isinstance(lowest.owner, int)
    game.priority = lowest.owner
    unsold = sorted(auction.unsold, key=_number)
    if unsold:
        game.privates[unsold[-1]].closed = True
        for private in unsold[:-1]:
            game.flags[f"{OPEN_MARKET}{private}"] = True
    auction.unsold = []
    game.start_stock_round()


def _bid(game: "Game", player: int, company: str, price: int) -> None:
    auction = game.auction
    if auction.contest is None:
        initial = game.round == "auction"
        if initial and company not in auction.unsold:
            raise ActionRefused(f"{company} is not for sale (3.3.1: one of P1-P7 unsold)")
        if not initial and not game.flags.get(f"{OFFERED}{company}"):
            raise ActionRefused(f"{company} is not auctioned now (3.3.2: P8-P10 in SR2)")
        if not initial and game.stock_bought_this_turn:
            raise ActionRefused("one purchase a turn; an auction is one (3.2a)")
        listed = game.privates[company].data.value
        if price < listed or (price - listed) % BID_STEP:
            raise ActionRefused(
                f"the first bid for {company} is ${listed} plus a multiple of $5 (3.2a)"
            )
        game.check_cash(player, price)
        others = [p for p in _bidders(game) if p != player]
        if not others:
            # 3.3.1: the last player buys his choice at its printed price
            if price != listed:
                raise ActionRefused(f"the last player buys {company} at ${listed} (3.3.1)")
            _sell(game, company, player, price)
            return
        auction.contest = company
        auction.bids[company] = {player: price}
        auction.bidder = next_among(game, player, others)
        auction.next = player
        return
    if company != auction.contest:
        raise ActionRefused(f"{auction.contest} is being auctioned (3.2a)")
    bids = auction.bids[company]
    least = max(bids.values()) + BID_STEP
    if price < least:
        raise ActionRefused(f"bid at least ${least} for {company} (3.2a), or PASS")
    game.check_cash(player, price)
    bids[player] = price
    auction.bidder = _next_bidder(game, player)


def _next_bidder(game: "Game", player: int) -> int | None:
    """The next player clockwise still in the auction (3.2a: a pass is final)."""
    still = [p for p in _bidders(game) if not game.flags.get(f"{PASSED}{p}")]
    return next_among(game, player, still)


def _pass(game: "Game", player: int) -> None:
    auction = game.auction
    if auction.contest is None:
        raise ActionRefused(
            "a player without a private nominates one of P1-P7 and bids (3.3.1):"
            " BID <private> <price>"
        )
    game.flags[f"{PASSED}{player}"] = True
    bids = auction.bids[auction.contest]
    high = max(bids, key=lambda p: bids[p])
    following = _next_bidder(game, player)
    if following is None or following == high:
        _sell(game, auction.contest, high, bids[high])
        return
    auction.bidder = following


def _president_par(game: "Game", player: int, private: str, action: act.Par) -> None:
    """12.3 P6, 12.4 P10: the buyer sets the major's par; three shares go to
    the open market, so it floats (3.5: capital ten times par); the private
    is discarded."""
    company = PRESIDENCIES[private]
    if action.corporation != company:
        raise ActionRefused(f"the buyer of {private} sets the par of {company} first (12.3)")
    price, row, col = (int(x) for x in action.share_price.split(","))
    if price not in game.title.par_prices or not game.market.grid[row][col].par:
        raise ActionRefused(f"par values are {', '.join(f'${p}' for p in game.title.par_prices)}")
    state = game.companies[company]
    state.par = price
    game.market.place(company, row, col)
    top = game.certs[f"{company}_0"]
    game.transfer([top], IPO, player, top.percent)
    state.president = player
    regular = [c for c in game.shares_of(IPO, company) if not c.president][:SOUTHERN_TO_MARKET]
    game.transfer(regular, IPO, POOL, 10 * len(regular))
    state.floated = True
    game.pay(BANK, company, price * game.title.shares_per_company)
    game.privates[private].closed = True


def _settle_par(game: "Game", player: int, action: act.Action) -> None:
    """The par a private's buyer owes, then the auction's consequences."""
    private = par_due(game)
    assert private is not None
    if not isinstance(action, act.Par):
        company = PRESIDENCIES[private]
        raise ActionRefused(f"set the par of {company} first (12.3): PAR {company} <price>")
    _president_par(game, player, private, action)
    del game.flags[f"{PAR_DUE}{private}"]
    _after_sale(game)


def _auction_actors(game: "Game") -> frozenset[Holder]:
    private = par_due(game)
    if private is not None:
        return frozenset((_owner(game, private),))
    if game.auction.contest is not None and game.auction.bidder is not None:
        return frozenset((game.auction.bidder,))
    return frozenset()


class InitialAuctions(Step):
    """3.3.1: each player without a private nominates one of P1-P7 with a
    bid; the players without one bid or pass in turn."""

    name = "auction"
    actions = frozenset(("bid", "pass", "par"))

    def actors(self, game: "Game") -> frozenset[Holder]:
        due = _auction_actors(game)
        if due or game.auction.next is None:
            return due
        return frozenset((game.auction.next,))

    def process(self, game: "Game", action: act.Action) -> None:
        player = game.player_of(action)
        if par_due(game) is not None:
            _settle_par(game, player, action)
        elif isinstance(action, act.Bid):
            _bid(game, player, action.company, action.price)
        elif isinstance(action, act.Par):
            raise ActionRefused("no company is started before each player owns a private (3.3.1)")
        else:
            _pass(game, player)


class InitialRound(AuctionRound):
    """The first part of the initial stock round (3.3.1)."""

    def enter(self, game: "Game", action: act.Action) -> None:
        if game.acting_company(action) is not None or action.type not in ("bid", "pass", "par"):
            raise ActionRefused("each player first buys one of P1-P7 at auction (3.3.1)")

    def to_move(self, game: "Game") -> int | None:
        private = par_due(game)
        if private is not None:
            return _owner(game, private)
        return super().to_move(game)


class StockAuctions(Step):
    """3.3.2: in the second stock round a player's purchase may be the
    nomination of one of P8-P10; every player bids or passes in turn. A pass
    outside an auction ends the player's stock turn (3.2)."""

    name = "stock auction"
    actions = frozenset(("bid", "pass"))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return _auction_actors(game) or frozenset((game.stock_next,))

    def process(self, game: "Game", action: act.Action) -> None:
        player = game.player_of(action)
        if isinstance(action, act.Bid):
            _bid(game, player, action.company, action.price)
        elif game.auction.contest is not None:
            _pass(game, player)
        else:
            shares.PassTurn().process(game, action)


class DixieStockRound(StockRound):
    """3: the stock round, with the second stock round's auctions (3.3.2)
    and the par owed for P6 or P10 (12.3, 12.4) taken first."""

    def enter(self, game: "Game", action: act.Action) -> None:
        super().enter(game, action)
        if par_due(game) is not None and action.type != "par":
            raise ActionRefused(f"the buyer of {par_due(game)} sets a par first (12.3)")
        if game.auction.contest is not None and action.type not in ("bid", "pass"):
            raise ActionRefused(f"{game.auction.contest} is being auctioned (3.2a): BID or PASS")

    def to_move(self, game: "Game") -> int | None:
        private = par_due(game)
        if private is not None:
            return _owner(game, private)
        if game.auction.contest is not None:
            return game.auction.bidder
        return game.stock_next


class DixieTradePrivates(private_steps.TradePrivates):
    """3.2c3: a private in the open market is bought at its printed price
    (ambiguity 5) as the turn's purchase; 3.2b: players sell privates to
    each other, not in the initial stock round (3.2d)."""

    def process(self, game: "Game", action: act.Action) -> None:
        if isinstance(action, act.BuyCompany):
            private = game.privates.get(action.company)
            if private is not None and in_open_market(game, private.data.id):
                player = game.player_of(action)
                if action.price != private.data.value:
                    raise ActionRefused(
                        f"{action.company} costs its printed ${private.data.value} (3.2c3)"
                    )
                private_steps.check_private_buyer(game, player, action.price)
                game.pay(player, BANK, action.price)
                private.owner = player
                del game.flags[f"{OPEN_MARKET}{private.data.id}"]
                game.stock_turn_done(player, passed=False)
                return
        if game.set_number == 0:
            raise ActionRefused(
                "no private changes hands between players in the initial stock round (3.2d)"
            )
        super().process(game, action)


class DixieParShares(shares.ParShares):
    """12.3 P6, 12.4 P10: the Southern's (WRA's) president's certificate is
    reserved while P6 (P10) is unsold; its buyer sets the par (bought from
    the open market: designed, in a later turn of his, as that turn's
    purchase)."""

    def actors(self, game: "Game") -> frozenset[Holder]:
        private = par_due(game)
        if private is not None:
            return frozenset((_owner(game, private),))
        return super().actors(game)

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.Par)
        player = game.player_of(action)
        if par_due(game) is not None:
            _settle_par(game, player, action)
            return
        private = next((p for p, c in PRESIDENCIES.items() if c == action.corporation), None)
        if private is not None and not game.privates[private].closed:
            owner = game.privates[private].owner
            if owner is None:
                raise ActionRefused(
                    f"{action.corporation}'s president's certificate goes with {private} (12.3)"
                )
            if owner != player:
                raise ActionRefused(
                    f"the owner of {private} sets the par of {action.corporation} (12.3)"
                )
            if game.stock_bought_this_turn:
                raise ActionRefused("one purchase a turn (3.2)")
            _president_par(game, player, private, action)
            game.stock_turn_done(player, passed=False)
            return
        super().process(game, action)


class DixieSellShares(shares.SellShares):
    """3.1a1: no sale of a major that has not operated."""

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.SellShares)
        company = game.cert(action.shares[0]).company if action.shares else None
        if company is not None and not game.companies[company].operated:
            raise ActionRefused(
                f"{company} has not operated yet: its shares cannot be sold (3.1a1)"
            )
        super().process(game, action)


class DixieBuyTrains(train_steps.BuyTrains):
    """4.7f: one train from the Initial Offering a turn until the first 6+1."""

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.BuyTrain)
        train = next((t for t in game.trains if t.id == action.train), None)
        most = game.rules.bank_trains_per_turn(game)
        if (
            train is not None
            and train.owner is None
            and game.turn is not None
            and most is not None
            and game.turn.bank_trains >= most
        ):
            raise ActionRefused("one train from the bank a turn until the first 6+1 (4.7f)")
        super().process(game, action)


class Rules(TitleRules):
    def __init__(self, title: Title, options: dict[str, str]) -> None:
        super().__init__(title, options)
        if options:
            raise ValueError("18Dixie has no game options")

    def step_overrides(self) -> tuple[Step, ...]:
        return (
            InitialAuctions(),
            DixieParShares(),
            DixieTradePrivates(),
            DixieSellShares(),
            DixieBuyTrains(),
        )

    def extra_rounds(self) -> dict[str, Round]:
        return {
            "auction": InitialRound((InitialAuctions(),)),
            "stock": DixieStockRound(
                (
                    DixieParShares(),
                    shares.BuyShares(),
                    DixieSellShares(),
                    DixieTradePrivates(),
                    StockAuctions(),
                )
            ),
        }

    def setup(self, game: "Game") -> None:
        """3.3.1: the first player nominates one of P1-P7; P8-P10 wait for
        the second stock round (3.3.2)."""
        game.round = "auction"
        game.auction.next = game.players[0]
        game.auction.unsold = [p for p in game.auction.unsold if p in INITIAL]

    def tile_lay_refusal(self, game: "Game", turn: Turn, upgrade: bool) -> str | None:
        """4.2: a major lays up to two tiles, and one extra yellow tile on its
        first operating turn."""
        if len(turn.lays) < 2:
            return None
        if turn.first and len(turn.lays) == 2 and not upgrade:
            return None
        return "two tiles a turn, and one extra yellow on the first turn (4.2)"

    def end_of_set(self, game: "Game") -> None:
        """3.3.2: at the start of the second stock round unsold 2-trains go to
        the open market and P8-P10 are auctioned."""
        if game.set_number != SECOND_SET:
            return
        for train in game.trains:
            if train.name == game.title.trains[0].name and train.owner is None:
                train.discarded = not train.rusted
        for private in LATER:
            state = game.privates[private]
            if state.owner is None and not state.closed:
                game.flags[f"{OFFERED}{private}"] = True

    def start_operating_round(self, game: "Game") -> None:
        """3.3.2: P8-P10 unsold in the second stock round go to the open
        market; 3.3.3: privates unsold after the third leave the game."""
        for key in [k for k in game.flags if k.startswith(OFFERED)]:
            del game.flags[key]
            game.flags[f"{OPEN_MARKET}{key[len(OFFERED) :]}"] = True
        if game.set_number >= LEAVE_AFTER_SET:
            for private in game.privates.values():
                if in_open_market(game, private.data.id):
                    private.closed = True
                    del game.flags[f"{OPEN_MARKET}{private.data.id}"]

    def players_trade_privates(self, game: "Game") -> bool:
        return game.set_number > 0 and super().players_trade_privates(game)


def in_open_market(game: "Game", private: str) -> bool:
    """3.3.1: an unsold private placed in the open market."""
    return game.flags.get(f"{OPEN_MARKET}{private}", False)


__all__ = ["Rules", "engine_data", "par_due"]
