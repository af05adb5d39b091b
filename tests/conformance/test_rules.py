"""The rule table (native_host/conformance/rules.py): ids, sources, docs and tests stay in step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from native_host.conformance import RULES, RULES_BY_ID, Rule

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "conformance.md"
TEST_FILES = [
    *sorted((ROOT / "tests" / "conformance").glob("test_*.py")),
    ROOT / "tests" / "e2e" / "test_conformance.py",
]
RULE_MARK = re.compile(r"""rule\(\s*["']([a-z_]+\.[a-z0-9_]+)["']\s*\)""")
CASE_RULES = re.compile(
    r"""_case\(\s*["'][^"']+["'],.*?\),((?:\s*["'][a-z_]+\.[a-z0-9_]+["'],?)+)\s*\)""", re.S
)


def _rules_named_in_tests() -> set[str]:
    named: set[str] = set()
    for path in TEST_FILES:
        text = path.read_text()
        named |= set(RULE_MARK.findall(text))
        for group in CASE_RULES.findall(text):
            named |= set(re.findall(r"""["']([a-z_]+\.[a-z0-9_]+)["']""", group))
    return named


def test_rule_ids_are_unique_and_dotted() -> None:
    assert len(RULES_BY_ID) == len(RULES)
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+\.[a-z0-9_]+", rule.id), rule.id
        assert rule.source and rule.means.endswith("."), rule.id


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_every_rule_is_documented_with_its_source_and_its_check_names_its_source(rule: Rule) -> None:
    row = f"| `{rule.id}` | {rule.source} |"
    assert row in DOCS.read_text(), f"docs/conformance.md has no row {row!r}"
    doc = rule.check.__doc__ or ""
    assert "Concepts" in doc or "design.md" in doc, f"{rule.id}: the check's docstring names no source"


def test_every_rule_has_a_test_and_every_rule_a_test_names_exists() -> None:
    named = _rules_named_in_tests()
    assert set(RULES_BY_ID) - named == set(), "rules without a test"
    assert named - set(RULES_BY_ID) == set(), "tests name rules that do not exist"
