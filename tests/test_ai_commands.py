"""`turnproc simulate` and the benchmark's timing (issue 4)."""

import json

import pytest

from turnproc.bench import median_seconds
from turnproc.cli import main


def test_simulate_json_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "2", "--turns", "2", "--seed", "9", "--json", "--workers", "1"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    second = capsys.readouterr().out
    assert first == second
    data = json.loads(first)
    assert data["summary"]["games"] == 2
    assert data["summary"]["crashed"] == 0
    assert data["summary"]["conservation_failures"] == 0
    assert [g["turns"] for g in data["games"]] == [2, 2]


def test_simulate_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_median_seconds_reports_cpu_time_too() -> None:
    cpu: list[float] = []
    assert median_seconds(lambda: sum(range(1000)), 3, cpu) >= 0
    assert len(cpu) == 1 and cpu[0] >= 0
