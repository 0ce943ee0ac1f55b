"""1832's dividends on the share state of `stock.py` (docs/rules-1832.md 9,
13.2): the bank pays the players their shares of a run, the company its
initial-offering and redeemed shares and what it keeps; open-market shares
earn nothing out of the bank; the token moves; a bank that cannot pay is
broken. Pure: the state passed in is the only thing changed.
"""

from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832 import trains as tr
from turnproc.families.g18xx.titles.c1832.stock import Refusal, StockRound


def pay_dividend(
    game: StockRound, company: str, kind: mk.DividendKind, income: int
) -> tr.Ending | None:
    """One company's run of `income`, paid as `kind`; returns when the game
    ends if the bank broke paying it (13.2), else None."""
    item = game.companies.get(company)
    if item is None or item.closed or item.cell is None:
        raise Refusal("NOT_OPERATING", f"{company} is not operating")
    players = {p: h[company] for p, h in game.holdings.items() if h.get(company)}
    payout = mk.dividend(
        kind,
        income,
        mk.Holdings(players, item.ipo, item.redeemed, item.open_market),
        item.shares,
    )
    paid = sum(payout.players.values()) + payout.company
    ending = tr.bank_pays(game.bank, paid, "operating")
    game.bank -= paid
    for player, amount in payout.players.items():
        game.cash[player] += amount
    item.treasury += payout.company
    item.cell = game.market.after_dividend(item.cell, kind, income)
    item.operated = True
    if game.market.closed(item.cell):
        game.close(item)
    return ending
