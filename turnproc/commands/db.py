"""`turnproc db upgrade | copy`: bring the schema to the newest migration; copy a
whole database into the configured (empty) one."""

import argparse
import json

from sqlalchemy import Engine

from turnproc.config import load_settings
from turnproc.store.copy import copy_database
from turnproc.store.db import create_db_engine, open_database, safe_url, upgrade


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("db", help="the database")
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    p_upgrade = sub.add_parser("upgrade", help="run pending migrations (alembic upgrade head)")
    p_upgrade.add_argument("--json", action="store_true", help="print JSON")
    p_upgrade.set_defaults(handler=_upgrade)
    p_copy = sub.add_parser(
        "copy", help="copy every game of another database into this (empty) one"
    )
    p_copy.add_argument("--from", dest="source", required=True, help="the source database URL")
    p_copy.add_argument("--json", action="store_true", help="print JSON")
    p_copy.set_defaults(handler=_copy)


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


def _copy(args: argparse.Namespace) -> int:
    """Both databases are migrated to the newest schema first (the source too)."""
    source = open_database(args.source)
    target = database()
    copied = copy_database(source, target)
    if args.json:
        print(json.dumps({"copied": copied}, sort_keys=True))
        return 0
    for name, count in copied.items():
        print(f"{name:<16} {count:>8} rows")
    games = copied.get("games", 0)
    print(f"copied {games} game(s) from {safe_url(args.source)}")
    return 0
