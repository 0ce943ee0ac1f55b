"""`turnproc replay FILE.json [--json] [--report DIR] [--compare]`: replay a
recorded 18xx game and print its final scores and end reason (and write the
players' reports of the final position); `--compare` checks every action's
state against the reference states the file carries (tools/differential)."""

import argparse
import json
from pathlib import Path
from typing import Any

from turnproc.core.errors import TurnprocError

MAX_FILE_BYTES = 20 * 1024 * 1024


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("replay", help="replay a recorded 18xx game (18xx.games JSON)")
    parser.add_argument("file", type=Path, metavar="FILE.json")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--report", type=Path, metavar="DIR", help="write each player's report of the end"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="compare each action's state with the file's reference_states",
    )
    parser.set_defaults(handler=_replay)


def read_recorded(path: Path) -> dict[str, Any]:
    """A recorded game's JSON, bounded in size."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise TurnprocError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TurnprocError(f"{path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TurnprocError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        raise TurnprocError(f"{path}: not a recorded game")
    return data


def _replay(args: argparse.Namespace) -> int:
    from turnproc.families.g18xx.engine.actions import parse_action
    from turnproc.families.g18xx.replay import ReplayError, replay, standing_actions
    from turnproc.families.g18xx.report.files import write_reports

    path: Path = args.file
    data = read_recorded(path)
    if args.compare:
        return _compare(path, data)
    try:
        outcome = replay(data)
    except ReplayError as exc:
        raise TurnprocError(f"{path}: {exc}") from None
    if args.report is not None:
        actions = [parse_action(a) for a in standing_actions(data["actions"])]
        written = write_reports(outcome.game, actions, args.report, path.stem)
        if not args.json:
            for written_path in written:
                print(f"wrote {written_path} (and .txt, .json)")
    if args.json:
        print(
            json.dumps(
                {"result": outcome.result, "game_end_reason": outcome.end_reason}, sort_keys=True
            )
        )
        return 0
    print(
        f"{data.get('title')}: {outcome.applied} actions replayed; game ends: {outcome.end_reason}"
    )
    for player, score in sorted(outcome.result.items(), key=lambda item: -item[1]):
        print(f"  {player:>10}  {score:>6}")
    for action_id, train, ours, recorded in outcome.game.revenue_differences:
        print(
            f"  note: action {action_id}: {train} earns ${ours} by our count; ${recorded} recorded"
        )
    return 0


def _compare(path: Path, data: dict[str, Any]) -> int:
    """Print the first action where our state differs from the reference's
    (exit status 1), or that the whole game agrees."""
    if not isinstance(data.get("reference_states"), list):
        raise TurnprocError(f"{path}: no reference_states to compare with")
    from turnproc.families.g18xx.compare import compare

    found = compare(data)
    if found is None:
        print(f"{path}: every action agrees; result and end reason agree")
        return 0
    print(f"{path}: first disagreement: {found}")
    return 1
