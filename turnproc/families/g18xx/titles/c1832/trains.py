"""1832's train buying (docs/rules-1832.md 4.2, 10, 13): the bank's trains
in order, the open market's trains, phase changes with scrapping and the
train limit, excess trains discarded without compensation, the cheapest
train once the president contributes, the forced sale down to 60%, and the
broken bank. A pure model of the state it needs, written to become the
1832 train step on the 18xx engine.
"""

from dataclasses import dataclass, field
from typing import Literal

from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832.data import Data1832
from turnproc.families.g18xx.titles.c1832.stock import Refusal

BANK = "bank"
OPEN_MARKET = "open market"


@dataclass
class TrainRoom:
    """The trains of one game: the bank's (in the order sold), the open
    market's and each company's; the phase; the companies' share price order
    (for discards, 10.3)."""

    data: Data1832
    phase: str
    bank: list[str]
    open_market: list[str] = field(default_factory=list)
    owned: dict[str, list[str]] = field(default_factory=dict)
    price_order: list[str] = field(default_factory=list)
    systems: set[str] = field(default_factory=set)

    @classmethod
    def new(cls, data: Data1832) -> "TrainRoom":
        """The bank holds every train; an unlimited type (12) is one card
        that never runs out (2.5)."""
        bank = [t.name for t in data.title.trains for _ in range(t.count or 1)]
        return cls(data, data.title.phases[0].name, bank)

    def price(self, name: str) -> int:
        return next(t.price for t in self.data.title.trains if t.name == name)

    def limit(self, company: str) -> int:
        return mk.train_limit(self.data, self.phase, company in self.systems)

    def next_from_bank(self) -> str | None:
        return self.bank[0] if self.bank else None

    def cheapest(self) -> int | None:
        """10.6: the cheapest train in the bank or the open market."""
        prices = [self.price(t) for t in self.open_market]
        if self.bank:
            prices.append(self.price(self.bank[0]))
        return min(prices) if prices else None

    def buy(
        self,
        company: str,
        train: str,
        source: Literal["bank", "open market"] | str,
        president_contributes: bool = False,
    ) -> list[tuple[str, str]]:
        """Buy one train; returns the trains discarded as (company, train).
        From the bank only the next train (10.1); from the open market any at
        its price; from a company only while the president pays nothing."""
        held = self.owned.setdefault(company, [])
        if len(held) + 1 > self.limit(company):
            raise Refusal("TRAIN_LIMIT", f"{company} is at its limit of {self.limit(company)}")
        if president_contributes:
            if source not in (BANK, OPEN_MARKET):
                raise Refusal(
                    "MUST_BUY_CHEAPEST",
                    "with the president's money only the bank or open market sells (10.6)",
                )
            if self.price(train) != self.cheapest():
                raise Refusal(
                    "MUST_BUY_CHEAPEST",
                    f"the president contributes: the ${self.cheapest()} train (10.6)",
                )
        if source == BANK:
            if self.next_from_bank() != train:
                raise Refusal("NOT_AVAILABLE", f"the bank sells the {self.next_from_bank()} next")
            kind = next(t for t in self.data.title.trains if t.name == train)
            if kind.count is not None:
                self.bank.pop(0)
            held.append(train)
            if any(p.name == train for p in self.data.title.phases) and self._first_of(train):
                return self._phase_change(company, train)
            return []
        if source == OPEN_MARKET:
            if train not in self.open_market:
                raise Refusal("NOT_AVAILABLE", f"no {train}-train in the open market")
            self.open_market.remove(train)
            held.append(train)
            return []
        other = self.owned.get(source, [])
        if train not in other:
            raise Refusal("NOT_AVAILABLE", f"{source} has no {train}-train")
        other.remove(train)
        held.append(train)
        return []

    def _first_of(self, train: str) -> bool:
        """Whether the train's phase is later than the current one."""
        names = [p.name for p in self.data.title.phases]
        return names.index(train) > names.index(self.phase)

    def _phase_change(self, buyer: str, train: str) -> list[tuple[str, str]]:
        """4.2: the new phase; trains it scraps leave play; 10.3: excess
        trains go to the open market, the buyer's first, then in share price
        order [designed: without a choice, the cheapest train goes]."""
        self.phase = train
        kind = next(t for t in self.data.title.trains if t.name == train)
        if kind.rusts is not None:
            for held in self.owned.values():
                held[:] = [t for t in held if t != kind.rusts]
            self.open_market = [t for t in self.open_market if t != kind.rusts]
        discarded = []
        order = [buyer] + [c for c in self.price_order if c != buyer]
        order += [c for c in sorted(self.owned) if c not in order]
        for company in order:
            held = self.owned.get(company, [])
            while len(held) > self.limit(company):
                cheapest = min(held, key=self.price)
                held.remove(cheapest)
                self.open_market.append(cheapest)
                discarded.append((company, cheapest))
        return discarded


def forced_sale_shares(data: Data1832, held: int, zone: mk.Zone, price: int, shortfall: int) -> int:
    """10.6.2: how many shares of one company the president sells to raise
    `shortfall`: only enough, except that a sale of a company he holds more
    than 60% of outside the green and brown zones goes down to 60%."""
    if shortfall <= 0:
        return 0
    needed = -(-shortfall // price)
    most = data.title.holding_limit_percent * data.title.shares_per_company // 100
    if held > most and not mk.may_exceed_holding_limit(zone):
        needed = max(needed, held - most)
    return min(needed, held)


Ending = Literal["this set of operating rounds", "the next set of operating rounds"]


def bank_pays(bank: int, amount: int, round_kind: Literal["stock", "operating"]) -> Ending | None:
    """13.2: the bank is broken when it has $0 or less or cannot make a
    payment; the game then ends after the set of operating rounds in
    progress, or after the next one if it broke in a stock round."""
    if bank - amount > 0:
        return None
    return (
        "this set of operating rounds"
        if round_kind == "operating"
        else "the next set of operating rounds"
    )
