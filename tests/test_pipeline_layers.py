"""The pipeline is built in layers: each module imports only the modules of
the layers before it, so there is no import cycle and a newcomer can read it
from the bottom up (docs/architecture.md)."""

import ast
from pathlib import Path

import turnproc

PIPELINE = Path(turnproc.__file__).parent / "pipeline"
LAYERS = [
    "links",
    "policies",
    "stored",
    "schedule",
    "reruns",
    "reports",
    "players",
    "games",
    "turns",
]


def _pipeline_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {
            name.split(".")[2]
            for name in names
            if name.startswith("turnproc.pipeline.") and name.split(".")[2] in LAYERS
        }
    return found


def test_every_pipeline_module_has_its_layer() -> None:
    modules = {p.stem for p in PIPELINE.glob("*.py")} - {"__init__"}
    assert modules == set(LAYERS)


def test_pipeline_modules_import_only_earlier_layers() -> None:
    upward = {
        module: sorted(later)
        for index, module in enumerate(LAYERS)
        if (later := _pipeline_imports(PIPELINE / f"{module}.py") - set(LAYERS[:index]))
    }
    assert upward == {}
