"""The 18xx games as the pipeline sees them: a `SequentialFamily`."""

from collections.abc import Callable
from typing import Any

from turnproc.families.boundary import SequentialFamily


def _g18xx_computer() -> Callable[[Any, int, int, int], str]:
    from turnproc.families.g18xx import ai as g18xx_ai

    return g18xx_ai.next_order


def _g18xx_report() -> Callable[[Any, int, tuple[str, ...]], tuple[bytes, str]]:
    from turnproc.families.g18xx.report import build_report, render_json, render_pdf

    def render(game: Any, player: int, log: tuple[str, ...]) -> tuple[bytes, str]:
        report = build_report(game, player, log=log)
        return render_pdf(report), render_json(report)

    return render


def _g18xx_rules_pdf(pdf_name: str | None) -> tuple[str, bytes] | None:
    from turnproc.families.g18xx.report.rules_pdf import title_of_pdf_name, title_rules_pdf

    title = title_of_pdf_name(pdf_name)
    return None if title is None or pdf_name is None else (pdf_name, title_rules_pdf(title))


G18XX = SequentialFamily(
    name="18xx",
    titles={"18ms": "18MS", "18ga": "18GA"},
    options={"18MS": {"edition": ("1.0", "18xx.games"), "operating_rounds": ("10", "11")}},
    computer_move=_g18xx_computer,
    move_report=_g18xx_report,
    rules_pdf=_g18xx_rules_pdf,
)
