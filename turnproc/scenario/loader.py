"""Read a scenario folder: towns.csv, routes.csv and every other *.toml file.

Each `NAME.toml` becomes the parameter section `NAME`; engine modules validate
their own section with `Scenario.section`. Any broken file raises
`ScenarioError` naming the file and the problem.
"""

import csv
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from turnproc.core.errors import TurnprocError
from turnproc.scenario.model import Route, Scenario, Town

Row = TypeVar("Row", bound=BaseModel)

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"


class ScenarioError(TurnprocError):
    """A scenario folder that cannot be read; the message names file and problem."""


def scenario_names(root: Path = SCENARIOS_DIR) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "scenario.toml").is_file())


def resolve_path(name_or_path: str | Path, root: Path = SCENARIOS_DIR) -> Path:
    path = Path(name_or_path)
    if (path / "scenario.toml").is_file():
        return path
    candidate = root / str(name_or_path)
    if (candidate / "scenario.toml").is_file():
        return candidate
    known = ", ".join(scenario_names(root)) or "none"
    raise ScenarioError(f"no scenario named {name_or_path!r} (known: {known})")


def _read_csv(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return [dict(row) for row in csv.DictReader(handle)]
    except FileNotFoundError:
        raise ScenarioError(f"{path}: file missing") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ScenarioError(f"{path}: unreadable CSV ({exc})") from None


def _non_blank(row: dict[str, str]) -> dict[str, Any]:
    """Blank cells mean "not given", so the model's default applies."""
    return {key: value for key, value in row.items() if value not in ("", None)}


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"])
    return f"{where}: {err['msg']}"


def _rows(path: Path, model: type[Row], key: Callable[[Row], str], what: str) -> dict[str, Row]:
    """The rows of a CSV file as `model`s by `key`; the first row that is not
    valid or repeats a key stops the loading, named by its file and line."""
    found: dict[str, Row] = {}
    for line_no, row in enumerate(_read_csv(path), start=2):
        try:
            item = model.model_validate(_non_blank(row))
        except ValidationError as exc:
            raise ScenarioError(f"{path}:{line_no}: {_first_error(exc)}") from None
        if key(item) in found:
            raise ScenarioError(f"{path}:{line_no}: {what} {key(item)!r} repeated")
        found[key(item)] = item
    return found


def load_scenario(name_or_path: str | Path, root: Path = SCENARIOS_DIR) -> Scenario:
    """Load a scenario by name (a folder of `root`) or by path."""
    folder = resolve_path(name_or_path, root)
    params: dict[str, dict[str, Any]] = {}
    for toml_path in sorted(folder.glob("*.toml")):
        try:
            params[toml_path.stem] = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ScenarioError(f"{toml_path}: invalid TOML ({exc})") from None
    meta = params.get("scenario", {})

    towns = _rows(folder / "towns.csv", Town, lambda town: town.id, "town id")
    routes = _rows(folder / "routes.csv", Route, lambda route: route.code, "route code")

    return Scenario(
        name=str(meta.get("name", folder.name)),
        title=str(meta.get("title", folder.name)),
        towns=towns,
        routes=routes,
        params=params,
    )
