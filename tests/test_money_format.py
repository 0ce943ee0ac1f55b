"""Every amount of game money is written one way, with thousands separators
($1,490, never $1490): in the engine's reasons, receipts, reports and mails."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests import intake_world as world
from turnproc.core.money import money, plain_amounts
from turnproc.families.continental_rails.turnsheet.check import evaluate
from turnproc.families.continental_rails.turnsheet.receipt import ReceiptFacts, build_receipt

SCENARIO = world.scenario()
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
_BARE = re.compile(r"\$\d{4}")
_SOURCE = Path(__file__).resolve().parent.parent / "turnproc"
# The formatter itself, and what is not Continental Rails money: a scrypt
# hash's fields separated by "$", the 18xx titles' own money (families/g18xx
# too), and the studies' statistics (fractions, for docs/balance.md).
_OWN_FORMATS = frozenset(
    {
        "core/money.py",
        "intake/auth.py",
        "commands/replay.py",
        "commands/g18xx.py",
        "families/continental_rails/tools/balance.py",
        "families/continental_rails/tools/exploits.py",
    }
)


def test_money_and_plain_amounts() -> None:
    assert money(1490) == "$1,490"
    assert money(-1234567) == "-$1,234,567"
    assert money(999) == "$999"
    assert plain_amounts("costs $1490; has $12 and $1,490") == "costs $1,490; has $12 and $1,490"


def test_receipt_amounts_have_thousands_separators() -> None:
    """The receipt's notes, refusals and stock preview (the engine's reasons)."""
    state = world.state()
    state.tycoon(3).loan = 1490
    state.railroads["NYC"].bonds = 1490
    state.railroads["NYC"].owed_to_president = 2750
    state.railroads["NYC"].lender = 3
    state.railroads["NYC"].cash = 500
    body = "REPAY 5000\nCOLLECT NYC 9000\nBUY 9999 B&O\nRAILROAD NYC\nREDEEM BONDS 9000"
    evaluation = evaluate(f"{world.HEADER}\n{body}\nEND\n", state, SCENARIO)
    receipt = build_receipt(
        ReceiptFacts(
            verdict="accepted" if not evaluation.errors else "errors",
            game="test-game",
            turn=7,
            position=3,
            received_at=NOW,
            sheet=evaluation.sheet,
            errors=evaluation.errors,
            notes=evaluation.notes,
            preview=evaluation.check.preview if evaluation.check else None,
            deadline=NOW + timedelta(days=1),
            now=NOW,
        )
    )
    assert "$1,490" in receipt.text and "$2,750" in receipt.text
    assert _BARE.search(receipt.text) is None, _BARE.findall(receipt.text)


def test_no_amount_is_formatted_by_hand() -> None:
    """Every f-string that writes a dollar amount goes through `money`: a `$`
    right before a replacement field is an amount formatted by hand."""
    found = []
    for path in sorted(_SOURCE.rglob("*.py")):
        relative = path.relative_to(_SOURCE).as_posix()
        if relative in _OWN_FORMATS or relative.startswith(("families/g18xx/", "sequential/")):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""f["'].*(?<!\\)\$\{""", line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert found == []
