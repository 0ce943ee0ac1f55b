"""The moderator's command line: `turnproc <command> ...`.

Each module in `turnproc.commands` adds its own subcommands through a
`register(subparsers)` function, so commands live next to the layer they drive.
Every command exits 0 on success, 1 when the request is refused, 2 on a usage
error, and prints one clear line (no traceback) on bad input.
"""

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from turnproc import __version__, commands
from turnproc.core.errors import TurnprocError


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
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
