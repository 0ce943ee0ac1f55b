"""3.1: the privates' waterfall auction: buy the cheapest at its price, bid on
the others, contests among several bidders."""

from collections.abc import Collection
from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    BID_STEP,
    ActionRefused,
    Holder,
)
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def bid(game: "Game", player: int, company: str, price: int) -> None:
    """3.1a: buy the cheapest private at its price (its bids and those on
    the next ones are then settled), or 3.1b: bid at least $5 over the last
    bid (or the par value) on another; 3.1.1: raise in a contest."""
    auction = game.auction
    if company not in auction.unsold:
        raise ActionRefused(f"{company} is not for sale")
    bids = auction.bids.setdefault(company, {})
    if auction.contest is not None:
        if company != auction.contest:
            raise ActionRefused(f"{auction.contest} is being auctioned between its bidders")
        least = max(bids.values()) + BID_STEP
        if price < least:
            raise ActionRefused(f"bid at least ${least} for {company} (3.1.1), or PASS")
        game.check_cash(player, price + committed(game, player, company))
        bids.pop(player, None)  # a raised bid goes to the end, as the newest
        bids[player] = price
        auction.contest_passes = 0
        auction.bidder = next_bidder(game, player)
        return
    auction.passes = 0
    if company == auction.unsold[0]:
        if price != auction.price[company]:
            raise ActionRefused(f"{company} is bought at ${auction.price[company]} (3.1a)")
        private_purchase(game, player, company, price)
        return
    least = max([auction.price[company], *bids.values()]) + BID_STEP
    if price < least:
        raise ActionRefused(
            f"bid at least ${least} for {company} (3.1b); {auction.unsold[0]} is bought"
            f" at ${auction.price[auction.unsold[0]]}"
        )
    game.check_cash(player, price + committed(game, player, company))
    bids[player] = price
    auction.next = game.next_player(player)


def private_purchase(game: "Game", player: int, company: str, price: int) -> None:
    """3.1a: the buyer takes the cheapest private; the turn passes to his
    left-hand neighbour once the auctions it sets off are over."""
    sell_private(game, company, player, price)
    game.auction.next = game.priority = game.next_player(player)
    settle(game)


def committed(game: "Game", player: int, company: str) -> int:
    """What the player has set aside for bids on the other privates (3.1b)."""
    return sum(b.get(player, 0) for c, b in game.auction.bids.items() if c != company)


def next_bidder(game: "Game", player: int) -> int:
    """The next bidder clockwise in the contest (3.1.1); in the edition
    where the lowest bidder moves, he (the earliest of equal bids)."""
    auction = game.auction
    assert auction.contest is not None
    bidders = auction.bids[auction.contest]
    if game.rules.lowest_bidder_moves():
        return min(bidders, key=lambda p: bidders[p])
    following = next_among(game, player, bidders)
    return player if following is None else following


def next_among(game: "Game", player: int, among: Collection[int]) -> int | None:
    """The first player clockwise after `player` who is one of `among` (he
    himself last), or None if none is."""
    start = game.players.index(player)
    for step in range(1, len(game.players) + 1):
        candidate = game.players[(start + step) % len(game.players)]
        if candidate in among:
            return candidate
    return None


def pass_(game: "Game", player: int) -> None:
    """3.1.1, 3.1.2: a pass in a contest or in the players' turns."""
    auction = game.auction
    if auction.contest is not None:
        # 3.1.1: the contest ends when all but the high bidder pass in a row
        bids = auction.bids[auction.contest]
        if game.rules.lowest_bidder_moves():
            # the passing bidder leaves the contest; the last one left wins
            del bids[player]
            if len(bids) > 1:
                auction.bidder = next_bidder(game, player)
                return
            auction.contest_passes = len(bids) - 1
        else:
            auction.contest_passes += 1
        if auction.contest_passes < len(bids) - 1:
            auction.bidder = next_bidder(game, player)
            return
        winner = max(bids, key=lambda p: bids[p])
        sell_private(game, auction.contest, winner, bids[winner])
        settle(game)
        return
    auction.passes += 1
    auction.next = game.next_player(player)
    if auction.passes < len(game.players):
        return
    # 3.1.2: everyone passed in a row; the round ends
    auction.passes = 0
    first = game.title.privates[0].id
    if first not in auction.unsold:
        # the privates sold pay their revenue, as in an operating round (4a)
        for private in game.privates.values():
            if private.owner is not None and not private.closed:
                game.pay(BANK, private.owner, game.rules.private_revenue(private.data))
        return
    # the first private gets $5 cheaper; free, the next player must take it
    auction.price[first] = max(0, auction.price[first] - BID_STEP)
    if auction.price[first] == 0:
        private_purchase(game, auction.next, first, 0)


def settle(game: "Game") -> None:
    """Sell the cheapest privates in turn while they have bids: one bid
    wins outright, several start a contest (3.1.1)."""
    auction = game.auction
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
            auction.bidder = next_bidder(game, max(bids, key=lambda p: bids[p]))
            return
        ((winner, price),) = bids.items()
        sell_private(game, cheapest, winner, price)
    game.start_stock_round()


def sell_private(game: "Game", company: str, player: int, price: int) -> None:
    """3.1: the private goes to the player at his bid (with the share it carries)."""
    game.check_cash(player, price)
    game.pay(player, BANK, price)
    game.privates[company].owner = player
    game.auction.unsold.remove(company)
    game.auction.bids.pop(company, None)
    ability = game.privates[company].data.ability
    if ability is not None and ability.kind == "share" and ability.share:
        share = game.cert(ability.share)
        game.transfer([share], share.owner, player, share.percent)


class AuctionPrivates(Step):
    """3.1: the player to move (in a contest, the bidder to move) bids or passes."""

    name = "auction"
    actions = frozenset(("bid", "pass"))

    def actors(self, game: "Game") -> frozenset[Holder]:
        due = game.auction.bidder if game.auction.contest is not None else game.auction.next
        return frozenset((due,)) if due is not None else frozenset()

    def refusal(self, game: "Game", actor: Holder) -> str:
        (due,) = self.actors(game)
        if game.auction.contest is not None:
            return (
                f"{game.auction.contest} is being auctioned: it is bidder {due}'s"
                f" turn, not {actor}'s (3.1.1)"
            )
        return f"it is player {due}'s turn, not {actor}'s (3.1)"

    def process(self, game: "Game", action: act.Action) -> None:
        player = game.player_of(action)
        if isinstance(action, act.Bid):
            bid(game, player, action.company, action.price)
        else:
            pass_(game, player)
