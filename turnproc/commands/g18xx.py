"""`turnproc 18xx move GAME --player ID FILE|- | show GAME [--json] | report GAME
[--player ID] --out DIR | simulate --title T --players N --games G --seed S
[--report DIR] | undo GAME --to N --reason R | clock GAME --move-hours H | tick`:
play an 18xx game stored in the database (imported by `turnproc game import` or
started by `turnproc game new --scenario 18ms|18ga`, then played by mail:
docs/18xx.md), write its reports, or play games between computer players."""

import argparse
import json
import sys
import time
from pathlib import Path

from turnproc.core.errors import TurnprocError


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
    p = sub.add_parser("report", help="write the players' reports (.pdf, .txt, .json)")
    p.add_argument("game", help="game name")
    p.add_argument("--player", type=int, help="only this player's report")
    p.add_argument("--since", type=int, help="log from this move (default: the reader's last)")
    p.add_argument("--out", type=Path, required=True, help="directory to write to")
    p.set_defaults(handler=_report)
    p = sub.add_parser("simulate", help="play whole games between computer players")
    p.add_argument("--title", required=True, help="18ms, 18ga or 18dixie")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--report", type=Path, metavar="DIR", help="write each game's final reports")
    p.set_defaults(handler=_simulate)


def _read(name: str) -> str:
    from turnproc.families.g18xx.orders import MAX_TEXT

    try:
        if name == "-":
            return sys.stdin.read(MAX_TEXT + 1)
        with Path(name).open(encoding="utf-8") as handle:
            return handle.read(MAX_TEXT + 1)  # longer orders are refused whole
    except (OSError, UnicodeDecodeError) as exc:
        raise TurnprocError(f"{name}: {exc}") from None


def _move(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store import g18xx as store
    from turnproc.store.db import transaction

    text = _read(args.file)
    from turnproc import sequential

    with transaction(database()) as session:
        if store.load(session, args.game).row.game_id is not None:  # played by mail
            receipt = sequential.moderator_move(
                session, args.game, args.player, text, schedule.utcnow()
            )
        else:
            receipt = store.move(
                session, args.game, args.player, text, schedule.utcnow(), origin="moderator"
            )
    for line, note in receipt.applied:
        print(f"ok: {line}" + (f"  ({note})" if note else ""))
    if receipt.refused is not None:
        print(f"refused: {receipt.refused}")
        return 1
    return 0


def _show(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.store import g18xx as store
    from turnproc.store.db import transaction

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
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        taken = sequential.moderator_undo(
            session, args.game, args.to, args.reason, schedule.utcnow()
        )
    print(f"{args.game}: moves {taken[0]}-{taken[-1]} taken back; the players are told")
    return 0


def _clock(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        due = sequential.set_clock(session, args.game, args.move_hours, schedule.utcnow())
    print(f"{args.game}: {args.move_hours} hours a move; this move due {due}")
    return 0


def _tick(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.commands.db import database
    from turnproc.config import load_settings
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    moderator = load_settings().moderator_email
    with transaction(database()) as session:
        done = sequential.tick(session, schedule.utcnow(), moderator)
    print(json.dumps(done) if args.json else "\n".join(done))
    return 0


MAX_SIMULATED_GAMES = 100


def _report(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.families.g18xx.engine.actions import parse_action
    from turnproc.families.g18xx.report.files import write_reports
    from turnproc.store import g18xx as store
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        loaded = store.load(session, args.game)
        actions = [parse_action(m) for m in store.move_texts(session, loaded.row)]
        seats = loaded.game.players
        if args.player is not None and args.player not in seats:
            raise TurnprocError(f"{args.player} has no seat in {args.game}")
        readers = [args.player] if args.player is not None else None
        written = write_reports(loaded.game, actions, args.out, args.game, readers, args.since)
    for path in written:
        print(f"wrote {path} (and .txt, .json)")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from turnproc.families.g18xx import ai
    from turnproc.families.g18xx.figures import game_figures, summary
    from turnproc.families.g18xx.report.files import write_reports
    from turnproc.families.g18xx.titles.load import new_game, titles

    by_name = {t.upper(): t for t in titles()}
    title = by_name.get(args.title.upper(), args.title)
    if title not in titles():
        raise TurnprocError(f"titles: {', '.join(titles())}")
    if not 1 <= args.games <= MAX_SIMULATED_GAMES:
        raise TurnprocError(f"--games is 1 to {MAX_SIMULATED_GAMES}")
    failed = 0
    played = []
    for number in range(args.games):
        seed = args.seed + number
        try:
            game = new_game(title, list(range(1, args.players + 1)))
        except ValueError as exc:
            raise TurnprocError(str(exc)) from None
        started = time.process_time()
        outcome = ai.play(game, seed)
        figures = game_figures(game, outcome, seed, time.process_time() - started)
        played.append(figures)
        if args.report is not None:
            stem = f"{title.lower()}-seed{seed}"
            written = write_reports(game, outcome.actions, args.report, stem)
            print(f"wrote {len(written)} reports to {args.report}/{stem}-*.pdf (.txt, .json)")
        scores = " ".join(f"{p}:{s}" for p, s in sorted(outcome.scores.items()))
        ok = outcome.ended and outcome.money_conserved and not outcome.refused
        failed += not ok
        print(
            f"{title} seed {seed}: {outcome.moves} moves, "
            f"{'ends: ' + str(outcome.end_reason) if outcome.ended else 'NOT FINISHED'}"
            f" after OR{figures.operating_rounds}"
            f"{'' if outcome.money_conserved else ', MONEY NOT CONSERVED'}; scores {scores};"
            f" {figures.floated} floated, {figures.trains_bought} trains bought,"
            f" {figures.trains_rusted} rusted, {figures.bankrupt} bankrupt;"
            f" {figures.seconds:.1f}s" + "".join(f"\n  refused: {r}" for r in outcome.refused)
        )
    if len(played) > 1:
        print("\n".join(summary(title, args.players, played)))
    return 1 if failed else 0
