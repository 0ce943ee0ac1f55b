"""`turnproc db upgrade | copy | prune`: bring the schema to the newest migration;
copy a whole database into the configured (empty) one; delete what ended games'
replays can make again."""

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine


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
    p_prune = sub.add_parser(
        "prune",
        help="delete ended games' reports, sent mail and turn records (kept: what a replay needs)",
    )
    p_prune.add_argument("--game", help="only this game (name or id)")
    p_prune.add_argument(
        "--dry-run", action="store_true", help="list the games it would prune; delete nothing"
    )
    p_prune.add_argument("--json", action="store_true", help="print JSON")
    p_prune.set_defaults(handler=_prune)


def database() -> "Engine":
    """The configured database (TURNPROC_DATABASE_URL), migrated on first use."""
    from turnproc.config import load_settings
    from turnproc.store.db import open_database

    return open_database(load_settings().database_url)


def _upgrade(args: argparse.Namespace) -> int:
    from turnproc.config import load_settings
    from turnproc.store.db import create_db_engine, upgrade

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
    from turnproc.store.copy import copy_database
    from turnproc.store.db import open_database, safe_url

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


def _prune(args: argparse.Namespace) -> int:
    """Each game in its own transaction, so a long prune holds no lock for long."""
    from turnproc.store import repository
    from turnproc.store.db import transaction

    engine = database()
    with transaction(engine) as session:
        game_id = None if args.game is None else repository.get_game(session, args.game).id
        games = [(g.id, g.name) for g in repository.prunable_games(session, game_id)]
    deleted: dict[str, int] = {}
    if not args.dry_run:
        for game_id, _name in games:
            with transaction(engine) as session:
                for table, count in repository.prune_game(session, game_id).items():
                    deleted[table] = deleted.get(table, 0) + count
    if args.json:
        print(json.dumps({"games": [name for _, name in games], "deleted": deleted}))
        return 0
    verb = "would prune" if args.dry_run else "pruned"
    print(f"{verb} {len(games)} ended game(s): {', '.join(n for _, n in games) or 'none'}")
    for table, count in sorted(deleted.items()):
        print(f"{table:<16} {count:>8} rows deleted")
    return 0
