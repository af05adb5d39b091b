"""open_session and check_answer (native_host/host/session.py, design.md §7): MCP over Streamable HTTP
with the bearer token and no Origin, the answer held to its descriptor, and the time limits.

The provider is a real MCP server on 127.0.0.1 (tests/support/fake_provider.py), or the real
provider endpoint (provider/http/endpoint.py) for the wording of a wrong token.
"""

from __future__ import annotations

import json
import os
import socket

import pytest

from native_host import host as host_client
from native_host.errors import ProviderRejected, ProviderUnavailable
from native_host.host import IdBook, check_answer, open_session
from native_host.provider.http.endpoint import McpEndpoint
from tests.support.fake_provider import BUNDLE, TOKEN, FakeProvider, fake_provider
from tests.support.requester import FakeRequester


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_current_over_both_mcp_eras_with_the_token_and_no_origin(mode: host_client.ConnectMode) -> None:
    async with fake_provider() as p:
        book = IdBook()
        async with open_session(p.descriptor(), mode=mode, id_book=book) as session:
            assert session.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            result = await session.current()
            tools = await session.list_tools()
            echoed = await session.call_tool("echo", {"a": 1})
    assert result.answer.root.id == "app"
    assert result.raw == p.answer()
    assert {t.name for t in tools} == {"current", "echo"}
    assert json.loads(echoed.content[0].text) == {"a": 1}  # type: ignore[union-attr]
    assert p.seen_headers and all("origin" not in h for h in p.seen_headers)
    assert all(h["authorization"] == f"Bearer {TOKEN}" for h in p.seen_headers)
    assert book.is_known("sel-1") and book.owner_of("sel-1") == host_client.IdOwner(
        os.getpid(), "inst-A", BUNDLE
    )


@pytest.mark.parametrize(
    ("field_name", "value", "reason"),
    [
        ("answer_instance", "inst-OTHER", "instance_mismatch"),
        ("answer_protocol", "0.2.1", "protocol_mismatch"),
    ],
)
async def test_an_answer_that_differs_from_the_descriptor_is_dropped(
    field_name: str, value: str, reason: str
) -> None:
    async with fake_provider() as p:
        setattr(p, field_name, value)
        book = IdBook()
        with pytest.raises(ProviderRejected) as info:
            async with open_session(p.descriptor(), id_book=book) as session:
                await session.current()
    assert info.value.reason == reason
    assert len(book) == 0


def test_an_answer_that_is_not_a_tree_is_dropped() -> None:
    d = FakeProvider(port=1, path="/").descriptor()
    with pytest.raises(ProviderRejected) as info:
        check_answer(d, {"protocol": "0.2.0", "instance": "inst-A", "root": {"role": "Application"}})
    assert info.value.reason == "invalid_answer"


async def test_a_slow_provider_runs_into_the_time_limit() -> None:
    async with fake_provider() as p:
        p.delay_s = 3
        with pytest.raises(ProviderUnavailable, match=r"within 0\.5 s"):
            async with open_session(p.descriptor(), timeout_s=0.5) as session:
                await session.current()


async def test_a_provider_that_never_answers_the_handshake_runs_into_the_time_limit() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        d = FakeProvider(port=s.getsockname()[1], path="/mcp/x").descriptor()
        with pytest.raises(ProviderUnavailable, match=r"within 0\.5 s"):
            async with open_session(d, timeout_s=0.5):
                pass


async def test_a_refused_connection_is_unavailable_with_a_sentence() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = FakeProvider(port=port, path="/mcp/x").descriptor()
    with pytest.raises(ProviderUnavailable, match="Could not talk to Test Host"):
        async with open_session(d, timeout_s=2):
            pass


async def test_a_wrong_token_is_one_sentence_with_one_final_period() -> None:
    extension = FakeRequester(default={"root": {"id": "app", "role": "Application"}})
    endpoint = McpEndpoint(extension, instance="probe")
    await endpoint.start()
    try:
        fake = FakeProvider(port=endpoint.port, path="/")
        descriptor = fake.descriptor(endpoint=endpoint.url, token="wrong")
        with pytest.raises(ProviderUnavailable) as caught:
            async with open_session(descriptor) as session:
                await session.current()
    finally:
        await endpoint.stop()
    message = str(caught.value)
    assert "Unauthorized (wrong token)" in message and message.endswith("descriptor.")
    assert ".." not in message
