"""Elections of directors, chairman and presidents (rule 4.14)."""

from turnproc.cr.context import TurnContext


def elections(ctx: TurnContext) -> None:
    """4.14 End-of-turn elections."""
