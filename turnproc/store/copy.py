"""Copying a whole database to another: a moderator who started on SQLite moves
to PostgreSQL (or back, or to a new server) with every game, turn, submission,
report and mail kept.

Both databases are brought to the newest migration first; the target must hold
no games yet. The target's installation key (made by its migrations) gives way
to the source's, so mail the source sent keeps its Message-IDs when sent again
from the target. Tables are copied in dependency order, in batches, inside one
transaction on the target, so a failure leaves it as empty as it was. On
PostgreSQL the id sequences are moved past the copied ids afterwards.
"""

from collections.abc import Callable

from sqlalchemy import Engine, delete, func, select, text
from sqlalchemy.exc import SQLAlchemyError

from turnproc.store.db import DatabaseError, safe_url
from turnproc.store.models import Base, Installation

BATCH_ROWS = 500


def copy_database(
    source: Engine, target: Engine, on_table: Callable[[str, int], None] | None = None
) -> dict[str, int]:
    """Every row of `source` into the empty `target`; returns rows copied by table."""
    if source.url == target.url:
        raise DatabaseError("the source and the target are the same database")
    tables = Base.metadata.sorted_tables
    with target.connect() as connection:
        filled = {
            table.name: n
            for table in tables
            if table is not Installation.__table__
            and (n := connection.scalar(select(func.count()).select_from(table)) or 0)
        }
    if filled:
        what = ", ".join(f"{n} {name}" for name, n in sorted(filled.items()))
        raise DatabaseError(
            f"the target {safe_url(str(target.url))} is not empty ({what}); "
            "copy into a new database"
        )
    copied: dict[str, int] = {}
    try:
        with source.connect() as reader, target.begin() as writer:
            writer.execute(delete(Installation))
            for table in tables:
                count = 0
                result = reader.execute(select(table).order_by(*table.primary_key.columns))
                for part in result.mappings().partitions(BATCH_ROWS):
                    writer.execute(table.insert(), [dict(row) for row in part])
                    count += len(part)
                copied[table.name] = count
                if on_table is not None:
                    on_table(table.name, count)
            if writer.dialect.name == "postgresql":
                for table in tables:
                    if "id" in table.columns and table.columns["id"].autoincrement:
                        writer.execute(
                            text(
                                f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)"
                            )
                        )
    except SQLAlchemyError as exc:
        first = str(exc).strip().splitlines()[0]
        raise DatabaseError(f"the copy failed, the target is left empty: {first}") from None
    return copied
