"""The web pages read the database without ever taking its write lock.

The program's own engine begins every SQLite transaction with BEGIN
IMMEDIATE, which takes the write lock, so that two writers queue instead of
deadlocking (store/db.py). A page only reads: on that engine every visit
would queue behind, and hold up, the mail intake and the turn runs. The
pages read through a second engine over the same file whose transactions
begin DEFERRED (a read lock only, taken by the first SELECT) and whose
connections are `query_only`, so a write through it fails instead of
locking. PostgreSQL's reads take no lock that blocks a writer: there the
program's engine serves the pages too.
"""

from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event

BUSY_MS = 30_000  # as store/db.py: a writer's commit holds readers off briefly


def read_only_engine(engine: Engine) -> Engine:
    """An engine for the pages' reads over `engine`'s database (see the module
    docstring); `engine` itself where that needs nothing else (PostgreSQL, an
    in-memory SQLite database that only `engine` sees)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return engine
    reader = create_engine(engine.url, connect_args={"timeout": BUSY_MS / 1000})
    event.listen(reader, "connect", _read_only)
    event.listen(reader, "begin", _begin_deferred)
    return reader


def _read_only(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own transaction handling off: SQLAlchemy's BEGIN (below) decides.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _begin_deferred(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN DEFERRED")
