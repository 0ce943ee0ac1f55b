"""1832's market arithmetic (docs/rules-1832.md 5, 9, 11): token moves over
the whole grid, dividends, System placement, reissue, redemption, takeover
and certificate limits. Random inputs come from fixed seeds."""

import random

import pytest

from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832.data import Data1832, load

DATA = load()
MARKET = mk.Market(DATA.title.market)
OPEN = [
    (r, c) for r, row in enumerate(MARKET.grid) for c, box in enumerate(row) if box.zone != "closed"
]


@pytest.fixture(scope="module")
def data() -> Data1832:
    return DATA


def test_moves_go_the_right_way_everywhere() -> None:
    """5.8.1: up and right never lower a price, left and down never raise it."""
    for cell in OPEN:
        price = MARKET.price(cell)
        assert MARKET.price(MARKET.up(cell)) >= price, cell
        assert MARKET.price(MARKET.right(cell)) >= price, cell
        assert MARKET.price(MARKET.left(cell)) <= price, cell
        for shares in range(1, 7):
            assert MARKET.price(MARKET.down(cell, shares)) <= price, (cell, shares)
            deeper = MARKET.down(cell, shares + 1)
            assert MARKET.price(deeper) <= MARKET.price(MARKET.down(cell, shares))


def test_soft_ledge_absorbs_only_a_single_last_step() -> None:
    """5.8.1, A2: on the soft ledge one share does not move the token, two do."""
    ledges = [cell for cell in OPEN if MARKET.on_soft_ledge(cell)]
    assert len(ledges) == 14  # one per column with a lower area (columns 8-21)
    for cell in ledges:
        assert MARKET.down(cell, 1) == cell
        assert MARKET.box(MARKET.down(cell, 2)).lower


def test_lower_ledge_stops_sales() -> None:
    for cell in OPEN:
        if MARKET.on_lower_ledge(cell):
            assert MARKET.down(cell, 5) == cell


def test_only_the_three_left_columns_close_by_sales() -> None:
    """A3: a down move reaches the black area only in columns 0-2."""
    closing = {c for (r, c) in OPEN if MARKET.closed(MARKET.down((r, c), 10))}
    assert closing == {0, 1, 2}


def test_diagonals_show_one_value() -> None:
    """A9: the System slide and UP on the top row keep the value."""
    for cell in OPEN:
        placed, value = MARKET.system_placement(cell, cell)
        assert value == MARKET.price(cell)
        assert MARKET.price(placed) == value, cell
        if cell[0] == 0:
            assert MARKET.price(MARKET.up(cell)) == MARKET.price(cell)


def test_system_placement_ends_on_a_ledge() -> None:
    rng = random.Random(1832)
    for _ in range(300):
        first, second = rng.choice(OPEN), rng.choice(OPEN)
        placed, value = MARKET.system_placement(first, second)
        nxt = (placed[0] + 1, placed[1] + 1)
        assert not MARKET.exists(nxt) or MARKET.box(nxt).lower != MARKET.box(placed).lower
        twice = MARKET.price(first) + MARKET.price(second)
        assert all(abs(2 * value - twice) <= abs(2 * v - twice) for v in MARKET.values())
        assert mk.system_par(DATA, value) == min(value, 275)


def test_a_closed_company_stays_closed() -> None:
    for cell in OPEN:
        if MARKET.closed(MARKET.left(cell)):
            assert MARKET.move(cell, ["left", "right", "up", "up"]) == MARKET.left(cell)


def test_no_box_outside_the_grid() -> None:
    with pytest.raises(mk.MarketError):
        MARKET.box((4, 17))
    with pytest.raises(mk.MarketError):
        MARKET.par_cell(110)


def _random_holdings(rng: random.Random, shares: int) -> mk.Holdings:
    left = shares
    counts = []
    for _ in range(4):
        n = rng.randint(0, left)
        counts.append(n)
        left -= n
    players = {"A": counts[0] + left, "B": counts[1]}
    return mk.Holdings(players, initial_offering=counts[2], redeemed=0, open_market=counts[3])


@pytest.mark.parametrize("shares", [10, 20])
def test_dividends_pay_the_income_within_rounding(shares: int) -> None:
    """9.1.1: each holding is rounded by at most half a dollar."""
    rng = random.Random(shares)
    for _ in range(500):
        income = rng.randrange(0, 1500, 10) + rng.choice([0, 5])
        holdings = _random_holdings(rng, shares)
        for kind in ("full", "half"):
            pay = mk.dividend(kind, income, holdings, shares)
            paid = sum(pay.players.values()) + pay.company + pay.open_market
            assert income - 2 <= paid <= income + 2, (kind, income, holdings)
            assert 0 <= pay.retained <= income // 2


def test_half_dividend_of_a_ten_share_company_rounds_per_share() -> None:
    """9.1.2: half the run per share, rounded up; the company keeps the rest."""
    for income in range(10, 2000, 10):
        pay = mk.dividend("half", income, mk.Holdings({"A": 10}), 10)
        assert pay.per_share == -(-income // 20)
        assert pay.retained == income - 10 * pay.per_share


def test_dividend_rejects_wrong_holdings() -> None:
    with pytest.raises(mk.MarketError, match="9 shares"):
        mk.dividend("full", 100, mk.Holdings({"A": 9}), 10)


def test_reissue_par_is_monotone_and_bounded(data: Data1832) -> None:
    pars = data.extras.reissue.pars
    for old in (68, 100, 275):
        last = 0
        for price in range(0, 420, 2):
            par = mk.reissue_par(data, old, price)
            assert par >= last
            assert par >= min(old, max(pars)) and par <= max(pars)
            last = par


def test_reissue_brackets_agree_with_nearest_rounding(data: Data1832) -> None:
    """A5: a price reissues at the par nearest to 75% of it (halves up)."""
    pars = data.extras.reissue.pars
    for price in range(90, 300):
        target_x4 = 3 * price  # 4 * 75% of the price
        nearest = min(pars, key=lambda p: (abs(4 * p - target_x4), -p))
        assert mk.reissue_par(data, pars[0], price) == nearest, price


def test_redemption_keeps_the_40_60_limits(data: Data1832) -> None:
    rng = random.Random(5)
    for _ in range(1000):
        system = rng.random() < 0.3
        shares = 20 if system else 10
        holdings = _random_holdings(rng, shares)
        redeemed = rng.randint(0, shares // 2)
        take = min(redeemed, holdings.players["A"])
        holdings = mk.Holdings(
            {"A": holdings.players["A"] - take, "B": holdings.players["B"]},
            initial_offering=holdings.initial_offering,
            redeemed=take,
            open_market=holdings.open_market,
        )
        state = mk.RedemptionState(holdings, shares, "A", 100, 1000, system=system)
        source = "open market" if holdings.open_market else "B"
        if mk.redemption_refusal(data, state, source) is None:
            assert (holdings.redeemed + 1) * 10 <= 4 * shares
            outside = sum(holdings.players.values()) + holdings.open_market - 1
            assert outside * 10 >= 6 * shares


def test_takeover_cost_adds_up() -> None:
    cost = mk.takeover_cost(mk.Holdings({"A": 4, "B": 0}, 1, 2, 3), 120, 90)
    assert cost.to_players == {"A": 480}
    assert cost.to_bank == 3 * 120 + 90
    assert cost.total == 480 + 450


def test_certificate_limit_falls_with_companies(data: Data1832) -> None:
    for players in range(2, 8):
        limits = [mk.certificate_limit(data, players, n) for n in range(10, 0, -1)]
        assert limits == sorted(limits, reverse=True)
        assert mk.certificate_limit(data, players, 1) == mk.certificate_limit(data, players, 6)
    with pytest.raises(mk.MarketError):
        mk.certificate_limit(data, 8, 10)
    with pytest.raises(mk.MarketError):
        mk.starting_cash(data, 1)


def test_new_president_holds_the_most() -> None:
    """5.5: whoever comes out holds at least as many shares as anyone."""
    from turnproc.families.g18xx.titles.c1832.shares import new_president

    rng = random.Random(55)
    seats = ["A", "B", "C", "D", "E"]
    for _ in range(500):
        holdings = {p: rng.randint(0, 4) for p in seats}
        president = rng.choice(seats)
        chosen = new_president(seats, president, holdings)
        assert holdings[chosen] == max(holdings.values()) or chosen == president
        if chosen != president:
            assert holdings[chosen] > holdings[president]


def test_share_price_order_is_a_permutation() -> None:
    rng = random.Random(4)
    for _ in range(200):
        tokens = [(f"C{i}", rng.choice(OPEN)) for i in range(6)]
        order = mk.share_price_order(MARKET, tokens)
        assert sorted(order) == sorted(c for c, _ in tokens)
        prices = [MARKET.price(dict(tokens)[c]) for c in order]
        assert prices == sorted(prices, reverse=True)
