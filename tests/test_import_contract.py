"""The import contract (docs/architecture.md, Layers): each layer imports only
the layers below it, no generic layer imports a family, no import cycles. The
contracts and the imports they still ignore are in pyproject.toml
([tool.importlinter]); `make lint` runs the same check."""

import tomllib
from pathlib import Path

import pytest

importlinter_cli = pytest.importorskip(
    "importlinter.cli", reason="import-linter is not installed (pip install -e '.[dev]')"
)

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _lint(config: Path) -> int:
    return int(importlinter_cli.lint_imports(config_filename=str(config), no_cache=True))


def test_the_code_keeps_the_import_contract() -> None:
    assert _lint(PYPROJECT) == 0


def test_every_contract_is_checked() -> None:
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    assert {c["id"] for c in contracts} == {"layers", "generic", "acyclic"}


@pytest.mark.parametrize("contract", ["layers", "generic", "acyclic"])
def test_an_import_no_longer_ignored_breaks_the_contract(contract: str, tmp_path: Path) -> None:
    """The check can fail: without one of its ignored imports a contract breaks."""
    text = PYPROJECT.read_text()
    contracts = tomllib.loads(text)["tool"]["importlinter"]["contracts"]
    ignored = next(c for c in contracts if c["id"] == contract)["ignore_imports"]
    if not ignored:
        pytest.skip(f"the {contract} contract ignores no import any more")
    config = tmp_path / "pyproject.toml"
    line = f'    "{ignored[0]}",\n'
    start = text.index(f'id = "{contract}"')
    at = text.index(line, start)
    config.write_text(text[:at] + text[at + len(line) :])
    assert _lint(config) != 0
