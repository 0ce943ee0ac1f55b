"""Check a scenario's map against the rules text (rules section 2, appendices D and E).

`check_scenario(scenario)` lists every problem it finds, not just the first:

- 2.1 every Appendix D/E code present exactly once, with its number, kind, length
  and (for a PC) its name; no code the appendix does not know;
- every route joins two different, known towns;
- the route graph is connected, every region has exactly the starred towns of the
  regions table and each is reachable from the rest of the map;
- every RoW touches the state, province (C) or Mexican state (M) its code names,
  unless its `exception` column says why;
- 2.2 double routes join the same two towns and name each other, and every pair of
  routes between the same two towns is declared a double route;
- 4.8 the no-through towns (`map.toml`) are towns of the map with routes in from
  several sides;
- town sizes 1-5 and coordinates inside North America.

It also measures how game length follows great-circle distance: the Spearman rank
correlation and the ten routes whose length per km strays furthest from the
median. The reference lists come from the scenario's `appendix.toml` section.
"""

import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from turnproc.scenario.model import REGIONS, Route, Scenario

EARTH_RADIUS_KM = 6371.0088
# A correlation below this means the lengths no longer follow the geography.
MIN_SPEARMAN = 0.7
# Rough box around Canada, the United States and Mexico.
LAT_RANGE = (14.0, 72.0)
LON_RANGE = (-170.0, -50.0)
# Routes into a no-through town must come from several directions (4.8 rule 2).
MIN_NO_THROUGH_ROUTES = 3

US_STATES = frozenset(
    [
        "AL",
        "AK",
        "AZ",
        "AR",
        "CA",
        "CO",
        "CT",
        "DE",
        "DC",
        "FL",
        "GA",
        "HI",
        "ID",
        "IL",
        "IN",
        "IA",
        "KS",
        "KY",
        "LA",
        "ME",
        "MD",
        "MA",
        "MI",
        "MN",
        "MS",
        "MO",
        "MT",
        "NE",
        "NV",
        "NH",
        "NJ",
        "NM",
        "NY",
        "NC",
        "ND",
        "OH",
        "OK",
        "OR",
        "PA",
        "RI",
        "SC",
        "SD",
        "TN",
        "TX",
        "UT",
        "VT",
        "VA",
        "WA",
        "WV",
        "WI",
        "WY",
    ]
)
CANADIAN_PROVINCES = frozenset(
    ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"]
)
MEXICAN_STATES = frozenset(
    "MX-" + code
    for code in [
        "AGU",
        "BCN",
        "BCS",
        "CAM",
        "CHP",
        "CHH",
        "CMX",
        "COA",
        "COL",
        "DUR",
        "GUA",
        "GRO",
        "HID",
        "JAL",
        "MEX",
        "MIC",
        "MOR",
        "NAY",
        "NLE",
        "NL",
        "OAX",
        "PUE",
        "QUE",
        "ROO",
        "SLP",
        "SIN",
        "SON",
        "TAB",
        "TAM",
        "TLA",
        "VER",
        "YUC",
        "ZAC",
    ]
)
KNOWN_STATES = US_STATES | CANADIAN_PROVINCES | MEXICAN_STATES


@dataclass(frozen=True)
class Outlier:
    """A route whose length per km is far from the map's median."""

    code: str
    length: int
    km: float
    ratio: float


@dataclass
class CheckReport:
    """Everything `check_scenario` found; `ok` when there is no problem."""

    towns: int
    routes: int
    pcs: int
    rows: int
    problems: list[str] = field(default_factory=list)
    spearman: float = float("nan")
    median_ratio: float = float("nan")
    outliers: list[Outlier] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """The report as text lines for the command line."""
        out = [
            f"{self.towns} towns, {self.routes} routes ({self.pcs} PCs, {self.rows} RoWs)",
            f"length vs great-circle distance: Spearman {self.spearman:.3f}, "
            f"median {self.median_ratio:.3f} length units per km",
            "worst outliers (code, length, km, length/km):",
        ]
        out += [f"  {o.code:<6} {o.length:>4} {o.km:>7.0f} {o.ratio:>6.2f}" for o in self.outliers]
        if self.ok:
            out.append("no problems")
        else:
            out.append(f"{len(self.problems)} problem(s):")
            out += [f"  {problem}" for problem in self.problems]
        return out


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Haversine distance in km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dlat, dlon = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dlat / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


def route_km(scenario: Scenario, route: Route) -> float:
    a, b = scenario.towns[route.a], scenario.towns[route.b]
    return great_circle_km(a.lat, a.lon, b.lat, b.lon)


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    rx, ry = _ranks(xs), _ranks(ys)
    n = len(rx)
    if n < 2:
        return float("nan")
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sxy / math.sqrt(sxx * syy)


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def row_area(code: str) -> str:
    """The state prefix of a RoW code: 'PA' for PA10, 'C' for C7, 'M' for M3."""
    match = re.match(r"[A-Z]+", code)
    return match.group(0) if match else ""


def _in_area(state: str, area: str) -> bool:
    if area == "C":
        return state in CANADIAN_PROVINCES
    if area == "M":
        return state.startswith("MX-")
    return state == area


def check_scenario(scenario: Scenario) -> CheckReport:
    """Check the map of `scenario`; see the module docstring for the list."""
    routes = sorted(scenario.routes.values(), key=lambda r: (r.number, r.code))
    report = CheckReport(
        towns=len(scenario.towns),
        routes=len(routes),
        pcs=sum(1 for r in routes if r.kind == "PC"),
        rows=sum(1 for r in routes if r.kind == "RoW"),
    )
    problems = report.problems
    reference = scenario.params.get("appendix")
    if reference is None:
        problems.append("no appendix.toml: cannot compare routes with the rules appendices")
        reference = {}
    _check_appendix(routes, reference.get("routes", []), problems)
    _check_towns(scenario, problems)
    sound = _check_route_ends(scenario, routes, problems)
    _check_rows_touch_state(scenario, sound, problems)
    _check_doubles(scenario, sound, problems)
    _check_connected(scenario, sound, reference.get("regions", {}), problems)
    _check_no_through(scenario, reference.get("no_through", []), problems)
    _measure_lengths(scenario, sound, report)
    return report


def _check_appendix(routes: list[Route], appendix: list[list[object]], problems: list[str]) -> None:
    expected: dict[str, tuple[int, int, str]] = {}
    for entry in appendix:
        number, code, length, name = entry
        expected[str(code)] = (int(str(number)), int(str(length)), str(name))
    seen_numbers: dict[int, str] = {}
    for route in routes:
        if route.number in seen_numbers:
            problems.append(
                f"route number {route.number} used by both {seen_numbers[route.number]} "
                f"and {route.code}"
            )
        seen_numbers[route.number] = route.code
        if route.code not in expected:
            problems.append(f"{route.code}: not a code of Appendix D or E")
            continue
        number, length, name = expected[route.code]
        kind = "PC" if number <= 101 else "RoW"
        if route.number != number:
            problems.append(f"{route.code}: number {route.number}, appendix says {number}")
        if route.kind != kind:
            problems.append(f"{route.code}: kind {route.kind}, appendix says {kind}")
        if route.length != length:
            problems.append(f"{route.code}: length {route.length}, appendix says {length}")
        if kind == "PC" and route.name != name:
            problems.append(f"{route.code}: name {route.name!r}, appendix says {name!r}")
        if kind == "RoW" and route.name:
            problems.append(f"{route.code}: a RoW has no name, found {route.name!r}")
    present = {route.code for route in routes}
    for code, (number, _, _) in sorted(expected.items(), key=lambda item: item[1][0]):
        if code not in present:
            problems.append(f"{code} (number {number}): missing from routes.csv")


def _check_towns(scenario: Scenario, problems: list[str]) -> None:
    for town in scenario.towns.values():
        if not re.fullmatch(r"[a-z][a-z0-9_]*", town.id):
            problems.append(f"town {town.id!r}: id must be a lowercase slug")
        if not 1 <= town.size <= 5:
            problems.append(f"town {town.id}: size {town.size} outside 1-5")
        if town.state not in KNOWN_STATES:
            problems.append(f"town {town.id}: unknown state/province code {town.state!r}")
        if town.region is not None and town.region not in REGIONS:
            problems.append(f"town {town.id}: unknown region {town.region!r}")
        if not (
            LAT_RANGE[0] <= town.lat <= LAT_RANGE[1] and LON_RANGE[0] <= town.lon <= LON_RANGE[1]
        ):
            problems.append(f"town {town.id}: lat/lon {town.lat}, {town.lon} outside North America")


def _check_route_ends(scenario: Scenario, routes: list[Route], problems: list[str]) -> list[Route]:
    """Report routes with unknown or identical ends; return the others."""
    sound = []
    for route in routes:
        unknown = [t for t in (route.a, route.b) if t not in scenario.towns]
        for town in unknown:
            problems.append(f"{route.code}: unknown town {town!r}")
        if route.a == route.b:
            problems.append(f"{route.code}: joins {route.a} to itself")
        if not unknown and route.a != route.b:
            sound.append(route)
    return sound


def _check_rows_touch_state(scenario: Scenario, routes: list[Route], problems: list[str]) -> None:
    for route in routes:
        if route.kind != "RoW":
            continue
        area = row_area(route.code)
        touches = any(_in_area(scenario.towns[t].state, area) for t in route.towns)
        if not touches and not route.exception:
            problems.append(
                f"{route.code}: joins {route.a} ({scenario.towns[route.a].state}) and "
                f"{route.b} ({scenario.towns[route.b].state}), neither in {area}, "
                "and no exception given"
            )
        if touches and route.exception:
            problems.append(f"{route.code}: exception given but the route touches {area}")


def _check_doubles(scenario: Scenario, routes: list[Route], problems: list[str]) -> None:
    by_pair: dict[frozenset[str], list[str]] = defaultdict(list)
    for route in routes:
        by_pair[frozenset(route.towns)].append(route.code)
    for route in routes:
        other_code = route.double_with
        if other_code is None:
            continue
        other = scenario.routes.get(other_code)
        if other is None:
            problems.append(f"{route.code}: double_with names unknown route {other_code!r}")
            continue
        if other.double_with != route.code:
            problems.append(
                f"{route.code}: double with {other.code}, but {other.code} names "
                f"{other.double_with or 'none'}"
            )
        if frozenset(other.towns) != frozenset(route.towns):
            problems.append(
                f"{route.code}: double with {other.code} but they join different towns "
                f"({route.a}-{route.b} / {other.a}-{other.b})"
            )
    for pair, codes in sorted(by_pair.items(), key=lambda item: sorted(item[1])):
        a, b = sorted(pair)
        if len(codes) > 2:
            problems.append(f"{a}-{b}: joined by {len(codes)} routes ({', '.join(codes)})")
        elif len(codes) == 2:
            first, second = (scenario.routes[c] for c in codes)
            if first.double_with != second.code and second.double_with != first.code:
                problems.append(
                    f"{first.code} and {second.code} both join {a}-{b} "
                    "but are not declared a double route"
                )


def _check_connected(
    scenario: Scenario,
    routes: list[Route],
    regions: dict[str, list[str]],
    problems: list[str],
) -> None:
    neighbours: dict[str, set[str]] = {town: set() for town in scenario.towns}
    for route in routes:
        neighbours[route.a].add(route.b)
        neighbours[route.b].add(route.a)
    components: list[set[str]] = []
    unvisited = set(scenario.towns)
    while unvisited:
        start = min(unvisited)
        seen = {start}
        stack = [start]
        while stack:
            for nxt in neighbours[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        components.append(seen)
        unvisited -= seen
    components.sort(key=len, reverse=True)
    main = components[0] if components else set()
    for component in components[1:]:
        names = ", ".join(sorted(component)[:8]) + (" ..." if len(component) > 8 else "")
        problems.append(f"not connected to the main network: {names}")

    for region in REGIONS:
        wanted = set(regions.get(region, []))
        marked = {t.id for t in scenario.towns.values() if t.region == region}
        for town in sorted(wanted - set(scenario.towns)):
            problems.append(f"region {region}: starred town {town} missing from towns.csv")
        for town in sorted((wanted & set(scenario.towns)) - marked):
            problems.append(f"region {region}: {town} is not marked {region}")
        for town in sorted(marked - wanted):
            problems.append(f"region {region}: {town} is marked but not in the regions table")
        if not marked:
            problems.append(f"region {region}: no starred town")
        elif not marked & main:
            problems.append(f"region {region}: not reachable from the main network")


def _check_no_through(scenario: Scenario, expected: list[str], problems: list[str]) -> None:
    listed = scenario.params.get("map", {}).get("no_through")
    if listed is None:
        problems.append("map.toml: no_through list missing")
        listed = []
    for town in sorted(set(expected) - set(listed)):
        problems.append(f"map.toml: no-through town {town} of rule 4.8 not listed")
    for town in listed:
        if town not in scenario.towns:
            problems.append(f"map.toml: no-through town {town!r} is not a town")
            continue
        count = len(scenario.routes_at.get(town, ()))
        if count < MIN_NO_THROUGH_ROUTES:
            problems.append(
                f"no-through town {town} has {count} route(s); needs at least "
                f"{MIN_NO_THROUGH_ROUTES}"
            )


def _measure_lengths(scenario: Scenario, routes: list[Route], report: CheckReport) -> None:
    measured = [(route, route_km(scenario, route)) for route in routes]
    measured = [(route, km) for route, km in measured if km > 0]
    if len(measured) < 2:
        return
    report.spearman = spearman([r.length for r, _ in measured], [km for _, km in measured])
    ratios = [r.length / km for r, km in measured]
    report.median_ratio = statistics.median(ratios)
    spread = sorted(
        zip(measured, ratios, strict=True),
        key=lambda item: (-abs(math.log(item[1] / report.median_ratio)), item[0][0].number),
    )
    report.outliers = [
        Outlier(code=route.code, length=route.length, km=round(km, 1), ratio=round(ratio, 3))
        for (route, km), ratio in spread[:10]
    ]
    if not report.spearman >= MIN_SPEARMAN:
        report.problems.append(
            f"lengths do not follow distance: Spearman {report.spearman:.3f} < {MIN_SPEARMAN}"
        )
