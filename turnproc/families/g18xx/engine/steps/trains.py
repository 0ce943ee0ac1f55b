"""4.2.5: buy trains from the bank or another company; phases and rusting."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    ActionRefused,
    Holder,
    Train,
)
from turnproc.families.g18xx.engine.steps import dividend
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.steps.routes import has_route
from turnproc.families.g18xx.engine.title import TrainType

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def available_trains(game: "Game") -> list[Train]:
    """4.2.5b: trains leave the bank in order; some wait for a phase. The
    trains discarded to the open market are on sale too (4.2.5c)."""
    waiting = [t for t in game.trains if t.owner is None and not t.rusted and t.sellable]
    out = [t for t in waiting if t.discarded]
    waiting = [t for t in waiting if not t.discarded]
    if not waiting:
        return out
    first = waiting[0].type.name
    names = [p.name for p in game.title.phases]
    for train in waiting:
        kind = train.type
        if kind.name == first or (
            kind.after_phase and names.index(kind.after_phase) <= game.phase_index
        ):
            out.append(train)
    return out


def buy_train(game: "Game", action: act.BuyTrain) -> None:
    """4.2.5: from the bank in order (one a turn) or from another company."""
    company = game.current_company(action)
    assert game.turn is not None
    dividend.pass_dividend_step(game)
    train = next((t for t in game.trains if t.id == action.train and not t.rusted), None)
    if train is None:
        raise ActionRefused(f"no train {action.train}")
    limit = game.title.phases[game.phase_index].train_limit
    if game.trains_counted(company) >= limit:
        raise ActionRefused(f"{company} already has {limit} trains (4.2.5g)")
    if train.owner is not None:
        side = None
        if action.variant and action.variant != train.name:
            side = card_side(game, train, action.variant)
        buy_used_train(game, company, train, action.price)
        if side is not None:
            train.name, train.price, train.cities, train.multiplier = side
        return
    if train not in available_trains(game):
        raise ActionRefused(f"train {action.train} is not on sale yet")
    most = game.rules.bank_trains_per_turn(game)
    if most is not None and game.turn.bank_trains >= most:
        raise ActionRefused(f"{most} train(s) from the bank a turn (4.2.5f)")
    price, name, cities, multiplier = (
        train.type.price,
        train.type.name,
        train.type.cities,
        train.type.multiplier,
    )
    if train.discarded:
        # 4.7g: a discarded train keeps the side it was bought as
        price, name, cities, multiplier = (
            train.price,
            train.name,
            train.cities,
            train.multiplier,
        )
        if action.variant and action.variant != train.name:
            raise ActionRefused(f"train {train.id} is a {train.name} train")
    elif action.variant and action.variant != train.type.name:
        variant = next((v for v in train.type.variants if v.name == action.variant), None)
        if variant is None:
            raise ActionRefused(f"no {action.variant} variant of {train.type.name}")
        price, name, cities, multiplier = (
            variant.price,
            variant.name,
            variant.cities,
            variant.multiplier,
        )
    if action.entity_type == "company":
        private = game.privates[str(action.entity)]
        ability = private.data.ability
        if ability is None or ability.kind != "train_discount" or name not in ability.trains:
            raise ActionRefused(f"{action.entity} gives no discount on a {name} train")
        price -= game.rules.train_discount(private)
        private.closed = True
    if action.price != price:
        raise ActionRefused(f"a {name} train costs ${price}")
    president = game.companies[company].president
    assert president is not None
    assist, fee = game.rules.president_assist(game, company, train, price)
    if assist:
        game.pay(president, BANK, assist + fee)
        game.pay(BANK, company, assist)
    if price > game.cash[company]:
        if game.trains_of(company):
            raise ActionRefused(f"{company} has ${game.cash[company]}")
        shortfall = price - game.cash[company]
        if game.cash[president] >= shortfall:
            game.pay(president, company, shortfall)
        elif not game.rules.allows_loans():
            raise ActionRefused(
                f"{company} and its president have ${game.cash[company] + game.cash[president]}"
            )
        else:
            # 4.2.5.2: the president borrows what he cannot raise
            own = max(game.cash[president], 0)
            debt = shortfall - own
            game.pay(BANK, company, debt)
            game.pay(president, company, own)
            fee = game.rules.loan_fee(debt)
            game.pay(president, BANK, debt + fee)  # into debt
    game.pay(company, BANK, price)
    train.owner = company
    train.discarded = False
    train.name, train.price, train.cities, train.multiplier = name, price, cities, multiplier
    game.turn.bank_trains += 1
    if train.type.name not in game.types_bought:
        first_of_type(game, train.type)


def first_of_type(game: "Game", kind: TrainType) -> None:
    """The first train of a type bought: a new phase, rusting, privates closing."""
    game.types_bought.add(kind.name)
    if kind.phase:
        game.advance_phase(kind.phase)
    if kind.rusts:
        soft = game.rules.obsolete_not_rusted(kind.rusts)
        for old in game.trains:
            if old.name == kind.rusts and not old.rusted:
                if soft and old.owner is not None:
                    # a company's train runs once more; the bank's go now
                    old.obsolete = True
                    old.sellable = False
                    continue
                if old.owner is not None and old.type.salvage:
                    # 18Dixie 4.6: a removed train pays its salvage value
                    game.pay(BANK, old.owner, old.type.salvage)
                old.rusted = True
                old.owner = None
    if kind.closes_privates:
        for private in game.privates.values():
            private.closed = True
    game.rules.first_train_bought(game, kind)
    check_train_limits(game)


def check_train_limits(game: "Game") -> None:
    """4.2.5g: after a phase change every company over the new limit must
    discard, in operating order; until then no one else acts."""
    order = sorted((c for c, s in game.companies.items() if s.floated), key=game.market.order_key)
    game.discards = [c for c in order if game.trains_counted(c) > game.train_limit()]


def card_side(game: "Game", train: Train, side: str) -> tuple[str, int, int, int]:
    """The other side of a two-sided train card bought from another
    company, in the edition that lets the buyer turn it (4.2.5b: the side
    is chosen when the card leaves the bank)."""
    sides = [
        (train.type.name, train.type.price, train.type.cities, train.type.multiplier),
        *((v.name, v.price, v.cities, v.multiplier) for v in train.type.variants),
    ]
    chosen = next((s for s in sides if s[0] == side), None)
    if chosen is None or not game.rules.used_cards_turn():
        raise ActionRefused(f"train {train.id} is a {train.name} train")
    return chosen


def buy_used_train(game: "Game", company: str, train: Train, price: int) -> None:
    """4.2.5: a train from another company, for at least $1."""
    seller = train.owner
    assert seller is not None
    if seller == company:
        raise ActionRefused(f"{company} already owns {train.id}")
    if not train.sellable:
        raise ActionRefused(f"train {train.id} may not be sold")
    if price < 1:
        raise ActionRefused(f"a train is sold for at least $1, not ${price}")
    president = game.companies[company].president
    assert president is not None
    assist, fee = game.rules.president_assist(game, company, train, price)
    shortfall = price - game.cash[company] - assist
    if shortfall > 0:
        # the edition that lets a president pay for another company's
        # train when his own company must buy one, up to its face value
        forced = not game.trains_of(company) and game.rules.president_funds_used_train()
        if not forced or price > train.price or game.cash[president] < shortfall:
            raise ActionRefused(f"{company} cannot pay ${price} for {train.id}")
    if assist:
        game.pay(president, BANK, assist + fee)
        game.pay(BANK, company, assist)
    if shortfall > 0:
        game.pay(president, company, shortfall)
    game.pay(company, seller, price)
    train.owner = company


class BuyTrains(Step):
    """4.2.5: the operating company buys trains."""

    name = "buy trains"
    actions = frozenset(("buy_train",))

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.BuyTrain)
        buy_train(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open while the company has room and could pay for a train, or must buy one."""
        turn = game.turn
        assert turn is not None
        company = turn.company
        cash = game.cash[company]
        mine = game.trains_of(company)
        if game.trains_counted(company) >= game.train_limit():
            return False
        per_turn = game.rules.bank_trains_per_turn(game)
        discounts = [
            p
            for p in game.privates.values()
            if p.owner == company
            and not p.closed
            and p.data.ability is not None
            and p.data.ability.kind == "train_discount"
        ]
        bank = [
            t.price
            - max(
                (
                    game.rules.train_discount(p)
                    for p in discounts
                    if p.data.ability is not None and t.name in p.data.ability.trains
                ),
                default=0,
            )
            for t in available_trains(game)
            if per_turn is None or turn.bank_trains < per_turn
        ]
        if bank and cash >= min(bank):
            return True
        if cash >= 1 and any(
            t.sellable and t.owner != company and t.owner is not None and not t.rusted
            for t in game.trains
        ):
            return True
        # 4.2.5.2: a company with a route and no train must buy one
        return not mine and bool(available_trains(game)) and has_route(game, company)
