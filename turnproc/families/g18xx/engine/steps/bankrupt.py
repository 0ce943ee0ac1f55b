"""4.2.5.2: a president who cannot raise the money for a forced train goes bankrupt."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    POOL,
    TRAINS,
    ActionRefused,
    Cert,
    Holder,
)
from turnproc.families.g18xx.engine.steps import shares, trains
from turnproc.families.g18xx.engine.steps.base import Step

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def bankrupt(game: "Game", action: act.Bankrupt) -> None:
    """The president of a company that must buy a train and cannot goes
    bankrupt: he sells what the market takes, gives up his cash, and the
    game ends."""
    company = game.current_company(action)
    player = game.companies[company].president
    assert player is not None
    cheapest = min((t.price for t in trains.available_trains(game)), default=0)
    power = emergency_power(game, player, company)
    forced = not game.trains_of(company) or game.rules.bankrupt_with_trains()
    if not forced or power >= cheapest:
        raise ActionRefused(
            f"{company} and its president can raise ${power}; the cheapest train costs ${cheapest}"
        )
    # the site's edition sells shares only when bankruptcy comes in the
    # train step, where selling is open
    sells = not game.rules.bankrupt_with_trains() or (
        game.turn is not None and game.turn.step == TRAINS
    )
    for held in game.companies if sells else ():
        if game.market.where.get(held) is None or not game.shares_of(player, held):
            continue
        sell_most(game, player, held, keep_presidency=held == company)
    if game.cash[player] > 0:
        game.pay(player, BANK, game.cash[player])
    game.bankrupt.add(player)
    game.ended = True
    game.end_reason = "bankrupt"


def emergency_power(game: "Game", player: int, operating: str) -> int:
    """What the company and its president can raise for a forced train
    (4.2.5.2d): their cash and the shares the president may sell without
    giving up the operating company."""
    power = game.cash[operating] + game.cash[player]
    cheapest = min((t.price for t in trains.available_trains(game)), default=0)
    # the site's edition counts, of each company, only the shares needed:
    # no more than make up what the cheapest train still lacks
    needed = cheapest - power if game.rules.bankrupt_with_trains() else None
    if needed is not None and (game.turn is None or game.turn.step != TRAINS):
        return power  # shares are sold only in the train step
    for company, state in game.companies.items():
        own = game.percent_of(player, company)
        if not own or company not in game.market.where:
            continue
        room = game.title.market_pool_limit_percent - game.percent_of(POOL, company)
        others = max((game.percent_of(p, company) for p in game.players if p != player), default=0)
        most = min(own, room) // 10 * 10
        if state.president == player:
            keep = max(others, 20) if company == operating else 20
            if company == operating or others < 20:
                most = min(most, max(own - keep, 0) // 10 * 10)
        price = game.market.price(company)
        if needed is not None:
            enough = max(needed - 1, 0) // price + 1 if needed > 0 else 0
            most = min(most, enough * 10)
        power += price * most // 10
    return power


def sell_most(game: "Game", player: int, company: str, keep_presidency: bool = False) -> None:
    """The largest sale the market allows (pool limit; the presidency only
    to a player holding enough, and not that of the company operating,
    4.2.5.2)."""
    own = game.percent_of(player, company)
    room = game.title.market_pool_limit_percent - game.percent_of(POOL, company)
    others = max((game.percent_of(p, company) for p in game.players if p != player), default=0)
    president = game.companies[company].president == player
    for percent in range(min(own, room) // 10 * 10, 0, -10):
        if president and keep_presidency and own - percent < max(others, 20):
            continue
        keeps_top = own - percent >= 20
        if president and not keeps_top and others < 20:
            continue
        certs = sorted(game.shares_of(player, company), key=lambda c: c.president)
        chosen: list[Cert] = []
        for cert in certs:
            if sum(c.percent for c in chosen) >= percent:
                break
            if cert.president and keeps_top:
                continue
            chosen.append(cert)
        if sum(c.percent for c in chosen) >= percent:
            shares.sell_bundle(game, player, chosen, percent)
            return


class Bankruptcy(Step):
    """4.2.5.2: the operating company's president declares bankruptcy."""

    name = "bankruptcy"
    actions = frozenset(("bankrupt",))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.Bankrupt)
        bankrupt(game, action)
