"""18Dixie's title data against the rules text (the seed's tables and tile
lists) and against itself: tile counts, map connectivity, trains and phases."""

from collections import deque

import pytest

from turnproc.families.g18xx.engine.track import neighbour
from turnproc.families.g18xx.titles.dixie18.data import DixieTitle, load_dixie


@pytest.fixture(scope="module")
def title() -> DixieTitle:
    return load_dixie()


def _hexes(title: DixieTitle) -> dict[str, object]:
    return {h.hex: h for h in title.hexes}


# Section 13 of the seed: the tiles of each colour.
SEED_TILES = {
    "yellow": "3 4 5 6 7 8 9 57 58 X10",
    "green": "14 15 16 17 18 19 20 23 24 25 26 27 28 29 87 88 141 142 143 204 442 443 453 598"
    " 599 619 X20 X21 X22",
    "brown": "39 40 41 42 43 44 45 46 47 63 70 170 456 457 458 X30 X31 X32 X33",
    "gray": "446 X40 X44",
}


def test_tile_manifest_matches_the_seed_lists(title: DixieTitle) -> None:
    for colour, names in SEED_TILES.items():
        have = sorted(n for n, t in title.tiles.items() if t.colour == colour)
        assert have == sorted(names.split()), colour
    assert title.tiles["X10"].count == 1
    assert title.tiles["3"].count == 5
    assert title.tiles["4"].count == 7


def test_tile_manifest_has_270_tiles(title: DixieTitle) -> None:
    assert sum(t.count for t in title.tiles.values()) == 270
    assert all(t.count >= 1 for t in title.tiles.values())


def test_tile_track_joins_real_edges_and_nodes(title: DixieTitle) -> None:
    for name, tile in title.tiles.items():
        used: set[str] = set()
        for pair in tile.track:
            for end in pair:
                if isinstance(end, int):
                    assert 0 <= end <= 5, name
                else:
                    assert end.startswith("n") and int(end[1:]) < len(tile.nodes), name
                    used.add(end)
        assert used == {f"n{i}" for i in range(len(tile.nodes))}, f"{name}: a node without track"


def test_named_hexes_take_their_own_tiles(title: DixieTitle) -> None:
    """4.2e: a tile with a city name is laid only there."""
    hexes = _hexes(title)
    labelled = {n for n, t in title.tiles.items() if t.label}
    placed: set[str] = set()
    for hex_name, by_colour in title.only_upgrades.items():
        assert hex_name in hexes
        for colour, tiles in by_colour.items():
            for tile in tiles:
                assert title.tiles[tile].colour == colour, (hex_name, tile)
                placed.add(tile)
    assert labelled <= placed, labelled - placed
    assert title.only_upgrades["G17"]["yellow"] == ("X10",)  # Atlanta, 5.3
    for p_city in ("C11", "E15", "E3"):  # "P" tiles: Nashville, Chattanooga, Memphis
        assert title.only_upgrades[p_city]["brown"] == ("170",)


def test_map_has_143_hexes_with_the_issue_s_landmarks(title: DixieTitle) -> None:
    hexes = _hexes(title)
    assert len(title.hexes) == 143 == len(hexes)
    names = {h.hex: h.name for h in title.hexes}
    assert names["G17"] == "Atlanta"
    assert names["J26"] == "Savannah"
    assert names["N2"] == "New Orleans"
    assert names["L14"] == "Dothan"


def test_map_is_one_connected_region(title: DixieTitle) -> None:
    hexes = _hexes(title)
    start = title.hexes[0].hex
    seen = {start}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        for edge in range(6):
            there = neighbour(here, edge, title.layout)
            if there in hexes and there not in seen:
                seen.add(there)
                todo.append(there)
    assert seen == set(hexes)


def test_printed_track_stays_on_the_map(title: DixieTitle) -> None:
    """4.2g: printed track leads to another hex of the map."""
    hexes = _hexes(title)
    for h in title.hexes:
        for pair in h.track:
            for end in pair:
                if isinstance(end, int):
                    assert neighbour(h.hex, end, title.layout) in hexes, (h.hex, end)


def test_homes_are_cities_on_the_map(title: DixieTitle) -> None:
    hexes = {h.hex: h for h in title.hexes}
    homes = [c.home for c in title.companies] + [h for m in title.minors for h in m.homes]
    for home in homes:
        assert any(n.kind == "city" for n in hexes[home].nodes), home
    assert len({c.home for c in title.companies}) == len(title.companies)


def test_trains_and_phases_agree(title: DixieTitle) -> None:
    phase_names = [p.name for p in title.phases]
    variants = {v.name for t in title.trains for v in t.variants}
    train_names = {t.name for t in title.trains} | variants
    started = [t.phase for t in title.trains if t.phase]
    assert phase_names[0] == "1"
    # every phase after the first is started by a train, in the order of the trains
    assert sorted(set(started), key=phase_names.index) == phase_names[1:]
    assert [p for p in started if p in phase_names] == started
    for train in title.trains:
        if train.rusted_by:
            assert train.rusted_by in train_names, train.name
        if train.after_phase:
            assert train.after_phase in phase_names
    limits = [p.train_limit for p in title.phases]
    assert limits == sorted(limits, reverse=True)
    tiles = [len(p.tiles) for p in title.phases]
    assert tiles == sorted(tiles)


def test_seed_table_1(title: DixieTitle) -> None:
    rows = {t.name: (t.count, t.price) for t in title.trains}
    assert rows["2"] == (5, 80) and rows["3"] == (5, 180) and rows["4"] == (4, 300)
    limits = {p.name: p.train_limit for p in title.phases}
    assert [limits[n] for n in "1234"] == [4, 4, 4, 3]
    assert {p.name: p.tiles for p in title.phases}["3"] == ("yellow", "green")
    two = next(t for t in title.trains if t.name == "2")
    assert two.rusted_by == "4"  # Table 1: phase 4 removes all 2-trains


def test_seed_table_2(title: DixieTitle) -> None:
    got = {
        n: (s.cash, s.certificates, s.certificates_after_merger) for n, s in title.players.items()
    }
    assert got == {"3": (700, 20, 19), "4": (525, 15, 14), "5": (425, 12, 11), "6": (375, 11, 10)}
    assert title.bank == 12000
    assert title.par_prices == (65, 70, 75, 80, 90)


def test_seed_tables_3_and_4(title: DixieTitle) -> None:
    got = {p.id: (p.value, p.revenue, p.stock_round) for p in title.privates}
    assert got == {
        "P1": (20, 5, 1), "P2": (30, 10, 1), "P3": (50, 10, 1), "P4": (50, 10, 1),
        "P5": (80, 10, 1), "P6": (140, 0, 1), "P7": (100, 15, 1),
        "P8": (50, 15, 2), "P9": (110, 5, 2), "P10": (150, 0, 2),
    }  # fmt: skip


def test_seed_table_5_and_preferred_shares(title: DixieTitle) -> None:
    seed = {
        "M1": ("SOU",), "M2": ("L&N", "SOU"), "M3": ("Fr",), "M4": ("WRA",), "M5": ("SAL",),
        "M6": ("ACL",), "M7": ("L&N",), "M8": ("CoG",), "M9": ("L&N",), "M10": ("IC",),
        "M11": ("IC",),
    }  # fmt: skip
    for minor_id, successors in seed.items():
        assert title.minor(minor_id).successors == successors
    assert len(title.minors) == 13
    assert title.minor("M13").successors == "any" and title.minor("M13").stock_round == 2
    # enough preferred shares for every minor whose successor is fixed
    for company in title.companies:
        only = sum(1 for m in title.minors if m.successors == (company.id,))
        assert company.preferred_shares >= only, company.id
    assert sum(c.preferred_shares for c in title.companies) >= len(title.minors)
    assert title.company("L&N").preferred_shares == 3  # 3.4a: 90% of the L&N


def test_market_grid(title: DixieTitle) -> None:
    rows = [[cell.split() for cell in row] for row in title.market]
    assert len(rows) == 7 and len(rows[0]) == 19
    pars = sorted(int(c[0]) for row in rows for c in row if "par" in c)
    assert pars == sorted(title.par_prices)
    ends = [(r, i) for r, row in enumerate(rows) for i, c in enumerate(row) if "end" in c]
    assert ends == [(0, 18)] and int(rows[0][18][0]) == title.end.price
    # $300 only on the top row: moving up never reaches it (ambiguity 11)
    assert all(len(row) < 19 for row in rows[1:])
    for row in rows:
        values = [int(c[0]) for c in row]
        assert values == sorted(values)
        yellow = ["yellow" in c for c in row]
        assert yellow == sorted(yellow, reverse=True)  # the yellow zone is at the left


def test_mergers(title: DixieTitle) -> None:
    ids = {c.id for c in title.companies}
    assert {(m.id, m.first, m.second, m.trigger, m.subsidy) for m in title.mergers} == {
        ("SCL", "ACL", "SAL", "4D", 100),
        ("ICG", "IC", "Fr", "5D", 200),
    }
    assert all(m.first in ids and m.second in ids for m in title.mergers)
    assert sum(title.merger_terms.certificates) == 100
    assert (title.merger_terms.price_floor, title.merger_terms.price_cap) == (90, 160)


def test_only_a_top_row_payout_reaches_300(title: DixieTitle) -> None:
    """Ambiguity 11: the end cell is reached by a payout from the top row's
    $275 and by nothing in a stock round (FAQ: never during a stock round)."""
    from turnproc.families.g18xx.titles.dixie18 import stock_chart

    reaching = []
    for r, row in enumerate(title.market):
        for c, cell in enumerate(row):
            if "end" in cell:
                continue
            assert not stock_chart.after_stock_round(title, r, c).ends_game
            assert not stock_chart.after_sale(title, r, c, 1).ends_game
            assert not stock_chart.after_operating(title, r, c, False).ends_game
            if stock_chart.after_operating(title, r, c, True).ends_game:
                reaching.append((r, c))
    assert reaching == [(0, 17)]


# 4.4.1: the places whose value is shown in a box, yellow and brown.
BOXED = {
    "Greenville", "Charleston", "Savannah", "Jacksonville", "Tallahassee", "New Orleans",
    "Jackson (Mississippi)", "Little Rock", "St. Louis", "Lexington", "Bristol / Coalfields",
}  # fmt: skip


def test_boxed_values_are_the_seed_s_list(title: DixieTitle) -> None:
    boxed = {h.name for h in title.hexes for n in h.nodes if isinstance(n.revenue, dict) and h.name}
    assert boxed == BOXED


def test_places_the_seed_names(title: DixieTitle) -> None:
    names = {h.hex: h.name for h in title.hexes}
    assert names[title.minor("M4").homes[0]] == "Selma"  # 5.2's example
    assert title.private("P2").ability.near == "L14"  # P2: Dothan (L-14)
    assert names[str(title.private("P3").ability.hex)] == "Atlanta"
    assert {names[h] for h in title.minor("M9").homes} == {"Murfreesboro", "Chattanooga"}


def test_every_order_of_closures_finds_a_preferred_share(title: DixieTitle) -> None:
    """5.2-5.2.2: whatever the owners of minors 2, 12 and 13 choose, every
    minor finds a preferred share, and the rest go to the open market."""
    from turnproc.families.g18xx.titles.dixie18 import minors, shares

    closing = [m for r in (3, 4, 5) for m in minors.closing_after(title, r)]
    assert sorted(closing, key=lambda m: int(m[1:])) == [m.id for m in title.minors]
    start = {c.id: c.preferred_shares for c in title.companies}

    def close(i: int, left: dict[str, int]) -> int:
        if i == len(closing):
            assert shares.release_preferred(0, sum(left.values())) == 10 * sum(left.values())
            return 1
        minor = title.minor(closing[i])
        options = [c.id for c in title.companies] if minor.successors == "any" else minor.successors
        ends = 0
        for successor in options:
            if left[successor] < 1:
                continue
            closure = minors.close_minor(
                title, minor.id, successor, 10, list(minor.homes[:1]), [], left
            )
            assert closure.successor == successor and closure.cash_to_successor == 10
            ends += close(i + 1, {**left, successor: left[successor] - 1})
        assert ends, f"{minor.id} found no preferred share"
        return ends

    assert close(0, start) > 1
