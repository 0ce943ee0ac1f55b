"""Operating rounds (4): each floated company in market order takes its turn,
the steps of 4.2 in order (home token, track, token, run, dividend, trains, with
private purchases and abilities at any time); an action for a later step or
for the next company closes the steps it skips, as the rules would (a company
that does not run trains withholds, 4.2.4)."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.rounds.base import Round
from turnproc.families.g18xx.engine.state import BANK, END, ActionRefused, Turn
from turnproc.families.g18xx.engine.steps import dividend, token
from turnproc.families.g18xx.engine.steps.bankrupt import Bankruptcy
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.steps.dividend import Dividend
from turnproc.families.g18xx.engine.steps.privates import BuyPrivates
from turnproc.families.g18xx.engine.steps.routes import RunRoutes
from turnproc.families.g18xx.engine.steps.shares import EmergencySale
from turnproc.families.g18xx.engine.steps.token import PlaceToken
from turnproc.families.g18xx.engine.steps.track import LayTrack
from turnproc.families.g18xx.engine.steps.trains import BuyTrains

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game
    from turnproc.families.g18xx.engine.state import Holder


def raising_cash(game: "Game", player: int) -> bool:
    """4.2.5.2d: the operating company's president sells to buy a train
    (also as the first thing of its turn, once the one before has ended)."""
    company = game.operating_company()
    if company is None or game.companies[company].president != player:
        return False
    turn = game.turn
    if turn is not None and turn.company == company and turn.step >= END:
        return False  # its turn is over: a sale now is a stock round's
    if not game.trains_of(company):
        return True
    return (
        turn is not None
        and turn.company == company
        and (game.rules.president_sells_in_train_step())
    )


def start(game: "Game") -> None:
    """4: privates pay; the floated companies operate in market order (4b)."""
    if game.round == "stock":
        game.set_number += 1
        game.round_in_set = 0
    game.round = "operating"
    game.operating_round += 1
    game.round_in_set += 1
    game.rules.start_operating_round(game)
    for private in game.privates.values():
        if private.owner is not None and not private.closed:
            game.pay(BANK, private.owner, game.rules.private_revenue(private.data))
    floated = [c for c, s in game.companies.items() if s.floated]
    game.order = sorted(floated, key=game.market.order_key)
    game.done = set()
    game.turn = None
    if not game.order:
        # 4: with no company floated the round is its privates' revenue
        # alone; the next round of the set, or the stock round, follows
        close(game)
        if game.ended:
            return
        if game.round_in_set < game.ors_in_set:
            start(game)
        else:
            game.rules.end_of_set(game)
            game.start_stock_round()


def reorder_waiting(game: "Game") -> None:
    """4b: the companies still to operate go in order of their market
    value as it is now (a sale during the round can change it)."""
    current = game.turn.company if game.turn is not None else None
    settled = [c for c in game.order if c in game.done or c == current]
    waiting = [c for c in game.order if c not in settled]
    game.order = settled + sorted(waiting, key=game.market.order_key)


def begin_turn(game: "Game", company: str) -> None:
    """4.2a: a company's turn begins with its home station, if not yet placed."""
    state = game.companies[company]
    game.turn = Turn(company, first=not state.operated)
    untracked = not game.hexes[state.home].track and game.rules.first_city_without_track()
    if not state.home_placed and (not state.home_city_chosen or untracked):
        token.place_home(game, company)


def finish_turn(game: "Game") -> None:
    """4.2: the company's turn is over."""
    if game.turn is None:
        return
    dividend.pass_dividend_step(game)
    game.companies[game.turn.company].operated = True
    game.done.add(game.turn.company)
    game.turn = None


def advance_to(game: "Game", company: str, step: int | None = None) -> None:
    """Begin the company's turn unless it is operating. The company last
    in one round and first in the next starts its new turn when its
    current one is over (4.2) or the action belongs to a step it is past."""
    turn = game.turn
    if turn is not None and turn.company == company:
        others = [c for c in game.order if c not in game.done and c != company]
        over = turn.step >= END or (step is not None and step < turn.step)
        if others or not over or game.round_in_set >= game.ors_in_set:
            return
    if company not in game.order:
        raise ActionRefused(f"{company} does not operate in this round")
    while True:
        if game.turn is not None:
            finish_turn(game)
        waiting = [c for c in game.order if c not in game.done]
        if company in waiting:
            if waiting[0] != company:
                raise ActionRefused(f"{waiting[0]} operates before {company} (4b)")
            begin_turn(game, company)
            return
        if waiting:
            raise ActionRefused(f"{waiting[0]} has not operated yet in this round")
        if game.round_in_set >= game.ors_in_set:
            # the set is over; a stock round in which no one can move
            # passes at once (3.6) and the next set begins
            finish_set(game)
            if game.ended:
                raise ActionRefused("the game is over")
            game.start_stock_round()
            if game.round != "operating":
                raise ActionRefused(f"{company} has already operated in this set of rounds")
        else:
            close(game)
            if game.ended:
                raise ActionRefused("the game is over")
            start(game)
        if company not in game.order:
            raise ActionRefused(f"{company} does not operate in this round")


def close(game: "Game") -> None:
    """4, 5: the round closes; trains made obsolete go; a fixed last round
    or an end trigger ends the game."""
    current = game.turn.company if game.turn is not None else None
    idle = [c for c in game.order if c not in game.done and c != current]
    if idle:
        raise ActionRefused(f"{idle[0]} has not operated yet in this round")
    finish_turn(game)
    for rule in game.title.obsolete_after_operating_round:
        if rule.round == game.operating_round:
            rust(game, rule.train, rule.salvage)
    last = game.rules.last_operating_round()
    if last and game.operating_round >= last:
        game.ended = True
        game.end_reason = game.title.end_reason
    elif game.end_pending is not None:
        game.ended = True
        game.end_reason = game.end_pending


def finish_set(game: "Game") -> None:
    """Close the current round and, at the end of a set, the set itself."""
    if game.round != "operating":
        return
    close(game)
    if not game.ended and game.round_in_set < game.ors_in_set:
        raise ActionRefused("a stock move during a set of operating rounds")
    if not game.ended:
        game.rules.end_of_set(game)


def finish(game: "Game") -> None:
    """End a replay: close the operating round in progress once every
    company has operated (a game ending with it is over)."""
    if game.round != "operating" or game.ended:
        return
    current = game.turn.company if game.turn is not None else None
    if all(c in game.done or c == current for c in game.order):
        close(game)


def rust(game: "Game", name: str, salvage: int) -> None:
    """Trains of this name leave play; their companies get the salvage."""
    for train in game.trains:
        if train.name == name and not train.rusted:
            if train.owner is not None and train.owner in game.companies:
                game.pay(BANK, train.owner, salvage)
            train.rusted = True
            train.owner = None


def end_turn(game: "Game", action: act.Action) -> None:
    """The president ends the company's turn; the round or set moves on
    when it was the last company."""
    game.current_company(action)
    finish_turn(game)
    if [c for c in game.order if c not in game.done]:
        return
    if game.round_in_set < game.ors_in_set:
        close(game)
        if not game.ended:
            start(game)
        return
    finish_set(game)
    if not game.ended:
        game.start_stock_round()


class EndTurn(Step):
    """4.2: the president ends the company's turn (a pass ends the step it
    is at)."""

    name = "end turn"
    actions = frozenset(("end_turn", "pass"))

    def actors(self, game: "Game") -> "frozenset[Holder]":
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        if action.type == "end_turn":
            end_turn(game, action)


class OperatingRound(Round):
    """4: the steps of a company's turn (4.2) in order, the first `turns`
    of `steps`; the rest may come at any point of the turn."""

    name = "operating"

    def __init__(self, steps: "tuple[Step, ...] | list[Step]") -> None:
        super().__init__(steps)
        self.turn_steps = self.steps[:END]
        self.step_of = {
            a: i for i, s in enumerate(self.turn_steps) if not s.any_time for a in s.actions
        }
        self.dividend_step = next(
            i for i, s in enumerate(self.turn_steps) if isinstance(s, Dividend)
        )

    def start(self, game: "Game") -> None:
        start(game)

    def enter(self, game: "Game", action: act.Action) -> None:
        company = game.acting_company(action)
        if company is None:
            if action.type == "sell_shares" and raising_cash(game, int(action.entity)):
                operating = game.operating_company()
                assert operating is not None
                advance_to(game, operating)
                return
            finish_set(game)
            if game.ended:
                raise ActionRefused("the game is over")
            game.start_stock_round()
            return
        if action.type == "end_turn" and game.turn is not None and game.turn.company == company:
            return  # the president ends the turn in progress, over or not
        step = self.step_of.get(action.type) if action.entity_type == "corporation" else None
        advance_to(game, company, step)

    def after(self, game: "Game", action: act.Action) -> None:
        if (
            game.round == self.name
            and game.turn is not None
            and action.entity_type == "corporation"
            and action.entity == game.turn.company
        ):
            self.track_step(game, action)

    def track_step(self, game: "Game", action: act.Action) -> None:
        """Where the operating company is in its turn after its action (4.2):
        a pass ends the step it is at; an action puts it at that action's
        step (after a step done once a turn, at the next); steps it could do
        nothing in are skipped, and past the dividend a company that has not
        run withholds."""
        turn = game.turn
        assert turn is not None
        step = self.step_of.get(action.type)
        if action.type == "place_token" and not turn.tokens:
            step = None  # the home station, placed before the track (4.2a)
        if action.type == "pass":
            while turn.step < END and not self.turn_steps[turn.step].is_open(game):
                turn.step += 1
            turn.step += 1
        elif step is not None:
            once = self.turn_steps[step].once_a_turn
            turn.step = max(turn.step, step + (1 if once else 0))
        while turn.step < END and not self.turn_steps[turn.step].is_open(game):
            turn.step += 1
        if turn.step > self.dividend_step:
            dividend.pass_dividend_step(game)

    def step_open(self, game: "Game", step: int) -> bool:
        return self.turn_steps[step].is_open(game)

    def to_move(self, game: "Game") -> int | None:
        if game.turn is not None:
            return game.companies[game.turn.company].president
        waiting = [c for c in game.order if c not in game.done]
        if waiting:
            return game.companies[waiting[0]].president
        return None


def operating_round() -> OperatingRound:
    """The operating round (4) and its steps, those of a company's turn (4.2) first."""
    return OperatingRound(
        (
            LayTrack(),
            PlaceToken(),
            RunRoutes(),
            Dividend(),
            BuyTrains(),
            BuyPrivates(),
            EmergencySale(),
            Bankruptcy(),
            EndTurn(),
        )
    )
