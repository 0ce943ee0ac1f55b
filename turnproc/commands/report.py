"""`turnproc report render GAME [--turn N] [--player P] --out DIR` and `report sample`.

`render` rebuilds the reports of a stored turn from the database (the states
at the start of turn N and N+1, the turn's events, rejections and ledger) and
writes DIR/turn-N/player-P.pdf, .txt and .json, each file whole or not at all
(`files.write_whole`). Rendering uses only stored
data, so a past turn renders to the same files every time. Turn 0 is the
opening report of a new game.

`sample` writes the reports of a made-up mid-game turn, to look at the layout
without a game in the database.
"""

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from turnproc.core.errors import UsageError

if TYPE_CHECKING:
    from turnproc.families.continental_rails.engine.orders import PlayerOrders
    from turnproc.families.continental_rails.report.render import RenderedReport
    from turnproc.pipeline import reports as pipeline_reports


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("report", help="render turn reports (PDF, text, JSON)")
    sub = parser.add_subparsers(dest="report_command", metavar="ACTION", required=True)

    p = sub.add_parser("render", help="the reports of a stored turn")
    p.add_argument("game", help="game id or name")
    p.add_argument("--turn", type=int, help="turn (default: the last one played; 0 = the start)")
    p.add_argument("--player", type=int, help="only this position (default: all)")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--no-map", action="store_true", help="leave the map pages out")
    p.set_defaults(handler=_render)

    p = sub.add_parser("sample", help="the reports of a made-up mid-game turn")
    p.add_argument("--scenario", default="continental-rails")
    p.add_argument("--turn", type=int, default=8)
    p.add_argument("--player", type=int, help="only this position (default: all)")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.set_defaults(handler=_sample)


def _write(out: Path, turn: int, reports: "dict[int, RenderedReport]") -> Path:
    from turnproc.files import write_whole

    folder = out / f"turn-{turn}"
    folder.mkdir(parents=True, exist_ok=True)
    for position, report in sorted(reports.items()):
        stem = folder / f"player-{position}"
        if report.pdf is not None:
            write_whole(stem.with_suffix(".pdf"), report.pdf)
        write_whole(stem.with_suffix(".txt"), report.text.encode("utf-8"))
        write_whole(stem.with_suffix(".json"), report.json.encode("utf-8"))
    return folder


def _positions(player: int | None, count: int) -> list[int] | None:
    if player is None:
        return None
    if not 1 <= player <= count:
        raise UsageError(f"--player must be a position from 1 to {count}")
    return [player]


def _render(args: argparse.Namespace) -> int:
    from turnproc.commands.db import database
    from turnproc.families.continental_rails.report.render import render_turn_reports
    from turnproc.pipeline import reports as pipeline_reports
    from turnproc.store import repository
    from turnproc.store.db import transaction

    with transaction(database()) as session:
        game = repository.get_game(session, args.game)
        played = [t for t in repository.stored_turns(session, game.id)]
        last = max(played) - 1 if played else 0
        turn = last if args.turn is None else args.turn
        if turn < 0 or turn > last:
            raise UsageError(f"game {game.name} has results for turns 0 to {last}, not {turn}")
        data = pipeline_reports.stored_report_input(session, game, turn)
        count = len(data.after.tycoons)
    started = time.perf_counter()
    reports = render_turn_reports(data, _positions(args.player, count), maps=not args.no_map)
    folder = _write(args.out, turn, reports)
    took = time.perf_counter() - started
    print(f"{len(reports)} report(s) of {game.name} turn {turn} written to {folder} in {took:.1f}s")
    return 0


class _Sample:
    """A made-up turn in the shape `render_turn_reports` reads."""

    def __init__(self, scenario_name: str, turn: int):
        from turnproc.families.continental_rails.report.sample import sample_turn
        from turnproc.scenario.loader import load_scenario

        self.scenario = load_scenario(scenario_name)
        self.before, result, self.meta = sample_turn(self.scenario, turn=turn)
        self.game = self.meta.name
        self.turn = turn
        self.after = result.state
        self.events = list(result.events)
        self.rejections = list(result.rejections)
        self.ledger = list(result.ledger)
        self.anonymous = False
        self.deadline = self.meta.deadline
        self.players: dict[int, pipeline_reports.PlayerInfo] = {}
        self.stood_in: dict[int, PlayerOrders] = {}
        self.replaces: str | None = None


def _sample(args: argparse.Namespace) -> int:
    from turnproc.families.continental_rails.report.render import render_turn_reports

    data = _Sample(args.scenario, args.turn)
    started = time.perf_counter()
    reports = render_turn_reports(
        data, _positions(args.player, len(data.after.tycoons)), meta=data.meta
    )
    folder = _write(args.out, data.turn, reports)
    took = time.perf_counter() - started
    print(f"{len(reports)} sample report(s) written to {folder} in {took:.1f}s")
    return 0
