"""What a private company is worth: list price, incorporation terms, income (rules 2.3, 3.4, 4.1).

Pure functions of the scenario map and companies.toml / finance.toml, shared
by the auction, incorporation, PC mergers, tycoon income and valuation, so
the same PC is valued the same way everywhere.

A PC's *traffic* is its route length times the sum of its two towns' values
(size squared): the measure of how much business the route can carry.
"""

from pydantic import BaseModel

from turnproc.families.continental_rails.engine.setup import pc_asking_price
from turnproc.scenario.model import Scenario


class IncorporationParams(BaseModel):
    """companies.toml [incorporation]"""

    authorized: int = 1000
    issued: int = 500
    incorporator_percent: int = 20  # of the issued stock, free to the incorporator
    traffic_per_dollar: int = 250  # opening price = traffic / this
    min_price: int = 5
    max_price: int = 30
    efficiency: int = 70


class MergerParams(BaseModel):
    """companies.toml [merger]"""

    bonus_percent: int = 100  # bonus stock worth this % of the PC's value


class PresidencyParams(BaseModel):
    """companies.toml [presidency]"""

    max_presidencies: int = 2


class CompaniesParams(BaseModel):
    """companies.toml"""

    incorporation: IncorporationParams = IncorporationParams()
    merger: MergerParams = MergerParams()
    presidency: PresidencyParams = PresidencyParams()


class PCIncomeParams(BaseModel):
    """finance.toml [pc_income]"""

    traffic_permille: int = 40  # income a turn = traffic x this / 1000


class _FinancePCIncome(BaseModel):
    pc_income: PCIncomeParams = PCIncomeParams()


def traffic(scenario: Scenario, code: str) -> int:
    """2.4 Route length x (value of town a + value of town b)."""
    route = scenario.routes[code]
    return route.length * (scenario.towns[route.a].value + scenario.towns[route.b].value)


def list_price(scenario: Scenario, code: str) -> int:
    """2.3 The asking price of PC `code` when newly released (start.toml price_factor)."""
    return pc_asking_price(scenario, code)


def opening_price(scenario: Scenario, code: str) -> int:
    """4.1 Share price of a railroad incorporated from PC `code` [designed]:
    traffic / traffic_per_dollar, kept between min_price and max_price."""
    params = scenario.section("companies", CompaniesParams).incorporation
    price = traffic(scenario, code) // params.traffic_per_dollar
    return max(params.min_price, min(params.max_price, price))


def incorporator_shares(scenario: Scenario) -> int:
    """4.1 Shares the incorporator receives: incorporator_percent of the issued stock."""
    params = scenario.section("companies", CompaniesParams).incorporation
    return params.issued * params.incorporator_percent // 100


def pc_value(scenario: Scenario, code: str) -> int:
    """3.4 Book value of a PC [designed]: what incorporating it gives its owner,
    the incorporator's shares at the opening price. Worked out once per PC."""
    values: dict[str, int] = scenario.derived("pc_values", lambda _: {})
    value = values.get(code)
    if value is None:
        value = values[code] = incorporator_shares(scenario) * opening_price(scenario, code)
    return value


def pc_income(scenario: Scenario, code: str) -> int:
    """3.4 Income a turn of an owned PC [designed]: traffic x traffic_permille / 1000."""
    permille = scenario.section("finance", _FinancePCIncome).pc_income.traffic_permille
    return traffic(scenario, code) * permille // 1000
