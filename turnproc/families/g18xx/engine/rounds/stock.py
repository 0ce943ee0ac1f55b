"""The stock round (3): players in turn par companies, buy and sell shares and
trade privates; everyone passing in a row ends it (3.6)."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.state import ActionRefused
from turnproc.families.g18xx.engine.steps import shares
from turnproc.families.g18xx.engine.steps.privates import TradePrivates

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def can_act(game: "Game", player: int) -> bool:
    """3.2: whether the player could buy or sell."""
    return shares.may_sell_any(game, player) or shares.may_buy_any(game, player)


def turn_done(game: "Game", player: int, passed: bool) -> None:
    """A pass ends a stock turn; so does a buy, unless the player may still
    sell (3.2: one buy, before or after all sales). The round's last
    actor's left-hand neighbour gets the priority deal (3.6)."""
    if passed and not (game.stock_bought_this_turn or game.stock_sold_this_turn):
        game.stock_passes += 1
    elif passed:
        # ending a turn in which he bought or sold is no pass (3.6)
        game.stock_passes = 0
    else:
        game.stock_passes = 0
        game.stock_last_actor = player
        if not game.stock_sold_this_turn and shares.may_sell_any(game, player):
            game.stock_bought_this_turn = True
            return
    game.stock_next = game.next_player(player)
    game.stock_bought_this_turn = False
    game.stock_sold_this_turn = False
    pass_idle_players(game)


def pass_idle_players(game: "Game") -> None:
    """A player who can neither buy nor sell passes without being asked;
    when everyone has passed in a row the operating rounds begin (3.6)."""
    for _ in game.players:
        if can_act(game, game.stock_next) or game.stock_passes >= len(game.players):
            break
        game.stock_passes += 1
        game.stock_next = game.next_player(game.stock_next)
    if game.stock_passes >= len(game.players) and game.round == "stock":
        end(game)
        game.start_operating_round()


def start(game: "Game") -> None:
    """3: the stock round begins with the priority deal."""
    game.round = "stock"
    game.sold_this_round = {p: set() for p in game.players}
    game.stock_next = game.priority
    game.stock_passes = 0
    game.stock_last_actor = None
    game.stock_bought_this_turn = False
    game.stock_sold_this_turn = False
    pass_idle_players(game)


def end(game: "Game") -> None:
    """3.6: companies all in players' hands move up, highest price first."""
    if game.stock_last_actor is not None:
        game.priority = game.next_player(game.stock_last_actor)
    sold_out = [
        c
        for c, s in game.companies.items()
        if s.par is not None and sum(game.percent_of(p, c) for p in game.players) >= 100
    ]
    for company in sorted(sold_out, key=game.market.order_key):
        game.market.move_up(company)
    game.ors_in_set = game.rules.operating_rounds_in_set(
        game,
        game.title.phases[game.phase_index].operating_rounds or game.title.operating_rounds_per_set,
    )


class StockRound(Round):
    """3: par, buy, sell, trade privates, pass."""

    name = "stock"

    def start(self, game: "Game") -> None:
        start(game)

    def enter(self, game: "Game", action: act.Action) -> None:
        if game.acting_company(action) is not None:
            raise ActionRefused(f"the stock round goes on: player {game.stock_next} is to move")

    def to_move(self, game: "Game") -> int | None:
        return game.stock_next


def stock_round() -> StockRound:
    """The stock round (3) and its steps."""
    return StockRound(
        (
            shares.ParShares(),
            shares.BuyShares(),
            shares.SellShares(),
            TradePrivates(),
            shares.PassTurn(),
        )
    )
