"""Jinja2 for the turnsheet and the receipt (templates/turnsheet.txt.j2, receipt.txt.j2).

Their compiled code is kept between processes (turnproc/templatecache.py), as
the report's is: compiling the turnsheet took 0.02 CPU-s of every turn's
process, the receipt 0.013 of every intake of a sheet."""

from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from turnproc.core.money import money
from turnproc.templatecache import compiled

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
PAD = 24  # column of the hints after a form line


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
    assert env.loader is not None
    source, filename, _ = env.loader.get_source(env, name)
    return compiled(env, source, name, filename)
