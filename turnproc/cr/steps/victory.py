"""Victory points in six categories, game end and records (rules 1.2, 1.3, 11.3)."""

from turnproc.cr.context import TurnContext


def victory_points(ctx: TurnContext) -> None:
    """1.2 Victory points for the turn."""


def game_end(ctx: TurnContext) -> None:
    """1.3 The random game end after turn 20; records."""
