"""Configuration: `turnproc.toml` in the working directory, overridden by
`TURNPROC_*` environment variables (e.g. TURNPROC_DATABASE_URL).

The settings are a plain dataclass checked here, not a pydantic model: every
command reads them, and `mail send` or `mail ingest` loaded pydantic for
them alone (0.043 CPU-s of each cron process)."""

import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from types import UnionType
from typing import Any, get_args

from turnproc.core.errors import TurnprocError


@dataclass
class Settings:
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
    known = {field.name: field.type for field in fields(Settings)}
    for name in known:
        value = os.environ.get(f"TURNPROC_{name.upper()}")
        if value is not None:
            data[name] = value
    try:
        checked: dict[str, Any] = {
            name: _checked(name, known[name], v) for name, v in data.items() if name in known
        }
    except ValueError as exc:
        raise TurnprocError(f"invalid configuration: {exc}") from None
    return Settings(**checked)


def _checked(name: str, kind: Any, value: object) -> object:
    """`value` as the setting `name` of type `kind` takes it: text as text, a
    whole number as a number (also written as text, as the environment gives it)."""
    kinds = get_args(kind) if isinstance(kind, UnionType) else (kind,)
    if int in kinds and not isinstance(value, bool):
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value)
    if str in kinds and isinstance(value, str):
        return value
    wanted = " or ".join("nothing" if k is type(None) else k.__name__ for k in kinds)
    raise ValueError(f"{name} must be {wanted}, not {value!r}")
