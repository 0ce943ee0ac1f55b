"""Incorporating PCs and merging PCs into railroads (rule 4.1)."""

from turnproc.cr.context import TurnContext


def incorporate_pcs(ctx: TurnContext) -> None:
    """4.1 Incorporation of PCs as new railroads."""


def merge_pcs(ctx: TurnContext) -> None:
    """4.1 Merging PCs into railroads for a stock bonus."""
