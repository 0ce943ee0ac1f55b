"""10 Foreseeing a turnsheet: the rules engine itself, run on the turn's start
with this position's orders alone, up to the stock market (Appendix C).

The receipt's previews come from here, so they use the engine's own steps and
the scenario's numbers: bank loans and their credit limit, PC bids, spying,
railroad finance with its bond and loan limits, the RoW auction and its
minimum bids, building with its automatic bonds and short loans, land sales,
double track, locomotives, technologies, capital improvements. Every dollar
moved and every order refused or cut is journalled in the rules' order.

Alone, every bid of the position is uncontested and wins: the cash walk is
the one where all bids win (the most they can cost). A refusal is therefore
certain unless it is for want of cash while a bid of the same account could
still be lost (and its cash kept); `Foresight.certain` tells which.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import get_args

from turnproc.core.ledger import railroad_account, tycoon_account
from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Rejection
from turnproc.families.continental_rails.engine.orders import Order, PlayerOrders, RailroadOrder
from turnproc.families.continental_rails.engine.resolve import SEQUENCE
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.railroad_finance import bond_room, loan_room
from turnproc.scenario.model import Scenario

# The first step the preview does not run: the market is previewed order by
# order by its own check (turnproc.families.continental_rails.turnsheet.check.preview).
MARKET_STEP = "6 stock market"
# The step that buys locomotives and technologies by the mile of track.
IMPROVEMENTS_STEP = "4.15 improvements"

RAILROAD_KINDS = frozenset(cls.model_fields["kind"].default for cls in get_args(RailroadOrder))
# Refusals for want of cash: certain only when no bid of the account can be lost.
_CASH_CODES = frozenset(
    {reasons.INSUFFICIENT_CASH, reasons.CUT_TO_AFFORDABLE, reasons.ABORTED_AFTER_CUT}
)
# Refusals that lose no order's effect: a name taken gives a historical name.
_ADVISORY = frozenset({reasons.NAME_TAKEN})
# Ledger reasons of what a bid costs when it wins.
_BID_REASONS = frozenset({"PC purchase", "RoW bought"})


@dataclass(frozen=True)
class CashStep:
    """One line of a cash walk: money moved, or an order refused or cut."""

    label: str
    amount: int  # + in, - out; 0 for a refusal
    cash_after: int
    order_index: int = -1  # the order refused or cut, for a refusal
    code: str = ""  # the refusal's reason code
    hint: str = ""
    cut: bool = False  # cut rather than refused: carried out in part


@dataclass
class AccountWalk:
    """The cash of the tycoon or of one of his railroads, walked up to the market."""

    account: str  # "tycoon:3" or "railroad:NYC"
    cash: int  # at the turn's start (0 for a railroad incorporated this turn)
    steps: list[CashStep] = field(default_factory=list)
    cash_left: int = 0
    bids: int = 0  # dollars of bids that won here and might be lost in a contest
    bonds: int = 0  # outstanding when the market opens
    loan: int = 0
    bond_room: int = 0  # what more the railroad may still borrow then
    loan_room: int = 0


@dataclass
class Foresight:
    """What the engine did with the position's orders before the market."""

    tycoon: AccountWalk
    railroads: dict[str, AccountWalk]  # the railroads he presides, by code
    rejections: list[Rejection]
    # 4.13 railroads his orders merge away before the market: absorbed -> survivor
    merged_into: dict[str, str] = field(default_factory=dict)
    # 4.17, 4.18 each railroad's lines when improvements are bought (after this
    # turn's building): the track miles per-mile costs are worked out from.
    improvement_lines: dict[str, list[str]] = field(default_factory=dict)

    def certain(self, rejection: Rejection) -> bool:
        """A refusal (not a cut) that no other player's orders can prevent."""
        if rejection.cut_to is not None or rejection.code in _ADVISORY:
            return False
        if rejection.code not in _CASH_CODES:
            return True
        walk = self._walk_of(rejection)
        return walk is None or walk.bids == 0

    def _walk_of(self, rejection: Rejection) -> AccountWalk | None:
        return _walk_for(rejection, self.tycoon, self.railroads)


def _walk_for(
    rejection: Rejection, tycoon: AccountWalk, railroads: dict[str, AccountWalk]
) -> AccountWalk | None:
    """The account a refused order would have paid from: its railroad's for a
    railroad order (None when he does not preside it), else the tycoon's."""
    if rejection.order.get("kind") in RAILROAD_KINDS:
        return railroads.get(str(rejection.order.get("railroad")))
    return tycoon


@dataclass
class _Journal(TurnContext):
    """A turn context that also journals transfers and refusals in order."""

    journal: list[tuple[str, int, Rejection | None, str]] = field(default_factory=list)

    def transfer(
        self,
        src: str,
        dst: str,
        amount: int,
        reason: str,
        ref: str = "",
        overdraft: bool = False,
    ) -> None:
        super().transfer(src, dst, amount, reason, ref, overdraft)
        if amount:
            label = f"{reason} {ref}".strip()
            self.journal.append((src, -amount, None, label))
            self.journal.append((dst, amount, None, label))

    def reject(
        self,
        position: int,
        order: Order | None,
        code: str,
        hint: str,
        cut_to: Order | None = None,
    ) -> None:
        super().reject(position, order, code, hint, cut_to)
        self.journal.append(("", 0, self.rejections[-1], ""))


def foresee(
    state: GameState, scenario: Scenario, position: int, orders: Sequence[Order]
) -> Foresight | None:
    """Run the turn's steps before the market with `position`'s orders alone.

    None when the engine fails (a defect the turn itself would meet too, and
    the turn's own run reports it): the receipt then goes without the preview
    rather than without an answer.
    """
    ctx = _Journal(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state,
        orders={position: PlayerOrders(position=position, orders=list(orders))},
    )
    improvement_lines: dict[str, list[str]] = {}
    try:
        for name, step in SEQUENCE:
            if name == MARKET_STEP:
                break
            if name == IMPROVEMENTS_STEP:
                improvement_lines = {
                    code: list(rr.lines) for code, rr in ctx.state.railroads.items()
                }
            step(ctx)
    except Exception:  # a defect here must not cost the player his receipt
        return None
    mine = [r for r in ctx.rejections if r.position == position]
    me = tycoon_account(position)
    tycoon = AccountWalk(account=me, cash=state.tycoon(position).cash)
    presided = [
        code for code, rr in sorted(ctx.state.railroads.items()) if rr.president == position
    ]
    walks = {
        code: AccountWalk(
            account=railroad_account(code),
            cash=state.railroads[code].cash if code in state.railroads else 0,
        )
        for code in presided
    }
    by_account = {walk.account: walk for walk in [tycoon, *walks.values()]}
    for account, amount, rejection, label in ctx.journal:
        if rejection is not None:
            if rejection.position != position:
                continue
            walk = _walk_for(rejection, tycoon, walks)
            if walk is None:
                continue
            cash = walk.steps[-1].cash_after if walk.steps else walk.cash
            walk.steps.append(
                CashStep(
                    label="",
                    amount=0,
                    cash_after=cash,
                    order_index=rejection.order_index,
                    code=rejection.code,
                    hint=rejection.hint,
                    cut=rejection.cut_to is not None,
                )
            )
            continue
        walk = by_account.get(account)
        if walk is None:
            continue
        cash = (walk.steps[-1].cash_after if walk.steps else walk.cash) + amount
        walk.steps.append(CashStep(label=label, amount=amount, cash_after=cash))
        if any(label.startswith(reason) for reason in _BID_REASONS):
            walk.bids -= amount
    tycoon.cash_left = ctx.state.tycoon(position).cash
    for code, walk in walks.items():
        rr = ctx.state.railroads[code]
        walk.cash_left = rr.cash
        walk.bonds, walk.loan = rr.bonds, rr.loan
        walk.bond_room, walk.loan_room = bond_room(scenario, rr), loan_room(scenario, rr)
    return Foresight(
        tycoon=tycoon,
        railroads=walks,
        rejections=mine,
        merged_into=ctx.merged_into(),
        improvement_lines=improvement_lines,
    )
