"""`turnproc 18xx move GAME --player ID FILE|- | show GAME [--json] | undo GAME
--to N --reason R | clock GAME --move-hours H | tick`: play an 18xx game stored
in the database (imported by `turnproc game import` or started by `turnproc game
new --scenario 18ms|18ga`, then played by mail: docs/18xx.md)."""

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
    p.add_argument("--moves", action="store_true", help="also list the moves, numbered")
    p.set_defaults(handler=_show)
    p = sub.add_parser("undo", help="take back every move after move N; every player is told")
    p.add_argument("game", help="game name")
    p.add_argument("--to", type=int, required=True, help="the last move that stands")
    p.add_argument("--reason", required=True, help="why (logged; told to the players)")
    p.set_defaults(handler=_undo)
    p = sub.add_parser("clock", help="hours a player has for each move (restarts the clock)")
    p.add_argument("game", help="game name")
    p.add_argument("--move-hours", type=int, required=True)
    p.set_defaults(handler=_clock)
    p = sub.add_parser("tick", help="reminders and missed moves of every game (run by cron)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_tick)


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
    from turnproc import sequential

    with transaction(database()) as session:
        if store.load(session, args.game).row.game_id is not None:  # played by mail
            receipt = sequential.moderator_move(
                session, args.game, args.player, text, batch.utcnow()
            )
        else:
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
        moves = [(m.seq, m.action) for m in store.live_moves(session, loaded.row)]
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
    if args.moves:
        for number, action in moves:
            print(f"  {number:>4} {action}")
    return 0


def _undo(args: argparse.Namespace) -> int:
    from turnproc import sequential

    with transaction(database()) as session:
        taken = sequential.moderator_undo(session, args.game, args.to, args.reason, batch.utcnow())
    print(f"{args.game}: moves {taken[0]}-{taken[-1]} taken back; the players are told")
    return 0


def _clock(args: argparse.Namespace) -> int:
    from turnproc import sequential

    with transaction(database()) as session:
        due = sequential.set_clock(session, args.game, args.move_hours, batch.utcnow())
    print(f"{args.game}: {args.move_hours} hours a move; this move due {due}")
    return 0


def _tick(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.config import load_settings

    moderator = load_settings().moderator_email
    with transaction(database()) as session:
        done = sequential.tick(session, batch.utcnow(), moderator)
    print(json.dumps(done) if args.json else "\n".join(done))
    return 0
