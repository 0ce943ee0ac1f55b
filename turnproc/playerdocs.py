"""The documents the program sends to players, found where they are.

docs/ stays where readers find it (docs/rules.md is the players' rules
reference), and the program mails some of those files: the rules PDF is made
from rules.md and turnsheet.md, HELP answers with turnsheet.md. A source
checkout reads them from docs/; a built package cannot reach docs/, so the
build (setup.py) copies the files named in `PLAYER_DOCS` into turnproc/docs/
inside the package. `player_doc` looks in the package first, then in the
checkout, and says which file is missing if neither has it.

This module imports nothing of the project, so setup.py can read the list
without importing the package's dependencies.
"""

from pathlib import Path

# The files of docs/ the program reads at run time, shipped in every package.
PLAYER_DOCS = (
    "rules.md",
    "turnsheet.md",
    "18xx.md",
    "rules-18ms.md",
    "rules-18ga.md",
)
PACKAGED = Path(__file__).resolve().parent / "docs"
CHECKOUT = Path(__file__).resolve().parent.parent / "docs"
MODERATORS_HEADING = "## For moderators"


def player_doc(name: str) -> Path:
    """The path of docs/`name`: the package's copy, else the checkout's file."""
    if name not in PLAYER_DOCS:
        raise ValueError(f"{name} is not one of the documents sent to players: {PLAYER_DOCS}")
    for folder in (PACKAGED, CHECKOUT):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(
        f"docs/{name} is neither in the package ({PACKAGED}) nor in a checkout ({CHECKOUT}); "
        "reinstall turnproc"
    )


def players_guide(text: str) -> str:
    """The turnsheet guide as players get it: without the part for moderators."""
    at = text.find(MODERATORS_HEADING)
    return text[:at].rstrip() + "\n" if at >= 0 else text
