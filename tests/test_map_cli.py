"""`turnproc scenario check NAME` and `turnproc scenario map NAME --out FILE` (rules section 2)."""

import shutil
from pathlib import Path

import pytest

from turnproc.cli import main
from turnproc.scenario.loader import SCENARIOS_DIR


def test_check_clean_map(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", "continental-rails"]) == 0
    out = capsys.readouterr().out
    assert "416 routes (101 PCs, 315 RoWs)" in out
    assert "Spearman" in out
    assert out.rstrip().endswith("no problems")


def test_check_broken_map_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(SCENARIOS_DIR / "continental-rails", folder)
    routes = folder / "routes.csv"
    routes.write_text(
        routes.read_text(encoding="utf-8").replace(
            "5,NYC,PC,New York Central,148,", "5,NYC,PC,New York Central,149,"
        ),
        encoding="utf-8",
    )
    assert main(["scenario", "check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "1 problem(s):" in out
    assert "NYC: length 149, appendix says 148" in out


def test_check_unknown_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", "no-such-game"]) == 1
    assert "no scenario named 'no-such-game'" in capsys.readouterr().err


def test_map_writes_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.pdf"
    assert main(["scenario", "map", "continental-rails", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert f"wrote {out}" in capsys.readouterr().out


def test_map_unwritable_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing-dir" / "map.pdf"
    assert main(["scenario", "map", "continental-rails", "--out", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err
