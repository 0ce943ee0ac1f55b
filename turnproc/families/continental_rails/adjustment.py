"""A moderator's adjustment of a Continental Rails game between turns
(`turnproc game adjust`): cash between the bank and a tycoon or a railroad,
shares given or taken, a railroad's issued stock. The pipeline checks the
result's conservation and stores it with its event."""

from typing import Any

from turnproc.core.errors import UsageError
from turnproc.core.ledger import BANK, LedgerEntry, railroad_account, tycoon_account
from turnproc.core.money import money
from turnproc.families.boundary import Adjustment
from turnproc.families.continental_rails.engine.events import ModeratorAdjustment
from turnproc.families.continental_rails.engine.state import GameState


def adjust(
    start: GameState, game: str, change: Adjustment
) -> tuple[GameState, list[LedgerEntry], ModeratorAdjustment]:
    """The state after the moderator's `change`, its ledger entries and the event
    the next report's news shows; UsageError if the change does not fit the game."""
    position, railroad = change.position, change.railroad
    cash, shares, issued, reason = change.cash, change.shares, change.issued, change.reason
    state = start.model_copy(deep=True)
    if position is not None and not 1 <= position <= len(state.tycoons):
        raise UsageError(f"no position {position} in {game}")
    if railroad is not None and railroad not in state.railroads:
        known = ", ".join(sorted(state.railroads)) or "none"
        raise UsageError(f"no railroad {railroad!r} in {game} (railroads: {known})")
    if (shares or issued) and railroad is None:
        raise UsageError("--shares and --issued need --railroad")
    if shares and position is None:
        raise UsageError("--shares needs --position (whose holding changes)")
    if cash and (position is None) == (railroad is None):
        raise UsageError("--cash needs exactly one of --position or --railroad")
    entries: list[LedgerEntry] = []
    if cash:
        account = (
            tycoon_account(position) if position is not None else railroad_account(railroad or "")
        )
        if position is not None:
            holder: Any = state.tycoon(position)
        else:
            holder = state.railroads[railroad or ""]
        if holder.cash + cash < 0:
            raise UsageError(f"{account} has {money(holder.cash)}; cannot take {money(-cash)}")
        holder.cash += cash
        src, dst = (BANK, account) if cash > 0 else (account, BANK)
        entries.append(
            LedgerEntry(
                src=src,
                dst=dst,
                amount=abs(cash),
                reason="moderator_adjustment",
                ref=reason.strip()[:200],
            )
        )
    if shares:
        tycoon = state.tycoon(position or 0)
        code = railroad or ""
        held = tycoon.holdings.get(code, 0) + shares
        if held < 0:
            raise UsageError(
                f"position {position} holds {held - shares} {code}; cannot take {-shares}"
            )
        if held:
            tycoon.holdings[code] = held
        else:
            tycoon.holdings.pop(code, None)
    if issued:
        state.railroads[railroad or ""].issued += issued
    event = ModeratorAdjustment(
        position=position,
        railroad=railroad,
        cash=cash,
        shares=shares,
        issued=issued,
        reason=reason,
    )
    return state, entries, event
