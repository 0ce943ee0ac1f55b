"""The plain-text report body against a golden file, and the JSON export.

Regenerate the golden file after a deliberate change with
UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_render_text.py
"""

import json
import os
from pathlib import Path

from turnproc.families.continental_rails.report.export import render_json
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.families.continental_rails.report.text import LINE_WIDTH, render_text
from turnproc.scenario.model import Scenario

GOLDEN = Path(__file__).parent / "data" / "golden" / "report-sample-turn8-player1.txt"


def test_text_body_matches_golden(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    text = render_text(build_report(scenario, start, result, meta, 1))
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_text_lines_fit_an_email(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    for reader in (1, 2, 6):
        text = render_text(build_report(scenario, start, result, meta, reader))
        body = text.split("TURNSHEET FOR TURN")[0]
        assert max(len(line) for line in body.splitlines()) <= LINE_WIDTH + 10


def test_json_export_is_the_model(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    report = build_report(scenario, start, result, meta, 2)
    data = json.loads(render_json(report))
    assert data["format"] == "turnproc-report"
    assert data["reader"] == 2
    assert data["private"]["cash_flow"]["closing"] == result.state.tycoon(2).cash
    assert render_json(report) == render_json(build_report(scenario, start, result, meta, 2))
