"""The stock market's parameters (turnproc/scenarios/continental-rails/market.toml)."""

from typing import Self

from pydantic import BaseModel, model_validator

from turnproc.scenario.model import Scenario


class PriceParams(BaseModel):
    """6.3 How the price moves once a turn, after trading [designed]."""

    mood_percent: list[int]  # by climate level (0 Boom ... 8 Panic): the public's demand
    demand_percent: int  # change for a net player demand of 100% of issued stock
    target_yield_percent: int  # dividend yield at which dividends push neither way
    fundamental_weight_percent: int  # % of the yield gap added to the change
    fundamental_limit_percent: int  # the yield term never exceeds this either way
    earnings_yield_percent: int  # earnings per share are worth 100/this times themselves
    track_value_per_mile: int  # book value of a mile of track
    value_weight_percent: int  # % of the gap between value and price added to the change
    value_limit_percent: int  # the value term never exceeds this either way
    new_railroad_turns: int  # railroads this young are not marked down for no dividend
    cornered_percent: int  # change for a cornered stock (6.4; negative: drifts down)
    noise_percent: int  # seeded noise, uniform in +-this
    max_rise_percent: int  # bounds of one turn's change
    max_fall_percent: int
    min_move_percent: int  # a change at least this big moves the price at least $1
    min_price: int = 1


class ShortParams(BaseModel):
    """6.2 Short sales [designed]."""

    margin_percent: int  # cash deposited per short sale, % of its value at the checked price
    maintenance_percent: int  # covered by force when buying back costs more than this % of
    # the collateral


class MarketParams(BaseModel):
    """market.toml: the stock market (6) and the director threshold elections use (4.14)."""

    bid_limit_percent: int  # 6.1B [original]: of the issued shares you don't own
    director_percent: int  # 4.14 [designed]: a director holds at least this % of issued stock
    cornered_percent: int  # 6.4 [original]: directors owning more than this % corner a stock
    split_above: int  # 6.5 [original]: an end price above this splits
    prices: PriceParams
    shorts: ShortParams

    @model_validator(mode="after")
    def _cornered_blocks_directorships(self) -> Self:
        """6.4 When directors own more than `cornered_percent`, the bid limit (whose
        base excludes directors' shares) must stay below `director_percent`."""
        if self.bid_limit_percent * (100 - self.cornered_percent) > 100 * self.director_percent:
            raise ValueError("bid limit lets a bidder reach a directorship in a cornered stock")
        return self


def market_params(scenario: Scenario) -> MarketParams:
    return scenario.section("market", MarketParams)
