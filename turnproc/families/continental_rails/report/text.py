"""9 The turn report as plain text: the body of the report email.

Rendered from templates/report.txt.j2 with the same `PlayerReport` as the PDF
and the JSON export. Tables are fixed-width columns; a name too long for its
column is cut with "~" (the PDF prints it whole).
"""

import textwrap
from functools import cache, lru_cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from turnproc.core.money import money
from turnproc.families.continental_rails.report.model import PlayerReport
from turnproc.families.continental_rails.report.wording import TEMPLATES_DIR
from turnproc.templatecache import compiled

TEXT_TEMPLATE = "report.txt.j2"
LINE_WIDTH = 100


def _money(value: int | None) -> str:
    return "-" if value is None else money(value)


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _fit(value: object, width: int, pad: bool = True) -> str:
    text = str(value)
    if len(text) > width:
        text = text[: width - 1] + "~"
    return text.ljust(width) if pad else text


def _rj(value: object, width: int) -> str:
    return str(value).rjust(width)


def _wrap(value: object, indent: int) -> str:
    return _wrapped(str(value), indent)


@lru_cache(maxsize=4096)
def _wrapped(text: str, indent: int) -> str:
    """Cached: news items read the same in every reader's report."""
    lines = textwrap.wrap(text, LINE_WIDTH - indent) or [""]
    return ("\n" + " " * indent).join(lines)


@cache
def _template(name: str) -> Template:
    loader = FileSystemLoader(TEMPLATES_DIR)
    env = Environment(
        loader=loader,
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters.update(money=_money, num=_num, fit=_fit, rj=_rj, wrap=_wrap)
    source, filename, _ = loader.get_source(env, name)
    return compiled(env, source, name, filename)


def text_template() -> Template:
    """The compiled body template, compiled once per process: worth doing before
    forking workers, so that each does not compile it again."""
    return _template(TEXT_TEMPLATE)


def render_text(report: PlayerReport) -> str:
    """The report email's plain-text body."""
    text = text_template().render(r=report)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
