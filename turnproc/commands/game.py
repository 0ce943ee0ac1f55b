"""`turnproc game new | import | list | status | export | assign | drop | schedule | standby |
adjust | log | resend`."""

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from turnproc.core.errors import UsageError
from turnproc.core.money import money
from turnproc.pipeline.policies import MISSED_TURN_POLICIES

if TYPE_CHECKING:
    from turnproc.families.continental_rails.engine.events import ModeratorAdjustment


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("game", help="create, inspect and correct games")
    sub = parser.add_subparsers(dest="game_command", metavar="ACTION", required=True)

    p = sub.add_parser("new", help="start a game; prints its id")
    p.add_argument("--scenario", required=True, help="scenario name or folder")
    p.add_argument("--players", type=Path, help="CSV: position,character,real_name,email,secret")
    p.add_argument("--seed", type=int, help="the game's random seed (default: drawn at random)")
    p.add_argument("--name", help="the game's name (default: scenario-seed)")
    p.add_argument("--deadline-days", type=int, default=7, help="days per turn (default 7)")
    p.add_argument("--grace-minutes", type=int, default=0, help="grace after each deadline")
    p.add_argument("--no-early-run", action="store_true", help="wait for the deadline always")
    p.add_argument("--anonymous", action="store_true", help="hide players' names in reports")
    p.add_argument(
        "--missed-turn-limit",
        type=int,
        default=2,
        help="missed turns in a row before a position goes to a standby player (0: never)",
    )
    p.add_argument(
        "--missed-turn-policy",
        choices=MISSED_TURN_POLICIES,
        default="computer",
        help="orders of a player who sent none: the computer's, none, or their last ones",
    )
    p.add_argument(
        "--reminder-hours", default="48,12", help="reminders this many hours before a deadline"
    )
    p.add_argument(
        "--edition",
        help="the rules edition: 18MS 1.0, 18GA 6.0 (the defaults) or 18xx.games (docs/18xx.md)",
    )
    p.add_argument(
        "--operating-rounds",
        choices=("10", "11"),
        help="18MS: 10 operating rounds (default) or 11 (the optional rule, docs/18xx.md)",
    )
    p.add_argument(
        "--move-hours", type=int, default=48, help="18xx: hours a player has for each move"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_new)

    p = sub.add_parser("import", help="store a game recorded on 18xx.games (18MS, 18GA)")
    p.add_argument("file", type=Path, metavar="FILE.json")
    p.add_argument("--name", required=True, help="the game's name")
    p.add_argument("--upto", type=int, help="import the actions up to this action id only")
    p.set_defaults(handler=_import)

    p = sub.add_parser("list", help="every game")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_list)

    p = sub.add_parser("status", help="turn, deadline, who has submitted, standings")
    p.add_argument("game", help="game id or name")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_status)

    p = sub.add_parser("export", help="the whole state of a turn, deterministic JSON")
    p.add_argument("game", help="game id or name")
    p.add_argument("--turn", type=int, help="turn (default: the current one)")
    p.add_argument("--json", action="store_true", help="print JSON (the only format)")
    p.set_defaults(handler=_export)

    p = sub.add_parser("assign", help="a new player takes over a position")
    p.add_argument("game", help="game id or name")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--character", help="a new character name for the position")
    p.add_argument("--real-name", default="")
    p.add_argument("--secret", help="the player's secret (default: generated, mailed)")
    p.set_defaults(handler=_assign)

    p = sub.add_parser("drop", help="a player leaves; the computer plays the position")
    p.add_argument("game", help="game id or name")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--reason", default="")
    p.set_defaults(handler=_drop)

    p = sub.add_parser("schedule", help="deadline, schedule and policies; pause and resume")
    p.add_argument("game", help="game id or name")
    p.add_argument("--deadline", help="this turn's new deadline, e.g. '2026-12-08 18:00' (UTC)")
    p.add_argument("--extend-hours", type=float, help="move this turn's deadline by H hours")
    p.add_argument("--turn-days", type=int, help="days between later deadlines")
    p.add_argument("--grace-minutes", type=int, help="minutes orders are taken after a deadline")
    p.add_argument("--missed-turn-limit", type=int, help="missed turns before a standby takes over")
    p.add_argument("--missed-turn-policy", choices=MISSED_TURN_POLICIES)
    early = p.add_mutually_exclusive_group()
    early.add_argument("--early-run", dest="early_run", action="store_true", default=None)
    early.add_argument("--no-early-run", dest="early_run", action="store_false")
    p.add_argument("--reminder-hours", help="reminders so many hours before, e.g. 48,12 ('' none)")
    p.add_argument("--pause", action="store_true", help="no turns run until --resume")
    p.add_argument("--resume", action="store_true", help="run the game again")
    p.add_argument("--reason", default="", help="why (logged; told to the players)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_schedule)

    p = sub.add_parser("standby", help="standby players who take over missed positions")
    p.add_argument("game", help="game id or name")
    p.add_argument("--add", metavar="EMAIL", help="put a volunteer on the standby list")
    p.add_argument("--real-name", default="", help="the volunteer's name (with --add)")
    p.add_argument("--remove", metavar="EMAIL", help="take a volunteer off the list")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_standby)

    p = sub.add_parser("adjust", help="a logged manual correction, shown in the next news")
    p.add_argument("game", help="game id or name")
    p.add_argument("--position", type=int, help="the tycoon concerned")
    p.add_argument("--railroad", help="the railroad concerned (code)")
    p.add_argument("--cash", type=int, default=0, help="dollars to add (negative: take)")
    p.add_argument("--shares", type=int, default=0, help="shares of --railroad to give --position")
    p.add_argument("--issued", type=int, default=0, help="change --railroad's issued stock")
    p.add_argument("--reason", required=True, help="why; shown to the players")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_adjust)

    p = sub.add_parser("log", help="the moderator's log of a game")
    p.add_argument("game", help="game id or name")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_log)

    p = sub.add_parser("resend", help="queue a stored report again for a player")
    p.add_argument("game", help="game id or name")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--turn", type=int, help="the turn whose report (default: the last)")
    p.set_defaults(handler=_resend)


def _new(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.families.registry import sequential_family
    from turnproc.pipeline import games as pipeline_games
    from turnproc.pipeline import players as pipeline_players
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    if sequential_family(args.scenario) is not None:
        return _new_sequential(args)
    players = pipeline_players.read_players_csv(args.players) if args.players else []
    if args.grace_minutes < 0:
        raise UsageError("--grace-minutes cannot be negative")
    with transaction(database()) as session:
        created = pipeline_games.create_game(
            session,
            scenario=args.scenario,
            players=players,
            seed=args.seed,
            name=args.name,
            deadline_days=args.deadline_days,
            grace_minutes=args.grace_minutes,
            early_run=not args.no_early_run,
            anonymous=args.anonymous,
            missed_turn_limit=args.missed_turn_limit,
            missed_turn_policy=args.missed_turn_policy,
            reminders=args.reminder_hours,
            now=schedule.utcnow(),
        )
    if args.json:
        print(json.dumps({"id": created.game_id, "name": created.name, "seed": created.seed}))
    else:
        print(created.game_id)
    return 0


def _new_sequential(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.commands.db import database
    from turnproc.pipeline import players as pipeline_players
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    if not args.players:
        raise UsageError("an 18xx game needs --players (position,character,real_name,email,secret)")
    seats = [
        sequential.Seat(e.position, e.email, e.real_name, e.secret)
        for e in pipeline_players.read_players_csv(args.players, positions=6)
    ]
    with transaction(database()) as session:
        game, _ = sequential.create_game(
            session,
            scenario=args.scenario,
            seats=seats,
            name=args.name,
            seed=args.seed,
            options={
                key: value
                for key, value in (
                    ("edition", args.edition),
                    ("operating_rounds", args.operating_rounds),
                )
                if value
            },
            move_hours=args.move_hours,
            now=schedule.utcnow(),
        )
        created = {"id": game.id, "name": game.name, "seed": game.seed}
    print(json.dumps(created) if args.json else created["id"])
    return 0


def _import(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.commands.replay import read_recorded
    from turnproc.pipeline import schedule
    from turnproc.store import g18xx as store
    from turnproc.store.db import transaction

    data = read_recorded(args.file)
    with transaction(database()) as session:
        row = store.import_recorded(session, data, args.name, schedule.utcnow(), upto=args.upto)
        print(
            f"{row.name}: {row.title}, {row.status}"
            + (f" ({row.end_reason})" if row.end_reason else "")
        )
    return 0


def _list(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        games = [
            {
                "id": g.id,
                "name": g.name,
                "scenario": g.scenario,
                "turn": g.current_turn,
                "status": g.status,
                "deadline": g.deadline.isoformat() if g.deadline else None,
            }
            for g in repository.list_games(session)
        ]
    if args.json:
        print(json.dumps(games, indent=2))
        return 0
    for g in games:
        deadline = g["deadline"]
        due = schedule.shown(datetime.fromisoformat(deadline)) if isinstance(deadline, str) else "-"
        print(f"{g['id']}\t{g['name']}\tturn {g['turn']}\t{g['status']}\tdue {due}")
    return 0


def _status(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.commands.db import database
    from turnproc.pipeline import games as pipeline_games
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = repository.get_game(session, args.game)
        if sequential.family_of_game(game) is not None:
            data = sequential.export(session, game)
            data.pop("moves")
            if args.json:
                print(json.dumps(data, indent=2, sort_keys=True))
            else:
                due = data["move_due"]
                due = schedule.shown(datetime.fromisoformat(due)) if due else "-"
                print(
                    f"{data['name']} (id {game.id}): {data['title']}, move {data['move']}, "
                    f"{data['status']}, player {data['to_move']} to move by {due}"
                )
                print(sequential.position_text(session, game))
            return 0
        data = pipeline_games.status(session, args.game, schedule.utcnow())
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return 0
    print(f"{data['name']} (id {data['id']}): turn {data['turn']}, {data['status']}")
    due = "due now" if data["due"] else "not yet due"
    deadline = (
        schedule.shown(datetime.fromisoformat(data["deadline"])) if data["deadline"] else "none"
    )
    print(f"deadline {deadline} (+{data['grace_minutes']} min grace), {due}")
    limit = data["missed_turn_limit"]
    standby = f"a standby player after {limit} in a row" if limit else "never a standby player"
    print(f"missed turns: played by policy '{data['missed_turn_policy']}', {standby}")
    humans = [p for p in data["players"] if p["human"]]
    if humans:
        print("players:")
        for p in humans:
            mark = "orders in" if p["submitted"] else "no orders yet"
            extra = "  offered to standby" if p["standby"] else ""
            print(f"  {p['position']:>2} {p['character']:<24} {mark}{extra}")
    if data["standby_waiting"]:
        print(f"standby players waiting: {', '.join(data['standby_waiting'])}")
    print("standings (net worth):")
    for s in data["standings"]:
        print(
            f"  {s['position']:>2} {s['character']:<24} {money(s['net_worth']):>11}  "
            f"{s['vp_total']} VP"
        )
    return 0


def _schedule(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    deadline = schedule.parse_deadline(args.deadline) if args.deadline else None
    with transaction(database()) as session:
        changes = schedule.schedule(
            session,
            args.game,
            now=schedule.utcnow(),
            reason=args.reason,
            deadline=deadline,
            extend_hours=args.extend_hours,
            turn_days=args.turn_days,
            grace_minutes=args.grace_minutes,
            missed_turn_limit=args.missed_turn_limit,
            missed_turn_policy=args.missed_turn_policy,
            early_run=args.early_run,
            reminders=args.reminder_hours,
            pause=args.pause,
            resume=args.resume,
        )
        game = repository.get_game(session, args.game)
        game_deadline = game.deadline
        current = {
            "game": game.name,
            "status": game.status,
            "turn": game.current_turn,
            "deadline": game.deadline.isoformat() if game.deadline else None,
            "turn_days": game.turn_days,
            "grace_minutes": game.grace_minutes,
            "early_run": game.early_run,
            "missed_turn_limit": game.missed_turn_limit,
            "missed_turn_policy": game.missed_turn_policy,
            "reminder_hours": game.reminder_hours,
        }
    if args.json:
        changed = {k: list(pair) for k, pair in changes.items()}
        print(json.dumps({**current, "changed": changed}, indent=2, sort_keys=True, default=str))
        return 0
    for name, (old, new) in sorted(changes.items()):
        print(f"{name}: {schedule.shown(old)} -> {schedule.shown(new)}")
    print(
        f"{current['game']}: {current['status']}, turn {current['turn']} due "
        f"{schedule.shown(game_deadline)}"
        f" (+{current['grace_minutes']} min grace), {current['turn_days']} days a turn, "
        f"early run {'on' if current['early_run'] else 'off'}; a missed turn is played by "
        f"policy '{current['missed_turn_policy']}', a standby takes over after "
        f"{current['missed_turn_limit'] or 'no number of'} missed turns; reminders "
        f"{current['reminder_hours'] or 'none'} hours before the deadline"
    )
    return 0


def _standby(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import players as pipeline_players
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    if args.add and args.remove:
        raise UsageError("give --add or --remove, not both")
    if args.real_name and not args.add:
        raise UsageError("--real-name goes with --add")
    with transaction(database()) as session:
        if args.add:
            added = pipeline_players.add_standby(
                session, args.game, email=args.add, real_name=args.real_name, now=schedule.utcnow()
            )
            if not args.json:
                took = (
                    f"; took over position {added.position} at once (welcome mail queued)"
                    if added.position is not None
                    else "; waiting for a position"
                )
                print(f"{added.email} is on the standby list{took}")
        if args.remove:
            pipeline_players.remove_standby(
                session, args.game, email=args.remove, now=schedule.utcnow()
            )
            if not args.json:
                print(f"{args.remove} is off the standby list")
        data = pipeline_players.standby_list(session, args.game)
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    elif not (args.add or args.remove):
        limit = data["missed_turn_limit"]
        rule = f"after {limit} missed turns in a row" if limit else "never (limit 0)"
        print(f"{data['game']}: positions go to a standby player {rule}")
        for o in data["offered"]:
            missed = f"{o['missed_turns']} missed"
            print(f"  offered: position {o['position']} {o['character']} ({missed})")
        for w in data["waiting"]:
            print(f"  waiting: {w['email']} {w['real_name']}".rstrip())
        for t in data["took_over"]:
            print(f"  took position {t['position']} at turn {t['turn']}: {t['email']}")
        if not (data["offered"] or data["waiting"] or data["took_over"]):
            print("  nobody is waiting and no position is offered")
    return 0


def _export(args: argparse.Namespace) -> int:
    from turnproc import sequential
    from turnproc.commands.db import database
    from turnproc.pipeline import stored
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = repository.get_game(session, args.game)
        if sequential.family_of_game(game) is not None:
            data = sequential.export(session, game)
            text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        else:
            text = stored.export(session, args.game, args.turn)
    print(text, end="")
    return 0


def _assign(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import players as pipeline_players
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        secret = pipeline_players.assign(
            session,
            args.game,
            position=args.position,
            email=args.email,
            character=args.character,
            real_name=args.real_name,
            secret=args.secret,
            now=schedule.utcnow(),
        )
    note = " (secret generated and mailed)" if secret else ""
    print(f"position {args.position} assigned to {args.email}{note}")
    return 0


def _drop(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import players as pipeline_players
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        pipeline_players.drop(
            session, args.game, position=args.position, reason=args.reason, now=schedule.utcnow()
        )
    print(f"position {args.position} is now played by the computer")
    return 0


def _adjust(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import games as pipeline_games
    from turnproc.pipeline import schedule
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        event = pipeline_games.adjust(
            session,
            args.game,
            position=args.position,
            railroad=args.railroad,
            cash=args.cash,
            shares=args.shares,
            issued=args.issued,
            reason=args.reason,
            now=schedule.utcnow(),
        )
    if args.json:
        print(json.dumps(event.model_dump(mode="json"), sort_keys=True))
    else:
        print(adjustment_words(args.game, event))
    return 0


def adjustment_words(game: str, event: "ModeratorAdjustment") -> str:
    """What `game adjust` did, in words."""
    done: list[str] = []
    whose = f"position {event.position}" if event.position is not None else event.railroad
    if event.cash:
        verb, way = ("gave", "to") if event.cash > 0 else ("took", "from")
        done.append(f"{verb} {money(abs(event.cash))} {way} {whose}")
    if event.shares:
        verb, way = ("gave", "to") if event.shares > 0 else ("took", "from")
        done.append(
            f"{verb} {abs(event.shares)} {event.railroad} shares {way} position {event.position}"
        )
    if event.issued:
        done.append(f"changed {event.railroad}'s issued stock by {event.issued:+}")
    what = "; ".join(done) or "changed nothing"
    return f"{game}: {what}. Reason (shown in the next news): {event.reason}"


def _log(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = repository.get_game(session, args.game)
        entries = [
            {
                "at": e.at.isoformat(),
                "turn": e.turn,
                "action": e.action,
                "reason": e.reason,
                "details": json.loads(e.details),
            }
            for e in repository.log_entries(session, game.id)
        ]
    if args.json:
        print(json.dumps(entries, indent=2, sort_keys=True))
        return 0
    for e in entries:
        reason = f"  ({e['reason']})" if e["reason"] else ""
        print(f"{e['at']}  turn {e['turn']}  {e['action']}{reason}")
    return 0


def _resend(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.pipeline import schedule
    from turnproc.store import repository
    from turnproc.store.db import transaction

    now = schedule.utcnow()
    with transaction(database()) as session:
        game = repository.get_game(session, args.game)
        turn = args.turn if args.turn is not None else game.current_turn - 1
        report = repository.get_report(session, game.id, turn, args.position)
        if report is None:
            raise UsageError(
                f"{game.name} has no report of turn {turn} for position {args.position}"
            )
        player = repository.get_player(session, game.id, args.position)
        if not player.email:
            raise UsageError(f"position {args.position} of {game.name} has no email address")
        repository.queue_mail(
            session,
            key=f"resend/{game.id}/{turn}/{args.position}/{now.isoformat()}",
            kind="report",
            to_address=player.email,
            subject=f"[{game.name}] Turn {turn} report (again): position {args.position}",
            body="",
            now=now,
            game_id=game.id,
            turn=turn,
            position=args.position,
            pdf_name=f"{game.name}-turn-{turn}-position-{args.position}.pdf"
            if report.pdf is not None or report.pdf_sha256 is not None
            else None,
            report_id=report.id,
        )
        repository.log_action(
            session,
            game_id=game.id,
            turn=turn,
            action="resend",
            now=now,
            details={"position": args.position},
        )
    print(f"turn {turn} report for position {args.position} queued to {player.email}")
    return 0
