"""`turnproc 18xx move GAME --player ID FILE|- | show GAME [--json]`: play an
18xx game stored in the database (one imported by `turnproc game import`)."""

import argparse
import json
import sys
from pathlib import Path

from turnproc import batch
from turnproc.commands.db import database
from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.orders import MAX_TEXT
from turnproc.store import g18xx as store
from turnproc.store.db import transaction


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("18xx", help="play a stored 18xx game (18MS, 18GA)")
    sub = parser.add_subparsers(dest="g18xx_command", metavar="ACTION", required=True)
    p = sub.add_parser("move", help="apply a player's orders (docs/18xx.md)")
    p.add_argument("game", help="game name")
    p.add_argument("--player", type=int, required=True, help="the player's id")
    p.add_argument("file", help="file of orders, or - for standard input")
    p.set_defaults(handler=_move)
    p = sub.add_parser("show", help="the position: round, companies, players, scores")
    p.add_argument("game", help="game name")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_show)


def _read(name: str) -> str:
    try:
        if name == "-":
            return sys.stdin.read(MAX_TEXT + 1)
        with Path(name).open(encoding="utf-8") as handle:
            return handle.read(MAX_TEXT + 1)  # longer orders are refused whole
    except (OSError, UnicodeDecodeError) as exc:
        raise TurnprocError(f"{name}: {exc}") from None


def _move(args: argparse.Namespace) -> int:
    text = _read(args.file)
    with transaction(database()) as session:
        receipt = store.move(
            session, args.game, args.player, text, batch.utcnow(), origin="moderator"
        )
    for line, note in receipt.applied:
        print(f"ok: {line}" + (f"  ({note})" if note else ""))
    if receipt.refused is not None:
        print(f"refused: {receipt.refused}")
        return 1
    return 0


def _show(args: argparse.Namespace) -> int:
    with transaction(database()) as session:
        loaded = store.load(session, args.game)
        position = store.position(loaded.game)
    if args.json:
        print(json.dumps(position, indent=1, sort_keys=True))
        return 0
    print(
        f"{args.game}: {position['round']} round, OR {position['operating_round']}, "
        f"phase {position['phase']}"
        + (f", {position['operating']} operating" if position["operating"] else "")
    )
    for company, c in position["companies"].items():
        if c["price"] is not None:
            trains = " ".join(c["trains"]) or "-"
            print(f"  {company:<5} ${c['price']:>4}  cash ${c['cash']:>5}  trains {trains}")
    for player, p in position["players"].items():
        print(f"  {player:>8} cash ${p['cash']:>5}  score {position['scores'][player]}")
    if position["ended"]:
        print(f"game over: {position['end_reason']}")
    return 0
