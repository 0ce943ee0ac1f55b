"""Ownership, preferred shares, floating, sales and dividends of major
companies (1.4, 3.1, 3.4, 3.4.1, 3.5, 3.6, 4.5)."""

from dataclasses import dataclass

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused

SHARE = 10  # percent in one share (1.3.2)


def max_holding(title: DixieTitle, company_id: str) -> int:
    """3.4a: 60% in regular shares plus every preferred share: 80%, 90% for
    the L&N, 70% for the ACL and SAL."""
    return title.holding_limit_percent + SHARE * title.company(company_id).preferred_shares


def check_purchase_limit(
    title: DixieTitle, regular_percent: int, preferred: bool, buying_percent: int = SHARE
) -> None:
    """3.4a, 3.4.1: a purchase may not take a player's regular shares over
    60%; preferred shares do not count."""
    if not preferred and regular_percent + buying_percent > title.holding_limit_percent:
        raise Refused(
            "HOLDING_LIMIT",
            "3.4a",
            f"regular shares may not exceed {title.holding_limit_percent}% of one company",
        )


@dataclass(frozen=True)
class Certificate:
    """One certificate a player holds, as 3.4b counts it."""

    kind: str  # "president", "share", "preferred", "private" or "minor"
    yellow: bool = False  # its company's price is in the yellow zone


def certificates_counted(certificates: list[Certificate]) -> int:
    """3.4b: privates and minors count one each, a president's certificate
    one, a preferred share one; shares of companies in the yellow zone none."""
    stock = ("president", "share", "preferred")
    unknown = sorted({c.kind for c in certificates} - {*stock, "private", "minor"})
    if unknown:
        raise Refused("CERTIFICATE_KIND", "3.4b", f"not a certificate: {', '.join(unknown)}")
    return sum(0 if c.yellow and c.kind in stock else 1 for c in certificates)


def certificate_limit(title: DixieTitle, players: int, merged: bool) -> int:
    """Table 2 and 5.4i: the lower limit applies once the SCL or ICG forms."""
    seats = title.players.get(str(players))
    if seats is None:
        raise Refused("PLAYERS", "2", f"18Dixie is for {', '.join(title.players)} players")
    return seats.certificates_after_merger if merged else seats.certificates


def check_certificate_limit(counted: int, limit: int, buying_yellow: bool) -> None:
    """3.4b: a player at the limit may buy only a share of a company in the
    yellow zone."""
    if counted >= limit and not buying_yellow:
        raise Refused("CERTIFICATE_LIMIT", "3.4b", f"already {counted} certificates of {limit}")


def certificate_price(title: DixieTitle, par: int, president: bool) -> int:
    """3.2c1-2, 1.5: a share from the Initial Offering costs the par value,
    the president's certificate twice that; the par is one of the five."""
    if par not in title.par_prices:
        raise Refused(
            "NOT_A_PAR", "3.2c1", f"par is one of {', '.join(map(str, title.par_prices))}"
        )
    return par * (2 if president else 1)


def float_capital(title: DixieTitle, par: int, held_cash: int) -> int:
    """3.5c: ten times par, plus the cash closed minors left on its charter."""
    return par * title.shares_per_company + held_cash


def floats(title: DixieTitle, players_percent: int, open_market_percent: int) -> bool:
    """1.4, 3.5: a major floats when players and the open market hold 50%
    (preferred shares still in the reserved box never count)."""
    return players_percent + open_market_percent >= title.float_percent


def check_sale(
    title: DixieTitle,
    stock_round: int,
    operated: bool,
    par_set: bool,
    open_market_percent_after: int,
) -> None:
    """3.1a, 3.3.1: no sales in the first stock round, none of a company
    whose president's certificate is still in the Initial Offering or that
    has not operated, none that puts more than 50% in the open market."""
    if stock_round == 1:
        raise Refused("NO_SALES_IN_SR1", "3.3.1", "no sales in the initial stock round")
    if not par_set:
        raise Refused("PAR_NOT_SET", "3.1a1", "its president's certificate is unsold")
    if not operated:
        raise Refused("NOT_OPERATED", "3.1a1", "the company has not operated yet")
    if open_market_percent_after > title.market_pool_limit_percent:
        raise Refused(
            "OPEN_MARKET_LIMIT",
            "3.1a1",
            f"at most {title.market_pool_limit_percent}% may be in the open market",
        )


def check_president_sale(held_percent: int, selling_percent: int, others_best: int) -> None:
    """3.1a2-3: a president may sell into his president's certificate only
    if another player holds at least 20% and so becomes president (the
    certificate changes hands, 3.6); with only the certificate he may sell
    just 10% of it."""
    if selling_percent > held_percent:
        raise Refused("NOT_HELD", "3.1a", f"only {held_percent}% is held")
    if held_percent - selling_percent >= 2 * SHARE:
        return  # the president's certificate stays with him
    if others_best < 2 * SHARE:
        raise Refused(
            "NO_SUCCESSOR", "3.1a2", "no other player holds 20% to take the president's certificate"
        )


def check_buy_after_sale(sold_this_round: bool) -> None:
    """3.2, 3.4.1 example 3: no purchase of a company sold earlier in the
    same stock round."""
    if sold_this_round:
        raise Refused("SOLD_THIS_ROUND", "3.2", "its shares were sold earlier in this round")


@dataclass(frozen=True)
class Dividend:
    """4.5a: who receives a paid-out dividend."""

    players: dict[str, int]
    company: int  # for the shares in the open market
    unpaid: int  # Initial Offering and reserved preferred shares pay nobody


def pay_out(revenue: int, players: dict[str, int], open_market_percent: int) -> Dividend:
    """4.5a: each holder receives his percentage of the revenue; the company
    receives the open market's; the rest is paid to nobody."""
    if revenue < 0 or revenue % SHARE:
        raise Refused("REVENUE", "4.4.1", "route revenue is a multiple of $10")
    per_share = revenue // SHARE
    paid = {p: per_share * pct // SHARE for p, pct in players.items()}
    company = per_share * open_market_percent // SHARE
    return Dividend(players=paid, company=company, unpaid=revenue - sum(paid.values()) - company)


def new_president(holdings: dict[str, int], president: str, seats: list[str]) -> str:
    """3.6a: the presidency passes only to a player holding strictly more
    than the president; between tied players (after the president's own
    sale) it goes to the first clockwise from him."""
    mine = holdings.get(president, 0)
    best = max((v for p, v in holdings.items() if p != president), default=0)
    if best <= mine:
        return president
    start = seats.index(president)
    for step in range(1, len(seats)):
        seat = seats[(start + step) % len(seats)]
        if holdings.get(seat, 0) == best:
            return seat
    raise Refused("NOT_SEATED", "3.6a", "a holder is not seated at the table")


def release_preferred(open_market_percent: int, unclaimed: int) -> int:
    """5.2.2: unclaimed preferred shares go to the open market after the
    last closures, even past 50%, without moving the price."""
    return open_market_percent + SHARE * unclaimed
