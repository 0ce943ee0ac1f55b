"""3.2: par a company, buy and sell shares."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    IPO,
    POOL,
    ActionRefused,
    Cert,
    Holder,
)
from turnproc.families.g18xx.engine.steps import dividend, privates
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def par(game: "Game", action: act.Par) -> None:
    """3.2c1: buy the president's certificate and set the par value."""
    player = game.player_of(action)
    state = game.companies.get(action.corporation)
    if state is None or state.par is not None:
        raise ActionRefused(f"{action.corporation} cannot be started")
    try:
        price, row, col = (int(x) for x in action.share_price.split(","))
    except ValueError:
        raise ActionRefused(f"bad par value {action.share_price!r}") from None
    cell = (
        game.market.grid[row][col]
        if 0 <= row < len(game.market.grid) and 0 <= col < len(game.market.grid[row])
        else None
    )
    if cell is None or not cell.par or cell.price != price or price not in game.title.par_prices:
        raise ActionRefused(f"par values are {', '.join(f'${p}' for p in game.title.par_prices)}")
    check_buy_limits(game, player, action.corporation, 20)
    game.check_cash(player, 2 * price)
    state.par = price
    game.market.place(action.corporation, row, col)
    top = game.certs[f"{action.corporation}_0"]
    game.pay(player, BANK, 2 * price)
    game.transfer([top], IPO, player, top.percent)
    state.president = player
    game.stock_turn_done(player, passed=False)


def check_buy_limits(game: "Game", player: int, company: str, percent: int) -> None:
    """3.2, 3.3: one purchase a turn, no rebuying what he sold, the
    holding and certificate limits."""
    if game.round == "stock" and game.stock_bought_this_turn:
        # 3.2: one purchase a turn; a player who bought may still sell
        raise ActionRefused("one certificate bought a turn (3.2); sell or PASS")
    if company in game.sold_this_round.get(player, set()):
        raise ActionRefused(f"no buying {company} after selling it this round (3.2)")
    yellow = game.market.where.get(company) is not None and game.market.cell(company).yellow
    if game.percent_of(player, company) + percent > game.title.holding_limit_percent and not yellow:
        raise ActionRefused(
            f"no player may hold more than {game.title.holding_limit_percent}% (3.3a)"
        )
    if not yellow and game.certificate_count(player) >= game.cert_limit:
        raise ActionRefused(f"certificate limit {game.cert_limit} reached (3.3b)")


def buy_shares(game: "Game", action: act.BuyShares) -> None:
    """3.2c: buy from the treasury at par or from the open market at its
    price; the company floats once enough of it is sold."""
    player = game.player_of(action)
    certs = [game.cert(s) for s in action.shares]
    company = certs[0].company
    source = certs[0].owner
    if source not in (IPO, POOL) or any(c.owner != source or c.company != company for c in certs):
        raise ActionRefused(f"{', '.join(action.shares)} not for sale")
    state = game.companies[company]
    if state.par is None:
        raise ActionRefused(f"{company} has no par value yet")
    per_share = state.par if source == IPO else game.market.price(company)
    price = per_share * action.percent // 10
    check_buy_limits(game, player, company, action.percent)
    game.check_cash(player, price)
    game.pay(player, BANK, price)
    game.transfer(certs, source, player, action.percent)
    if not state.floated and game.percent_of(IPO, company) <= 100 - game.title.float_percent:
        state.floated = True
        game.pay(BANK, company, state.par * game.title.shares_per_company)
    game.stock_turn_done(player, passed=False)


def sell_shares(game: "Game", action: act.SellShares) -> None:
    """3.2a: sell to the open market at the market value, then one row down per share."""
    player = game.player_of(action)
    certs = [game.cert(s) for s in action.shares]
    company = certs[0].company
    if any(c.owner != player or c.company != company for c in certs):
        raise ActionRefused(f"{', '.join(action.shares)} are not yours to sell")
    if action.percent <= 0 or action.percent > sum(c.percent for c in certs) or action.percent % 10:
        raise ActionRefused(f"cannot sell {action.percent}%")
    if game.round == "stock" and game.set_number == 0:
        raise ActionRefused("no selling in the first stock round (3.2a1)")
    if game.percent_of(POOL, company) + action.percent > game.title.market_pool_limit_percent:
        raise ActionRefused(
            f"the open market may hold at most {game.title.market_pool_limit_percent}% (3.2a2)"
        )
    if game.round == "operating":
        dividend.pass_dividend_step(game)
    sell_bundle(game, player, certs, action.percent)
    if game.round == "operating":
        game.reorder_waiting()


def sell_bundle(game: "Game", player: int, certs: list[Cert], percent: int) -> None:
    """3.2a: the market pays, the certificates go to the open market, the
    price drops a row per share."""
    company = certs[0].company
    price = game.market.price(company) * percent // 10
    game.pay(BANK, player, price)
    game.transfer(certs, player, POOL, percent)
    if game.round == "stock":
        game.sold_this_round[player].add(company)
        game.stock_passes = 0
        game.stock_last_actor = player
        game.stock_sold_this_turn = True
        # a player left with nothing more to do in his turn is passed on
        # without being asked
        if not may_sell_any(game, player) and (
            game.stock_bought_this_turn or not may_buy_any(game, player)
        ):
            game.stock_turn_done(player, passed=False)
    for _ in range(percent // 10):
        game.market.move_down(company)


def may_buy_any(game: "Game", player: int) -> bool:
    """Whether the player could buy a certificate or a private now (3.2)."""
    cash = game.cash[player]
    trade = game.rules.players_trade_privates(game)
    if (
        cash > 0
        and trade
        and any(
            isinstance(p.owner, int) and p.owner != player and not p.closed
            for p in game.privates.values()
        )
    ):
        # another player's private may be bought for any amount
        return True
    if trade and any(
        o.seller == player and isinstance(o.buyer, int) for o in privates.offers_to(game, player)
    ):
        # a player's offer for one of his privates may be taken up
        return True
    full = game.certificate_count(player) >= game.cert_limit
    for company, state in game.companies.items():
        if company in game.sold_this_round.get(player, set()):
            continue
        if state.par is None:
            if not full and 2 * min(game.title.par_prices) <= cash:
                return True
            continue
        yellow = game.market.cell(company).yellow
        if (full and not yellow) or (
            game.percent_of(player, company) + 10 > game.title.holding_limit_percent and not yellow
        ):
            continue
        if any(not c.president for c in game.shares_of(IPO, company)) and state.par <= cash:
            return True
        if game.shares_of(POOL, company) and game.market.price(company) <= cash:
            return True
    return False


def may_sell_any(game: "Game", player: int) -> bool:
    """3.2a: whether the player could sell a share now."""
    if game.set_number == 0:
        return False
    for company, state in game.companies.items():
        own = game.percent_of(player, company)
        if not own or state.par is None:
            continue
        if game.percent_of(POOL, company) + 10 > game.title.market_pool_limit_percent:
            continue
        others = max(game.percent_of(p, company) for p in game.players if p != player)
        if state.president != player or own - 10 >= 20 or others >= 20:
            return True
    return False


class StockTurn(Step):
    """A step of a player's stock turn (3.2): only the player to move acts."""

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.stock_next,))

    def refusal(self, game: "Game", actor: Holder) -> str:
        return f"it is player {game.stock_next}'s turn, not {actor}'s"


class ParShares(StockTurn):
    """3.2c1: start a company: its president's certificate at a par value."""

    name = "par"
    actions = frozenset(("par",))

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.Par)
        par(game, action)


class BuyShares(StockTurn):
    """3.2c: buy a certificate from the company's treasury or the open market."""

    name = "buy shares"
    actions = frozenset(("buy_shares",))

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.BuyShares)
        buy_shares(game, action)


class SellShares(StockTurn):
    """3.2a: sell certificates to the open market."""

    name = "sell shares"
    actions = frozenset(("sell_shares",))

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.SellShares)
        sell_shares(game, action)


class EmergencySale(SellShares):
    """4.2.5.2d: the operating company's president sells shares to pay for
    a train."""

    name = "sell shares for a train"

    def actors(self, game: "Game") -> frozenset[Holder]:
        company = game.operating_company()
        president = game.companies[company].president if company is not None else None
        return frozenset((president,)) if president is not None else frozenset()

    def refusal(self, game: "Game", actor: Holder) -> str:
        return f"only the operating company's president sells shares now (4.2.5.2), not {actor}"


class PassTurn(StockTurn):
    """3.2, 3.6: the player ends his stock turn (a pass if he did nothing)."""

    name = "pass"
    actions = frozenset(("pass",))

    def process(self, game: "Game", action: act.Action) -> None:
        game.stock_turn_done(game.player_of(action), passed=True)
