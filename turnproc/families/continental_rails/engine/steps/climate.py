"""The economic climate (rule 5).

The climate changes once a turn, during the stock market phase; the turn's
revenues, interest rates and building costs keep using the starting climate
(`ctx.start.climate`). The chances of each move are in climate.toml [moves].
"""

from typing import ClassVar, Literal

from pydantic import BaseModel, model_validator

from turnproc.families.continental_rails.engine.climate_table import ClimateTable
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event


class ClimateMove(BaseModel):
    """Chances in % of each move from one level (climate.toml [moves.<level>])."""

    better2: int = 0
    better: int = 0
    same: int = 0
    worse: int = 0
    worse2: int = 0
    panic: int = 0

    @model_validator(mode="after")
    def _adds_up(self) -> "ClimateMove":
        chances = (self.better2, self.better, self.same, self.worse, self.worse2, self.panic)
        if any(c < 0 for c in chances) or sum(chances) != 100:
            raise ValueError("climate move chances must be >= 0 and add up to 100")
        return self


class ClimateMoves(ClimateTable):
    """climate.toml: the table plus the moves of the climate step."""

    moves: dict[str, ClimateMove]

    @model_validator(mode="after")
    def _every_level(self) -> "ClimateMoves":
        missing = [level.name for level in self.levels if level.name not in self.moves]
        if missing:
            raise ValueError(f"no climate moves for {', '.join(missing)}")
        return self


class ClimateChanged(Event):
    """5 The climate moved from level `old` to `new` (indexes, 0 = Boom)."""

    kind: Literal["climate_changed"] = "climate_changed"
    old: int
    new: int
    news_order: ClassVar[int] = 160


def next_climate(table: ClimateMoves, current: int, roll: int) -> int:
    """5 The level after `current` for a roll of 0-99."""
    move = table.moves[table.levels[current].name]
    worst = len(table.levels) - 1
    steps = (
        (move.better2, current - 2),
        (move.better, current - 1),
        (move.same, current),
        (move.worse, current + 1),
        (move.worse2, current + 2),
        (move.panic, worst),
    )
    total = 0
    for chance, level in steps:
        total += chance
        if roll < total:
            return max(0, min(worst, level))
    return current


def change_climate(ctx: TurnContext) -> None:
    """5 The climate changes during the stock market phase [designed odds];
    `climate_changed` is emitted only when the level actually moves."""
    table = ctx.params("climate", ClimateMoves)
    old = ctx.state.climate
    new = next_climate(table, old, ctx.rng("climate").randrange(100))
    if new != old:
        ctx.state.climate = new
        ctx.emit(ClimateChanged(old=old, new=new))
