"""The computer players' parameters: personalities and shared numbers (ai.toml)."""

from pydantic import BaseModel

from turnproc.families.continental_rails.engine.state import Tycoon
from turnproc.scenario.model import Scenario


class Personality(BaseModel):
    """ai.toml [personalities.NAME]: one style of play (each field is commented
    in ai.toml; docs/computer-players.md describes the play)."""

    borrow_percent: int
    climate_borrow_percent: list[int]
    stays_leveraged: bool
    pc_budget_percent: int
    pc_premium_percent: int
    stock_budget_percent: int
    directorships: int
    presidencies: int
    shorts_percent: int
    speculations: int
    investments: int
    invest_percent: int
    borrows_to_invest: bool
    leverages_railroads: bool  # its railroads carry the whole short loan in good times
    sells_in_bad_times: bool
    prodigal_floor: int
    prodigal_percent: int
    prodigal_first: bool  # spends on Prodigal before bidding for PCs
    treasury_percent: int
    build_percent: int
    dividend_yield_percent: int
    payout_percent: int
    target_efficiency: int
    merges_railroads: bool
    prefers_merging_pcs: bool


class GeneralParams(BaseModel):
    """ai.toml [general]: what every computer player shares."""

    reserve_cash: int
    max_holding_percent: int
    president_hold_percent: int
    corner_margin_percent: int
    west_from_turn: int
    bad_climate_from: int
    good_climate_until: int
    track_value_per_mile: int
    overpriced_percent: int
    cheap_percent: int
    pc_bid_step: int
    row_search_limit: int
    row_bid_percent: list[int]
    tech_min_turns_left: int
    expected_last_turn: int
    issue_min_price: int
    double_track_min_gain: int
    extra_pc_bids: int
    prodigal_minimum_cash: int  # cash from which anyone spends the Prodigal minimum
    pc_earnings_percent: int  # a PC is worth at least this % of a turn's profit as a railroad
    donation_percent: int


class AIParams(BaseModel):
    """ai.toml"""

    order: list[str]
    general: GeneralParams
    personalities: dict[str, Personality]


def ai_params(scenario: Scenario) -> AIParams:
    return scenario.section("ai", AIParams)


def personality_name(scenario: Scenario, tycoon: Tycoon) -> str:
    """A position's personality: its own if set, else one assigned by position."""
    params = ai_params(scenario)
    if tycoon.personality in params.personalities:
        return tycoon.personality
    return params.order[(tycoon.position - 1) % len(params.order)]
