"""The legal moves spelled out (turnproc/families/g18xx/moves.py): every
order the players of a recorded game wrote is among the moves listed to
them at that point, and every order listed is one the engine takes."""

import re

import pytest

from tests.g18xx_mail_play import recorded_orders
from turnproc.families.g18xx.moves import Moves, alternatives, legal, legal_moves
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.titles.load import new_game


def _listed(order: str, text: str) -> bool:
    """Whether `order` is a listed order, or one of its alternatives
    (another rotation, par or count of shares on the same line)."""
    words = order.split()
    if words[0] == "USE":  # a private's ability: the order after its name, in its lines
        use = " ".join(words[:2]) + " "
        mine = [
            line.strip()[len(use) :] for line in text.splitlines() if line.strip().startswith(use)
        ]
        return _listed(order[len(use) :], "\n".join(mine))
    if words[0] == "TOKEN" and words[-1] == "0" and _listed(" ".join(words[:-1]), text):
        return True  # a hex of one city: no city number needed
    for line in text.splitlines():
        line = line.strip()
        if line.split(" (")[0].split("  [")[0] == order:
            return True
        if words[0] in ("LAY", "PAR", "SELL") and line.startswith(words[0]):
            head = line.split(" (")[0].split()
            same = head[:3:2] == words[:3:2] if words[0] == "SELL" else head[:3] == words[:3]
            if words[0] == "LAY":
                same = head[:3] == words[:3]
            elif words[0] == "PAR":
                same = head[:2] == words[:2]
            if same and words[-1] in re.split(r"[\s,;)]+", line):
                return True
        bid = words[0] == "BID" and line.startswith(" ".join(words[:2]) + " ")
        if bid and "or more" in line and int(words[-1]) >= int(line.split()[2]):
            return True
        ranged = re.search(r"any price from \$([\d,]+) to \$([\d,]+)", line)
        if ranged and line.startswith(" ".join(words[:-1]) + " "):
            low, high = (int(g.replace(",", "")) for g in ranged.groups())
            if low <= int(words[-1]) <= high:
                return True
    return False


def test_a_line_names_its_alternatives_as_complete_orders() -> None:
    """The web form offers each as an order of its own (web/play18xx.py)."""
    assert alternatives("LAY 57 H6 1 (or rotation 4)  [lay on H6]") == [
        "LAY 57 H6 1",
        "LAY 57 H6 4",
    ]
    assert alternatives("USE M&M LAY 7 H4 0 (or rotation 2, 5)  [lay on H4]") == [
        "USE M&M LAY 7 H4 0",
        "USE M&M LAY 7 H4 2",
        "USE M&M LAY 7 H4 5",
    ]
    assert alternatives("PAR GMO 65 (or par 70, 75; the president's 20%; home H6)") == [
        "PAR GMO 65",
        "PAR GMO 70",
        "PAR GMO 75",
    ]
    assert alternatives("SELL 1 IC (or 2, 3 shares; $70 a share; ...)") == [
        "SELL 1 IC",
        "SELL 2 IC",
        "SELL 3 IC",
    ]
    assert alternatives("BID AGS 35 (or more, by $5 steps; highest bid $30)") == ["BID AGS 35"]
    assert alternatives("BUY TRAIN 2 ($80 from the bank)") == ["BUY TRAIN 2"]
    lines = ["PAR IC 70 (or par 75; home A1)", "LAY 4 H4 1 (or rotation 4)  [lay on H4]"]
    assert Moves([("Buy:", lines)]).choices() == [
        (
            "Buy:",
            [
                ("PAR IC 70", "PAR IC 70 (home A1)"),
                ("PAR IC 75", "PAR IC 75 (home A1)"),
                ("LAY 4 H4 1", "LAY 4 H4 1 [lay on H4]"),
                ("LAY 4 H4 4", "LAY 4 H4 4 [lay on H4]"),
            ],
        )
    ]


@pytest.mark.parametrize(
    ("name", "title", "options"),
    [
        ("18MS/67889.json", "18MS", {"edition": "18xx.games"}),
        ("18GA/18GA_game_end_bank.json", "18GA", {}),
    ],
)
def test_the_orders_of_a_recorded_game_are_listed_as_legal(
    name: str, title: str, options: dict[str, str]
) -> None:
    plan, _ = recorded_orders(name, title, options)
    game = new_game(title, sorted({seat for seat, _ in plan}), options)
    game.recorded_revenue_stands = True
    unlisted = []
    checked = uses = offered = 0
    for index, (seat, order) in enumerate(plan):
        moves = legal_moves(game, seat)
        spelled_elsewhere = order.startswith(("OFFER ", "WITHDRAW ", "RUN "))
        if not spelled_elsewhere and not _listed(order, moves.text()):
            unlisted.append((index, order, moves.orders()))
        uses += order.startswith("USE ")
        for listed in moves.orders():  # every private's ability offered is taken
            if listed.startswith("USE "):
                assert legal(game, seat, listed), (index, listed)
                offered += 1
        if index % 25 == 0:  # each listed order is one the engine takes, alternatives too
            for _, options in moves.choices():
                for listed, _ in options:
                    assert legal(game, seat, listed), (index, listed)
            checked += 1
        assert apply_orders(game, seat, order).refused is None
    assert not unlisted, unlisted[:5]
    assert checked > 10
    assert uses >= 1  # a private's ability used, listed before it was
    assert offered > uses


def test_the_legal_lays_are_drawn_on_the_movers_map() -> None:
    """In an operating round the report of the president to move marks each
    hex his company may lay on, with the tiles and rotations, as the LAY
    lines of his legal moves give them; the other players' reports do not."""
    from turnproc.families.g18xx.report import build_report, render_pdf

    from .mail_players import pdf_text

    plan, _ = recorded_orders("18MS/67889.json", "18MS", {"edition": "18xx.games"})
    game = new_game("18MS", [1, 2, 3], {"edition": "18xx.games"})
    for seat, order in plan[:141]:
        assert apply_orders(game, seat, order).refused is None
    mover = game.to_move()
    assert mover is not None and game.round == "operating"
    report = build_report(game, mover)
    text = legal_moves(game, mover).text()
    assert report.lays
    for lay in report.lays:
        for tile in lay.tiles:
            name, rotations = tile.split(" r")
            first = rotations.split(",")[0]
            assert f"LAY {name} {lay.hex} {first}" in text
    others = [p for p in game.players if p != mover]
    assert build_report(game, others[0]).lays == ()
    # the map names the tiles; the table under it gives each hex's tiles,
    # rotations and cost, as the LAY lines do
    text = pdf_text(render_pdf(report))
    assert f"{report.lays[0].tiles[0]}" in text
    assert "Your tile lays now" in text and "Tiles (rotations)" in text
    for lay in report.lays:
        words = []
        for tile in lay.tiles:
            name, rotations = tile.split(" r")
            words.append(f"{name} ({rotations.replace(',', ', ')})")
            for rotation in rotations.split(","):
                assert legal(game, mover, f"LAY {name} {lay.hex} {rotation}")
        assert re.search(rf"{lay.hex}\b.*{re.escape(', '.join(words))}", text), lay
