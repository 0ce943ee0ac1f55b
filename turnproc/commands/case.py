"""`turnproc case run FILE...`: run rule case files (docs/cases.md)."""

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turnproc.scenario.model import Scenario


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("case", help="run rule case files")
    sub = parser.add_subparsers(dest="case_command", metavar="ACTION", required=True)
    p_run = sub.add_parser("run", help="run case files and print each verdict")
    p_run.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p_run.add_argument("--json", action="store_true", help="print JSON")
    p_run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from turnproc.families.continental_rails.tools.cases import (
        CaseError,
        CaseVerdict,
        load_case,
        run_case,
    )
    from turnproc.families.g18xx import c1832_cases
    from turnproc.families.g18xx import dixie18_cases as dixie_cases
    from turnproc.scenario.loader import load_scenario

    games_1832 = [c1832_cases.is_1832_case(path) for path in args.files]
    if all(games_1832):
        return c1832_cases.run_files(args.files, as_json=args.json)
    if any(games_1832):
        print('run 1832 case files (game = "1832") in a command of their own')
        return 2

    scenarios: dict[str, Scenario] = {}
    verdicts: list[CaseVerdict] = []
    pending: list[dict[str, str]] = []
    for path in args.files:
        if dixie_cases.is_case(path):  # game = "18dixie": the title's own runner
            dixie = dixie_cases.run_case(path)
            if dixie.pending is not None and not dixie.failures:
                pending.append({"file": str(path), "title": dixie.title, "pending": dixie.pending})
                if not args.json:
                    print(f"PENDING  {path}  {dixie.title}\n      {dixie.pending}")
                continue
            verdict = CaseVerdict(path=path, title=dixie.title, failures=dixie.failures)
            verdicts.append(verdict)
            if not args.json:
                print(f"{'PASS' if verdict.passed else 'FAIL'}  {path}  {verdict.title}")
                for failure in verdict.failures:
                    print(f"      {failure}")
            continue
        try:
            name = load_case(path).scenario
            if name not in scenarios:
                scenarios[name] = load_scenario(name)
            verdict = run_case(path, scenarios)
        except CaseError as exc:
            verdict = CaseVerdict(path=path, title="(unreadable)", failures=[str(exc)])
        verdicts.append(verdict)
        if not args.json:
            mark = "PASS" if verdict.passed else "FAIL"
            print(f"{mark}  {path}  {verdict.title}")
            for failure in verdict.failures:
                print(f"      {failure}")
    failed = sum(not v.passed for v in verdicts)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "file": str(v.path),
                        "title": v.title,
                        "passed": v.passed,
                        "failures": v.failures,
                    }
                    for v in verdicts
                ]
                + pending,
                indent=2,
            )
        )
    else:
        print(f"{len(verdicts) - failed} passed, {failed} failed")
        if pending:
            print(f"{len(pending)} pending (each says what it waits for; not run)")
    return 1 if failed else 0
