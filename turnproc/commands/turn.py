"""`turnproc turn run GAME | run --due | rollback GAME --to N | rerun GAME`."""

import argparse
import json
import os
import socket
import sys
from concurrent.futures import ProcessPoolExecutor, wait
from datetime import datetime, timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from turnproc.core.errors import TurnprocError, UsageError
from turnproc.core.money import money

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID
    from sqlalchemy import Engine

    from turnproc.pipeline import turns


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("turn", help="run, roll back and re-run turns")
    sub = parser.add_subparsers(dest="turn_command", metavar="ACTION", required=True)

    p = sub.add_parser("run", help="resolve a game's current turn (or every due game)")
    p.add_argument("game", nargs="?", help="game id or name")
    p.add_argument("--due", action="store_true", help="every game whose turn is due")
    p.add_argument("--workers", type=int, default=1, help="worker processes for --due")
    p.add_argument(
        "--maildir",
        type=Path,
        metavar="DIR",
        help="with --due: the Maildir to read first (default: TURNPROC_IMAP_URL, if set)",
    )
    p.add_argument(
        "--no-drain",
        action="store_true",
        help="with --due: run the due turns without first reading the mailbox",
    )
    p.add_argument(
        "--grace",
        metavar="LENGTH",
        help="with --due: hold a game whose deadline has passed until LENGTH more has "
        "passed (e.g. 10m; at most 12h), for mail still on its way from the mail server",
    )
    p.add_argument(
        "--send",
        action="store_true",
        help="with --due: then send the outbox in this process, as `mail send` does",
    )
    p.add_argument("--force", action="store_true", help="run even before the deadline")
    p.add_argument("--preview", action="store_true", help="resolve and show, store nothing")
    p.add_argument("--turn", type=int, help="only if the game is at this turn (safe to repeat)")
    p.add_argument(
        "--accept-missing",
        action="store_true",
        help="run even if more players than usual have no orders (the missing-orders gate)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run)

    p = sub.add_parser("rollback", help="put a game back at the start of turn N")
    p.add_argument("game", help="game id or name")
    p.add_argument("--to", type=int, required=True, help="the turn to return to")
    p.add_argument(
        "--reason",
        default="",
        help="why (kept in the log, printed in the reports of the turns run again)",
    )
    p.set_defaults(handler=_rollback)

    p = sub.add_parser("rerun", help="roll back the last turn, run it again, show the diff")
    p.add_argument("game", help="game id or name")
    p.add_argument("--reason", default="", help="why (kept in the log, printed in the new reports)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_rerun)


def _run(args: argparse.Namespace) -> int:
    if (args.maildir is not None or args.no_drain or args.grace is not None) and not args.due:
        raise UsageError("--maildir, --no-drain and --grace go with --due")
    if args.send and (not args.due or args.json):
        raise UsageError("--send goes with --due, without --json (`mail send --json` after it)")
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule, turns
    from turnproc.store import repository
    from turnproc.store.db import transaction

    if args.due:
        if args.game or args.preview or args.force or args.turn is not None or args.accept_missing:
            raise UsageError("--due takes no game, --force, --preview, --turn or --accept-missing")
        return _run_due(args)
    if not args.game:
        raise UsageError("name a game, or give --due")
    engine = database()
    try:
        with transaction(engine) as session:
            outcome = turns.run_turn(
                session,
                args.game,
                now=schedule.utcnow(),
                force=args.force,
                preview=args.preview,
                expected_turn=args.turn,
                accept_missing=args.accept_missing,
            )
            if args.preview:
                session.rollback()
    except turns.SanityGateError as exc:
        with transaction(engine) as session:
            game = repository.get_game(session, args.game)
            repository.log_action(
                session,
                game_id=game.id,
                turn=game.current_turn,
                action="turn_refused",
                reason=str(exc),
                now=schedule.utcnow(),
            )
        raise
    if args.json:
        print(json.dumps(outcome.as_dict(), indent=2, sort_keys=True))
        return 0
    print(outcome.message)
    if outcome.processed or outcome.preview:
        _print_summary(outcome)
    return 0


def _print_summary(outcome: "turns.TurnOutcome") -> None:
    print(
        f"  events {outcome.events}, orders refused or cut {outcome.rejections}, "
        f"ledger entries {outcome.ledger_entries}"
    )
    if outcome.missed:
        print(f"  missed (played by the computer): {', '.join(map(str, outcome.missed))}")
    for problem in outcome.problems:
        print(f"  SANITY GATE: {problem}")
    for position, refused in outcome.refused.items():
        print(f"  position {position}: {len(refused)} order(s) would be refused or cut")
        for line in refused:
            print(f"    - {line}")
    ranked = sorted(outcome.standings, key=lambda s: (-s["net_worth"], s["position"]))
    for s in ranked[:5]:
        print(
            f"  {s['position']:>2} {s['character']:<24} {money(s['net_worth']):>11}  "
            f"{s['vp_total']} VP"
        )


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _due_worker(
    url: str, due_by: datetime, grace: timedelta
) -> tuple[list[dict[str, Any]], list[str]]:
    """One worker process of `turn run --due --workers N`: (outcomes, failures)."""
    from turnproc.config import load_settings
    from turnproc.pipeline import turns
    from turnproc.store.db import open_database

    engine = open_database(url)
    moderator = load_settings().moderator_email
    failures: list[str] = []

    def on_game(name: str, outcome: turns.TurnOutcome | None, note: str) -> None:
        if outcome is None and note:
            failures.append(f"{name}: {note}")

    try:
        done = turns.run_due(
            engine,
            _worker_name(),
            on_game=on_game,
            moderator=moderator,
            due_by=due_by,
            grace=grace,
        )
        outcomes = [o.as_dict() for o in done]
    finally:
        engine.dispose()
    return outcomes, failures


class _Live:
    is_started = False


class _Unseen:
    """The progress bar where nobody would see it (cron, `--json`): rich's
    progress is not even loaded (0.026 CPU-s of a cron line's turn run)."""

    live = _Live()

    def __enter__(self) -> "_Unseen":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> "TaskID":
        return cast("TaskID", 0)

    def update(self, task: "TaskID", **fields: Any) -> None:
        return None


def _progress(show: bool) -> "Progress | _Unseen":
    """The progress bar of `turn run --due`: rich's when it is shown."""
    if not show:
        return _Unseen()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
    )


def _run_due_in_workers(
    engine: "Engine",
    url: str,
    workers: int,
    progress: "Progress | _Unseen",
    task: "TaskID",
    due_by: datetime,
    grace: timedelta,
) -> tuple[list[dict[str, Any]], list[str]]:
    """`turn run --due` in `workers` spawned processes. The progress bar counts
    the games due now that have moved past their turn, read from the database
    while the workers run (the games any runner processes, this one or another)."""
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(engine) as session:
        ready, _held = schedule.due_and_held(session, due_by, grace)
        due = {game_id: turn for game_id, turn, _name in ready}
    progress.update(task, total=len(due))
    outcomes: list[dict[str, Any]] = []
    failures: list[str] = []
    # Not a multiprocessing.Pool: its daemonic workers could not start the
    # renderer's own worker processes.
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        running = [pool.submit(_due_worker, url, due_by, grace) for _ in range(workers)]
        while running:
            finished, pending = wait(running, timeout=0.5)
            running = list(pending)
            if due and progress.live.is_started:
                with transaction(engine) as session:
                    moved = repository.games_past_turn(session, due)
                progress.update(task, completed=moved)
            for future in finished:
                processed, failed = future.result()
                outcomes.extend(processed)
                failures.extend(failed)
    outcomes.sort(key=lambda o: (o["game_id"], o["turn"]))
    return outcomes, failures


def _run_due(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.commands.mail import drain
    from turnproc.config import load_settings
    from turnproc.pipeline import schedule, turns

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    grace = schedule.parse_grace(args.grace) if args.grace is not None else timedelta(0)
    if args.send and not load_settings().smtp_url:
        raise UsageError("--send needs a mail server: set TURNPROC_SMTP_URL")
    url = load_settings().database_url
    engine = database()
    workers = args.workers
    if workers > 1 and engine.dialect.name == "sqlite":
        print("turnproc: SQLite takes one worker; running with 1", file=sys.stderr)
        workers = 1
    # Everything that arrived until now is read before any turn runs, and
    # only the games due by then run: a game whose deadline passes while the
    # mailbox is read waits for the next run, which reads what came before it.
    due_by = schedule.utcnow()
    drained = [] if args.no_drain else drain(engine, due_by, args.maildir, args.json)
    outcomes: list[dict[str, Any]] = []
    failures: list[str] = []
    held = _held_for_grace(engine, due_by, grace)
    show = sys.stderr.isatty() and not args.json
    with _progress(show) as progress:
        task = progress.add_task("due games", total=None)
        if workers > 1:
            outcomes, failures = _run_due_in_workers(
                engine, url, workers, progress, task, due_by, grace
            )
        else:

            def on_start(count: int) -> None:
                progress.update(task, total=count)

            def on_game(name: str, outcome: turns.TurnOutcome | None, note: str) -> None:
                progress.update(task, advance=1, description=name)
                if outcome is None and note:
                    failures.append(f"{name}: {note}")

            done = turns.run_due(
                engine,
                _worker_name(),
                on_game=on_game,
                on_start=on_start,
                moderator=load_settings().moderator_email,
                due_by=due_by,
                grace=grace,
                now=schedule.utcnow,
            )
            outcomes = [o.as_dict() for o in done]
    if args.json:
        data = {
            "processed": outcomes,
            "failed": failures,
            "mail_read_first": [o.as_dict() for o in drained],
            "held_for_grace": held,
        }
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        for o in outcomes:
            print(f"{o['game']}: turn {o['turn']} processed")
        for hold in held:
            print(
                f"{hold['game']}: turn {hold['turn']} held for grace until {hold['until']} "
                "(mail that arrived before the deadline may still be on its way)"
            )
        for failure in failures:
            print(f"turnproc: {failure}", file=sys.stderr)
        if not outcomes and not failures and not held:
            print("no game is due")
    code = 1 if failures else 0
    if args.send:  # the turns are committed: their reports wait in the outbox
        from turnproc.commands.mail import send_queued

        code = max(code, send_queued())
    return code


def _held_for_grace(engine: "Engine", due_by: datetime, grace: timedelta) -> list[dict[str, Any]]:
    """The games past their deadline that `--grace` holds in this run: game,
    id, turn and when the hold ends (UTC, ISO 8601)."""
    if not grace:
        return []
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(engine) as session:
        _ready, held = schedule.due_and_held(session, due_by, grace)
        games = [repository.get_game(session, game_id) for game_id, _turn, _name in held]
        return [
            {
                "game": game.name,
                "game_id": game.id,
                "turn": turn,
                "until": (game.due_at + grace).isoformat() if game.due_at else None,
            }
            for game, (_id, turn, _name) in zip(games, held, strict=True)
        ]


def _rollback(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule, turns
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = turns.rollback(session, args.game, args.to, schedule.utcnow(), reason=args.reason)
        name = game.name
    print(f"{name} is back at the start of turn {args.to}")
    return 0


def _rerun(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule, turns
    from turnproc.store.db import transaction

    try:
        with transaction(database()) as session:
            result = turns.rerun(session, args.game, schedule.utcnow(), reason=args.reason)
    except TurnprocError:
        raise
    if args.json:
        data = {
            "game": result.game,
            "turn": result.turn,
            "diff": result.diff,
            "changed": bool(result.diff),
        }
        print(json.dumps(data, indent=2, sort_keys=True))
        return 0
    if result.diff:
        print(result.diff, end="")
    else:
        print(f"{result.game} turn {result.turn} re-run: no change")
    return 0
