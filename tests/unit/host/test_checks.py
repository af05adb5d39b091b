"""check_descriptor (native_host/host/checks.py, design.md §7) against real processes and ports.

Each descriptor check is exercised with something real where that is cheap: this test process
listens on a real loopback port (tests/support/fake_provider.py: a tiny MCP server built with the
SDK answers `current`), a child `sleep` stands in for "another process", a reaped child for "a
process that is gone".
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator

import psutil
import pytest

from native_host import host as host_client
from native_host.errors import ProviderRejected
from native_host.host import check_descriptor
from native_host.protocol.descriptor import Descriptor
from tests.support.fake_provider import FakeProvider, fake_provider, same_bundle
from tests.support.processes import reaped_pid, sleeper


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
