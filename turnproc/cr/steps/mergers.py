"""Railroad mergers (rule 4.13)."""

from turnproc.cr.context import TurnContext


def merge_railroads(ctx: TurnContext) -> None:
    """4.13 Mergers of railroads with the same president."""
