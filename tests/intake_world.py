"""A small hand-made game for the turnsheet tests: a handful of towns and
routes in the north-east, two railroads presided by player 3, PCs for sale."""

import tomllib

from turnproc.families.continental_rails.engine.state import (
    GameState,
    PrivateCompany,
    Railroad,
    Tycoon,
)
from turnproc.scenario.loader import SCENARIOS_DIR
from turnproc.scenario.model import Route, Scenario, Town

_SCENARIO = SCENARIOS_DIR / "continental-rails"

TOWNS = [
    ("boston", "Boston", "MA", 5, "ATLANTIC"),
    ("new_york", "New York", "NY", 5, "ATLANTIC"),
    ("albany", "Albany", "NY", 3, None),
    ("buffalo", "Buffalo", "NY", 4, "GREAT_LAKES"),
    ("philadelphia", "Philadelphia", "PA", 5, "ATLANTIC"),
    ("pittsburgh", "Pittsburgh", "PA", 4, "OHIO"),
    ("baltimore", "Baltimore", "MD", 4, "ATLANTIC"),
    ("hartford", "Hartford", "CT", 2, None),
    ("chicago", "Chicago", "IL", 5, "CENTRAL"),
    ("cleveland", "Cleveland", "OH", 4, "GREAT_LAKES"),
]
ROUTES = [
    (1, "B&M", "PC", "Boston & Maine", 145, "boston", "albany", None),
    (4, "B&H", "PC", "Boston & Hartford", 110, "boston", "hartford", None),
    (5, "NYC", "PC", "New York Central", 148, "new_york", "albany", None),
    (6, "HRL", "PC", "Hudson River Line", 142, "new_york", "albany", None),
    (8, "ERIE", "PC", "Erie Lackawanna", 287, "albany", "buffalo", None),
    (12, "PENN", "PC", "Pennsylvania", 104, "philadelphia", "pittsburgh", None),
    (14, "B&O", "PC", "Baltimore & Ohio", 160, "baltimore", "pittsburgh", None),
    (28, "LS", "PC", "Lake Shore", 182, "buffalo", "cleveland", None),
    (103, "NY1", "RoW", "", 210, "albany", "buffalo", None),
    (104, "NY2", "RoW", "", 203, "new_york", "philadelphia", None),
    (106, "PA1", "RoW", "", 95, "pittsburgh", "cleveland", None),
    (107, "PA2", "RoW", "", 95, "philadelphia", "baltimore", None),
    (159, "MI1", "RoW", "", 58, "cleveland", "chicago", None),
    (160, "MI2", "RoW", "", 58, "buffalo", "chicago", None),
]


def scenario() -> Scenario:
    towns = {
        t[0]: Town(id=t[0], name=t[1], state=t[2], size=t[3], region=t[4], lat=0.0, lon=0.0)
        for t in TOWNS
    }
    routes = {
        r[1]: Route(
            number=r[0],
            code=r[1],
            kind=r[2],
            name=r[3],
            length=r[4],
            a=r[5],
            b=r[6],
            double_with=r[7],
        )
        for r in ROUTES
    }
    routes = {
        **routes,
        "NYC": routes["NYC"].model_copy(update={"double_with": "HRL"}),
        "HRL": routes["HRL"].model_copy(update={"double_with": "NYC"}),
    }
    params = {
        path.stem: tomllib.loads(path.read_text(encoding="utf-8"))
        for path in sorted(_SCENARIO.glob("*.toml"))
    }
    params["map"] = {**params.get("map", {}), "no_through": ["chicago"]}
    return Scenario(
        name="intake-test",
        title="Intake test",
        towns=towns,
        routes=routes,
        params=params,
    )


def state() -> GameState:
    tycoons = [
        Tycoon(position=p, character=f"Tycoon {p}", cash=1500, holdings={"NYC": 20, "PENN": 20})
        for p in range(1, 16)
    ]
    me = tycoons[2]
    tycoons[2] = me.model_copy(
        update={
            "character": "Jay Gould",
            "human": True,
            "cash": 1500,
            "loan": 200,
            "holdings": {"NYC": 120, "PENN": 90},
            "shorts": {"NYC": 0},
            "pcs": ["B&H"],
        }
    )
    railroads = {
        "NYC": Railroad(
            code="NYC",
            number=5,
            name="New York Central",
            lines=["NYC"],
            rows=["NY1"],
            cash=2000,
            bonds=500,
            loan=100,
            authorized=1000,
            issued=600,
            price=20,
            efficiency=75,
            land=40,
            president=3,
            technologies=[],
        ),
        "PENN": Railroad(
            code="PENN",
            number=12,
            name="Pennsylvania",
            lines=["PENN"],
            cash=1800,
            authorized=1000,
            issued=600,
            price=18,
            efficiency=75,
            president=3,
        ),
        "B&O": Railroad(
            code="B&O",
            number=14,
            name="Baltimore & Ohio",
            lines=["B&O"],
            cash=1800,
            authorized=1000,
            issued=600,
            price=15,
            president=7,
        ),
    }
    pcs = {
        "NYC": PrivateCompany(code="NYC", status="incorporated"),
        "PENN": PrivateCompany(code="PENN", status="incorporated"),
        "B&O": PrivateCompany(code="B&O", status="incorporated"),
        "B&M": PrivateCompany(code="B&M", status="available", asking_price=650),
        "HRL": PrivateCompany(code="HRL", status="available", asking_price=900),
        "ERIE": PrivateCompany(code="ERIE", status="owned", owner=9, asking_price=1200),
        "B&H": PrivateCompany(code="B&H", status="owned", owner=3, asking_price=400),
        "LS": PrivateCompany(code="LS", status="unreleased"),
    }
    return GameState(
        scenario="intake-test",
        game="test-game",
        seed=7,
        turn=7,
        climate=4,
        tycoons=tycoons,
        railroads=railroads,
        pcs=pcs,
        best_locomotive=4,
        technologies_available=["A", "B", "C"],
    )


HEADER = "TURNSHEET game: test-game turn: 7 player: 3 secret: river-maple-42"
