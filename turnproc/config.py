"""Configuration: `turnproc.toml` in the working directory, overridden by
`TURNPROC_*` environment variables (e.g. TURNPROC_DATABASE_URL)."""

import os
import tomllib
from pathlib import Path

from pydantic import BaseModel

from turnproc.core.errors import TurnprocError


class Settings(BaseModel):
    database_url: str = "sqlite:///turnproc.db"
    smtp_url: str | None = None
    imap_url: str | None = None
    mail_from: str = "moderator@turnproc.invalid"
    moderator_email: str | None = None
    # The host name our own mail server writes in the `by` clause of the
    # Received header it adds to every message it pipes to `mail ingest -`:
    # only that header's date is believed as the arrival time (docs/mail.md).
    received_by: str | None = None
    # The web pages (turnproc web, docs/web.md): the address players open, and
    # the key that signs their links (from TURNPROC_WEB_SECRET_KEY, else kept in
    # web_key_file, made there on first use).
    web_url: str | None = None
    web_secret_key: str | None = None
    web_key_file: str = "turnproc-web.key"
    web_link_days: int = 60


def load_settings(path: Path | None = None) -> Settings:
    path = path or Path(os.environ.get("TURNPROC_CONFIG", "turnproc.toml"))
    data: dict[str, object] = {}
    if path.is_file():
        try:
            data = dict(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise TurnprocError(f"{path}: invalid configuration ({exc})") from None
    for field in Settings.model_fields:
        value = os.environ.get(f"TURNPROC_{field.upper()}")
        if value is not None:
            data[field] = value
    try:
        return Settings.model_validate(data)
    except ValueError as exc:
        raise TurnprocError(f"invalid configuration: {exc}") from None
