"""`turnproc orders submit GAME FILE|-` and `turnproc orders sheet GAME --position P`.

`submit` takes a turnsheet exactly as a player would email it (a whole raw
email, or just its text) and prints the receipt; it exits 0 when the orders
are accepted, 1 when they are refused or have errors, 2 on a usage error.
"""

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from turnproc.core.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("orders", help="receive turnsheets, print turnsheets")
    sub = parser.add_subparsers(dest="orders_command", metavar="ACTION", required=True)

    p = sub.add_parser("submit", help="submit a turnsheet (raw email or text); prints the receipt")
    p.add_argument("game", help="game id or name")
    p.add_argument("file", help="the sheet or raw email, or - for standard input")
    p.add_argument("--sender", help="the address it came from (default: the email's From)")
    p.add_argument("--at", help="when it was received, ISO 8601 (default: now)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_submit)

    p = sub.add_parser("sheet", help="print a player's turnsheet for the current turn")
    p.add_argument("game", help="game id or name")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--prefill", action="store_true", help="with the orders in force")
    p.set_defaults(handler=_sheet)


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"no such file: {name}")
    return path.read_bytes()


def _when(text: str | None) -> datetime:
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--at {text!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _submit(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.intake.submit import submit_sheet
    from turnproc.store.db import transaction

    data = _read(args.file)
    received = _when(args.at)
    with transaction(database()) as session:
        outcome = submit_sheet(session, args.game, data, args.sender, received)
    if args.json:
        print(
            json.dumps(
                {
                    "verdict": outcome.verdict,
                    "accepted": outcome.accepted,
                    "game_id": outcome.game_id,
                    "turn": outcome.turn,
                    "position": outcome.position,
                    "submission_id": outcome.submission_id,
                    "subject": outcome.receipt.subject,
                    "receipt": outcome.receipt.text,
                },
                indent=2,
            )
        )
    else:
        print(outcome.receipt.text, end="")
    return outcome.exit_code


def _sheet(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.families.continental_rails.turnsheet.render import render_turnsheet
    from turnproc.scenario.loader import load_scenario
    from turnproc.store import mapping
    from turnproc.store import repository as repo
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = repo.get_game(session, args.game)
        state = mapping.state_from_json(repo.turn_state(session, game.id, game.current_turn).state)
        if not 1 <= args.position <= len(state.tycoons):
            raise UsageError(f"--position must be 1-{len(state.tycoons)}")
        orders = (
            repo.orders_in_force(session, game.id, game.current_turn).get(args.position)
            if args.prefill
            else None
        )
        deadline = game.deadline.strftime("%Y-%m-%d %H:%M UTC") if game.deadline else None
        text = render_turnsheet(
            state,
            load_scenario(game.scenario),
            args.position,
            game=game.name,
            orders=orders,
            deadline=deadline,
        )
    print(text, end="")
    return 0
