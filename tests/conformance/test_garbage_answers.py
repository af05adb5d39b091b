"""Garbage over the wire: whatever a provider answers, the kit reports fails, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from native_host.conformance import check_provider
from tests.conformance.provider import Flaws, serve

GARBAGE: list[Any] = [
    "a string root",
    [1, 2, {"id": "x"}],
    None,
    {"id": 5, "role": ["Application"], "children": {"not": "a list"}},
    {"id": "app", "role": "Application", "children": [None, 3, "x", [], {"children": [{"focused": "yes"}]}]},
    {"id": "app", "role": "Application", "content": [{"type": "image"}, "text", None], "hovered": 1},
    {"id": "app", "role": "Application", "children": [{"id": "w", "role": "Window", "visible": "no"}]},
]


@pytest.mark.rule("current.elements")
@pytest.mark.rule("current.single_application")
async def test_garbage_trees_are_fails_not_tracebacks(tmp_path: Path) -> None:
    flaws = Flaws()
    async with serve(tmp_path / "providers", flaws) as provider:
        for garbage in GARBAGE:
            flaws.answer = lambda answer, garbage=garbage: answer.update(root=garbage)
            report = await check_provider(provider.descriptor_path, timeout_s=5.0)
            assert "current.elements" in report.failed_rules() or "current.single_application" in (
                report.failed_rules()
            ), garbage
            assert all("could not judge" not in r.message for r in report.results), garbage
            assert report.result("current.answers").status == "pass"


@pytest.mark.rule("current.fields")
async def test_an_empty_answer_fails_current_fields(tmp_path: Path) -> None:
    flaws = Flaws(answer=lambda answer: answer.clear())
    async with serve(tmp_path / "providers", flaws) as provider:
        report = await check_provider(provider.descriptor_path, timeout_s=5.0)
    assert report.result("current.fields").status == "fail"
