"""4.2.4: pay out or withhold."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    POOL,
    ActionRefused,
    Holder,
)
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def dividend(game: "Game", action: act.Dividend) -> None:
    """4.2.4: pay out (open-market shares pay the company) or withhold."""
    company = game.current_company(action)
    assert game.turn is not None
    if game.turn.ran:
        raise ActionRefused(f"{company} has already paid or withheld")
    revenue = game.turn.revenue or 0
    game.turn.ran = True
    retire_obsolete(game, company)
    if action.kind == "withhold" or revenue == 0:
        game.pay(BANK, company, revenue)
        game.market.move_left(company)
        return
    if action.kind != "payout":
        raise ActionRefused("pay out or withhold")
    per_share = revenue // game.title.shares_per_company
    holders: list[Holder] = [*game.players, POOL]
    for holder in holders:
        amount = game.percent_of(holder, company) // 10 * per_share
        if amount:
            game.pay(BANK, company if holder == POOL else holder, amount)
    game.market.move_right(company)


def pass_dividend_step(game: "Game") -> None:
    """4.2.4: a company that runs no train withholds nothing and moves left,
    as soon as its turn goes past the dividend step."""
    if game.turn is not None and not game.turn.ran:
        game.turn.ran = True
        retire_obsolete(game, game.turn.company)
        game.market.move_left(game.turn.company)


def retire_obsolete(game: "Game", company: str) -> None:
    """Obsolete trains leave play once the company has run them (or let
    its run pass)."""
    for train in game.trains_of(company):
        if train.obsolete:
            train.rusted = True
            train.owner = None


class Dividend(Step):
    """4.2.4: the operating company pays out or withholds its revenue."""

    name = "dividend"
    actions = frozenset(("dividend",))
    once_a_turn = True

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.Dividend)
        dividend(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open when the run earned something not yet paid or withheld."""
        turn = game.turn
        assert turn is not None
        return not turn.ran and bool(turn.revenue)
