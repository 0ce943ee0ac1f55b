"""1832's stock round model: money and shares are conserved whatever orders
come, refused ones included (seeded random orders, a few hundred a seed)."""

import random

import pytest

from turnproc.families.g18xx.titles.c1832 import operating as op
from turnproc.families.g18xx.titles.c1832 import stock as st
from turnproc.families.g18xx.titles.c1832.data import load
from turnproc.families.g18xx.titles.c1832.market import DividendKind

DATA = load()
SEATS = ["A", "B", "C", "D"]
RUNS: tuple[DividendKind, ...] = ("full", "half", "withhold")


def _round() -> st.StockRound:
    companies = {c.id: st.Company(c.id) for c in DATA.title.companies}
    holdings: dict[str, dict[str, int]] = {p: {} for p in SEATS}
    layout = {
        "ACL": ((1, 8), "A", {"A": 2, "B": 3, "C": 1}),
        "SAL": ((1, 6), "B", {"B": 2, "A": 2, "D": 2}),
        "GM&O": ((6, 2), "C", {"C": 2, "D": 3}),
        "L&N": ((0, 11), "D", {"D": 4, "A": 1, "C": 1}),
    }
    for cid, (cell, president, held) in layout.items():
        item = companies[cid]
        item.cell, item.president, item.par = cell, president, 90
        item.operated = item.floated = True
        item.treasury = 300
        item.trains = ["3"]
        for player, n in held.items():
            holdings[player][cid] = n
        item.open_market = 1
        item.ipo = 10 - sum(held.values()) - 1
    # a player near the limits, so that purchases are refused on them
    holdings["D"]["L&N"] = 6
    companies["L&N"].ipo -= 2
    cash = {p: 900 for p in SEATS}
    bank = DATA.title.bank - sum(cash.values()) - sum(c.treasury for c in companies.values())
    return st.StockRound(DATA, list(SEATS), cash, holdings, companies, bank)


def _money(game: st.StockRound) -> int:
    companies = game.companies.values()
    return game.bank + sum(game.cash.values()) + sum(c.treasury + c.escrow for c in companies)


def _shares_ok(game: st.StockRound) -> None:
    for item in game.companies.values():
        if item.closed:
            continue
        held = sum(h.get(item.id, 0) for h in game.holdings.values())
        assert held + item.ipo + item.open_market + item.redeemed == item.shares, item


@pytest.mark.parametrize("seed", range(8))
def test_money_and_shares_are_conserved(seed: int) -> None:
    rng = random.Random(seed)
    game = _round()
    total = _money(game)
    live = ["ACL", "SAL", "GM&O", "L&N"]
    kinds = ["sell", "buy", "finish", "protect", "decline", "pass", "redeem", "reissue", "run"]
    for _ in range(400):
        # mostly the player to move, so that most orders get past the turn check
        player = game.current if rng.random() < 0.85 else rng.choice(SEATS)
        company = rng.choice([*live, "A"])
        kind = "merge" if rng.random() < 0.02 else rng.choice(kinds)
        try:
            if kind == "sell":
                game.sell(player, company, rng.randint(1, 3))
            elif kind == "buy":
                game.buy(player, company, rng.choice([st.IPO, st.OPEN_MARKET]))
            elif kind == "finish":
                game.finish_turn(game.current)
            elif kind in ("protect", "decline") and game.pending:
                sale = game.pending[0]
                president = game.companies[sale.company].president or ""
                getattr(game, kind)(president, sale.company)
            elif kind == "pass":
                game.pass_turn(player)
                if game.ended:
                    game.after_operating_rounds()
            elif kind == "redeem":
                game.redeem(player, company, rng.choice([st.OPEN_MARKET, *SEATS]), True)
            elif kind == "reissue":
                game.reissue(player, company)
            elif kind == "run":
                op.pay_dividend(game, company, rng.choice(RUNS), rng.randrange(0, 400, 10))
            elif kind == "merge":
                first, second = rng.sample(live, 2)
                if rng.random() < 0.5:
                    game.take_over(first, second, 3)
                else:
                    game.form_system(player, first, second, "A")
        except st.Refusal:
            pass
        assert _money(game) == total
        _shares_ok(game)
        assert all(cash >= 0 for cash in game.cash.values())
        assert all(c.treasury >= 0 for c in game.companies.values())
