"""`turnproc bench [--json] [--runs N] [--seed S]`: speed figures on a turn-15 game;
`turnproc bench --scale [N]`: a site of N games on the configured database."""

import argparse
import json
import sys
from collections.abc import Callable

from turnproc.core.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "bench", help="measure engine, intake, batch and rendering speed (medians)"
    )
    parser.add_argument("--scenario", default="continental-rails", help="scenario name")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the benchmark game")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--scale",
        type=int,
        nargs="?",
        const=10_000,
        metavar="N",
        help="instead: N games (default 10000) in the configured, empty database; "
        "the due scan, a new game and the bytes stored per game-turn",
    )
    parser.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    from rich.console import Console

    from turnproc.bench import KEYS, run_bench

    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    console = Console(stderr=True)
    log = (lambda _m: None) if args.json else (lambda m: console.print(f"[dim]measuring {m}[/]"))
    if args.scale is not None:
        return _scale(args, log)
    figures = run_bench(args.scenario, seed=args.seed, runs=args.runs, log=log)
    if args.json:
        print(json.dumps(figures, indent=1, sort_keys=True))
        return 0
    notes = figures["notes"]
    extra = (
        "resolve_turn_cpu_s",
        "simulate_game_cpu_s",
        "computer_orders_s",
        "computer_orders_cpu_s",
        "render_reports_cpu_s",
        "batch_turn_sqlite_cpu_s",
        "batch_turn_postgres_cpu_s",
        "render_floor_s",
        "render_floor_ratio",
        "web_game_page_cpu_s",
        "web_game_page_cold_s",
        "cli_start_cpu_s",
        "turn_to_mailbox_wall_s",
    )
    for key in (*KEYS, *extra):
        value = figures.get(key)
        shown = "null" if value is None else str(value)
        reason = f"   ({notes[key]})" if key in notes else ""
        print(f"{key:<24}{shown:>10}{reason}")
    print(
        f"(median of {figures['runs']} runs; turn {figures['midgame_turn']} state of seed "
        f"{figures['seed']} with {figures['midgame_railroads']} railroads; the simulated game "
        f"played {figures['simulate_game_turns']} turns)",
        file=sys.stdout,
    )
    return 0


def _scale(args: argparse.Namespace, log: Callable[[str], None]) -> int:
    from turnproc.commands.db import database
    from turnproc.scale import run_scale

    figures = run_scale(database(), args.scale, args.scenario, args.seed, args.runs, log)
    if args.json:
        print(json.dumps(figures, indent=1, sort_keys=True))
        return 0
    for key, value in sorted(figures.items()):
        print(f"{key:<28}{value!s:>14}")
    return 0
