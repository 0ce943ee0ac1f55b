"""Typed scenario data: towns, routes and parameter sections (rules section 2).

Pure: the rules engine imports this module; only `loader` touches files.
"""

from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

REGIONS = (
    "ATLANTIC",
    "OHIO",
    "GREAT_LAKES",
    "DEEP_SOUTH",
    "CENTRAL",
    "MISSISSIPPI",
    "GULF",
    "MIDWEST",
    "SOUTHWEST",
    "MOUNTAIN",
    "PACIFIC",
    "CANADA",
    "MEXICO",
)

P = TypeVar("P", bound=BaseModel)
T = TypeVar("T")


class Town(BaseModel):
    """2.4 A town: size 1-5, value size squared; starred towns belong to a region."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    state: str
    size: int = Field(ge=1, le=5)
    region: str | None = None
    lat: float
    lon: float

    @property
    def value(self) -> int:
        return self.size * self.size


class Route(BaseModel):
    """2.1 A route joining two towns: a PC (numbers 1-101) or a RoW (102-416)."""

    model_config = ConfigDict(frozen=True)

    number: int
    code: str
    kind: Literal["PC", "RoW"]
    name: str = ""
    length: int = Field(gt=0)
    a: str
    b: str
    double_with: str | None = None
    exception: str | None = None

    @property
    def towns(self) -> tuple[str, str]:
        return (self.a, self.b)


class Scenario(BaseModel):
    """A whole scenario: map plus every parameter section (one per .toml file)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, ignored_types=(cached_property,))

    name: str
    title: str
    towns: dict[str, Town]
    routes: dict[str, Route]
    params: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def section(self, name: str, model: type[P]) -> P:
        """The parameter section `name` (the file `name`.toml) validated as `model`.

        Validated once per scenario object and cached, so engine steps can call
        it freely; validated again if the parameters are replaced
        (`model_copy(update=...)` shares the cache with the copy).
        """
        # The fields are read from the instance's dict: a pydantic model's
        # attribute goes through its `__getattr__` hook, and sections are
        # asked for by the ten thousand in a game.
        values = self.__dict__
        params = values["params"]
        cache: dict[tuple[str, type[BaseModel]], tuple[Any, BaseModel]] | None = values.get(
            "_section_cache"
        )
        if cache is None:  # looked up first, not made afresh at every call
            cache = values["_section_cache"] = {}
        found = cache.get((name, model))
        if found is not None and found[0] is params:
            return found[1]  # type: ignore[return-value]
        section = model.model_validate(params.get(name, {}))
        cache[(name, model)] = (params, section)
        return section

    def derived(self, name: str, make: Callable[["Scenario"], T]) -> T:
        """The value `make` works out from this scenario's data, kept under
        `name`: worked out once per scenario object, and again if its towns,
        routes or parameters are replaced (`model_copy(update=...)`)."""
        values = self.__dict__  # the fields read as `section` reads them
        cache: dict[str, tuple[Any, Any, Any, Any]] | None = values.get("_derived_cache")
        if cache is None:
            cache = values["_derived_cache"] = {}
        found = cache.get(name)
        if (
            found is not None
            and found[0] is values["towns"]
            and found[1] is values["routes"]
            and found[2] is values["params"]
        ):
            return found[3]
        value = make(self)
        cache[name] = (values["towns"], values["routes"], values["params"], value)
        return value

    @cached_property
    def routes_by_number(self) -> dict[int, Route]:
        return {route.number: route for route in self.routes.values()}

    @cached_property
    def routes_at(self) -> dict[str, tuple[str, ...]]:
        """Route codes touching each town."""
        at: dict[str, list[str]] = {town: [] for town in self.towns}
        for route in self.routes.values():
            at.setdefault(route.a, []).append(route.code)
            at.setdefault(route.b, []).append(route.code)
        return {town: tuple(codes) for town, codes in at.items()}

    def route(self, code: str) -> Route:
        return self.routes[code]
