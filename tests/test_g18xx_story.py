"""The log in words (turnproc/families/g18xx/report/story.py): a recorded
18MS game's moves as players read them, every price change with its rule."""

import re

from tests.g18xx_mail_play import recorded_orders
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.report.story import since_last_move, story
from turnproc.families.g18xx.titles.load import new_game

OPTIONS = {"edition": "18xx.games"}
NAMES = {1: "Ann", 2: "Bob", 3: "Cy"}


def _told() -> list[str]:
    plan, _ = recorded_orders("18MS/67889.json", "18MS", OPTIONS)
    game = new_game("18MS", [1, 2, 3], OPTIONS)
    actions = []
    for seat, order in plan:
        actions += apply_orders(game, seat, order).actions
    entries = story(lambda: new_game("18MS", [1, 2, 3], OPTIONS), actions, NAMES)
    assert [e.index for e in entries] == list(range(len(actions)))
    assert since_last_move(entries, 3)[0].index > entries[-10].index
    return [e.text for e in entries]


def test_each_move_in_words_with_names_towns_and_money() -> None:
    told = _told()
    assert told[0] == "Cy bought BS for $40"
    assert "Bob started GMO at par $75 for $150" in told
    assert "Ann bought 10% of L&N from the initial offering for $75" in told
    assert "Cy (WRA) laid tile 6 on E11 (Montgomery)" in told
    # GMO has no train yet: the steps it cannot act in pass within the same move.
    assert (
        "Bob (GMO) laid tile 4 on H8 (Pensacola) for $20; GMO 75 → 70 (no run, nothing paid: "
        "left one)" in told
    )
    assert "Ann (L&N) placed a station in E11 (Montgomery) for $40" in told
    assert any(t.startswith("Bob (GMO) ran 3+ Tallahassee–Pensacola–Mobile for $") for t in told)
    text = "\n".join(told)
    assert not re.search(r"\b[A-Z&]+_\d\b|\d\+?-\d\b", text)  # no certificate or train ids


def test_every_price_change_says_its_rule() -> None:
    told = _told()
    moves = [t for t in told if "→" in t]
    assert moves
    for line in moves:
        for change in re.findall(r"[A-Z&a-z]+ \d+ → \d+ \(([^)]*)\)", line):
            assert change.split(":")[0] in (
                "paid out",
                "withheld",
                "no revenue",
                "no run, nothing paid",
                "sold out at the end of the stock round",
            ) or change.startswith("sold "), line
    assert any("(paid out: right one)" in t for t in moves)
    assert any(re.search(r"\(sold two shares: down (one|two)\)", t) for t in moves)
    assert any("(no run, nothing paid: left one)" in t for t in moves)
