"""Property tests are deterministic and untimed (the brief: no Hypothesis
deadlines, fixed seeds), whatever the load of the machine running them."""

import ast
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).parent


def test_the_loaded_profile_is_deterministic_and_has_no_deadline() -> None:
    assert settings.default.deadline is None
    assert settings.default.derandomize is True
    assert settings.default.database is None


def _settings_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "settings":
                calls.append((path.name, node))
    return calls


def test_no_property_test_sets_a_deadline_or_a_random_seed() -> None:
    calls = _settings_calls()
    assert calls, "the scan found no @settings at all: it is looking in the wrong place"
    for name, call in calls:
        for keyword in call.keywords:
            if keyword.arg == "deadline":
                assert isinstance(keyword.value, ast.Constant) and keyword.value.value is None, (
                    f"{name}:{call.lineno} sets a deadline"
                )
            assert keyword.arg not in {"derandomize", "database"}, (
                f"{name}:{call.lineno} overrides {keyword.arg}"
            )
