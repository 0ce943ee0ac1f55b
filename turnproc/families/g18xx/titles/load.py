"""Load a title's data files (the engine itself reads no files)."""

import importlib
import json
from importlib import resources

from turnproc.families.g18xx.engine.game import Game, TitleRules
from turnproc.families.g18xx.engine.title import Title

FOLDERS = {"18MS": "ms18", "18GA": "ga18"}


def load_title(name: str) -> Title:
    folder = FOLDERS.get(name)
    if folder is None:
        raise KeyError(f"unknown 18xx title {name!r}; known: {', '.join(sorted(FOLDERS))}")
    package = f"{__package__}.{folder}"
    data = json.loads(resources.files(package).joinpath("title.json").read_text(encoding="utf-8"))
    data["tiles"] = json.loads(
        resources.files(package).joinpath("tiles.json").read_text(encoding="utf-8")
    )
    return Title.model_validate(data)


def rules_for(name: str, options: dict[str, str]) -> TitleRules:
    title = load_title(name)
    module = importlib.import_module(f"{__package__}.{FOLDERS[name]}.rules")
    rules: TitleRules = module.Rules(title, options)
    return rules


def new_game(name: str, players: list[int], options: dict[str, str] | None = None) -> Game:
    rules = rules_for(name, options or {})
    return Game(rules.title, rules, players)
