"""Every rule case file in cases/ passes (docs/cases.md)."""

from pathlib import Path

import pytest

from turnproc.families.continental_rails.tools.cases import CaseError, load_case, run_case
from turnproc.scenario.model import Scenario

CASES = sorted((Path(__file__).parent.parent / "cases").glob("*.toml"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path, scenario: Scenario) -> None:
    verdict = run_case(path, {scenario.name: scenario})
    assert verdict.failures == []


def test_a_case_that_expects_something_false_fails(tmp_path: Path, scenario: Scenario) -> None:
    case = tmp_path / "wrong.toml"
    case.write_text(
        'title = "wrong on purpose"\nrules = "3.3"\n'
        '[[expect.state]]\npath = "tycoons.0.cash"\nequals = -1\n'
    )
    verdict = run_case(case, {scenario.name: scenario})
    assert not verdict.passed
    assert "tycoons.0.cash" in verdict.failures[0]


def test_a_broken_case_file_is_named(tmp_path: Path) -> None:
    case = tmp_path / "broken.toml"
    case.write_text("title = \n")
    with pytest.raises(CaseError, match=r"broken\.toml"):
        load_case(case)
