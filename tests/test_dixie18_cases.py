"""18Dixie's rule cases (cases/18dixie): every one passes or is pending, the
runner fails a wrong one, and `turnproc case run` reports pending cases as
pending, never as passed."""

import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from turnproc.families.g18xx import dixie18_cases as cases
from turnproc.families.g18xx.titles.dixie18 import merger
from turnproc.families.g18xx.titles.dixie18.data import load_dixie

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "cases" / "18dixie").glob("*.toml"))


def test_at_least_80_cases() -> None:
    assert len(CASES) >= 80


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    verdict = cases.run_case(path)
    assert not verdict.failures, verdict.failures
    assert verdict.passed or verdict.pending


def test_pending_cases_say_why_and_still_expect_something() -> None:
    pending = [cases.run_case(p) for p in CASES if "pending" in tomllib.loads(p.read_text())]
    assert pending
    for verdict in pending:
        assert verdict.pending and not verdict.passed


# Every worked example of the seed's 18Dixie chapter has a case (by rule).
EXAMPLES = ["3.2a", "3.4.1", "3.6", "4.4h", "4.5a", "4.6", "5.2", "5.4a", "5.4b"]


def test_every_worked_example_has_a_running_case() -> None:
    examples: dict[str, int] = {}
    for path in CASES:
        case = tomllib.loads(path.read_text())
        if "example" in case["title"].lower() and "pending" not in case:
            for rule in str(case["rules"]).split(", "):
                examples[rule] = examples.get(rule, 0) + 1
    assert [r for r in EXAMPLES if r not in examples] == []
    # 3.4.1 has four examples
    assert examples["3.4.1"] >= 4


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "case.toml"
    path.write_text(text)
    return path


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'title = "t"\nrules = "5.4a"\ngame = "18dixie"\ncheck = "merger_price"\n'
        "[given]\nprices = [70, 140]\n[expect]\nresult = 140\n",
    )
    verdict = cases.run_case(path)
    assert verdict.failures == ["result: expected 140, got 160"]


def test_a_refusal_expected_but_allowed_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'title = "t"\nrules = "3.2a"\ngame = "18dixie"\ncheck = "opening_bid"\n'
        '[given]\nlist_price = 140\nbid = 145\ncash = 700\n[expect]\nrefused = "OPENING_BID"\n',
    )
    assert cases.run_case(path).failures


def test_a_case_without_expectation_or_with_an_unknown_check_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, 'title = "t"\nrules = "1"\ngame = "18dixie"\ncheck = "nothing"\n')
    failures = cases.run_case(path).failures
    assert any("must expect" in f for f in failures)
    assert any("unknown check" in f for f in failures)


def test_bad_given_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'title = "t"\nrules = "5.4a"\ngame = "18dixie"\ncheck = "merger_price"\n'
        "[given]\nprice = 1\n[expect]\nresult = 1\n",
    )
    assert any("bad [given]" in f for f in cases.run_case(path).failures)


def test_cli_reports_pending_and_passes(tmp_path: Path) -> None:
    pending = next(p for p in CASES if "pending" in tomllib.loads(p.read_text()))
    running = next(p for p in CASES if "pending" not in tomllib.loads(p.read_text()))
    out = subprocess.run(
        [sys.executable, "-m", "turnproc", "case", "run", str(pending), str(running)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert f"PENDING  {pending}" in out.stdout
    assert f"PASS  {running}" in out.stdout
    assert "1 passed, 0 failed" in out.stdout and "1 pending" in out.stdout
    wrong = _write(
        tmp_path,
        'title = "t"\nrules = "5.4a"\ngame = "18dixie"\ncheck = "merger_price"\n'
        "[given]\nprices = [70, 140]\n[expect]\nresult = 140\n",
    )
    out = subprocess.run(
        [sys.executable, "-m", "turnproc", "case", "run", str(wrong)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 1 and "FAIL" in out.stdout


def test_merger_price_is_always_a_top_row_value_within_the_limits() -> None:
    """5.4a for many pairs of prices (fixed seed)."""
    title = load_dixie()
    top = {int(c.split()[0]) for c in title.market[0]}
    rng = random.Random(27)
    for _ in range(500):
        a, b = rng.choice(sorted(top)), rng.randint(25, 300)
        price = merger.merger_price(title, (a, b))
        assert price in top
        assert 90 <= price <= 160
        assert price <= max(a + b, 90)
