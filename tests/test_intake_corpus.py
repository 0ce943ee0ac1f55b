"""Real-looking messy replies (tests/data/turnsheets/*.eml) read as a player meant them."""

import tomllib
from pathlib import Path

import pytest

from tests import intake_world as world
from turnproc.families.continental_rails.turnsheet.check import evaluate
from turnproc.families.continental_rails.turnsheet.language import format_order
from turnproc.intake.extract import message_meta, text_from_message

CORPUS = Path(__file__).parent / "data" / "turnsheets"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))
SCENARIO = world.scenario()
STATE = world.state()


def test_every_message_has_an_expectation() -> None:
    assert sorted(p.stem for p in CORPUS.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_message_reads_as_meant(name: str) -> None:
    raw = (CORPUS / f"{name}.eml").read_bytes()
    expected = EXPECTED[name]
    text = text_from_message(raw)
    evaluation = evaluate(text, STATE, SCENARIO)
    sheet = evaluation.sheet
    assert [format_order(line.order) for line in sheet.lines] == expected["orders"]
    parse_ok = sheet.ok
    assert parse_ok == expected["ok"], [str(e) for e in sheet.errors]
    if "error_lines" in expected:
        assert [e.line_no for e in sheet.errors] == expected["error_lines"]
    for note in expected.get("notes", []):
        assert note in [n.message for n in sheet.notes]
    if expected["ok"]:
        assert sheet.header is not None
        assert (sheet.header.game, sheet.header.turn, sheet.header.position) == ("test-game", 7, 3)
        assert sheet.header.secret.casefold() == "river-maple-42"


def test_message_ids_and_senders_are_read() -> None:
    meta = message_meta((CORPUS / "quoted_reply.eml").read_bytes())
    assert meta.message_id == "<quoted-reply-1@example.org>"
    assert meta.sender == "ann@example.org"
    assert message_meta(b"garbage without headers").message_id is None
