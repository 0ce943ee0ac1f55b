"""18xx reports: the model from a replayed game, the text and JSON beside it,
and the PDF read back with real readers (pypdf, pdftotext); the map's track
geometry matches the engine's hex neighbours."""

import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.g18xx_fixtures import load_recorded
from turnproc import sequential
from turnproc.cli import main as turnproc
from turnproc.families.g18xx.engine.actions import Action, parse_action
from turnproc.families.g18xx.engine.game import BANK, Game
from turnproc.families.g18xx.engine.track import neighbour
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.replay import replay, standing_actions
from turnproc.families.g18xx.report import (
    Report,
    build_report,
    render_json,
    render_pdf,
    render_text,
)
from turnproc.families.g18xx.report.model import since_last_move
from turnproc.families.g18xx.report.pdf import _Geometry
from turnproc.families.g18xx.titles.load import new_game


def _replayed(name: str, upto: int | None = None) -> tuple[Game, list[Action]]:
    data = load_recorded(name)
    standing = standing_actions(data["actions"])
    if upto is not None:
        standing = standing[:upto]
    outcome = replay({**data, "actions": standing})
    actions = [parse_action(a) for a in standing]
    return outcome.game, actions


def _pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_the_final_report_of_a_recorded_game() -> None:
    game, actions = _replayed("18MS/14375.json")
    report = build_report(game, 4861, actions, len(actions) - 10)
    assert report.ended and report.end_reason == "fixed_round"
    players = {p.id: p for p in report.players}
    assert {p: v.score for p, v in players.items()} == {"4861": 3685, "686": 3259, "680": 2301}
    assert players["4861"].cash == game.cash[4861]
    ic = next(c for c in report.companies if c.id == "IC")
    assert ic.price == game.market.price("IC") and ic.president == "4861"
    assert sum(h.percent for h in ic.holders) + ic.ipo_percent + ic.market_percent == 100
    assert len(report.log) == 10 and report.log[0].startswith(f"{len(actions) - 9}.")
    birmingham = next(h for h in report.hexes if h.hex == "C9")
    assert birmingham.tile == game.hexes["C9"].tile
    assert set(birmingham.nodes[0].tokens) == set(game.hexes["C9"].tokens[0])

    text = render_text(report)
    assert "GAME OVER: fixed_round" in text
    assert f"cash ${game.cash[4861]:>5}" in text
    assert report.log[-1] in text

    assert Report.model_validate(json.loads(render_json(report))) == report


def test_the_pdf_is_deterministic_and_readable() -> None:
    game, actions = _replayed("18GA/18GA_game_end_bank.json")
    report = build_report(game, 4477, actions, len(actions) - 5)
    pdf = render_pdf(report)
    assert pdf == render_pdf(report)
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) >= 3
    map_page = reader.pages[0].extract_text()
    for hex_name in ("A3", "J12", "D4", "G13"):
        assert hex_name in map_page
    assert "Atlanta" in map_page and "Savannah" in map_page
    text = _pdf_text(pdf)
    assert "Stock market" in text and "Charters" in text
    for company in game.companies:
        assert company in text
    assert "game over (bank)" in text
    if shutil.which("pdftotext"):
        out = subprocess.run(
            ["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        assert "Log from action" in out and "4477 (you)" in out


def test_a_report_mid_game_tells_the_mover_what_he_may_do() -> None:
    game, actions = _replayed("18MS/67889.json", upto=60)
    mover = game.to_move()
    assert mover is not None
    others = [p for p in game.players if p != mover]
    mine = build_report(game, mover, actions, since_last_move(game, mover, actions))
    theirs = build_report(game, others[0], actions)
    assert mine.to_move == str(mover)
    # He has bought this turn: he may still sell, and PASS ends his turn.
    orders = [line.strip().split(" (")[0] for line in mine.may_do if line.startswith("  ")]
    assert orders == ["SELL 1 IC", "SELL 1 L&N", "PASS"]
    assert "you may still sell, then PASS ends your turn" in mine.may_do[0]
    assert theirs.may_do == (f"Player {mover} is to move; you wait.",)
    # the log starts after the reader's own last move
    assert all(
        not line.startswith(f"{since_last_move(game, mover, actions)}.") for line in mine.log
    )


@pytest.mark.parametrize("layout", ["pointy", "flat"])
def test_track_is_drawn_towards_the_neighbour_across_each_edge(layout: str) -> None:
    geo = _Geometry(layout, 10.0)
    for name in ("D4", "E5", "C9"):
        x, y = geo.centre(name)
        for edge in range(6):
            ex, ey = geo.edge_point(x, y, edge)
            nx, ny = geo.centre(neighbour(name, edge, layout))
            # the edge's midpoint is halfway to the neighbour's centre
            assert math.isclose(ex, (x + nx) / 2, abs_tol=1e-6)
            assert math.isclose(ey, (y + ny) / 2, abs_tol=1e-6)


def test_replay_writes_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    load_recorded("18MS/67889.json")
    from tests.g18xx_fixtures import fixtures_dir

    folder = fixtures_dir()
    assert folder is not None
    out = tmp_path / "reports"
    assert turnproc(["replay", str(folder / "18MS/67889.json"), "--report", str(out)]) == 0
    pdfs = sorted(out.glob("*.pdf"))
    assert [p.name for p in pdfs] == ["67889-1027.pdf", "67889-1974.pdf", "67889-1975.pdf"]
    for pdf in pdfs:
        assert pdf.with_suffix(".txt").read_text().startswith("18MS: operating round")
        assert json.loads(pdf.with_suffix(".json").read_text())["reader"] == pdf.stem.split("-")[1]
        assert "Charters" in _pdf_text(pdf.read_bytes())


def test_report_of_a_stored_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    load_recorded("18MS/67889.json")
    from tests.g18xx_fixtures import fixtures_dir

    folder = fixtures_dir()
    assert folder is not None
    monkeypatch.setenv("TURNPROC_DATABASE_URL", f"sqlite:///{tmp_path / 'game.db'}")
    assert turnproc(["db", "upgrade"]) == 0
    recorded = str(folder / "18MS/67889.json")
    assert turnproc(["game", "import", recorded, "--name", "ms", "--upto", "80"]) == 0
    out = tmp_path / "out"
    assert turnproc(["18xx", "report", "ms", "--player", "1974", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ms-1974.json", "ms-1974.pdf", "ms-1974.txt"]
    data = json.loads((out / "ms-1974.json").read_text())
    assert data["round"] in ("stock", "operating") and not data["ended"]
    assert turnproc(["18xx", "report", "ms", "--player", "99", "--out", str(out)]) != 0


def test_report_files_stay_in_their_directory(tmp_path: Path) -> None:
    from turnproc.families.g18xx.report.files import write_reports
    from turnproc.families.g18xx.titles.load import new_game

    game = new_game("18MS", [1, 2, 3])
    out = tmp_path / "out"
    written = write_reports(game, [], out, "../../evil/name", readers=[2])
    assert [p.parent for p in written] == [out]
    assert sorted(p.name for p in out.iterdir()) == [
        "_.._evil_name-2.json",
        "_.._evil_name-2.pdf",
        "_.._evil_name-2.txt",
    ]
    assert list(tmp_path.iterdir()) == [out]


def test_reports_at_the_start_offer_the_privates() -> None:
    from turnproc.families.g18xx.titles.load import new_game

    ga = new_game("18GA", [1, 2, 3])
    lines = build_report(ga, 1).may_do  # 3.1: the priority deal moves first
    assert lines[0] == "The privates' auction (3.1):"
    assert lines[1].startswith("  BID LTR 20 (") and lines[1].endswith("buy it at its price)")
    assert any(line.startswith("  BID MRC 45 (") for line in lines)
    assert lines[-1] == "  PASS"
    assert build_report(ga, 2).may_do == ("Player 1 is to move; you wait.",)
    ms = new_game("18MS", [1, 2, 3])
    due = ms.to_move()
    assert due == 3  # 3.1: the player to the right of the priority holder buys first
    mine = build_report(ms, due).may_do
    assert "  BID AGS 30 (Alabama Great Southern Railroad, revenue $10)" in mine
    assert "  PASS" not in mine  # 3.1: each player buys a private
    assert build_report(ms, 1).may_do == ("Player 3 is to move; you wait.",)
    text = render_text(build_report(ms, due))
    assert "WHAT YOU MAY DO NOW" in text and "BID AGS 30" in text


def test_a_broken_bank_is_said_in_words_in_the_report_and_the_mail() -> None:
    """18GA 5a: the bank that cannot pay has broken and the operating round is
    finished with improvised money; the report's text and the position line
    of the mails say so with what it paid beyond its cash, as the market page
    of the PDF does, never as a negative balance."""
    game, actions = _replayed("18GA/18GA_game_end_bank.json", upto=522)
    assert game.cash[BANK] == -98 and not game.ended
    mover = game.to_move()
    assert mover is not None
    report = build_report(game, mover, actions)
    text = render_text(report)
    assert "The bank has broken: $98 paid beyond its cash" in text
    assert "$-98" not in text
    position = sequential.describe(game)
    assert "phase 8, the bank has broken: $98 paid beyond its cash." in position.splitlines()[0]
    assert "$-98" not in position
    pdf = _pdf_text(render_pdf(report))
    assert "The bank has broken: $98 paid beyond its cash" in " ".join(pdf.split())


def test_standing_offers_for_privates_are_in_every_players_report() -> None:
    """3.2b: an offer made at the table is heard by all; the report shows the
    standing offers to every reader in its text, JSON and PDF."""
    game = new_game("18GA", [1, 2, 3])
    for player, order in [
        (1, "BID LTR 20"),
        (2, "BID MRC 40"),
        (3, "BID W&SR 70"),
        (1, "BID OSR 100"),
        (2, "BID M&BR 150"),
        (3, "OFFER 80 FOR OSR\nPASS"),
        (1, "OFFER LTR TO 2 FOR 25\nPASS"),
    ]:
        assert apply_orders(game, player, order).refused is None
    assert game.to_move() == 2
    report = build_report(game, 3)  # player 3 is not the one offered LTR
    assert [(o.private, o.seller, o.buyer, o.price, o.by) for o in report.offers] == [
        ("OSR", "1", "3", 80, "3"),
        ("LTR", "1", "2", 25, "1"),
    ]
    sells = (
        "player 3 offers player 1 $80 for OSR; player 1 takes it with SELL PRIVATE OSR TO 3 FOR 80"
    )
    buys = "player 1 offers LTR to player 2 for $25; player 2 takes it with BUY PRIVATE LTR 25"
    text = render_text(report)
    assert "STANDING OFFERS FOR PRIVATES" in text and sells in text and buys in text
    assert Report.model_validate(json.loads(render_json(report))).offers == report.offers
    pdf = " ".join(_pdf_text(render_pdf(report)).split())
    assert "Standing offers for privates" in pdf
    assert "P" + sells[1:] in pdf and "P" + buys[1:] in pdf
    # taken up, the offer is gone from every report
    assert apply_orders(game, 2, "BUY PRIVATE LTR 25").refused is None
    assert [o.private for o in build_report(game, 1).offers] == ["OSR"]
