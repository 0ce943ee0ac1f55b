"""`turnproc report render` and `report sample`: files written, past turns re-render the same."""

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import select

from turnproc.cli import main
from turnproc.commands.db import database
from turnproc.store.db import transaction
from turnproc.store.models import Report


def test_report_sample_writes_three_files(tmp_path: Path) -> None:
    assert main(["report", "sample", "--player", "3", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "turn-8"
    assert sorted(p.name for p in folder.iterdir()) == [
        "player-3.json",
        "player-3.pdf",
        "player-3.txt",
    ]
    assert (folder / "player-3.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.slow
def test_stored_turn_renders_as_first_mailed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'game.db'}")
    assert (
        main(["game", "new", "--scenario", "continental-rails", "--seed", "5", "--name", "r"]) == 0
    )
    assert main(["turn", "run", "r", "--force"]) == 0
    out = tmp_path / "out"
    assert main(["report", "render", "r", "--player", "4", "--out", str(out)]) == 0
    assert main(["report", "render", "r", "--turn", "0", "--player", "4", "--out", str(out)]) == 0
    with transaction(database()) as session:
        stored = session.scalar(select(Report).where(Report.turn == 1, Report.position == 4))
        assert stored is not None
        assert (out / "turn-1" / "player-4.txt").read_text(encoding="utf-8") == stored.text
        assert (out / "turn-1" / "player-4.json").read_text(encoding="utf-8") == stored.json
        pdf = (out / "turn-1" / "player-4.pdf").read_bytes()
        assert hashlib.sha256(pdf).hexdigest() == stored.pdf_sha256
    assert (out / "turn-0" / "player-4.txt").read_text(encoding="utf-8").count("start of the game")
    assert main(["report", "render", "r", "--turn", "7", "--out", str(out)]) == 2
