"""Jinja2 for the turnsheet and the receipt (templates/turnsheet.txt.j2, receipt.txt.j2)."""

import re
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
PAD = 24  # column of the hints after a form line


def money(amount: int) -> str:
    """Whole game dollars with thousands separators: -$1,234."""
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,}"


def plain_amounts(text: str) -> str:
    """Thousands separators in the dollar amounts of an engine's hint: $12345 -> $12,345."""
    return _DOLLARS.sub(lambda m: money(int(m.group(1))), text)


_DOLLARS = re.compile(r"\$(\d{4,})")


def signed(amount: int) -> str:
    return ("+" if amount > 0 else "") + money(amount)


def pad(text: str) -> str:
    return f"{text:<{PAD}}"


@cache
def template(name: str) -> Template:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(money=money, signed=signed, pad=pad)
    return env.get_template(name)
