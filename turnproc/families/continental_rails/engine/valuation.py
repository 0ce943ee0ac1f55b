"""What a tycoon is worth: assets, net worth and credit limit (rules 1.2, 3.4, 3.5, 9.6).

Pure functions of the state and the scenario, shared by the bank (credit
limit, loan recalls), the stock market (order checking), Robber Baron victory
points and the private report's balance sheet. The figures:

- cash;
- stock: every share held at the railroad's current market price;
- PCs: each owned PC at its book value, `pcs.pc_value`: what incorporating it
  would give its owner (the incorporator's shares at the opening price)
  [designed: a fixed value the bank can lend on, not the price some rival once
  paid];
- loans to railroads: money a railroad owes this tycoon as its lender (4.5);
- shorts: the cost to buy back every share sold short at the current price;
- short collateral: the margin and sale proceeds the broker holds for open
  short sales (6.2), returned when they are covered.

Assets = cash + stock + PCs + loans to railroads + short collateral - cost to
cover shorts.
Net worth = assets - bank loan. Credit limit = margin x assets, rounded down,
never below zero; the margin comes from the climate table (5).
"""

from pydantic import BaseModel

from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.pcs import pc_value
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.scenario.model import Scenario


class BalanceSheet(BaseModel):
    """3.4 A tycoon's assets, debt and credit limit, as the private report shows them."""

    cash: int
    stock: int
    pcs: int
    loans_to_railroads: int
    shorts: int  # cost to cover every short position now
    short_collateral: int = 0  # margin and proceeds held for open short sales (6.2)
    loan: int
    assets: int
    net_worth: int
    credit_limit: int


def stock_value(state: GameState, position: int) -> int:
    """Market value of the shares `position` holds."""
    return _market_value(state.railroads, state.tycoon(position).holdings)


def cover_cost(state: GameState, position: int) -> int:
    """6.2 What buying back every share `position` sold short would cost now."""
    return _market_value(state.railroads, state.tycoon(position).shorts)


def _market_value(railroads: dict[str, Railroad], shares_of: dict[str, int]) -> int:
    """The shares in `shares_of` (railroad code -> shares) at today's prices."""
    total = 0
    for code, shares in shares_of.items():
        rr = railroads.get(code)
        if rr is not None and shares > 0:
            total += shares * rr.price
    return total


def short_collateral(state: GameState, position: int) -> int:
    """6.2 Margin and sale proceeds the broker holds for `position`'s open short sales."""
    return sum(state.tycoon(position).short_proceeds.values())


def loans_to_railroads(state: GameState, position: int) -> int:
    """4.5 Money railroads owe `position` as their lender."""
    return sum([rr.owed_to_president for rr in state.railroads.values() if rr.lender == position])


def loans_by_lender(state: GameState) -> dict[int, int]:
    """4.5 `loans_to_railroads` of every lender, in one pass over the railroads
    (a position missing from it is owed nothing)."""
    owed: dict[int, int] = {}
    for rr in state.railroads.values():
        lender = rr.lender
        if lender is not None:
            owed[lender] = owed.get(lender, 0) + rr.owed_to_president
    return owed


def pcs_value(state: GameState, scenario: Scenario, position: int) -> int:
    return sum(pc_value(scenario, code) for code in state.tycoon(position).pcs)


def assets(
    state: GameState, scenario: Scenario, position: int, lent: dict[int, int] | None = None
) -> int:
    """3.4 Assets the bank lends against: cash, stock, PCs and loans to railroads,
    plus short-sale collateral, less the cost to cover shorts. `lent`, when
    given, is `loans_by_lender(state)` (worked out once for many positions)."""
    loans = loans_to_railroads(state, position) if lent is None else lent.get(position, 0)
    # `stock_value`, `pcs_value`, `short_collateral` and `cover_cost`, the
    # tycoon and the railroads read once for all of them.
    tycoon = state.tycoon(position)
    railroads = state.railroads
    return (
        tycoon.cash
        + _market_value(railroads, tycoon.holdings)
        + sum(pc_value(scenario, code) for code in tycoon.pcs)
        + loans
        + sum(tycoon.short_proceeds.values())
        - _market_value(railroads, tycoon.shorts)
    )


def net_worth(
    state: GameState, scenario: Scenario, position: int, lent: dict[int, int] | None = None
) -> int:
    """1.2 Net worth (Robber Baron, the player summary's order): assets less
    the bank loan (`lent` as `assets` takes it)."""
    return assets(state, scenario, position, lent) - state.tycoon(position).loan


def margin_permille(scenario: Scenario, climate_index: int) -> int:
    """5 Credit margin of a climate level, per thousand of assets."""
    levels = scenario.section("climate", ClimateTable).levels
    return levels[climate_index].margin_permille


def credit_limit(
    state: GameState,
    scenario: Scenario,
    position: int,
    climate_index: int,
    lent: dict[int, int] | None = None,
) -> int:
    """3.4 Credit limit = margin (climate table) x assets, rounded down, at
    least 0 (`lent` as `assets` takes it)."""
    value = assets(state, scenario, position, lent)
    return max(0, value * margin_permille(scenario, climate_index) // 1000)


def balance_sheet(
    state: GameState, scenario: Scenario, position: int, climate_index: int
) -> BalanceSheet:
    """9.6 The summary at the end of the private report."""
    tycoon = state.tycoon(position)
    total = assets(state, scenario, position)
    return BalanceSheet(
        cash=tycoon.cash,
        stock=stock_value(state, position),
        pcs=pcs_value(state, scenario, position),
        loans_to_railroads=loans_to_railroads(state, position),
        shorts=cover_cost(state, position),
        short_collateral=short_collateral(state, position),
        loan=tycoon.loan,
        assets=total,
        net_worth=total - tycoon.loan,
        credit_limit=credit_limit(state, scenario, position, climate_index),
    )
