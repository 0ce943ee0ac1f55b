"""The build step pyproject.toml cannot say: copy the docs the program sends to
players (turnproc/playerdocs.py names them) from docs/ into the package, as
turnproc/docs/, so an installed package finds them. docs/architecture.md
("Installed packages") explains why they are copied rather than moved."""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _player_docs() -> tuple[str, ...]:
    # Loaded by path: importing the package would need its dependencies.
    spec = importlib.util.spec_from_file_location("playerdocs", HERE / "turnproc/playerdocs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.PLAYER_DOCS)


class BuildWithPlayerDocs(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "turnproc" / "docs"
        target.mkdir(parents=True, exist_ok=True)
        for name in _player_docs():
            shutil.copyfile(HERE / "docs" / name, target / name)


setup(cmdclass={"build_py": BuildWithPlayerDocs})
