"""`turnproc scenario list | check NAME | show NAME --json | map NAME --out FILE`."""

import argparse
import json

from turnproc.scenario.loader import load_scenario, scenario_names


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("scenario", help="list, check, show and draw scenarios")
    sub = parser.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)

    p_list = sub.add_parser("list", help="the scenarios available")
    p_list.set_defaults(handler=_list)

    p_show = sub.add_parser("show", help="the whole scenario")
    p_show.add_argument("name")
    p_show.add_argument("--json", action="store_true", help="print JSON")
    p_show.set_defaults(handler=_show)


def _list(args: argparse.Namespace) -> int:
    for name in scenario_names():
        print(f"{name}\t{load_scenario(name).title}")
    return 0


def _show(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.name)
    data = {
        "name": scenario.name,
        "title": scenario.title,
        "towns": [town.model_dump() for town in scenario.towns.values()],
        "routes": [
            {
                "code": r.code,
                "number": r.number,
                "kind": r.kind,
                "name": r.name,
                "length": r.length,
                "towns": [r.a, r.b],
                "double_with": r.double_with,
            }
            for r in sorted(scenario.routes.values(), key=lambda r: r.number)
        ],
        "params": scenario.params,
    }
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(f"{scenario.title}: {len(scenario.towns)} towns, {len(scenario.routes)} routes")
    return 0
