"""The Continental Rails map data and its checker (rules section 2, appendices D and E)."""

import csv
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from turnproc.scenario.check import check_scenario, great_circle_km, row_area, spearman
from turnproc.scenario.loader import SCENARIOS_DIR, ScenarioError, load_scenario
from turnproc.scenario.model import Scenario

Row = dict[str, str]


@pytest.fixture(scope="module")
def real() -> Scenario:
    return load_scenario("continental-rails")


def copy_scenario(tmp_path: Path) -> Path:
    target = tmp_path / "continental-rails"
    shutil.copytree(SCENARIOS_DIR / "continental-rails", target)
    return target


def edit_csv(path: Path, change: Callable[[list[Row]], list[Row]]) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        fields = list(reader.fieldnames or [])
        rows = [dict(row) for row in reader]
    rows = change(rows)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def set_field(rows: list[Row], key: str, match: str, field: str, value: str) -> list[Row]:
    hits = [row for row in rows if row[key] == match]
    assert len(hits) == 1, f"{match} not found once"
    hits[0][field] = value
    return rows


def problems_after(
    tmp_path: Path, file: str, change: Callable[[list[Row]], list[Row]]
) -> list[str]:
    folder = copy_scenario(tmp_path)
    edit_csv(folder / file, change)
    return check_scenario(load_scenario(folder)).problems


def test_real_map_is_clean(real: Scenario) -> None:
    report = check_scenario(real)
    assert report.problems == []
    assert report.ok


def test_real_map_counts(real: Scenario) -> None:
    routes = list(real.routes.values())
    assert len(routes) == 416
    assert sum(1 for r in routes if r.kind == "PC") == 101
    assert sum(1 for r in routes if r.kind == "RoW") == 315
    assert sorted(r.number for r in routes) == list(range(1, 417))
    assert 150 <= len(real.towns) <= 230


def test_real_map_lengths_follow_distance(real: Scenario) -> None:
    report = check_scenario(real)
    assert report.spearman > 0.85
    assert len(report.outliers) == 10


def test_real_map_facts(real: Scenario) -> None:
    assert real.routes["B&M"].towns == ("boston", "portland_me")
    assert real.routes["IN2"].double_with == "IN3"
    assert real.routes["C7"].double_with == "C8"
    assert real.routes["WA1"].double_with == "WA2"
    for town in ("chicago", "st_louis", "memphis", "vicksburg", "new_orleans"):
        assert len(real.routes_at[town]) >= 5, town
    assert real.towns["new_york"].value == 25


def test_copy_is_clean(tmp_path: Path) -> None:
    assert check_scenario(load_scenario(copy_scenario(tmp_path))).ok


def test_wrong_length(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "NYC", "length", "149")
    )
    assert "NYC: length 149, appendix says 148" in problems


def test_wrong_number_and_name(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "code", "ERIE", "name", "Erie")
        return set_field(rows, "code", "GT", "number", "3")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert "ERIE: name 'Erie', appendix says 'Erie Lackawanna'" in problems
    assert "GT: number 3, appendix says 2" in problems
    assert "route number 3 used by both GT and B&A" in problems or (
        "route number 3 used by both B&A and GT" in problems
    )


def test_missing_and_unknown_code(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "M4", "code", "M5")
    )
    assert "M5: not a code of Appendix D or E" in problems
    assert "M4 (number 416): missing from routes.csv" in problems


def test_every_problem_listed_not_just_first(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "code", "PA5", "length", "1")
        set_field(rows, "code", "OH2", "length", "2")
        return set_field(rows, "code", "TX8", "length", "3")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert sum("appendix says" in p for p in problems) == 3


def test_unknown_town(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "NY3", "b", "atlantis")
    )
    assert "NY3: unknown town 'atlantis'" in problems


def test_route_to_itself(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "SV", "b", "sacramento")
    )
    assert "SV: joins sacramento to itself" in problems


def test_disconnected(tmp_path: Path) -> None:
    # Quebec hangs on C4 alone; moving C4 elsewhere cuts it off.
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "C4", "b", "toronto")
    )
    assert "not connected to the main network: quebec" in problems
    assert "region CANADA: not reachable from the main network" not in problems


def test_region_unreachable(tmp_path: Path) -> None:
    # Cut Mexico off: M1, M3 and the M4/AZ5 double are its only links.
    def change(rows: list[Row]) -> list[Row]:
        for code in ("M1", "M3", "M4", "AZ5"):
            set_field(rows, "code", code, "double_with", "")
        set_field(rows, "code", "M1", "a", "chihuahua")
        set_field(rows, "code", "M3", "a", "chihuahua")
        set_field(rows, "code", "M4", "b", "monterrey")
        return set_field(rows, "code", "AZ5", "a", "monterrey")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert "region MEXICO: not reachable from the main network" in problems


def test_starred_town_unmarked(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "towns.csv", lambda rows: set_field(rows, "id", "butte", "region", "")
    )
    assert "region MOUNTAIN: butte is not marked MOUNTAIN" in problems


def test_extra_star_and_unknown_region(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "id", "elmira", "region", "ATLANTIC")
        return set_field(rows, "id", "erie", "region", "LAKES")

    problems = problems_after(tmp_path, "towns.csv", change)
    assert "region ATLANTIC: elmira is marked but not in the regions table" in problems
    assert "town erie: unknown region 'LAKES'" in problems


def test_row_off_its_state(tmp_path: Path) -> None:
    problems = problems_after(
        tmp_path, "routes.csv", lambda rows: set_field(rows, "code", "ME1", "a", "montreal")
    )
    assert any(
        p.startswith("ME1: joins montreal (QC) and sherbrooke (QC), neither in ME")
        for p in problems
    )


def test_row_exception_accepted_and_needless_exception(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "code", "ME1", "a", "montreal")
        set_field(rows, "code", "ME1", "exception", "test: runs through Maine woods")
        return set_field(rows, "code", "NY1", "exception", "not needed")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert not any(p.startswith("ME1: joins") for p in problems)
    assert "NY1: exception given but the route touches NY" in problems


def test_double_routes(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "code", "IN3", "b", "fort_wayne")  # IN2/IN3 now join different towns
        set_field(rows, "code", "UT2", "double_with", "")  # UT3 still names UT2
        return set_field(rows, "code", "C7", "double_with", "C99")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert any(p.startswith("IN2: double with IN3 but they join different towns") for p in problems)
    assert "UT3: double with UT2, but UT2 names none" in problems
    assert "C7: double_with names unknown route 'C99'" in problems


def test_undeclared_double(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "code", "TX9", "double_with", "")
        return set_field(rows, "code", "TX10", "double_with", "")

    problems = problems_after(tmp_path, "routes.csv", change)
    assert (
        "TX9 and TX10 both join austin-san_antonio but are not declared a double route" in problems
    )


def test_no_through_town_missing(tmp_path: Path) -> None:
    folder = copy_scenario(tmp_path)
    map_toml = folder / "map.toml"
    map_toml.write_text(
        map_toml.read_text(encoding="utf-8").replace('"vicksburg", ', ""), encoding="utf-8"
    )
    problems = check_scenario(load_scenario(folder)).problems
    assert "map.toml: no-through town vicksburg of rule 4.8 not listed" in problems


def test_town_outside_north_america_and_bad_state(tmp_path: Path) -> None:
    def change(rows: list[Row]) -> list[Row]:
        set_field(rows, "id", "denver", "lon", "104.9903")
        return set_field(rows, "id", "erie", "state", "XX")

    problems = problems_after(tmp_path, "towns.csv", change)
    assert "town denver: lat/lon 39.7392, 104.9903 outside North America" in problems
    assert "town erie: unknown state/province code 'XX'" in problems


def test_size_out_of_range_refused_by_loader(tmp_path: Path) -> None:
    folder = copy_scenario(tmp_path)
    edit_csv(folder / "towns.csv", lambda rows: set_field(rows, "id", "boston", "size", "6"))
    with pytest.raises(ScenarioError, match=r"towns\.csv"):
        load_scenario(folder)


def test_size_checked_on_scenario_built_in_code(real: Scenario) -> None:
    town = real.towns["boston"].model_copy(update={"size": 0})
    broken = real.model_copy(update={"towns": {**real.towns, "boston": town}})
    assert "town boston: size 0 outside 1-5" in check_scenario(broken).problems


def test_lengths_not_following_distance(real: Scenario) -> None:
    # Give every route the length of another, unrelated route: correlation collapses.
    codes = sorted(real.routes, key=lambda c: real.routes[c].number)
    lengths = [real.routes[c].length for c in codes]
    shuffled = lengths[7:] + lengths[:7]
    routes = {
        c: real.routes[c].model_copy(update={"length": n})
        for c, n in zip(codes, shuffled, strict=True)
    }
    report = check_scenario(real.model_copy(update={"routes": routes}))
    assert any(p.startswith("lengths do not follow distance") for p in report.problems)


def test_helpers() -> None:
    assert great_circle_km(40.7128, -74.0060, 42.3601, -71.0589) == pytest.approx(306, abs=2)
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert row_area("PA10") == "PA"
    assert row_area("C7") == "C"


def test_repeated_town_id_and_route_code_refused_by_loader(tmp_path: Path) -> None:
    folder = copy_scenario(tmp_path)
    edit_csv(folder / "towns.csv", lambda rows: set_field(rows, "id", "erie", "id", "denver"))
    with pytest.raises(ScenarioError, match=r"towns\.csv:\d+: town id 'denver' repeated"):
        load_scenario(folder)
    folder = copy_scenario(tmp_path / "routes")
    edit_csv(folder / "routes.csv", lambda rows: set_field(rows, "code", "B&M", "code", "NYC"))
    with pytest.raises(ScenarioError, match=r"routes\.csv:\d+: route code 'NYC' repeated"):
        load_scenario(folder)
