"""The moderator's command line: `turnproc <command> ...`.

Each module in `turnproc.commands` adds its own subcommands through a
`register(subparsers)` function, so commands live next to the layer they drive.
Every command exits 0 on success, 1 when the request is refused, 2 on a usage
error, and prints one clear line (no traceback) on bad input.

Failures of the machine rather than the request (a full disk, a database
connection lost, a damaged database file) are turned into one line here, for
every command, and exit 75 (EX_TEMPFAIL): each command commits its work in
whole units, so the unit that failed was rolled back, nothing is stored half,
and the same command can simply run again once the cause is fixed. A mail
server piping a message into `mail ingest -` keeps it and retries.
"""

import argparse
import atexit
import errno
import gc
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from turnproc import __version__, commands
from turnproc.core.collection import YOUNG
from turnproc.core.errors import TurnprocError

EX_TEMPFAIL = 75
_DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_SQLITE_DAMAGED = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
_POSTGRES_DAMAGED = {"XX001", "XX002"}  # data_corrupted, index_corrupted


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"turnproc: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="turnproc", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"turnproc {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        # The program's own process (not a caller in Python): it ends after
        # the command, so the collector need not walk everything loaded at the
        # interpreter's end (a fifth of a second after `mail send`), and it
        # collects rarely while the command imports and works (core.collection).
        atexit.register(gc.freeze)
        gc.set_threshold(max(gc.get_threshold()[0], YOUNG), *gc.get_threshold()[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.handler(args)
    except TurnprocError as exc:
        print(f"turnproc: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("turnproc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader stopped reading (`turnproc game log GAME | head`): whatever the
        # command did is done; drop the rest of its output quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        line = machine_failure(exc)
        if line is None:
            raise  # a bug: the traceback is what its report needs
        print(f"turnproc: {line}", file=sys.stderr)
        return EX_TEMPFAIL
    return int(result or 0)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def machine_failure(exc: Exception) -> str | None:
    """The one line for a failure of the disk or the database, or None when
    `exc` is something else (an integrity or programming error is a bug)."""
    if isinstance(exc, OSError):
        if exc.errno in _DISK_FULL:
            where = f" writing {exc.filename}" if exc.filename else ""
            return (
                f"the disk is full ({exc.strerror}{where}); nothing was stored half: "
                "free some space and run the command again"
            )
        return None
    # Imported here: `turnproc --help` and the commands that never touch the
    # database start without SQLAlchemy.
    from sqlalchemy.exc import DBAPIError, OperationalError

    if not isinstance(exc, DBAPIError):
        return None
    original = exc.orig
    code = getattr(original, "sqlite_errorname", None) or getattr(original, "sqlstate", None)
    detail = _first_line(original or exc)
    if code == "SQLITE_FULL":
        return (
            f"the disk is full (the database says: {detail}); nothing was stored half: "
            "free some space and run the command again"
        )
    if code in _SQLITE_DAMAGED or code in _POSTGRES_DAMAGED:
        return (
            f"the database is damaged ({detail}); nothing more was stored: restore it from "
            "a backup (for SQLite, `sqlite3 FILE 'PRAGMA integrity_check'` shows the damage)"
        )
    if exc.connection_invalidated or isinstance(exc, OperationalError):
        return (
            f"the database failed ({detail}); what this command had not yet committed was "
            "rolled back: run it again"
        )
    return None


if __name__ == "__main__":
    sys.exit(main())
