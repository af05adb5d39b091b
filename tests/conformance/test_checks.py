"""The checks as plain functions over evidence: rules a live test provider cannot easily break,
and random JSON (hypothesis) that must give verdicts, never tracebacks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_host.conformance import RULES, Evidence, run_checks
from native_host.conformance import checks as c
from native_host.conformance import tree_checks as t
from native_host.conformance.evidence import STATUSES, Call, Era, Listener, Outcome

DESCRIPTOR: dict[str, Any] = {
    "protocol": "0.2.0",
    "bundleId": "org.example.App",
    "name": "App",
    "version": "1",
    "pid": 4242,
    "instance": "i1",
    "endpoint": "http://127.0.0.1:5000/x",
    "token": "t",
}


@pytest.mark.rule("descriptor.fields")
@pytest.mark.parametrize(
    "change",
    [{"token": None}, {"pid": "4242"}, {"pid": True}, {"name": ""}, {"listenerPid": -1}],
    ids=["no_token", "pid_as_string", "pid_as_bool", "empty_name", "negative_listener_pid"],
)
def test_a_descriptor_field_missing_or_mistyped_fails(change: dict[str, Any]) -> None:
    descriptor = {k: v for k, v in {**DESCRIPTOR, **change}.items() if v is not None}
    assert c.descriptor_fields(Evidence(descriptor=descriptor)).status == "fail"
    assert c.descriptor_fields(Evidence(descriptor=DESCRIPTOR)).status == "pass"


@pytest.mark.rule("descriptor.fields")
def test_an_unreadable_or_non_object_descriptor_fails() -> None:
    assert c.descriptor_fields(Evidence(descriptor_error="not valid UTF-8 JSON")).status == "fail"
    assert c.descriptor_fields(Evidence(descriptor=[1, 2])).status == "fail"


@pytest.mark.rule("descriptor.listener_loopback")
def test_a_port_bound_on_every_address_fails() -> None:
    wide = Evidence(listeners=[Listener("0.0.0.0", 1, True)])
    assert c.descriptor_listener_loopback(wide).status == "fail"
    assert c.descriptor_listener_loopback(Evidence(listeners=[])).status == "fail"
    assert (
        c.descriptor_listener_loopback(Evidence(listeners=[Listener("127.0.0.1", 1, True)])).status == "pass"
    )


@pytest.mark.rule("descriptor.bundle_id")
def test_a_bundle_id_the_process_does_not_have_fails_and_an_unknown_app_is_skipped() -> None:
    assert (
        c.descriptor_bundle_id(Evidence(descriptor=DESCRIPTOR, expected_bundle_id="com.other")).status
        == "fail"
    )
    assert c.descriptor_bundle_id(
        Evidence(descriptor=DESCRIPTOR, expected_bundle_id="org.example.App")
    ).status == ("pass")
    assert c.descriptor_bundle_id(Evidence(descriptor=DESCRIPTOR)).status == "skip"


@pytest.mark.rule("mcp.era_2026")
@pytest.mark.rule("mcp.era_2025")
def test_discover_landing_on_the_handshake_era_fails_the_stateless_era_rule() -> None:
    ev = Evidence(
        eras=[Era("auto", protocol_version="2025-11-25"), Era("legacy", error="connection refused")]
    )
    assert c.mcp_era_2026(ev).status == "fail"
    assert c.mcp_era_2025(ev).status == "fail"


@pytest.mark.rule("ids.stable")
def test_a_changed_context_skips_the_stability_rule() -> None:
    def answer(title: str, id_: str) -> Call:
        root = {
            "id": "app",
            "role": "Application",
            "children": [{"id": id_, "role": "Window", "title": title}],
        }
        return Call("current", "2026-07-28", structured={"protocol": "0.2.0", "instance": "i1", "root": root})

    assert t.ids_stable(Evidence(currents=[answer("a", "w1"), answer("b", "w2")])).status == "skip"
    assert t.ids_stable(Evidence(currents=[answer("a", "w1"), answer("a", "w2")])).status == "fail"
    assert t.ids_stable(Evidence(currents=[answer("a", "w1"), answer("a", "w1")])).status == "pass"


# ---------------------------------------------------------------------------------------------
# Random JSON

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
"""Any JSON value, NaN and infinities included (`json.loads` accepts them)."""

KEYS = st.sampled_from(
    [
        "id",
        "role",
        "children",
        "focused",
        "hovered",
        "visible",
        "selected",
        "content",
        "attributes",
        "title",
        "url",
        "subrole",
        "protocol",
        "instance",
        "root",
        "state",
        "rects",
        "w",
        "h",
        "x",
        "y",
    ]
)
ROLE_OR_ID = st.sampled_from(["app", "Application", "Window", "Text", "a b", "x", "Group", ""])
TREE = st.recursive(
    JSON | ROLE_OR_ID,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=30,
)
"""JSON shaped like elements often enough to reach deep into the tree checks."""


@st.composite
def evidence(draw: st.DrawFn) -> Evidence:
    def call(tool: str, probe: str = "") -> Call:
        return Call(
            tool,
            draw(st.sampled_from(["2026-07-28", "2025-11-25"])),
            arguments={"id": draw(JSON)},
            elapsed_ms=draw(st.floats(min_value=0, max_value=1e4)),
            structured=draw(TREE | st.fixed_dictionaries({"protocol": JSON, "instance": JSON, "root": TREE})),
            content=draw(JSON),
            is_error=draw(st.booleans()),
            error=draw(st.none() | st.text(max_size=8)),
            probe=probe,
        )

    return Evidence(
        descriptor=draw(JSON | st.just(DESCRIPTOR)),
        file_mode=draw(st.none() | st.integers(0, 0o7777)),
        folder_mode=draw(st.none() | st.integers(0, 0o7777)),
        process_running=draw(st.none() | st.booleans()),
        expected_bundle_id=draw(st.none() | st.text(max_size=5)),
        listeners=draw(
            st.none() | st.lists(st.builds(Listener, st.text(max_size=9), st.integers(), st.booleans()))
        ),
        probes=draw(
            st.dictionaries(st.sampled_from(["origin", "no_token", "bad_host"]), st.integers() | st.text())
        ),
        eras=[
            Era(
                mode,
                protocol_version=draw(JSON),
                capabilities=draw(TREE),
                tools=draw(JSON | st.just(["location"])),
                error=draw(st.none() | st.text(max_size=5)),
            )
            for mode in draw(st.lists(st.sampled_from(["auto", "legacy"]), max_size=2))
        ],
        currents=[call("current") for _ in range(draw(st.integers(0, 3)))],
        locations=[
            call("location", draw(st.sampled_from(["issued", "unknown", "malformed", "foreign"])))
            for _ in range(draw(st.integers(0, 3)))
        ],
    )


@pytest.mark.rule("current.elements")
@settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(evidence())
def test_random_json_gives_verdicts_not_tracebacks(ev: Evidence) -> None:
    for rule in RULES:
        outcome = rule.check(ev)  # no safety net: a check itself must not raise
        assert isinstance(outcome, Outcome) and outcome.status in STATUSES, rule.id
        assert isinstance(outcome.message, str)
    assert all("could not judge" not in r.message for r in run_checks(ev))


@pytest.mark.rule("descriptor.protocol_supported")
@pytest.mark.parametrize(
    ("protocol", "status"),
    [("0.2.0", "pass"), ("0.2.9", "pass"), ("0.3.0", "warn"), ("1.2.0", "warn"), ("0.2", "skip")],
)
def test_a_protocol_other_than_0_2_is_a_warning(protocol: str, status: str) -> None:
    ev = Evidence(descriptor={**DESCRIPTOR, "protocol": protocol})
    assert c.descriptor_protocol_supported(ev).status == status


@pytest.mark.rule("current.id_format")
@pytest.mark.parametrize("bad_id", ["sel-1\n", "", "x" * 129, "tab/1", "é"])
def test_ids_outside_the_pattern_fail_even_with_a_trailing_newline(bad_id: str) -> None:
    root = {"id": "app", "role": "Application", "children": [{"id": bad_id, "role": "Text"}]}
    ev = Evidence(currents=[Call("current", "2026-07-28", structured={"root": root})])
    assert t.current_id_format(ev).status == "fail"
    root["children"][0]["id"] = "x" * 128  # type: ignore[index]
    assert t.current_id_format(ev).status == "pass"


@pytest.mark.rule("location.shape")
def test_a_location_state_that_is_a_list_is_a_failure_not_a_traceback() -> None:
    """Hypothesis found `{"state": []}` raising TypeError (unhashable) in the state check."""
    from native_host.conformance.location_checks import _location_problem

    assert _location_problem({"state": [], "rects": []}) == "state [] is not visible, offscreen or gone"
