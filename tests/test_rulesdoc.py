"""docs/rules.md is assembled from docs/rules/*.md and the scenario data, and
is kept current."""

from pathlib import Path

import pytest

from turnproc.families.continental_rails.tools import rulesdoc
from turnproc.scenario.model import Scenario


def test_rules_md_is_current(scenario: Scenario) -> None:
    assert rulesdoc.OUTPUT.read_text(encoding="utf-8") == rulesdoc.assemble(scenario), (
        "docs/rules.md is stale: run python -m turnproc.families.continental_rails.tools.rulesdoc"
    )


def test_tables_come_from_the_data(scenario: Scenario) -> None:
    assert "| Panic | panic bear | 16% | 60.0% |" in rulesdoc.climate_table(scenario)
    text = rulesdoc.assemble(scenario)
    for route in scenario.routes.values():
        assert f"| {route.number} | {route.code} | {route.length} |" in text


def test_every_section_is_marked(scenario: Scenario) -> None:
    for path in rulesdoc.section_files():
        text = path.read_text(encoding="utf-8")
        if "<!-- table:" in text and path.stem.startswith("appendix-d"):
            continue
        assert "[original]" in text or "[designed]" in text, f"{path.name} marks no rule"


def test_unknown_table_is_an_error(tmp_path: Path, scenario: Scenario) -> None:
    (tmp_path / "x.md").write_text("<!-- table: nonsense -->\n")
    with pytest.raises(ValueError, match="nonsense"):
        rulesdoc.assemble(scenario, tmp_path)
