"""`turnproc db upgrade`: bring the database schema to the newest migration."""

import argparse
import json

from sqlalchemy import Engine

from turnproc.config import load_settings
from turnproc.store.db import create_db_engine, open_database, upgrade


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("db", help="the database")
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    p_upgrade = sub.add_parser("upgrade", help="run pending migrations (alembic upgrade head)")
    p_upgrade.add_argument("--json", action="store_true", help="print JSON")
    p_upgrade.set_defaults(handler=_upgrade)


def database() -> Engine:
    """The configured database (TURNPROC_DATABASE_URL), migrated on first use."""
    return open_database(load_settings().database_url)


def _upgrade(args: argparse.Namespace) -> int:
    engine = create_db_engine(load_settings().database_url)
    before, after = upgrade(engine)
    if args.json:
        print(json.dumps({"before": before, "after": after}))
    elif before == after:
        print(f"database already at revision {after}")
    else:
        print(f"database upgraded from {before or 'empty'} to revision {after}")
    return 0
