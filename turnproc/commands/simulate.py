"""`turnproc simulate --scenario NAME --games N [--turns T] [--seed S] [--strategy NAME@POSITION]
[--json] [--out DIR]`."""

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from turnproc.core.errors import UsageError
from turnproc.core.money import money

if TYPE_CHECKING:
    from turnproc.families.continental_rails.tools.simulate import GameStats


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "simulate", help="play whole games of computer players and print statistics"
    )
    parser.add_argument("--scenario", default="continental-rails", help="scenario name or folder")
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument(
        "--turns", type=int, default=40, help="stop a game after this many turns (default 40)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="processes to play games on (default: up to 2)",
    )
    parser.add_argument(
        "--strategy",
        action="append",
        default=[],
        metavar="NAME@POSITION",
        help="play a scripted strategy in a position (repeatable; docs/balance.md lists them, "
        "and an unknown NAME is refused with the list)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON, no progress bar")
    parser.add_argument("--out", type=Path, help="write each game's statistics here as JSON")
    parser.set_defaults(handler=_simulate)


def _winner_text(stats: "GameStats", category: str) -> str:
    leaders = stats.winners.get(category, [])
    if not leaders:
        return "-"
    if len(leaders) > 2:
        return f"{len(leaders)}-way-tie"
    return ",".join(f"{w.position}:{w.personality}" for w in leaders)


def _print_text(results: "list[GameStats]", summary: dict[str, Any]) -> None:
    print("game  seed        turns ended  winners (robber/mogul/builder/magnate/prodigal/baron)")
    for g in results:
        winners = " ".join(
            _winner_text(g, c)
            for c in (
                "robber_baron",
                "rail_mogul",
                "rail_builder",
                "rail_magnate",
                "rail_prodigal",
                "rail_baron",
            )
        )
        status = "CRASH" if g.crashed else ("yes" if g.ended else "no")
        print(f"{g.game:>4}  {g.seed:<11} {g.turns:>5} {status:<6} {winners}")
        richest = sorted(g.net_worth.items(), key=lambda item: (-item[1], item[0]))[:3]
        worth = ", ".join(f"{p}:{g.personalities[p]} {money(v)}" for p, v in richest)
        climate = "".join(str(r.climate) for r in g.history)
        recalls = sum(r.loan_recalls for r in g.history)
        broke = sum(r.bankruptcies for r in g.history)
        splits = sum(r.splits for r in g.history)
        print(f"      richest: {worth}")
        print(
            f"      climate path (0 Boom .. 8 Panic): {climate}; splits {splits}, "
            f"loan recalls {recalls}, bankruptcies {broke}"
        )
        if g.crashed:
            print(f"      engine failure: {g.crashed}")
        for problem in g.problems[:5]:
            print(f"      CONSERVATION: {problem}")
        if len(g.problems) > 5:
            print(f"      ... {len(g.problems) - 5} more conservation failures")
    print()
    skip = {"by_turn", "events", "rejections", "crashes"}
    for key, value in summary.items():
        if key not in skip:
            print(f"{key}: {json.dumps(value)}")
    print("by turn:")
    columns = [
        "climate_mean",
        "pc_bought",
        "pc_price_median",
        "railroads",
        "stock_price_median",
        "rows_built_east",
        "rows_built_west",
        "regions_east",
        "regions_west",
        "loan_recalls",
        "splits",
    ]
    print("  turn " + " ".join(f"{c[:12]:>12}" for c in columns))
    for turn, row in summary["by_turn"].items():
        print(f"  {turn:>4} " + " ".join(f"{row[c]:>12}" for c in columns))
    print(f"events: {json.dumps(summary['events'])}")
    print(f"rejections: {json.dumps(summary['rejections'])}")


def _simulate(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from turnproc.families.continental_rails.tools.simulate import (
        aggregate,
        parse_strategy_seats,
        simulate,
    )
    from turnproc.scenario.loader import resolve_path

    if args.games < 1 or args.turns < 1:
        raise UsageError("--games and --turns must be at least 1")
    if len(args.strategy) > 15:
        raise UsageError("at most 15 --strategy seats")
    try:
        seats = parse_strategy_seats(args.strategy)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    name = str(resolve_path(args.scenario))
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=args.json,
    )
    with progress:
        task = progress.add_task("games", total=args.games)
        results = simulate(
            name,
            args.games,
            turns=args.turns,
            seed=args.seed,
            workers=max(1, args.workers),
            on_game=lambda _stats: progress.advance(task),
            seats=seats,
        )
    summary = aggregate(results)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for g in results:
            (args.out / f"game-{g.game:04d}.json").write_text(
                g.model_dump_json(indent=1), encoding="utf-8"
            )
        (args.out / "summary.json").write_text(
            json.dumps(summary, indent=1, sort_keys=True), encoding="utf-8"
        )
    if args.json:
        payload = {
            "summary": summary,
            "games": [g.model_dump(exclude={"history"}) for g in results],
        }
        print(json.dumps(payload, indent=1, sort_keys=True))
    else:
        _print_text(results, summary)
    failed = summary["crashed"] or summary["conservation_failures"]
    if failed:
        print(
            f"turnproc: simulation FAILED: {summary['crashed']} game(s) crashed, "
            f"{summary['conservation_failures']} conservation failure(s)",
            file=sys.stderr,
        )
        return 1
    return 0
