"""The reference desktop host (native_host/host/, SPEC §7) against real processes and ports.

Each descriptor check is exercised with something real where that is cheap: this test process
listens on a real loopback port (a tiny MCP server built with the SDK answers `current`), a child
`sleep` stands in for "another process", a reaped child for "a process that is gone".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcp import types
from mcp.server import Server

from native_host import host as host_client
from native_host.errors import ProviderRejected, ProviderUnavailable
from native_host.host import (
    HostClient,
    IdBook,
    ProviderInfo,
    check_answer,
    check_descriptor,
    choose_provider,
    discover,
    open_session,
)
from native_host.protocol.answers import CurrentAnswer
from native_host.protocol.descriptor import Descriptor
from native_host.provider.endpoint import McpEndpoint
from tests.support.asgi import loopback_socket, serving_asgi
from tests.support.processes import reaped_pid, sleeper
from tests.support.requester import FakeRequester

TOKEN = "test-token-not-secret"
BUNDLE = "org.example.TestHost"


def same_bundle(_process: psutil.Process) -> str:
    """Bundle lookup for descriptors naming this Python process: always agrees with BUNDLE."""
    return BUNDLE


@pytest.fixture(autouse=True)
def providers_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private providers folder, created 0700 (tests/conftest.py names it but does not create it)."""
    folder = tmp_path / "providers"
    folder.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("CONTEXT_PROVIDERS_DIR", str(folder))
    return folder


def tree(selected_id: str = "sel-1") -> dict[str, Any]:
    return {
        "id": "app",
        "role": "Application",
        "title": "Test",
        "children": [
            {
                "id": "win-1",
                "role": "Window",
                "focused": True,
                "children": [
                    {
                        "id": "tab-1",
                        "role": "Page",
                        "subrole": "tab",
                        "title": "Demo",
                        "url": "http://127.0.0.1/",
                        "focused": True,
                        "futureField": {"ok": True},
                        "children": [
                            {
                                "id": selected_id,
                                "role": "Text",
                                "selected": True,
                                "content": [{"type": "text", "text": "hello"}],
                            }
                        ],
                    }
                ],
            }
        ],
    }


@dataclass
class FakeProvider:
    """A real MCP server on 127.0.0.1 in this process, answering `current` with `answer()`."""

    port: int
    path: str
    instance: str = "inst-A"
    protocol: str = "0.2.0"
    answer_instance: str | None = None
    answer_protocol: str | None = None
    selected_id: str = "sel-1"
    delay_s: float = 0.0
    seen_headers: list[dict[str, str]] = field(default_factory=list)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def answer(self) -> dict[str, Any]:
        return {
            "protocol": self.answer_protocol or self.protocol,
            "instance": self.answer_instance or self.instance,
            "root": tree(self.selected_id),
        }

    def descriptor(self, **overrides: Any) -> Descriptor:
        data: dict[str, Any] = {
            "protocol": self.protocol,
            "bundleId": BUNDLE,
            "name": "Test Host",
            "version": "1.0",
            "pid": os.getpid(),
            "instance": self.instance,
            "endpoint": self.endpoint,
            "token": TOKEN,
            "listenerPid": os.getpid(),
        }
        data.update(overrides)
        return Descriptor.model_validate(data)

    def write(self, folder: Path, **overrides: Any) -> Path:
        d = self.descriptor(**overrides)
        path = folder / f"{d.bundle_id}-{d.pid}.json"
        path.write_text(json.dumps(d.to_wire()))
        return path


@contextlib.asynccontextmanager
async def fake_provider() -> AsyncIterator[FakeProvider]:
    sock = loopback_socket()
    provider = FakeProvider(port=sock.getsockname()[1], path="/mcp/abcDEF")

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name="current", description="context", input_schema={"type": "object"}),
                types.Tool(name="echo", description="echo", input_schema={"type": "object"}),
            ]
        )

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "echo":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps(params.arguments))]
            )
        await asyncio.sleep(provider.delay_s)
        answer = provider.answer()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer))], structured_content=answer
        )

    server: Server[Any] = Server("fake", version="0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    mcp_app = server.streamable_http_app(streamable_http_path=provider.path)

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            provider.seen_headers.append(headers)
            if "origin" in headers or headers.get("authorization") != f"Bearer {TOKEN}":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await mcp_app(scope, receive, send)

    async with serving_asgi(guard, sock):
        yield provider


@pytest.fixture(name="sleeper")
def sleeper_fixture() -> Iterator[subprocess.Popen[bytes]]:
    """A live child process that is not the listener."""
    with sleeper() as proc:
        yield proc


def rejection_of(
    descriptor: Descriptor, identify: Callable[[psutil.Process], str | None] = same_bundle
) -> str:
    with pytest.raises(ProviderRejected) as info:
        check_descriptor(descriptor, identify=identify)
    return info.value.reason


# ---------------------------------------------------------------------------------------------
# Descriptor checks


async def test_a_descriptor_naming_this_listening_process_is_accepted() -> None:
    async with fake_provider() as p:
        check_descriptor(p.descriptor(), identify=same_bundle)


async def test_a_patch_version_is_accepted_and_another_minor_is_rejected() -> None:
    async with fake_provider() as p:
        check_descriptor(p.descriptor(protocol="0.2.7"), identify=same_bundle)
        assert rejection_of(p.descriptor(protocol="0.3.0")) == "unsupported_protocol"
        assert rejection_of(p.descriptor(protocol="1.2.0")) == "unsupported_protocol"
        assert rejection_of(p.descriptor(protocol="banana")) == "unsupported_protocol"


async def test_a_descriptor_whose_process_is_gone_is_rejected() -> None:
    async with fake_provider() as p:
        assert rejection_of(p.descriptor(pid=reaped_pid())) == "process_gone"


async def test_a_bundle_id_the_process_does_not_have_is_rejected() -> None:
    async with fake_provider() as p:
        # The real lookup: this python process is not Chromium.
        d = p.descriptor(bundleId="org.chromium.Chromium")
        assert rejection_of(d, identify=host_client.expected_bundle_id) == "bundle_id_mismatch"
        assert rejection_of(p.descriptor(), identify=lambda _p: "com.other.App") == "bundle_id_mismatch"


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://localhost:{port}/mcp/abcDEF",
        "https://127.0.0.1:{port}/mcp/abcDEF",
        "http://10.0.0.1:{port}/mcp/abcDEF",
        "http://127.0.0.1/mcp/abcDEF",
        "http://user@127.0.0.1:{port}/mcp/abcDEF",
    ],
)
async def test_an_endpoint_not_on_127_0_0_1_is_rejected(endpoint: str) -> None:
    async with fake_provider() as p:
        d = p.descriptor(endpoint=endpoint.format(port=p.port))
        assert rejection_of(d) == "endpoint_not_loopback"


async def test_a_port_nobody_listens_on_is_rejected() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening
        d = FakeProvider(port=port, path="/mcp/x").descriptor()
        assert rejection_of(d) == "not_listening"


async def test_a_listener_that_is_not_the_named_process_or_its_descendant_is_rejected(
    sleeper: subprocess.Popen[bytes],
) -> None:
    async with fake_provider() as p:
        # The port is held by this process, which is the child's parent, not its descendant.
        assert rejection_of(p.descriptor(pid=sleeper.pid)) == "listener_mismatch"


async def test_a_listener_that_is_a_descendant_of_the_named_process_is_accepted() -> None:
    async with fake_provider() as p:
        check_descriptor(p.descriptor(pid=os.getppid()), identify=same_bundle)


def test_the_bundle_id_of_this_process_is_not_a_browser_s() -> None:
    assert host_client.expected_bundle_id(psutil.Process()) is None


def test_a_chromium_process_is_expected_to_publish_the_chromium_bundle_id(tmp_path: Path) -> None:
    sleep = shutil.which("sleep")
    if sleep is None:
        pytest.skip("no `sleep` binary to pose as a browser")
    exe = tmp_path / "chromium"
    shutil.copy(sleep, exe)
    with sleeper(30, program=exe) as proc:
        assert host_client.expected_bundle_id(psutil.Process(proc.pid)) == "org.chromium.Chromium"


# ---------------------------------------------------------------------------------------------
# Discovery and choice


async def test_discover_lists_usable_and_rejected_descriptors_with_reasons(providers_folder: Path) -> None:
    async with fake_provider() as p:
        p.write(providers_folder)
        p.write(providers_folder, pid=reaped_pid(), bundleId="org.example.Gone")
        (providers_folder / "broken-1.json").write_text("{not json")
        found = discover(identify=same_bundle)
    by_name = {info.path.name: info for info in found}
    assert by_name[f"{BUNDLE}-{os.getpid()}.json"].usable
    gone = next(i for i in found if i.descriptor and i.descriptor.bundle_id == "org.example.Gone")
    assert gone.rejection is not None and gone.rejection.reason == "process_gone"
    assert by_name["broken-1.json"].rejection is not None
    assert by_name["broken-1.json"].rejection.reason == "unreadable"
    for info in found:
        assert TOKEN not in json.dumps(info.to_json())


def test_discover_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    assert discover(tmp_path / "nope") == []


posix_only = pytest.mark.skipif(os.name != "posix", reason="modes and owners are POSIX (SPEC §3)")


@posix_only
@pytest.mark.parametrize("mode", [0o775, 0o777, 0o722])
async def test_descriptors_in_a_folder_others_can_write_are_refused(
    providers_folder: Path, mode: int
) -> None:
    async with fake_provider() as p:
        p.write(providers_folder).chmod(0o600)
        providers_folder.chmod(mode)
        [info] = discover(identify=same_bundle)
    assert not info.usable and info.rejection is not None
    assert info.rejection.reason == "unsafe_folder"
    assert f"chmod 700 {providers_folder}" in info.rejection.message


@posix_only
@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
async def test_a_descriptor_others_can_write_is_refused(providers_folder: Path, mode: int) -> None:
    async with fake_provider() as p:
        p.write(providers_folder).chmod(mode)
        [info] = discover(identify=same_bundle)
    assert info.rejection is not None and info.rejection.reason == "unsafe_file"
    assert TOKEN not in json.dumps(info.to_json())


@posix_only
async def test_a_symlinked_folder_or_descriptor_is_refused(tmp_path: Path, providers_folder: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    async with fake_provider() as p:
        real = p.write(elsewhere)
        real.chmod(0o600)
        (providers_folder / "linked-1.json").symlink_to(real)
        [linked] = discover(identify=same_bundle)
        link = tmp_path / "link"
        link.symlink_to(elsewhere)
        [via_link] = discover(link, identify=same_bundle)
    assert linked.rejection is not None and linked.rejection.reason == "unsafe_file"
    assert via_link.rejection is not None and via_link.rejection.reason == "unsafe_folder"


@posix_only
async def test_readable_by_others_is_used_with_a_warning(providers_folder: Path) -> None:
    async with fake_provider() as p:
        path = p.write(providers_folder)
        path.chmod(0o600)
        [private] = discover(identify=same_bundle)
        path.chmod(0o644)
        providers_folder.chmod(0o755)
        [readable] = discover(identify=same_bundle)
    assert private.usable and private.warning is None and "warning" not in private.to_json()
    assert readable.usable and readable.warning is not None
    assert "chmod 700" in readable.warning and "chmod 600" in readable.warning
    assert readable.to_json()["warning"] == readable.warning


def _info(pid: int, *, usable: bool = True) -> ProviderInfo:
    d = FakeProvider(port=1, path="/").descriptor(pid=pid, name=f"P{pid}")
    rejection = None if usable else ProviderRejected("stale", reason="process_gone")
    return ProviderInfo(Path(f"x-{pid}.json"), d, rejection)


def test_choose_takes_the_pid_given() -> None:
    infos = [_info(10), _info(20)]
    assert choose_provider(infos, 20, front_pid=lambda: None).pid == 20


def test_choose_with_a_pid_that_was_rejected_says_why() -> None:
    with pytest.raises(ProviderRejected) as info:
        choose_provider([_info(10, usable=False)], 10, front_pid=lambda: None)
    assert info.value.reason == "process_gone"


def test_choose_prefers_the_front_app_then_the_only_provider() -> None:
    infos = [_info(10), _info(20)]
    assert choose_provider(infos, front_pid=lambda: 10).pid == 10
    assert choose_provider([_info(30)], front_pid=lambda: 99).pid == 30


def test_choose_among_several_asks_for_a_pid_and_lists_them() -> None:
    with pytest.raises(ProviderUnavailable) as info:
        choose_provider([_info(10), _info(20)], front_pid=lambda: None)
    assert "--pid" in str(info.value) and "P10 (pid 10)" in str(info.value) and "P20" in str(info.value)


def test_choose_with_nothing_usable_says_so() -> None:
    with pytest.raises(ProviderUnavailable, match="No usable provider"):
        choose_provider([_info(10, usable=False)], front_pid=lambda: None)


# ---------------------------------------------------------------------------------------------
# Talking to the provider


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


async def test_host_client_end_to_end_and_old_ids_are_not_valid_for_a_new_instance(
    providers_folder: Path,
) -> None:
    client = HostClient(identify=same_bundle, front_pid=lambda: None)
    async with fake_provider() as p:
        p.write(providers_folder)
        first = await client.current()
        assert first.answer.instance == "inst-A"
        assert client.ids.is_known("sel-1")
        assert client.owner_of("sel-1").instance == "inst-A"

        # The provider restarts: same pid, new instance, new descriptor.
        p.instance, p.selected_id = "inst-B", "sel-7"
        p.write(providers_folder)
        client.providers()
        assert not client.ids.is_known("sel-1"), "ids of the old instance must be gone"
        with pytest.raises(ProviderRejected) as info:
            client.owner_of("sel-1")
        assert info.value.reason == "unknown_id"

        second = await client.current()
        assert second.answer.instance == "inst-B"
        assert client.ids.owner_of("sel-7") == host_client.IdOwner(os.getpid(), "inst-B", BUNDLE)
        assert client.ids.owner_of("app") == host_client.IdOwner(os.getpid(), "inst-B", BUNDLE)

    # The provider quits: its descriptor stays behind but nobody listens any more.
    assert not client.providers()[0].usable
    assert not client.ids.is_known("sel-7")


def test_id_book_keeps_ids_per_provider_and_forgets_a_restarted_one() -> None:
    book = IdBook()
    a = FakeProvider(port=1, path="/").descriptor(pid=100, instance="i1")
    b = FakeProvider(port=2, path="/").descriptor(pid=200, instance="j1")
    book.record(
        a, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "i1", "root": tree("sel-23")})
    )
    book.record(
        b, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "j1", "root": tree("sel-23")})
    )
    assert book.owner_of("sel-23", pid=100) == host_client.IdOwner(100, "i1", BUNDLE)
    assert book.owner_of("sel-23") == host_client.IdOwner(200, "j1", BUNDLE)  # the latest issuer
    a2 = a.model_copy(update={"instance": "i2"})
    book.record(
        a2, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "i2", "root": tree("sel-1")})
    )
    assert not book.is_known("sel-23", pid=100)
    assert book.is_known("sel-23", pid=200)
    assert book.is_known("sel-1", pid=100)


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
