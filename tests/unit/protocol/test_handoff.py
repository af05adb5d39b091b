"""protocol/handoff.py: the hand-off messages, their bytes and their parsing (design.md §3)."""

from __future__ import annotations

from typing import Any

import pytest

from native_host.protocol.handoff import (
    MAX_ASKED_DEADLINE_MS,
    FollowerHello,
    FollowerToolsChanged,
    FollowerTree,
    HandoffError,
    HandoffRequest,
    HandoffResult,
    encode,
    parse_follower_message,
    parse_provider_request,
    wait_ms,
)
from native_host.protocol.native import (
    CurrentRequest,
    ErrorBody,
    LocationRequest,
    PageReadRequest,
    ToolCallRequest,
    ToolCancelRequest,
)

ROOT: dict[str, Any] = {"id": "app", "role": "Application", "children": [{"id": "win-1", "role": "Window"}]}


@pytest.mark.parametrize(
    ("message", "wire"),
    [
        # the bytes the follower sent before the hand-off had models (follower_link.py's dicts)
        (FollowerHello(instance="B"), b'{"type":"follower.hello","instance":"B"}'),
        (
            FollowerToolsChanged(tools=[{"name": "p7_add", "pageId": "tab-7"}]),
            b'{"type":"tools.changed","tools":[{"name":"p7_add","pageId":"tab-7"}]}',
        ),
        (FollowerTree(complete=False), b'{"type":"tree","complete":false}'),
        (
            FollowerTree(complete=True, root=ROOT, window_focused=False),
            b'{"type":"tree","complete":true,"root":{"id":"app","role":"Application","children":'
            b'[{"id":"win-1","role":"Window"}]},"windowFocused":false}',
        ),
        (
            HandoffResult(id="p-1", result={"cancelled": False}),
            b'{"type":"result","id":"p-1","result":{"cancelled":false}}',
        ),
        (HandoffResult(id="p-1", result=None), b'{"type":"result","id":"p-1","result":null}'),
        (HandoffResult(id="p-1", result="é☃"), '{"type":"result","id":"p-1","result":"é☃"}'.encode()),
        (
            HandoffError(id="p-1", error=ErrorBody(code="page_gone", message="Tab closed.")),
            b'{"type":"error","id":"p-1","error":{"code":"page_gone","message":"Tab closed."}}',
        ),
    ],
)
def test_follower_messages_keep_their_bytes_and_parse_back(message: Any, wire: bytes) -> None:
    assert encode(message) == wire
    assert parse_follower_message(wire) == message


@pytest.mark.parametrize(
    ("envelope", "wire"),
    [
        # one envelope for every forwarded request: the request's fields, then `id` and `deadlineMs`
        (HandoffRequest("p-4", CurrentRequest(), 2800), b'{"type":"current","id":"p-4","deadlineMs":2800}'),
        (
            HandoffRequest("p-1", LocationRequest(element_id="sel-1"), 3000),
            b'{"type":"location","elementId":"sel-1","id":"p-1","deadlineMs":3000}',
        ),
        (
            HandoffRequest("p-2", ToolCallRequest(page_id="tab-7", name="add", input={"a": 1}), 60000),
            b'{"type":"tools.call","pageId":"tab-7","name":"add","input":{"a":1},"id":"p-2","deadlineMs":60000}',
        ),
        (
            HandoffRequest("p-3", ToolCancelRequest(call_id="p-2"), 2000),
            b'{"type":"tools.cancel","callId":"p-2","id":"p-3","deadlineMs":2000}',
        ),
        (
            HandoffRequest("p-5", PageReadRequest(page_id="tab-7", kind="text", max_bytes=4096)),
            b'{"type":"page.read","pageId":"tab-7","kind":"text","maxBytes":4096,"id":"p-5"}',
        ),
    ],
)
def test_forwarded_requests_have_one_envelope_and_parse_back(envelope: HandoffRequest, wire: bytes) -> None:
    assert encode(envelope) == wire
    assert parse_provider_request(wire) == envelope


def test_a_request_in_the_field_order_of_an_older_provider_parses_the_same() -> None:
    """Older providers sent the request's own fields first, then `type`, `id` and `deadlineMs`."""
    older = (b'{"pageId":"tab-7","name":"add","input":{"a":1},"deadlineMs":60000,'
             b'"type":"tools.call","id":"p-2"}')
    assert parse_provider_request(older) == HandoffRequest(
        "p-2", ToolCallRequest(page_id="tab-7", name="add", input={"a": 1}), 60000
    )


def test_each_side_parses_only_what_the_other_sends() -> None:
    for wire, model in (
        (b'{"type":"current","id":"p-1"}', CurrentRequest),
        (b'{"type":"location","id":"p-1","elementId":"e"}', LocationRequest),
        (b'{"type":"tools.call","id":"p-1","pageId":"tab-1","name":"n","input":{}}', ToolCallRequest),
        (b'{"type":"tools.cancel","id":"p-1","callId":"p-0"}', ToolCancelRequest),
    ):
        assert isinstance(parse_provider_request(wire).request, model)
    hello = b'{"type":"follower.hello","instance":"B"}'
    for wrong in (
        hello, b'{"type":"nope","id":"p-1"}', b'{"type":"ping","id":"p-1"}', b'{"type":"current"}',
        b'{"type":"current","id":7}', b'{"type":"current","id":"p-1","deadlineMs":"soon"}',
        b'{"type":"current","id":"p-1","deadlineMs":true}', b"[]", b"{", b"\xff",
    ):
        with pytest.raises(ValueError):
            parse_provider_request(wrong)
    for wrong in (b'{"type":"current","id":"p-1"}', b'{"type":"result"}', b'{"type":"tree"}'):
        with pytest.raises(ValueError):
            parse_follower_message(wrong)


def test_unknown_fields_of_a_newer_provider_are_ignored() -> None:
    envelope = parse_provider_request(b'{"type":"location","elementId":"e","later":1,"id":"p-1"}')
    assert envelope == HandoffRequest("p-1", LocationRequest(element_id="e"))


def test_unknown_fields_of_a_newer_peer_are_kept() -> None:
    hello = parse_follower_message(b'{"type":"follower.hello","instance":"B","later":1}')
    assert isinstance(hello, FollowerHello) and hello.instance == "B"
    assert encode(hello) == b'{"type":"follower.hello","instance":"B","later":1}'


def test_encoding_does_not_copy_the_tree_it_sends() -> None:
    tree = FollowerTree(complete=True, root=ROOT)
    assert tree.to_wire()["root"] is tree.root


def test_a_follower_waits_the_providers_deadline_only_when_it_is_in_range() -> None:
    assert wait_ms(2800, 3000) == 2800
    assert wait_ms(MAX_ASKED_DEADLINE_MS, 3000) == MAX_ASKED_DEADLINE_MS
    for asked in (None, 0, -5, MAX_ASKED_DEADLINE_MS + 1):
        assert wait_ms(asked, 3000) == 3000
