"""The report as plain text (Jinja2) and as JSON."""

import json
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from turnproc.families.g18xx.report.model import Report, bank_words

TEMPLATES = Path(__file__).parent / "templates"


def _fit(value: object, width: int) -> str:
    return str(value)[:width].ljust(width)


def _rj(value: object, width: int) -> str:
    return str(value).rjust(width)


def _money(value: object) -> str:
    return f"${value}"


def _bank(cash: int) -> str:
    words = bank_words(cash)
    return words[:1].upper() + words[1:]


@cache
def _template() -> Template:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )
    env.filters.update(fit=_fit, rj=_rj, money=_money, bank=_bank)
    return env.get_template("report.txt.j2")


def render_text(report: Report) -> str:
    text = _template().render(r=report)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=1, sort_keys=True) + "\n"
