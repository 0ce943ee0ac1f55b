"""Improvements: double track, locomotives, technologies, efficiency (rules 4.6, 4.15-4.18)."""

from turnproc.cr.context import TurnContext


def improvements(ctx: TurnContext) -> None:
    """4.15-4.18 Double tracking, locomotive upgrades, technologies, capital improvements, donations, rate wars."""


def progress(ctx: TurnContext) -> None:
    """4.17-4.18 New locomotives and technologies become available at the end of the turn."""
