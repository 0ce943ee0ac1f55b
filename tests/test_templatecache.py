"""Compiled templates kept between processes (turnproc/templatecache.py)."""

from pathlib import Path

import pytest
from jinja2 import Environment, StrictUndefined

from turnproc import templatecache
from turnproc.templatecache import CACHE_ENV, compiled

SOURCE = "{{ name }} bought {{ shares }} shares of {{ railroad | upper }}"


def _env(**settings: object) -> Environment:
    return Environment(undefined=StrictUndefined, autoescape=False, **settings)  # type: ignore[arg-type]


def _compiles(env: Environment, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources `env` compiles from now on."""
    seen: list[str] = []
    compile_once = env.compile

    def counted(source: str, *args: object, **kwargs: object) -> object:
        seen.append(source)
        return compile_once(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(env, "compile", counted)
    return seen


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_template_is_compiled_once_and_renders_the_same_from_the_cache(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = {"name": "Vanderbilt", "shares": 3, "railroad": "nyc"}
    expected = _env().from_string(SOURCE).render(values)
    first = _env()
    assert compiled(first, SOURCE).render(values) == expected
    assert len(list(folder.glob("*.code"))) == 1
    later = _env()  # another process's environment, the same settings
    compiles = _compiles(later, monkeypatch)
    assert compiled(later, SOURCE).render(values) == expected
    assert compiles == []


def test_another_source_or_other_settings_are_compiled_anew(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled(_env(), SOURCE)
    env = _env()
    compiles = _compiles(env, monkeypatch)
    compiled(env, SOURCE + "!")
    assert compiles == [SOURCE + "!"]
    # A syntax setting changes the compiled code: not read from another's file.
    trimmed = _env(keep_trailing_newline=True)
    compiles = _compiles(trimmed, monkeypatch)
    assert compiled(trimmed, "{{ x }}\n").render(x=1) == "1\n"
    assert compiles == ["{{ x }}\n"]
    assert len(list(folder.glob("*.code"))) == 3


def test_a_damaged_file_is_compiled_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled(_env(), SOURCE)
    (cached,) = folder.glob("*.code")
    cached.write_bytes(b"\x00not marshalled code")
    env = _env()
    compiles = _compiles(env, monkeypatch)
    assert (
        compiled(env, SOURCE).render(name="A", shares=1, railroad="b") == "A bought 1 shares of B"
    )
    assert compiles == [SOURCE]
    later = _env()
    compiles = _compiles(later, monkeypatch)
    compiled(later, SOURCE)
    assert compiles == []  # the damaged file was replaced


def test_a_folder_that_cannot_be_made_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv(CACHE_ENV, str(blocked / "cache"))
    assert compiled(_env(), SOURCE).render(name="A", shares=1, railroad="b")
    assert blocked.read_text() == ""


def test_a_folder_others_may_write_in_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(CACHE_ENV, str(shared))
    assert compiled(_env(), SOURCE).render(name="A", shares=1, railroad="b")
    assert list(shared.iterdir()) == []
    assert templatecache._usable(shared) is None


def test_the_turnsheet_and_receipt_templates_are_kept(folder: Path) -> None:
    from turnproc.families.continental_rails.turnsheet import templating

    templating.template.cache_clear()  # as in a new process
    try:
        templating.template("turnsheet.txt.j2")
        templating.template("receipt.txt.j2")
        assert len(list(folder.glob("*.code"))) == 2
    finally:
        templating.template.cache_clear()
