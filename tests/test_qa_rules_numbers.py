"""The numbers the rules reference quotes in prose (docs/rules/*.md, the
sections on tycoons, PCs, railroads, climate, land, the Civil War, bank
failures and random events) are the numbers the engine uses: each is computed
here from the scenario data and the engine's own functions and must appear in
the text. When the data is tuned, this test names every sentence to update.
(Tables are generated from the data by
turnproc.families.continental_rails.tools.rulesdoc and need no check.)"""

from turnproc.families.continental_rails.engine import pcs
from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.setup import StartParams
from turnproc.families.continental_rails.engine.state import GameState, Railroad
from turnproc.families.continental_rails.engine.steps.auctions import AuctionsParams
from turnproc.families.continental_rails.engine.steps.finance import FinanceParams
from turnproc.families.continental_rails.engine.steps.improvements import upgrade_cost
from turnproc.families.continental_rails.engine.steps.operations import (
    EventParams,
    civil_war_params,
    expense_permille,
    line_revenues,
    operating_expense,
    operations_params,
    technology_params,
)
from turnproc.families.continental_rails.engine.steps.personal import TycoonsParams
from turnproc.families.continental_rails.engine.steps.railroad_finance import (
    issue_price,
    railroad_params,
    track_miles,
)
from turnproc.families.continental_rails.engine.steps.rights_of_way import (
    building_cost,
    building_params,
    land_grant,
)
from turnproc.families.continental_rails.tools.rulesdoc import SECTIONS_DIR
from turnproc.scenario.model import Scenario

NORMAL = 4


def m(amount: int) -> str:
    return f"${amount:,}"


def _text(name: str) -> str:
    # Line breaks and emphasis do not matter to a number.
    raw = (SECTIONS_DIR / f"{name}.md").read_text(encoding="utf-8")
    return " ".join(raw.replace("*", "").split())


def _railroad(scenario: Scenario, code: str, efficiency: int = 75) -> Railroad:
    return Railroad(
        code=code,
        number=scenario.routes[code].number,
        name=code,
        lines=[code],
        efficiency=efficiency,
    )


def _state(scenario: Scenario) -> GameState:
    return GameState(scenario=scenario.name, seed=1, tycoons=[])


def _quotes(scenario: Scenario) -> list[tuple[str, str]]:
    """(section file, phrase) pairs the text must contain."""
    auctions = scenario.section("auctions", AuctionsParams)
    finance = scenario.section("finance", FinanceParams)
    spying = scenario.section("tycoons", TycoonsParams).spying
    start = scenario.section("start", StartParams)
    companies = scenario.section("companies", pcs.CompaniesParams)
    inc = companies.incorporation
    levels = scenario.section("climate", ClimateTable).levels
    railroads = railroad_params(scenario)
    building = building_params(scenario)
    ops = operations_params(scenario)
    techs = technology_params(scenario)
    war = civil_war_params(scenario)
    events = scenario.section("events", EventParams)
    normal, recession = levels[NORMAL].loan_rate, levels[NORMAL + 1].loan_rate

    def value(code: str) -> int:
        return pcs.pc_value(scenario, code)

    def price(code: str) -> int:
        return pcs.opening_price(scenario, code)

    odds = events.odds
    penn = _railroad(scenario, "PENN")
    penn_traffic = sum(
        line.traffic for line in line_revenues(scenario, _state(scenario), penn, NORMAL, 1)
    )
    nyc_miles = track_miles(scenario, _railroad(scenario, "NYC"))
    steps = dict(railroads.efficiency.cost_steps)
    war_turn = war.turns[0]
    scl = line_revenues(scenario, _state(scenario), _railroad(scenario, "SCL"), NORMAL, war_turn)
    nyc = line_revenues(scenario, _state(scenario), _railroad(scenario, "NYC"), NORMAL, war_turn)
    penn_limit = railroads.debt.bond_limit_per_mile * track_miles(scenario, penn)
    pa1 = building_cost(scenario, "PA1", NORMAL)
    penn_expense = operating_expense(scenario, penn, penn_traffic, 75)
    margin_step = levels[0].margin_permille - levels[1].margin_permille
    failures = finance.bank_failures

    def odds_at(efficiency: int) -> int:
        return max(odds.min_percent, 100 - (efficiency - odds.pivot) * odds.percent_per_point)

    return [
        # 2.10 private companies
        ("02-3-private-companies", f"traffic × {start.pcs.price_factor} / 100"),
        (
            "02-3-private-companies",
            "Boston & Maine {}, Erie {}, Grand Trunk {}".format(
                *(m(pcs.list_price(scenario, c)) for c in ("B&M", "ERIE", "GT"))
            ),
        ),
        (
            "02-3-private-companies",
            f"(100 + {auctions.asking_price.growth_percent} × (t − 1)) / 100",
        ),
        (
            "02-3-private-companies",
            "a PC released for turn 7 asks "
            f"{100 + 6 * auctions.asking_price.growth_percent}% of its list price",
        ),
        ("02-3-private-companies", f"asks {auctions.asking_price.decay_percent}% less next turn"),
        ("02-3-private-companies", f"{inc.incorporator_percent}% of the new railroad's issued"),
        (
            "02-3-private-companies",
            "Boston & Maine {}, Erie {}, the poorest PCs {}".format(
                m(value("B&M")),
                m(value("ERIE")),
                m(min(value(c) for c, r in scenario.routes.items() if r.kind == "PC")),
            ),
        ),
        (
            "02-3-private-companies",
            "Boston & Maine {}, Erie {}".format(
                m(pcs.pc_income(scenario, "B&M")), m(pcs.pc_income(scenario, "ERIE"))
            ),
        ),
        # 3 players
        ("03-players", f"Spying costs {m(spying.player_cost)} and you may spy on one player"),
        ("03-players", f"{m(start.tycoon.cash)} in cash and {start.tycoon.shares_each} shares"),
        ("03-players", f"At Normal ({normal}%) $1,500 earns {m(1500 * normal // 200)}"),
        (
            "03-players",
            f"at Recession ({recession}%) $1,001 earns {recession / 2}%, "
            f"{m(1001 * recession // 200)}",
        ),
        (
            "03-players",
            f"Maine (145 miles, Boston size 4 and Portland size 2: 145 × 20 = "
            f"{pcs.traffic(scenario, 'B&M'):,}) earns {m(pcs.pc_income(scenario, 'B&M'))}",
        ),
        ("03-players", f"{recession}% of $1,001 is {m(-(-1001 * recession // 100))}"),
        ("03-players", f"at {finance.recall.pc_sale_percent}% of their value"),
        ("03-players", f"grubstake of {m(finance.bankruptcy.grubstake)}"),
        # 4.1 incorporation
        ("04-1-incorporation", f"authorizes {inc.authorized:,} shares and issues {inc.issued}"),
        (
            "04-1-incorporation",
            f"traffic (2.10) / {inc.traffic_per_dollar}, rounded down, "
            f"between {m(inc.min_price)} and {m(inc.max_price)}",
        ),
        (
            "04-1-incorporation",
            "Boston & Maine {}, Hudson River Line {}, Michigan Southern {}, Erie {}".format(
                *(m(price(c)) for c in ("B&M", "HRL", "MS", "ERIE"))
            ),
        ),
        (
            "04-1-incorporation",
            f"receives {inc.incorporator_percent}% of the issued stock, "
            f"{pcs.incorporator_shares(scenario)} shares",
        ),
        (
            "04-1-incorporation",
            "(Boston & Maine {}, Michigan Southern {})".format(
                *(
                    m((inc.issued - pcs.incorporator_shares(scenario)) * price(c))
                    for c in ("B&M", "MS")
                )
            ),
        ),
        ("04-1-incorporation", f"at efficiency {inc.efficiency}"),
        ("04-1-incorporation", f"bonus_percent = {companies.merger.bonus_percent}"),
        (
            "04-1-incorporation",
            f"Hudson River Line ({m(value('HRL'))}) into NYC at $20: "
            f"{value('HRL') * companies.merger.bonus_percent // 100 // 20} shares",
        ),
        # 4.2-4.4 stock and finance
        ("04-2-stock-and-finance", f"market price less {railroads.stock_issue.discount_percent}%"),
        (
            "04-2-stock-and-finance",
            "| " + " | ".join(f"{a}%" for a in railroads.stock_issue.appetite_percent) + " |",
        ),
        (
            "04-2-stock-and-finance",
            f"yield less than {railroads.stock_issue.prospects_yield_percent}% of its price",
        ),
        ("04-2-stock-and-finance", f"trades below {m(railroads.stock_issue.min_price)}"),
        (
            "04-2-stock-and-finance",
            "cut to {}, sold at {} = {}".format(
                600 * railroads.stock_issue.appetite_percent[4] // 100,
                m(issue_price(scenario, Railroad(code="PENN", number=12, name="", price=18))),
                m(
                    600
                    * railroads.stock_issue.appetite_percent[4]
                    // 100
                    * issue_price(scenario, Railroad(code="PENN", number=12, name="", price=18))
                ),
            ),
        ),
        ("04-2-stock-and-finance", f"Bonds pay {railroads.debt.bond_rate_percent}% a turn"),
        ("04-2-stock-and-finance", f"{m(railroads.debt.bond_limit_per_mile)} per track mile"),
        ("04-2-stock-and-finance", f"exceed {m(railroads.debt.loan_limit_per_mile)} per track"),
        (
            "04-2-stock-and-finance",
            f"({levels[0].loan_rate}% in a Boom ... {levels[-1].loan_rate}% in a Panic, 5)",
        ),
        # 4.6-4.13
        (
            "04-6-building-to-mergers",
            f"Expense permille = {ops.expense.base_permille} + (100 − efficiency) × "
            f"{ops.expense.slope_permille} + ({ops.expense.poor_below} − efficiency, if "
            f"positive) × {ops.expense.poor_slope_permille}",
        ),
        (
            "04-6-building-to-mergers",
            f"loses {railroads.efficiency.wear} points of efficiency "
            f"(never below {railroads.efficiency.floor})",
        ),
        (
            "04-6-building-to-mergers",
            f"Maximum efficiency is {railroads.efficiency.max}, less "
            f"{railroads.efficiency.lag_penalty} for each locomotive",
        ),
        (
            "04-6-building-to-mergers",
            f"a point costs ${railroads.efficiency.point_cost_per_mile}"
            f" × track miles below 80, twice that from 80, four times from 90",
        ),
        (
            "04-6-building-to-mergers",
            f"{m(1000)} buys 5 points at {m(nyc_miles)} → 80 for {m(5 * nyc_miles)} "
            f"(the next point would cost {m(steps[80] * nyc_miles)})",
        ),
        (
            "04-6-building-to-mergers",
            f"length × {m(building.building.cost_per_mile)} × terrain "
            f"% × climate % + (value of town A + value of town B) × "
            f"{m(building.building.town_cost_per_value)}",
        ),
        (
            "04-6-building-to-mergers",
            f"= {m(pa1)}; PENN with $1,800 issues {m(penn_limit)} of bonds (its limit) and "
            f"borrows {m(pa1 - 1800 - penn_limit)}",
        ),
        ("04-6-building-to-mergers", f"at least {m(building.auction.min_bid_per_mile)} a mile"),
        ("04-6-building-to-mergers", f"at most {building.auction.max_unbuilt_rows} unbuilt"),
        ("04-6-building-to-mergers", f"loses {railroads.political.decay_percent}% a turn"),
        (
            "04-6-building-to-mergers",
            f"length × ({ops.revenue.line_base} + value of town A + "
            f"value of town B) × {ops.revenue.rate_percent}%",
        ),
        (
            "04-6-building-to-mergers",
            f"lines touching its town × {100 + ops.revenue.grand_station_percent}%",
        ),
        (
            "04-6-building-to-mergers",
            f"earns 104 × (10 + 25 + 4) × 150% = {m(penn_traffic)}; at efficiency 75 "
            f"its expense is {expense_permille(scenario, 75) // 10}% of that, {m(penn_expense)}",
        ),
        (
            "04-6-building-to-mergers",
            f"written down by {ops.insolvency.writedown_percent}%, its price is cut to "
            f"{ops.insolvency.price_percent}% (at least {m(ops.insolvency.min_price)})",
        ),
        (
            "04-6-building-to-mergers",
            f"{railroads.dividends.payout_percent}% of the turn's "
            f"profit per share, never taking its cash below a reserve of "
            f"{m(railroads.dividends.reserve_per_mile)} per track mile",
        ),
        # 4.15-4.18
        ("04-15-improvements", f"costs {building.double_track.cost_percent}% of the normal"),
        (
            "04-15-improvements",
            "Lion → Mogul {} a mile".format(
                m(
                    upgrade_cost(scenario, Railroad(code="X", number=0, name="", lines=["PENN"]), 4)
                    // track_miles(scenario, penn)
                )
            ),
        ),
        (
            "04-15-improvements",
            f"{m(techs.technology_cost_per_mile)} per mile of track, or a "
            f"flat {m(techs.grand_station_cost)} for a Grand Station",
        ),
        # 5, 7, 8, 11
        (
            "05-economic-climate",
            f"the margin falls {margin_step / 10} points for each level worse",
        ),
        ("07-land-grants", f"earns {building.land.acres_per_mile} acres per mile"),
        (
            "07-land-grants",
            "grants {:,} acres, which sell for {} in a Normal climate".format(
                land_grant(scenario, "IL4"),
                m(land_grant(scenario, "IL4") * building.land.price_per_acre[NORMAL]),
            ),
        ),
        ("08-civil-war", f"turns {war.turns[0]} and {war.turns[1]}"),
        ("08-civil-war", f"earn {war.southern_revenue_percent}% of their revenue"),
        ("08-civil-war", f"loses {war.southern_efficiency_loss} efficiency points each war turn"),
        ("08-civil-war", f"earn {war.northern_revenue_percent}% (war traffic)"),
        ("08-civil-war", f"= {m(scl[0].traffic)} and NYC"),
        ("08-civil-war", f"× 115% = {m(nyc[0].traffic)}"),
        ("10-1-personal-actions", f"{m(spying.player_cost)}; one player a turn"),
        ("10-1-personal-actions", f"{m(spying.railroad_cost)} each; three railroads a turn"),
        (
            "11-1-bank-failures",
            f"drawn evenly from {failures.min_loss_percent}% to {failures.max_loss_percent}%",
        ),
        (
            "11-2-random-events",
            f"{100}% at {odds.pivot}, {odds.percent_per_point}% less for each point above",
        ),
        (
            "11-2-random-events",
            f"never below {odds.min_percent}% — at 90 the odds are {odds_at(90)}%, at 99 "
            f"{odds_at(99)}%",
        ),
        (
            "11-2-random-events",
            f"1% less for each {m(odds.influence_per_percent)} of influence, "
            f"at most {odds.max_influence_cut}% less",
        ),
        (
            "11-2-random-events",
            "technology: halved for each listed technology"
            if odds.technology_cut_percent == 50
            else f"technology: cut {odds.technology_cut_percent}% for each listed technology",
        ),
    ]


def test_quoted_numbers_match_the_data(scenario: Scenario) -> None:
    missing = [
        f"{name}.md: {phrase!r}" for name, phrase in _quotes(scenario) if phrase not in _text(name)
    ]
    assert missing == [], "the rules text quotes other numbers than the data:\n" + "\n".join(
        missing
    )
