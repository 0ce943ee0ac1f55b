"""The rules engine stays pure: it imports no storage, rendering, mail, clock or
global random (architecture: house rules)."""

import ast
from pathlib import Path

import turnproc

# The pure code: core, and of every game family its engine, its titles'
# rules and its computer players; a family without an engine/ folder fails
# test_every_family_has_an_engine_folder.
PURE_PACKAGES = (
    "core",
    "families/*/engine",
    "families/*/titles",
    "families/*/ai.py",
    "families/*/ai",
)
# An 18xx game's report renders files (ReportLab, Jinja2); it sits beside the
# engine, which must never import it.
IMPURE_INSIDE = ("families/g18xx/report",)
FORBIDDEN_MODULES = {
    "sqlalchemy",
    "alembic",
    "jinja2",
    "reportlab",
    "smtplib",
    "imaplib",
    "email",
    "sqlite3",
    "psycopg",
    "time",
    "datetime",
    "os",
    "pathlib",
    "io",
    "socket",
    "subprocess",
    "turnproc.store",
    "turnproc.families.continental_rails.report",
    "turnproc.families.continental_rails.turnsheet",
    "turnproc.mail",
    "turnproc.intake",
    "turnproc.cli",
    "turnproc.commands",
    "turnproc.pipeline",
    "turnproc.config",
    "turnproc.scenario.loader",
    "turnproc.families.g18xx.report",
}
ROOT = Path(turnproc.__file__).parent


def _modules(pattern: str) -> list[Path]:
    """The modules of one entry of PURE_PACKAGES (a folder, a glob, a file)."""
    found: list[Path] = []
    for match in sorted(ROOT.glob(pattern)):
        found += [match] if match.is_file() else sorted(match.rglob("*.py"))
    return found


def _pure_files() -> list[Path]:
    return [
        path
        for pkg in PURE_PACKAGES
        for path in _modules(pkg)
        if not any(path.is_relative_to(ROOT / inside) for inside in IMPURE_INSIDE)
    ]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _forbidden(name: str) -> bool:
    return any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_MODULES)


def test_engine_modules_import_nothing_impure() -> None:
    files = _pure_files()
    assert len(files) > 10
    assert ROOT / "families/g18xx/engine/game.py" in files
    assert ROOT / "families/g18xx/ai.py" in files
    assert ROOT / "families/continental_rails/ai/planner.py" in files
    assert not [p for p in files if "report" in p.parts]
    offenders = {
        str(path.relative_to(ROOT)): bad
        for path in files
        if (bad := [name for name in _imports(path) if _forbidden(name)])
    }
    assert offenders == {}


def test_engine_uses_no_global_random() -> None:
    """`random` may only be used through seeded `random.Random` streams."""
    offenders = []
    for path in _pure_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr != "Random"
            ):
                offenders.append(f"{path.name}:{node.lineno} random.{node.attr}")
    assert offenders == []


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sqlalchemy\nfrom turnproc.store import models\n")
    assert [name for name in _imports(bad) if _forbidden(name)] == [
        "sqlalchemy",
        "turnproc.store",
        "turnproc.store.models",
    ]


def test_every_family_has_an_engine_folder() -> None:
    """Each family keeps its pure rules in engine/, which the tests above check."""
    families = [p for p in (ROOT / "families").iterdir() if (p / "__init__.py").is_file()]
    assert "continental_rails" in {p.name for p in families}
    assert [p.name for p in families if not (p / "engine").is_dir()] == []
