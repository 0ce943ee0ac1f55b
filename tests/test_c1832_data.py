"""1832's data files load, agree with each other, and say what the rules text
says where the text gives numbers (docs/rules-1832.md)."""

import copy
import json
from importlib import resources
from typing import Any

import pytest

from turnproc.families.g18xx.titles.c1832 import data as c1832_data
from turnproc.families.g18xx.titles.c1832.data import TitleDataError, check, load, parse

PACKAGE = "turnproc.families.g18xx.titles.c1832"


def raw_files() -> dict[str, Any]:
    files = resources.files(PACKAGE)
    return {
        name.removesuffix(".json"): json.loads(files.joinpath(name).read_text(encoding="utf-8"))
        for name in c1832_data.FILES
    }


def test_loads_and_agrees() -> None:
    data = load()
    assert check(data) == []
    assert len(data.title.hexes) == 102  # the published map (18xx-ambiguities: 102 hexes)
    assert len(data.title.market) == 11
    assert max(len(row) for row in data.title.market) == 21


def test_trains_and_phases_from_table_1() -> None:
    data = load()
    assert [(t.name, t.price, t.count) for t in data.title.trains] == [
        ("2", 80, 7),
        ("3", 180, 6),
        ("4", 300, 4),
        ("5", 450, 3),
        ("6", 630, 3),
        ("8", 800, 3),
        ("10", 950, 2),
        ("12", 1100, None),
    ]
    assert [p.train_limit for p in data.title.phases] == [4, 4, 3, 2, 2, 2, 2, 2]
    assert [p.operating_rounds for p in data.title.phases] == [1, 2, 2, 3, 3, 3, 3, 3]


def test_homes_are_cities() -> None:
    data = load()
    for company in data.title.companies:
        hx = data.hex(company.home)
        cities = [n for n in hx.nodes if n.kind == "city"]
        assert hx.kind == "city" or cities, company.id
        if company.home_city is not None:
            assert company.home_city < len(cities)


def test_every_upgrade_in_the_manifest_keeps_colour_order() -> None:
    data = load()
    order = {"yellow": 0, "green": 1, "brown": 2, "gray": 3}
    for tid, tile in data.tiles.items():
        for up in tile.upgrades:
            assert order[data.tiles[up].colour] == order[tile.colour] + 1, (tid, up)


def test_medium_city_upgrades_keep_the_track() -> None:
    """6.4.2: a medium city's town tile becomes the city tile with its track."""
    data = load()
    for town, city in data.extras.medium_city_upgrades.items():
        edges = {e for pair in data.tiles[town].track for e in pair if isinstance(e, int)}
        city_edges = {e for pair in data.tiles[city].track for e in pair if isinstance(e, int)}
        assert edges == city_edges, (town, city)


def test_ports_and_cotton_cities_are_disjoint() -> None:
    data = load()
    ports = {h.hex for h in data.title.hexes if h.port}
    assert ports.isdisjoint(data.extras.cotton.cities)
    assert data.extras.miami.hex in ports


def test_offboard_values_have_three_phase_ranges() -> None:
    data = load()
    for hx in data.title.hexes:
        for node in hx.nodes:
            if node.kind in ("offboard", "coal_fields"):
                assert isinstance(node.revenue, dict)
                assert sorted(node.revenue, key=int) == ["2", "5", "8"], hx.hex


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r["title"]["companies"][0].update(home="Z99"), "not on the map"),
        (lambda r: r["title"]["hexes"].append(dict(r["title"]["hexes"][0])), "listed twice"),
        (lambda r: r["tiles"]["7"]["upgrades"].append("999"), "unknown tile 999"),
        (lambda r: r["title"]["players"]["4"].update(cash=500), "capital shared"),
        (lambda r: r["title"]["par_prices"].append(110), "par boxes"),
        (lambda r: r["title"]["trains"][0].update(rusts="1"), "unknown train"),
        (lambda r: r["extras"]["historical_order"].pop(), "historical order"),
        (lambda r: r["title"]["certificate_limits"]["3"].pop(), "one value per column"),
        (lambda r: r["title"]["phases"][0].update(tiles=["purple"]), "phases.0.tiles"),
    ],
)
def test_bad_data_is_refused_clearly(mutate: Any, message: str) -> None:
    raw = copy.deepcopy(raw_files())
    mutate(raw)
    with pytest.raises(TitleDataError, match=message):
        parse(raw)


def test_the_files_as_shipped_parse() -> None:
    assert parse(raw_files()).title.bank == 12000


def test_hex_coordinates_fit_one_grid() -> None:
    """2 (Map): on the published pointy grid a hex's row letter and column
    number always have an odd sum (A7, B2, N16), so a mistyped hex shows."""
    data = load()
    for hx in data.title.hexes:
        row = ord(hx.hex[0]) - ord("A")
        col = int(hx.hex[1:])
        assert 0 <= row < 14 and 1 <= col <= 24, hx.hex
        assert (row + col) % 2 == 1, hx.hex
