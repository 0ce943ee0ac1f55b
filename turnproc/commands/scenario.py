"""`turnproc scenario list | check NAME | show NAME --json | map NAME --out FILE`."""

import argparse
import json

from turnproc.core.errors import TurnprocError


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("scenario", help="list, check, show and draw scenarios")
    sub = parser.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)

    p_list = sub.add_parser("list", help="the scenarios available")
    p_list.set_defaults(handler=_list)

    p_show = sub.add_parser("show", help="the whole scenario")
    p_show.add_argument("name")
    p_show.add_argument("--json", action="store_true", help="print JSON")
    p_show.set_defaults(handler=_show)

    p_check = sub.add_parser("check", help="check the map against the rules appendices")
    p_check.add_argument("name")
    p_check.set_defaults(handler=_check)

    p_map = sub.add_parser("map", help="draw the map as a PDF")
    p_map.add_argument("name")
    p_map.add_argument("--out", required=True, help="PDF file to write")
    p_map.set_defaults(handler=_map)


def _list(args: argparse.Namespace) -> int:
    from turnproc.scenario.loader import load_scenario, scenario_names

    for name in scenario_names():
        print(f"{name}\t{load_scenario(name).title}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from turnproc.scenario.loader import load_scenario

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


def _check(args: argparse.Namespace) -> int:
    from turnproc.scenario.check import check_scenario
    from turnproc.scenario.loader import load_scenario

    report = check_scenario(load_scenario(args.name))
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _map(args: argparse.Namespace) -> int:
    from turnproc.families.continental_rails.report.mapdraw import draw_scenario_map
    from turnproc.scenario.loader import load_scenario

    scenario = load_scenario(args.name)
    try:
        unlabelled = draw_scenario_map(scenario, args.out)
    except OSError as exc:
        raise TurnprocError(f"cannot write {args.out}: {exc.strerror}") from None
    print(f"wrote {args.out}")
    if unlabelled:
        print(f"no room for the labels of: {', '.join(unlabelled)}")
    return 0
