"""Private companies changing hands: a company buys one (4.2g), players sell
them to each other (3.2b, 3.2c4) on standing offers."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    ActionRefused,
    Holder,
    Offer,
    PrivateState,
)
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def buy_company(game: "Game", action: act.BuyCompany) -> None:
    """4.2g: a company buys a private from its president (or, where the
    title lets it, from another player who offered it); 3.2c4: a player
    buys one another player offered him."""
    if action.entity_type == "player":
        player_buys_private(game, action)
        return
    company = game.current_company(action)
    private = game.privates.get(action.company)
    sellers = game.rules.private_sellers(game, company)
    if private is None or private.closed or private.owner not in sellers:
        raise ActionRefused(f"{action.company} is not for sale to {company}")
    reason = game.rules.private_sale_refusal(game, company, private, action.price)
    if reason:
        raise ActionRefused(reason)
    if game.cash[company] < action.price:
        raise ActionRefused(f"{company} has ${game.cash[company]}")
    seller = private.owner
    assert seller is not None
    if seller != game.companies[company].president:
        # the seller is not the buyer's president: he must have agreed
        agreed(game, private.data.id, seller, company, action.price, seller)
    trade_private(game, private, seller, company, action.price)
    game.rules.after_private_bought(game, company, private)


def trade_private(
    game: "Game", private: PrivateState, seller: Holder, buyer: Holder, price: int
) -> None:
    """The private changes hands at the price; offers on it lapse."""
    game.pay(buyer, seller, price)
    private.owner = buyer
    game.offers = [o for o in game.offers if o.private != private.data.id]


def offers_to(game: "Game", holder: Holder) -> list[Offer]:
    """The standing offers this player or company may take up."""
    return [
        o
        for o in game.offers
        if holder in (o.seller, o.buyer) and o.by != holder and not game.privates[o.private].closed
    ]


def agreed(
    game: "Game", private: str, seller: Holder, buyer: Holder, price: int, by: Holder
) -> None:
    """Refuse a sale the other side has not offered (3.2b: a price the two
    agree); in a log of the site, which records only the sale, the two
    agreed off the record."""
    if game.rules.sales_agreed_off_record():
        return
    for offer in game.offers:
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
        for o in offers_to(game, buyer if by == seller else seller)
        if o.private == private
    ]
    what = "offered" if by == seller else "offered to buy"
    raise ActionRefused(
        f"{by} has not {what} {private} for ${price} (3.2b: a price both agree);"
        f" standing offers: {', '.join(standing) or 'none'}"
    )


def trade_refusal(game: "Game", private: PrivateState | None, name: str) -> str | None:
    """3.2b: why players may not trade this private now, or None."""
    if not game.rules.players_trade_privates(game):
        return "players may not sell private companies to each other now"
    if game.round != "stock":
        return "players sell private companies to each other in stock rounds (3.2b)"
    if private is None or private.closed or not isinstance(private.owner, int):
        return f"{name} is not a private company owned by a player"
    return None


def player_buys_private(game: "Game", action: act.BuyCompany) -> None:
    """3.2c4: the buyer's one purchase of the turn, at the price the owner
    offered him."""
    player = game.player_of(action)
    private = game.privates.get(action.company)
    reason = trade_refusal(game, private, action.company)
    if reason:
        raise ActionRefused(reason)
    assert private is not None and private.owner is not None
    seller = private.owner
    if seller == player:
        raise ActionRefused(f"{action.company} is yours already")
    check_private_buyer(game, player, action.price)
    agreed(game, action.company, seller, player, action.price, seller)
    trade_private(game, private, seller, player, action.price)
    ability = private.data.ability
    if ability is not None and ability.share and game.rules.share_goes_with_private():
        share = game.cert(ability.share)
        if share.owner != player:
            game.transfer([share], share.owner, player, share.percent)
    game.stock_turn_done(player, passed=False)


def check_private_buyer(game: "Game", player: int, price: int) -> None:
    """3.2, 3.3c: the buyer's one purchase a turn, certificate limit and cash."""
    if game.round == "stock" and game.stock_bought_this_turn and game.stock_next == player:
        raise ActionRefused("one certificate bought a turn (3.2); sell or PASS")
    if game.certificate_count(player) >= game.cert_limit:
        raise ActionRefused(f"player {player} is at the certificate limit {game.cert_limit} (3.3c)")
    if price < 1:
        raise ActionRefused("a private sells for at least $1 (3.2b)")
    if game.cash[player] < price:
        raise ActionRefused(f"player {player} has ${game.cash[player]}")


def sell_company(game: "Game", action: act.SellCompany) -> None:
    """3.2b: on his turn the owner sells a private to a player who offered
    to buy it; not a purchase, so his turn goes on."""
    player = game.player_of(action)
    private = game.privates.get(action.company)
    reason = trade_refusal(game, private, action.company)
    if reason:
        raise ActionRefused(reason)
    assert private is not None
    if private.owner != player:
        raise ActionRefused(f"{action.company} is not yours to sell")
    if action.to not in game.players or action.to == player:
        raise ActionRefused(f"{action.to} is not another player in this game")
    agreed(game, action.company, player, action.to, action.price, action.to)
    check_private_buyer(game, action.to, action.price)
    trade_private(game, private, player, action.to, action.price)
    game.stock_passes = 0
    game.stock_last_actor = player
    game.stock_sold_this_turn = True


def offer_company(game: "Game", action: act.OfferCompany) -> None:
    """An offer stands until taken up, withdrawn (price 0) or the private
    changes hands; a new offer between the same two replaces the old."""
    player = game.player_of(action)
    private = game.privates.get(action.company)
    if private is None or private.closed or not isinstance(private.owner, int):
        raise ActionRefused(f"{action.company} is not a private company owned by a player")
    if action.price == 0:
        game.offers = [
            o for o in game.offers if not (o.private == action.company and o.by == player)
        ]
        return
    to = action.to
    if private.owner == player:
        if to == player or (to not in game.players and to not in game.companies):
            raise ActionRefused("offer a private to another player or to a company")
        if to in game.players and not game.rules.players_trade_privates(game):
            raise ActionRefused("players may not sell private companies to each other now")
        if to in game.companies and player not in game.rules.private_sellers(game, str(to)):
            raise ActionRefused(f"{to} buys private companies only from its president")
        assert to is not None
        seller, buyer = player, to
    else:
        if to not in (None, private.owner):
            raise ActionRefused(f"{action.company} belongs to player {private.owner}")
        if not game.rules.players_trade_privates(game):
            raise ActionRefused("players may not sell private companies to each other now")
        seller, buyer = private.owner, player
    game.offers = [
        o
        for o in game.offers
        if (o.private, o.seller, o.buyer, o.by) != (action.company, seller, buyer, player)
    ]
    game.offers.append(Offer(action.company, seller, buyer, action.price, player))


def may_buy_private(game: "Game", company: str, kinds: frozenset[str] | None = None) -> bool:
    """Whether the company could buy a private now (of these abilities)."""
    sellers = game.rules.private_sellers(game, company)
    cash = game.cash[company]
    for private in game.privates.values():
        if private.closed or private.owner not in sellers:
            continue
        ability = private.data.ability
        if kinds is not None and (ability is None or ability.kind not in kinds):
            continue
        value = private.data.value
        for price in sorted({value // 2, (value + 1) // 2, value}):
            if price <= cash and not game.rules.private_sale_refusal(game, company, private, price):
                return True
    return False


class BuyPrivates(Step):
    """4.2g: the operating company buys a private, at any time of its turn."""

    name = "buy privates"
    actions = frozenset(("buy_company",))
    any_time = True

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.BuyCompany)
        buy_company(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open while the company could buy a private, or a private it owns has
        an ability left to use at any time of the turn."""
        turn = game.turn
        assert turn is not None
        company = turn.company
        for_sale = game.rules.privates_for_sale_in_phase(game)
        return (for_sale and may_buy_private(game, company)) or any(
            p.owner == company and not p.closed and p.uses < p.data.ability.count
            for p in game.privates.values()
            if p.data.ability is not None and p.data.ability.any_time
        )


class TradePrivates(Step):
    """3.2b, 3.2c4: in his stock turn a player buys a private another player
    offered him, or sells his own to a player who offered to buy it."""

    name = "trade privates"
    actions = frozenset(("buy_company", "sell_company"))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.stock_next,))

    def refusal(self, game: "Game", actor: Holder) -> str:
        return f"it is player {game.stock_next}'s turn, not {actor}'s"

    def process(self, game: "Game", action: act.Action) -> None:
        if isinstance(action, act.SellCompany):
            sell_company(game, action)
        else:
            assert isinstance(action, act.BuyCompany)
            buy_company(game, action)


class OfferPrivates(Step):
    """A standing offer for a private (3.2b): any player, whoever is to move."""

    name = "offer privates"
    actions = frozenset(("offer_company",))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset(game.players)

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.OfferCompany)
        offer_company(game, action)
