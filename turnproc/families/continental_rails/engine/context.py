"""The working context of one turn: state, orders, randomness, events, ledger.

Engine steps receive a `TurnContext` and change `ctx.state` only through its
methods where money is concerned (`transfer`), so the ledger is complete by
construction.
"""

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from turnproc.core import rng
from turnproc.core.errors import EngineError
from turnproc.core.ledger import BANK, LedgerEntry
from turnproc.core.models import maker
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders
from turnproc.families.continental_rails.engine.state import GameState, Railroad, Tycoon
from turnproc.scenario.model import Scenario

P = TypeVar("P", bound=BaseModel)


_new_entry = maker(LedgerEntry)
_new_rejection = maker(Rejection)


class InsufficientFunds(EngineError):
    """A transfer would leave a tycoon or railroad below zero."""


@dataclass
class TurnContext:
    """One turn being resolved. `start` is the untouched state at turn start."""

    scenario: Scenario
    state: GameState
    start: GameState
    orders: Mapping[int, PlayerOrders]
    events: list[Event] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    # Facts one step hands to a later one within the turn (e.g. the stock
    # market's checked budgets); keys are documented where they are set.
    notes: dict[str, Any] = field(default_factory=dict)
    # The events so far by kind, brought up to date on demand (`events_of`):
    # `events` is only ever appended to, so the first `_indexed` are in it.
    _by_kind: dict[str, list[Event]] = field(default_factory=dict, repr=False)
    _indexed: int = field(default=0, repr=False)
    # Every position's orders by kind, then by position in position order,
    # each with its place in the position's orders (`_order_index`): made on
    # first use from the `orders` named beside them.
    _orders_by_kind: dict[str, dict[int, list[tuple[int, Order]]]] = field(
        default_factory=dict, repr=False
    )
    _orders_indexed: Mapping[int, PlayerOrders] | None = field(default=None, repr=False)

    @property
    def turn(self) -> int:
        return self.state.turn

    def rng(self, name: str) -> random.Random:
        """The seeded stream `name` for this game and turn."""
        return rng.stream(self.state.seed, self.state.turn, name)

    def params(self, section: str, model: type[P]) -> P:
        return self.scenario.section(section, model)

    def orders_of(self, position: int, *kinds: str) -> list[Order]:
        """The position's orders as written; with `kinds`, only those of these
        kinds (from the index of the turn's orders by kind, `_order_index`)."""
        if not kinds:
            player = self.orders.get(position)
            return list(player.orders) if player else []
        index = self._order_index()
        if len(kinds) == 1:
            return [order for _, order in index.get(kinds[0], {}).get(position, ())]
        chosen = [entry for kind in set(kinds) for entry in index.get(kind, {}).get(position, ())]
        chosen.sort(key=lambda entry: entry[0])
        return [order for _, order in chosen]

    def orders_of_kind(self, *kinds: str) -> list[tuple[int, Order]]:
        """Every position's orders of these kinds with the position giving
        each, in position order and then as written: what walking
        `orders_of` for each position in turn and keeping these kinds gives."""
        index = self._order_index()
        if len(kinds) == 1:
            return [
                (position, order)
                for position, entries in index.get(kinds[0], {}).items()
                for _, order in entries
            ]
        chosen = [
            (position, number, order)
            for kind in set(kinds)
            for position, entries in index.get(kind, {}).items()
            for number, order in entries
        ]
        chosen.sort(key=lambda entry: (entry[0], entry[1]))
        return [(position, order) for position, _, order in chosen]

    def _order_index(self) -> dict[str, dict[int, list[tuple[int, Order]]]]:
        """The turn's orders by kind and position, made once: the steps each
        look for a few kinds among some 250 orders a turn."""
        if self._orders_indexed is not self.orders:
            index: dict[str, dict[int, list[tuple[int, Order]]]] = {}
            for position in sorted(self.orders):
                for number, order in enumerate(self.orders[position].orders):
                    by_position = index.get(order.kind)
                    if by_position is None:
                        by_position = index[order.kind] = {}
                    found = by_position.get(position)
                    if found is None:
                        by_position[position] = [(number, order)]
                    else:
                        found.append((number, order))
            self._orders_by_kind = index
            self._orders_indexed = self.orders
        return self._orders_by_kind

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def events_of(self, kind: str) -> list[Event]:
        """The turn's events of `kind` so far, in order. Steps that look back
        at several kinds of the turn's events read this index rather than scan
        the whole list (some 500 events by the end of a turn) once a kind."""
        events = self.events
        if self._indexed > len(events):  # the list was replaced: index it anew
            self._by_kind, self._indexed = {}, 0
        if self._indexed < len(events):
            by_kind = self._by_kind
            for event in events[self._indexed :]:
                found = by_kind.get(event.kind)
                if found is None:
                    by_kind[event.kind] = [event]
                else:
                    found.append(event)
            self._indexed = len(events)
        return list(self._by_kind.get(kind, ()))

    def merged_into(self) -> dict[str, str]:
        """4.13 The railroads merged away so far this turn: absorbed code ->
        survivor code (orders given for them later in the turn say where they
        went)."""
        return {
            str(getattr(event, "absorbed", "")): event.railroad or ""
            for event in self.events_of("railroads_merged")
        }

    def reject(
        self,
        position: int,
        order: Order | None,
        code: str,
        hint: str,
        cut_to: Order | None = None,
    ) -> None:
        index = -1
        player = self.orders.get(position)
        if order is not None and player is not None:
            index = next((i for i, o in enumerate(player.orders) if o is order), -1)
        self.rejections.append(
            _new_rejection(
                {
                    "position": position,
                    "order_index": index,
                    "order": order.model_dump() if order is not None else {},
                    "code": code,
                    "hint": hint,
                    "cut_to": cut_to.model_dump() if cut_to is not None else None,
                }
            )
        )

    def balance(self, account: str) -> int:
        kind, _, key = account.partition(":")
        if kind == "tycoon":
            return self.state.tycoon(int(key)).cash
        if kind == "railroad":
            return self.state.railroads[key].cash
        raise EngineError(f"account {account!r} has no balance")

    def transfer(
        self,
        src: str,
        dst: str,
        amount: int,
        reason: str,
        ref: str = "",
        overdraft: bool = False,
    ) -> None:
        """Move `amount` dollars from `src` to `dst`, recording it in the ledger.

        Raises `InsufficientFunds` if `src` (not the bank) would go below zero,
        unless `overdraft` is given: the caller then settles the deficit as the
        rules say (forced loan, insolvency).
        """
        if amount <= 0:
            if amount < 0:
                raise EngineError(f"negative transfer {amount} ({reason})")
            return
        # The accounts' holders are found here, not by a method called twice:
        # a turn makes some 500 transfers, most between a railroad and a tycoon.
        # Cash is read and written straight in the models' dicts: the state
        # models validate nothing on assignment, pydantic's __setattr__ (two
        # Python calls a change) was an eighth of a transfer's instructions,
        # and each attribute read goes through its `__getattr__` hook.
        state = self.state
        payer: Tycoon | Railroad | None = None
        payee: Tycoon | Railroad | None = None
        if src != BANK:
            if src.startswith("railroad:"):
                payer = state.railroads[src[9:]]
            elif src.startswith("tycoon:"):
                payer = state.tycoons[int(src[7:]) - 1]
            else:
                raise EngineError(f"unknown account {src!r}")
        if dst != BANK:
            if dst.startswith("railroad:"):
                payee = state.railroads[dst[9:]]
            elif dst.startswith("tycoon:"):
                payee = state.tycoons[int(dst[7:]) - 1]
            else:
                raise EngineError(f"unknown account {dst!r}")
        if payer is not None:
            values = payer.__dict__
            if not overdraft and values["cash"] < amount:
                raise InsufficientFunds(f"{src} has {payer.cash}, cannot pay {amount} for {reason}")
            values["cash"] -= amount
        if payee is not None:
            payee.__dict__["cash"] += amount
        self.ledger.append(
            _new_entry({"src": src, "dst": dst, "amount": amount, "reason": reason, "ref": ref})
        )
