"""The sale of the private companies before the first stock round (3.1): a
waterfall auction, or a draft in which each player buys one."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.state import ActionRefused
from turnproc.families.g18xx.engine.steps.auction import AuctionPrivates
from turnproc.families.g18xx.engine.steps.draft import DraftPrivate, next_buyer

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


class AuctionRound(Round):
    """3.1: players bid on the privates in turn until all are sold."""

    name = "auction"

    def enter(self, game: "Game", action: act.Action) -> None:
        if game.acting_company(action) is not None or action.type not in ("bid", "pass"):
            raise ActionRefused("the private companies are being auctioned")

    def to_move(self, game: "Game") -> int | None:
        if game.auction.contest is not None:
            return game.auction.bidder
        return game.auction.next


class DraftRound(Round):
    """3.1 (a draft): each player buys one private in turn."""

    name = "draft"

    def enter(self, game: "Game", action: act.Action) -> None:
        if game.acting_company(action) is not None or action.type != "bid":
            raise ActionRefused("each player first buys one private company (3.1)")

    def to_move(self, game: "Game") -> int | None:
        return next_buyer(game)


def auction_round() -> AuctionRound:
    """The waterfall auction (3.1)."""
    return AuctionRound((AuctionPrivates(),))


def draft_round() -> DraftRound:
    """The draft of the privates (3.1)."""
    return DraftRound((DraftPrivate(),))
