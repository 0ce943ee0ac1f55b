"""`turnproc scenario check NAME` and `turnproc scenario map NAME --out FILE` (rules section 2)."""

import errno
import os
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


def test_map_that_cannot_be_written_whole_leaves_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "map.pdf"
    out.write_bytes(b"%PDF-1.4 the map drawn last week")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    assert main(["scenario", "map", "continental-rails", "--out", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert out.read_bytes() == b"%PDF-1.4 the map drawn last week"
    assert [p.name for p in tmp_path.iterdir()] == ["map.pdf"]
