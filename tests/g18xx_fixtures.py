"""Where the recorded 18xx games live: ../shared/18xx/fixtures beside the
repository (or beside the folder of worktrees); never copied into the repo."""

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [
    ROOT.parent / "shared" / "18xx" / "fixtures",
    ROOT.parent.parent / "shared" / "18xx" / "fixtures",
]

# (file, standing actions after undo/redo, per the fixtures' README)
RECORDED = [
    ("18MS/14375.json", 328),
    ("18MS/17510.json", 341),
    ("18MS/67889.json", 301),
    ("18GA/18GA_game_end_bank.json", 538),
    ("18GA/18GA_game_end_bankrupt.json", 373),
    ("18GA/18GA_game_end_stock_market.json", 512),
]


def fixtures_dir() -> Path | None:
    return next((p for p in CANDIDATES if p.is_dir()), None)


def load_recorded(name: str) -> dict[str, Any]:
    folder = fixtures_dir()
    if folder is None or not (folder / name).is_file():
        pytest.skip(f"recorded game {name} not found in {' or '.join(str(p) for p in CANDIDATES)}")
    data: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return data
