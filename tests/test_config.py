"""Reading the settings (turnproc/config.py): turnproc.toml, then TURNPROC_* variables."""

from pathlib import Path

import pytest

from turnproc.config import Settings, load_settings
from turnproc.core.errors import TurnprocError


def test_the_file_then_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "turnproc.toml"
    toml.write_text('database_url = "sqlite:///a.db"\nweb_link_days = 30\nunknown = 1\n')
    monkeypatch.delenv("TURNPROC_DATABASE_URL", raising=False)
    monkeypatch.setenv("TURNPROC_WEB_LINK_DAYS", "45")
    monkeypatch.setenv("TURNPROC_MODERATOR_EMAIL", "mod@example.org")
    settings = load_settings(toml)
    assert settings == Settings(
        database_url="sqlite:///a.db", web_link_days=45, moderator_email="mod@example.org"
    )
    assert settings.smtp_url is None and settings.mail_from == "moderator@turnproc.invalid"


@pytest.mark.parametrize(
    ("line", "env"),
    [
        ("web_link_days = 'sixty'", None),
        ("web_link_days = true", None),
        ("smtp_url = 25", None),
        ("", "6o"),
    ],
)
def test_a_value_of_the_wrong_kind_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, env: str | None
) -> None:
    toml = tmp_path / "turnproc.toml"
    toml.write_text(line + "\n")
    for name in ("WEB_LINK_DAYS", "SMTP_URL"):
        monkeypatch.delenv(f"TURNPROC_{name}", raising=False)
    if env is not None:
        monkeypatch.setenv("TURNPROC_WEB_LINK_DAYS", env)
    with pytest.raises(TurnprocError, match="invalid configuration"):
        load_settings(toml)
