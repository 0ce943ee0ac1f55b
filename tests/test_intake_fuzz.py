"""Fuzzing the turnsheet reader: whatever arrives, it answers with its own typed
errors (never another exception), never hangs, and every order it produces
is a valid typed order that reads back the same from its canonical line."""

import random
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import intake_world as world
from turnproc.core.sheet_errors import SheetTooLarge, TurnsheetError
from turnproc.families.continental_rails.turnsheet.check import evaluate
from turnproc.families.continental_rails.turnsheet.language import format_order, parse_turnsheet
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.intake.extract import text_from_message

SCENARIO = world.scenario()
STATE = world.state()
VOCAB = Vocabulary.from_scenario(SCENARIO, STATE)

_WORDS = [
    "BUY",
    "SELL",
    "SHORT",
    "COVER",
    "BORROW",
    "REPAY",
    "LOAN",
    "BID",
    "OFFER",
    "INCORPORATE",
    "MERGE",
    "INTO",
    "TREASURY",
    "LEND",
    "COLLECT",
    "PRODIGAL",
    "SPY",
    "PLAYER",
    "RAILROAD",
    "PRESIDENT",
    "NAME",
    "DIVIDEND",
    "ISSUE",
    "STOCK",
    "BONDS",
    "REDEEM",
    "BUILD",
    "LAND",
    "DOUBLE",
    "TRACK",
    "LOCOMOTIVE",
    "TECHNOLOGY",
    "DONATE",
    "RATE",
    "WAR",
    "IMPROVE",
    "PERSONAL",
    "END",
    "TURNSHEET",
    "game:",
    "turn:",
    "player:",
    "secret:",
    "NYC",
    "PENN",
    "B&O",
    "B&M",
    "B&H",
    "HRL",
    "ERIE",
    "NY1",
    "NY2",
    "PA1",
    "nyc:",
    "A",
    "J",
    "Boston",
    "borow",
    "dividned",
    "issu",
    "OF",
    "SHARES",
    "$1,500",
    "25%",
    "____",
    "#",
    "(",
    "@",
    "--",
    "On Mon wrote:",
    ">",
    "=====",
    "[RAILROAD 5]",
    "0",
    "5",
    "12",
    "99",
    "100",
    "-3",
    "1.5",
    "99999999999999999999",
    "é",
    "\u200b",
    "\x00",
    "\t",
]
_PREFIXES = ["", "", "", "> ", ">> ", "\t", "   "]
_HEADERS = [
    world.HEADER,
    world.HEADER.upper(),
    "turnsheet game=test-game turn=7 player=3 secret=x",
    "TURNSHEET game: test-game turn: 7 player: 99 secret: x",
    "TURNSHEET game: test-game turn: 7 player: 3 secret: ____",
    "Turnsheet game turn",
    "",
]
_ENDS = ["END", "end turnsheet", "", "-- ", "=== END ==="]
_NOISE = "abcXYZ019 $,.%#>()@:_-\t\u00e9\u200b\x00&"


def _word(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.6:
        return rng.choice(_WORDS)
    if pick < 0.8:
        return str(rng.randint(-10, 10**7))
    return "".join(rng.choice(_NOISE) for _ in range(rng.randint(0, 6)))


def _sheet(seed: int, size: int) -> str:
    """A sheet built from a seed: cheap to generate, so 10,000 of them run quickly."""
    rng = random.Random(seed)
    if rng.random() < 0.15:
        return "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(0, 200)))
    lines = [rng.choice(_HEADERS)]
    for _ in range(size):
        words = " ".join(_word(rng) for _ in range(rng.randint(0, 6)))
        lines.append(rng.choice(_PREFIXES) + words)
    lines.append(rng.choice(_ENDS))
    return rng.choice(["\n", "\r\n", "\r"]).join(lines)


SHEETS = st.builds(_sheet, st.integers(min_value=0, max_value=2**64), st.integers(0, 14))


def _read(text: str) -> None:
    try:
        sheet = parse_turnsheet(text, VOCAB)
    except SheetTooLarge:
        return
    for error in sheet.errors:
        assert isinstance(error, TurnsheetError)
        assert error.message
    for line in sheet.lines:
        canonical = format_order(line.order)
        again = parse_turnsheet(f"{world.HEADER}\n{canonical}\nEND\n", VOCAB)
        assert [x.order for x in again.lines] == [line.order], canonical


@settings(
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(SHEETS)
def test_parser_never_raises_and_orders_round_trip(text: str) -> None:
    _read(text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHEETS)
def test_checking_never_raises(text: str) -> None:
    try:
        evaluation = evaluate(text, STATE, SCENARIO, VOCAB)
    except SheetTooLarge:
        return
    for error in evaluation.errors:
        assert isinstance(error, TurnsheetError)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.sampled_from([b"", b"From: a@b\r\nSubject: x\r\n\r\n"]))
def test_extraction_of_any_bytes_gives_text_or_a_typed_error(data: bytes, head: bytes) -> None:
    try:
        text = text_from_message(head + data)
    except TurnsheetError:
        return
    assert isinstance(text, str)


def test_a_one_megabyte_sheet_is_refused_fast() -> None:
    text = world.HEADER + "\n" + ("BUY 100 NYC\n" * 90_000)
    start = time.process_time()
    try:
        parse_turnsheet(text, VOCAB)
    except SheetTooLarge as exc:
        assert "KB" in exc.message
    else:
        raise AssertionError("a 1 MB sheet was read")
    assert time.process_time() - start < 2.0


def test_pathological_lines_stay_fast() -> None:
    nasty = [
        "On " + "x" * 390 + " wrote:",
        "TURNSHEET " + "game: " * 60,
        ">" * 300 + " BUY 1 NYC",
        "BUY " + "1," * 190 + "000 NYC",
        "(" * 399,
    ]
    text = world.HEADER + "\n" + "\n".join(nasty * 200) + "\nEND\n"
    start = time.process_time()
    sheet = parse_turnsheet(text, VOCAB)
    assert time.process_time() - start < 10.0
    assert sheet.errors
