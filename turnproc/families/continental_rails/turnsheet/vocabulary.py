"""The names a turnsheet may use: route codes and numbers, towns, positions.

Built once from the scenario (and the live state, for railroads' numbers) so
the parser stays pure and fast: every lookup is a dictionary access.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.engine.steps.operations import technology_params
from turnproc.scenario.model import Scenario


@dataclass(frozen=True)
class Vocabulary:
    """10 Codes and numbers of every route (a railroad's number is its PC's route number)."""

    kinds: Mapping[str, str]  # route code -> "PC" or "RoW"
    numbers: Mapping[int, str]  # route number -> route code
    towns: Mapping[str, str] = field(default_factory=dict)  # casefolded id or name -> town id
    positions: int = 15
    # casefolded locomotive name -> type (4.17: "LOCOMOTIVE NORRIS" is type 2)
    locomotives: Mapping[str, int] = field(default_factory=dict)
    # code of a PC (so of its railroad) -> its name, for suggestions
    names: Mapping[str, str] = field(default_factory=dict)
    _upper: Mapping[str, str] = field(default_factory=dict)  # upper-cased code -> code

    def by_name(self, word: str) -> list[str]:
        """PC codes whose name is `word` or has it as a word ("Pennsylvania", "Erie")."""
        folded = word.casefold()
        if len(folded) < 3:
            return []
        exact = [code for code, name in self.names.items() if name.casefold() == folded]
        if exact:
            return exact
        return sorted(
            code for code, name in self.names.items() if folded in name.casefold().split()
        )[:3]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_upper", {code.upper(): code for code in self.kinds})

    @classmethod
    def from_scenario(cls, scenario: Scenario, state: GameState | None = None) -> "Vocabulary":
        """The names of `scenario` (built once per scenario object), with the
        number of positions of `state`."""
        cache: dict[int, Vocabulary] = scenario.__dict__.setdefault("_turnsheet_vocabulary", {})
        positions = int(scenario.params.get("scenario", {}).get("positions", 15))
        if state is not None:
            positions = len(state.tycoons)
            missing = [rr for rr in state.railroads.values() if rr.code not in scenario.routes]
            if missing:  # a railroad outside the map only happens in hand-made tests
                return cls._build(scenario, positions, [(rr.code, rr.number) for rr in missing])
        if positions not in cache:
            cache[positions] = cls._build(scenario, positions, [])
        return cache[positions]

    @classmethod
    def _build(
        cls, scenario: Scenario, positions: int, extra: list[tuple[str, int]]
    ) -> "Vocabulary":
        kinds = {code: route.kind for code, route in scenario.routes.items()}
        numbers = {route.number: code for code, route in scenario.routes.items()}
        for code, number in extra:
            kinds.setdefault(code, "PC")
            numbers.setdefault(number, code)
        towns: dict[str, str] = {}
        for town in scenario.towns.values():
            towns[town.id.casefold()] = town.id
            towns[town.name.casefold()] = town.id
        locomotives = {
            loco.name.casefold(): loco.type for loco in technology_params(scenario).locomotives
        }
        names = {
            code: route.name
            for code, route in scenario.routes.items()
            if route.kind == "PC" and route.name
        }
        return cls(
            kinds=kinds,
            names=names,
            numbers=numbers,
            towns=towns,
            positions=positions,
            locomotives=locomotives,
        )

    def code(self, token: str) -> str | None:
        """The route code written as `token` (its code in any case, or its number)."""
        if token.isascii() and token.isdigit():
            return self.numbers.get(int(token)) if len(token) <= 6 else None
        return self._upper.get(token.upper())

    def codes_of_kind(self, kind: str | None) -> list[str]:
        return [code for code, k in self.kinds.items() if kind is None or k == kind]

    def town(self, text: str) -> str | None:
        return self.towns.get(text.strip().casefold())
