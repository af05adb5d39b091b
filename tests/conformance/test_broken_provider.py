"""The kit against a provider that breaks one rule at a time: exactly the matching check fails.

The provider (tests/conformance/provider.py) is a real MCP server on 127.0.0.1 in this process,
built with the SDK; its descriptor names this process. Each case turns on one flaw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from native_host.conformance import Report, check_provider
from tests.conformance.provider import Flaws, serve
from tests.support.processes import reaped_pid, sleeper

TIMING = "timing.budget"
"""Latency depends on the machine; the kit reports it as a warning, never a fail."""


def _doc1(root: dict[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = root["children"][0]["children"][0]
    return doc


def _child(root: dict[str, Any], id_: str) -> dict[str, Any]:
    stack = [root]
    while stack:
        element = stack.pop()
        if element.get("id") == id_:
            return element
        stack.extend(element.get("children") or [])
    raise KeyError(id_)


def _set(id_: str, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(root: dict[str, Any]) -> None:
        _child(root, id_).update(fields)

    return mutate


def _focus_gap(root: dict[str, Any]) -> None:
    del _doc1(root)["focused"]


async def run_kit(folder: Path, flaws: Flaws, *, budget_ms: float = 250.0) -> Report:
    async with serve(folder, flaws) as provider:
        return await check_provider(provider.descriptor_path, timeout_s=5.0, budget_ms=budget_ms)


def _case(name: str, flaws: Flaws, *failing: str) -> Any:
    return pytest.param(flaws, set(failing), id=name, marks=[pytest.mark.rule(r) for r in failing])


CASES = [
    _case("origin_accepted", Flaws(accept_origin=True), "security.origin_403"),
    _case("token_optional", Flaws(token_optional=True), "security.bearer_401"),
    _case("host_unchecked", Flaws(skip_host_check=True), "security.host_refused"),
    _case("focus_path_with_a_gap", Flaws(tree=_focus_gap), "current.focus_path"),
    _case("focus_path_branches", Flaws(tree=_set("doc-2", focused=True)), "current.focus_path"),
    _case("root_focused", Flaws(tree=lambda root: root.update(focused=True)), "current.focus_path"),
    _case("duplicate_ids", Flaws(tree=_set("link-1", id="sel-1")), "current.ids_unique"),
    _case("two_hovered", Flaws(tree=_set("sel-1", hovered=True)), "current.hovered"),
    _case("hovered_on_an_ancestor", Flaws(tree=_set("doc-1", hovered=True)), "current.hovered"),
    _case("instance_mismatch", Flaws(answer_instance="another-instance"), "current.instance"),
    _case("wrong_protocol", Flaws(answer_protocol="0.3.0"), "current.protocol"),
    _case("folder_0755", Flaws(folder_mode=0o755), "descriptor.folder_0700"),
    _case("descriptor_0644", Flaws(file_mode=0o644), "descriptor.mode_0600"),
    _case("protocol_not_x_y_z", Flaws(protocol="0.2"), "descriptor.protocol_format"),
    _case("endpoint_not_loopback", Flaws(publish_host="localhost"), "descriptor.endpoint_loopback"),
    _case(
        "endpoint_path_not_served",
        Flaws(publish_path="/mcp"),
        "descriptor.endpoint_as_given",
        "mcp.era_2025",
        "mcp.era_2026",
    ),
    _case("no_extension_declaration", Flaws(declare_protocol=""), "mcp.extension_declared"),
    _case("declaration_of_another_protocol", Flaws(declare_protocol="0.1.0"), "mcp.extension_declared"),
    _case("current_not_listed", Flaws(list_current=False), "mcp.current_listed"),
    _case("current_is_an_error", Flaws(current_is_error=True), "current.answers"),
    _case("a_fourth_field", Flaws(answer=lambda a: a.update(focus=["doc-1"])), "current.fields"),
    _case(
        "a_second_application", Flaws(tree=_set("doc-2", role="Application")), "current.single_application"
    ),
    _case(
        "root_not_an_application",
        Flaws(tree=lambda root: root.update(role="Window")),
        "current.single_application",
    ),
    _case("id_with_a_space", Flaws(tree=_set("para-1", id="para 1")), "current.id_format"),
    _case("state_not_a_boolean", Flaws(tree=_set("sel-1", selected="yes")), "current.elements"),
    _case("children_not_a_list", Flaws(tree=_set("para-1", children="none")), "current.elements"),
    _case("content_not_mcp", Flaws(tree=_set("sel-1", content=[{"type": "text"}])), "current.content"),
    _case("visible_inside_hidden", Flaws(tree=_set("para-1", visible=True)), "current.visible"),
    _case("ids_change_every_call", Flaws(fresh_ids_each_call=True), "ids.stable"),
    _case(
        "location_negative_size",
        Flaws(location_answer={"state": "visible", "rects": [{"x": 0, "y": 0, "w": -4, "h": 10}]}),
        "location.rects",
    ),
    _case("location_bad_state", Flaws(location_answer={"state": "hidden", "rects": []}), "location.shape"),
    _case(
        "location_rects_for_gone",
        Flaws(location_answer={"state": "gone", "rects": [{"x": 0, "y": 0, "w": 4, "h": 4}]}),
        "location.shape",
    ),
    _case(
        "location_of_never_issued_ids",
        Flaws(locate_never_issued=True),
        "location.unknown_id",
        "location.foreign_id",
    ),
    _case("location_of_malformed_ids", Flaws(locate_malformed=True), "location.malformed_id"),
]


@pytest.mark.rule("*")
async def test_a_conforming_provider_passes_every_rule(tmp_path: Path) -> None:
    report = await run_kit(tmp_path / "providers", Flaws())
    assert report.failed_rules(strict=True) - {TIMING} == set(), report.results
    assert report.result("descriptor.bundle_id").status == "skip"  # a test process has no bundle id
    assert all(r.status == "pass" for r in report.results if r.rule.startswith("location."))


@pytest.mark.parametrize(("flaws", "failing"), CASES)
async def test_one_broken_rule_fails_exactly_its_check(
    tmp_path: Path, flaws: Flaws, failing: set[str]
) -> None:
    report = await run_kit(tmp_path / "providers", flaws)
    assert report.failed_rules() == failing, [r for r in report.results if r.status == "fail"]
    assert not report.ok()


@pytest.mark.rule("current.roles")
async def test_an_unknown_role_is_a_warning_that_fails_only_under_strict(tmp_path: Path) -> None:
    report = await run_kit(tmp_path / "providers", Flaws(tree=_set("para-1", role="Paragraph")))
    assert report.failed_rules() == set()
    assert report.failed_rules(strict=True) - {TIMING} == {"current.roles"}
    assert "Paragraph" in report.result("current.roles").message


@pytest.mark.rule("current.default_states")
async def test_a_state_written_with_its_default_is_a_warning(tmp_path: Path) -> None:
    tree = _set("sel-1", focused=False)
    report = await run_kit(tmp_path / "providers", Flaws(tree=tree))
    assert report.failed_rules() == set()
    assert report.failed_rules(strict=True) - {TIMING} == {"current.default_states"}
    assert "sel-1.focused=false" in report.result("current.default_states").message


@pytest.mark.rule("location.shape")
@pytest.mark.rule("location.unknown_id")
async def test_location_not_offered_is_skipped_not_failed(tmp_path: Path) -> None:
    report = await run_kit(tmp_path / "providers", Flaws(offer_location=False))
    assert report.failed_rules(strict=True) - {TIMING} == set()
    for rule in (
        "location.shape",
        "location.rects",
        "location.unknown_id",
        "location.malformed_id",
        "location.foreign_id",
    ):
        assert report.result(rule).status == "skip"
        assert report.result(rule).message == "not offered"


@pytest.mark.rule("timing.budget")
async def test_calls_over_the_budget_are_reported_as_a_warning(tmp_path: Path) -> None:
    report = await run_kit(tmp_path / "providers", Flaws(), budget_ms=0.001)
    result = report.result("timing.budget")
    assert result.status == "warn"
    assert "over budget" in result.message and "budget 0 ms" in result.message


@pytest.fixture
def other_process() -> Any:
    """A live process that is not this one (so it does not hold the provider's port)."""
    with sleeper() as proc:
        yield proc


@pytest.mark.rule("descriptor.listener_process")
async def test_a_listener_that_is_not_the_named_process_fails(tmp_path: Path, other_process: Any) -> None:
    flaws = Flaws(descriptor={"pid": other_process.pid})
    report = await run_kit(tmp_path / "providers", flaws)
    assert report.failed_rules() == {"descriptor.listener_process"}


@pytest.mark.rule("descriptor.pid_alive")
async def test_a_descriptor_naming_a_gone_process_fails(tmp_path: Path) -> None:
    report = await run_kit(tmp_path / "providers", Flaws(descriptor={"pid": reaped_pid()}))
    assert report.failed_rules() == {"descriptor.pid_alive", "descriptor.listener_process"}
