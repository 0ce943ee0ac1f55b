"""The 1832 rule cases (cases/1832/, docs/cases.md "1832") run, none fails,
and the runner reports PASS, FAIL and PENDING honestly."""

import json
from pathlib import Path

import pytest

from turnproc.cli import main
from turnproc.families.g18xx import c1832_cases
from turnproc.families.g18xx.titles.c1832.data import load

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "cases" / "1832").glob("*.toml"))
DATA = load()


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 100
    ran = [c for c in CASES if not c1832_cases.load_case(c).pending]
    assert len(ran) >= 100


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case(path: Path) -> None:
    verdict = c1832_cases.run_case(path, DATA)
    assert not verdict.failures, verdict.failures


def test_every_certificate_limit_cell_has_a_case() -> None:
    cells = set()
    for path in CASES:
        case = c1832_cases.load_case(path)
        if case.check == "certificate_limit" and "companies" in case.given:
            cells.add((case.given["players"], case.given["companies"]))
    assert cells == {(p, n) for p in range(2, 8) for n in (10, 9, 8, 7, 6)}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text('game = "1832"\n' + text, encoding="utf-8")
    return path


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "wrong.toml",
        'title = "t"\nrules = "5.8.1"\ncheck = "market_move"\n'
        "[given]\npar = 100\nsold = 1\n[expect]\nprice = 100\n",
    )
    verdict = c1832_cases.run_case(path, DATA)
    assert verdict.mark == "FAIL"
    assert "expected 100, got 90" in verdict.failures[0]


def test_pending_is_not_passed(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "pend.toml",
        'title = "t"\nrules = "5.9"\ncheck = "engine"\npending = true\nreason = "r"\n'
        "[expect]\nprice = 100\n",
    )
    verdict = c1832_cases.run_case(path, DATA)
    assert verdict.mark == "PENDING" and not verdict.passed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('title = "t"\nrules = "1"\ncheck = "nonsense"\n[expect]\nx = 1\n', "unknown check"),
        ('title = "t"\nrules = "1"\ncheck = "data"\n[given]\npath = "title.bank"\n', "expect"),
        ('title = "t"\nrules = "1"\ncheck = "engine"\npending = true\n[expect]\nx = 1\n', "why"),
        ('title = "t"\nrules = "1"\ncheck = "data"\nextra = 1\n[expect]\nx = 1\n', "extra"),
    ],
)
def test_bad_case_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    verdict = c1832_cases.run_case(_write(tmp_path, "bad.toml", text), DATA)
    assert verdict.mark == "FAIL"
    assert message in verdict.failures[0].lower()


def test_cli_runs_1832_cases(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pend = _write(
        tmp_path,
        "pend.toml",
        'title = "p"\nrules = "5.9"\ncheck = "engine"\npending = true\nreason = "r"\n'
        "[expect]\nprice = 100\n",
    )
    assert main(["case", "run", str(CASES[0]), str(pend)]) == 0
    out = capsys.readouterr().out
    assert "PASS  " in out and "PENDING  " in out
    assert "1 passed, 0 failed, 1 pending" in out
    assert main(["case", "run", "--json", str(pend)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["pending"] is True and rows[0]["passed"] is False


def test_cli_fails_on_a_failing_case(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "wrong.toml",
        'title = "t"\nrules = "3.3"\ncheck = "starting_cash"\n'
        "[given]\nplayers = 4\n[expect]\ncash = 1\n",
    )
    assert main(["case", "run", str(path)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_cli_refuses_mixed_games(capsys: pytest.CaptureFixture[str]) -> None:
    other = sorted((ROOT / "cases").glob("*.toml"))[0]
    assert main(["case", "run", str(CASES[0]), str(other)]) == 2
    assert "command of their own" in capsys.readouterr().out


def test_an_expected_refusal_must_happen(tmp_path: Path) -> None:
    refused = _write(
        tmp_path,
        "refused.toml",
        'title = "t"\nrules = "6.5.2"\ncheck = "coal_token"\n'
        '[given]\np5_owner = "player"\n[expect]\nerror = "while a player owns P5"\n',
    )
    assert c1832_cases.run_case(refused, DATA).mark == "PASS"
    allowed = _write(
        tmp_path,
        "allowed.toml",
        'title = "t"\nrules = "6.5.2"\ncheck = "coal_token"\n'
        '[given]\np5_owner = "company"\n[expect]\nerror = "while a player owns P5"\n',
    )
    verdict = c1832_cases.run_case(allowed, DATA)
    assert verdict.mark == "FAIL" and "expected the error" in verdict.failures[0]


def test_a_misspelt_input_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "typo.toml",
        'title = "t"\nrules = "5.8.1"\ncheck = "market_move"\n'
        "[given]\npar = 100\nsould = 1\n[expect]\nprice = 100\n",
    )
    verdict = c1832_cases.run_case(path, DATA)
    assert verdict.mark == "FAIL" and "'sould'" in verdict.failures[0]


def test_file_names_read_like_the_table_of_contents() -> None:
    """docs/cases.md: cases/1832/<section>-<slug>.toml, the section one the
    case cites (or a chapter or section containing it)."""
    for path in CASES:
        numbers = []
        for part in path.stem.split("-"):
            if not part.isdigit():
                break
            numbers.append(str(int(part)))
        section = ".".join(numbers)
        refs = [r.strip().split()[0] for r in c1832_cases.load_case(path).rules.split(",")]
        assert section and any(r == section or r.startswith(section + ".") for r in refs), (
            path.name,
            refs,
        )
