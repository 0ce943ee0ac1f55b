"""Conservation checks: money by the ledger, shares by the share register.

Used after every step by the tests, and by the batch as a sanity gate before a
turn is committed.
"""

from collections.abc import Iterable

from turnproc.core.ledger import LedgerEntry, net_flows, railroad_account, tycoon_account
from turnproc.families.continental_rails.engine.state import GameState


def money_problems(start: GameState, end: GameState, ledger: Iterable[LedgerEntry]) -> list[str]:
    """Every account's end cash must equal its start cash plus its ledger flows.

    Railroads that appear or vanish during the turn (incorporation, merger)
    count as zero where absent.
    """
    flows = net_flows(ledger)
    problems = []
    for t_end in end.tycoons:
        account = tycoon_account(t_end.position)
        expected = start.tycoon(t_end.position).cash + flows.get(account, 0)
        if t_end.cash != expected:
            problems.append(f"{account}: cash {t_end.cash}, ledger says {expected}")
        if t_end.cash < 0:
            problems.append(f"{account}: negative cash {t_end.cash}")
    codes = set(start.railroads) | set(end.railroads)
    for code in sorted(codes):
        account = railroad_account(code)
        before = start.railroads[code].cash if code in start.railroads else 0
        after = end.railroads[code].cash if code in end.railroads else 0
        if after != before + flows.get(account, 0):
            problems.append(
                f"{account}: cash {after}, ledger says {before + flows.get(account, 0)}"
            )
        if after < 0:
            problems.append(f"{account}: negative cash {after}")
    for account in flows:
        if not (account == "bank" or account.startswith(("tycoon:", "railroad:"))):
            problems.append(f"unknown ledger account {account}")
    return problems


def share_problems(state: GameState) -> list[str]:
    """4.2 issued + treasury = authorized, no negative holdings, and players
    never hold more certificates than are issued (6.2: short sales borrow the
    public's certificates)."""
    problems = []
    for code, rr in sorted(state.railroads.items()):
        if rr.issued < 0 or rr.treasury < 0:
            problems.append(f"{code}: issued {rr.issued}, treasury {rr.treasury}")
        held = sum(t.holdings.get(code, 0) for t in state.tycoons)
        if held > rr.issued:
            # Shares sold short are borrowed from the public's certificates, so
            # even with short sales no more than the issued shares are held.
            problems.append(f"{code}: players hold {held}, more than the {rr.issued} issued")
    for tycoon in state.tycoons:
        for code, shares in tycoon.holdings.items():
            if shares < 0:
                problems.append(f"tycoon {tycoon.position}: {shares} shares of {code}")
            if code not in state.railroads:
                problems.append(f"tycoon {tycoon.position}: holds {code}, not a railroad")
        for code, shares in tycoon.shorts.items():
            if shares <= 0 or code not in state.railroads:
                problems.append(f"tycoon {tycoon.position}: short {shares} of {code}")
    return problems
