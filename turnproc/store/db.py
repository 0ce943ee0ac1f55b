"""Connecting to the database and keeping its schema at the newest migration.

`open_database(url)` gives an `Engine` whose schema is up to date: the Alembic
migrations in `store/migrations/` run on first use (PostgreSQL serialises concurrent
upgrades with an advisory lock). Sessions never commit by themselves: the
command or batch run that opens one owns the transaction.

Alembic is loaded for an upgrade alone: whether a database is up to date is
read from its `alembic_version` table and the migration files themselves, so
every command on an up-to-date database starts without it.
"""

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from turnproc.core.errors import TurnprocError

if TYPE_CHECKING:
    from alembic.config import Config

HERE = Path(__file__).resolve().parent
MIGRATIONS = HERE / "migrations"
_UPGRADE_LOCK_KEY = 7_238_001  # PostgreSQL advisory lock id for schema upgrades


class DatabaseError(TurnprocError):
    """The database cannot be reached or used; the message says which and why."""


def _alembic_config() -> "Config":
    from alembic.config import Config

    config = Config(str(HERE / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@cache
def head_revision() -> str | None:
    """The newest migration: the one revision of the migration files that no
    other names as its `down_revision` (the head Alembic finds)."""
    revisions: set[str] = set()
    followed: set[str] = set()
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name, value = node.target.id, node.value
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                name, value = node.targets[0].id, node.value
            else:
                continue
            if name == "revision" and value is not None:
                revisions.add(ast.literal_eval(value))
            elif name == "down_revision" and value is not None:
                down = ast.literal_eval(value)
                followed.update([down] if isinstance(down, str) else down or ())
    heads = sorted(revisions - followed)
    if len(heads) > 1:
        raise DatabaseError(f"the migrations have more than one head: {', '.join(heads)}")
    return heads[0] if heads else None


def current_revision(connection: Connection) -> str | None:
    """The revision the database's `alembic_version` table records (None for
    an empty database), as Alembic reads it."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    versions = list(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())
    if len(versions) > 1:
        raise DatabaseError(f"the database records more than one revision: {', '.join(versions)}")
    return versions[0] if versions else None


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own transaction handling is switched off so that SQLAlchemy's
    # BEGIN (below) decides when a transaction starts.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _begin_immediate(connection: Connection) -> None:
    # Take SQLite's write lock at BEGIN, so two writers queue instead of
    # deadlocking when both upgrade a read lock later.
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def create_db_engine(url: str) -> Engine:
    """An engine for `url`; nothing is checked or migrated yet."""
    try:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": 30})
            event.listen(engine, "connect", _sqlite_connect)
            event.listen(engine, "begin", _begin_immediate)
            return engine
        return create_engine(url, pool_pre_ping=True)
    except (SQLAlchemyError, ValueError, ImportError) as exc:
        raise DatabaseError(f"cannot use database {safe_url(url)}: {exc}") from None


def safe_url(url: str) -> str:
    """The URL without a password, for messages."""
    head, sep, tail = url.partition("@")
    if not sep or "://" not in head:
        return url
    scheme, _, userinfo = head.partition("://")
    return f"{scheme}://{userinfo.split(':')[0]}@{tail}"


def upgrade(engine: Engine) -> tuple[str | None, str | None]:
    """Run every pending migration; returns (revision before, revision after)."""
    try:
        with engine.connect() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _UPGRADE_LOCK_KEY})
            try:
                before = current_revision(connection)
                if before != head_revision():
                    from alembic import command

                    config = _alembic_config()
                    config.attributes["connection"] = connection
                    command.upgrade(config, "head")
                    connection.commit()
                after = current_revision(connection)
            finally:
                if connection.dialect.name == "postgresql":
                    connection.rollback()
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:k)"), {"k": _UPGRADE_LOCK_KEY}
                    )
                    connection.commit()
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot upgrade database {safe_url(str(engine.url))}: {exc}") from None
    return before, after


_ready: dict[str, Engine] = {}


def open_database(url: str) -> Engine:
    """An engine with its schema at the newest migration (upgraded on first use)."""
    engine = _ready.get(url)
    if engine is None:
        engine = create_db_engine(url)
        try:
            with engine.connect() as connection:
                up_to_date = current_revision(connection) == head_revision()
        except SQLAlchemyError as exc:
            first = str(exc).strip().splitlines()[0]
            raise DatabaseError(f"cannot open database {safe_url(url)}: {first}") from None
        if not up_to_date:
            upgrade(engine)
        _ready[url] = engine
    return engine


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commits when the block ends normally, rolls back otherwise."""
    factory = sessionmaker(engine, expire_on_commit=False)
    with factory() as session, session.begin():
        yield session
