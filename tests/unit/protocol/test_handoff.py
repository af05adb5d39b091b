"""protocol/handoff.py: the hand-off messages, their bytes and their parsing (design.md §3)."""

from __future__ import annotations

from typing import Any

import pytest

from native_host.protocol.handoff import (
    MAX_ASKED_DEADLINE_MS,
    PROVIDER_REQUEST_ADAPTER,
    FollowerHello,
    FollowerToolsChanged,
    FollowerTree,
    HandoffCurrent,
    HandoffError,
    HandoffLocation,
    HandoffResult,
    HandoffToolsCall,
    HandoffToolsCancel,
    encode,
    parse_follower_message,
    parse_provider_request,
    wait_ms,
)
from native_host.protocol.native import ErrorBody

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
    ("request_dict", "wire"),
    [
        # the provider built `{**body, "type", "id"}` then set `deadlineMs`: those bytes, unchanged
        (
            {"type": "current", "id": "p-4", "deadlineMs": 2800},
            b'{"type":"current","id":"p-4","deadlineMs":2800}',
        ),
        (
            {"elementId": "sel-1", "type": "location", "id": "p-1", "deadlineMs": 3000},
            b'{"elementId":"sel-1","type":"location","id":"p-1","deadlineMs":3000}',
        ),
        (
            {"pageId": "tab-7", "name": "add", "input": {"a": 1}, "deadlineMs": 60000, "type": "tools.call",
             "id": "p-2"},
            b'{"pageId":"tab-7","name":"add","input":{"a":1},"deadlineMs":60000,"type":"tools.call","id":"p-2"}',
        ),
        (
            {"callId": "p-2", "type": "tools.cancel", "id": "p-3", "deadlineMs": 2000},
            b'{"callId":"p-2","type":"tools.cancel","id":"p-3","deadlineMs":2000}',
        ),
    ],
)
def test_provider_requests_keep_their_bytes_and_parse_back(request_dict: dict[str, Any], wire: bytes) -> None:
    message = PROVIDER_REQUEST_ADAPTER.validate_python(request_dict)
    assert encode(message) == wire
    assert parse_provider_request(wire) == message


def test_each_side_parses_only_what_the_other_sends() -> None:
    for wire, model in (
        (b'{"type":"current","id":"p-1"}', HandoffCurrent),
        (b'{"type":"location","id":"p-1","elementId":"e"}', HandoffLocation),
        (b'{"type":"tools.call","id":"p-1","pageId":"tab-1","name":"n","input":{}}', HandoffToolsCall),
        (b'{"type":"tools.cancel","id":"p-1","callId":"p-0"}', HandoffToolsCancel),
    ):
        assert isinstance(parse_provider_request(wire), model)
    hello = b'{"type":"follower.hello","instance":"B"}'
    for wrong in (hello, b'{"type":"nope","id":"p-1"}', b"[]", b"{", b"\xff"):
        with pytest.raises(ValueError):
            parse_provider_request(wrong)
    for wrong in (b'{"type":"current","id":"p-1"}', b'{"type":"result"}', b'{"type":"tree"}'):
        with pytest.raises(ValueError):
            parse_follower_message(wrong)


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
