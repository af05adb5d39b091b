"""tests/conformance: every test names the rule(s) it checks with `@pytest.mark.rule("<id>")`
(STYLE.md, Tests), and every named rule exists in `native_host/conformance/rules.py`.
`rule("*")` means every rule (the conforming provider). test_rules.py tests the table itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.conformance import RULES_BY_ID

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse a test here without a rule mark, or with one naming no rule."""
    for item in items:
        path = Path(str(item.fspath)).resolve()
        if path.parent != HERE or path.name == "test_rules.py":
            continue
        named = [str(mark.args[0]) for mark in item.iter_markers("rule") if mark.args]
        if not named:
            raise pytest.UsageError(f"{item.nodeid} has no @pytest.mark.rule(...)")
        unknown = [rule for rule in named if rule != "*" and rule not in RULES_BY_ID]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown rule(s) {unknown}")
