"""Write each reader's report of an 18xx game as .pdf, .txt and .json."""

import re
from collections.abc import Sequence
from pathlib import Path

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.report.model import build_report, since_last_move
from turnproc.families.g18xx.report.pdf import render_pdf
from turnproc.families.g18xx.report.text import render_json, render_text


def write_reports(
    game: Game,
    actions: Sequence[act.Action],
    out: Path,
    stem: str,
    readers: Sequence[int] | None = None,
    since: int | None = None,
) -> list[Path]:
    """One report per reader (every player by default); the log runs from
    action `since`, or from the reader's last move. Returns the PDFs written."""
    out.mkdir(parents=True, exist_ok=True)
    # a game's name becomes part of a file name: keep it inside `out`
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem).lstrip(".") or "game"
    written = []
    for reader in readers if readers is not None else game.players:
        start = since if since is not None else since_last_move(game, reader, actions)
        report = build_report(game, reader, actions, start)
        base = f"{stem}-{reader}"
        (out / f"{base}.pdf").write_bytes(render_pdf(report))
        (out / f"{base}.txt").write_text(render_text(report), encoding="utf-8")
        (out / f"{base}.json").write_text(render_json(report), encoding="utf-8")
        written.append(out / f"{base}.pdf")
    return written
