"""The registry of 18xx titles: each title is a folder of data (`title.json`,
`tiles.json`) and a module of its special rules and steps (`rules.py`, a
`Rules` class subclassing the engine's `TitleRules`). Every folder of this
package that holds the three is a title, found by the name in its
`title.json`; a folder elsewhere joins the registry with `add_titles_from`.
The engine itself reads no files."""

import importlib
import importlib.util
import json
import sys
from importlib import resources
from importlib.resources.abc import Traversable
from types import ModuleType

from turnproc.families.g18xx.engine.game import Game, TitleRules
from turnproc.families.g18xx.engine.title import Title

FILES = ("title.json", "tiles.json", "rules.py")
# A title's module of special rules may also define `engine_data(dict) ->
# dict`, reading a title.json that holds more than the engine's `Title`.
# where titles are looked for: this package's folders, then any added
_ROOTS: list[Traversable] = [resources.files(__package__)]


def add_titles_from(root: Traversable) -> None:
    """Look for title folders in this folder too (a title kept outside the package)."""
    if root not in _ROOTS:
        _ROOTS.append(root)


def _folders() -> dict[str, Traversable]:
    """Every title by its name."""
    found: dict[str, Traversable] = {}
    for root in _ROOTS:
        for folder in sorted(root.iterdir(), key=lambda f: f.name):
            if not folder.is_dir() or not all(folder.joinpath(f).is_file() for f in FILES):
                continue
            name = json.loads(folder.joinpath("title.json").read_text(encoding="utf-8"))["title"]
            found.setdefault(name, folder)
    return found


def titles() -> list[str]:
    """The names of the titles one can play."""
    return sorted(_folders())


def _folder(name: str) -> Traversable:
    folders = _folders()
    folder = folders.get(name)
    if folder is None:
        raise KeyError(f"unknown 18xx title {name!r}; known: {', '.join(sorted(folders))}")
    return folder


def load_title(name: str) -> Title:
    folder = _folder(name)
    data = json.loads(folder.joinpath("title.json").read_text(encoding="utf-8"))
    # a title whose data holds more than the engine plays reads it into the
    # engine's shape with its rules module's `engine_data`
    convert = getattr(_rules_module(folder), "engine_data", None)
    if convert is not None:
        data = convert(data)
    data["tiles"] = json.loads(folder.joinpath("tiles.json").read_text(encoding="utf-8"))
    return Title.model_validate(data)


def _rules_module(folder: Traversable) -> ModuleType:
    """The title's rules module: imported from this package, or loaded from
    the source of a folder kept elsewhere."""
    if folder.joinpath("__init__.py").is_file() and folder in set(
        resources.files(__package__).iterdir()
    ):
        return importlib.import_module(f"{__package__}.{folder.name}.rules")
    name = f"{__package__}._added.{folder.name}.rules"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_loader(name, loader=None)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        source = folder.joinpath("rules.py").read_text(encoding="utf-8")
        exec(compile(source, str(folder.joinpath("rules.py")), "exec"), module.__dict__)
        sys.modules[name] = module
    return module


def rules_for(name: str, options: dict[str, str]) -> TitleRules:
    title = load_title(name)
    rules: TitleRules = _rules_module(_folder(name)).Rules(title, options)
    return rules


def new_game(name: str, players: list[int], options: dict[str, str] | None = None) -> Game:
    rules = rules_for(name, options or {})
    return Game(rules.title, rules, players)
